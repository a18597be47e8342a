"""The public tree: games compiled to arrays over public nodes and private states, and the sweeps over them."""

from .compile import compile_game
from .enumeration import enumerate_game
from .part import Part, compile_part, place
from .poker_compile import compile_poker
from .public_state import LabeledValues, PublicStateSubgame, hand_range, subgame_at
from .public_tree import CHANCE_NODE, DECISION, LEAF, TERMINAL_NODE, HistoryAtNode, PlayerArrays, PublicTree, ValueOperator

__all__ = [
    "CHANCE_NODE", "DECISION", "LEAF", "TERMINAL_NODE", "HistoryAtNode", "PlayerArrays", "PublicTree", "ValueOperator",
    "Part", "compile_game", "compile_part", "compile_poker", "enumerate_game", "place",
    "LabeledValues", "PublicStateSubgame", "hand_range", "subgame_at",
]
