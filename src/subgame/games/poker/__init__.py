"""The parametric poker family (Kuhn, Leduc, no-limit variants, hold'em spots) and ACPC game files."""

from .acpc import load_acpc_game, parse_acpc, to_acpc
from .game import PokerGame, PokerState
from .holdem import BetSizing, HoldemSpot
from .libratus import Endgame, read_endgame
from .ranges import Range, format_range, parse_board, parse_range
from .spec import KUHN, LEDUC, LEDUC_NOLIMIT, PokerSpec

__all__ = ["KUHN", "LEDUC", "LEDUC_NOLIMIT", "BetSizing", "Endgame", "HoldemSpot", "PokerGame", "PokerSpec", "PokerState",
           "Range", "format_range", "load_acpc_game", "parse_acpc", "parse_board", "parse_range", "read_endgame", "to_acpc"]
