"""Matches without the compiled game (HUNL): agents that need no tree play duplicate deals by the game's rules; the
tree's size is estimated before it is built, and a tree that does not fit is never compiled."""

from __future__ import annotations

import json

import numpy as np
import pytest

from subgame.agents.base import Decision, View
from subgame.agents.match import play_match
from subgame.agents.specs import treeless_agent
from subgame.blueprint.implicit_mccfr import available
from subgame.games.poker.game import CALL
from subgame.tree.estimate import estimate_size
from tests.agents.test_hunl_search import SMALL, _blueprint, _game
from tests.cli.test_cli import invoke

pytestmark = pytest.mark.skipif(not available(), reason="the compiled loop of implicit MCCFR is not built")

TINY = "0.001"  #: GiB: less than the test game's tree (about 1.3 MiB)
PARAMS = [x for k, v in SMALL.items() for x in ("-p", f"{k}={','.join(map(str, v)) if isinstance(v, tuple) else v}")]


@pytest.fixture(scope="module")
def bp(tmp_path_factory) -> str:
    return str(_blueprint().save(tmp_path_factory.mktemp("bp") / "bp.npz"))


def test_a_match_of_blueprint_and_search_agents_never_compiles_a_tree_that_does_not_fit(bp, monkeypatch):
    def no_compile(*args, **kwargs):
        raise AssertionError("the whole game was compiled")

    assert estimate_size(_game()).tree_bytes > float(TINY) * 2**30
    monkeypatch.setattr("subgame.cli.match.compile_game", no_compile)
    result = invoke("match", f"search:{bp}:5", f"lookup:{bp}", "--game", "poker", *PARAMS, "--hands", "6", "--max-memory", TINY,
                    "--json")
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["agents"] == ["search:bp", "lookup:bp"] and record["hands"] == 12
    assert set(record["winrate"]) == {"plain", "luck", "aivat"} and record["estimators_absent"] is None
    assert "cards' value" in record["aivat_value_function"] and record["exact"] is None
    # an agent that needs the tree is refused before anything is built
    result = invoke("match", f"lookup:{bp}", "random", "--game", "poker", *PARAMS, "--max-memory", TINY)
    assert result.exit_code == 0, result.output
    refused = invoke("match", f"lookup:{bp}", bp, "--game", "poker", *PARAMS, "--max-memory", TINY)
    assert refused.exit_code != 0 and "estimated before building it" in refused.output and "need no tree" in refused.output


class _Spy:
    """Calls always; records the private observations it is dealt in each hand."""

    name = "spy"

    def __init__(self) -> None:
        self.hands: list[tuple[int, tuple[str, ...]]] = []

    def new_hand(self, player: int, seed: int) -> None:
        self.hands.append((player, ()))

    def act(self, view: View) -> Decision:
        player, _ = self.hands[-1]
        self.hands[-1] = (player, tuple(m.private for m in view.moves if m.private))
        return Decision({CALL if CALL in view.legal else view.legal[0]: 1.0})


def test_duplicate_deals_are_identical_in_both_seatings_without_a_tree():
    a, b = _Spy(), _Spy()
    result = play_match(_game(), None, (a, b), 8, seed=3, aivat=False)
    assert result.deals == 8 and not result.has_aivat and result.absent == "not asked for"
    for d in range(8):
        (sa0, ca0), (sa1, ca1) = a.hands[2 * d], a.hands[2 * d + 1]
        (sb0, cb0), (sb1, cb1) = b.hands[2 * d], b.hands[2 * d + 1]
        assert (sa0, sb0, sa1, sb1) == (0, 1, 1, 0)
        assert ca0 and cb0 and ca0 == cb1 and cb0 == ca1  # the seat-0 cards in play 0 are dealt to seat 0 in play 1
    again = play_match(_game(), None, (_Spy(), _Spy()), 8, seed=3, aivat=False)
    assert np.array_equal(result.per_deal, again.per_deal, equal_nan=True)


def test_seconds_per_decision_is_the_search_budget_unless_the_spec_names_one(bp):
    game = _game()
    assert treeless_agent(f"search:{bp}", game, 0.5).config.budget.seconds == 0.5  # type: ignore[union-attr]
    assert treeless_agent(f"search:{bp}:7", game, 0.5).config.budget.iterations == 7  # type: ignore[union-attr]
    assert treeless_agent(f"lookup:{bp}", game).name == "lookup:bp"  # type: ignore[union-attr]
    assert treeless_agent(bp, game) is None
