"""Reduced form of the nested-table experiment (safe-and-nested Table 2)."""

from __future__ import annotations

import pytest

from subgame.experiments import EXPERIMENTS
from subgame.experiments.nested_flops import table_2
from subgame.experiments.nested_table import PAPER_TABLE_2, nested_table


@pytest.mark.slow
def test_nested_table_reduced(tmp_path):
    kw = dict(num_ranks=3, stack=10, blueprint_iterations=300, subgame_iterations=50)
    r = nested_table(**kw)
    ours = {row[0]: row[1] for row in r.rows}
    assert set(ours) == set(PAPER_TABLE_2)
    translation = ours["randomized pseudo-harmonic translation"]
    safe = [v for name, v in ours.items() if "translation" not in name and "unsafe" not in name]
    assert max(safe) < translation and min(safe) < 0.5 * translation  # the paper's shape, with few iterations
    assert ours["unsafe (expensive)"] > 0  # unsafe has no guarantee: in this small game it can exceed translation
    md, png = r.write(tmp_path)
    assert "1465" in md.read_text() and png is not None and png.read_bytes()[:4] == b"\x89PNG"
    assert nested_table(**kw).markdown() == r.markdown()
    assert EXPERIMENTS["nested-table"] is table_2  # the Leduc form by default, --game nlfh the 52-card one
