"""The README runs as written: every Python snippet on its own, the files its commands name, the options it lists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _snippets() -> list[tuple[int, str]]:
    """``(line, code)`` of every ```python block."""
    return [(README.count("\n", 0, m.start()) + 2, m.group(1)) for m in re.finditer(r"```python\n(.*?)```", README, flags=re.S)]


@pytest.mark.slow
def test_every_readme_python_snippet_runs_on_its_own(capsys, tmp_path, monkeypatch):
    """Regression: the fourth snippet used names only an earlier one had defined (NameError: compile_game)."""
    monkeypatch.chdir(tmp_path)  # the examples write under out/
    printed = []
    for line, code in _snippets():
        try:
            exec(compile(code, f"README.md, snippet at line {line}", "exec"), {})  # a fresh namespace each
        except Exception as exc:
            pytest.fail(f"the README's Python snippet at line {line} fails on its own: {type(exc).__name__}: {exc}")
        printed.append([float(x) for x in capsys.readouterr().out.split()])
    assert len(printed) >= 5 and all(printed)  # every snippet prints what it computes
    (blueprint, resolved), (margin,), (last,) = printed[0], printed[1], printed[2]
    assert resolved <= blueprint  # the safe re-solve does not raise exploitability
    assert margin > -1e-2  # and keeps the alternative payoffs, up to the solver's tolerance
    assert 0 < last < blueprint  # the driver's last evaluation: 400 iterations beat 200
    assert (tmp_path / "out" / "leduc.ckpt").is_file()


def test_the_files_the_readme_commands_name_exist():
    """Regression: the hold'em example read --ranges ranges.txt, which no one had."""
    named = set(re.findall(r"--ranges (\S+)", README)) - {"uniform", "RANGES"}
    assert named and all((ROOT / path).is_file() for path in named), named


def test_a_missing_range_file_is_named_as_missing(tmp_path):
    from tests.cli.test_cli import invoke

    missing = tmp_path / "ranges.txt"
    result = invoke("solve", "holdem-subgame", "--board", "Js Ks 5c Qs 7d", "--pot", "100", "--stack", "100",
                    "--ranges", missing)
    assert result.exit_code == 2 and f"--ranges {missing}: no such file" in " ".join(result.output.split())


def test_the_readme_lists_every_command_that_takes_json():
    import typer.main

    from subgame.cli.main import app

    group = typer.main.get_command(app)
    commands = {name: group.get_command(None, name) for name in group.list_commands(None)}  # type: ignore[attr-defined,arg-type]
    takes_json = {name for name, command in commands.items() if any("--json" in p.opts for p in command.params)}
    sentence = re.search(r"((?:`[a-z-]+`,?\s+(?:and\s+)?)+)take `--json`", README)
    assert sentence is not None
    assert set(re.findall(r"`([a-z-]+)`", sentence.group(1))) == takes_json


def test_the_readme_says_what_raise_cap_zero_means():
    assert "`--raise-cap 0`: no cap" in " ".join(README.split())
