"""The poker compiler: same layout and values as the generic compiler, card removal, hold'em rivers."""

from __future__ import annotations

import time
from itertools import combinations
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subgame.errors import GameDefinitionError
from subgame.eval.best_response import counterfactual_values, expected_value, exploitability
from subgame.games import load_game
from subgame.games.base import CHANCE
from subgame.games.poker import PokerGame
from subgame.games.poker.hands import hand_strength
from subgame.solve.cfr import CFR_PLUS, CFRSolver
from subgame.strategy import Strategy
from subgame.tree.enumeration import enumerate_game as compile_game
from subgame.tree.operators import SparseTerminal
from subgame.tree.poker_compile import compile_poker, deal_hands, state_hands
from subgame.tree.poker_operators import CardRemoval, FoldTerminal, ShowdownTerminal, strength_keys
from subgame.tree.public_tree import CHANCE_NODE, TERMINAL_NODE
from subgame.tree.sweep import leaf_values
from subgame.tree.threads import set_threads
from tests.conftest import compiled
from tests.toy_games import POKER_GAMES as GAMES
from tests.toy_games import RIVER, RIVER_BOARD


def generic(key: str):
    name, params = GAMES[key]
    return compiled(name, **params)


def poker(key: str, **kwargs):
    name, params = GAMES[key]
    return compile_poker(load_game(name, **params), **kwargs)


def assert_same_layout(a, b):
    assert a.game_id == b.game_id and a.game_name == b.game_name
    for f in ("kind", "actor", "parent", "depth"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f), err_msg=f)
    assert a.public_key == b.public_key
    for pa, pb in zip(a.players, b.players):
        for f in ("node", "parent", "level_bounds", "child_seq", "infoset_priv", "legal", "action_ids"):
            np.testing.assert_array_equal(getattr(pa, f), getattr(pb, f), err_msg=f)
        assert pa.label == pb.label
        assert pa.action_names == pb.action_names
    assert a.utility_bound == b.utility_bound


# -- equivalence with the generic compiler ------------------------------------------------------
@pytest.mark.parametrize("key", list(GAMES))
@pytest.mark.slow
def test_layout_matches_generic_compiler(key):
    assert_same_layout(generic(key), poker(key))


@pytest.mark.parametrize("key", list(GAMES))
@pytest.mark.parametrize("threshold", [0, 10**6])
@pytest.mark.slow
def test_values_match_generic_compiler(key, threshold):
    ref, tree = generic(key), poker(key, sparse_threshold=threshold)
    assert {type(op) for op in tree.terminals} == ({SparseTerminal} if threshold else {FoldTerminal, ShowdownTerminal})
    rng = np.random.default_rng(7)
    for _ in range(2):
        s = Strategy.random(ref, rng)
        e_ref, e = exploitability(ref, s), exploitability(tree, s)
        np.testing.assert_allclose(e.br_values, e_ref.br_values, rtol=0, atol=1e-12)
        assert e.game_value == pytest.approx(e_ref.game_value, abs=1e-12)
        for v, v_ref in zip(counterfactual_values(tree, s), counterfactual_values(ref, s)):
            np.testing.assert_allclose(v, v_ref, rtol=0, atol=1e-12)


@pytest.mark.parametrize("key", ["leduc", "two_hole_cards", "three_rounds"])
def test_both_operator_paths_and_their_matrices_agree(key):
    sparse, fast = poker(key, sparse_threshold=10**6), poker(key, sparse_threshold=0)
    assert len(fast.terminals) == 2 and not any(isinstance(op, SparseTerminal) for op in fast.terminals)
    rng = np.random.default_rng(3)
    reach = tuple(rng.random(pa.num_states) for pa in fast.players)
    for p in (0, 1):
        np.testing.assert_allclose(leaf_values(fast, p, reach), leaf_values(sparse, p, reach), rtol=0, atol=1e-12)
    difference = sum(op.matrix() for op in fast.terminals) - sparse.terminals[0].matrix()
    assert abs(difference).max() <= 1e-15


@pytest.mark.parametrize("public_state", [(), ("",), ("", "", "c", "c"), ("", "", "r", "c", "Ks"), ("", "", "c", "r")])
@pytest.mark.parametrize("depth_limit", [None, 0, 2])
@pytest.mark.slow
def test_rooted_and_depth_limited_trees_match(public_state, depth_limit):
    game = load_game("leduc")
    ref = compile_game(game, public_state=public_state, depth_limit=depth_limit, leaf_histories=True)
    tree = compile_poker(game, public_state=public_state, depth_limit=depth_limit, sparse_threshold=0, leaf_histories=True)
    assert_same_layout(ref, tree)
    assert ref.leaf_data.keys() == tree.leaf_data.keys()
    for n, hists in ref.leaf_data.items():
        got = [(h.state, h.chance_prob, tuple(h.private_state)) for h in tree.leaf_data[n]]
        assert got == [(h.state, h.chance_prob, tuple(h.private_state)) for h in hists]
    if depth_limit is None:
        s = Strategy.random(ref, np.random.default_rng(0))
        assert expected_value(tree, s) == pytest.approx(expected_value(ref, s), abs=1e-12)
    else:
        bare = compile_poker(game, public_state=public_state, depth_limit=depth_limit, leaf_histories=False)
        assert not bare.leaf_data and bare.num_nodes == tree.num_nodes


def test_blocked_hands_are_absent_and_player_1_order_is_the_generic_one():
    game, tree = load_game("leduc"), poker("leduc")
    name = [game.cards_str((c,)) for c in range(6)]
    board_node = tree.node_of_key[("", "", "c", "c", name[2])]
    for p, expected in ((0, [0, 1, 3, 4, 5]), (1, [1, 3, 4, 5, 0])):
        pa = tree.players[p]
        assert [pa.label[g] for g in np.flatnonzero(pa.node == board_node)] == [name[c] for c in expected]
    # chance children come in the order their first histories appear (cards 0 and 1 dealt first)
    kids = [tree.public_key[n][-1] for n in np.flatnonzero(tree.parent == tree.node_of_key[("", "", "c", "c")])]
    assert kids == [name[c] for c in (2, 3, 4, 5, 1, 0)]


def test_state_hands_maps_labels_to_deal_order():
    game = load_game("leduc")
    tree = poker("leduc")
    hands = deal_hands(game)
    assert hands.tolist() == [[c] for c in range(6)]
    for p in (0, 1):
        idx = state_hands(game, tree, p)
        assert [game.cards_str(tuple(hands[i])) for i in idx] == list(tree.players[p].label)
    two = load_game(*GAMES["two_hole_cards"][:1], **GAMES["two_hole_cards"][1])
    ids = [sum(int(c) * 6**i for i, c in enumerate(h)) for h in deal_hands(two)]
    assert ids == sorted(ids) == sorted(a for a, _ in two.chance_outcomes(two.root()))


def test_board_filter_is_the_full_tree_restricted_to_the_board():
    game = load_game("leduc")
    full, cut = poker("leduc"), compile_poker(game, board=(3,))
    assert cut.num_nodes < full.num_nodes
    assert all(k in full.node_of_key for k in cut.public_key)
    boards = {k[4] for k in cut.public_key if len(k) > 4 and k[2:4] in (("c", "c"), ("r", "c"))}
    assert boards == {game.cards_str((3,))}
    ones = [tuple(np.ones(t.players[p].num_states) for p in (0, 1)) for t in (full, cut)]
    for p in (0, 1):
        v_full, v_cut = leaf_values(full, p, ones[0]), leaf_values(cut, p, ones[1])
        pf, pc = full.players[p], cut.players[p]
        where = {(full.public_key[pf.node[g]], pf.label[g]): g for g in range(pf.num_states)}
        mapped = np.array([where[(cut.public_key[pc.node[g]], pc.label[g])] for g in range(pc.num_states)])
        np.testing.assert_allclose(v_cut, v_full[mapped], rtol=0, atol=1e-15)


# -- hand strength and card removal ----------------------------------------------------------------
def _dense_rank(values) -> np.ndarray:
    order = {v: i for i, v in enumerate(sorted(set(values)))}
    return np.array([order[v] for v in values])


@pytest.mark.parametrize("num_ranks, num_suits, sizes, exhaustive", [
    (13, 4, (5, 6, 7), False), (13, 4, (1, 2, 3, 4), False), (5, 2, (1, 2, 3, 4, 5, 7), True),
    (13, 1, (5, 7), True), (6, 6, (5, 7), False), (4, 3, (5, 6), False),
])
@pytest.mark.slow
def test_strength_keys_order_hands_like_hand_strength(num_ranks, num_suits, sizes, exhaustive):
    rng = np.random.default_rng(num_ranks * num_suits)
    deck = num_ranks * num_suits
    for size in sizes:
        if exhaustive and comb(deck, size) <= 3000:
            hands = np.array(list(combinations(range(deck), size)))
        else:
            hands = np.sort(np.array([rng.choice(deck, size, replace=False) for _ in range(1500)]), axis=1)
        if (num_ranks, num_suits, size) == (13, 4, 7):  # straight flush, wheel, two trips, three pairs
            hands = np.vstack([hands, [[0, 4, 8, 12, 48, 20, 30], [0, 5, 10, 15, 48, 21, 33],
                                       [0, 1, 2, 4, 5, 6, 51], [0, 1, 4, 5, 8, 9, 50], [44, 45, 46, 47, 0, 1, 2]]])
        keys = strength_keys(hands, num_ranks, num_suits)
        ref = [hand_strength(tuple(h), num_ranks, num_suits) for h in hands]
        np.testing.assert_array_equal(_dense_rank(keys.tolist()), _dense_rank(ref))


def _brute_force(cards: np.ndarray, strength: np.ndarray, reach: np.ndarray):
    disjoint = ~(cards[:, None, :, None] == cards[None, :, None, :]).any(axis=(2, 3))
    weaker = disjoint & (strength[:, None] > strength[None, :])
    stronger = disjoint & (strength[:, None] < strength[None, :])
    return disjoint @ reach, weaker @ reach, stronger @ reach


@settings(max_examples=60, deadline=None)
@given(deck=st.integers(4, 11), k=st.integers(1, 3), board=st.integers(0, 3), ties=st.integers(1, 6),
       seed=st.integers(0, 2**32 - 1))
def test_card_removal_matches_brute_force(deck, k, board, ties, seed):
    if 2 * k + board > deck:
        return
    rng = np.random.default_rng(seed)
    on_board = set(rng.choice(deck, board, replace=False).tolist())
    cards = np.array([h for h in combinations(range(deck), k) if not on_board & set(h)])
    strength = rng.integers(0, ties, size=len(cards))
    reach = rng.random((len(cards), 3)) * (rng.random((len(cards), 1)) < 0.8)
    removal = CardRemoval.build(cards, strength)
    total, weaker, stronger = _brute_force(cards, strength, reach)
    np.testing.assert_allclose(removal.disjoint_sum(reach), total, rtol=0, atol=1e-12)
    w, s = removal.weaker_stronger(reach)
    np.testing.assert_allclose(w, weaker, rtol=0, atol=1e-12)
    np.testing.assert_allclose(s, stronger, rtol=0, atol=1e-12)


# -- hold'em river ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def river():
    game = PokerGame(RIVER, "river")
    start = time.perf_counter()
    tree = compile_poker(game, board=RIVER_BOARD)
    return game, tree, time.perf_counter() - start


def _public_state(game: PokerGame, key):
    """The game state at a public key with blank hole cards, replayed through the game's interface."""
    s = game.root()
    s = game.next_state(game.next_state(s, 1), 2)._replace(hole=((), ()))
    for obs in key[2:]:
        if game.actor(s) == CHANCE:
            s = s._replace(board=s.board + tuple(sorted(RIVER_BOARD)))
            continue
        s = game.next_state(s, next(a for a in game.legal_actions(s) if game.observations(s, a)[0] == obs))
    return s


def test_holdem_river_compiles_one_board_fast(river):
    game, tree, seconds = river
    assert seconds < 20.0
    assert tree.players[0].level_bounds[1] == 1326  # the root, before the board: every hand
    river_node = 1
    assert tree.public_key[river_node][-1] == game.cards_str(tuple(sorted(RIVER_BOARD)))
    assert np.sum(tree.players[1].node == river_node) == comb(47, 2) == 1081
    assert {type(op) for op in tree.terminals} == {FoldTerminal, ShowdownTerminal}
    rooted = compile_poker(game, public_state=tree.public_key[river_node])
    assert rooted.public_key == tree.public_key[1:]
    assert rooted.players[0].label == tree.players[0].label[1326:]
    s = Strategy.random(rooted, np.random.default_rng(1))
    assert expected_value(rooted, s) == pytest.approx(expected_value(tree, Strategy(tree.game_id, s.probs)), rel=1e-12)


@pytest.mark.slow
def test_holdem_river_operators_match_dense_evaluation(river):
    game, tree, _ = river
    rng = np.random.default_rng(11)
    reach = tuple(rng.random(pa.num_states) * (rng.random(pa.num_states) < 0.9) for pa in tree.players)
    values = [leaf_values(tree, p, reach) for p in (0, 1)]
    chance = 1.0 / (comb(52, 2) * comb(50, 2) * comb(48, 5))
    terminals = np.flatnonzero(tree.kind == TERMINAL_NODE)
    showdowns = [n for n in terminals if _public_state(game, tree.public_key[n]).folded < 0]
    folds = [n for n in terminals if n not in showdowns]
    pa0, pa1 = tree.players
    g0 = np.flatnonzero(pa0.node == showdowns[0])
    labels = [pa0.label[g] for g in g0]
    names = {game.cards_str((c,)): c for c in range(52)}
    cards = np.array([[names[lab[:2]], names[lab[2:]]] for lab in labels])
    strength = _dense_rank([hand_strength(tuple(h) + RIVER_BOARD, 13, 4) for h in cards])
    disjoint = ~(cards[:, None, :, None] == cards[None, :, None, :]).any(axis=(2, 3))
    sign = np.sign(strength[:, None] - strength[None, :]) * disjoint  # [n, n], never built by the operators
    for n in showdowns[:4] + folds[:2]:
        s0, s1 = np.flatnonzero(pa0.node == n), np.flatnonzero(pa1.node == n)
        by_label = {pa1.label[g]: g for g in s1}
        s1 = np.array([by_label[lab] for lab in labels])  # player 1's states in player 0's hand order
        state = _public_state(game, tree.public_key[n])
        c0, c1 = state.contrib
        if state.folded < 0:
            U = chance * np.where(sign > 0, c1, np.where(sign < 0, -c0, 0.0))
        else:
            U = chance * game.utility(state) * disjoint
        scale = np.abs(U).max() * len(labels)
        np.testing.assert_allclose(values[0][s0], U @ reach[1][s1], rtol=0, atol=1e-10 * scale)
        np.testing.assert_allclose(values[1][s1], -(U.T @ reach[0][s0]), rtol=0, atol=1e-10 * scale)


# -- a bigger Leduc ----------------------------------------------------------------------------------
@pytest.mark.slow
def test_leduc_with_13_ranks_compiles_fast_and_cfr_plus_converges():
    game = load_game("leduc", num_ranks=13)
    start = time.perf_counter()
    tree = compile_poker(game)
    assert time.perf_counter() - start < 10.0
    assert tree.players[0].level_bounds[1] == 26
    fast = compile_poker(game, sparse_threshold=0)
    solver = CFRSolver(tree, CFR_PLUS)
    gaps = []
    for iterations in (5, 25, 100):
        solver.run(iterations - solver.iteration)
        gaps.append(exploitability(tree, solver.average_strategy()).exploitability)
    assert gaps[0] > gaps[1] > gaps[2] > 0 and gaps[2] < 0.1 * gaps[0]
    avg = solver.average_strategy()
    assert exploitability(fast, avg).nash_conv == pytest.approx(exploitability(tree, avg).nash_conv, abs=1e-12)


# -- errors ------------------------------------------------------------------------------------------
def test_bad_arguments_are_refused_with_clear_errors():
    leduc = load_game("leduc")
    with pytest.raises(GameDefinitionError, match="PokerGame"):
        compile_poker(load_game("rps"))  # type: ignore[arg-type]
    with pytest.raises(GameDefinitionError, match="no history has the public observations"):
        compile_poker(leduc, public_state=("", "", "c", "x"))
    with pytest.raises(GameDefinitionError, match="no history has the public observations"):
        compile_poker(leduc, public_state=("", "", "c", "c", "Kx"))
    with pytest.raises(GameDefinitionError, match="distinct cards"):
        compile_poker(leduc, board=(3, 3))
    with pytest.raises(GameDefinitionError, match="deals only 1"):
        compile_poker(leduc, board=(3, 4))
    with pytest.raises(GameDefinitionError, match="excludes"):
        compile_poker(leduc, public_state=("", "", "c", "c", "Ks"), board=(3,))
    with pytest.raises(GameDefinitionError, match="sparse_threshold"):
        compile_poker(leduc, sparse_threshold=-1)
    with pytest.raises(GameDefinitionError, match="depth_limit"):
        compile_poker(leduc, depth_limit=-1)


@pytest.mark.parametrize("name", ["leduc", "leduc_nolimit"])
@pytest.mark.slow
def test_forest_and_chance_limit_match_enumeration(name):
    """Subgame forests and round-cut trunks are laid out as the enumerating compiler lays them out."""
    game = load_game(name)
    full = compile_poker(game)
    roots = [full.public_key[n] for n in range(full.num_nodes)
             if full.parent[n] >= 0 and full.kind[full.parent[n]] == CHANCE_NODE and full.kind[n] != TERMINAL_NODE][:7]
    for kwargs in ({"public_states": roots}, {"chance_limit": 1}):
        fast, slow = compile_poker(game, **kwargs), compile_game(game, **kwargs)
        assert fast.public_key == slow.public_key
        for p in (0, 1):
            assert fast.players[p].label == slow.players[p].label
            np.testing.assert_array_equal(fast.players[p].parent, slow.players[p].parent)
            np.testing.assert_array_equal(fast.players[p].child_seq, slow.players[p].child_seq)
        np.testing.assert_array_equal(fast.kind, slow.kind)


# -- memory ------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_labels_are_computed_on_demand_and_index_arrays_are_compact(river):
    """A river's labels are a BlockSequence (no string per private state) equal to the stored tuple the
    generic layout would hold; per-state index arrays are int32."""
    from subgame.tree.public_tree import BlockSequence
    from subgame.tree.size import BYTES_PER_PRIVATE_STATE, tree_bytes

    game, tree, _ = river
    deck = deal_hands(game)
    for p, pa in enumerate(tree.players):
        assert isinstance(pa.label, BlockSequence) and len(pa.label) == pa.num_states
        hands = state_hands(game, tree, p)
        explicit = tuple(game.cards_str(tuple(int(c) for c in deck[h])) for h in hands)
        assert pa.label == explicit and tuple(pa.label) == explicit and pa.label != explicit[:-1]
        assert pa.label[-1] == explicit[-1] and pa.label[1300:1400] == explicit[1300:1400]
        with pytest.raises(IndexError):
            pa.label[pa.num_states]
        names = list(pa.action_names)
        assert len(names) == pa.num_infosets and [len(x) for x in names] == pa.legal.sum(axis=1).tolist()
        for f in ("node", "parent", "child_seq"):
            assert getattr(pa, f).dtype == np.int32, f
    fresh = compile_poker(game, board=RIVER_BOARD)  # no best-response arrays kept yet
    assert tree_bytes(fresh) <= BYTES_PER_PRIVATE_STATE * fresh.num_private_states


def test_a_block_sequence_maps_each_content_once_and_reads_each_blocks_prefix():
    from subgame.tree.public_tree import BlockSequence

    seq = BlockSequence([0, 3, 5, 8, 8], [1, 0, 1, 0], [("a", "b", "c"), ("x", "y", "z")])
    calls: list[tuple[str, ...]] = []

    def codes(items):
        calls.append(tuple(items))
        return np.array([ord(x) for x in items])

    assert seq.mapped(codes).tolist() == [ord(x) for x in seq] == [ord(x) for x in "xyzabxyz"]
    assert sorted(calls) == [("a", "b", "c"), ("x", "y", "z")]  # once each, not once per block or item


def test_operators_on_threads_give_bitwise_the_same_values(river, monkeypatch):
    import subgame.tree.poker_operators as ops

    _, tree, _ = river
    rng = np.random.default_rng(5)
    reach = tuple(rng.random(pa.num_states) for pa in tree.players)
    one = [leaf_values(tree, p, reach) for p in (0, 1)]
    monkeypatch.setattr(ops, "MIN_THREAD_ENTRIES", 1000)  # many pieces: column ranges of the river's one board
    old = set_threads(3)
    try:
        three = [leaf_values(tree, p, reach) for p in (0, 1)]
    finally:
        set_threads(old)
    for a, b in zip(one, three):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(GameDefinitionError, match="threads must be a whole number"):
        set_threads(0)


def test_best_response_without_its_cached_plan_is_bitwise_the_same(river, monkeypatch):
    import subgame.tree.sweep as sweep

    _, tree, _ = river
    s = Strategy.random(tree, np.random.default_rng(2))
    kept = exploitability(tree, s)
    monkeypatch.setattr(sweep, "BEST_PLAN_CACHED_STATES", 0)  # every level built on the fly
    assert exploitability(tree, s) == kept


def test_trees_of_a_deck_share_its_recent_boards_read_only():
    """Two compiles of a river share each board's hands and card removal (kept per deck, read-only), and the second
    tree is the first one's, value for value."""
    from subgame.tree import poker_compile

    game = PokerGame(RIVER, "river")
    poker_compile._removal_of.cache_clear()
    first, second = compile_poker(game, board=RIVER_BOARD), compile_poker(game, board=RIVER_BOARD)
    assert poker_compile._removal_of.cache_info().hits > 0
    assert_same_layout(first, second)
    shows = [next(op for op in t.terminals if isinstance(op, ShowdownTerminal)) for t in (first, second)]
    a, b = shows[0].groups[0].removal, shows[1].groups[0].removal
    assert a is b and not a.hand_cards.flags.writeable and not a.strength.flags.writeable
    reach = tuple(np.random.default_rng(3).random(pa.num_states) for pa in first.players)
    for p in (0, 1):
        assert np.array_equal(leaf_values(first, p, reach), leaf_values(second, p, reach))
