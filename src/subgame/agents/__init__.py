"""Agents: anything that plays a seat of a game (see :mod:`subgame.agents.base`)."""

from .base import Agent, Decision, KnownAgent, Move, View, infoset_key
from .baselines import CallAgent, RandomAgent
from .blueprints import Blueprint, TreeBlueprint, UniformBlueprint
from .resolving import ResolveSource, ResolvingAgent, blueprint_source, cfr_d_source
from .specs import load_agent
from .strategy import StrategyAgent
from .translation import TranslationAgent

__all__ = [
    "Agent", "CallAgent", "Decision", "KnownAgent", "Move", "RandomAgent", "ResolveSource", "ResolvingAgent", "StrategyAgent",
    "TranslationAgent", "View", "blueprint_source", "cfr_d_source", "infoset_key", "load_agent",
    "Blueprint", "TreeBlueprint", "UniformBlueprint",
]
