"""No-limit flop hold'em (NLFH): heads-up no-limit hold'em cut after the flop.

Brown & Sandholm 2017 ("Safe and Nested Subgame Solving for Imperfect-Information Games",
§7) evaluate subgame solving on this game: two hole cards each, a preflop betting round,
a three-card flop and a flop betting round, then a showdown (no turn, no river). It is a
parameter set of the poker family (:class:`PokerSpec`); the betting abstraction (pot
fractions per round, all-in, a cap on bets and raises per round) is part of the game, as
in the paper's "small" and "large" NLFH, which keep only a few actions per information set.

Seats follow the ACPC heads-up convention: player 0 posts the big blind and acts first on
the flop, player 1 posts the small blind (the button) and acts first preflop. A reduced
deck (fewer ranks or suits) keeps every rule and shrinks the tree; the full game is
``num_ranks=13, num_suits=4``.
"""

from __future__ import annotations

from typing import Any

from ...errors import GameDefinitionError
from .game import PokerGame
from .spec import PokerSpec

GAME_NAME = "nlfh"
#: Defaults of :func:`nlfh`: the full deck, 200 big blinds of 100 chips, one pot-sized bet
#: or all-in preflop, half-pot, pot or all-in on the flop, two bets or raises per round (``round_raise_caps``:
#: a cap per round instead).
DEFAULTS: dict[str, Any] = {
    "num_ranks": 13,
    "num_suits": 4,
    "stack": 20000,
    "big_blind": 100,
    "small_blind": 50,
    "preflop_fractions": (1.0,),
    "flop_fractions": (0.5, 1.0),
    "all_in": True,
    "raise_cap": 2,
    "round_raise_caps": (),
    "start": (),
}


def nlfh_spec(
    num_ranks: int = 13,
    num_suits: int = 4,
    stack: int = 20000,
    big_blind: int = 100,
    small_blind: int = 50,
    preflop_fractions: tuple[float, ...] = (1.0,),
    flop_fractions: tuple[float, ...] = (0.5, 1.0),
    all_in: bool = True,
    raise_cap: int = 2,
    round_raise_caps: tuple[int, ...] = (),
    start: tuple[int, ...] = (),
) -> PokerSpec:
    """The :class:`PokerSpec` of NLFH (see the module docstring); the spec validates the other values.

    ``round_raise_caps`` (preflop, flop) replaces ``raise_cap`` where given: the paper's Table 2
    game allows one bet preflop and three on the flop, ``(1, 3)``. ``start``: preflop betting taken before the game
    begins (:class:`PokerSpec`), so the game is the part of NLFH after it, e.g. the subgame after a bet.

    Raises:
        GameDefinitionError: the small blind is larger than the big blind, or the spec refuses a value.
    """
    if small_blind > big_blind:
        raise GameDefinitionError(f"{GAME_NAME}: the small blind ({small_blind}) is larger than the big blind ({big_blind}); "
                                  "swap them (-p big_blind=... -p small_blind=...)")
    return PokerSpec(
        num_ranks=num_ranks, num_suits=num_suits, hole_cards=2, board_cards=(0, 3), betting="nolimit", ante=0,
        blinds=(big_blind, small_blind), stack=stack, bet_fractions=tuple(preflop_fractions), all_in=all_in,
        first_player=(1, 0), raise_cap=raise_cap, round_bet_fractions=(tuple(preflop_fractions), tuple(flop_fractions)),
        round_raise_caps=tuple(round_raise_caps), start=tuple(start),
    )


def nlfh(**params: Any) -> PokerGame:
    """NLFH as a game of the poker family; ``params`` are those of :func:`nlfh_spec`."""
    return PokerGame(nlfh_spec(**params), name=GAME_NAME)
