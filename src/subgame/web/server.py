"""The page's server: a Flask application with a JSON API over one table.

Routes:
    ``GET /``: the page. ``GET /api/state``: the table as the human sees it (deals the first
    hand). ``POST /api/act`` with ``{"action": id or name, "hand": n, "step": k}``: the
    human's action at the state that was shown, hand ``n`` after ``k`` steps (the length of
    its ``steps``). ``POST /api/deal`` with ``{"hand": n}``: the hand after hand ``n``.
    ``GET /favicon.ico``: the page's icon. Errors a player can cause (an illegal action,
    dealing before the hand ends, an agent that cannot answer) are answered with status 400
    and ``{"error": message}``.

A post names the state it answers, so that an action is played only at the state the human
saw: a post made from a page that is out of date (another tab played on; the same click sent
twice) is refused with status 409 and ``{"error": message, "state": the table now}``. One
lock serializes requests: the table is one person's game.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..agents.table import Table, TableState
from ..errors import IllegalActionError, SubgameError

if TYPE_CHECKING:
    from flask import Flask

STATIC = Path(__file__).resolve().parent / "static"
ACT_BODY = '{"action": ID or NAME, "hand": N, "step": K} (the hand and the number of its steps the page showed)'


class StaleAction(IllegalActionError):
    """A post that answers a state the table has left (another tab played on, or the post was sent twice)."""


def refuse_stale(table: Table, hand: int, step: int | None = None) -> None:
    """Refuse a post made at hand ``hand`` after ``step`` steps (``None``: any step) when the table is elsewhere.

    Raises:
        StaleAction: the table is at another hand or step.
    """
    now = table.hand
    if now is None:
        return  # nothing dealt yet: the table's own checks answer
    steps = len(now.history)
    if now.number != hand or (step is not None and steps != step):
        where = f"hand {hand}" + ("" if step is None else f" after {step} steps")
        raise StaleAction(f"this page showed {where}, but the table is at hand {now.number} after {steps} steps "
                          "(another page played on, or a click was sent twice); nothing was played; the page now shows the table")


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
            except StaleAction as exc:
                return jsonify({"error": str(exc), "state": table.state().to_json()}), 409
            except SubgameError as exc:
                return jsonify({"error": str(exc)}), 400

    def number(body: Any, key: str) -> int | None:
        value = body.get(key) if isinstance(body, dict) else None
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    @app.get("/favicon.ico")
    def favicon() -> Any:
        return send_from_directory(STATIC, "favicon.svg", mimetype="image/svg+xml")

    @app.get("/")
    def page() -> Any:
        return send_from_directory(STATIC, "index.html")

    @app.get("/api/state")
    def state() -> Any:
        return answer(table.state)

    @app.post("/api/deal")
    def deal() -> Any:
        hand = number(request.get_json(silent=True), "hand")
        if hand is None:
            return jsonify({"error": 'post {"hand": N}, the number of the hand that the page showed ended'}), 400

        def next_hand() -> TableState:
            refuse_stale(table, hand)
            return table.new_hand()

        return answer(next_hand)

    @app.post("/api/act")
    def act() -> Any:
        body = request.get_json(silent=True)
        action = body.get("action") if isinstance(body, dict) else None
        hand, step = number(body, "hand"), number(body, "step")
        if isinstance(action, bool) or not isinstance(action, (int, str)) or hand is None or step is None:
            return jsonify({"error": f'post {ACT_BODY}, e.g. {{"action": "call", "hand": 1, "step": 3}}'}), 400

        def play() -> TableState:
            refuse_stale(table, hand, step)
            return table.act(action)

        return answer(play)

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
