"""Compile a game into a :class:`PublicTree` with the compiler the game declares.

A game names its compiler in :attr:`~subgame.games.base.Game.tree_compiler`:
``"enumerate"`` (:func:`~subgame.tree.enumeration.enumerate_game`) walks every history and
serves any game; ``"poker"`` (:func:`~subgame.tree.poker_compile.compile_poker`) walks
public states only and gives the same arrays for the poker family.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..errors import GameDefinitionError
from ..games.base import Game
from .enumeration import enumerate_game
from .poker_compile import compile_poker
from .public_tree import PublicTree

_COMPILERS: Mapping[str, Callable[..., PublicTree]] = {"enumerate": enumerate_game, "poker": compile_poker}


def compile_game(
    game: Game,
    *,
    public_state: Sequence[str] | None = None,
    public_states: Sequence[Sequence[str]] | None = None,
    depth_limit: int | None = None,
    chance_limit: int | None = None,
    leaf_histories: bool = False,
    max_bytes: int | None = None,
) -> PublicTree:
    """Compile ``game`` (or a part of it) into a public tree with the compiler it declares.

    The arguments are those of :func:`~subgame.tree.enumeration.enumerate_game`; every
    compiler takes them and gives the same tree where both run.

    Raises:
        GameDefinitionError: the game names no known compiler, or its rules or the
            arguments are refused by the compiler.
    """
    compiler = _COMPILERS.get(game.tree_compiler)
    if compiler is None:
        raise GameDefinitionError(
            f"{game.name}: no public-tree compiler is called {game.tree_compiler!r} (known: {', '.join(_COMPILERS)})"
        )
    return compiler(
        game, public_state=public_state, public_states=public_states, depth_limit=depth_limit, chance_limit=chance_limit,
        leaf_histories=leaf_histories, max_bytes=max_bytes,
    )
