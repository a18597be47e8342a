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
    match = re.search(rf"- `{re.escape(name)}` \({re.escape(form)}.*?(?= - `|$)", text)  # form "": the first paragraph
    assert match, f"the README has no paragraph for {name} ({form})"
    return match.group(0)


def _quoted(paragraph: str, label: str) -> str:
    """The figure the paragraph gives right after ``label`` (the first occurrence)."""
    match = re.search(rf"{re.escape(label)} ?(\d+\.\d+)", paragraph)
    assert match, f"no figure after {label!r} in: {paragraph[:120]}..."
    return match.group(1)


def _printed(value: float, quoted: str) -> str:
    """``value`` (mbb/hand) with as many decimals as the README quotes."""
    return f"{value:.{len(quoted.split('.')[1])}f}"


@pytest.mark.slow
def test_offtree_values_default_form_prints_the_readme_figures():
    paragraph = _paragraph("offtree-values", "default form").split("With `--full`")[0]
    result = offtree_values(full=False, seed=0)
    assert offtree_values(full=False, seed=0).rows == result.rows  # one table, run after run
    assert "3 ranks, 10 big blinds, 500 CFR+ iterations" in paragraph
    assert "3 ranks x 2 suits" in result.notes[0] and "stacks 20 chips" in result.notes[0]  # 10 big blinds of 2 chips
    assert "blueprint is CFR+ 500 iterations" in result.notes[0] and "Every solve is CFR+ 500 iterations" in result.notes[0]
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


@pytest.mark.slow
def test_technique_table_full_form_prints_the_readme_figures():
    from subgame.experiments.technique_table import technique_table

    abstract_part, coarse_part = _paragraph("technique-table", "").split("on a coarse CFR+ blueprint")
    result = technique_table(full=True, games=("leduc",))
    chips = {(row[1].split()[0], row[2]): row[3] for row in result.rows}
    quoted = {
        ("abstract", "blueprint"): _quoted(abstract_part, "blueprint ("),
        ("abstract", "resolve"): _quoted(abstract_part, "resolve gives"),
        ("abstract", "maxmargin"): _quoted(abstract_part, "maxmargin"),
        ("abstract", "estimate"): _quoted(abstract_part, "estimate"),
        ("abstract", "reach-estimate-distributional"): _quoted(abstract_part, "(reach-)estimate+distributional"),
        ("abstract", "distributional"): _quoted(abstract_part, "(reach-)estimate+distributional"),
        ("abstract", "unsafe"): _quoted(abstract_part, "unsafe"),
        ("coarse", "blueprint"): _quoted(coarse_part, "("),
        ("coarse", "unsafe"): _quoted(coarse_part, "unsafe"),
        ("coarse", "resolve"): _quoted(coarse_part, "resolve"),
        ("coarse", "maxmargin"): _quoted(coarse_part, ", maxmargin"),
        ("coarse", "reach-maxmargin"): _quoted(coarse_part, "reach-maxmargin"),
        ("coarse", "reach-estimate-distributional"): _quoted(coarse_part, "reach-estimate+distributional"),
    }
    for key, figure in quoted.items():
        assert _printed(chips[key], figure) == figure, f"README: technique-table {key} {figure}; the code prints {chips[key]:.4f}"


@pytest.mark.slow
def test_gadget_tradeoff_default_form_prints_the_readme_figures():
    from subgame.experiments.gadgets import gadget_tradeoff

    paragraph = _paragraph("gadget-tradeoff", "default form")
    by = {(row[0], row[1]): row for row in gadget_tradeoff().rows}
    for label, gadget in (("full gadget", "full"), ("resolving gadget", "resolve"), ("max-margin gadget", "maxmargin")):
        gain, expl = re.search(rf"{label} (\d+\.\d+) / (\d+\.\d+)", paragraph).groups()  # type: ignore[union-attr]
        assert (_printed(by[(gadget, "0.75")][2], gain), _printed(by[(gadget, "0.75")][3], expl)) == (gain, expl)
    assert _printed(by[("maxmargin", "0.9")][3], _quoted(paragraph, "exploitable for")) == _quoted(paragraph, "exploitable for")
    assert _printed(by[("full", "0.9")][3], _quoted(paragraph, "full gadget's")) == _quoted(paragraph, "full gadget's")


@pytest.mark.slow
def test_gift_scaling_default_form_prints_the_readme_figures():
    from subgame.experiments.gadgets import gift_scaling

    paragraph = _paragraph("gift-scaling", "default form")
    rows = gift_scaling().rows
    mbb = {row[2]: row[4] for row in rows}
    assert _printed(1000 * rows[0][5], _quoted(paragraph, "blueprint (")) == _quoted(paragraph, "blueprint (")
    labels = {"0": "scale 0 (maxmargin)", "1": "scale 1 (reach-maxmargin)", "2": "scale 2", "10": "10", "100": "100",
              "1000": "1,000", "100000": "100,000", "whole gift (no split)": "(no split)"}
    for scale, label in labels.items():
        quoted = re.search(rf"(?:scale 2 \d+\.\d+, |, ){re.escape(label)} (\d+\.\d+)" if scale in ("10", "100", "1000", "100000")
                           else rf"{re.escape(label)} (\d+\.\d+)", paragraph).group(1)  # type: ignore[union-attr]
        assert _printed(mbb[scale], quoted) == quoted, f"README: gift scale {scale} {quoted}; the code prints {mbb[scale]:.4f}"


@pytest.mark.slow
def test_agent_exploitability_default_form_prints_the_readme_figures():
    from subgame.experiments.search_agent import QUICK_GAME, agent_exploitability_experiment

    paragraph = _paragraph("agent-exploitability", "default form")
    result = agent_exploitability_experiment()
    again = agent_exploitability_experiment()
    assert [row[:-1] for row in again.rows] == [row[:-1] for row in result.rows]  # one table, run after run (seconds aside)
    assert {row[0] for row in result.rows} == {QUICK_GAME} and "stack=10" in result.notes[0]
    assert "10-chip stacks" in paragraph and "100-iteration CFR+ blueprint, 100 Modicum iterations per solve" in paragraph
    by = {(row[1].split()[0], row[2]): row for row in result.rows}
    quoted = {"blueprint": ("blueprint", ""), "K = 1": ("search", 1), "K = 4": ("search", 4),
              "near-equilibrium (1,000 CFR+ iterations)": ("near-equilibrium", "")}
    for label, key in quoted.items():
        figure = _quoted(paragraph, label)
        assert _printed(by[key][5], figure) == figure, f"README: agent-exploitability {label} {figure}; the code prints {by[key][5]:.4f}"
    assert "1000 it." in by[("near-equilibrium", "")][1] and "100 it." in by[("blueprint", "")][1]
    # The shape the paragraph states: one value per leaf state is worse than the blueprint, four better.
    assert by[("search", 1)][5] > by[("blueprint", "")][5] > by[("search", 4)][5]
