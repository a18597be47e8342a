"""The README's Python example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest


@pytest.mark.slow
def test_readme_python_blocks_run(capsys, tmp_path, monkeypatch):
    text = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    monkeypatch.chdir(tmp_path)  # the examples write under out/
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks
    namespace: dict[str, object] = {}  # the blocks read as one session
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)
    printed = [float(x) for x in capsys.readouterr().out.split()]
    assert printed[1] <= printed[0]  # the safe re-solve does not raise exploitability
    assert printed[2] > -1e-2  # and keeps the alternative payoffs, up to the solver's tolerance
    assert 0 < printed[3] < printed[0]  # the driver's last evaluation: 400 iterations beat 200
    assert (tmp_path / "out" / "leduc.ckpt").is_file()
