"""Reduced form of the offtree-values experiment: the shape of the depth-limited paper's Fig. 2."""

from __future__ import annotations

from subgame.experiments import EXPERIMENTS
from subgame.experiments.offtree import offtree_values


def test_offtree_values_reduced(tmp_path):
    assert EXPERIMENTS["offtree-values"] is offtree_values
    options = {"ks": (1, 2), "num_ranks": 3, "stack": 8, "blueprint_iterations": 100, "iterations": 100,
               "equilibrium_iterations": 500}
    r = offtree_values(**options)
    by = {(row[0].split()[0], row[1]): row[2] for row in r.rows}
    translation = by[("randomized", "")]
    # One value per state: player 0 exploits the frozen blueprint continuation, worse than translation (Fig. 2).
    assert by[("depth-limited", 1)] > translation
    assert by[("depth-limited", 2)] < translation
    assert all(e > -1e-3 for e in by.values())  # exploitability up to the reference value's own gap
    md, png = r.write(tmp_path)
    assert png is not None and png.read_bytes()[:4] == b"\x89PNG"
    assert "Where we differ from the paper" in md.read_text()
    assert offtree_values(**options).rows == r.rows  # deterministic
