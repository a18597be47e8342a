"""subgame: solve two-player zero-sum imperfect-information games by decomposition.

The stages are values: a game (:mod:`subgame.games`) compiles to a public tree of arrays
(:mod:`subgame.tree`); solvers (:mod:`subgame.solve`) produce a :class:`Strategy`;
:mod:`subgame.eval` measures it exactly; :mod:`subgame.resolving` re-solves parts of it.
"""

from .errors import (
    GameDefinitionError,
    IllegalActionError,
    InvalidRangeError,
    StrategyFileError,
    SubgameError,
    UnknownGameError,
)
from .eval import best_response, counterfactual_values, expected_value, exploitability
from .games import GAMES, Game, load_game
from .resolving import METHODS, resolve_all, solve_subgames
from .solve import CFR, CFR_PLUS, DCFR, LINEAR_CFR, CFRConfig, CFRSolver, solve_lp
from .strategy import Strategy, StrategyMeta
from .tree.compile import compile_game
from .tree.public_tree import PublicTree

__version__ = "0.1.0"

__all__ = [
    "CFR", "CFR_PLUS", "DCFR", "GAMES", "LINEAR_CFR", "METHODS",
    "CFRConfig", "CFRSolver", "Game", "PublicTree", "Strategy", "StrategyMeta",
    "GameDefinitionError", "IllegalActionError", "InvalidRangeError", "StrategyFileError", "SubgameError",
    "UnknownGameError",
    "best_response", "compile_game", "counterfactual_values", "expected_value", "exploitability", "load_game",
    "resolve_all", "solve_lp", "solve_subgames",
]
