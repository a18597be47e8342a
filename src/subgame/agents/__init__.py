"""Agents: anything that plays a seat of a game (see :mod:`subgame.agents.base`)."""

from .base import Agent, Decision, Move, View, infoset_key

__all__ = ["Agent", "Decision", "Move", "View", "infoset_key"]
