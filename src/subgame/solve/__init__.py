"""Solvers: the vectorized CFR engine (with its presets and plug-ins), sampling CFR, the run driver, card abstraction, the exact sequence-form LP."""

from .abstraction import Abstraction
from .cfr import CFR, CFR_PLUS, DCFR, LINEAR_CFR, MODICUM, PRESETS, CFRConfig, CFRSolver
from .driver import Budget, Cadence, RunResult, Solver, run
from .lp import LPResult, SequenceForm, payoff_matrix, realization_plan, sequence_form, solve_lp, terminal_matrix
from .mccfr import EXTERNAL_SAMPLING, OUTCOME_SAMPLING, PUBLIC_CHANCE_SAMPLING, SCHEMES, MCCFRSolver, SamplingScheme

__all__ = [
    "CFR", "CFR_PLUS", "DCFR", "LINEAR_CFR", "MODICUM", "PRESETS", "Abstraction", "CFRConfig", "CFRSolver",
    "LPResult", "SequenceForm", "payoff_matrix", "realization_plan", "sequence_form", "solve_lp", "terminal_matrix",
    "Budget", "Cadence", "RunResult", "Solver", "run",
    "EXTERNAL_SAMPLING", "OUTCOME_SAMPLING", "PUBLIC_CHANCE_SAMPLING", "SCHEMES", "MCCFRSolver", "SamplingScheme",
]
