"""Nested solving of an off-tree preflop bet of No-Limit Flop Hold'em: a re-solve that holds every flop.

Safe-and-nested §6 re-solves the subgame after each off-tree action of the opponent. After a
preflop bet that subgame holds every flop (22,100 at 52 cards), so it is solved the way the
blueprint of :mod:`.nested_flops` is, by decomposition:

1. **The preflop of the subgame** by board sampling in the blueprint's card abstraction
   (:class:`~subgame.blueprint.board_sampling.BoardSamplingPCS`) on the game that starts at
   the subgame's root (``PokerSpec.start``), with the responder's root range her blueprint
   reach there and the opponent's set by the method's root gadget: her alternative payoffs
   are her counterfactual best-response values ``C̃BV(I)`` at the public state ``h`` before
   the bet, against the blueprint in the abstraction (summed over every flop by the flop
   job), raised by her gifts on the way for the reach methods (§5). The *inexpensive* root is
   right after the bet; the *expensive* one is ``h`` itself with all her actions there (the
   real game's preflop sizes everywhere in the subgame: a spec's sizes are per round), its
   strategy kept only after the bet; unsafe solving fixes her range at her blueprint reach.
   The subgame's flop keeps the abstraction's sizes: her 0.75 bets there are met by nested
   solving again, at the flop.
2. **Each flop below it** over every hand, from that solution (:class:`~.nested_flops.NestedResponses`):
   its strategy there, in buckets, re-solved by ``flop_method``: ``unsafe`` (the default),
   CFR+ in the abstraction from its reaches, the opponent entering with the gadget's average
   range, as the blueprint's flops are made from its preflop; or safely, ``resolve`` or
   ``maxmargin`` with its values as alternative payoffs.

The gadget learns from sampled root values, so its range differs between suit-isomorphic
hands by sampling noise; it is averaged over each preflop class (a range, like any, is a
valid input to the flops' solves), which keeps the flop job's suit classes exact.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..blueprint.board_sampling import BoardSamplingPCS
from ..blueprint.card_abstraction import BucketStrategy, CardBuckets, hand_columns
from ..errors import GameDefinitionError
from ..games.poker import PokerGame
from ..parallel import make_executor
from ..resolving import BetAbstraction, MaxMarginGadget, ResolveGadget, restrict
from ..resolving.nested import off_tree_points
from ..resolving.solving import action_gifts, path_gifts
from ..resolving.translation import public_states
from ..solve import driver
from ..solve.plugins import RootGadget
from ..tree.board_cut import BoardCut
from ..tree.part import at_or_below
from ..tree.poker_compile import state_hands
from ..tree.public_tree import CHANCE_NODE, DECISION, PublicTree
from ..tree.sweep import forward_reach, transition_weights
from .flop_job import trunk_best_response


@dataclass(frozen=True)
class PreflopResolves:
    """How a nested re-solve of a preflop bet is solved: its preflop by board sampling in ``buckets`` (the blueprint's)
    for ``passes`` from ``seed``, ``boards_per_pass`` flops a pass (None: all, a CFR iteration); each flop below it
    by ``flop_method`` from that solution (module docstring). With a ``folder`` each re-solve is written there every
    five minutes, on a stop signal and when it ends, and a job run again with it goes on from there bitwise."""

    buckets: CardBuckets
    passes: int
    seed: int = 0
    boards_per_pass: int | None = 1
    flop_method: str = "unsafe"
    folder: Path | None = field(default=None, compare=False)  #: where each re-solve is checkpointed (resumed from)
    workers: int = field(default=1, compare=False)  #: processes the re-solves of one method run on

    def __post_init__(self) -> None:
        if self.passes < 1 or self.workers < 1 or self.flop_method not in ("unsafe", "resolve", "maxmargin"):
            raise GameDefinitionError(f"preflop re-solves need passes >= 1, workers >= 1 and a flop method unsafe, "
                                      f"resolve or maxmargin, got {self.passes}, {self.workers} and {self.flop_method!r}")


@dataclass(frozen=True, eq=False)
class PreflopSolve:
    """One re-solve of an off-tree preflop bet: its game (started at ``prefix``), the bet's public node in the real
    game's trunk, the responder, and the solution in the card abstraction (every flop's strategy below the bet)."""

    game: PokerGame
    prefix: tuple[str, ...]
    bet: int
    responder: int
    solution: BucketStrategy


@dataclass(frozen=True, eq=False)
class PreflopAnswer:
    """The responder's answer to the opponent's off-tree preflop bets, as arrays of the real game's trunk.

    Attributes:
        rows: per player [I_p, A] her trunk strategy, the responder's re-solved where she meets
            an off-tree bet (the blueprint's elsewhere).
        entering: per player [G_p] her reach at the trunk's deals below her own off-tree bets, as
            the re-solves let her enter them (zero elsewhere): the opponent's range the flops
            below are solved from.
        solves: the re-solves (none for translation).
    """

    rows: tuple[np.ndarray, np.ndarray]
    entering: tuple[np.ndarray, np.ndarray]
    solves: tuple[PreflopSolve, ...] = ()

    def reach(self, trunk: PublicTree) -> tuple[np.ndarray, np.ndarray]:
        """Per player [G_p] her reach in the trunk under :attr:`rows`."""
        r = [forward_reach(trunk, q, transition_weights(trunk, q, self.rows[q])) for q in (0, 1)]
        return r[0], r[1]


def start_game(game: PokerGame, key: Sequence[str], flop_fractions: tuple[float, ...]) -> PokerGame:
    """The game that starts at the preflop public state ``key`` of ``game`` (a trunk key: two deals, then bets), with
    the flop's bet sizes ``flop_fractions``."""
    k = game.spec.hole_cards
    st = game.root()._replace(hole=(tuple(range(-k, 0)), tuple(range(-2 * k, -k))))
    ids = []
    for name in key[2:]:
        match = [a for a in game.legal_actions(st) if game.action_name(st, a) == name]
        if not match:
            raise GameDefinitionError(f"{game.name}: {name!r} is not a preflop action at {list(key)}")
        ids.append(match[0])
        st = game.next_state(st, match[0])
    fractions = (game.spec.fractions(0), tuple(flop_fractions))
    return PokerGame(replace(game.spec, round_bet_fractions=fractions, start=tuple(ids)), name=game.name)


def _node_rows(tree: PublicTree, player: int, node: int, axis: str) -> np.ndarray:
    """[k] ``player``'s private states (``axis="states"``) or information sets at public node ``node``, in order."""
    pa = tree.players[player]
    at = pa.node if axis == "states" else pa.node[pa.infoset_priv]
    return np.flatnonzero(at == node)


def _placed(trunk: PublicTree, part: PublicTree, prefix: tuple[str, ...]) -> np.ndarray:
    """[N_part] the node of ``trunk`` at each node of a trunk of a game started after ``prefix`` (``-1``: none)."""
    return np.array([trunk.node_of_key.get(k[:2] + prefix + k[2:], -1) for k in part.public_key], dtype=np.int64)


def preflop_answers(
    game: PokerGame, abstraction: BetAbstraction, cut: BoardCut, rows: tuple[np.ndarray, np.ndarray],
    totals: tuple[np.ndarray, np.ndarray], method: str, root: str, config: PreflopResolves,
    progress: Callable[[str], None] | None = None, memo: dict[tuple[object, ...], Solved] | None = None,
) -> PreflopAnswer:
    """Both seats' answers by ``method`` (``unsafe``, ``resolve``, ``maxmargin``, ``reach-maxmargin``) at ``root``
    (``inexpensive``, ``expensive``) to every off-tree preflop bet of the opponent (module docstring).

    ``rows`` is the blueprint's trunk strategy on the real game's trunk (zero at off-tree bets), ``totals`` per player
    [C·H] her values against the blueprint summed over every flop (the flop job's). ``progress`` hears of each
    re-solve as it ends. ``memo`` keeps each re-solve by its problem (gadget, root, responder, alternative payoffs)
    across calls: a problem met again, reach-maxmargin's where its gifts are zero, is not solved again.
    """
    if method not in ("unsafe", "resolve", "maxmargin", "reach-maxmargin") or root not in ("inexpensive", "expensive"):
        raise GameDefinitionError(f"preflop nested solving takes unsafe, resolve, maxmargin or reach-maxmargin at an "
                                  f"inexpensive or expensive root, got {method!r} at {root!r}")
    if method == "unsafe" and root == "inexpensive":
        raise GameDefinitionError("unsafe nested solving needs the expensive root (safe-and-nested §6)")
    trunk = cut.trunk
    current = restrict(game, trunk, abstraction)
    reach = [forward_reach(trunk, q, transition_weights(trunk, q, rows[q])) for q in (0, 1)]
    flop = abstraction.abstract_game.spec.fractions(1)
    out_rows = [rows[0].copy(), rows[1].copy()]
    entering = [np.zeros(trunk.players[q].num_states) for q in (0, 1)]
    states = public_states(game, trunk)
    asked: list[tuple[int, int, int, np.ndarray]] = []  # (responder, bet, the re-solve's root, alternative payoffs)
    for p in (0, 1):
        o = 1 - p
        cbv = trunk_best_response(cut, (reach[0], reach[1]), totals, o, current).cbv  # C̃BV: she keeps to the abstraction
        gifts = None if not method.startswith("reach-") else action_gifts(current, o, cbv)
        for h, kids in off_tree_points(trunk, current, o):
            if (st := states[h]) is None or st.round > 0:
                continue  # flop bets are the flop job's
            alt = cbv[_node_rows(trunk, o, h, "states")]
            if gifts is not None:  # her gifts on the way to h, split over the subgames at h's children (§5)
                alt = alt + path_gifts(current, gifts, o, kids, split=True, scale=None)[_node_rows(trunk, o, kids[0], "states")]
            asked.extend((p, c, c if root == "inexpensive" else h, alt) for c in kids)
    memo = {} if memo is None else memo
    games = {at: start_game(game, trunk.public_key[at], flop) for _, _, at, _ in asked}
    sub_trunks = {at: BoardCut.of(sub).trunk for at, sub in games.items()}
    keys = [_problem(method, trunk.public_key[at][2:], p, alt) for p, _, at, alt in asked]
    fresh: dict[tuple[object, ...], PreflopProblem] = {}
    for key, (p, _, at, alt) in zip(keys, asked):
        if key not in memo and key not in fresh:
            root_reach = _root_reach(trunk, sub_trunks[at], trunk.public_key[at][2:], reach)
            fresh[key] = PreflopProblem(games[at], p, root_reach, alt, method, config)
    started = time.perf_counter()
    pool = make_executor("serial" if config.workers == 1 or len(fresh) < 2 else "process", min(config.workers, len(fresh)))
    try:
        with driver.deferred_stop_signals() as stop:  # the workers' re-solves run to their end, each written
            memo.update(zip(fresh, pool.map(solve_preflop, list(fresh.values()))))
            if stop.signum is not None:
                raise KeyboardInterrupt(f"stopped by signal {stop.signum} after the preflop re-solves under way"
                                        + ("" if config.folder is None else f", each written to {config.folder}"))
    finally:
        pool.close()
    seconds = time.perf_counter() - started
    solves = []
    for key, (p, c, at, _) in zip(keys, asked):
        prefix = trunk.public_key[at][2:]
        solution = _place(trunk, sub_trunks[at], prefix, c, p, memo[key], out_rows, entering)
        solves.append(PreflopSolve(games[at], prefix, c, p, solution))
        if progress is not None:
            progress(f"{method} ({root}) re-solved the bet {'/'.join(trunk.public_key[c][2:])} for player {p}: "
                     + (f"{config.passes:,} passes, {seconds:.0f} s for {len(fresh)} re-solve(s) on "
                        f"{min(config.workers, len(fresh))} worker(s)" if key in fresh
                        else "the problem of an earlier re-solve, its solution"))
    return PreflopAnswer((out_rows[0], out_rows[1]), (entering[0], entering[1]), tuple(solves))


#: A preflop re-solve's results: per player its average strategy on the started game's trunk, the opponent's range at its
#: root (the gadget's average, or her blueprint reach) and the solution in the card abstraction.
Solved = tuple[list[np.ndarray], np.ndarray, BucketStrategy]


@dataclass(frozen=True, eq=False)
class PreflopProblem:
    """One preflop re-solve, picklable: the game started at its root, the responder, both players' reaches at the root
    private states, the opponent's alternative payoffs there, the method (its gadget) and how to solve it."""

    game: PokerGame
    responder: int
    root: tuple[np.ndarray, np.ndarray]
    alt: np.ndarray
    method: str
    config: PreflopResolves


def _problem(method: str, prefix: tuple[str, ...], p: int, alt: np.ndarray) -> tuple[object, ...]:
    """What fixes a preflop re-solve (the configuration being the job's): the gadget, the root, the responder and the
    alternative payoffs' bytes (reach-maxmargin's gadget is maxmargin's)."""
    gadget = {"reach-maxmargin": "maxmargin"}.get(method, method)
    return (gadget, prefix, p, None if gadget == "unsafe" else alt.tobytes())


def _root_reach(trunk: PublicTree, sub_trunk: PublicTree, prefix: tuple[str, ...],
                reach: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Per player her reach in the real game's ``trunk`` at the root private states of ``sub_trunk`` (the trunk of a
    game started after ``prefix``)."""
    at = int(_placed(trunk, sub_trunk, prefix)[int(np.flatnonzero(sub_trunk.parent < 0)[0])])
    return reach[0][_node_rows(trunk, 0, at, "states")], reach[1][_node_rows(trunk, 1, at, "states")]


def _place(trunk: PublicTree, sub_trunk: PublicTree, prefix: tuple[str, ...], bet: int, p: int, solved: Solved,
           rows: list[np.ndarray], entering: list[np.ndarray]) -> BucketStrategy:
    """Write the re-solve's strategy (on ``sub_trunk``, the trunk of the game started after ``prefix``) for responder
    ``p`` below the bet (public node ``bet`` of the trunk) into ``rows`` and the opponent's reach at the deals below it
    into ``entering``; the solution in the card abstraction."""
    o = 1 - p
    node = _placed(trunk, sub_trunk, prefix)
    strategy, opp_root, solution = solved
    opp_reach = forward_reach(sub_trunk, o, transition_weights(sub_trunk, o, strategy[o]), opp_root)
    below = at_or_below(trunk, [bet])  # the bet's subtree: what the re-solve is kept for
    for n_sub in map(int, np.flatnonzero(node >= 0)):
        n = int(node[n_sub])
        if not below[n]:
            continue
        if trunk.kind[n] == DECISION and trunk.actor[n] == p:
            put_rows(rows[p], trunk, p, n, strategy[p], sub_trunk, n_sub)
        elif trunk.kind[n] == CHANCE_NODE:  # a deal: the flops below are solved from her reach here
            entering[o][_node_rows(trunk, o, n, "states")] = opp_reach[_node_rows(sub_trunk, o, n_sub, "states")]
    return solution


def solve_preflop(problem: PreflopProblem) -> Solved:
    """The board-sampling re-solve of a preflop problem (checkpointed in its ``config.folder``, resumed from it)."""
    sub, p, root, alt, method, config = problem.game, problem.responder, problem.root, problem.alt, problem.method, \
        problem.config
    o = 1 - p
    sub_trunk = BoardCut.of(sub).trunk
    prefix = tuple(sub.start_names)
    buckets = config.buckets.for_game(sub)
    gadget: RootGadget | None = None
    if method == "resolve":
        gadget = ResolveGadget(o, alt.copy())
    elif method != "unsafe":
        gadget = MaxMarginGadget(o, alt.copy())
    path = None if config.folder is None else config.folder / f"{method}-{'_'.join(prefix) or 'root'}-{p}.npz"
    if path is not None and path.exists():  # a re-solve of an earlier start of the job: it goes on from there
        solver = BoardSamplingPCS.load_checkpoint(path, sub, buckets, root_reach=(root[0], root[1]), gadget=gadget)
    else:
        solver = BoardSamplingPCS(sub, buckets, seed=config.seed, boards_per_pass=config.boards_per_pass,
                                  root_reach=(root[0], root[1]), gadget=gadget)
    if solver.iteration < config.passes:
        run = driver.run(solver, driver.Budget(iterations=config.passes), checkpoint=path,
                         checkpoint_every=driver.Cadence(seconds=300))
        if run.interrupted:
            raise KeyboardInterrupt(f"a stop signal ended the preflop re-solve {method} for player {p} after "
                                    f"{solver.iteration:,} of {config.passes:,} passes"
                                    + ("" if path is None else f", written to {path}: run again with that folder"))
        if path is not None:
            solver.save_checkpoint(path)
    strategy = solver.average_strategy().probs
    if gadget is None:
        opp_root = root[o]
    else:  # averaged over each preflop class (module docstring)
        columns = hand_columns(sub, buckets)[state_hands(sub, sub_trunk, o)][sub_trunk.root_slice[o]]
        bucket = buckets.hand_buckets(())[columns]
        opp_root = (np.bincount(bucket, weights=solver.average_root_range()) / np.bincount(bucket))[bucket]
    return [strategy[0], strategy[1]], opp_root, solver.blueprint()


def place_solution(solve: PreflopSolve, forest: PublicTree, flop: tuple[int, ...], probs: list[np.ndarray],
                   lines: np.ndarray) -> None:
    """Write the re-solve's strategy at ``flop`` (its card abstraction's) into ``probs`` (per player [I, A] of the real
    game's ``forest`` at that flop) at the nodes below its bet, and mark those nodes in ``lines`` [N]."""
    part = BoardCut.of(solve.game).forest([flop])
    if part is None:
        return
    node = _placed(forest, part.tree, solve.prefix)
    placed = np.flatnonzero(node >= 0)
    lines[node[placed]] = True
    for q in (0, 1):
        rows = solve.solution.rows(solve.game, part.tree, q)
        for n_sub in map(int, placed):
            if part.tree.kind[n_sub] == DECISION and part.tree.actor[n_sub] == q:
                put_rows(probs[q], forest, q, int(node[n_sub]), rows, part.tree, n_sub)


def put_rows(probs: np.ndarray, tree: PublicTree, player: int, node: int, rows: np.ndarray, source: PublicTree,
             at: int) -> None:
    """Write ``player``'s rows [I_source, A] at public node ``at`` of ``source`` into ``probs`` [I, A] at ``node`` of
    ``tree``, the same public state with the hands in the same order: each bet in the slot of its name there (other
    bet sizes, zero), so the trees may have other bet sizes.

    Raises:
        GameDefinitionError: the nodes hold other hands.
    """
    mine, theirs = _node_rows(tree, player, node, "infosets"), _node_rows(source, player, at, "infosets")
    if mine.size != theirs.size:
        raise GameDefinitionError(f"public state {list(tree.public_key[node])} holds other hands in the two trees")
    names = tree.players[player].action_names[mine[0]]
    slots = np.array([names.index(a) for a in source.players[player].action_names[theirs[0]]], dtype=np.int64)
    probs[mine] = 0.0
    probs[np.ix_(mine, slots)] = rows[theirs, : slots.size]
