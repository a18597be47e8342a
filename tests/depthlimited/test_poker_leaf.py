"""Poker leaves valued by an implicit blueprint's last round equal a brute force over every leaf history."""

from __future__ import annotations

import pickle
import zlib
from itertools import combinations

import numpy as np
import pytest

from subgame.blueprint.actions import TERMINAL
from subgame.blueprint.deal_abstraction import ExactCards
from subgame.blueprint.implicit_mccfr import available
from subgame.depthlimited.continuations import biased
from subgame.depthlimited.leaf import MultiValuedLeaf
from subgame.depthlimited.poker_leaf import (
    CONTINUATIONS,
    PokerRoundValues,
    blueprint_root_values,
    continuation_tables,
    sampled_cards,
)
from subgame.errors import GameDefinitionError, SubgameError
from subgame.games.poker.hands import hand_strength
from subgame.tree import kernels
from subgame.tree.public_state import subgame_at
from subgame.tree.public_tree import LEAF
from tests.agents.test_hunl_search import _blueprint, _game

pytestmark = pytest.mark.skipif(not available(), reason="the compiled loop of implicit MCCFR is not built")

#: a turn public state of the three-rank deck: call, check preflop, check, check on the flop
TURN = ("", "", "c", "c", "Jh", "c", "c", "Qs")


def _mapping(bp, tree, dealt=True):
    """The blueprint node of each leaf sequence, by its action names (the subgame has the blueprint's sizes);
    ``dealt``: the leaves follow a deal (their key's last entry)."""
    bt, out = bp.tree, {}
    for n in np.flatnonzero(tree.kind == LEAF):
        key = tree.public_key[int(n)][: -1 if dealt else None]
        node = 0
        for name in key[2:]:
            if bt.child(node, name) >= 0:
                node = bt.child(node, name)
        out[key] = node
    return out


#: a flop public state of the three-rank deck: call, check preflop, the flop dealt
FLOP = ("", "", "c", "c", "Jh")


def _brute(game, tree, bp, mapping, player, num_values, dealt=True):
    """[K, G0, G1] player 0's chance-weighted value of every leaf history under each continuation: the blueprint
    walked hand by hand, each round's cards dealt (every one the hands leave, equally likely) where its betting starts
    or a showdown needs them, hands ranked by the rules. ``dealt``: the leaves follow a deal (their key's last entry)."""
    s, bt, cards = game.spec, bp.tree, ExactCards(game.spec)
    total = np.cumsum(s.board_cards)
    out = np.zeros((num_values, tree.players[0].num_states, tree.players[1].num_states))
    for n in np.flatnonzero(tree.kind == LEAF):
        node = mapping[tree.public_key[int(n)][: -1 if dealt else None]]
        for h in tree.leaf_data[int(n)]:
            st = h.state
            scale = h.chance_prob * st.contrib[0] / bt.contrib[node, 0]
            for k in range(num_values):
                stack = [(node, 1.0, st.board)]
                while stack:
                    m, q, board = stack.pop()
                    showdown = bt.kind[m] == TERMINAL and bt.folded[m] < 0
                    need = int(total[-1]) if showdown else 0 if bt.kind[m] == TERMINAL else int(total[int(bt.round[m])])
                    if len(board) < need:
                        r = int(np.searchsorted(total, len(board), side="right"))
                        free = [c for c in range(s.deck_size) if c not in board + st.hole[0] + st.hole[1]]
                        deals = list(combinations(free, int(s.board_cards[r])))
                        stack.extend((m, q / len(deals), board + d) for d in deals)
                        continue
                    if bt.kind[m] == TERMINAL:
                        strength = [hand_strength(st.hole[p] + board, s.num_ranks, s.num_suits) for p in range(2)]
                        col = 0 if bt.folded[m] >= 0 or strength[0] > strength[1] else 1 if strength[0] < strength[1] else 2
                        out[k, h.private_state[0], h.private_state[1]] += scale * q * bt.payoff[m, col]
                        continue
                    p, rnd = int(bt.player[m]), int(bt.round[m])
                    b = int(cards.buckets(rnd, np.array([st.hole[p]], np.int64), np.array([board], np.int64))[0])
                    row = bp.policy(m, np.array([b])).astype(np.float64)
                    names = bt.actions_of(m)
                    if p != player and k > 0:
                        mask = np.array([(a == "f", a == "c", a.startswith("r"))[k - 1] for a in names])[None, :]
                        row = biased(row, mask, 10.0)
                    stack.extend((bt.child(m, a), q * row[0, i], board) for i, a in enumerate(names))
    return out


@pytest.mark.parametrize("compiled", [False, pytest.param(True, marks=pytest.mark.skipif(not kernels.available(),
                                                                                       reason="the compiled loops are not built"))])
@pytest.mark.parametrize("player", [0, 1])
def test_leaf_products_equal_the_brute_force(player, compiled):
    """Both the numpy products and the compiled pass over the strength ladder."""
    with kernels.compiled(compiled):
        _leaf_products_equal_the_brute_force(player)


def _leaf_products_equal_the_brute_force(player):
    game, bp = _game(), _blueprint()
    sub = subgame_at(game, TURN, chance_limit=1, leaf_histories=True)
    tree = sub.tree
    mapping = _mapping(bp, tree)
    values = PokerRoundValues.build(game, tree, bp, ExactCards(game.spec), mapping, player, 4)
    opp = 1 - player
    states = np.flatnonzero(tree.kind[tree.players[opp].node] == LEAF)
    bound = values.bind(tree, states)
    opponent_values, player_values = bound.opponent_values, bound.player_values
    G = _brute(game, tree, bp, mapping, player, 4)
    rng = np.random.default_rng(3)
    reach = rng.random(tree.players[player].num_states)
    split = rng.random((states.size, 4))
    signed = G if opp == 0 else -G.transpose(0, 2, 1)  # [K, G_opp, G_rho]: the opponent's value
    want_opp = np.stack([signed[k][states] @ reach for k in range(4)], axis=1)
    np.testing.assert_allclose(opponent_values(reach), want_opp, rtol=1e-10, atol=1e-12)
    to_rho = -signed.transpose(0, 2, 1)  # [K, G_rho, G_opp]
    want_rho = sum(to_rho[k][:, states] @ split[:, k] for k in range(4))
    np.testing.assert_allclose(player_values(split), want_rho, rtol=1e-10, atol=1e-12)
    assert np.abs(want_opp).max() > 0 and not np.allclose(want_opp[:, 0], want_opp[:, 1])  # the continuations differ
    # the compiled calls bound at the first iteration are reused, and a copy sent to another process binds its own
    again, copy = values.bind(tree, states), pickle.loads(pickle.dumps(values)).bind(tree, states)
    for bound in (again, copy):
        assert np.array_equal(bound.opponent_values(reach), opponent_values(reach))
        assert np.array_equal(bound.player_values(split), player_values(split))


def test_sampled_cards_are_an_unbiased_estimate_and_leaves_plug_in():
    game, bp = _game(), _blueprint()
    tree = subgame_at(game, TURN, chance_limit=1).tree
    mapping = _mapping(bp, tree)
    exact = PokerRoundValues.build(game, tree, bp, ExactCards(game.spec), mapping, 0, 2)
    states = np.flatnonzero(tree.kind[tree.players[1].node] == LEAF)
    reach = np.random.default_rng(0).random(tree.players[0].num_states)
    want = exact.bind(tree, states).opponent_values(reach).sum(axis=0)
    boards = len(exact.boards)
    # every board alone, weighted by the number of boards: their mean is the exact sum
    alone = [PokerRoundValues.build(game, tree, bp, ExactCards(game.spec), mapping, 0, 2, river_cards=1, seed=s)
             for s in range(40)]
    seen = {a.boards[0].nodes[0]: a.bind(tree, states).opponent_values(reach).sum(axis=0) for a in alone}
    assert len(seen) == boards
    np.testing.assert_allclose(np.mean(list(seen.values()), axis=0), want, rtol=1e-12)
    leaf = MultiValuedLeaf(tree, exact)
    assert leaf.values(1, (reach, np.ones(tree.players[1].num_states)), 1).shape == (tree.players[1].num_states,)


@pytest.mark.parametrize("receiver", [0, 1])
def test_a_fresh_sample_each_iteration_is_unbiased_and_an_evaluation_exact(receiver):
    """``per_iteration``: iteration t values a sample seeded by t, each board weighted by every board's share, so the
    mean over the iterations' samples nears the whole sum; without an iteration every board is valued, bitwise."""
    game, bp = _game(), _blueprint()
    tree = subgame_at(game, TURN, chance_limit=1).tree
    mapping = _mapping(bp, tree)
    exact = PokerRoundValues.build(game, tree, bp, ExactCards(game.spec), mapping, 0, 2)
    sampled = PokerRoundValues.build(game, tree, bp, ExactCards(game.spec), mapping, 0, 2, per_iteration=1, seed=4)
    states = np.flatnonzero(tree.kind[tree.players[1].node] == LEAF)
    rng = np.random.default_rng(1)
    x = rng.random(tree.players[0].num_states) if receiver == 1 else rng.random((states.size, 2))
    full, part = exact.bind(tree, states), sampled.bind(tree, states)
    assert full.rows(receiver, 1) is None and part.rows(receiver, None) is None

    def want(x):
        return full.player_values(x) if receiver == 0 else full.opponent_values(x)

    def bound(x, t=None):
        """The sampled product at iteration t, its rows put back among all L (zeros elsewhere)."""
        rows = part.rows(receiver, t)
        if receiver == 0:
            return part.player_values(x if rows is None else x[rows], t)
        out = np.zeros((states.size, 2))
        out[slice(None) if rows is None else rows] = part.opponent_values(x, t)
        return out

    np.testing.assert_array_equal(bound(x), want(x))  # an evaluation
    draws = np.array([bound(x, t) for t in range(1, 401)])
    assert all(np.array_equal(d, bound(x, t)) for t, d in zip((1, 2), draws))  # seeded by the iteration
    assert all(part.rows(receiver, t).size < states.size for t in range(1, 6))  # one board of several
    boards = len(exact.boards)
    assert all(np.count_nonzero(np.abs(d).sum(axis=-1) if d.ndim > 1 else d) < np.count_nonzero(
        np.abs(want(x)).sum(axis=-1) if d.ndim > 1 else want(x)) for d in draws[:5])
    spread = draws.std(axis=0) / np.sqrt(len(draws))
    assert boards > 1 and np.all(np.abs(draws.mean(axis=0) - want(x)) <= 5 * spread + 1e-12)
    with pytest.raises(SubgameError, match="per_iteration"):
        PokerRoundValues.build(game, tree, bp, ExactCards(game.spec), mapping, 0, 2, per_iteration=0)


def test_a_sampled_iteration_changes_the_opponents_pick_at_the_sampled_leaf_states_alone():
    """The multi-valued leaf over fresh samples: her regrets move only at the leaf states of the boards drawn for her,
    and both players' values are those of the whole leaf with the draw's values put at its rows (zeros elsewhere)."""
    game, bp = _game(), _blueprint()
    tree = subgame_at(game, TURN, chance_limit=1).tree
    values = PokerRoundValues.build(game, tree, bp, ExactCards(game.spec), _mapping(bp, tree), 0, 2, per_iteration=1,
                                    seed=4)
    leaf = MultiValuedLeaf(tree, values)
    rng = np.random.default_rng(2)
    reach = (rng.random(tree.players[0].num_states), rng.random(tree.players[1].num_states))
    bound = values.bind(tree, leaf.states)
    for t in (1, 2, 3):
        x, before = leaf.choice(), leaf.regrets.copy()
        rows = bound.rows(1, t)
        w = np.zeros_like(x)
        w[rows] = bound.opponent_values(reach[0], t)
        want = np.zeros(tree.players[1].num_states)
        want[leaf.states] = (w * x).sum(axis=1)
        np.testing.assert_array_equal(leaf.values(1, reach, t), want)
        moved = np.flatnonzero(np.any(leaf.regrets != before, axis=1))
        assert moved.size and np.isin(moved, rows).all() and rows.size < leaf.states.size
        mine = bound.rows(0, t)
        np.testing.assert_array_equal(leaf.values(0, reach, t), bound.player_values(
            reach[1][leaf.states[mine]][:, None] * leaf.choice()[mine], t))


@pytest.mark.parametrize("best_response", [True, False])
@pytest.mark.parametrize("player", [0, 1])
def test_the_blueprints_values_at_a_river_root_equal_the_brute_force(player, best_response):
    """A safe re-solve's alternative payoffs: the opponent's counterfactual value at each root hand against ρ's
    blueprint from the root's node (best-responding at each of her information sets, or playing her blueprint),
    walked hand by hand with the rules' hand strengths."""
    game, bp = _game(), _blueprint()
    river = TURN + ("c", "c", "Ks")
    tree = subgame_at(game, river).tree
    bt, node = bp.tree, 0
    for name in river[2:]:
        node = bt.child(node, name) if bt.child(node, name) >= 0 else node  # deals are not the blueprint's nodes
    assert tuple(bt.contrib[node]) == (2, 2)  # no bet since the blinds: the values are the blueprint's, unscaled
    reach = np.random.default_rng(player).random(3)
    got = blueprint_root_values(game, tree, bp, ExactCards(game.spec), node, player, reach, best_response=best_response)
    s, cards, opp = game.spec, ExactCards(game.spec), 1 - player
    card = {game.cards_str((c,)): c for c in range(s.deck_size)}
    board = tuple(card[c] for c in ("Jh", "Qs", "Ks"))
    last = len(bp.num_buckets) - 1
    rs = tree.root_slice
    mine = [card[tree.players[player].label[h]] for h in range(rs[player].start, rs[player].stop)]

    def bucket(c):
        return int(cards.buckets(last, np.array([[c]]), np.array([board]))[0])

    def opp_value(theirs, m, q):
        """Her value below node m with her card ``theirs``, ρ's reach q[j] at each of his cards."""
        if bt.kind[m] == TERMINAL:
            total = 0.0
            for j, c in enumerate(mine):
                if c == theirs:  # no deal gives both the same card
                    continue
                hole = (theirs, c) if opp == 0 else (c, theirs)
                strength = [hand_strength((hole[p],) + board, s.num_ranks, s.num_suits) for p in range(2)]
                col = 0 if strength[0] > strength[1] else 1 if strength[0] < strength[1] else 2
                v = bt.payoff[m, 0 if bt.folded[m] >= 0 else col]
                total += q[j] * (v if opp == 0 else -v)
            return total
        names = bt.actions_of(m)
        if int(bt.player[m]) == player:
            rows = [bp.policy(m, np.array([bucket(c)])).astype(np.float64)[0] for c in mine]
            return sum(opp_value(theirs, bt.child(m, a), [q[j] * rows[j][k] for j in range(len(mine))])
                       for k, a in enumerate(names))
        below = [opp_value(theirs, bt.child(m, a), q) for a in names]
        row = bp.policy(m, np.array([bucket(theirs)])).astype(np.float64)[0]
        return max(below) if best_response else sum(r * v for r, v in zip(row, below))

    # the chance of the five cards dealt: 1 / (6 * 5 * 4 * 3 * 2)
    want = [opp_value(card[tree.players[opp].label[g]], node, list(reach)) / 720.0
            for g in range(rs[opp].start, rs[opp].stop)]
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-14)
    assert np.abs(want).max() > 0
    with pytest.raises(SubgameError, match="last round"):
        blueprint_root_values(game, tree, bp, ExactCards(game.spec), 0, player, reach)


def test_bad_continuations_and_memory_are_refused():
    game, bp = _game(), _blueprint()
    tree = subgame_at(game, TURN, chance_limit=1).tree
    mapping = _mapping(bp, tree)
    with pytest.raises(SubgameError, match="1 to 4 continuations"):
        continuation_tables(bp, next(iter(mapping.values())), 1, len(CONTINUATIONS) + 1)
    with pytest.raises(SubgameError, match="MiB, more than"):
        PokerRoundValues.build(game, tree, bp, ExactCards(game.spec), mapping, 0, 4, max_bytes=1)
    with pytest.raises(SubgameError, match="no blueprint node"):
        PokerRoundValues.build(game, tree, bp, ExactCards(game.spec), {}, 0, 4)


@pytest.mark.parametrize("player", [0, 1])
def test_a_tree_compiled_with_a_sample_of_leaf_cards_values_them_as_every_deal(player):
    """Compiled with ``leaf_cards`` (one river card), the subgame keeps that card's leaves only; each is valued as in
    the whole tree, times the number of possible deals (the unbiased weight of a one-card sample)."""
    game, bp = _game(), _blueprint()
    full = subgame_at(game, TURN, chance_limit=1).tree
    card = sampled_cards(game, (1, 2), 1, seed=5)  # any card the board lacks
    cut = subgame_at(game, TURN, chance_limit=1, leaf_cards=card).tree
    at_card = [int(n) for n in np.flatnonzero(full.kind == LEAF) if full.public_key[int(n)][-1] == game.cards_str(card)]
    assert 0 < (cut.kind == LEAF).sum() == len(at_card) < (full.kind == LEAF).sum()
    assert cut.players[0].num_states < full.players[0].num_states
    opp = 1 - player
    values = []
    for tree in (full, cut):
        states = np.flatnonzero(tree.kind[tree.players[opp].node] == LEAF)
        bound = PokerRoundValues.build(game, tree, bp, ExactCards(game.spec), _mapping(bp, tree), player, 4).bind(tree, states)
        pa = tree.players[player]
        # the same reach at the same (public key, hand) in both trees
        reach = np.array([zlib.crc32(repr((tree.public_key[int(pa.node[g])], pa.label[g])).encode()) % 97 / 97.0
                          for g in range(pa.num_states)])
        w = bound.opponent_values(reach)
        po = tree.players[opp]
        values.append({(tree.public_key[int(po.node[s])], po.label[s]): w[i] for i, s in enumerate(states)})
    deals = len({full.public_key[int(n)][-1] for n in np.flatnonzero(full.kind == LEAF)})
    assert set(values[1]) <= set(values[0]) and max(np.abs(w).max() for w in values[1].values()) > 0
    for key, w in values[1].items():
        np.testing.assert_allclose(w, deals * values[0][key], rtol=1e-12, atol=1e-15)


@pytest.mark.slow
@pytest.mark.skipif(not kernels.available(), reason="the compiled loops are not built")
@pytest.mark.parametrize("player", [0, 1])
def test_two_card_hands_compiled_equal_numpy(player):
    """Hold'em's two hole cards (the hand itself removed with each of its cards, added back once): the compiled pass
    over the strength ladder equals the numpy products, at every river leaf of a whole four-round game."""
    from subgame.blueprint.actions import ActionAbstraction
    from subgame.blueprint.blueprint_file import Blueprint
    from subgame.blueprint.buckets4 import Buckets4Config, FourRoundBuckets
    from subgame.blueprint.implicit_mccfr import ImplicitConfig, ImplicitMCCFR
    from subgame.games import load_game

    game = load_game("poker", num_ranks=4, num_suits=3, hole_cards=2, board_cards=(0, 1, 1, 1), betting="nolimit", ante=0,
                     blinds=(2, 1), stack=6, bet_fractions=(1.0,), all_in=True, first_player=(1, 0, 0, 0), raise_cap=1)
    buckets = FourRoundBuckets.build(Buckets4Config.of(game.spec, (16, 3, 4, 5), rollouts=2, fit_boards=2))
    solver = ImplicitMCCFR(game.spec, ActionAbstraction.of_spec(game.spec), buckets, ImplicitConfig(batch=2000), seed=1)
    solver.step()
    bp = Blueprint.of(solver)
    tree = subgame_at(game, None, chance_limit=3).tree
    values = PokerRoundValues.build(game, tree, bp, buckets, _mapping(bp, tree), player, 4)
    opp = 1 - player
    states = np.flatnonzero(tree.kind[tree.players[opp].node] == LEAF)
    rng = np.random.default_rng(7)
    reach, split = rng.random(tree.players[player].num_states), rng.random((states.size, 4))
    got = {}
    for flag in (False, True):
        with kernels.compiled(flag):
            bound = values.bind(tree, states)
            got[flag] = (bound.opponent_values(reach), bound.player_values(split))
    assert np.abs(got[False][0]).max() > 0
    for a, b in zip(got[False], got[True]):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)


def test_bad_leaf_card_samples_are_refused():
    game = _game()
    with pytest.raises(SubgameError, match="river_cards"):
        sampled_cards(game, (1, 2), 0, seed=0)
    assert sampled_cards(game, (1, 2), None, seed=0) is None
    assert sampled_cards(game, (1, 2), 99, seed=0) == (0, 3, 4, 5)  # every card the board lacks, once
    with pytest.raises(GameDefinitionError, match="chance_limit"):
        subgame_at(game, TURN, leaf_cards=(0,))


@pytest.mark.parametrize("compiled", [False, pytest.param(True, marks=pytest.mark.skipif(not kernels.available(),
                                                                                       reason="the compiled loops are not built"))])
@pytest.mark.parametrize("combine", [True, False])
@pytest.mark.parametrize("player", [0, 1])
def test_flop_leaves_valued_by_two_rounds_equal_the_brute_force(player, compiled, combine):
    """Leaves one round before the last: below each, the blueprint's turn, every river card and its river (each leaf's
    turn paths summed into a table over bucket pairs, or each path a column of its own)."""
    game, bp = _game(), _blueprint()
    tree = subgame_at(game, FLOP, chance_limit=1, leaf_histories=True).tree
    mapping = _mapping(bp, tree)
    assert {int(bp.tree.round[n]) for n in mapping.values() if bp.tree.kind[n] != TERMINAL} == {2}
    with kernels.compiled(compiled):
        values = PokerRoundValues.build(game, tree, bp, ExactCards(game.spec), mapping, player, 4, combine=combine)
        assert (values.stem_reach is None) == combine
        opp = 1 - player
        states = np.flatnonzero(tree.kind[tree.players[opp].node] == LEAF)
        bound = values.bind(tree, states)
        rng = np.random.default_rng(5)
        reach = rng.random(tree.players[player].num_states)
        split = rng.random((states.size, 4))
        got_opp, got_rho = bound.opponent_values(reach), bound.player_values(split)
    G = _brute(game, tree, bp, mapping, player, 4)
    signed = G if opp == 0 else -G.transpose(0, 2, 1)
    want_opp = np.stack([signed[k][states] @ reach for k in range(4)], axis=1)
    np.testing.assert_allclose(got_opp, want_opp, rtol=1e-10, atol=1e-12)
    to_rho = -signed.transpose(0, 2, 1)
    np.testing.assert_allclose(got_rho, sum(to_rho[k][:, states] @ split[:, k] for k in range(4)), rtol=1e-10, atol=1e-12)
    assert np.abs(want_opp).max() > 0 and not np.allclose(want_opp[:, 0], want_opp[:, 2])


def test_sampled_river_cards_below_flop_leaves_are_an_unbiased_estimate():
    """One turn board and one river card per build (seeded): the mean over every distinct pair is the exact sum."""
    game, bp = _game(), _blueprint()
    tree = subgame_at(game, FLOP, chance_limit=1).tree
    mapping = _mapping(bp, tree)
    states = np.flatnonzero(tree.kind[tree.players[1].node] == LEAF)
    reach = np.random.default_rng(0).random(tree.players[0].num_states)
    exact = PokerRoundValues.build(game, tree, bp, ExactCards(game.spec), mapping, 0, 3)
    want = exact.bind(tree, states).opponent_values(reach)
    seen = {}
    for seed in range(150):
        v = PokerRoundValues.build(game, tree, bp, ExactCards(game.spec), mapping, 0, 3, river_cards=1, rollout_cards=1,
                                   seed=seed)
        (board,) = v.boards
        assert len(board.showdowns) == 1
        key = (int(board.nodes[0]), tuple(board.showdowns[0].removal.hand_cards.ravel().tolist()))
        seen[key] = v.bind(tree, states).opponent_values(reach)
    turns = len({k[0] for k in seen})
    assert turns == len(exact.boards) and len(seen) == turns * 4  # every turn board, each with its 4 river cards
    np.testing.assert_allclose(np.mean(list(seen.values()), axis=0), want, rtol=1e-10, atol=1e-13)
    with pytest.raises(SubgameError, match="rollout_cards"):
        PokerRoundValues.build(game, tree, bp, ExactCards(game.spec), mapping, 0, 3, rollout_cards=0)


@pytest.mark.skipif(not kernels.available(), reason="the compiled loops are not built")
@pytest.mark.parametrize("combine", [True, False])
def test_a_leaf_boards_river_cards_in_one_compiled_call_equal_one_call_each(combine, monkeypatch):
    """Below flop leaves every river card of a turn board goes through one compiled call (``_Board.segments``): bit
    for bit the call per river card."""
    from subgame.depthlimited import poker_leaf

    game, bp = _game(), _blueprint()
    tree = subgame_at(game, FLOP, chance_limit=1).tree
    mapping = _mapping(bp, tree)
    states = np.flatnonzero(tree.kind[tree.players[1].node] == LEAF)
    rng = np.random.default_rng(0)
    reach, split = rng.random(tree.players[0].num_states), rng.random((states.size, 4))
    got = []
    for batched in (True, False):
        if not batched:
            monkeypatch.setattr(poker_leaf._Board, "segments", property(lambda self: None))
        values = PokerRoundValues.build(game, tree, bp, ExactCards(game.spec), mapping, 0, 4, combine=combine)
        assert batched == (values.boards[0].segments is not None)
        bound = values.bind(tree, states)
        got.append((bound.opponent_values(reach), bound.player_values(split)))
    for a, b in zip(*got):
        np.testing.assert_array_equal(a, b)
