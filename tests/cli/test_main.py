"""The application itself: ``subgame --help`` lists the commands without loading the engine."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from subgame.cli.main import COMMANDS, app, command_function

#: Modules that load numpy or scipy: none may be imported to list the commands.
ENGINE_PREFIXES = ("numpy", "scipy", "subgame.tree", "subgame.solve", "subgame.eval", "subgame.games", "subgame.experiments")


def _imported_by(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", f"import sys\n{code}\nprint('\\n'.join(sorted(sys.modules)))"],
                         capture_output=True, text=True, check=True).stdout
    return [m for m in out.split() if m.startswith(ENGINE_PREFIXES)]


def test_importing_the_command_line_loads_no_engine_module():
    assert _imported_by("import subgame.cli.main") == []


def test_help_lists_every_command_without_loading_the_engine():
    code = "from subgame.cli.main import app\ntry:\n    app(['--help'], prog_name='subgame')\nexcept SystemExit:\n    pass"
    assert _imported_by(code) == []
    listing = CliRunner().invoke(app, ["--help"]).output
    for name in COMMANDS:
        assert name in listing


def test_solving_a_holdem_spot_never_imports_scipy_sparse_or_pydantic():
    """Its sparse matrices serve the sweeps of small games; a spot's depth-first passes never need them (about 22 MB).
    Nor does parsing the command line need pydantic (about 10 MiB, which typer from 0.29 on imports)."""
    code = ("import sys\nfrom subgame.cli.main import app\ntry:\n    app(['solve', 'holdem-subgame', '--board', 'Js Ks 5c Qs 7d', "
            "'--pot', '100', '--stack', '100', '--bets', 'allin', '--iterations', '3', '--json'], prog_name='subgame')\n"
            "except SystemExit as e:\n    assert not e.code, e.code\n"
            "print(sorted(m for m in sys.modules if m.startswith(('scipy.sparse', 'pydantic')) or m == 'subgame.tree.poker_layout'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert '"pct_pot"' in out and out.strip().splitlines()[-1] == "['subgame.tree.poker_layout']"


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_summary_is_its_command_docstring_first_paragraph(name):
    doc = inspect.getdoc(command_function(name)) or ""
    assert " ".join(COMMANDS[name].summary.split()) == " ".join(doc.split("\n\n")[0].split())


@pytest.mark.parametrize("name", ["solve", "match", "exploit"])
def test_a_command_help_loads_that_command(name):
    result = CliRunner().invoke(app, [name, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output
