"""One ACPC ``.game`` file, read by us and by OpenSpiel's universal_poker: the same exploitability."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python.algorithms import exploitability as os_exploitability  # noqa: E402

from subgame.errors import GameDefinitionError  # noqa: E402
from subgame.eval.best_response import exploitability  # noqa: E402
from subgame.games.poker.acpc import load_acpc_game  # noqa: E402
from subgame.interop.openspiel import to_tabular_policy  # noqa: E402
from subgame.solve.cfr import CFR_PLUS, CFRSolver  # noqa: E402
from subgame.strategy import Strategy  # noqa: E402
from subgame.tree.compile import compile_game  # noqa: E402

# Hold'em in miniature: blinds, one hole card each and a one-card flop from a deck of four
# ranks in two suits; every deal is one card, as universal_poker deals them. One dealt board
# round only: universal_poker's information state lists the board sorted, so two boards
# dealt in different orders would share an information set there (imperfect recall).
LIMIT = """\
GAMEDEF
limit
numPlayers = 2
numRounds = 2
blind = 2 1
raiseSize = 2 4
firstPlayer = 2 1
maxRaises = 3 2
numSuits = 2
numRanks = 4
numHoleCards = 1
numBoardCards = 0 1
END GAMEDEF
"""

NOLIMIT = """\
GAMEDEF
nolimit
numPlayers = 2
numRounds = 2
stack = 20 20
blind = 2 1
firstPlayer = 2 1
numSuits = 2
numRanks = 4
numHoleCards = 1
numBoardCards = 0 1
END GAMEDEF
"""

SCALAR = {"numPlayers", "numRounds", "numSuits", "numRanks", "numHoleCards"}


def universal_poker(text: str) -> pyspiel.Game:
    """OpenSpiel's reading of the definition: its ``key = values`` lines as universal_poker parameters.

    Written here from the text, not from our reader, so that the two games share only the file.
    """
    params: dict[str, object] = {}
    for line in text.splitlines():
        words = line.replace("=", " ").split()
        if len(words) == 1 and words[0].lower() in ("limit", "nolimit"):
            params["betting"] = words[0].lower()
        elif len(words) > 1 and words[0].upper() != "END":
            params[words[0]] = int(words[1]) if words[0] in SCALAR else " ".join(words[1:])
    if params["betting"] == "nolimit":
        params["bettingAbstraction"] = "fcpa"  # fold, call, pot-size raise, all-in
    return pyspiel.load_game("universal_poker", params)


@pytest.mark.parametrize("text", [LIMIT, NOLIMIT], ids=["limit", "nolimit"])
@pytest.mark.slow
def test_exploitability_equals_openspiels_on_the_same_acpc_file(tmp_path, text):
    path = tmp_path / "mini_holdem.game"
    path.write_text(text)
    game = load_acpc_game(path, bet_fractions=(1.0,), all_in=True)  # fcpa's bets
    tree = compile_game(game)
    up = universal_poker(path.read_text())
    solved = CFRSolver(tree, CFR_PLUS).run(30).average_strategy()
    for strategy in (Strategy.uniform(tree), solved, Strategy.random(tree, np.random.default_rng(3))):
        ours = exploitability(tree, strategy).exploitability
        theirs = os_exploitability.exploitability(up, to_tabular_policy(game, tree, strategy, os_game=up))
        assert ours > 1e-3
        assert ours == pytest.approx(theirs, abs=1e-9)


def test_a_different_definition_is_refused(tmp_path):
    path = tmp_path / "mini_holdem.game"
    path.write_text(LIMIT)
    game = load_acpc_game(path)
    other = universal_poker(LIMIT.replace("maxRaises = 3 2", "maxRaises = 2 2"))
    with pytest.raises(GameDefinitionError, match="the actions .* map to"):
        to_tabular_policy(game, compile_game(game), Strategy.uniform(compile_game(game)), os_game=other)
