"""Safe and unsafe subgame solving (Brown & Sandholm 2017; Burch, Johanson & Bowling 2014)."""

from .solving import (
    METHODS,
    SAFE_METHODS,
    BlueprintValues,
    SubgameParams,
    SubgameSolution,
    blueprint_values,
    resolve_all,
    resolve_subgame,
    solve_subgames,
    subgame_forest,
    subgame_roots,
)

__all__ = [
    "METHODS", "SAFE_METHODS", "BlueprintValues", "SubgameParams", "SubgameSolution",
    "blueprint_values", "resolve_all", "resolve_subgame", "solve_subgames", "subgame_forest", "subgame_roots",
]
