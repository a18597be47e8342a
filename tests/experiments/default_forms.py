"""Each experiment's default form (``subgame reproduce NAME``), run once per test session.

Several tests read one default table: the README's figures for it (``test_readme_figures.py``) and
the paper's shape (the experiment's own test file). Running it once keeps the suite within its
time; a test that wants the same table twice runs it (or a part of it) again itself.
"""

from __future__ import annotations

from functools import cache

from subgame.experiments import EXPERIMENTS, ExperimentResult


@cache
def default_form(name: str) -> ExperimentResult:
    """``EXPERIMENTS[name](full=False, seed=0)``, computed on the first call (the result is shared: do not change it)."""
    return EXPERIMENTS[name](full=False, seed=0)
