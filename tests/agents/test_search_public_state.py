"""The search agent in a game whose whole tree it never compiles: subgames from public states, a blueprint per information set."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.agents import CallAgent
from subgame.agents.blueprints import TreeBlueprint, UniformBlueprint
from subgame.agents.exact import agent_strategy
from subgame.agents.match import play_hand
from subgame.agents.search import SearchAgent, SearchConfig
from subgame.errors import GameDefinitionError, StrategyFileError, SubgameError
from subgame.games import load_game
from subgame.games.base import game_fingerprint
from subgame.solve.cfr import CFR_PLUS, CFRSolver
from subgame.solve.driver import Budget
from subgame.strategy import Strategy
from subgame.tree import enumeration, poker_compile
from subgame.tree.compile import compile_game
from subgame.tree.estimate import estimate_size
from tests.agents.test_search import first_view
from tests.conftest import compiled

SMALL_LEDUC = {"num_ranks": 2}
NOLIMIT = {"num_ranks": 4, "betting": "nolimit", "stack": 8, "bet_fractions": (1.0,), "max_raises": (1, 1)}


@pytest.fixture
def compiles(monkeypatch):
    """Every compile from now on: (its roots' public observations, depth limit, chance limit)."""
    seen: list[tuple[frozenset[tuple[str, ...]], int | None, int | None]] = []
    walk, build = enumeration._Compiler.run, poker_compile._Builder.run

    def walked(self, roots):
        seen.append((frozenset(h.public for h in roots), self.depth_limit, self.chance_limit))
        return walk(self, roots)

    def built(self, roots):
        seen.append((frozenset(key for _, key, _ in roots), self.depth_limit, self.chance_limit))
        return build(self, roots)

    monkeypatch.setattr(enumeration._Compiler, "run", walked)
    monkeypatch.setattr(poker_compile._Builder, "run", built)
    return seen


def _whole(game, seen) -> list:
    """The compiles in ``seen`` of the whole game: from its start (or its first public state), with no limit."""
    start = {(), compile_game(game, depth_limit=0).public_key[0]}
    return [c for c in seen if c[0] <= start and c[1] is None and c[2] is None]


def test_the_spy_sees_a_compile_of_the_whole_game(compiles):
    game = load_game("leduc", **SMALL_LEDUC)
    compile_game(game, chance_limit=1)
    assert compiles and not _whole(game, compiles)
    compile_game(game)
    assert len(_whole(game, compiles)) == 1


SAFE_EARLY = {"early": "safe", "first_final": "unsafe", "safe_gadget": "maxmargin"}
CASES = [("leduc", SMALL_LEDUC, {}), ("leduc", SMALL_LEDUC, SAFE_EARLY), ("openspiel:leduc_poker", {}, {"num_values": 2}),
         ("leduc", SMALL_LEDUC, {"leaf_values": "rollouts"})]


@pytest.mark.parametrize(("name", "params", "options"), CASES, ids=["leduc", "leduc-safe-early", "generic-compiler", "rollouts"])
@pytest.mark.slow
def test_without_the_tree_the_agent_plays_as_with_it_and_never_compiles_the_whole_game(compiles, name, params, options):
    if name.startswith("openspiel:"):
        pytest.importorskip("pyspiel")  # Leduc through the generic compiler: public chance, labels of its own
    game, tree = load_game(name, **params), compiled(name, **params)
    blueprint = CFRSolver(tree, CFR_PLUS).run(30).average_strategy()
    config = SearchConfig(**{"num_values": 3, "budget": Budget(iterations=20), **options})
    with_tree = SearchAgent(game, tree, blueprint, config)
    want = [agent_strategy(with_tree, game, tree, p) for p in (0, 1)]
    compiles.clear()
    without = SearchAgent(game, None, TreeBlueprint(tree, blueprint), config)
    got = [agent_strategy(without, game, tree, p) for p in (0, 1)]
    assert compiles and not _whole(game, compiles)
    assert len(without.solves) == len(with_tree.solves)
    assert {(s.gadget, s.depth_limited) for s in without.solves.values()} >= {("unsafe", True)}
    for p in (0, 1):
        np.testing.assert_array_equal(got[p], want[p])


def test_a_match_of_no_limit_poker_is_played_without_compiling_the_whole_game(compiles):
    game = load_game("poker", **NOLIMIT)
    agent = SearchAgent(game, None, UniformBlueprint(game_fingerprint(game)),
                        SearchConfig(num_values=2, budget=Budget(iterations=10)))
    rng = np.random.default_rng(4)
    for hand in range(6):
        seat = hand % 2
        agent.new_hand(seat, hand)
        seats = (agent, CallAgent()) if seat == 0 else (CallAgent(), agent)
        utility, _, _ = play_hand(game, seats, rng, rng)
        assert abs(utility) <= game.utility_bound()
    assert not _whole(game, compiles) and agent.tree is None
    whole = estimate_size(game).public_nodes
    assert agent.solves and all(s.tree.num_nodes < whole for s in agent.solves.values())
    assert any(s.depth_limited for s in agent.solves.values())
    assert any(len(s.root) > len(compile_game(game, depth_limit=0).public_key[0]) for s in agent.solves.values())


def test_a_subgame_larger_than_allowed_is_refused_before_it_is_built(compiles):
    game = load_game("poker", **NOLIMIT)
    agent = SearchAgent(game, None, UniformBlueprint(game_fingerprint(game)), SearchConfig(max_bytes=10_000))
    view = first_view(game)
    agent.new_hand(0, 0)
    with pytest.raises(GameDefinitionError, match="estimated before building it"):
        agent.act(view)
    assert all(c[1] == 1 for c in compiles)  # only the first public state and its children were compiled
    with pytest.raises(SubgameError, match="max_bytes"):
        SearchConfig(max_bytes=0)


def test_a_blueprint_it_cannot_use_is_one_clear_error():
    game, tree = load_game("leduc", **SMALL_LEDUC), compiled("leduc", **SMALL_LEDUC)
    with pytest.raises(GameDefinitionError, match="queried per information set"):
        SearchAgent(game, None, Strategy.uniform(tree))
    with pytest.raises(GameDefinitionError, match="is of game"):
        SearchAgent(game, None, UniformBlueprint(game_fingerprint(load_game("kuhn"))))
    with pytest.raises(SubgameError, match="whole game"):
        SearchAgent(game, None, UniformBlueprint(tree.game_id), SearchConfig(continuations="self-generative"))
    with pytest.raises(StrategyFileError, match="blueprint is of game"):
        TreeBlueprint(tree, Strategy.uniform(tree)).probs(compiled("kuhn"), 0)
