"""Reduced form of the offtree-values experiment: the shape of the depth-limited paper's Fig. 2."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.depthlimited import Continuations, ExactValues, depth_limited_tree
from subgame.errors import SubgameError
from subgame.experiments import EXPERIMENTS
from subgame.experiments.nested_table import nested_game
from subgame.experiments.offtree import GOOD_VALUES, PAPER_VALUES, TRANSLATED_VALUES, averaged_leaf_values, offtree_values
from subgame.resolving import BetAbstraction, restrict
from subgame.solve.cfr import CFR_PLUS, CFRSolver
from subgame.tree.compile import compile_game
from subgame.tree.public_tree import LEAF

from .default_forms import twice


@pytest.mark.slow
def test_offtree_values_reduced(tmp_path):
    assert EXPERIMENTS["offtree-values"] is offtree_values
    options = {"ks": (1, 2), "num_ranks": 3, "stack": 8, "blueprint_iterations": 100, "iterations": 100,
               "equilibrium_iterations": 500}
    r, again = twice(offtree_values, **options)  # the second in a fresh interpreter
    assert again.rows == r.rows  # one table, run after run
    by = {(row[0], row[1]): row[2] for row in r.rows}
    translation = by[("randomized pseudo-harmonic translation", "")]
    assert {name for name, k in by if k == 2} == {PAPER_VALUES, TRANSLATED_VALUES, GOOD_VALUES}
    # One value per state: player 0 exploits the blueprint continuation, worse than translation (Fig. 2).
    assert by[(TRANSLATED_VALUES, 1)] > translation
    assert by[(TRANSLATED_VALUES, 2)] < translation
    assert by[(GOOD_VALUES, 2)] < translation
    assert by[("nested solving to the end of the game (no depth limit)", "")] < translation
    assert all(e > -1e-3 for e in by.values())  # exploitability up to the reference value's own gap
    md, png = r.write(tmp_path)
    assert png is not None and png.read_bytes()[:4] == b"\x89PNG"
    text = md.read_text()
    assert "Where we differ from the paper" in text and "What limits depth-limited solving here" in text


@pytest.fixture(scope="module")
def leaf_trees():
    game = nested_game(3, 20)
    full = compile_game(game)
    abstraction = BetAbstraction(game, (0.5, 1.0), True)
    abstract = restrict(game, full, abstraction)
    blueprint = CFRSolver(abstract, CFR_PLUS).run(20).average_strategy()
    start = restrict(game, depth_limited_tree(game, chance_limit=1), abstraction)
    root = full.public_key[0]
    dl = restrict(game, depth_limited_tree(game, public_state=root + ("r5",), chance_limit=1), abstraction)
    values = ExactValues(game, abstract, blueprint).leaf_values(start, Continuations(0, (blueprint.probs[0],), ("bp",)))
    return root, start, dl, values


def _state(tree, player, key, label):
    pa = tree.players[player]
    return next(g for g in range(pa.num_states) if tree.public_key[pa.node[g]] == key and pa.label[g] == label)


@pytest.mark.slow
def test_averaged_leaf_values_are_the_mean_of_the_matching_leaves(leaf_trees):
    root, start, dl, values = leaf_trees
    out = averaged_leaf_values(dl, start, values, [root + ("r4",), root + ("r6",)])
    g, got = values.matrices[0].tocsr(), out.matrices[0].tocsr()
    checked = 0
    for n in np.flatnonzero(dl.kind == LEAF):
        key = dl.public_key[n]
        if key[3] != "c":  # the call line has the same action names below every bet
            continue
        for a, b in [(a, b) for a in ("Js", "Qh") for b in ("Kh", "Qs") if key[-1] not in (a, b)]:
            want = np.mean([g[_state(start, 0, root + (bet,) + key[3:], a), _state(start, 1, root + (bet,) + key[3:], b)]
                            for bet in ("r4", "r6")])
            assert got[_state(dl, 0, key, a), _state(dl, 1, key, b)] == pytest.approx(want, abs=1e-12)
            checked += want != 0
    assert checked > 0
    leaf_rows = np.flatnonzero(dl.kind[dl.players[0].node] == LEAF)
    assert np.all(np.asarray(abs(got).sum(axis=1)).ravel()[np.setdiff1d(np.arange(got.shape[0]), leaf_rows)] == 0)


@pytest.mark.slow
def test_averaged_leaf_values_refuse_a_target_with_no_matching_leaf(leaf_trees):
    root, start, dl, values = leaf_trees
    with pytest.raises(SubgameError, match="matches no leaf"):
        averaged_leaf_values(dl, start, values, [root + ("f",)])
