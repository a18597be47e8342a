"""Agents named on the command line: ``random``, ``call`` or a strategy file."""

from __future__ import annotations

from pathlib import Path

from ..errors import SubgameError
from ..strategy import Strategy
from ..tree.public_tree import PublicTree
from .base import Agent
from .baselines import CallAgent, RandomAgent
from .strategy import StrategyAgent

BASELINES: dict[str, type[RandomAgent] | type[CallAgent]] = {"random": RandomAgent, "call": CallAgent}


def load_agent(spec: str, tree: PublicTree) -> Agent:
    """The agent a spec names, for the game compiled as ``tree``.

    Args:
        spec: ``random``, ``call``, or the path of a strategy file of the game.
        tree: the game's compiled tree (a strategy file is checked against it).

    Raises:
        SubgameError: an unknown name, a missing file, or a file of another game.
    """
    if spec in BASELINES:
        return BASELINES[spec]()
    path = Path(spec)
    if not path.exists():
        raise SubgameError(f"unknown agent {spec!r}: give {', '.join(BASELINES)} or the path of a strategy file")
    return StrategyAgent(tree, Strategy.load(path, tree), name=path.stem)
