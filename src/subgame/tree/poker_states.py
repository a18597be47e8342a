"""The public states of a poker game, walked without hole cards.

A public state is a :class:`~subgame.games.poker.PokerState` whose hole cards are blank:
the betting so far and the board. These functions find one by its public observations,
list its children with their chance probabilities (a deal of board cards is one child per
combination of the unseen cards, or the one a fixed board allows) and count what a chance
node deals. The poker compiler and the size estimate both walk a game through them.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

import numpy as np

from ..errors import GameDefinitionError
from ..games.base import CHANCE, TERMINAL
from ..games.poker import PokerGame, PokerState


def allowed(fixed: tuple[int, ...] | None, old: int, new_board: tuple[int, ...]) -> bool:
    """Whether dealing ``new_board[old:]`` agrees with the fixed board."""
    return fixed is None or set(fixed[old : len(new_board)]) <= set(new_board[old:])


# -- the public walk -------------------------------------------------------------------------
def deal_prob(game: PokerGame, dealt: int, count: int) -> float:
    """One history's probability of one deal, computed as the game does (1 / outcomes)."""
    return 1.0 / comb(game.spec.deck_size - dealt, count)


def public_root(
    game: PokerGame, key: tuple[str, ...], fixed: tuple[int, ...] | None
) -> tuple[PokerState, tuple[str, ...], float]:
    """The public state (hole cards blanked), key and chance probability at ``key``."""
    spec = game.spec
    st = game.root()
    pub, prob = [], 1.0
    for dealt in (0, spec.hole_cards):  # the private hole-card deals: one public observation each
        outs = game.chance_outcomes(st)
        pub.append(game.observations(st, outs[0][0])[0])
        prob = prob * deal_prob(game, dealt + len(spec.board), spec.hole_cards)
        st = game.next_state(st, outs[0][0])
    st = st._replace(hole=((), ()))
    if key[:2] != tuple(pub[: len(key)]):
        raise GameDefinitionError(f"{game.name}: no history has the public observations {list(key)!r}")
    path = tuple(pub)
    for obs in key[2:]:
        found = child_named(game, st, obs)
        if found is None:
            raise GameDefinitionError(f"{game.name}: no history has the public observations {list(key)!r}")
        st, p = found
        path, prob = path + (obs,), prob * p
    if fixed is not None and not allowed(fixed, 0, st.board):
        raise GameDefinitionError(
            f"{game.name}: public state {list(key)!r} has board {list(st.board)}, "
            f"which the board {list(fixed)} excludes"
        )
    return st, path, prob


def deal_size(game: PokerGame, st: PokerState) -> int:
    """How many board cards the chance node at public state ``st`` deals."""
    needed = np.cumsum(game.spec.board_cards)
    rnd = st.round
    while needed[rnd] <= len(st.board):  # after an all-in, the next round that deals cards
        rnd += 1
    return int(needed[rnd]) - len(st.board)


def deal_action(game: PokerGame, cards: Sequence[int]) -> int:
    """The chance action id that deals ``cards`` (see :mod:`subgame.games.poker.game`)."""
    return sum(int(c) * game.spec.deck_size**i for i, c in enumerate(sorted(cards)))


def child_named(game: PokerGame, st: PokerState, obs: str) -> tuple[PokerState, float] | None:
    """The public child of ``st`` whose public observation is ``obs``, with its chance probability.

    A deal is found by reading card names off ``obs`` (checked by renaming the deal), so a
    river with millions of possible boards is never enumerated.
    """
    who = game.actor(st)
    if who == TERMINAL:
        return None
    if who != CHANCE:
        for a in game.legal_actions(st):
            if game.observations(st, a)[0] == obs:
                return game.next_state(st, a), 1.0
        return None
    spec = game.spec
    count = deal_size(game, st)
    names = {game.cards_str((c,)): c for c in range(spec.deck_size)}
    width = len(obs) // count if count and len(obs) % count == 0 else 0
    named = [names.get(obs[i : i + width]) for i in range(0, len(obs), width)] if width else [None]
    cards = [c for c in named if c is not None]
    if len(cards) != len(named) or len(set(cards)) != count or set(cards) & set(st.board):
        return None
    a = deal_action(game, cards)
    if game.observations(st, a)[0] != obs:
        return None
    return game.next_state(st, a), deal_prob(game, 2 * spec.hole_cards + len(st.board), count)


def public_children(game: PokerGame, st: PokerState, fixed: tuple[int, ...] | None) -> list[tuple[PokerState, str, float]]:
    """``(child, public observation, chance probability)`` of a public state, unordered for chance."""
    who = game.actor(st)
    if who == TERMINAL:
        return []
    if who != CHANCE:
        return [(game.next_state(st, a), game.observations(st, a)[0], 1.0) for a in game.legal_actions(st)]
    old = len(st.board)
    count = deal_size(game, st)
    p = deal_prob(game, 2 * game.spec.hole_cards + old, count)
    if fixed is not None and len(fixed) >= old + count:  # one allowed deal: do not enumerate the others
        actions = [deal_action(game, fixed[old : old + count])]
    else:  # with blank hole cards the game deals every combination of the unseen cards
        actions = [a for a, _ in game.chance_outcomes(st)]
    out = []
    for a in actions:
        child = game.next_state(st, a)
        if allowed(fixed, old, child.board):
            out.append((child, game.observations(st, a)[0], p))
    return out
