"""Reduced forms of the subgame-solving experiments: shapes of the papers' results."""

from __future__ import annotations

import pytest

from subgame.errors import GameDefinitionError
from subgame.experiments.technique_table import resolve_vs_blueprint, technique_table

from .default_forms import default_form


@pytest.mark.slow
def test_resolve_convergence_reduced(tmp_path):
    r = default_form("resolve-convergence")  # run again, and its figures checked, in test_readme_figures.py
    resolve = [row[1] for row in r.rows]
    unsafe = [row[2] for row in r.rows]
    assert resolve[-1] < resolve[0]  # re-solving converges with more subgame iterations
    assert min(unsafe) > 0.03  # unsafe re-solving stays exploitable (paper: about 0.080)
    md, png = r.write(tmp_path)
    assert md.read_text().count("\n|") >= 3 and png.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.slow
def test_technique_table_reduced_orderings(tmp_path):
    r = default_form("technique-table")  # its figures checked in test_readme_figures.py
    _, png = r.write(tmp_path)
    assert png is not None and png.read_bytes()[:4] == b"\x89PNG"  # every experiment draws its table
    by = {(row[1].split()[0], row[2]): row[3] for row in r.rows if row[0] == "leduc"}
    for bp in ("coarse", "abstract"):
        assert by[(bp, "resolve")] <= by[(bp, "blueprint")] + 1e-9
        assert by[(bp, "maxmargin")] <= by[(bp, "resolve")] + 1e-3
        assert by[(bp, "reach-maxmargin")] <= by[(bp, "maxmargin")] + 1e-3
    assert abs(by[("abstract", "blueprint")] - 0.382) < 0.01
    again = technique_table(games=("leduc",), methods=("unsafe", "resolve", "maxmargin", "reach-maxmargin"))
    assert list(again.rows) == [row for row in r.rows if row[0] == "leduc" and row[2] in again.xticklabels]  # the same rows twice


@pytest.mark.slow
def test_resolve_vs_blueprint_with_vanilla_cfr_as_the_paper():
    r = resolve_vs_blueprint(max_iterations=1000, solvers=("cfr",))
    final = {row[1]: row for row in r.rows if row[2] == 1000}
    assert {row[0] for row in r.rows} == {"CFR"}
    assert final["resolve"][4] < 0.382 < final["unsafe"][4]  # safe re-solving lowers exploitability, unsafe raises it
    assert final["resolve"][3] > 0  # and, as in the paper's Fig. 5, wins against the abstract strategy
    assert final["unsafe"][3] > final["resolve"][3]  # unsafe wins more (the paper: by about 0.004 chips/hand)
    assert any("Public Chance Sampling" in line for line in r.setup) and "0.382" in r.markdown().split("|")[0]
    assert resolve_vs_blueprint(max_iterations=1000, solvers=("cfr",)).markdown() == r.markdown()  # the same table twice
    with pytest.raises(GameDefinitionError, match="solvers must be among"):
        resolve_vs_blueprint(solvers=("bogus",))
