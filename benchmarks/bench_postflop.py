"""subgame against postflop-solver (b-inary) on the same hold'em spots, side by side.

Each spot is solved by ``subgame solve ... --algo ALGO --target 0.5%pot --json`` and by a
postflop-solver driver, alternately (A B A B ...), each run in its own process; the report
gives per spot the median solve seconds, iterations and exploitability each system reports,
their peak RSS (the child process's, read by ``os.wait4``: ours includes the interpreter), the
ratio of postflop-solver's median time to ours (above 1: ours is faster) and of what our
process holds beyond its size when the spot's work began (the interpreter and the libraries,
``rss_at_start_mib``) to postflop-solver's peak (at most 1.5: the goal). The load
average is printed before and after, as absolute times on a shared machine mean little.

The driver is a small program over postflop-solver's public API (``CardConfig``,
``TreeConfig``, ``ActionTree``, ``PostFlopGame``, ``solve_step`` with
``compute_exploitability`` every 10 iterations, as its ``solve`` does) called as
``DRIVER SPOT BETS TARGET_PCT_POT MAX_ITERATIONS RAISE_CAP [compress]``; it applies subgame's raise cap
by removing the action-tree lines past it and prints one JSON line with ``solve_seconds``,
``iterations`` and ``exploitability_pct_pot``. ``SPOT`` is a text file this script writes:
``board``, ``pot``, ``stack`` lines and per player (``oop``, ``ip``) ``XxYy:weight`` tokens
(or ``uniform``). ``--pfs`` takes the built driver, or the driver's Cargo directory (built
here with ``cargo build --release --offline``); without either the script says so and exits.
postflop-solver stores float32 and runs on ``RAYON_NUM_THREADS`` threads (``--threads``); ours
uses the cores it may run on, so fewer than the machine's pins both with ``taskset``. Both stop
at 0.5 % of the pot measured as (BR of OOP + BR of IP) / 2.

Usage::

    python3 benchmarks/bench_postflop.py --pfs PATH --endgames DIR [--spots river,river6] [--reps 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from subgame.games.poker.libratus import STARTING_STACK, read_endgame
from subgame.games.poker.ranges import HANDS, card_name, format_board


@dataclass(frozen=True)
class Spot:
    """One row of the table: an endgame file (or a flop with uniform ranges), bet sizes as pot fractions, raise cap."""

    name: str
    source: str  #: endgame file name, or "flop"
    bets: tuple[str, ...]  #: subgame's --bets entries ("0.5", "allin")
    raise_cap: int


FLOP = ("Js Ks 5c", 100, 150)  #: board, pot, chips behind of the flop spot (uniform ranges)
SPOTS = {
    "river": Spot("subgame4 river, 0.5/1/all-in", "subgame4.txt", ("0.5", "1", "allin"), 3),
    "river6": Spot("subgame4 river, six sizes", "subgame4.txt", ("0.25", "0.5", "0.75", "1", "1.5", "allin"), 3),
    "turn": Spot("subgame2 turn, 1 pot + all-in", "subgame2.txt", ("1", "allin"), 3),
    "turn3": Spot("subgame2 turn, 0.5/1/all-in", "subgame2.txt", ("0.5", "1", "allin"), 3),
    "s1turn": Spot("subgame1 turn, 1 pot + all-in", "subgame1.txt", ("1", "allin"), 3),
    "s1turn3": Spot("subgame1 turn, 0.5/1/all-in", "subgame1.txt", ("0.5", "1", "allin"), 3),
    "flop": Spot("flop Js Ks 5c, 1 pot + all-in, cap 1", "flop", ("1", "allin"), 1),
}


def pfs_bets(bets: tuple[str, ...]) -> str:
    """subgame's sizes in postflop-solver's syntax: pot fractions as percentages, all-in as ``a``."""
    return ",".join("a" if b == "allin" else f"{float(b) * 100:g}%" for b in bets)


def write_spot(spot: Spot, endgames: Path, out: Path) -> None:
    """The spot file the driver reads, from the endgame's board, pot and reach of every hand."""
    if spot.source == "flop":
        board, pot, stack = FLOP
        out.write_text(f"board {board.replace(' ', '')}\npot {pot}\nstack {stack}\noop uniform\nip uniform\n")
        return
    eg = read_endgame(endgames / spot.source)
    lines = [f"board {format_board(eg.board).replace(' ', '')}", f"pot {eg.pot}", f"stack {STARTING_STACK - eg.pot // 2}"]
    for who, r in zip(("oop", "ip"), eg.ranges):
        held = np.flatnonzero(r.weights > 0)
        lines.append(who + " " + " ".join(f"{card_name(int(HANDS[h, 1]))}{card_name(int(HANDS[h, 0]))}:{float(r.weights[h])!r}"
                                          for h in held.tolist()))
    out.write_text("\n".join(lines) + "\n")


def ours_command(spot: Spot, endgames: Path, dtype: str, drop_zero_weight: bool = True, compact: bool = True,
                 algo: str = "dcfr", compute: str = "float64", compress: bool = False) -> list[str]:
    if spot.source == "flop":
        board, pot, stack = FLOP
        game = ["holdem-subgame", "--board", board, "--pot", str(pot), "--stack", str(stack), "--ranges", "uniform"]
    else:
        game = [str(endgames / spot.source)]
    return [sys.executable, "-m", "subgame.cli", "solve", *game, "--bets", ",".join(spot.bets), "--raise-cap",
            str(spot.raise_cap), "--algo", algo, "--target", "0.5%pot", "--dtype", dtype, "--compute", compute, "--json",
            *([] if drop_zero_weight else ["--keep-zero-weight"]), *([] if compact else ["--no-compact"]),
            *(["--compress"] if compress else [])]


GNU_TIME = Path("/usr/bin/time")


def run(cmd: list[str], env: dict[str, str]) -> tuple[dict[str, object], float, float]:
    """The command's JSON line, wall seconds and peak RSS in MiB.

    The peak is GNU time's ``%M`` where it is installed: a process started straight from this
    one counts this interpreter's memory in its peak (Linux keeps the high-water mark of the
    memory it ran in before ``exec``), one started from ``time`` only that small program's.
    """
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err, tempfile.NamedTemporaryFile("r") as peak:
        timed = [str(GNU_TIME), "-f", "%M", "-o", peak.name, *cmd] if GNU_TIME.is_file() else cmd
        start = time.perf_counter()
        proc = subprocess.Popen(timed, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0), err.seek(0)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {err.read().strip()[-400:]}")
        line = next(x for x in reversed(out.read().splitlines()) if x.startswith("{"))
        kib = int(peak.read().split()[-1]) if GNU_TIME.is_file() else usage.ru_maxrss
    return json.loads(line), wall, kib / 1024


def driver(path: Path) -> Path | None:
    """The driver binary: ``path`` itself, or built from the Cargo directory ``path``; None where neither works."""
    if path.is_file() and os.access(path, os.X_OK):
        return path
    if not (path / "Cargo.toml").is_file() or shutil.which("cargo") is None:
        return None
    target = path / "target"
    done = subprocess.run(["cargo", "build", "--release", "--offline"], cwd=path, env={**os.environ, "CARGO_TARGET_DIR": str(target)})
    built = [p for p in (target / "release").iterdir() if p.is_file() and os.access(p, os.X_OK)] if done.returncode == 0 else []
    return built[0] if built else None


def row(name: str, ours: list[tuple[dict[str, object], float, float]], theirs: list[tuple[dict[str, object], float, float]]) -> str:
    """One markdown row: medians of solve seconds, iterations, exploitability and peak RSS, the ratio of times and
    the ratio of our memory beyond the process's start to theirs."""
    def med(runs: list[tuple[dict[str, object], float, float]], key: str) -> float:
        return statistics.median(float(r[0][key]) for r in runs)  # type: ignore[arg-type]

    a, b = med(ours, "seconds"), med(theirs, "solve_seconds")
    rss_a, rss_b = statistics.median(r[2] for r in ours), statistics.median(r[2] for r in theirs)
    beyond = statistics.median(r[2] - float(r[0]["rss_at_start_mib"]) for r in ours)  # type: ignore[arg-type]
    return (f"| {name} | {a:.2f} s, {med(ours, 'iterations'):.0f} it., {med(ours, 'exploitability_pct_pot'):.3f} %, "
            f"{rss_a:.0f} MiB | {b:.2f} s, {med(theirs, 'iterations'):.0f} it., {med(theirs, 'exploitability_pct_pot'):.3f} %, "
            f"{rss_b:.0f} MiB | {b / a:.2f} | {beyond:.1f} ÷ {rss_b:.1f} MiB = {beyond / rss_b:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pfs", type=Path, help="the postflop-solver driver binary, or its Cargo directory")
    parser.add_argument("--endgames", type=Path, help="the folder of the Libratus endgame files (subgame1.txt, ...)")
    parser.add_argument("--spots", default="river,river6", help="comma-separated subset of: " + ",".join(SPOTS))
    parser.add_argument("--reps", type=int, default=3, help="alternated runs of each system per spot (default 3)")
    parser.add_argument("--threads", type=int, default=2, help="threads of each system (default 2)")
    parser.add_argument("--dtype", default="float64", choices=("float64", "float32"), help="our storage (default float64)")
    parser.add_argument("--compute", default="float64", choices=("float64", "float32"),
                        help="the precision our passes compute in (default float64; float32 needs --dtype float32)")
    parser.add_argument("--algo", default="dcfr", choices=("dcfr", "dcfr-postflop", "dcfr+", "dcfr+-postflop", "cfr+", "pcfr+"),
                        help="our update rule (default dcfr; dcfr-postflop is postflop-solver's own; dcfr+-postflop "
                             "DCFR+ with its average of the strategy alone)")
    parser.add_argument("--keep-zero-weight", dest="drop_zero_weight", action="store_false",
                        help="ours keeps a row for every hand (default: only the hands in the ranges, as postflop-solver)")
    parser.add_argument("--no-compact", dest="compact", action="store_false",
                        help="ours pads each node's regrets to the tree's most actions (default: its own actions only, as postflop-solver)")
    parser.add_argument("--compress", action="store_true",
                        help="both store 16-bit regrets and sums (ours: --compress, which needs --algo dcfr-postflop or "
                             "dcfr+-postflop, --dtype float32 --compute float32; postflop-solver: its compression)")
    args = parser.parse_args()
    binary = driver(args.pfs) if args.pfs is not None else None
    if binary is None:
        print("skipped: no postflop-solver driver (give --pfs with the built driver or its Cargo directory; "
              "see benchmarks/README.md)")
        return
    names = args.spots.split(",")
    unknown = [n for n in names if n not in SPOTS]
    if unknown or (args.endgames is None and any(SPOTS[n].source != "flop" for n in names)):
        parser.error(f"unknown spots {unknown}" if unknown else "--endgames is needed for the endgame spots")
    env = {**os.environ, "RAYON_NUM_THREADS": str(args.threads)}
    # ours uses the cores it may run on: fewer threads than the machine's are both pinned to the first cores
    pin = ["taskset", "-c", f"0-{args.threads - 1}"] if args.threads < len(os.sched_getaffinity(0)) else []
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}; {os.cpu_count()} CPUs")
    lines = ["| spot | subgame: solve, iterations, exploitability, peak RSS | postflop-solver: the same | its time ÷ ours "
             "| our memory beyond the start ÷ its peak |", "|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            spot = SPOTS[name]
            spot_file = Path(tmp) / f"{name}.spot"
            write_spot(spot, args.endgames or Path(), spot_file)
            theirs_cmd = [*pin, str(binary), str(spot_file), pfs_bets(spot.bets), "0.5", "1000", str(spot.raise_cap),
                          *(["compress"] if args.compress else [])]
            ours_cmd = pin + ours_command(spot, args.endgames or Path(), args.dtype, args.drop_zero_weight, args.compact,
                                          args.algo, args.compute, args.compress)
            ours, theirs = [], []
            for _ in range(args.reps):
                ours.append(run(ours_cmd, env))
                theirs.append(run(theirs_cmd, env))
            lines.append(row(spot.name, ours, theirs))
            print(lines[-1], flush=True)
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
