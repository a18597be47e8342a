"""The reduced form of the Fig. 4 experiment: CFR-D lines flatten where the trunk error dominates."""

from __future__ import annotations

import pytest

from subgame.experiments.cfr_d import cfr_d_experiment
from tests.experiments.default_forms import default_form


@pytest.mark.slow
def test_cfr_d_experiment_reduced(tmp_path):
    r = default_form("cfr-d")  # the run the README's figures are checked on (tests/experiments/test_readme_figures.py)
    by = {(row[0], row[1]): row[2] for row in r.rows}
    trunk = sorted({t for t, _ in by})
    ks = sorted({k for _, k in by})
    assert len(r.rows) == len(trunk) * len(ks) == 6
    for t in trunk:  # more subgame iterations help on every line ...
        assert by[(t, ks[-1])] < by[(t, ks[0])]
    # ... until the trunk error dominates: the line of few trunk iterations flattens first
    gain = {t: by[(t, ks[-2])] / by[(t, ks[-1])] for t in trunk}
    assert gain[trunk[0]] < gain[trunk[-1]]
    assert by[(trunk[-1], ks[-1])] < by[(trunk[0], ks[-1])]
    for row in r.rows:
        assert row[3] >= row[2] - 0.01  # the stored-value bound is an upper bound up to re-solving error
    md, png = r.write(tmp_path)
    assert md.read_text().count("\n|") >= 7 and png.read_bytes()[:4] == b"\x89PNG"
    assert [row[:4] for row in cfr_d_experiment().rows] == [row[:4] for row in r.rows]  # deterministic (timings aside)
