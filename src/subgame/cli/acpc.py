"""``subgame acpc-client`` and ``subgame dealer``: agents over the ACPC protocol."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ..agents.acpc import DealerConfig, play_match
from ..agents.acpc.dealer import Dealer
from ..agents.acpc.protocol import NAMINGS, Naming
from ..agents.acpc.same_game import adopt_strategy
from ..agents.base import Agent
from ..agents.specs import load_agent, treeless_agent
from ..agents.strategy import StrategyAgent
from ..errors import GameDefinitionError, SubgameError
from ..games import load_game
from ..games.poker.game import PokerGame
from ..tree.compile import compile_game
from .app import EXIT_INTERRUPTED, CommandLineError, ParamsOption, SecondsOption, echo_json, parse_params, reports_errors, show

#: The exit status of a client whose match did not complete.
EXIT_INCOMPLETE = 1

GameFileOption = Annotated[Path, typer.Option("--game", help="The match's ACPC game definition (.game file).")]
CardsOption = Annotated[str, typer.Option(
    "--cards", help="Names of a small deck's cards: acpc (the ACPC dealer's: Leduc is Q K A of h s) or openspiel "
                    "(OpenSpiel's universal_poker: 2 3 4 of c d).")]



def _poker_game(file: Path, param: list[str]) -> PokerGame:
    if file.suffix != ".game":
        raise GameDefinitionError(f"{file}: expected an ACPC game definition, a file ending in .game")
    game = load_game(str(file), **parse_params(param))
    if not isinstance(game, PokerGame):  # pragma: no cover - .game files always load as poker
        raise GameDefinitionError(f"{file}: not a poker game")
    return game


def _mbb_per_hand(chips: float, hands: int, game: PokerGame) -> str:
    """`` (+12.3 mbb/hand)``: thousandths of a big blind per hand (the largest blind; one chip without blinds)."""
    big_blind = max(game.spec.blinds) or 1
    return f"{1000 * chips / big_blind / hands:+.1f} mbb/hand" if hands else "no hands"


def _naming(cards: str) -> Naming:
    for naming in NAMINGS:
        if cards == naming:
            return naming
    raise CommandLineError(f"--cards {cards!r}: use one of {', '.join(NAMINGS)}")


def _agent(spec: str, game: PokerGame, file: Path, seconds: float | None = None) -> Agent:
    """A baseline or a blueprint needs no tree; a strategy file is checked against the compiled game, which may be its game
    under another name."""
    treeless = treeless_agent(spec, game, seconds)  # HUNL
    if treeless is not None:
        return treeless
    tree = compile_game(game)
    adopted = adopt_strategy(spec, tree) if Path(spec).is_file() else None
    if adopted is not None:
        return StrategyAgent(tree, adopted, name=Path(spec).stem)
    try:
        return load_agent(spec, tree, game)
    except SubgameError as exc:
        if not Path(spec).is_file():
            raise
        raise type(exc)(f"{exc}; to solve the match's game: subgame solve {file} --out strategy.npz") from None


@reports_errors
def acpc_client_command(
    port: Annotated[int, typer.Option(min=1, max=65535, help="The dealer's port for this player.")],
    game: GameFileOption,
    agent: Annotated[str, typer.Option(help="random, call, or a strategy file of the game (with -p bet_fractions/all_in as solved).")],
    host: Annotated[str, typer.Option(help="The dealer's host.")] = "127.0.0.1",
    param: ParamsOption = [],  # noqa: B006 (typer reads the default, never mutates it)
    seed: Annotated[int, typer.Option(help="Seeds the agent and the sampling of its actions, hand by hand.")] = 0,
    timeout: Annotated[float, typer.Option(help="Seconds to wait for the dealer's next message.")] = 300.0,
    cards: CardsOption = "acpc",
    results: Annotated[Path | None, typer.Option(help="Write the hands and errors as JSON here.")] = None,
    quiet: Annotated[bool, typer.Option(help="No line per hand on stderr (problems are still shown).")] = False,
    seconds_per_decision: SecondsOption = None,
) -> None:
    """Play a match at an ACPC dealer with an agent: one line per hand on stderr, the total at the end.

    Exits with 1 when the match did not complete (no hand played, or it ended otherwise than by the dealer
    closing the connection between hands).
    """
    game_obj = _poker_game(game, param)
    player = _agent(agent, game_obj, game, seconds_per_decision)
    naming = _naming(cards)

    def log(line: str) -> None:
        if not (quiet and line.startswith("hand ")):
            print(line, file=sys.stderr, flush=True)

    result = play_match(player, game_obj, host, port, seed=seed, timeout_s=timeout, naming=naming, log=log)
    if results is not None:
        result.save(results)
    n = len(result.hands)
    show(f"{player.name}: {n} hands, {result.total_chips:+g} chips ({_mbb_per_hand(result.total_chips, n, game_obj)}); "
         f"{len(result.errors)} error(s); "
         f"ended: {result.ended}; {result.seconds:.1f} s")
    if results is not None:
        show(f"wrote {results}")
    if result.ended == "interrupted":
        raise typer.Exit(EXIT_INTERRUPTED)
    if not result.complete:
        print(f"error: the match did not complete ({result.ended} after {n} hand(s))", file=sys.stderr, flush=True)
        raise typer.Exit(EXIT_INCOMPLETE)


@reports_errors
def dealer_command(
    game: GameFileOption,
    hands: Annotated[int, typer.Option(help="Hands in the match.")],
    log: Annotated[Path, typer.Option(help="The match log (ACPC STATE lines and a SCORE line), written atomically.")],
    seed: Annotated[int, typer.Option(help="Seeds the deals.")] = 0,
    port0: Annotated[int, typer.Option(min=0, max=65535, help="Port of the match's first player (0: a free one, printed).")] = 0,
    port1: Annotated[int, typer.Option(min=0, max=65535, help="Port of the second player (0: a free one, printed).")] = 0,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    duplicate: Annotated[bool, typer.Option(help="Deal every deal twice, once with each player in each position.")] = False,
    names: Annotated[str, typer.Option(help="The two players' names in the log, comma-separated.")] = "player0,player1",
    timeout: Annotated[float, typer.Option(min=0.001, help="Seconds a player has to answer (then it calls).")] = 10.0,
    start_timeout: Annotated[float, typer.Option(help="Seconds to wait for the players to connect.")] = 600.0,
    param: ParamsOption = [],  # noqa: B006 (typer reads the default, never mutates it)
    cards: CardsOption = "acpc",
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as one JSON object at the end.")] = False,
) -> None:
    """Deal a match between two ACPC clients: prints the two ports, then the score.

    Exits with 1 when the match did not complete (a player did not connect or left); the log keeps the hands played.
    """
    game_obj = _poker_game(game, param)
    pair = [n.strip() for n in names.split(",")]
    if len(pair) != 2:
        raise CommandLineError(f"--names {names!r}: give two names separated by a comma")
    config = DealerConfig(hands, seed, duplicate, (pair[0], pair[1]), timeout, start_timeout, naming=_naming(cards))

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    dealer = Dealer(game_obj, config, ports=(port0, port1), host=host, log_file=log, log=say, describe=str(game))
    print(f"{dealer.ports[0]} {dealer.ports[1]}", flush=True)
    try:
        result = dealer.run()
    except KeyboardInterrupt:
        say(f"interrupted; the hands played so far are in {log}")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    totals = result.totals
    if as_json:
        echo_json({"game": str(game), "hands": len(result.hands), "planned": result.planned, "names": list(result.names),
                   "totals_chips": list(totals), "ended": result.ended, "events": list(result.events), "log": str(log)})
    else:
        played = len(result.hands)
        rate = f" ({_mbb_per_hand(totals[0], played, game_obj)} for {result.names[0]})"
        show(f"{played} of {result.planned} hands: {result.names[0]} {totals[0]:+g}, {result.names[1]} {totals[1]:+g} chips{rate}; "
             f"{len(result.events)} warning(s)/error(s); {result.ended}")
        show(f"wrote {log}")
    if not result.complete:
        raise typer.Exit(EXIT_INCOMPLETE)
