"""The page's server: a Flask application with a JSON API over one table.

Routes:
    ``GET /``: the page. ``GET /api/state``: the table as the human sees it (deals the first
    hand). ``POST /api/act`` with ``{"action": id or name}``: the human's action.
    ``POST /api/deal``: the next hand. Errors a player can cause (an illegal action, dealing
    before the hand ends, an agent that cannot answer) are answered with status 400 and
    ``{"error": message}``.

One lock serializes requests: the table is one person's game.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..agents.table import Table, TableState
from ..errors import SubgameError

if TYPE_CHECKING:
    from flask import Flask

STATIC = Path(__file__).resolve().parent / "static"


def require_flask() -> None:
    """Raise one clear error when Flask, the optional extra ``web``, is not installed."""
    try:
        import flask  # noqa: F401
    except ImportError:
        raise SubgameError("the web page needs Flask, which is not installed: pip install 'subgame[web]' (or pip install flask)") from None


def create_app(table: Table) -> Flask:
    """The Flask application serving the page and the JSON API over ``table``."""
    require_flask()
    from flask import Flask, jsonify, request, send_from_directory

    app = Flask("subgame.web", static_folder=str(STATIC), static_url_path="/static")
    lock = threading.Lock()

    def answer(step: Callable[[], TableState]) -> Any:
        with lock:
            try:
                return jsonify(step().to_json())
            except SubgameError as exc:
                return jsonify({"error": str(exc)}), 400

    @app.get("/")
    def page() -> Any:
        return send_from_directory(STATIC, "index.html")

    @app.get("/api/state")
    def state() -> Any:
        return answer(table.state)

    @app.post("/api/deal")
    def deal() -> Any:
        return answer(table.new_hand)

    @app.post("/api/act")
    def act() -> Any:
        body = request.get_json(silent=True)
        action = body.get("action") if isinstance(body, dict) else None
        if isinstance(action, bool) or not isinstance(action, (int, str)):
            return jsonify({"error": 'post {"action": ID or NAME}, e.g. {"action": 1} or {"action": "call"}'}), 400
        return answer(lambda: table.act(action))

    return app


@contextmanager
def running_server(app: Flask, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serve ``app`` in a background thread for the ``with`` block; yields its URL (port 0: any free port)."""
    from werkzeug.serving import make_server

    server = make_server(host, port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="subgame-web", daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{server.server_port}/"
    finally:
        server.shutdown()
        thread.join(timeout=5)


def serve(app: Flask, host: str, port: int, on_ready: Callable[[str], None] | None = None) -> None:
    """Serve ``app`` until interrupted (Ctrl-C returns); ``on_ready`` is told the URL once the port is bound."""
    from werkzeug.serving import make_server, select_address_family

    try:  # werkzeug exits the process on a busy port; ask the system first, to say so in one line
        with socket.socket(select_address_family(host, port), socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
        server = make_server(host, port, app, threaded=True)
    except (OSError, SystemExit) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "the address is in use or not available"
        raise SubgameError(f"cannot listen on {host}:{port}: {why}; pick another --port or --host") from None
    if on_ready is not None:
        on_ready(f"http://{host}:{server.server_port}/")
    try:
        server.serve_forever()
    finally:
        server.server_close()
