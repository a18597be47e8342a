"""A part of a tree knows its place in its parent: the maps against matching by names, and restrict / embed / at_roots."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.errors import GameDefinitionError
from subgame.games import load_game
from subgame.resolving import subgame_roots
from subgame.tree.compile import compile_game
from subgame.tree.part import Part, assemble, at_or_below, compile_part, place
from subgame.tree.poker_compile import board_hands, state_hands
from subgame.tree.public_tree import DECISION, LEAF, PublicTree


def state_names(tree: PublicTree, player: int) -> list[tuple[tuple[str, ...], str]]:
    """[G] (public key, private label) of each private state: the names the maps must agree with."""
    pa = tree.players[player]
    return [(tree.public_key[int(pa.node[g])], pa.label[g]) for g in range(pa.num_states)]


def by_name(part: Part, parent: PublicTree, player: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The node, state and infoset maps found by matching names, -1 where the parent has none (the oracle)."""
    node_of = {k: n for n, k in enumerate(parent.public_key)}
    nodes = np.array([node_of.get(k, -1) for k in part.tree.public_key])
    state_of = {name: g for g, name in enumerate(state_names(parent, player))}
    states = np.array([state_of.get(name, -1) for name in state_names(part.tree, player)])
    infoset_of = {int(g): i for i, g in enumerate(parent.players[player].infoset_priv)}
    infosets = np.array([infoset_of.get(int(states[g]), -1) for g in part.tree.players[player].infoset_priv])
    return nodes, states, infosets


def assert_maps_match_names(part: Part, parent: PublicTree) -> None:
    for p in (0, 1):
        nodes, states, infosets = by_name(part, parent, p)
        np.testing.assert_array_equal(part.node, nodes)
        np.testing.assert_array_equal(part.states[p], states)
        np.testing.assert_array_equal(part.infosets[p], infosets)
    np.testing.assert_array_equal(part.roots, part.node[part.tree.parent < 0])


@pytest.fixture(scope="module")
def leduc():
    game = load_game("leduc")
    return game, compile_game(game)


@pytest.fixture(scope="module")
def goofspiel():
    game = load_game("goofspiel")
    assert game.tree_compiler == "enumerate"  # the generic compiler's trees: labels matched, not offsets
    return game, compile_game(game)


def test_poker_subgames_below_public_chance_match_the_names(leduc):
    game, full = leduc
    part = compile_part(game, full, subgame_roots(full))
    assert part.roots.tolist() == subgame_roots(full)
    assert_maps_match_names(part, full)
    assert (part.node >= 0).all() and (part.infosets[0] >= 0).all()


def test_non_poker_parts_match_the_names(goofspiel):
    game, full = goofspiel
    roots = [int(n) for n in np.flatnonzero((full.depth == 2) & (full.kind == DECISION))][::3]
    part = compile_part(game, full, roots)
    assert_maps_match_names(part, full)
    trunk = compile_part(game, full, depth_limit=2)  # from the game's start, cut with leaves
    assert (trunk.tree.kind == LEAF).any()
    assert_maps_match_names(trunk, full)


def test_a_part_below_a_trunk_maps_its_roots_and_nothing_below(leduc):
    game, full = leduc
    trunk = compile_part(game, full, chance_limit=1).tree
    leaves = np.flatnonzero(trunk.kind == LEAF)[:4]
    chunk = compile_part(game, trunk, leaves)
    assert_maps_match_names(chunk, trunk)
    roots = chunk.tree.parent < 0
    assert (chunk.node[roots] >= 0).all() and (chunk.node[~roots] == -1).all()
    assert (chunk.infosets[0] == -1).all()  # the trunk has no information set below its leaves
    values = np.arange(trunk.players[1].num_states, dtype=np.float64)
    at = chunk.at_roots(values, 1)
    assert [state_names(trunk, 1)[int(v)] for v in at] == state_names(chunk.tree, 1)[chunk.tree.root_slice[1]]
    with pytest.raises(GameDefinitionError, match="its parent lacks"):
        chunk.restrict(values, 1, axis="states")
    with pytest.raises(GameDefinitionError, match="its parent lacks"):
        chunk.embed(np.zeros((trunk.players[0].num_infosets, 3)), np.zeros((chunk.tree.players[0].num_infosets, 3)), 0)


@pytest.mark.parametrize("which", ["leduc", "goofspiel"])
def test_restrict_embed_and_at_roots_move_rows_by_the_maps(which, request):
    game, full = request.getfixturevalue(which)
    roots = subgame_roots(full) or [int(n) for n in np.flatnonzero(full.depth == 1)]
    part = compile_part(game, full, roots)
    rng = np.random.default_rng(0)
    for p in (0, 1):
        pa, qa = full.players[p], part.tree.players[p]
        _, states, infosets = by_name(part, full, p)
        x = rng.random(pa.num_states)
        np.testing.assert_array_equal(part.restrict(x, p, axis="states"), x[states])
        rs = part.tree.root_slice[p]
        np.testing.assert_array_equal(part.at_roots(x, p), x[states[rs]])
        probs = rng.random(pa.legal.shape)
        mine = part.restrict(probs, p)
        assert mine.shape == qa.legal.shape
        np.testing.assert_array_equal(mine, probs[infosets][:, : qa.max_actions])
        solved = rng.random(qa.legal.shape)
        out = part.embed(probs, solved, p)
        others = np.setdiff1d(np.arange(pa.num_infosets), infosets)
        np.testing.assert_array_equal(out[others], probs[others])
        np.testing.assert_array_equal(out[infosets, : qa.max_actions], solved)
        assert (out[infosets, qa.max_actions :] == 0.0).all()
        assert out is not probs and (probs[infosets, : qa.max_actions] != solved).any()  # a copy: the input is kept
        only = np.arange(qa.num_infosets) % 2 == 0
        some = part.embed(probs, solved, p, only=only)
        np.testing.assert_array_equal(some[infosets[~only]], probs[infosets[~only]])
        np.testing.assert_array_equal(some[infosets[only], : qa.max_actions], solved[only])


def test_a_depth_limited_tree_compiled_apart_is_placed_like_one_compiled_as_a_part(leduc):
    game, full = leduc
    node = subgame_roots(full)[3]
    apart = compile_game(game, public_state=full.public_key[node], depth_limit=2)
    placed, compiled = place(full, apart), compile_part(game, full, [node], depth_limit=2)
    for a, b in ((placed.node, compiled.node), *zip(placed.states, compiled.states), *zip(placed.infosets, compiled.infosets)):
        np.testing.assert_array_equal(a, b)
    assert_maps_match_names(placed, full)


def test_whole_is_the_identity_and_assemble_puts_parts_together(leduc):
    game, full = leduc
    whole = Part.whole(full)
    x = np.arange(full.players[0].num_states, dtype=np.float64)
    np.testing.assert_array_equal(whole.restrict(x, 0, axis="states"), x)
    trunk = compile_part(game, full, chance_limit=1)
    below = compile_part(game, full, subgame_roots(full))
    rows = [np.full(p.tree.players[0].legal.shape, float(i + 1)) for i, p in enumerate((trunk, below))]
    out = assemble(full, 0, [(trunk, rows[0], None), (below, rows[1], None)], "test")
    legal = full.players[0].legal
    assert set(np.unique(out[legal]).tolist()) == {1.0, 2.0}
    np.testing.assert_array_equal(out[below.infosets[0]][:, :2], 2.0)
    with pytest.raises(GameDefinitionError, match="neither the trunk nor a subgame"):
        assemble(full, 0, [(trunk, rows[0], None)], "test")


def test_at_or_below_marks_subtrees(leduc):
    _, full = leduc
    roots = subgame_roots(full)[:2]
    mark = at_or_below(full, roots)
    for n in range(full.num_nodes):
        key = full.public_key[n]
        assert mark[n] == any(key[: len(full.public_key[r])] == full.public_key[r] for r in roots)


def test_a_part_of_another_game_is_refused(leduc):
    game, full = leduc
    kuhn = compile_game(load_game("kuhn"))
    with pytest.raises(GameDefinitionError, match="cannot be placed"):
        place(full, kuhn)
    with pytest.raises(GameDefinitionError, match="not all public nodes"):
        compile_part(game, full, [full.num_nodes])



def test_a_bet_abstractions_tree_is_placed_in_the_real_tree_as_the_names_match():
    """A tree of the game with fewer bet sizes is the real tree where only abstract bets were made."""
    from subgame.resolving import BetAbstraction
    from tests.toy_games import SMALL

    game = load_game("poker", **SMALL)
    real = compile_game(game)
    abstract = compile_game(BetAbstraction(game, (0.5, 1.0), True).abstract_game)
    assert abstract.game_id != real.game_id and abstract.num_nodes < real.num_nodes
    part = place(real, abstract, abstraction=True)
    assert_maps_match_names(part, real)
    assert all((m >= 0).all() for m in (part.node, *part.states, *part.infosets))
    with pytest.raises(GameDefinitionError, match="cannot be placed"):
        place(real, abstract)


def test_board_hands_order_the_hands_as_the_labels_name_them(leduc):
    """The hands of a board in private-state order, without labels, are those the labels name."""
    game, full = leduc
    card = {game.cards_str((c,)): c for c in range(game.spec.deck_size)}
    part = compile_part(game, full, subgame_roots(full)[:5])
    tree = part.tree
    roots = np.flatnonzero(tree.parent < 0)
    boards = [[card[o] for o in tree.public_key[r] if o in card] for r in roots]
    assert all(len(b) == 1 for b in boards)
    hands = board_hands(game, boards)
    for p in (0, 1):
        by_label = state_hands(game, tree, p)
        for r, (h0, h1) in zip(roots, hands):
            np.testing.assert_array_equal((h0, h1)[p], by_label[tree.players[p].node == r])
