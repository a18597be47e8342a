"""The public tree: games compiled to arrays over public nodes and private states, and the sweeps over them."""

from .compile import compile_game, enumerate_game, game_fingerprint
from .poker_compile import compile_poker
from .public_tree import CHANCE_NODE, DECISION, LEAF, TERMINAL_NODE, PlayerArrays, PublicTree, ValueOperator

__all__ = [
    "CHANCE_NODE", "DECISION", "LEAF", "TERMINAL_NODE", "PlayerArrays", "PublicTree", "ValueOperator",
    "compile_game", "compile_poker", "enumerate_game", "game_fingerprint",
]
