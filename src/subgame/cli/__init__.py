"""The ``subgame`` command-line tool (entry point: :data:`subgame.cli.main.app`)."""

from .main import app

__all__ = ["app"]
