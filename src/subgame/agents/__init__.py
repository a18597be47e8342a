"""Agents: anything that plays a seat of a game (see :mod:`subgame.agents.base`)."""

from .base import Agent, Decision, Move, View, infoset_key
from .baselines import CallAgent, RandomAgent
from .specs import load_agent
from .strategy import StrategyAgent

__all__ = ["Agent", "CallAgent", "Decision", "Move", "RandomAgent", "StrategyAgent", "View", "infoset_key", "load_agent"]
