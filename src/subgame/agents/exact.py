"""The behaviour strategy of any :class:`~subgame.agents.base.Agent` on a compiled tree, and its exact exploitability.

An agent answers views; a best response needs a strategy. :func:`agent_strategy` walks the
game's histories from the start, builds the :class:`~subgame.agents.base.View` of each of
the agent's information sets exactly as a match would show it, asks the agent once per
information set, and writes the answers into the tree's strategy array. The walk follows
only the agent's own actions it gives positive probability (the others cannot be reached,
whatever the opponent does), so a searching agent solves just the subgames play can
reach, with its caches, as it would in play; information sets it never reaches get the
uniform strategy, which changes no value. With the agent in both seats,
:func:`agent_exploitability` gives the exact best-response values of what it plays
(depth-limited paper, §6: exploitability measured in the full game).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import SubgameError
from ..eval.best_response import Exploitability, exploitability
from ..games.base import CHANCE, TERMINAL, Game
from ..strategy import Strategy
from ..tree.lookup import InfosetLookup
from ..tree.public_tree import PublicTree
from .base import Agent, Move, View


def agent_strategy(
    agent: Agent, game: Game, tree: PublicTree, player: int, *, seed: int = 0,
    on_infoset: Callable[[int], None] | None = None,
) -> np.ndarray:
    """[I, A] the behaviour strategy ``agent`` plays in seat ``player`` of ``tree``.

    Args:
        agent: any agent; ``new_hand(player, seed)`` is called once before the walk, so
            its answers are those of one hand played with ``seed``.
        game: the rules ``tree`` was compiled from (the full game, no depth limit).
        on_infoset: called with the number of information sets answered so far (progress).

    Raises:
        SubgameError: a seat other than 0 or 1, or a view that names no information set of ``tree``.
    """
    if player not in (0, 1):
        raise SubgameError(f"the seat must be 0 or 1, got {player!r}")
    pa = tree.players[player]
    index = InfosetLookup(tree, player)
    probs = pa.legal / pa.legal.sum(axis=1, keepdims=True)
    answered = np.zeros(pa.num_infosets, dtype=bool)
    agent.new_hand(player, seed)
    count = 0
    stack: list[tuple[object, tuple[Move, ...]]] = [(game.root(), ())]
    while stack:  # one visit per history the agent can reach: the walk is the method
        state, moves = stack.pop()
        who = game.actor(state)
        if who == TERMINAL:
            continue
        if who == CHANCE:
            actions = [a for a, p in game.chance_outcomes(state) if p > 0]
        else:
            actions = list(game.legal_actions(state))
        if who == player:
            view = View(player, moves, tuple(sorted(actions)))
            inf = index(view.public_key, view.private_label)
            if inf < 0:
                raise SubgameError(f"the view at public state {list(view.public_key)!r} names no information set of "
                                   f"player {player} in the tree; is the tree compiled from this game?")
            if not answered[inf]:
                decision = agent.act(view).checked(view)
                row = np.zeros(pa.max_actions)
                for k, a in enumerate(pa.action_ids[inf]):
                    if pa.legal[inf, k]:
                        row[k] = decision.probs.get(int(a), 0.0)
                probs[inf] = row / row.sum()
                answered[inf] = True
                count += 1
                if on_infoset is not None:
                    on_infoset(count)
            slot = {int(a): k for k, a in enumerate(pa.action_ids[inf]) if pa.legal[inf, k]}
            actions = [a for a in actions if probs[inf, slot[a]] > 0]
        for a in reversed(actions):
            public, *private = game.observations(state, a)
            stack.append((game.next_state(state, a), moves + (Move(public, private[player]),)))
    return probs


def agent_exploitability(
    agent: Agent, game: Game, tree: PublicTree, *, seed: int = 0, on_infoset: Callable[[int], None] | None = None
) -> tuple[Exploitability, Strategy]:
    """The exact exploitability (NashConv / 2) of ``agent`` playing both seats, and the profile it plays."""
    both = [agent_strategy(agent, game, tree, p, seed=seed, on_infoset=on_infoset) for p in (0, 1)]
    profile = Strategy(tree.game_id, (both[0], both[1]), {"algo": f"agent: {agent.name}"})
    return exploitability(tree, profile), profile
