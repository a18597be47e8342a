"""Reduced form of the agent-exploitability experiment."""

from __future__ import annotations

import pytest

from subgame.experiments import EXPERIMENTS
from subgame.experiments import search_agent as experiment


@pytest.mark.slow
def test_agent_exploitability_reduced(tmp_path, monkeypatch):
    assert EXPERIMENTS["agent-exploitability"] is experiment.agent_exploitability_experiment
    monkeypatch.setitem(experiment.GAMES, "tiny no-limit Leduc", ("leduc_nolimit", {"num_ranks": 2, "stack": 4}))
    options = {"games": ("tiny no-limit Leduc",), "ks": (1, 4), "iterations": 30, "equilibrium_iterations": 200}
    r = experiment.agent_exploitability_experiment(**options)
    by = {(row[1].split()[0], row[2]): row for row in r.rows}
    blueprint, equilibrium = by[("blueprint", "")][4], by[("near-equilibrium", "")][4]
    assert 0 <= equilibrium < blueprint
    for k in (1, 4):
        row = by[("search", k)]
        assert row[3] > 0  # subgames solved
        assert 0 <= row[4] < 20 * blueprint and row[5] == 1000 * row[4]
    md, png = r.write(tmp_path)
    assert png is not None and png.read_bytes()[:4] == b"\x89PNG"
    assert "Where we differ" in md.read_text()
    again = experiment.agent_exploitability_experiment(**options)
    assert [row[:-1] for row in again.rows] == [row[:-1] for row in r.rows]  # deterministic (seconds aside)
