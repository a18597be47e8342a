"""A strategy of one game played at a match of the same game under another name.

A strategy file names its game by fingerprint (name and parameters), so a strategy solved
for the built-in ``leduc`` names another game than ``tests/data/acpc/leduc.game``, which
posts blinds of 1 where Leduc has antes of 1 and is otherwise the same: the same public
tree, information sets, actions and payoffs. :func:`same_game` compares two compiled games
by what they are, not by name; :func:`adopt_strategy` lets a strategy file of a game the
match's game equals play it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...errors import SubgameError
from ...games import load_game
from ...strategy import Strategy
from ...tree.compile import compile_game
from ...tree.public_tree import PublicTree


def same_game(a: PublicTree, b: PublicTree, seed: int = 0) -> bool:
    """Whether two compiled games are one game: the same public tree and information sets, action names and payoffs.

    The structure is compared array by array. The payoffs (chance probabilities folded in)
    are compared through the terminal operators, which are bilinear in the reaches: each
    player's counterfactual values at every terminal node under one random reach of the
    opponent (seeded by ``seed``) agree to 1e-9, which different payoff matrices do with
    probability zero.
    """
    if a.game_id == b.game_id:
        return True
    if a.public_key != b.public_key or any(not np.array_equal(x, y) for x, y in ((a.kind, b.kind), (a.actor, b.actor), (a.parent, b.parent))):
        return False
    for pa, pb in zip(a.players, b.players):
        if pa.num_states != pb.num_states or pa.legal.shape != pb.legal.shape or not np.array_equal(pa.legal, pb.legal):
            return False
        if any(not np.array_equal(x, y) for x, y in zip((pa.node, pa.parent, pa.child_seq, pa.infoset_priv),
                                                        (pb.node, pb.parent, pb.child_seq, pb.infoset_priv))):
            return False
        if list(pa.label) != list(pb.label) or list(pa.action_names) != list(pb.action_names):
            return False
    if len(a.terminals) != len(b.terminals):
        return False
    rng = np.random.default_rng(seed)
    reach = (rng.random(a.players[0].num_states), rng.random(a.players[1].num_states))
    return all(np.allclose(ta.cfv(p, reach), tb.cfv(p, reach), rtol=1e-9, atol=1e-12)
               for ta, tb in zip(a.terminals, b.terminals) for p in (0, 1))


def adopt_strategy(file: str | Path, tree: PublicTree) -> Strategy | None:
    """The strategy in ``file`` for ``tree``'s game, when it was solved for the same game under another name.

    ``None`` otherwise: ``file`` is not a strategy file, is of ``tree``'s game already, does
    not record its game, or records another game (the caller's own checks then say what is
    wrong).
    """
    try:
        strategy = Strategy.load(file)
    except (SubgameError, OSError):
        return None
    recorded = strategy.meta.game
    if strategy.game_id == tree.game_id or not recorded:
        return None
    try:
        other = compile_game(load_game(recorded, **(strategy.meta.params or {})))
    except SubgameError:
        return None
    if not same_game(other, tree):
        return None
    return Strategy(tree.game_id, strategy.probs, strategy.meta).check(tree)


__all__ = ["adopt_strategy", "same_game"]
