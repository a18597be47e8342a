"""``python -m subgame.cli``: the same as the ``subgame`` command."""

from .main import app

app(prog_name="subgame")
