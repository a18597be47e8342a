"""Reduced forms of gadget-tradeoff (Milec et al. Fig. 4) and gift-scaling (safe-and-nested Appendix D)."""

from __future__ import annotations

from subgame.experiments import EXPERIMENTS
from subgame.experiments.gadgets import gadget_tradeoff, gift_scaling


def test_gadget_tradeoff_full_gadget_beats_the_constant_size_gadgets(tmp_path):
    assert EXPERIMENTS["gadget-tradeoff"] is gadget_tradeoff
    r = gadget_tradeoff(ps=(0.5, 0.75))
    by = {(row[0], row[1]): row for row in r.rows}
    for gadget in ("resolve", "maxmargin"):
        # at p = 0.75 the full gadget's response gains more and is less exploitable (Fig. 4: it alone recovers the set)
        assert by[("full", "0.75")][2] > by[(gadget, "0.75")][2]
        assert by[("full", "0.75")][3] < by[(gadget, "0.75")][3]
    assert by[("maxmargin", "0.75")][3] > by[("full", "0.75")][3]  # max-margin underestimates a deviation's exploitability
    assert all(row[5] == "yes" for row in r.rows if row[0] == "full")  # Theorem 5.3 holds with the full gadget
    assert "0.75" in r.notes[0]
    md, png = r.write(tmp_path)
    assert "Differs from the paper" in md.read_text() and png is not None and png.read_bytes()[:4] == b"\x89PNG"
    assert gadget_tradeoff(ps=(0.5, 0.75)).markdown() == r.markdown()  # the same table twice


def test_gift_scaling_zero_is_maxmargin_one_is_reach_maxmargin_and_overscaling_hurts(tmp_path):
    from subgame.experiments.technique_table import technique_table

    assert EXPERIMENTS["gift-scaling"] is gift_scaling
    r = gift_scaling(scales=(0.0, 1.0, 1000.0), subgame_iterations=100)
    by = {row[2]: row[3] for row in r.rows}
    t = technique_table(games=("leduc",), methods=("maxmargin", "reach-maxmargin"), subgame_iterations=100)
    ref = {row[2]: row[3] for row in t.rows if row[1].startswith("coarse")}
    assert by["0"] == ref["maxmargin"] and by["1"] == ref["reach-maxmargin"]
    assert by["1000"] > by["1"] + 0.05  # gifts scaled far beyond their size: the re-solver gives away too much
    md, png = r.write(tmp_path)
    assert "whole gift (no split)" in md.read_text() and png is not None
    assert gift_scaling(scales=(0.0, 1.0, 1000.0), subgame_iterations=100).markdown() == r.markdown()
