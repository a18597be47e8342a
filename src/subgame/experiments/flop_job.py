"""Re-solving every flop of flop hold'em as a job: one task per flop, checkpointed, resumable, sampled.

Brown & Sandholm 2017 (§7, Tables 1 and 2) re-solve each flop subgame of No-Limit Flop
Hold'em right after the flop cards and measure the exact exploitability of the combined
strategy. A best response composes over the flop deal (the board pass of
:mod:`subgame.eval.board_pass`): the best responder's counterfactual best-response value at
a hand of a deal's chance node is the sum over the flops of her values at the flop's
subgame roots, and those depend only on the opponent's reach of the chance node (the
blueprint's: re-solving never changes the preflop strategy) and on both strategies in that
flop. So each flop is one independent task: compile its forest, re-solve it for both players
with every method, keep the best responders' root values per (chance node, hand), and drop
the forest. One best-response pass over the trunk with the summed values gives each method's
exploitability exactly.

A finished flop is a small file in the checkpoint folder (written atomically); a job run
again with the same folder skips the flops already there, so an interrupted run resumes. Each
method's values there are named by what they rest on (:meth:`FlopMethods.method_identity`), so
a job with another method, or another setting of one, reads back the others' values.
A sample of K flops (seeded, without replacement) gives an estimate with a control variate:
the blueprint's values are computed at every flop (a best-response pass per flop, no
re-solving: the cheap part), and only the difference a method makes is sampled, so each
method's sum over all N flops is the blueprint's exact sum plus N/K times the sampled
differences (unbiased at every hand). A plug-in may name another method as the control
(:attr:`FlopMethods.control`), valued at every flop too and then exact itself. The trunk's best response is taken against that. It
overestimates for small K (a best response maximises over the sampling noise), and so do
its bootstrap resamples of the sampled flops, by about as much again: the interval is the
basic (reflected) bootstrap interval, 2·estimate minus the resamples' 97.5 and 2.5 %
quantiles, which corrects for that bias. The estimate is exact when K = N.

Each re-solve is the one the paper describes: the re-solver's root range is her blueprint
reach, the opponent's alternative payoffs are her counterfactual best-response values
against the blueprint at the flop roots (chance from the game's root included), and the
gadget is unsafe (the opponent's range fixed at her blueprint reach), resolve or maxmargin;
estimate and distributional start from her counterfactual values under the blueprint instead
(§5, Appendix C). Each problem is :func:`~subgame.resolving.solving.blueprint_problem`'s from
the blueprint's values on the flop's forest. Other plug-ins (:class:`FlopMethods`) measure
other strategies the same way, such as nested solving (:mod:`.nested_flops`).
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np

from ..errors import SubgameError
from ..eval.best_response import BestResponse, Exploitability, best_response_to_reach
from ..eval.board_pass import (
    BoardClasses,
    RowSource,
    _board_values,  # the board pass's values of a batch of flops: the same step, shared
    check_board_symmetry,
    check_reach_symmetry,
    strategy_rows,
)
from ..files import read_npz, read_npz_names, write_npz
from ..games.poker import PokerGame
from ..parallel import make_executor
from ..resolving import resolve_subgame
from ..resolving.problem import problem_key
from ..resolving.solving import METHODS, action_gifts, blueprint_problem, blueprint_values, path_gifts
from ..solve.cfr import CFR_PLUS
from ..solve.driver import deferred_stop_signals
from ..strategy import Strategy
from ..tree.board_cut import BoardCut, BoardForest
from ..tree.part import Part
from ..tree.public_tree import PublicTree
from ..tree.sweep import forward_reach, transition_weights

#: The methods a flop is re-solved with: every one of :data:`~subgame.resolving.solving.METHODS`. The reach methods'
#: gifts are the opponent's preflop actions', from the blueprint's values at every flop (:func:`trunk_gifts`).
FLOP_METHODS: tuple[str, ...] = tuple(METHODS)
#: Per gift mode of :class:`~subgame.resolving.solving.Method` ("split", "whole"), per player [C·H] her gifts above the
#: flop at each (chance node, hand) of the trunk.
TrunkGifts = dict[str, tuple[np.ndarray, np.ndarray]]
FLOP_FORMAT, FLOP_VERSION = "subgame-flop-values", 1
FLOP_EXPECTED = "a finished flop of a re-solving job"
#: Bootstrap resamples of the sampled flops behind an estimate's interval.
BOOTSTRAP = 200


class TreeRows:
    """A blueprint given as a whole-game strategy, as a picklable :data:`RowSource` (small games)."""

    def __init__(self, tree: PublicTree, strategy: Strategy) -> None:
        self.tree, self.strategy = tree, strategy
        self._rows: RowSource | None = None

    def __call__(self, tree: PublicTree, player: int) -> np.ndarray:
        if self._rows is None:
            self._rows = strategy_rows(self.tree, self.strategy)
        return self._rows(tree, player)

    def __getstate__(self) -> dict[str, Any]:
        return {"tree": self.tree, "strategy": self.strategy, "_rows": None}


#: Flops per forest where only the blueprint is evaluated (the board pass's fastest batch).
EVALUATION_BATCH = 8


@runtime_checkable
class FlopMethods(Protocol):
    """What a flop job measures at each flop, the plug-in of :func:`run_flop_job`.

    Called with a flop's forest and both players' reaches of its roots, it returns per player
    ``p`` her best-response values at the roots, by (chance node, hand) ([C·H],
    :func:`br_values`), against the blueprint (``"blueprint/p"``) and against each method
    asked (``"METHOD/p"``). The values must depend only on the flop and those reaches, so that
    a suit-permuted flop has permuted values (:class:`~subgame.eval.board_pass.BoardClasses`).
    A stop signal that cuts a computation short raises :class:`KeyboardInterrupt`.
    """

    @property
    def names(self) -> tuple[str, ...]:
        """The methods, in table order."""

    @property
    def identity(self) -> list[Any]:
        """What names this whole computation (JSON): in messages, and in the checkpoints of this job's first format."""

    def method_identity(self, method: str) -> list[Any]:
        """What names ``method``'s values at a flop in the checkpoints (JSON), beyond the game and the blueprint; of
        ``"blueprint"``: what every method's values rest on. A flop's values are read back only under the same, so a
        folder is never resumed with another computation, and a method added or changed leaves the others' values."""

    @property
    def rows_blueprint(self) -> bool:
        """Whether the blueprint at a flop is the job's row source's (then the board pass evaluates it, flops batched)."""

    @property
    def gift_modes(self) -> tuple[str, ...]:
        """The gift modes ("split", "whole") its methods take from the trunk: the job then evaluates the blueprint at
        every flop first and passes :func:`trunk_gifts` to each call."""

    @property
    def blueprint_first(self) -> bool:
        """Whether it needs the blueprint's values at every flop before re-solving any (:meth:`prepare`)."""

    @property
    def control(self) -> str:
        """The method valued at every flop beside the blueprint, whose sums are then exact and whose values are the
        control variate of the other methods' sampled estimates; ``"blueprint"``: none but the blueprint. A method
        whose strategy is closer to the others' than the blueprint's (one valued in its own abstraction, say) leaves
        less to sampling."""

    @property
    def splices(self) -> tuple[Splice, ...]:
        """Strategies put together from two of its methods, measured from their values without a re-solve (after
        :meth:`prepare`)."""

    def prepare(self, cut: BoardCut, rows: RowSource, reach: tuple[np.ndarray, np.ndarray],
                totals: tuple[np.ndarray, np.ndarray] | None) -> FlopMethods:
        """Itself ready to measure, given the job's blueprint and its trunk reaches: the job calls it before any flop
        with ``totals`` None, and where :attr:`blueprint_first` once more before the re-solves with per player [C·H]
        her values against the blueprint summed over every flop."""

    def trunk(self, method: str) -> Trunk | None:
        """Where ``method`` (or ``"blueprint"``) plays another trunk than the job's row source: the trunk its best
        responders face and its players' reaches there; ``None``: the row source's."""

    def __call__(self, cut: BoardCut, part: BoardForest, root: Sequence[np.ndarray], rows: RowSource,
                 methods: tuple[str, ...], gifts: TrunkGifts | None = None) -> dict[str, np.ndarray]: ...


@dataclass(frozen=True, eq=False)
class Trunk:
    """A method's own trunk: where re-solving changes the preflop (nested solving of a preflop off-tree bet) or where
    the best responder is held to an abstraction (the blueprint's own exploitability)."""

    tree: PublicTree  #: the cut's trunk, or it restricted (:func:`~subgame.resolving.translation.restrict`)
    reach: tuple[np.ndarray, np.ndarray]  #: per player [G_p] her reach there under the method's trunk strategy


@dataclass(frozen=True, eq=False)
class Splice:
    """A strategy put together from two methods of a plug-in: ``inner`` at the flops below the trunk's chance nodes
    in ``rows``, ``outer`` in the trunk and at every other flop.

    A best responder's values at a flop's roots are per chance node of the trunk, so the spliced strategy's are
    ``inner``'s in those rows and ``outer``'s in the others: it is measured without a re-solve, exactly where both
    methods' players reach the chance nodes in ``rows`` alike (``inner``'s values there rest on those reaches).
    """

    name: str
    inner: str
    outer: str
    rows: np.ndarray  #: [C] bool: the chance nodes of the trunk (:attr:`~subgame.tree.board_cut.BoardCut.chance`)

    def values(self, inner: np.ndarray, outer: np.ndarray) -> np.ndarray:
        """A player's [C·H] values of the spliced strategy from ``inner``'s and ``outer``'s (or any rows laid out so)."""
        C = len(self.rows)
        return np.where(self.rows[:, None], inner.reshape(C, -1), outer.reshape(C, -1)).ravel()


@dataclass(frozen=True)
class GadgetResolves:
    """Each flop re-solved for both players with a root gadget from the blueprint's values (module docstring)."""

    methods: tuple[str, ...]
    iterations: int

    @property
    def names(self) -> tuple[str, ...]:
        return self.methods

    @property
    def identity(self) -> list[Any]:
        return [list(self.methods), self.iterations]

    def method_identity(self, method: str) -> list[Any]:
        return [] if method == "blueprint" else [self.iterations]

    @property
    def rows_blueprint(self) -> bool:
        return True

    @property
    def gift_modes(self) -> tuple[str, ...]:
        return tuple(sorted({METHODS[m].gifts for m in self.methods} - {"none"}))

    @property
    def blueprint_first(self) -> bool:
        return bool(self.gift_modes)

    @property
    def control(self) -> str:
        return "blueprint"  # the blueprint is the row source, valued by the board pass (the cheap part)

    @property
    def splices(self) -> tuple[Splice, ...]:
        return ()

    def prepare(self, cut: BoardCut, rows: RowSource, reach: tuple[np.ndarray, np.ndarray],
                totals: tuple[np.ndarray, np.ndarray] | None) -> GadgetResolves:
        return self  # the gifts are the job's (trunk_gifts)

    def trunk(self, method: str) -> Trunk | None:
        return None  # a flop re-solve never changes the preflop

    def __call__(self, cut: BoardCut, part: BoardForest, root: Sequence[np.ndarray], rows: RowSource,
                 methods: tuple[str, ...], gifts: TrunkGifts | None = None) -> dict[str, np.ndarray]:
        forest = part.tree
        blueprint = [rows(forest, p) for p in (0, 1)]
        bp = br_values(cut, part, blueprint, root)
        values = {"blueprint/0": bp[0], "blueprint/1": bp[1]}
        if not methods:
            return values
        bv = blueprint_values(forest, Strategy(forest.game_id, (blueprint[0], blueprint[1])), (root[0], root[1]))
        whole = Part.whole(forest)
        # a problem met again is not solved again: where a flop's gifts are zero, a reach method's problems are, bit for
        # bit, its counterpart's (gifts added are zeros), and so are its strategies and values
        solved: dict[tuple[object, ...], np.ndarray] = {}
        valued: dict[tuple[tuple[object, ...], ...], tuple[np.ndarray, np.ndarray]] = {}
        for method in methods:
            mode = METHODS[method].gifts
            if mode != "none" and (gifts is None or mode not in gifts):
                raise SubgameError(f"{method}: its gifts are the preflop's; the job gives them (trunk_gifts)")
            resolved, keys = [], []
            for p in (0, 1):
                above = None if mode == "none" else gifts[mode][1 - p][cut.cells[1 - p][part.gather[1 - p]]]  # type: ignore[index]
                problem = blueprint_problem(bv, whole, p, method, gifts_above=above)
                key = problem_key(problem)
                if key not in solved:
                    solution = resolve_subgame(problem, iterations=self.iterations, config=CFR_PLUS)
                    if solution.iterations < self.iterations:  # a stop signal cut it: the flop is not finished, nor written
                        raise KeyboardInterrupt("a stop signal ended a re-solve early")
                    solved[key] = solution.probs
                resolved.append(solved[key])
                keys.append(key)
            pair = (keys[0], keys[1])
            if pair not in valued:
                v = br_values(cut, part, resolved, root)
                valued[pair] = (v[0], v[1])
            values[f"{method}/0"], values[f"{method}/1"] = valued[pair]
        return values


@dataclass(frozen=True, eq=False)
class FlopTask:
    """Measure every method at one flop, or the blueprint alone at one or (a row-source blueprint) several flops."""

    cut: BoardCut
    rows: RowSource  #: the blueprint, picklable (e.g. :class:`TreeRows`, a bucket blueprint's rows)
    reach: tuple[np.ndarray, np.ndarray]  #: per player [G_p] of the trunk, the blueprint's reach
    deals: tuple[int, ...]  #: indices of the flops in ``cut.deals``: one to measure, or a batch to evaluate
    plugin: FlopMethods
    methods: tuple[str, ...]  #: the plug-in's methods to measure here (none: the blueprint alone, or its control)
    folder: Path | None  #: where each finished flop is written, or None
    header: dict[str, Any]  #: the job's identity, written with each flop
    gifts: TrunkGifts | None = None  #: the trunk's gifts, for methods that take them


def _root_values(cut: BoardCut, part: BoardForest, p: int, cbv: np.ndarray) -> np.ndarray:
    """[C·H] player ``p``'s values at the forest's root states, by (chance node, hand)."""
    C, H = cut.state_at[p].shape
    rs = part.tree.root_slice[p]
    return np.bincount(cut.cells[p][part.gather[p]], weights=cbv[rs], minlength=C * H)


def br_values(cut: BoardCut, part: BoardForest, rows: Sequence[np.ndarray], root: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Per player [C·H] her best-response values at the roots against the other's ``rows`` in the forest."""
    forest = part.tree
    out = []
    for p in (0, 1):
        o = 1 - p
        reach_o = forward_reach(forest, o, transition_weights(forest, o, rows[o]), root[o])
        out.append(_root_values(cut, part, p, best_response_to_reach(forest, p, reach_o, want_policy=False).cbv))
    return out


def flop_values(task: FlopTask) -> list[dict[str, np.ndarray]]:
    """Per flop of the task ``{"METHOD/p": [C·H]}`` for the blueprint and every method (module docstring); each written."""
    cut = task.cut
    if task.methods or not task.plugin.rows_blueprint:
        out = [_measured(task, deal) for deal in task.deals]
    else:
        values, _ = _board_values(cut, [cut.deals[d] for d in task.deals], task.rows, task.reach, measure=False)
        out = [{"blueprint/0": values[0][i], "blueprint/1": values[1][i]} for i in range(len(task.deals))]
    if task.folder is not None:
        for deal, flop in zip(task.deals, out):
            _write_flop(task.folder, deal, task.header, flop)
    return out


def _measured(task: FlopTask, deal: int) -> dict[str, np.ndarray]:
    """The plug-in's values at one flop (zeros where the trunk holds every subgame of the flop: all-in before it)."""
    cut = task.cut
    C, H = cut.state_at[0].shape
    part = cut.forest([cut.deals[deal]])
    if part is None:
        return {f"{m}/{p}": np.zeros(C * H) for m in ("blueprint", *task.methods) for p in (0, 1)}
    root = [task.reach[p][part.gather[p]] for p in (0, 1)]
    try:
        return task.plugin(cut, part, root, task.rows, task.methods, task.gifts)
    except KeyboardInterrupt as stop:
        raise KeyboardInterrupt(f"flop {deal}: {stop}") from None


@dataclass(frozen=True)
class FlopEstimate:
    """One method's exploitability over the flops done: exact when every flop was, else an estimate and its interval."""

    method: str
    exploitability: float  #: NashConv / 2 in chips
    low: float  #: lower end of the basic bootstrap 95 % interval (equal to ``exploitability`` when exact)
    high: float  #: upper end


@dataclass(frozen=True)
class FlopJobResult:
    """What a job found: each method's exploitability, the flops it rests on, and the time it took."""

    estimates: tuple[FlopEstimate, ...]
    flops: int  #: flops whose re-solves the estimates rest on (sampled, or all)
    total_flops: int  #: flops dealt at the cut
    resumed: int  #: re-solved flops read back from the checkpoint folder
    seconds: float  #: wall time of this run
    seconds_per_flop: float  #: wall time per flop re-solved (and evaluated) in this run (0 if none)
    classes: int  #: flops standing for every flop (one per suit class, or every flop without isomorphism): all that
    #: re-solving every flop re-solves
    plugin: FlopMethods | None = None  #: the plug-in as it measured (after :meth:`FlopMethods.prepare`)

    @property
    def exact(self) -> bool:
        return self.flops == self.total_flops


def trunk_gifts(cut: BoardCut, reach: tuple[np.ndarray, np.ndarray], base: Sequence[np.ndarray],
                modes: Sequence[str]) -> TrunkGifts:
    """Per gift mode, per player [C·H]: the gifts of her preflop actions on the path to each (chance node, hand) (§5, eq. 1).

    Her counterfactual best-response values in the trunk come from one best-response pass with
    ``base[p]`` (her values against the blueprint summed over every flop) at the chance nodes,
    as the whole game's would; each action's gift is :func:`~subgame.resolving.solving.action_gifts`'.
    Split, a gift is shared among every flop subgame's root information set below it: a
    chance-node state stands for one per flop its hand leaves (:func:`~subgame.resolving.solving.path_gifts`).
    """
    trunk, spec = cut.trunk, cut.game.spec
    flops_per_hand = math.comb(spec.deck_size - len(spec.board) - spec.hole_cards, cut.size)
    roots = cut.chance[~cut.trunk_holds(cut.deals[0])]  # after an all-in the trunk holds the showdowns: no subgames
    gift = [action_gifts(trunk, p, trunk_best_response(cut, reach, base, p).cbv) for p in (0, 1)]
    out: TrunkGifts = {}
    for mode in modes:
        per = []
        for p in (0, 1):
            total = path_gifts(trunk, gift[p], p, roots, split=mode == "split", scale=None, per_root=flops_per_hand)
            valid = cut.state_at[p] >= 0
            cells = np.zeros(cut.state_at[p].size)
            cells[np.flatnonzero(valid.ravel())] = total[cut.state_at[p][valid]]
            per.append(cells)
        out[mode] = (per[0], per[1])
    return out


def trunk_best_response(cut: BoardCut, reach: tuple[np.ndarray, np.ndarray], totals: Sequence[np.ndarray],
                         p: int, trunk: PublicTree | None = None) -> BestResponse:
    """Player ``p``'s best response in the trunk (``trunk``: it restricted) with ``totals[p]`` [C·H] (her values
    summed over the flops) at its chance nodes."""
    leaf = np.zeros(cut.trunk.players[p].num_states)
    valid = cut.state_at[p] >= 0
    leaf[cut.state_at[p][valid]] = totals[p].reshape(cut.state_at[p].shape)[valid]
    return best_response_to_reach(cut.trunk if trunk is None else trunk, p, reach[1 - p], leaf_cfv=leaf, want_policy=False)


def _trunk_exploitability(cut: BoardCut, reach: tuple[np.ndarray, np.ndarray], totals: Sequence[np.ndarray],
                          own: Trunk | None = None) -> float:
    """NashConv / 2 with ``totals[p]`` [C·H] (summed flop values) at the trunk's chance nodes (``own``: a method's trunk)."""
    tree, reach = (None, reach) if own is None else (own.tree, own.reach)
    br = [trunk_best_response(cut, reach, totals, p, tree).value for p in (0, 1)]
    return Exploitability((br[0], br[1])).exploitability


def _class_totals(cut: BoardCut, classes: BoardClasses, values_of: Callable[[int, Sequence[str]], dict[str, np.ndarray]],
                  keys: Sequence[str]) -> dict[str, np.ndarray]:
    """Per key ``"METHOD/p"`` [C·H]: the sum over every flop of player ``p``'s values (the blueprint's, or a
    re-solve's), from the compiled flops' ``values_of(deal, keys)``, read one flop at a time in their order: one
    flop's values are in memory at once, and the sum is the same however the job was stopped and resumed.

    A flop ``F`` with ``π_q(F) = F*`` has at hand ``h`` the values of ``π_q(h)`` at ``F*``
    (:class:`~subgame.eval.board_pass.BoardClasses`); without isomorphism every flop is compiled and ``q`` = 0.
    """
    by_player = {p: [key for key in keys if key.endswith(f"/{p}")] for p in (0, 1)}
    Q = classes.weight.shape[1]
    per_q = {p: np.zeros((Q, len(ks), *cut.state_at[p].shape)) for p, ks in by_player.items()}  # before π_q
    for row, deal in enumerate(classes.compiled):
        values, perms = values_of(int(deal), keys), np.flatnonzero(classes.weight[row])
        for p, ks in by_player.items():
            if ks:
                stacked = np.stack([values[key] for key in ks]).reshape(per_q[p].shape[1:])
                for q in perms:
                    per_q[p][q] += classes.weight[row, q] * stacked
    totals = {p: sum((per_q[p][q][:, :, classes.hand_perm[q]] for q in range(Q)), np.zeros(per_q[p].shape[1:]))
              for p in (0, 1)}
    return {key: totals[p][i].ravel() for p, ks in by_player.items() for i, key in enumerate(ks)}


class Eta(NamedTuple):
    """The time a job has left: ``seconds`` for the flops of a kind (re-solved, or valued only) already timed, and
    ``untimed`` flops of a kind not timed yet."""

    seconds: float
    untimed: int = 0


#: Batches of a kind whose times give a job's rate for the time it has left: the recent ones, so that a pause or a
#: busier hour earlier in a run of many hours stops counting.
RECENT_BATCHES = 8


def _seconds_left(recent: dict[bool, deque[tuple[float, int]]], left: Sequence[FlopTask],
                  resolving: Callable[[FlopTask], bool]) -> Eta:
    """The time the ``left`` tasks should take at the rates of the recent batches (seconds and flops of each, by
    ``resolving``: whether a task re-solves)."""
    rate = {kind: sum(s for s, _ in batches) / count for kind, batches in recent.items()
            if (count := sum(n for _, n in batches))}
    kinds = [(len(t.deals), rate.get(resolving(t))) for t in left]
    return Eta(sum(n * r for n, r in kinds if r is not None), sum(n for n, r in kinds if r is None))


def eta_text(eta: Eta) -> str:
    """A progress line's time left: ``about 12.3 min left``, with the flops not timed yet, or that it is not known."""
    if eta.untimed and not eta.seconds:
        return "time left known after the first flops of each kind"
    return f"about {eta.seconds / 60:.1f} min left" + (f" and {eta.untimed:,} flop(s) of a kind not timed yet"
                                                       if eta.untimed else "")


def _hash(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(list(parts), sort_keys=True, default=list).encode()).hexdigest()[:16]


def _identity(game: PokerGame, plugin: FlopMethods, blueprint_id: str) -> dict[str, Any]:
    """A flop file's header: the job's hash (the game, the blueprint, what every method rests on) and each method's."""
    return {"job": _hash(game.name, game.params, blueprint_id, plugin.method_identity("blueprint")),
            "methods": {m: _hash(plugin.method_identity(m)) for m in plugin.names}, "identity": repr(plugin.identity),
            "first": _hash(game.name, game.params, plugin.identity, blueprint_id)}  # the whole job's, in a first-format file


def _read_flop(path: Path, identity: dict[str, Any], only: Sequence[str] | None = None) -> tuple[int, dict[str, np.ndarray]]:
    """A finished flop's deal and values (``only``: these) from the checkpoint folder (refused where another job wrote it;
    a method's values computed otherwise left out)."""
    header, arrays = read_npz(path, format=FLOP_FORMAT, version=FLOP_VERSION, kind="flop checkpoint", expected=FLOP_EXPECTED,
                              only=only)
    deal, valid = _flop_deal(path, header, identity, arrays)
    return deal, {name: arrays[name] for name in valid}


def _flop_names(path: Path, identity: dict[str, Any]) -> tuple[int, frozenset[str]]:
    """A finished flop's deal and the names of its values that this job reads, none read; a file of the first format
    (one hash of the whole job) that this job wrote is rewritten with a hash per method on the way."""
    header, names = read_npz_names(path, format=FLOP_FORMAT, version=FLOP_VERSION, kind="flop checkpoint",
                                   expected=FLOP_EXPECTED)
    deal, valid = _flop_deal(path, header, identity, names)
    if not isinstance(header.get("methods"), dict):  # the first format (another job's was refused)
        _write_flop(path.parent, deal, identity, _read_flop(path, identity)[1])
    return deal, valid


def _flop_deal(path: Path, header: dict[str, Any], identity: dict[str, Any], names: Iterable[str]) -> tuple[int, frozenset[str]]:
    """A flop file's deal and the names of its values this job reads: the blueprint's, and each method's computed as
    this job computes it. A file of the first format (one hash of the whole job) is read whole where that hash is this
    job's."""
    methods = header.get("methods")
    if isinstance(methods, dict) and header.get("job") == identity["job"]:
        ours = identity["methods"]
        return int(header["deal"]), frozenset(n for n in names if (m := _method_of(n)) == "blueprint"
                                              or (m in ours and methods.get(m) == ours[m]))
    if not isinstance(methods, dict) and header.get("job") == identity["first"]:
        return int(header["deal"]), frozenset(names)
    raise SubgameError(f"{path.parent}: holds flops of another job ({header.get('identity')}, or another game or "
                       "blueprint); give another checkpoint folder")


def _write_flop(folder: Path, deal: int, identity: dict[str, Any], values: dict[str, np.ndarray]) -> None:
    """Write a finished flop, keeping the values of methods this job does not compute that the file held (a job with
    fewer methods, or another setting of one, over the same folder loses nothing of the others)."""
    path = _flop_path(folder, deal)
    hashes = {m: identity["methods"][m] for m in _methods_in(values)}
    kept: dict[str, np.ndarray] = {}
    if path.exists():
        old, arrays = read_npz(path, format=FLOP_FORMAT, version=FLOP_VERSION, kind="flop checkpoint",
                               expected=FLOP_EXPECTED)
        if isinstance(old.get("methods"), dict) and old.get("job") == identity["job"]:
            for m in _methods_in(arrays) - set(hashes):
                if m in old["methods"]:
                    kept.update({n: a for n, a in arrays.items() if _method_of(n) == m})
                    hashes[m] = old["methods"][m]
    header = {"job": identity["job"], "methods": hashes, "identity": identity["identity"]}
    write_npz(path, {"format": FLOP_FORMAT, "version": FLOP_VERSION, "deal": deal, **header}, {**kept, **values})


def _method_of(name: str) -> str:
    """The method (or ``"blueprint"``) of a value name ``"METHOD/p"``."""
    return name.rpartition("/")[0]


def _methods_in(names: Iterable[str]) -> set[str]:
    """The methods (not the blueprint) of value names ``"METHOD/p"``."""
    return set(map(_method_of, names)) - {"blueprint"}


def _splices(plugin: FlopMethods) -> dict[str, Splice]:
    """The plug-in's splices by name, each of two of its methods and named apart from them."""
    names = plugin.names
    for s in plugin.splices:
        if s.name in (*names, "blueprint") or not {s.inner, s.outer} <= set(names):
            raise SubgameError(f"the splice {s.name!r} needs two of the plug-in's methods {list(names)} and a name "
                               "of its own")
    return {s.name: s for s in plugin.splices}


def _flop_path(folder: Path, deal: int) -> Path:
    return folder / f"flop-{deal:06d}.npz"


def run_flop_job(
    game: PokerGame,
    rows: RowSource,
    *,
    blueprint_id: str,
    methods: Sequence[str] | FlopMethods = tuple(FLOP_METHODS),
    iterations: int = 200,
    flops: int | None = None,
    isomorphic: bool = False,
    seed: int = 0,
    workers: int = 1,
    checkpoint: str | Path | None = None,
    progress: Callable[[int, int, Eta], None] | None = None,
    sample_by_class: bool = False,
) -> FlopJobResult:
    """Re-solve every flop (or a seeded sample of ``flops``) with each method; the combined strategies' exploitability.

    Args:
        rows: the blueprint (picklable when ``workers`` > 1): in the trunk, and at the flops unless the plug-in
            computes its own there.
        methods: names of :data:`FLOP_METHODS`, each flop re-solved by them with ``iterations`` of CFR+
            (:class:`GadgetResolves`), or any :class:`FlopMethods` plug-in (``iterations`` is then its own).
        blueprint_id: names the blueprint in the checkpoints, so that a folder is never resumed with another.
        isomorphic: the values at one flop per class of suit-isomorphic flops
            (:func:`~subgame.eval.board_pass.board_pass_exploitability`; the blueprint must be
            suit-symmetric, which is checked): the blueprint's at every flop, and with every flop
            asked (``flops`` None or all) the re-solves too, each a suit permutation of its class's
            (a re-solve's inputs, the blueprint's reaches and values, are permuted alike); a sample
            re-solves the sampled flops.
        checkpoint: folder of finished flops; a run with the same folder resumes. With one, a finished flop's values
            stay there (but a sampled flop's, which the estimate reads one by one) and the sums over every flop are
            read back from it; without one every flop's values stay in memory.
        progress: called with (flops done, flops the job needs, the time left: :class:`Eta`, :func:`eta_text`) after
            each batch of flops.
        sample_by_class: with ``isomorphic`` and a sample, each sampled flop's values are its class's re-solve,
            suit-permuted, as when every flop is asked, instead of a re-solve of its own (the same values to
            rounding): samples of a folder whose every class was re-solved cost no re-solve, so the estimate's
            spread over seeds can be set against the exact value.

    Raises:
        SubgameError: an unknown method, ``flops`` or ``iterations`` < 1, ``workers`` < 1, or a
            checkpoint folder of another job.
        KeyboardInterrupt: a stop signal (SIGINT, SIGTERM, SIGHUP) came: the job ends after the flops under way,
            each finished one written (a re-solve the signal cut short is not).
    """
    if isinstance(methods, FlopMethods):
        plugin = methods
    else:
        unknown = [m for m in methods if m not in FLOP_METHODS]
        if unknown:
            raise SubgameError(f"unknown flop re-solving method(s) {unknown}; methods are: {', '.join(FLOP_METHODS)}")
        plugin = GadgetResolves(tuple(methods), iterations)
    names = plugin.names
    if iterations < 1 or workers < 1 or (flops is not None and flops < 1):
        raise SubgameError(f"iterations, workers and flops must be >= 1, got {iterations}, {workers} and {flops}")
    if sample_by_class and not isomorphic:
        raise SubgameError("sample_by_class values a sampled flop by its suit class's re-solve: it needs isomorphic=True")
    started = time.perf_counter()
    cut = BoardCut.of(game)
    trunk = cut.trunk
    reach = (forward_reach(trunk, 0, transition_weights(trunk, 0, rows(trunk, 0))),
             forward_reach(trunk, 1, transition_weights(trunk, 1, rows(trunk, 1))))
    total = len(cut.deals)
    k = total if flops is None else min(int(flops), total)
    deals = np.arange(total) if k == total else np.sort(np.random.default_rng(seed).choice(total, size=k, replace=False))
    classes = BoardClasses.of(cut, isomorphic)
    if isomorphic:
        check_reach_symmetry(cut, classes, reach)
        if plugin.rows_blueprint:  # a blueprint the plug-in solves at each flop is as symmetric as the flop's reaches
            check_board_symmetry(cut, classes, rows, reach, 2, seed)
    by_class = isomorphic and k == total  # every flop's re-solve from its class's
    sampled_deals = deals  # the sample (its flops' values from their classes' where sample_by_class)
    if by_class or sample_by_class:
        deals = np.unique(classes.compiled[classes.representative[deals]])
    identity = _identity(game, plugin, blueprint_id)
    folder = None if checkpoint is None else Path(checkpoint)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    plugin = plugin.prepare(cut, rows, reach, None)
    control = plugin.control
    if control != "blueprint" and control not in names:
        raise SubgameError(f"the plug-in's control variate {control!r} is none of its methods {list(names)}")
    _splices(plugin)  # refused before any flop
    valued = () if control == "blueprint" else (control,)  # at every flop, with the blueprint
    sampled = set(deals.tolist())
    needs = {d: names if d in sampled else valued for d in sorted(sampled | set(classes.compiled.tolist()))}
    # With a folder a finished flop's values stay on disk, but for the sampled flops an estimate reads one by one;
    # the sums over every flop are read back from it flop by flop (_class_totals).
    kept = (lambda d: True) if folder is None else (lambda d: d in sampled and not by_class)
    stored: dict[int, dict[str, np.ndarray]] = {}
    held: dict[int, frozenset[str]] = {}

    def keep(d: int, values: dict[str, np.ndarray]) -> None:
        held[d] = frozenset(values)
        if kept(d):
            stored[d] = values

    for path in [] if folder is None else sorted(folder.glob("flop-*.npz")):
        d, present = _flop_names(path, identity)
        if d in needs:
            held[d] = present
            if kept(d):
                stored[d] = _read_flop(path, identity)[1]

    def values_of(d: int, keys: Sequence[str]) -> dict[str, np.ndarray]:
        if d in stored:
            return stored[d]
        assert folder is not None  # without one every flop is kept
        return _read_flop(_flop_path(folder, d), identity, keys)[1]

    def finished(d: int) -> bool:
        return d in held and all(f"{m}/0" in held[d] for m in needs[d])

    resumed = sum(d in sampled and finished(d) for d in needs)
    step = EVALUATION_BATCH if plugin.rows_blueprint and not valued else 1

    def evaluations(flops: list[int]) -> list[FlopTask]:
        return [FlopTask(cut, rows, reach, tuple(flops[i : i + step]), plugin, valued, folder, identity)
                for i in range(0, len(flops), step)]

    batch = max(2 * workers, 1)
    spent = {True: [0.0, 0], False: [0.0, 0]}  # seconds and flops, re-solved (True) or evaluated only
    recent: dict[bool, deque[tuple[float, int]]] = {kind: deque(maxlen=RECENT_BATCHES) for kind in (True, False)}

    def resolving(task: FlopTask) -> bool:
        return task.methods != valued

    pool = make_executor("serial" if workers == 1 else "process", workers)

    def run(tasks: list[FlopTask], later: list[FlopTask], stop: Any) -> None:
        """Run ``tasks`` in batches over the pool, keeping each flop's values (``later``: the tasks to come after them)."""
        for i in range(0, len(tasks), batch):
            chunk = tasks[i : i + batch]
            batch_started = time.perf_counter()
            for task, values in zip(chunk, pool.map(flop_values, chunk)):
                for d, flop in zip(task.deals, values):
                    keep(d, flop)
            seconds, flops, kind = time.perf_counter() - batch_started, sum(len(t.deals) for t in chunk), any(map(resolving, chunk))
            spent[kind][0] += seconds
            spent[kind][1] += flops
            recent[kind].append((seconds, flops))
            done = sum(map(finished, needs))
            if progress is not None:
                progress(done, len(needs), _seconds_left(recent, tasks[i + batch :] + later, resolving))
            if stop.signum is not None:
                raise KeyboardInterrupt(f"stopped by signal {stop.signum} after {done:,} of {len(needs):,} "
                                        "flops; each finished flop is in the checkpoint folder")

    gifts = None
    try:
        with deferred_stop_signals() as stop:  # a stop signal ends the job after the flops under way, each written
            resolves = [d for d in sorted(sampled) if not finished(d)]
            if plugin.blueprint_first:  # the blueprint at every flop first: the trunk's gifts, say, rest on its values there
                run(evaluations([d for d in needs if d not in held or (d not in sampled and not finished(d))]),
                    [FlopTask(cut, rows, reach, (d,), plugin, names, folder, identity) for d in resolves], stop)
                sums = _class_totals(cut, classes, values_of, ("blueprint/0", "blueprint/1"))
                if plugin.gift_modes:
                    gifts = trunk_gifts(cut, reach, [sums["blueprint/0"], sums["blueprint/1"]], plugin.gift_modes)
                plugin = plugin.prepare(cut, rows, reach, (sums["blueprint/0"], sums["blueprint/1"]))
            if isomorphic:  # a method's own trunk is checked like the row source's
                for trunk_of in (t for t in map(plugin.trunk, ("blueprint", *names)) if t is not None):
                    check_reach_symmetry(cut, classes, trunk_of.reach)
            tasks = [FlopTask(cut, rows, reach, (d,), plugin, names, folder, identity, gifts) for d in resolves]  # first
            run(tasks + evaluations([d for d in needs if not finished(d) and d not in sampled]), [], stop)
    finally:
        pool.close()
    per_flop = spent[True][0] / spent[True][1] if spent[True][1] else 0.0
    scale = total / k
    rng = np.random.default_rng(seed + 1)
    picks = [rng.integers(0, k, size=k) for _ in range(BOOTSTRAP)] if k < total else []

    summed = _class_totals(cut, classes, values_of, [f"{m}/{p}" for m in ("blueprint", *(names if by_class else valued))
                                                     for p in (0, 1)])

    splices = _splices(plugin)

    def totals(method: str) -> list[np.ndarray]:
        """Per player the sum over every flop of ``method``'s values (a splice's from its two methods')."""
        if method in splices:
            return [splices[method].values(a, b) for a, b in zip(totals(splices[method].inner),
                                                                  totals(splices[method].outer))]
        return [summed[f"{method}/{p}"] for p in (0, 1)]

    def at(d: int, method: str, p: int) -> np.ndarray:
        """Player p's values of ``method`` at flop ``d``: its own, or its class's suit-permuted (sample_by_class)."""
        if method in splices:
            return splices[method].values(at(d, splices[method].inner, p), at(d, splices[method].outer, p))
        if not sample_by_class:
            return stored[int(d)][f"{method}/{p}"]
        C, H = cut.state_at[p].shape
        rep = int(classes.compiled[classes.representative[d]])
        return stored[rep][f"{method}/{p}"].reshape(C, H)[:, classes.hand_perm[classes.perm[d]]].ravel()

    base = totals(control)
    estimates = [FlopEstimate("blueprint", *(3 * (_trunk_exploitability(cut, reach, totals("blueprint"),
                                                                      plugin.trunk("blueprint")),)))]
    for method in (*names, *splices):
        own = plugin.trunk(splices[method].outer if method in splices else method)
        if by_class or method == control:
            estimates.append(FlopEstimate(method, *(3 * (_trunk_exploitability(cut, reach, totals(method), own),))))
            continue
        diff = [np.stack([at(d, method, p) - at(d, control, p) for d in sampled_deals]) for p in (0, 1)]
        value = _trunk_exploitability(cut, reach, [base[p] + scale * diff[p].sum(axis=0) for p in (0, 1)], own)
        boot = [_trunk_exploitability(cut, reach, [base[p] + scale * diff[p][pick].sum(axis=0) for p in (0, 1)], own)
                for pick in picks]
        low, high = (2 * value - float(np.quantile(boot, 0.975)), 2 * value - float(np.quantile(boot, 0.025))) if boot \
            else (value, value)
        estimates.append(FlopEstimate(method, value, low, high))
    return FlopJobResult(tuple(estimates), k, total, resumed, time.perf_counter() - started, per_flop,
                         len(classes.compiled), plugin)
