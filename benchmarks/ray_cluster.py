"""CFR-D's subgame solves on a two-node Ray cluster on this machine: bitwise the serial run, a killed worker retried.

Starts a Ray head and a second Ray node as separate processes on the loopback address
(``ray start --head`` and ``ray start --address``, one CPU each, every file under a fresh
temporary folder), then on Leduc hold'em:

1. runs CFR-D serially in this process;
2. runs it again with :class:`~subgame.decompose.RayExecutor` joined to the cluster and
   checks the trunk average strategy and the stored root values are bitwise the serial ones;
3. runs it a third time and, during one trunk iteration, kills (SIGKILL) a worker process
   while it runs a subgame solve; Ray runs the task again and the iteration completes with
   the same values, bitwise;
4. prints the peak resident memory of every worker process, per node;
5. runs ``subgame solve --algo cfr-d --ray-address`` against the same cluster, which reports
   its workers' memory itself, and checks the file it writes is bitwise the serial solution.

Then the same for external-sampling MCCFR (:class:`~subgame.solve.mccfr.MCCFRSolver`, W
random streams per pass, one Ray task each) on a larger member of the poker family, so that
a pass lasts long enough to be caught running: a run on the cluster is bitwise the serial
run with the same seed and streams, and so is a run during which a worker is SIGKILLed while
it computes a stream's sample (the task carries its stream's generator, so Ray's retry draws
the same sample and no iteration is lost); ``subgame solve --algo mccfr-es --workers W
--ray-address`` writes the same strategy file, bitwise, as ``--workers W`` run serially.

Every address given to Ray is 127.0.0.1. Ray (2.x, Linux) replaces a loopback address by the
machine's own interface address when it advertises a node, and its servers listen on all
interfaces; the cluster therefore requires token authentication, with a fresh token kept in
the temporary folder and shared by the two nodes and the drivers.

The cluster is stopped at the end, failure included: every process whose command line
names this run's temporary folder (Ray's GCS, raylets and agents) and every child of those
(the workers) gets SIGTERM, then SIGKILL after a bounded wait. Every wait here is bounded.

    PYTHONPATH=src python3 benchmarks/ray_cluster.py
"""

from __future__ import annotations

import argparse
import hashlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import subgame
from subgame.decompose import (
    CFRDConfig,
    CFRDSolution,
    CFRDSolver,
    Executor,
    RayExecutor,
    SerialExecutor,
    TrunkSplit,
    load_cfr_d,
    peak_rss_bytes,
)
from subgame.games import load_game
from subgame.games.base import Game
from subgame.solve.mccfr import EXTERNAL_SAMPLING, MCCFRSolver
from subgame.strategy import Strategy
from subgame.tree.compile import compile_game
from subgame.tree.public_tree import PublicTree

LOOPBACK = "127.0.0.1"
TASK_TITLE = "ray::_ray_measured_call"
"""A Ray worker's process title while it runs a task of :class:`RayExecutor` (``ray::IDLE`` otherwise)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def parent(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return -1
    return int(stat.rsplit(")", 1)[1].split()[1])


def pids() -> list[int]:
    return [int(d) for d in os.listdir("/proc") if d.isdigit()]


def cluster_processes(folder: str) -> tuple[list[int], list[int]]:
    """(Ray's own processes of this cluster, their children): found by this run's temporary folder."""
    everything = pids()
    own = [p for p in everything if folder in cmdline(p) and p != os.getpid()]
    children = [p for p in everything if parent(p) in own and p not in own]
    return own, children


def raylets(folder: str) -> list[int]:
    return [p for p in cluster_processes(folder)[0] if "raylet" in cmdline(p).split(" ", 1)[0]]


def busy_workers(folder: str) -> list[int]:
    """Worker processes of this cluster's raylets running a task now."""
    nodes = raylets(folder)
    return [p for p in pids() if parent(p) in nodes and cmdline(p).startswith(TASK_TITLE)]


def ray_start(args: list[str], env: dict[str, str], timeout: float) -> None:
    done = subprocess.run([sys.executable, "-m", "ray.scripts.scripts", "start", *args], env=env,
                          capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"ray start {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")


def stop_cluster(folder: str, wait: float = 15.0) -> int:
    """SIGTERM every process of this cluster, then SIGKILL what is left after ``wait`` seconds."""
    own, children = cluster_processes(folder)
    targets = children + own
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in targets:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and any(Path(f"/proc/{p}").exists() and cmdline(p) for p in targets):
            time.sleep(0.2)
        targets = [p for p in targets if Path(f"/proc/{p}").exists() and cmdline(p)]
        if not targets:
            break
    return len(own) + len(children)


class Killer(threading.Thread):
    """Waits (until :attr:`done` is set, at most ``timeout`` seconds) for a worker running a task, then SIGKILLs it."""

    def __init__(self, folder: str, timeout: float, during: Callable[[], int] | None = None) -> None:
        super().__init__(daemon=True)
        self.folder, self.timeout, self.during = folder, timeout, during
        self.killed: int | None = None
        self.at: int | None = None  #: what ``during`` said when the worker was killed (the iteration running)
        self.title = ""
        self.done = threading.Event()

    def run(self) -> None:
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline and not self.done.is_set():
            for pid in busy_workers(self.folder):
                title = cmdline(pid)
                if title.startswith(TASK_TITLE):
                    os.kill(pid, signal.SIGKILL)
                    self.killed, self.title = pid, title
                    self.at = self.during() if self.during is not None else None
                    return
            time.sleep(0.01)


def digest(solution: CFRDSolution) -> str:
    h = hashlib.sha256()
    for a in (*solution.average.probs, *solution.root_values):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def same(a: CFRDSolution, b: CFRDSolution) -> bool:
    return all(np.array_equal(x, y) for x, y in zip((*a.average.probs, *a.root_values), (*b.average.probs, *b.root_values)))


def solve(executor: Executor, args: argparse.Namespace, kill: tuple[str, float] | None = None) -> tuple[CFRDSolution, float, Killer | None]:
    config = CFRDConfig(args.subgame_iterations, batch=args.batch)
    solver = CFRDSolver(load_game("leduc", **args.params), TrunkSplit(rounds=1), config, executor=executor)
    started = time.perf_counter()
    killer = None
    for t in range(1, args.iterations + 1):
        if kill is not None and t == args.kill_iteration:
            killer = Killer(*kill)
            killer.start()
        solver.step()
        if killer is not None and t == args.kill_iteration:
            killer.done.set()
            killer.join(args.timeout)
    return solver.solution(), time.perf_counter() - started, killer


def mccfr_state(solver: MCCFRSolver) -> list[np.ndarray]:
    return [*solver.regrets, *solver.strategy_sum]


def mccfr_digest(arrays: list[np.ndarray]) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def same_arrays(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


def solve_mccfr(tree: PublicTree, game: Game, executor: Executor | None, args: argparse.Namespace,
                kill: tuple[str, float] | None = None) -> tuple[MCCFRSolver, float, Killer | None]:
    """External-sampling MCCFR with ``args.streams`` streams; with ``kill``, a busy worker is killed from
    ``args.mccfr_kill_iteration`` on (the first one seen running a task)."""
    solver = MCCFRSolver(tree, EXTERNAL_SAMPLING, seed=args.seed, streams=args.streams, executor=executor, game=game)
    started = time.perf_counter()
    killer = None
    for t in range(1, args.mccfr_iterations + 1):
        if kill is not None and t == args.mccfr_kill_iteration:
            killer = Killer(*kill, during=lambda: solver.iteration)
            killer.start()
        solver.step()
    if killer is not None:
        killer.done.set()
        killer.join(args.timeout)
    return solver, time.perf_counter() - started, killer


def mccfr_on_cluster(ray_ex: RayExecutor, folder: str, port: int, env: dict[str, str], args: argparse.Namespace) -> bool:
    """The MCCFR part: serial, Ray, Ray with a worker killed, and the command line; True when all are bitwise equal."""
    game = load_game("leduc", **args.mccfr_params)
    tree = compile_game(game)
    name = ", ".join(f"{k}={v}" for k, v in args.mccfr_params.items())
    print(f"\nMCCFR (external sampling), leduc {name}: {tree.players[0].num_states + tree.players[1].num_states} "
          f"private states, {args.streams} streams per pass, seed {args.seed}, {args.mccfr_iterations} iterations")
    serial, t_serial, _ = solve_mccfr(tree, game, None, args)
    reference = mccfr_state(serial)
    print(f"serial: {t_serial:.1f} s, regrets and strategy sums sha256 {mccfr_digest(reference)}")
    plain, t_plain, _ = solve_mccfr(tree, game, ray_ex, args)
    print(f"ray:    {t_plain:.1f} s, sha256 {mccfr_digest(mccfr_state(plain))}, "
          f"bitwise equal to serial: {same_arrays(mccfr_state(plain), reference)}")
    killed, t_killed, killer = solve_mccfr(tree, game, ray_ex, args, kill=(folder, args.timeout))
    assert killer is not None
    print(f"ray, worker {killer.killed} ({killer.title!r}) killed during iteration {killer.at}: {t_killed:.1f} s, "
          f"iterations done {killed.iteration}, sha256 {mccfr_digest(mccfr_state(killed))}, "
          f"bitwise equal to serial: {same_arrays(mccfr_state(killed), reference)}")

    files = {}
    for how, extra in (("serial", []), ("ray", ["--ray-address", f"{LOOPBACK}:{port}"])):
        out = Path(folder) / f"mccfr-{how}.npz"
        cli = [sys.executable, "-m", "subgame.cli", "solve", "leduc", *[a for kv in args.mccfr_param for a in ("-p", kv)],
               "--algo", "mccfr-es", "--workers", str(args.streams), "--seed", str(args.seed),
               "-n", str(args.mccfr_iterations), "--checkpoints", "1", *extra, "--out", str(out)]
        print("\n$ subgame " + " ".join(cli[3:-2]) + f" --out mccfr-{how}.npz")
        done = subprocess.run(cli, env=env, capture_output=True, text=True, timeout=args.timeout)
        print("\n".join(line for line in done.stdout.splitlines() if not line.startswith("iteration")))
        if done.returncode != 0:
            raise RuntimeError(f"subgame solve failed:\n{done.stderr}")
        files[how] = list(Strategy.load(out).probs)
    cli_same = same_arrays(files["ray"], files["serial"])
    print(f"the two files' strategies: sha256 {mccfr_digest(files['serial'])} and {mccfr_digest(files['ray'])}, "
          f"bitwise equal: {cli_same}")
    return (same_arrays(mccfr_state(plain), reference) and same_arrays(mccfr_state(killed), reference) and cli_same
            and killer.killed is not None and killed.iteration == args.mccfr_iterations)


def cfr_d_on_cluster(folder: str, port: int, env: dict[str, str], args: argparse.Namespace) -> bool:
    """The CFR-D part: serial, Ray, Ray with a worker killed, worker memory, the command line; True when all agree."""
    serial, t_serial, _ = solve(SerialExecutor(), args)
    print(f"serial: {args.iterations} trunk iterations x {args.subgame_iterations} subgame iterations, "
          f"{t_serial:.1f} s, sha256 {digest(serial)}")

    with RayExecutor(address=f"{LOOPBACK}:{port}", timeout=args.timeout, _node_ip_address=LOOPBACK) as ray_ex:
        import ray

        nodes = [n for n in ray.nodes() if n["Alive"]]
        head = {n["NodeID"]: ("head" if "node:__internal_head__" in n["Resources"] else "node 2") for n in nodes}
        print(f"nodes alive: {len(nodes)}, CPUs: {ray_ex.workers}")
        if len(nodes) != 2:
            raise RuntimeError(f"expected two nodes, found {len(nodes)}")

        plain, t_plain, _ = solve(ray_ex, args)
        print(f"ray:    {t_plain:.1f} s, sha256 {digest(plain)}, bitwise equal to serial: {same(plain, serial)}")

        killed, t_killed, killer = solve(ray_ex, args, kill=(folder, args.timeout))
        assert killer is not None
        print(f"ray, worker {killer.killed} ({killer.title!r}) killed during trunk iteration {args.kill_iteration}: "
              f"{t_killed:.1f} s, iterations done {killed.iterations}, sha256 {digest(killed)}, "
              f"bitwise equal to serial: {same(killed, serial)}")

        workers = ray_ex.worker_memory()
        print("\npeak resident memory per worker process (getrusage, all three Ray runs)")
        print(f"{'node':8} {'node id':14} {'pid':>8} {'tasks':>6} {'peak RSS (MiB)':>15}")
        for w in workers:
            print(f"{head.get(w.node, '?'):8} {w.node[:12]:14} {w.pid:>8} {w.tasks:>6} {w.peak_rss / 2**20:>15.1f}")
        print(f"this driver (trunk, serial run included): peak RSS {peak_rss_bytes() / 2**20:.1f} MiB")
        served = {head.get(w.node) for w in workers}

    # The command line joins the same cluster and reports its workers' memory itself.
    cli = [sys.executable, "-m", "subgame.cli", "solve", "leduc", "--algo", "cfr-d", "-n", str(args.iterations),
           "--subgame-iterations", str(args.subgame_iterations), "--subgame-batch", str(args.batch),
           *[a for kv in args.param for a in ("-p", kv)],
           "--ray-address", f"{LOOPBACK}:{port}", "--out", str(Path(folder) / "leduc-cfr-d.npz")]
    print("\n$ subgame " + " ".join(cli[3:-2]) + " --out leduc-cfr-d.npz")
    done = subprocess.run(cli, env=env, capture_output=True, text=True, timeout=args.timeout)
    print("\n".join(line for line in done.stdout.splitlines() if not line.startswith("iteration")))
    if done.returncode != 0:
        raise RuntimeError(f"subgame solve failed:\n{done.stderr}")
    written = load_cfr_d(Path(folder) / "leduc-cfr-d.npz")
    print(f"its file: sha256 {digest(written)}, bitwise equal to serial: {same(written, serial)}")

    ok = (same(plain, serial) and same(killed, serial) and same(written, serial) and killer.killed is not None
          and killed.iterations == args.iterations and served == {"head", "node 2"})
    print("\nOK: both nodes served tasks; a worker was killed mid-iteration, its task run again; every run "
          "bitwise equal to the serial one" if ok else "\nFAILED")
    return ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--iterations", type=int, default=3, help="CFR-D trunk iterations")
    ap.add_argument("--subgame-iterations", type=int, default=300, help="inner CFR+ iterations per subgame solve")
    ap.add_argument("--batch", type=int, default=3, help="subgames per task")
    ap.add_argument("--kill-iteration", type=int, default=2, help="the trunk iteration during which a worker is killed")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds any one wait may take")
    ap.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                    help="a parameter of the poker family, as 'subgame solve -p' takes it (default: Leduc)")
    ap.add_argument("--parts", default="cfr-d,mccfr", help="what to run on the cluster: cfr-d, mccfr or both")
    ap.add_argument("--mccfr-iterations", type=int, default=8, help="MCCFR iterations")
    ap.add_argument("--mccfr-kill-iteration", type=int, default=4,
                    help="from this MCCFR iteration on, the first worker seen running a task is killed")
    ap.add_argument("--streams", type=int, default=2, help="MCCFR random streams per pass (one Ray task each)")
    ap.add_argument("--seed", type=int, default=7, help="MCCFR seed")
    ap.add_argument("--mccfr-param", action="append", default=None, metavar="KEY=VALUE",
                    help="a parameter of the poker family for MCCFR (default: 6 ranks, 4 suits, 2 hole cards)")
    args = ap.parse_args(argv)
    args.mccfr_param = args.mccfr_param or ["num_ranks=6", "num_suits=4", "hole_cards=2"]
    if any("=" not in kv for kv in args.param + args.mccfr_param):
        ap.error("--param and --mccfr-param take KEY=VALUE")
    args.params = dict(kv.split("=", 1) for kv in args.param)
    args.mccfr_params = dict(kv.split("=", 1) for kv in args.mccfr_param)
    parts = set(args.parts.split(","))
    if not parts or parts - {"cfr-d", "mccfr"}:
        ap.error("--parts takes cfr-d, mccfr or cfr-d,mccfr")
    if not 1 <= args.mccfr_kill_iteration <= args.mccfr_iterations:
        ap.error("--mccfr-kill-iteration must be between 1 and --mccfr-iterations")
    if not 1 <= args.kill_iteration <= args.iterations:
        ap.error("--kill-iteration must be between 1 and --iterations")

    folder = tempfile.mkdtemp(prefix="subgame-ray-")
    # This cluster's own authentication token, in its folder: head, second node and this driver share it.
    token = Path(folder) / "auth_token"
    token.write_text(secrets.token_hex(32))
    token.chmod(0o600)
    os.environ.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=str(token), RAY_USAGE_STATS_ENABLED="0")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(Path(subgame.__file__).resolve().parents[1]), *filter(None, [os.environ.get("PYTHONPATH")])]))
    port = free_port()
    common = ["--node-ip-address", LOOPBACK, "--num-cpus", "1", "--object-store-memory", str(100 * 2**20),
              "--disable-usage-stats"]
    status = 1
    try:
        ray_start(["--head", "--port", str(port), "--temp-dir", folder, "--include-dashboard", "false", *common],
                  env, args.timeout)
        ray_start(["--address", f"{LOOPBACK}:{port}", *common], env, args.timeout)
        game = ", ".join(args.param) or "Leduc"
        print(f"cluster: head {LOOPBACK}:{port} and a second node, 1 CPU each, files under {folder}; game: {game}")
        print(f"raylets (one per node): {raylets(folder)}")

        ok = True
        if "cfr-d" in parts:
            ok = cfr_d_on_cluster(folder, port, env, args)
        if "mccfr" in parts:
            with RayExecutor(address=f"{LOOPBACK}:{port}", timeout=args.timeout, _node_ip_address=LOOPBACK) as ray_ex:
                import ray

                nodes = {n["NodeID"]: ("head" if "node:__internal_head__" in n["Resources"] else "node 2")
                         for n in ray.nodes() if n["Alive"]}
                ok = mccfr_on_cluster(ray_ex, folder, port, env, args) and ok
                served = {nodes.get(w.node) for w in ray_ex.worker_memory()}
                print(f"MCCFR tasks served by: {', '.join(sorted(str(n) for n in served))}")
                ok = ok and served == {"head", "node 2"}
        print("\nOK: both nodes served tasks; a worker was killed mid-iteration, its task run again; every run "
              "bitwise equal to the serial one" if ok else "\nFAILED")
        status = 0 if ok else 1
    finally:
        stopped = stop_cluster(folder)
        left = cluster_processes(folder)
        print(f"cluster stopped: {stopped} processes signalled, {len(left[0]) + len(left[1])} left")
        shutil.rmtree(folder, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
