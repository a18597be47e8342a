"""Games: the registry of built-in games and :func:`load_game`.

``load_game("leduc")`` gives the standard Leduc hold'em; ``load_game("leduc", num_ranks=5)``
a Leduc-type game with more ranks. Parameters given as strings (from the command line)
are converted to the type of the default.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import GameDefinitionError, UnknownGameError
from .base import CHANCE, TERMINAL, Game, game_fingerprint
from .dice import LiarsDice
from .goofspiel import Goofspiel
from .poker import KUHN, LEDUC, LEDUC_NOLIMIT, PokerGame, PokerSpec
from .poker.holdem import DEFAULTS as HOLDEM_DEFAULTS
from .poker.holdem import holdem_subgame
from .poker.nlfh import DEFAULTS as NLFH_DEFAULTS
from .poker.nlfh import nlfh
from .small import CoinToss, MatchingPenniesChoice, RedGreenCoin, RockPaperScissors, RPSPlus


@dataclass(frozen=True)
class GameEntry:
    name: str
    description: str
    defaults: Mapping[str, Any]
    make: Callable[..., Game]


def _poker(name: str, base: PokerSpec) -> Callable[..., Game]:
    def make(**params: Any) -> Game:
        return PokerGame(dataclasses.replace(base, **params), name=name)

    return make


def _spec_defaults(spec: PokerSpec) -> dict[str, Any]:
    return dataclasses.asdict(spec)


GAMES: dict[str, GameEntry] = {
    e.name: e
    for e in [
        GameEntry("kuhn", "Kuhn poker: 3 cards, ante 1, one bet of 1", _spec_defaults(KUHN), _poker("kuhn", KUHN)),
        GameEntry("leduc", "Leduc hold'em: J,Q,K in two suits, raises 2 then 4, at most 2 per round",
                  _spec_defaults(LEDUC), _poker("leduc", LEDUC)),
        GameEntry("leduc_nolimit", "No-limit Leduc: 20-chip stacks, ante 1, bets of 0.5 and 1 pot and all-in",
                  _spec_defaults(LEDUC_NOLIMIT), _poker("leduc_nolimit", LEDUC_NOLIMIT)),
        GameEntry("poker", "Any game of the poker family (set every parameter)", _spec_defaults(PokerSpec()),
                  _poker("poker", PokerSpec())),
        GameEntry("holdem_subgame", "Heads-up no-limit hold'em from a flop, turn or river: board, pot, chips behind, "
                  "bets as pot fractions (per street with '/') and all-in, raise cap per street", HOLDEM_DEFAULTS,
                  holdem_subgame),
        GameEntry("nlfh", "No-limit flop hold'em (Brown & Sandholm 2017, §7): preflop and flop betting rounds", NLFH_DEFAULTS, nlfh),
        GameEntry("liars_dice", "Liar's dice (OpenSpiel's rules): dice per player, faces; the top face is wild",
                  {"num_dice": 1, "dice_sides": 6}, LiarsDice),
        GameEntry("goofspiel", "Goofspiel with a fixed prize order; imp_info=True is IIGS (only round winners are seen)",
                  {"num_cards": 4, "imp_info": True, "points_order": "descending", "returns_type": "win_loss"}, Goofspiel),
        GameEntry("coin_toss", "Coin Toss (Brown & Sandholm 2017, §2) with Sell as a terminal",
                  {"sell_heads": 0.5, "sell_tails": -0.5}, CoinToss),
        GameEntry("rps", "Sequential rock-paper-scissors (Burch et al. 2014, Fig. 1)", {"scissors_payoff": 1.0},
                  RockPaperScissors),
        GameEntry("rps_plus", "RPS+: Scissors wins or loses 2 (Brown et al. 2018, Fig. 1a)", {}, RPSPlus),
        GameEntry("matching_pennies", "Matching pennies with a choice of version (Milec et al., Fig. 2)", {},
                  MatchingPenniesChoice),
        GameEntry("red_green_coin", "The red/green coin game where gadgets fail (Milec et al., §5, Fig. 3)",
                  {"rh": -4.0, "rt": -1.0, "gh": -2.0, "gt": 3.0}, RedGreenCoin),
    ]
}


def _convert(name: str, key: str, value: Any, default: Any) -> Any:
    """``value`` (text from the command line, or a Python value) as the type of ``default``, finite."""
    converted = _as_type(name, key, value, default)
    numbers = converted if isinstance(converted, tuple) else (converted,)
    if any(isinstance(x, float) and not math.isfinite(x) for x in numbers):
        raise GameDefinitionError(f"{name}: parameter {key}={value!r} is not a finite number")
    return converted


def _as_type(name: str, key: str, value: Any, default: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        if isinstance(default, bool):
            if value.lower() in ("1", "true", "yes"):
                return True
            if value.lower() in ("0", "false", "no"):
                return False
            raise ValueError(value)
        if isinstance(default, int):
            return int(value)
        if isinstance(default, float):
            return float(value)
        if isinstance(default, tuple):
            inner = type(default[0]) if default else float
            parts = [p for p in value.replace("(", "").replace(")", "").split(",") if p.strip()]
            return tuple(inner(p) for p in parts)
    except ValueError:
        raise GameDefinitionError(
            f"{name}: parameter {key}={value!r} is not a valid {type(default).__name__} (default is {default!r})"
        ) from None
    return value


def load_game(name: str, **params: Any) -> Game:
    """Build a registered game, an OpenSpiel game (``openspiel:NAME``), a Gambit file (``efg:PATH`` or
    ``PATH.efg``) or an ACPC game file (``PATH.game``).

    Raises:
        UnknownGameError: ``name`` is not registered.
        GameDefinitionError: a parameter is unknown or invalid.
    """
    if name.startswith("openspiel:"):
        from .openspiel import OpenSpielGame

        return OpenSpielGame.load(name.split(":", 1)[1], **params)
    if name.startswith("efg:") or name.lower().endswith(".efg"):
        from .efg import efg_path, load_efg_game

        if params:
            raise GameDefinitionError(f"{name}: an .efg file takes no parameters, got {', '.join(sorted(params))}")
        return load_efg_game(efg_path(name))
    if name.endswith(".game"):
        from .poker.acpc import load_acpc_game

        extra = sorted(set(params) - {"bet_fractions", "all_in"})
        if extra:
            raise GameDefinitionError(
                f"{name}: an ACPC game file takes only the parameters bet_fractions and all_in, not {', '.join(extra)}"
            )
        defaults = {"bet_fractions": (0.5, 1.0), "all_in": True}
        return load_acpc_game(name, **{k: _convert(name, k, v, defaults[k]) for k, v in params.items()})
    entry = GAMES.get(name)
    if entry is None:
        known = ", ".join(sorted(GAMES))
        raise UnknownGameError(
            f"unknown game {name!r}; known games: {known} (or 'openspiel:NAME', 'efg:PATH' for a Gambit .efg file, or a path to an ACPC .game file)"
        )
    unknown = sorted(set(params) - set(entry.defaults))
    if unknown:
        allowed = ", ".join(entry.defaults) or "none"
        raise GameDefinitionError(f"{name}: unknown parameter(s) {', '.join(unknown)}; parameters are: {allowed}")
    converted = {k: _convert(name, k, v, entry.defaults[k]) for k, v in params.items()}
    try:
        return entry.make(**converted)
    except TypeError as exc:
        raise GameDefinitionError(f"{name}: invalid parameters {converted}: {exc}") from None


__all__ = ["CHANCE", "GAMES", "TERMINAL", "Game", "GameEntry", "game_fingerprint", "load_game"]
