"""``subgame agent-eval``: the exact exploitability of the search agent from the command line."""

from __future__ import annotations

import pytest

from subgame.agents.exact import agent_exploitability
from subgame.agents.search import SearchAgent, SearchConfig
from subgame.games import load_game
from subgame.solve.driver import Budget
from subgame.strategy import Strategy
from tests.cli.test_cli import invoke, ok_json
from tests.conftest import compiled


@pytest.mark.slow
def test_agent_eval_reports_what_the_library_computes(tmp_path):
    bp, out = tmp_path / "bp.npz", tmp_path / "agent.npz"
    ok_json("solve", "leduc", "-p", "num_ranks=2", "--algo", "cfr+", "-n", "50", "--out", bp)
    report = ok_json("agent-eval", bp, "--values", "2", "-n", "40", "--out", out)
    assert report["values"] == 2 and report["subgames_solved"] > 0 and report["information_sets_answered"] > 0
    game, tree = load_game("leduc", num_ranks=2), compiled("leduc", num_ranks=2)
    agent = SearchAgent(game, tree, Strategy.load(bp), SearchConfig(num_values=2, budget=Budget(iterations=40)))
    expected, _ = agent_exploitability(agent, game, tree)
    assert report["agent"]["exploitability"] == pytest.approx(expected.exploitability, abs=1e-12)
    assert Strategy.load(out, tree).meta.algo.startswith("search agent")
    bad = invoke("agent-eval", bp, "--values", "0")
    assert bad.exit_code == 2 and "K must be" in bad.output
    bad = invoke("agent-eval", bp, "--algo", "nope")
    assert bad.exit_code == 2 and "unknown --algo" in bad.output
