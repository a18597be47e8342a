"""Evaluation: best responses, counterfactual best-response values, exploitability, head-to-head value."""

from .best_response import (
    BestResponse,
    Exploitability,
    best_response,
    best_response_to_reach,
    counterfactual_values,
    expected_value,
    exploitability,
)

__all__ = ["BestResponse", "Exploitability", "best_response", "best_response_to_reach", "counterfactual_values", "expected_value", "exploitability"]
