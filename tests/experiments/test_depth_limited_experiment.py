"""Reduced form of the depth-limited-values experiment: the shape of the depth-limited paper's claim."""

from __future__ import annotations

import pytest

from subgame.experiments import EXPERIMENTS
from subgame.experiments.depth_limited import depth_limited_values

from .default_forms import default_form


@pytest.mark.slow
def test_depth_limited_values_reduced(tmp_path):
    assert EXPERIMENTS["depth-limited-values"] is depth_limited_values
    r = default_form("depth-limited-values")  # run again, and its figures checked, in test_readme_figures.py
    by = {(row[1].split()[0], row[2]): row[3] for row in r.rows}
    blueprint = by[("blueprint", "")]
    # One value per state lets each re-solver exploit the frozen continuation (§3): far worse than the blueprint.
    assert by[("bias", 1)] > 5 * blueprint
    # Four values bring the combined strategy back near the blueprint's exploitability.
    for kind in ("bias", "self-generative"):
        assert by[(kind, 4)] < by[(kind, 1)] / 5
        assert by[(kind, 4)] < 2 * blueprint
    assert by[("near-equilibrium", "")] < blueprint
    md, png = r.write(tmp_path)
    assert png is not None and png.read_bytes()[:4] == b"\x89PNG"
    assert "Where we differ from the paper" in md.read_text()
