"""Observations find information sets by integers: InfosetLookup against matching by names."""

from __future__ import annotations

import pytest

from subgame.games import load_game
from subgame.tree.compile import compile_game
from subgame.tree.lookup import lookups
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
