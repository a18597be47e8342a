"""Observations find information sets by integers: InfosetLookup against matching by names."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.games import load_game
from subgame.tree.compile import compile_game
from subgame.tree.lookup import label_array, lookups, states_named
from subgame.tree.public_tree import infoset_keys


@pytest.mark.parametrize("name", ["leduc", "goofspiel", "liars_dice"])
def test_every_information_set_is_found_where_its_name_says(name):
    tree = compile_game(load_game(name))
    for p, lookup in enumerate(lookups(tree)):
        keys = infoset_keys(tree, p)
        assert [lookup(key, label) for key, label in keys] == list(range(len(keys)))
        pa = tree.players[p]
        g = int(pa.infoset_priv[-1])
        node = int(pa.node[g])
        assert lookup.of_state[g] == len(keys) - 1
        assert lookup.at(node, pa.label[g]) == len(keys) - 1
        assert lookup.at(node, pa.label[g] + "?") == -1  # a label the node does not have
        assert lookup(tree.public_key[node] + ("?",), pa.label[g]) == -1  # a public state the tree does not have


@pytest.mark.parametrize("name", ["leduc", "goofspiel"])
def test_states_named_joins_nodes_and_labels_as_the_names_do(name):
    tree = compile_game(load_game(name))
    rng = np.random.default_rng(0)
    for p in (0, 1):
        pa = tree.players[p]
        g = rng.permutation(pa.num_states)[:50]
        nodes, labels = np.asarray(pa.node[g], dtype=np.int64), label_array(pa.label, g)
        np.testing.assert_array_equal(states_named(tree, p, nodes, labels), g)
        other = (nodes + 1) % tree.num_nodes  # the same labels one node on: found only where that node has them
        by_name = {(int(pa.node[s]), pa.label[s]): s for s in range(pa.num_states)}
        want = [by_name.get((int(n), str(lab)), -1) for n, lab in zip(other, labels)]
        np.testing.assert_array_equal(states_named(tree, p, other, labels), want)
        nodes[0] = -1
        assert states_named(tree, p, nodes, labels)[0] == -1
