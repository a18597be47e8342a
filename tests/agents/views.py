"""Every view a player has at her decisions, from a walk of the game's rules (shares no code with the agents)."""

from __future__ import annotations

from subgame.agents import Move, View
from subgame.games.base import CHANCE


def all_views(game, player):
    """Every view of ``player`` at her decisions, in a depth-first walk of the game."""
    out, stack = [], [(game.root(), ((), ()))]
    while stack:
        st, moves = stack.pop()
        who = game.actor(st)
        if who < 0 and who != CHANCE:
            continue
        if who == player:
            out.append(View(player, moves[player], tuple(game.legal_actions(st))))
        acts = [a for a, _ in game.chance_outcomes(st)] if who == CHANCE else game.legal_actions(st)
        for a in acts:
            pub, o0, o1 = game.observations(st, a)
            stack.append((game.next_state(st, a), (moves[0] + (Move(pub, o0),), moves[1] + (Move(pub, o1),))))
    return out
