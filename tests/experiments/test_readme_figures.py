"""The figures the README quotes for an experiment's default form are what that form prints today.

A change in the engine that moves an experiment's table (a new loop, another summation order)
must come with the README's figures measured again; this test is what notices.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from subgame.experiments.offtree import GOOD_VALUES, PAPER_VALUES, TRANSLATED_VALUES, offtree_values

README = Path(__file__).resolve().parents[2] / "README.md"


def _paragraph(name: str, form: str) -> str:
    """The README's measured paragraph of experiment ``name`` that starts with its ``form``."""
    text = " ".join(README.read_text().split())
    match = re.search(rf"- `{re.escape(name)}` \({re.escape(form)}.*?(?= - `|$)", text)
    assert match, f"the README has no paragraph for {name} ({form})"
    return match.group(0)


def _quoted(paragraph: str, label: str) -> str:
    """The figure the paragraph gives right after ``label`` (the first occurrence)."""
    match = re.search(rf"{re.escape(label)} (\d+\.\d+)", paragraph)
    assert match, f"no figure after {label!r} in: {paragraph[:120]}..."
    return match.group(1)


def _printed(value: float, quoted: str) -> str:
    """``value`` (mbb/hand) with as many decimals as the README quotes."""
    return f"{value:.{len(quoted.split('.')[1])}f}"


@pytest.mark.slow
def test_offtree_values_default_form_prints_the_readme_figures():
    paragraph = _paragraph("offtree-values", "default form").split("With `--full`")[0]
    result = offtree_values(full=False, seed=0)
    mbb = {(row[0], row[1]): row[3] for row in result.rows}
    pairs = {
        "translation": mbb[("randomized pseudo-harmonic translation", "")],
        "lower bound": next(v for (name, _), v in mbb.items() if name.startswith("lower bound")),
        "nested solving to the end of the game": mbb[("nested solving to the end of the game (no depth limit)", "")],
        "under the translated blueprint K = 1": mbb[(TRANSLATED_VALUES, 1)],
        "K = 2 to 16": mbb[(TRANSLATED_VALUES, 2)],
        "averaged leaves K = 1": mbb[(PAPER_VALUES, 1)],
        "K = 2": mbb[(PAPER_VALUES, 2)],
        "K = 4": mbb[(PAPER_VALUES, 4)],
        "K = 16": mbb[(PAPER_VALUES, 16)],
    }
    for label, value in pairs.items():
        quoted = _quoted(paragraph.split("averaged leaves")[-1] if label in ("K = 2", "K = 4", "K = 16") else paragraph, label)
        assert _printed(value, quoted) == quoted, f"README: {label} {quoted}; the code prints {value:.4f}"
    assert all(mbb[(TRANSLATED_VALUES, k)] == mbb[(TRANSLATED_VALUES, 2)] for k in (4, 8, 16))  # "K = 2 to 16"
    assert GOOD_VALUES in {name for name, _ in mbb}
