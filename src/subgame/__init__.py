"""subgame: solve two-player zero-sum imperfect-information games by decomposition.

The stages are values: a game (:mod:`subgame.games`) compiles to a public tree of arrays
(:mod:`subgame.tree`); solvers (:mod:`subgame.solve`) produce a :class:`Strategy`;
:mod:`subgame.eval` measures it exactly; :mod:`subgame.resolving` re-solves parts of it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .errors import (
    GameDefinitionError,
    IllegalActionError,
    InvalidRangeError,
    StrategyFileError,
    SubgameError,
    UnknownGameError,
)

if TYPE_CHECKING:
    from .eval import best_response, counterfactual_values, expected_value, exploitability
    from .games import GAMES, Game, load_game
    from .resolving import METHODS, resolve_all, solve_subgames
    from .solve import CFR, CFR_PLUS, DCFR, LINEAR_CFR, CFRConfig, CFRSolver, solve_lp
    from .strategy import Strategy, StrategyMeta
    from .tree.compile import compile_game
    from .tree.public_tree import PublicTree

#: Where each name of the public face lives; imported on first use, so that ``import subgame``
#: (and the command line's ``--help``) does not load numpy and the engine.
_LAZY = {
    **dict.fromkeys(("best_response", "counterfactual_values", "expected_value", "exploitability"), ".eval"),
    **dict.fromkeys(("GAMES", "Game", "load_game"), ".games"),
    **dict.fromkeys(("METHODS", "resolve_all", "solve_subgames"), ".resolving"),
    **dict.fromkeys(("CFR", "CFR_PLUS", "DCFR", "LINEAR_CFR", "CFRConfig", "CFRSolver", "solve_lp"), ".solve"),
    **dict.fromkeys(("Strategy", "StrategyMeta"), ".strategy"),
    "compile_game": ".tree.compile",
    "PublicTree": ".tree.public_tree",
}


def __getattr__(name: str) -> Any:
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module 'subgame' has no attribute {name!r}")
    value = getattr(importlib.import_module(where, __name__), name)
    globals()[name] = value
    return value


__version__ = "0.1.0"

__all__ = [
    "CFR", "CFR_PLUS", "DCFR", "GAMES", "LINEAR_CFR", "METHODS",
    "CFRConfig", "CFRSolver", "Game", "PublicTree", "Strategy", "StrategyMeta",
    "GameDefinitionError", "IllegalActionError", "InvalidRangeError", "StrategyFileError", "SubgameError",
    "UnknownGameError",
    "best_response", "compile_game", "counterfactual_values", "expected_value", "exploitability", "load_game",
    "resolve_all", "solve_lp", "solve_subgames",
]
