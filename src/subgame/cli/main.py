"""The ``subgame`` command line: the application with its commands, in the order ``--help`` lists them.

Each command lives in its own module and calls the library; :mod:`.app` holds what they
share (options, error reporting, output).
"""

from __future__ import annotations

from .abstract import abstract_command
from .acpc import acpc_client_command, dealer_command
from .agent_eval import agent_eval_command
from .app import app
from .blueprint import blueprint_command
from .evaluate import evaluate_command
from .exploit import exploit_command
from .games import games_command
from .match import match_command
from .nested import nested_command
from .play import play_command
from .quickstart import quickstart_command
from .reproduce import reproduce_command
from .resolve import resolve_command
from .serve import serve_command
from .solve import CFR_ALGORITHMS, solve_command

for _name, _command in (
    ("games", games_command),
    ("solve", solve_command),
    ("evaluate", evaluate_command),
    ("quickstart", quickstart_command),
    ("resolve", resolve_command),
    ("reproduce", reproduce_command),
    ("exploit", exploit_command),
    ("nested", nested_command),
    ("serve", serve_command),
    ("play", play_command),
    ("match", match_command),
    ("acpc-client", acpc_client_command),
    ("dealer", dealer_command),
    ("abstract", abstract_command),
    ("agent-eval", agent_eval_command),
    ("blueprint", blueprint_command),
):
    app.command(_name)(_command)

__all__ = ["CFR_ALGORITHMS", "app"]
