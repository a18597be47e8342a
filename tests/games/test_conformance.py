"""Conformance: what every game must satisfy, checked on every built-in game and every game loader.

Each registered game at small parameters, an ``.efg`` file, an ACPC ``.game`` file and
wrapped OpenSpiel games pass the same checks (OpenSpiel's game checks in spirit):

* the rules: chance probabilities positive and summing to 1, legal actions sorted and
  unique, utilities within the game's bound (every history of a small game; seeded
  playouts of a big one);
* perfect recall: each information set is reached by one sequence of its player's own
  information sets and actions, and the compiled tree has exactly the game's information
  sets, parents before children, actors at decision nodes only;
* zero-sum: the players' counterfactual values at the root add up to 0 and give the
  expected value; NashConv is non-negative;
* values of the uniform and of seeded random strategies equal OpenSpiel's where it has
  the game;
* the size estimate (``subgame games --size``) within 25 % of the compiled tree;
* a strategy survives a save/load round trip.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from subgame.eval import counterfactual_values, expected_value, exploitability
from subgame.games import GAMES, load_game
from subgame.games.base import CHANCE, TERMINAL, Game
from subgame.strategy import Strategy
from subgame.tree.compile import compile_game
from subgame.tree.estimate import estimate_size
from subgame.tree.public_tree import DECISION, PublicTree
from subgame.tree.size import tree_bytes

DATA = Path(__file__).resolve().parents[1] / "data"


@dataclass(frozen=True)
class Case:
    """One game to check: how to load it, whether every history is walked, its OpenSpiel counterpart."""

    load: Callable[[], Game]
    full_walk: bool = True
    #: ``(OpenSpiel game name, parameters, whether our strategies map onto its policies)``
    openspiel: tuple[str, dict[str, Any], bool] | None = None


GOOFSPIEL = {"num_cards": 3, "imp_info": True, "points_order": "descending", "returns_type": "win_loss"}

CASES: dict[str, Case] = {
    "kuhn": Case(lambda: load_game("kuhn"), openspiel=("kuhn_poker", {}, True)),
    "leduc": Case(lambda: load_game("leduc"), openspiel=("leduc_poker", {}, True)),
    "leduc_nolimit": Case(lambda: load_game("leduc_nolimit", stack=6), full_walk=False),
    "poker": Case(lambda: load_game("poker", num_ranks=3, num_suits=2, hole_cards=1, board_cards=(0, 1), betting="nolimit",
                                    ante=0, blinds=(1, 2), stack=8, bet_fractions=(1.0,), all_in=True), full_walk=False),
    "holdem_subgame": Case(lambda: load_game("holdem_subgame", bets="allin", raise_cap=1), full_walk=False),
    "nlfh": Case(lambda: load_game("nlfh", num_ranks=4, num_suits=2), full_walk=False),
    "liars_dice": Case(lambda: load_game("liars_dice", dice_sides=3), openspiel=("liars_dice", {"numdice": 1, "dice_sides": 3}, False)),
    "goofspiel": Case(lambda: load_game("goofspiel", **GOOFSPIEL), openspiel=("goofspiel", GOOFSPIEL, False)),
    "coin_toss": Case(lambda: load_game("coin_toss")),
    "rps": Case(lambda: load_game("rps")),
    "rps_plus": Case(lambda: load_game("rps_plus")),
    "matching_pennies": Case(lambda: load_game("matching_pennies")),
    "red_green_coin": Case(lambda: load_game("red_green_coin")),
    "efg": Case(lambda: load_game(str(DATA / "efg" / "coin.efg"))),
    "acpc": Case(lambda: load_game(str(DATA / "acpc" / "kuhn.game")), openspiel=("universal_poker", {}, True)),
    "openspiel:goofspiel": Case(lambda: load_game("openspiel:goofspiel", num_cards=3, imp_info=True),
                                openspiel=("", {}, True)),
    "openspiel:liars_dice": Case(lambda: load_game("openspiel:liars_dice", dice_sides=3), openspiel=("", {}, True)),
}
#: The cases of more than a second or two (compiling or walking a bigger game).
SLOW = {"nlfh", "leduc_nolimit", "holdem_subgame"}
NEEDS_PYSPIEL = {name for name in CASES if name.startswith("openspiel:")} | {n for n, c in CASES.items() if c.openspiel}


def _params(names):
    names = list(names)
    marks = {name: [pytest.mark.slow] if name in SLOW else [] for name in names}
    return [pytest.param(name, marks=marks[name], id=name) for name in names]


def _pyspiel(name: str):
    if name in NEEDS_PYSPIEL:
        return pytest.importorskip("pyspiel")
    return None


@cache
def _setup(name: str) -> tuple[Game, PublicTree]:
    game = CASES[name].load()
    return game, compile_game(game)


def test_every_registered_game_is_checked():
    assert set(GAMES) - {"leduc_nolimit", "poker"} <= set(CASES) and {"leduc_nolimit", "poker"} <= set(CASES)


# -- the rules ------------------------------------------------------------------------------------------


def _check_state(game: Game, st: Any) -> list[int]:
    """The moves out of ``st`` after checking them (an empty list at a terminal)."""
    who = game.actor(st)
    if who == TERMINAL:
        assert abs(game.utility(st)) <= game.utility_bound() + 1e-12
        return []
    if who == CHANCE:
        outcomes = game.chance_outcomes(st)
        assert all(p > 0 for _, p in outcomes)
        assert sum(p for _, p in outcomes) == pytest.approx(1.0, abs=1e-12)
        moves = [a for a, _ in outcomes]
    else:
        assert who in (0, 1)
        moves = list(game.legal_actions(st))
    assert moves and moves == sorted(set(moves)), moves
    return moves


def _join(label: str, obs: str) -> str:
    return (label + "/" + obs if label else obs) if obs else label


@pytest.mark.parametrize("name", _params(CASES))
def test_rules_chance_sums_sorted_unique_actions_and_bounded_utilities(name):
    _pyspiel(name)
    game, _ = _setup(name)
    if CASES[name].full_walk:
        stack = [game.root()]
        while stack:
            st = stack.pop()
            stack.extend(game.next_state(st, a) for a in _check_state(game, st))
        return
    rng = np.random.default_rng(0)
    for _ in range(200):  # seeded playouts of a game too big to walk
        st = game.root()
        while moves := _check_state(game, st):
            st = game.next_state(st, moves[int(rng.integers(len(moves)))])


@pytest.mark.parametrize("name", _params(n for n, c in CASES.items() if c.full_walk))
def test_perfect_recall_and_the_compiled_information_sets(name):
    """Every information set (public observations, own private observations) has one own history."""
    _pyspiel(name)
    game, tree = _setup(name)
    own: list[dict[tuple, set]] = [{}, {}]

    def walk(st, pub, labels, seqs):
        who = game.actor(st)
        if who == TERMINAL:
            return
        moves = [a for a, _ in game.chance_outcomes(st)] if who == CHANCE else list(game.legal_actions(st))
        if who != CHANCE:
            own[who].setdefault((pub, labels[who]), set()).add(seqs[who])
        for a in moves:
            o_pub, o0, o1 = game.observations(st, a)
            nxt = list(seqs)
            if who != CHANCE:
                nxt[who] = seqs[who] + (((pub, labels[who]), a),)
            walk(game.next_state(st, a), pub + (o_pub,), (_join(labels[0], o0), _join(labels[1], o1)), tuple(nxt))

    walk(game.root(), (), ("", ""), ((), ()))
    for p in (0, 1):
        assert all(len(s) == 1 for s in own[p].values()), [k for k, s in own[p].items() if len(s) > 1][:3]
        assert tree.players[p].num_infosets == len(own[p])


@pytest.mark.parametrize("name", _params(CASES))
def test_compiled_tree_structure(name):
    """Parents before children, levels contiguous, a legal action at every information set, actors at decisions only."""
    _pyspiel(name)
    _, tree = _setup(name)
    assert np.all(tree.parent[1:] < np.arange(1, tree.num_nodes))
    assert np.all(np.diff(tree.depth) >= 0)
    for pa in tree.players:
        assert np.all(np.diff(tree.depth[pa.node]) >= 0)
        assert np.all(pa.legal.sum(axis=1) >= 1)
    assert np.all((tree.actor >= 0) == (tree.kind == DECISION))


# -- values -----------------------------------------------------------------------------------------


def _strategies(tree: PublicTree) -> list[Strategy]:
    return [Strategy.uniform(tree)] + [Strategy.random(tree, np.random.default_rng(seed)) for seed in (1, 2)]


@pytest.mark.parametrize("name", _params(CASES))
def test_zero_sum_root_values_and_non_negative_nash_conv(name):
    _pyspiel(name)
    _, tree = _setup(name)
    rs = tree.root_slice
    for s in _strategies(tree)[:2]:
        cfv = counterfactual_values(tree, s)
        ev = expected_value(tree, s)
        assert cfv[0][rs[0]].sum() == pytest.approx(ev, abs=1e-9)
        assert cfv[1][rs[1]].sum() == pytest.approx(-ev, abs=1e-9)
        assert exploitability(tree, s).nash_conv >= -1e-9


@pytest.mark.parametrize("name", _params(n for n, c in CASES.items() if c.openspiel))
def test_values_of_uniform_and_random_strategies_equal_openspiels(name):
    pyspiel = _pyspiel(name)
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms.expected_game_score import policy_value

    from subgame.interop.openspiel import to_tabular_policy

    game, tree = _setup(name)
    os_name, os_params, maps = CASES[name].openspiel  # type: ignore[misc]
    if os_name == "universal_poker":  # the same ACPC definition, read by OpenSpiel
        os_game = pyspiel.universal_poker.load_universal_poker_from_acpc_gamedef((DATA / "acpc" / "kuhn.game").read_text())
    else:
        os_game = pyspiel.load_game(os_name, os_params) if os_name else None
    if not maps:  # a native game without a policy correspondence: the uniform strategy only
        uniform = os_policy.UniformRandomPolicy(os_game)
        simultaneous = os_game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
        value = policy_value(os_game.new_initial_state(), uniform if simultaneous else [uniform] * 2)[0]
        assert expected_value(tree, Strategy.uniform(tree)) == pytest.approx(value, abs=1e-12)
        return
    for s in _strategies(tree):
        table = to_tabular_policy(game, tree, s, os_game)
        value = policy_value(table.game.new_initial_state(), [table] * 2)[0]
        assert expected_value(tree, s) == pytest.approx(value, abs=1e-12)


# -- size and files -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", _params(CASES))
def test_size_estimate_within_a_quarter_of_the_compiled_tree(name):
    _pyspiel(name)
    game, _ = _setup(name)
    tree = compile_game(game)  # as compiled: without the index arrays made when first used
    est = estimate_size(game)
    assert 0.75 <= est.tree_bytes / tree_bytes(tree) <= 1.25, (est.tree_bytes, tree_bytes(tree))
    if est.exact:
        assert est.public_nodes == tree.num_nodes
        assert est.private_states == (tree.players[0].num_states, tree.players[1].num_states)


@pytest.mark.parametrize("name", _params(CASES))
def test_strategy_save_load_round_trip(name, tmp_path):
    _pyspiel(name)
    _, tree = _setup(name)
    s = Strategy.random(tree, np.random.default_rng(5))
    back = Strategy.load(s.save(tmp_path / "s.npz", tree), tree)
    assert back.game_id == tree.game_id
    for p in (0, 1):
        np.testing.assert_array_equal(back.probs[p], s.probs[p])
