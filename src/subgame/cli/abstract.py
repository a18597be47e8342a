"""``subgame abstract``: a hand-strength card abstraction of a poker game, written as a bucket file."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ..blueprint.card_abstraction import CardBuckets
from ..games import load_game
from ..games.poker.game import PokerGame
from ..tree.size import human_bytes
from .app import CommandLineError, JsonOption, ParamsOption, echo_json, game_label, parse_params, reports_errors, show


@reports_errors
def abstract_command(
    game: Annotated[str, typer.Argument(help="A poker game (see 'subgame games').")],
    buckets: Annotated[str, typer.Option(help="Buckets per round with new board cards, comma-separated: e.g. 3,5.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Where to write the bucket file (.npz).")],
    param: ParamsOption = [],  # noqa: B006 (typer reads the default, never mutates it)
    bins: Annotated[int, typer.Option(min=1, help="Bins of the hand-strength histograms clustered on earlier rounds.")] = 10,
    seed: Annotated[int, typer.Option(help="Seed of the clustering's k-means++ initialization.")] = 0,
    opponent_clusters: Annotated[int, typer.Option(min=1, help="Opponent clusters of the last round's OCHS features.")] = 8,
    as_json: JsonOption = False,
) -> None:
    """Bucket every (board, hand) pair of each round by hand strength, on canonical boards (suit isomorphism).

    Earlier rounds: EMD clustering of the strength distribution; the last round: k-means on
    the strength against opponent clusters (OCHS); a round asked at least as many buckets as
    it has isomorphism classes (169 preflop on the 52-card deck) is bucketed losslessly.

    Use the file with 'subgame solve GAME --abstraction FILE': the blueprint is solved in
    the abstraction and its exploitability computed exactly in the real game.
    """
    params = parse_params(param)
    try:
        counts = [int(x) for x in buckets.split(",")]
    except ValueError:
        raise CommandLineError(f"--buckets {buckets!r}: give whole numbers separated by commas, e.g. 3,5") from None
    game_obj = load_game(game, **params)
    if not isinstance(game_obj, PokerGame):
        raise CommandLineError(f"{game} is not a poker game; card abstraction is defined for the poker family")
    started = time.perf_counter()
    cb = CardBuckets.build(game_obj, counts, bins=bins, seed=seed, opponent_clusters=opponent_clusters)
    cb.save(out)
    seconds = time.perf_counter() - started
    rounds = [{"board_cards": int(b.shape[1]), "canonical_boards": int(b.shape[0]), "pairs": pairs, "buckets_asked": n,
               "buckets": int(k.max(initial=-1)) + 1}
              for b, k, n, pairs in zip(cb.boards, cb.buckets, cb.num_buckets, cb.pairs())]
    size = out.stat().st_size
    if as_json:
        echo_json({"game": game, "params": params, "bins": bins, "seed": seed, "opponent_clusters": opponent_clusters,
                   "rounds": rounds, "out": str(out), "bytes": size, "seconds": seconds})
        return
    table = Table("board cards", "canonical boards", "(board, hand) pairs", "buckets",
                  title=f"{game_label(game, params)}: card buckets", title_justify="left")
    for r in rounds:
        table.add_row(str(r["board_cards"]), str(r["canonical_boards"]), str(r["pairs"]),
                      f"{r['buckets']} (asked {r['buckets_asked']})")
    show(table)
    show(f"wrote {out} ({human_bytes(size)}, {seconds:.2f} s)")
