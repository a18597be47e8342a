"""Exchange with other systems: strategies to and from OpenSpiel policies."""

from .openspiel import from_tabular_policy, to_tabular_policy

__all__ = ["from_tabular_policy", "to_tabular_policy"]
