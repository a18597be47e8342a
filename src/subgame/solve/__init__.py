"""Solvers: the vectorized CFR engine (with its presets and plug-ins), sampling CFR, the run driver, card abstraction, the exact sequence-form LP."""

from .abstraction import Abstraction
from .cfr import (
    CFR,
    CFR_PLUS,
    DCFR,
    DCFR_PLUS,
    ENGINES,
    LINEAR_CFR,
    MODICUM,
    PCFR_PLUS,
    POSTFLOP_DCFR,
    POSTFLOP_DCFR_PLUS,
    PRESET_HELP,
    PRESETS,
    CFRConfig,
    CFRSolver,
    Engine,
)
from .driver import Budget, Cadence, RunResult, Solver, run
from .lp import LPResult, SequenceForm, payoff_matrix, realization_plan, sequence_form, solve_lp, terminal_matrix
from .mccfr import EXTERNAL_SAMPLING, OUTCOME_SAMPLING, PUBLIC_CHANCE_SAMPLING, SCHEMES, MCCFRSolver, SamplingScheme
from .rules import UpdateRule, preset, update_rule

__all__ = [
    "CFR", "CFR_PLUS", "DCFR", "DCFR_PLUS", "LINEAR_CFR", "MODICUM", "PCFR_PLUS", "POSTFLOP_DCFR", "POSTFLOP_DCFR_PLUS",
    "PRESETS", "PRESET_HELP", "preset",
    "ENGINES", "Engine", "UpdateRule", "update_rule", "Abstraction", "CFRConfig", "CFRSolver",
    "LPResult", "SequenceForm", "payoff_matrix", "realization_plan", "sequence_form", "solve_lp", "terminal_matrix",
    "Budget", "Cadence", "RunResult", "Solver", "run",
    "EXTERNAL_SAMPLING", "OUTCOME_SAMPLING", "PUBLIC_CHANCE_SAMPLING", "SCHEMES", "MCCFRSolver", "SamplingScheme",
]
