"""A local web page to play hands against an agent (``subgame serve``).

The server is a small Flask application over one :class:`~subgame.agents.table.Table`; the
page is plain HTML with a little JavaScript that shows the table's JSON and posts the
buttons' actions. Flask is the optional extra ``web`` (``pip install 'subgame[web]'``).
"""

from __future__ import annotations

from .server import create_app, require_flask, running_server, serve

__all__ = ["create_app", "require_flask", "running_server", "serve"]
