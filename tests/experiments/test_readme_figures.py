"""The figures the README quotes for an experiment's default form are what that form prints today.

A change in the engine that moves an experiment's table (a new loop, another summation order)
must come with the README's figures measured again; this test is what notices.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from subgame.experiments.offtree import GOOD_VALUES, PAPER_VALUES, TRANSLATED_VALUES, offtree_values

from .default_forms import default_form

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
    """``value`` as the README quotes it: as many decimals (``0.0062``, ``24``), or digits of ``8.2e-5``."""
    if "e" in quoted:
        mantissa, exponent = f"{value:.{len(quoted.split('e')[0].split('.')[1])}e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    return f"{value:.{len(quoted.split('.')[1]) if '.' in quoted else 0}f}"


#: A figure as the README writes it: 0.0062, 24, 288.7, 8.2e-5.
FIGURE = r"\d+(?:\.\d+)?(?:e-\d+)?"


def _figures(paragraph: str, pattern: str) -> tuple[str, ...]:
    """The figures the groups of ``pattern`` (its first match in ``paragraph``) capture."""
    match = re.search(pattern, paragraph)
    assert match, f"the README's paragraph does not say {pattern!r}: {paragraph[:120]}..."
    return match.groups()


def _same(value: float, quoted: str, what: str) -> None:
    assert _printed(value, quoted) == quoted, f"README: {what} {quoted}; the code prints {value!r}"


def _rows(result, key, cells):
    """``{key(row): cells(row)}`` over the result's rows."""
    return {key(row): cells(row) for row in result.rows}


@pytest.mark.slow
def test_offtree_values_default_form_prints_the_readme_figures():
    # One table, run after run: test_offtree_experiment.py runs a reduced form here and in a fresh interpreter.
    paragraph = _paragraph("offtree-values", "default form").split("With `--full`")[0]
    result = offtree_values(full=False, seed=0)
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

    # One table, run after run: test_agent_experiment.py runs a reduced form twice.
    paragraph = _paragraph("agent-exploitability", "default form")
    result = agent_exploitability_experiment()
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


@pytest.mark.slow
def test_resolve_convergence_default_form_prints_the_readme_figures():
    from subgame.experiments.technique_table import resolve_convergence

    paragraph = _paragraph("resolve-convergence", "default form")
    result = default_form("resolve-convergence")
    assert resolve_convergence().markdown() == result.markdown()  # one table, run after run
    assert [row[0] for row in result.rows] == [100, 316, 1000] and "CFR+ for 2000 iterations" in result.notes[0]
    assert "2,000-iteration CFR+ trunk" in paragraph
    (trunk,) = _figures(paragraph, rf"exploitable by ({FIGURE}) chips/hand")
    _same(result.rows[0][3], trunk, "resolve-convergence trunk")
    resolve = _figures(paragraph, rf"resolve gadget gives ({FIGURE}), ({FIGURE}) and ({FIGURE}) chips/hand after 100, 316 and 1,000")
    unsafe = _figures(paragraph, rf"unsafe re-solving gives ({FIGURE}), ({FIGURE}) and ({FIGURE})")
    for row, r, u in zip(result.rows, resolve, unsafe):
        _same(row[1], r, f"resolve-convergence resolve T = {row[0]}")
        _same(row[2], u, f"resolve-convergence unsafe T = {row[0]}")


@pytest.mark.slow
def test_technique_table_default_form_prints_the_readme_figures():
    paragraph = _paragraph("technique-table", "default form")
    result = default_form("technique-table")
    # One table, run after run: test_subgame_experiments.py runs Leduc's rows of four methods again (the whole form takes 9 s).
    assert "20-iteration coarse CFR+ blueprint and a 300-iteration card-abstracted one, 300 iterations a re-solve" in paragraph
    assert "CFR+ for 300 iterations" in result.notes[-1]
    chips = _rows(result, lambda row: (row[0], row[1].split()[0], row[2]), lambda row: row[3])
    names = {"(reach-)estimate+distributional": ("reach-estimate-distributional", "distributional"),
             "reach-estimate+distributional": ("reach-estimate-distributional",)}
    leduc, five = paragraph.split("Leduc, card-abstracted")[1].split("Five ranks, card-abstracted")
    checked = 0
    for game, text in (("leduc", leduc), ("leduc5", five)):
        for blueprint, segment in zip(("abstract", "coarse"), text.split("coarse")[:2]):
            (figure,) = _figures(segment, rf"^ \(({FIGURE})\)")
            _same(chips[(game, blueprint, "blueprint")], figure, f"technique-table {game} {blueprint} blueprint")
            for label, figure in re.findall(rf"([a-z()+-]+) ({FIGURE})", segment):
                for method in names.get(label, (label,)):
                    _same(chips[(game, blueprint, method)], figure, f"technique-table {game} {blueprint} {method}")
                    checked += 1
    assert checked == 18  # every method's figure the paragraph gives
    # "unsafe re-solving is the least exploitable method in both games" from the coarse blueprints
    for game in ("leduc", "leduc5"):
        coarse = {m: v for (g, bp, m), v in chips.items() if g == game and bp == "coarse" and m != "blueprint"}
        assert min(coarse, key=coarse.__getitem__) == "unsafe"


@pytest.mark.slow
def test_resolve_vs_blueprint_default_form_prints_the_readme_figures():
    # One table, run after run: tests/cli/test_resolve_reproduce.py runs `subgame reproduce resolve-vs-blueprint` twice.
    paragraph = _paragraph("resolve-vs-blueprint", "default form")
    result = default_form("resolve-vs-blueprint")
    assert {row[2] for row in result.rows} == {100, 500} and "T = 100 and 500" in paragraph
    (blueprint,) = _figures(paragraph, rf"after 500 CFR\+ iterations \(({FIGURE}) chips/hand\)")
    assert f"CFR+ for 500 iterations) for {blueprint}." in result.setup[1]  # the header prints it to three decimals
    final = _rows(result, lambda row: (row[0], row[1], row[2]), lambda row: row)
    quoted = {
        ("CFR", "resolve"): _figures(paragraph, rf"vanilla CFR the safe re-solve wins ({FIGURE}) chips/hand \(exploitability ({FIGURE})\)"),
        ("CFR", "unsafe"): _figures(paragraph, rf"and the unsafe one ({FIGURE}) \(({FIGURE})\)"),
        ("CFR+", "resolve"): _figures(paragraph, rf"with CFR\+ the safe re-solve loses ({FIGURE}) \(({FIGURE})\)"),
        ("CFR+", "unsafe"): _figures(paragraph, rf"and the unsafe one wins ({FIGURE}) \(({FIGURE})\)"),
    }
    for (solver, method), (won, expl) in quoted.items():
        row = final[(solver, method, 500)]
        _same(-row[3] if (solver, method) == ("CFR+", "resolve") else row[3], won, f"resolve-vs-blueprint {solver} {method} won")
        _same(row[4], expl, f"resolve-vs-blueprint {solver} {method} exploitability")
    assert final[("CFR+", "resolve", 500)][3] < 0 < final[("CFR", "resolve", 500)][3]  # "loses" and "wins"


@pytest.mark.slow
def test_cdbr_table_default_form_prints_the_readme_figures():
    from subgame.experiments.exploit import cdbr_table

    paragraph = _paragraph("cdbr-table", "`--full`")  # the default form's games are the first two of the full form's
    result = default_form("cdbr-table")
    assert cdbr_table().markdown() == result.markdown()  # one table, run after run
    rows = {row[0]: row for row in result.rows}
    assert list(rows) == ["Leduc", "IIGS4"]
    rows |= {row[0]: row for row in cdbr_table(games=["LD 1x4"]).rows}  # a row of the full form's that takes 0.5 s
    for game, label in (("Leduc", "Leduc"), ("IIGS4", "IIGS4"), ("LD 1x4", "Liar's dice 1×4")):
        quoted = _figures(paragraph, rf"{label} ({FIGURE}) / ({FIGURE}) / ({FIGURE})(?: % for CDBR1/3/5)? and ({FIGURE})")
        for header, cell, figure in zip(result.headers[2:6], rows[game][2:6], quoted):
            _same(float(cell), figure, f"cdbr-table {game} {header}")


@pytest.mark.slow
def test_cdrnr_tradeoff_default_form_prints_the_readme_figures():
    # One table, run after run: test_exploit_experiments.py runs a cheaper form twice (the default one takes 13 s).
    paragraph = _paragraph("cdrnr-tradeoff", "default form")
    result = default_form("cdrnr-tradeoff")
    assert "CFR after 2, 5 and 10 iterations, p = 0.1, 0.5 and 0.9" in paragraph and "after 2, 5, 10 iterations" in result.notes[0]
    rows = _rows(result, lambda row: (row[0], row[1]), lambda row: row)
    ratio, best, bne = _figures(paragraph, rf"the best CDRNR gains ({FIGURE})× best Nash's \(({FIGURE}) vs ({FIGURE}) chips/hand\)")
    assert f"the best CDRNR gain is {ratio}× best Nash's" in result.notes[2]
    _same(max(row[2] for (method, _), row in rows.items() if method == "cdrnr"), best, "cdrnr-tradeoff best CDRNR gain")
    _same(rows[("bne", "")][2], bne, "cdrnr-tradeoff best Nash gain")
    expl, bound = _figures(paragraph, rf"at p = 0.5 its exploitability is ({FIGURE}) against the bound ({FIGURE})")
    _same(rows[("cdrnr", "0.5")][3], expl, "cdrnr-tradeoff CDRNR exploitability at p = 0.5")
    gain = rows[("cdrnr", "0.5")][2]
    assert rows[("cdrnr", "0.5")][4] == f"{gain:.4f}"  # the bound gain·p/(1 − p) is the gain at p = 0.5
    _same(gain, bound, "cdrnr-tradeoff CDRNR bound at p = 0.5")
    (ses,) = _figures(paragraph, rf"SES gains ({FIGURE})")
    _same(rows[("ses", "0.5")][2], ses, "cdrnr-tradeoff SES gain at p = 0.5")


@pytest.mark.slow
def test_cdbr_vs_lbr_default_form_prints_the_readme_figures():
    from subgame.experiments.exploit import cdbr_vs_lbr

    paragraph = _paragraph("cdbr-vs-lbr", "default form")
    result = default_form("cdbr-vs-lbr")
    assert cdbr_vs_lbr().markdown() == result.markdown()  # one table, run after run
    rows = _rows(result, lambda row: row[1], lambda row: dict(zip(result.headers, row)))
    assert list(rows) == ["CFR 1", "CFR 5", "CFR 34", "random 0", "random 1", "random 2"]
    for opponent in ("CFR 1", "CFR 5", "CFR 34"):
        quoted = _figures(paragraph, rf"{opponent} ({FIGURE}) / ({FIGURE}) / ({FIGURE}) / ({FIGURE})")
        for header, figure in zip(("BR", "LBR", "CDBR1", "CDBR3"), quoted):
            _same(rows[opponent][header], figure, f"cdbr-vs-lbr {opponent} {header}")
    assert "LBR gains less than CDBR1 against all six opponents" in paragraph
    assert all(row["LBR"] < row["CDBR1"] for row in rows.values()) and "against 0 of 6 Leduc opponents" in result.notes[0]


@pytest.mark.slow
def test_nested_table_default_form_prints_the_readme_figures():
    # One table, run after run: test_nested_experiment.py runs a cheaper form twice (the default one takes 11 s of CPU).
    paragraph = _paragraph("nested-table", "default form")
    result = default_form("nested-table")
    assert "3 ranks × 2 suits, 10 big blinds deep, a 1,000-iteration blueprint" in paragraph and "500 iterations per subgame" in paragraph
    assert "stacks 20 chips (10 big blinds)" in result.notes[0] and "each subgame CFR+ 500 iterations" in result.notes[1]
    (abstract,) = _figures(paragraph, rf"blueprint \(({FIGURE}) mbb/hand in the abstraction\)")
    assert f"CFR+ 1000 iterations in the abstraction ({abstract} mbb/hand there)" in result.notes[1]
    subgames, levels = _figures(paragraph, r"(\d+) subgames over (\d+) nesting levels")
    assert {(str(row[3]), str(row[4])) for row in result.rows[1:]} == {(subgames, levels)}
    mbb = {row[0]: row[1] for row in result.rows}
    labels = {"translation": "randomized pseudo-harmonic translation", "resolve": "resolve",
              "reach-maxmargin expensive": "reach-maxmargin (expensive)", "unsafe expensive": "unsafe (expensive)",
              ", maxmargin": "maxmargin", ", reach-maxmargin": "reach-maxmargin"}
    for label, row in labels.items():
        (figure,) = _figures(paragraph, rf"{re.escape(label)} ({FIGURE})")
        _same(mbb[row], figure, f"nested-table {row}")


@pytest.mark.slow
def test_modicum_default_form_prints_the_readme_figures():
    from subgame.experiments.modicum import modicum_vs_cfr_plus

    paragraph = _paragraph("modicum", "default form")
    result = default_form("modicum")
    # One table, run after run: Leduc's row of 100 iterations again (each iteration count is a run of its own).
    again = modicum_vs_cfr_plus(games=("leduc",), iterations=(100,))
    assert list(again.rows) == [row for row in result.rows if row[:2] == ("leduc", 100)]
    assert "a 1,000-iteration blueprint" in paragraph and "reaches (1000 iterations)" in result.notes[0]
    factor = _rows(result, lambda row: (row[0], row[1]), lambda row: row[6])
    for game, label in (("leduc", "less exploitable than CFR+ in Leduc"), ("leduc_nolimit", "in no-limit Leduc")):
        before = paragraph.split(label)[0] if game == "leduc" else paragraph.split("in Leduc and")[1]
        quoted = _figures(before, rf"({FIGURE}), ({FIGURE}) and ({FIGURE})×")
        for t, figure in zip((100, 300, 1000), quoted):
            _same(factor[(game, t)], figure, f"modicum CFR+/Modicum {game} at {t} iterations")


@pytest.mark.slow
def test_depth_limited_values_default_form_prints_the_readme_figures():
    from subgame.experiments.depth_limited import depth_limited_values

    paragraph = _paragraph("depth-limited-values", "default form")
    result = default_form("depth-limited-values")
    assert list(depth_limited_values().rows) == list(result.rows)  # one table, run after run (the notes give seconds)
    assert "Leduc alone, a 200-iteration blueprint, 200 iterations a solve" in paragraph
    assert {row[0] for row in result.rows} == {"leduc"} and result.rows[0][1] == "blueprint (CFR+ 200 it.)"
    mbb = _rows(result, lambda row: (row[1].split()[0], row[2]), lambda row: row[4])
    bias = _figures(paragraph, rf"\(self-generative\): ({FIGURE}) / ({FIGURE}) / ({FIGURE}) and")
    generative = _figures(paragraph, rf"and ({FIGURE}) / ({FIGURE}) / ({FIGURE}) / ({FIGURE}) \(blueprint")
    for kind, quoted in (("bias", bias), ("self-generative", generative)):
        for k, figure in zip((1, 2, 4, 8), quoted):
            _same(mbb[(kind, k)], figure, f"depth-limited-values {kind} K = {k}")
    assert mbb[("bias", 8)] == "–"  # the bias set has four continuations
    (blueprint,) = _figures(paragraph, rf"\(blueprint ({FIGURE})\)")
    _same(mbb[("blueprint", "")], blueprint, "depth-limited-values blueprint")


@pytest.mark.slow
def test_cfr_d_default_form_prints_the_readme_figures():
    # One table, run after run (its seconds aside): tests/decompose/test_experiment.py runs it again.
    paragraph = _paragraph("cfr-d", "default form")
    result = default_form("cfr-d")
    assert "T = 10 and 40 trunk iterations, K = 4, 16 and 64, 300 CFR+ iterations a re-solve" in paragraph
    assert "T in {10, 40}, K in {4, 16, 64}" in result.notes[1] and "(300 iterations each" in result.notes[0]
    chips = _rows(result, lambda row: (row[0], row[1]), lambda row: row[2])
    for t in (10, 40):
        quoted = _figures(paragraph, rf"T = {t}: ({FIGURE}) / ({FIGURE}) / ({FIGURE})")
        for k, figure in zip((4, 16, 64), quoted):
            _same(chips[(t, k)], figure, f"cfr-d T = {t}, K = {k}")


@pytest.mark.slow
def test_modicum_table_default_form_prints_the_readme_figures():
    """Every exact figure of the default form.

    Exact values do not depend on the number of deals (and AIVAT with exact references has no spread), so two deals a
    match (an interval needs two) stand in for the 300 of the default form; the plain means the README gives beside
    them need the 300 deals and are not checked here. One table, run after run: test_modicum_table.py.
    """
    from subgame.blueprint.implicit_mccfr import available
    from subgame.experiments.modicum_table import modicum_table

    if not available():
        pytest.skip("the compiled loop of implicit MCCFR is not built")
    paragraph = _paragraph("modicum-table", "default form").split("`--full`")[0]
    result = modicum_table(seed=0, deals=2)
    assert "20,000-iteration implicit-MCCFR blueprint with exact cards, 100 CFR+ iterations a solve" in paragraph
    assert "20,000 iterations, actions the game own sizes, cards exact" in result.setup[1] and "100 CFR+ iterations a solve" in result.setup[2]
    rows = {row[0]: dict(zip(result.headers, row)) for row in result.rows}
    agents = {"blueprint": "blueprint", "K = 1": "naive depth-limited (K = 1)", "K = 4": "depth-limited (K = 4)"}

    def exact(cell: object) -> str:  # "+186 ± 0; +186.0": AIVAT with no spread, then the exact value
        aivat, value = str(cell).split("; ")
        assert aivat.endswith(" ± 0") and abs(float(aivat.split()[0]) - float(value)) <= 0.5 + 1e-9
        return value

    lookup = paragraph.split("against the lookup-table bot")[1].split(";")[0]
    own = paragraph.split("against the blueprint")[1].split(";")[0]
    exploit = paragraph.split("exploitability")[1]
    for label, agent in agents.items():
        (figure,) = _figures(lookup, rf"{re.escape(label)} (\+{FIGURE})")
        assert exact(rows[agent]["vs lookup-table bot (AIVAT; exact)"]) == figure, f"README: modicum-table {agent} vs the bot {figure}"
        if agent != "blueprint":
            (figure,) = _figures(own, rf"{re.escape(label)} (\+{FIGURE})")
            assert exact(rows[agent]["vs own blueprint (AIVAT; exact)"]) == figure, f"README: modicum-table {agent} vs its blueprint {figure}"
        (figure,) = _figures(exploit, rf"{re.escape(label)} ({FIGURE})")
        assert rows[agent]["exploitability, exact"] == figure, f"README: modicum-table {agent} exploitability {figure}"
    (figure,) = _figures(exploit, rf"\(the lookup-table bot ({FIGURE})\)")
    assert rows["lookup-table bot"]["exploitability, exact"] == figure
    lbr = _figures(paragraph, rf"LBR loses to all three on this deck, (\+{FIGURE}), (\+{FIGURE}) and (\+{FIGURE}) mbb/hand")
    for agent, figure in zip(agents.values(), lbr):
        assert exact(rows[agent]["vs LBR (AIVAT; exact)"]) == figure, f"README: modicum-table {agent} vs LBR {figure}"
