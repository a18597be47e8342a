"""The parametric poker family (Kuhn, Leduc, no-limit variants) and ACPC game files."""

from .acpc import load_acpc_game, parse_acpc, to_acpc
from .game import PokerGame, PokerState
from .spec import KUHN, LEDUC, LEDUC_NOLIMIT, PokerSpec

__all__ = ["KUHN", "LEDUC", "LEDUC_NOLIMIT", "PokerGame", "PokerSpec", "PokerState", "load_acpc_game", "parse_acpc", "to_acpc"]
