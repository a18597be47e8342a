"""Brute-force oracles over the Game interface (no public tree), for small games only.

They walk histories recursively and share no code with the compiled engine, so agreement
between the two is evidence that compilation, chance folding and the sweeps are right.
"""

from __future__ import annotations

import itertools

from subgame.games.base import CHANCE, TERMINAL, Game


def infoset_key(game: Game, path, player: int):
    """A player's information set as (public observations, own private observations)."""
    return tuple((pub, priv[player]) for pub, priv in path)


def expected_value(game: Game, policy) -> float:
    """Player 0's expected utility; ``policy(player, infoset_key, legal) -> dict action->prob``."""

    def walk(state, path, prob):
        who = game.actor(state)
        if who == TERMINAL:
            return prob * game.utility(state)
        if who == CHANCE:
            moves = list(game.chance_outcomes(state))
        else:
            legal = list(game.legal_actions(state))
            dist = policy(who, infoset_key(game, path, who), legal)
            moves = [(a, dist[a]) for a in legal]
        total = 0.0
        for a, p in moves:
            if p == 0:
                continue
            pub, o0, o1 = game.observations(state, a)
            total += walk(game.next_state(state, a), path + ((pub, (o0, o1)),), prob * p)
        return total

    return walk(game.root(), (), 1.0)


def infosets(game: Game, player: int) -> dict:
    """All information sets of ``player`` with their legal actions."""
    out = {}

    def walk(state, path):
        who = game.actor(state)
        if who == TERMINAL:
            return
        if who == player:
            out[infoset_key(game, path, player)] = tuple(game.legal_actions(state))
        moves = [a for a, _ in game.chance_outcomes(state)] if who == CHANCE else game.legal_actions(state)
        for a in moves:
            pub, o0, o1 = game.observations(state, a)
            walk(game.next_state(state, a), path + ((pub, (o0, o1)),))

    walk(game.root(), ())
    return out


def brute_force_best_response_value(game: Game, policy, player: int) -> float:
    """Max over all pure strategies of ``player`` of her expected utility (tiny games only)."""
    sets = infosets(game, player)
    keys = list(sets)
    best = -float("inf")
    sign = 1.0 if player == 0 else -1.0
    for choice in itertools.product(*(sets[k] for k in keys)):
        pure = dict(zip(keys, choice))

        def mixed(who, key, legal, pure=pure):
            if who == player:
                return {a: float(a == pure[key]) for a in legal}
            return policy(who, key, legal)

        best = max(best, sign * expected_value(game, mixed))
    return best
