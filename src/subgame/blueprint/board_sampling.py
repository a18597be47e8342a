"""Public chance sampling over the boards of a poker game that is never compiled whole.

Public chance sampling (Johanson et al. 2012, "Efficient Nash Equilibrium Approximation
through Monte Carlo Counterfactual Regret Minimization") samples the public chance outcomes
and walks both players' private states as vectors; with a card abstraction the regrets
of all the information sets of one abstract information set are pooled (Brown & Sandholm
2017 §7 solve no-limit flop hold'em in buckets). Here the sample is a set of flops and the
game is cut where CFR-D cuts it (Burch, Johanson & Bowling 2014, "Decomposition into
Subgames"): at the first public deal (:class:`~subgame.tree.board_cut.BoardCut`). So a pass
holds the trunk (the preflop betting, compiled once) and the forest of the sampled flops
(compiled for the pass, then dropped), never the whole tree.

One pass for the traverser ``p`` (alternating updates: a pass of player 0, then one of
player 1 against player 0's new strategy, each drawing its own flops):

1. both players' current strategies by regret matching at the abstract information sets
   (betting sequence × round × bucket), given to the trunk's and the forest's
   information sets through their keys;
2. draw ``k`` of the ``D`` flops uniformly without replacement, compile their forest, push
   the opponent's trunk reach at the deal down it (the opponent is exact: a vector over
   hands) and compute ``p``'s counterfactual values there;
3. every value from the forest (its regrets, its average-strategy increment and its root
   values, added to the trunk's private states at the deal) is weighted by ``D / k``, the
   inverse of a flop's probability of being drawn (Lanctot et al. 2009's ``1/q(z)``), so
   the expected instantaneous regret is that of one CFR iteration in the abstract game;
   the trunk's own terminal values are exact (its folds, and after a preflop all-in the
   showdown on the one flop it keeps; the other flops' showdowns are forest roots, drawn
   like any flop);
4. one backward sweep of the trunk, and the regrets of both parts added to the abstract
   tables under the :class:`~subgame.solve.cfr.CFRConfig` rule (RM+, linear or DCFR
   discounting), with the traverser's own reach times her strategy added to her average
   (t^γ weights, as :class:`~subgame.solve.mccfr.MCCFRSolver` does).

With ``boards_per_pass`` equal to the number of flops every pass holds all of them and is
exactly a CFR iteration in the abstraction (the tests check this against
:class:`~subgame.solve.cfr.CFRSolver` on the whole tree of a small deck). The tables have
one row per abstract information set, enumerated once from the trunk and one flop's forest
(a flop's betting does not depend on its cards), so memory is the trunk, one forest and
the tables. A pass matches regrets and adds values at the abstract rows it reaches only (the
trunk's and the drawn flops'); the rest of the tables is discounted, with the same bits as an
update of the whole tables with zeros there: with 30,000 flop buckets the tables hold 1.5
million rows a player, and the work over all of them made four fifths of an iteration. The
result is a :class:`~subgame.blueprint.card_abstraction.BucketStrategy`, which the board pass
(:mod:`subgame.eval.board_pass`) evaluates exactly.

A subgame too big to compile is re-solved the same way: the game is the part after its root
public state (a poker game whose ``start`` is that state's betting), the players' root ranges
are given, and a root gadget (:class:`~subgame.solve.plugins.RootGadget`, safe-and-nested
§4–5) may set the opponent's instead. The gadget learns from her root values of each pass,
which are sampled (unbiased, as the regrets are), the way MCCFR's regrets are.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ..errors import GameDefinitionError, StrategyFileError
from ..files import read_npz, write_npz
from ..games.base import Game, game_fingerprint
from ..games.poker import PokerGame
from ..solve.abstraction import pool_touched
from ..solve.cfr import LINEAR_CFR, CFRConfig
from ..solve.mccfr import seeded_generator
from ..solve.plan import IterationPlan, average_rows
from ..solve.plugins import RootGadget, RootRangeAverage, root_range, sets_range
from ..solve.restriction import checked_root_reach
from ..solve.rules import accumulate_regrets, add_average, refuse, update_rule
from ..strategy import Strategy, StrategyMeta
from ..tree.board_cut import BoardCut, BoardForest
from ..tree.poker_compile import state_hands
from ..tree.public_tree import PublicTree
from ..tree.sweep import backward_expected, forward_reach, leaf_values, regret_matching, sequence_values, transition_weights
from .card_abstraction import BucketStrategy, CardBuckets, abstract_infosets, hand_columns

BOARD_SAMPLING_CHECKPOINT_FORMAT = "subgame-board-sampling-checkpoint"

AbstractKey = tuple[tuple[str, ...], int, int]


@dataclass(frozen=True, eq=False)
class AbstractTables:
    """The abstract information sets of a card abstraction of a poker game, one row each.

    Keys are laid out sequence by sequence: the ``n`` buckets of the round of a (betting
    sequence, board size) take ``n`` consecutive rows from its offset.

    Attributes:
        keys: per player, [K_p] the (betting sequence, board size, bucket) of each row.
        offset: per player, (betting sequence, board size) -> its first row.
        legal: per player, [K_p, A] bool, the legal action slots of each row.
    """

    keys: tuple[tuple[AbstractKey, ...], tuple[AbstractKey, ...]]
    offset: tuple[dict[tuple[tuple[str, ...], int], int], dict[tuple[tuple[str, ...], int], int]]
    legal: tuple[np.ndarray, np.ndarray]

    @staticmethod
    def of(game: PokerGame, buckets: CardBuckets, trees: tuple[PublicTree, ...]) -> AbstractTables:
        """Every abstract information set of ``trees`` (the trunk and one flop's forest cover the game)."""
        sizes = [b.shape[1] for b in buckets.boards]
        width = max(t.players[p].max_actions for t in trees for p in (0, 1))
        keys: list[tuple[AbstractKey, ...]] = []
        offsets: list[dict[tuple[tuple[str, ...], int], int]] = []
        legal: list[np.ndarray] = []
        for p in (0, 1):
            offset: dict[tuple[tuple[str, ...], int], int] = {}
            rows: list[np.ndarray] = []
            ks: list[AbstractKey] = []
            for tree in trees:
                pa = tree.players[p]
                sequences, node_of, _ = abstract_infosets(game, buckets, tree, p)
                first = np.unique(node_of, return_index=True)[1]  # one information set per sequence
                for u, i in enumerate(first.tolist()):
                    seq = sequences[u]
                    if seq in offset:
                        continue
                    n = buckets.num_buckets[sizes.index(seq[1])]
                    offset[seq] = len(ks)
                    ks.extend((seq[0], seq[1], b) for b in range(n))
                    row = np.zeros(width, dtype=bool)
                    row[: pa.max_actions] = pa.legal[i]
                    rows.append(np.broadcast_to(row, (n, width)))
            keys.append(tuple(ks))
            offsets.append(offset)
            legal.append(np.concatenate(rows) if rows else np.zeros((0, width), dtype=bool))
        return AbstractTables((keys[0], keys[1]), (offsets[0], offsets[1]), (legal[0], legal[1]))

    def rows(self, game: PokerGame, buckets: CardBuckets, tree: PublicTree, player: int,
             columns: np.ndarray | None = None) -> np.ndarray:
        """[I] the row of each of ``player``'s information sets of ``tree`` (``columns``: see :func:`abstract_infosets`).

        Raises:
            GameDefinitionError: an information set whose betting sequence the tables lack.
        """
        sequences, node_of, bucket = abstract_infosets(game, buckets, tree, player, columns)
        try:
            base = np.array([self.offset[player][s] for s in sequences], dtype=np.int64)
        except KeyError as exc:
            raise GameDefinitionError(f"{game.name}: betting sequence {exc.args[0]!r} is not in the abstract tables") from None
        return base[node_of] + bucket


class BoardSamplingPCS(IterationPlan):
    """Card-abstracted public chance sampling over flops, holding the trunk and one forest at a time.

    See the module docstring. A :class:`~subgame.solve.driver.Solver` for the run driver:
    ``step()`` is one iteration (a pass per player), :meth:`save_checkpoint` and
    :meth:`load_checkpoint` resume bitwise (tables, iteration, generator state).

    Args:
        game: a poker game with a public deal after the first betting round.
        buckets: its card abstraction (:meth:`CardBuckets.build`, :meth:`CardBuckets.load`).
        config: regret and averaging rule (default linear CFR, as :class:`~subgame.solve.mccfr.MCCFRSolver`);
            prediction and averaging without reach weights are refused by name.
        seed: an int seed or a ``numpy.random.Generator`` (advanced in place).
        boards_per_pass: flops drawn per pass, compiled as one forest; ``None``: all of
            them every pass (then no draw is made and a pass is a CFR pass).
        root_reach: per player [R_p] a fixed reach at her root private states (the hands, in
            the trunk's order; ``None``: all ones), as :class:`~subgame.solve.cfr.CFRSolver`'s.
        gadget: a root gadget setting its player's root range each pass (her ``root_reach``
            is then not read).

    Attributes:
        regrets: per player [K_p, A] cumulative regrets per abstract information set.
        strategy_sum: per player [K_p, A] weighted sums of reach × strategy.
        iteration: iterations run so far.
    """

    def __init__(
        self,
        game: Game,
        buckets: CardBuckets,
        config: CFRConfig = LINEAR_CFR,
        *,
        seed: int | np.random.Generator = 0,
        boards_per_pass: int | None = 1,
        root_reach: tuple[np.ndarray | None, np.ndarray | None] = (None, None),
        gadget: RootGadget | None = None,
    ) -> None:
        if not isinstance(game, PokerGame):
            raise GameDefinitionError(f"{game.name}: board sampling is for the poker family; solve it whole with MCCFRSolver")
        if not isinstance(buckets, CardBuckets):
            raise GameDefinitionError(f"buckets must be CardBuckets (CardBuckets.build or .load), got {type(buckets).__name__}")
        if buckets.game_id != game_fingerprint(game):
            raise GameDefinitionError(f"these buckets are for game {buckets.game_id!r}, not {game_fingerprint(game)!r}")
        if not isinstance(config, CFRConfig):
            raise GameDefinitionError(f"config must be a CFRConfig (a preset such as LINEAR_CFR), got {config!r}")
        refuse(config, "board sampling (BoardSamplingPCS)", ("prediction", "reach_average"))
        self.game = game
        self.buckets = buckets
        self.config = config
        self.cut = BoardCut.of(game)
        num_deals = len(self.cut.deals)
        if boards_per_pass is not None:
            if (isinstance(boards_per_pass, bool) or not isinstance(boards_per_pass, (int, np.integer))
                    or not 1 <= boards_per_pass <= num_deals):
                raise GameDefinitionError(f"{game.name}: boards_per_pass must be a whole number from 1 to the {num_deals} "
                                          f"flops (or None: all of them), got {boards_per_pass!r}")
            boards_per_pass = int(boards_per_pass)
        self.boards_per_pass = boards_per_pass
        self.rng = seeded_generator(seed)
        trunk = self.cut.trunk
        if gadget is not None and gadget.player not in (0, 1):
            raise GameDefinitionError(f"the gadget's player must be 0 or 1, got {gadget.player!r}")
        self.gadget = gadget
        self.root_reach = tuple(checked_root_reach(trunk, p, r) for p, r in enumerate(root_reach))
        rs = trunk.root_slice
        self.root_average = None if gadget is None else RootRangeAverage(np.zeros(rs[gadget.player].stop - rs[gadget.player].start))
        columns = hand_columns(game, buckets)
        self._trunk_hands = tuple(columns[state_hands(game, trunk, p)] for p in (0, 1))  # [G_p] hand (buckets.hands row)
        first = self.cut.forest(self.cut.deals if boards_per_pass is None else self.cut.deals[:1])
        self.tables = AbstractTables.of(game, buckets, (trunk,) if first is None else (trunk, first.tree))
        self._all = None if boards_per_pass is not None or first is None else self._with_rows(first)  # every flop: kept
        self._trunk_rows = tuple(self.tables.rows(game, buckets, trunk, p, self._trunk_hands[p]) for p in (0, 1))
        self._uniform = [legal / np.maximum(legal.sum(axis=1, keepdims=True), 1) for legal in self.tables.legal]
        self.regrets: list[np.ndarray] = [np.zeros(legal.shape) for legal in self.tables.legal]
        self.strategy_sum = [np.zeros(legal.shape) for legal in self.tables.legal]
        self.iteration = 0
        self.horizon: int | None = None

    def _with_rows(self, part: BoardForest) -> tuple[BoardForest, tuple[np.ndarray, np.ndarray]]:
        """A forest and the abstract row of each of its information sets, per player."""
        rows = tuple(self.tables.rows(self.game, self.buckets, part.tree, p, self._forest_hands(part, p)) for p in (0, 1))
        return part, (rows[0], rows[1])

    def _forest_hands(self, part: BoardForest, p: int) -> np.ndarray:
        """[G] the hand (row of ``buckets.hands``) of player p's forest states: its trunk state's at the roots, then down."""
        tree = part.tree
        hand = np.empty(tree.players[p].num_states, dtype=np.int64)
        hand[tree.root_slice[p]] = self._trunk_hands[p][part.gather[p]]
        for lv in tree.plan.levels[p]:  # a private state holds its parent's hand (perfect recall)
            hand[lv.lo : lv.hi] = hand[lv.parent]
        return hand

    # -- strategies -----------------------------------------------------------------------
    def _current(self, p: int, rows: np.ndarray, width: int) -> np.ndarray:
        """[n, width] player p's current strategy at the abstract information sets ``rows`` [n] (regret matching goes
        row by row: the whole table's rows, bit for bit, without matching the rows no pass reads)."""
        if rows.size >= self.regrets[p].shape[0]:  # a small table: matched whole, then read
            whole: np.ndarray = regret_matching(self.regrets[p], self.tables.legal[p], self._uniform[p])
            return whole[rows, :width]
        sigma = regret_matching(self.regrets[p][rows], self.tables.legal[p][rows], self._uniform[p][rows])
        return np.ascontiguousarray(sigma[:, :width])

    def average_root_range(self) -> np.ndarray:
        """[R] the gadget player's root range averaged like the strategies (:class:`~subgame.solve.plugins.RootRangeAverage`)."""
        if self.gadget is None or self.root_average is None:
            raise GameDefinitionError("average_root_range needs a solver with a root gadget")
        return self.root_average.mean(self.gadget)

    def _root(self, q: int) -> np.ndarray | None:
        """[R_q] player q's reach at the trunk's root private states (``None``: ones)."""
        return root_range(self.gadget, q, self.root_reach[q])

    def average_tables(self) -> tuple[np.ndarray, np.ndarray]:
        """Per player [K_p, A] the average strategy at every abstract information set (uniform where never reached)."""
        return average_rows(self.strategy_sum[0], self.tables.legal[0]), average_rows(self.strategy_sum[1], self.tables.legal[1])

    def blueprint(self) -> BucketStrategy:
        """The average strategy as a blueprint per abstract information set (:meth:`BucketStrategy.rows`, ``.save``)."""
        return BucketStrategy(self.buckets, self.tables.keys, self.average_tables())

    def average_strategy(self) -> Strategy:
        """The average strategy at the trunk's information sets (the whole of it is :meth:`blueprint`)."""
        trunk = self.cut.trunk
        avg = self.average_tables()
        probs = tuple(avg[p][self._trunk_rows[p], : trunk.players[p].max_actions] for p in (0, 1))
        return Strategy(trunk.game_id, (probs[0], probs[1]), StrategyMeta(iterations=self.iteration, config=asdict(self.config)))

    # -- iterations -----------------------------------------------------------------------
    def step(self) -> None:
        """One iteration: a pass of player 0, then one of player 1 against her new strategy."""
        self.iteration += 1
        for p in (0, 1):
            self._pass(p, self.iteration)

    def _sample(self) -> tuple[tuple[BoardForest, tuple[np.ndarray, np.ndarray]] | None, float]:
        """This pass's forest and the importance weight D/k of its flops."""
        if self.boards_per_pass is None:
            return self._all, 1.0
        drawn = self._draw()
        part = self.cut.forest([self.cut.deals[i] for i in drawn.tolist()])
        return None if part is None else self._with_rows(part), len(self.cut.deals) / drawn.size

    def _draw(self) -> np.ndarray:
        """[k] indices into ``cut.deals``, uniformly without replacement, ascending."""
        return np.sort(self.rng.choice(len(self.cut.deals), size=self.boards_per_pass, replace=False))

    def _pass(self, p: int, t: int) -> None:
        o = 1 - p
        trunk = self.cut.trunk
        pt = trunk.players[p]
        sigma_t = [self._current(q, self._trunk_rows[q], trunk.players[q].max_actions) for q in (0, 1)]  # [I_q, a]
        sw = [transition_weights(trunk, q, sigma_t[q]) for q in (0, 1)]
        reach = [forward_reach(trunk, q, sw[q], self._root(q)) for q in (0, 1)]
        at_deal = np.zeros(pt.num_states)  # p's values from the forest at the trunk's states of the deal
        regrets, increments = [], []  # (abstract rows, values) of the forest, then of the trunk
        sample, weight = self._sample()
        if sample is not None:
            part, rows = sample
            forest = part.tree
            pf = forest.players[p]
            sigma_f = [self._current(q, rows[q], forest.players[q].max_actions) for q in (0, 1)]
            sw_f = [transition_weights(forest, q, sigma_f[q]) for q in (0, 1)]
            reach_o = forward_reach(forest, o, sw_f[o], reach[o][part.gather[o]])
            v = leaf_values(forest, p, (reach_o, reach_o))
            backward_expected(forest, p, v, sw_f[p])
            rs = forest.root_slice[p]
            at_deal += weight * np.bincount(part.gather[p], weights=v[rs], minlength=pt.num_states)
            regret_f = sequence_values(forest, p, v) - v[pf.infoset_priv][:, None]
            regret_f *= weight * pf.legal
            regrets.append((rows[p], regret_f))
            reach_p = forward_reach(forest, p, sw_f[p], reach[p][part.gather[p]])
            increments.append((rows[p], weight * reach_p[pf.infoset_priv][:, None] * sigma_f[p]))
            del part, forest, sw_f, reach_o, v, reach_p, sample, sigma_f
        v = leaf_values(trunk, p, (reach[o], reach[o]))
        v += at_deal
        backward_expected(trunk, p, v, sw[p])
        if self.gadget is not None:
            self.gadget.update(p, v[trunk.root_slice[p]], t)
        regret_t = sequence_values(trunk, p, v) - v[pt.infoset_priv][:, None]
        regret_t *= pt.legal
        regrets.append((self._trunk_rows[p], regret_t))
        increments.append((self._trunk_rows[p], reach[p][pt.infoset_priv][:, None] * sigma_t[p]))
        # only the rows this pass reached get values: the rest of the tables is discounted, never added zeros
        width = self.regrets[p].shape[1]
        rule = update_rule(self.config, t, self.horizon)
        touched, inst = pool_touched(regrets, width)
        accumulate_regrets(rule, self.regrets[p], inst, rows=touched)
        touched, avg = pool_touched(increments, width)
        add_average(rule, self.strategy_sum[p], avg, rows=touched)
        if self.root_average is not None and sets_range(self.gadget, p):
            self.root_average.add(rule, reach[p][trunk.root_slice[p]])

    # -- checkpoints ----------------------------------------------------------------------
    def save_checkpoint(self, path: str | Path) -> Path:
        """Write tables, iteration, rule and generator state (and a root gadget's regrets and average range);
        :meth:`load_checkpoint` continues bitwise."""
        header = {"format": BOARD_SAMPLING_CHECKPOINT_FORMAT, "version": 1, "game_id": game_fingerprint(self.game),
                  "buckets": list(self.buckets.num_buckets), "iteration": self.iteration, "config": asdict(self.config),
                  "boards_per_pass": self.boards_per_pass, "horizon": self.horizon, "rng": self.rng.bit_generator.state}
        arrays = {"r0": self.regrets[0], "r1": self.regrets[1], "s0": self.strategy_sum[0], "s1": self.strategy_sum[1]}
        if self.gadget is not None and self.root_average is not None:
            header |= {"gadget": type(self.gadget).__name__, "root_range_weight": self.root_average.weight}
            arrays |= {"root_range_sum": self.root_average.total, **_gadget_state(self.gadget)}
        return write_npz(path, header, arrays)

    @staticmethod
    def load_checkpoint(path: str | Path, game: Game, buckets: CardBuckets, *,
                        root_reach: tuple[np.ndarray | None, np.ndarray | None] = (None, None),
                        gadget: RootGadget | None = None) -> BoardSamplingPCS:
        """Restore a solver saved by :meth:`save_checkpoint` (with the game, buckets, root reaches and a new gadget
        of the kind it used, made as that one was: its learned state is read back into it).

        Raises:
            StrategyFileError: not such a checkpoint, or one of another game or abstraction, or with another gadget.
        """
        header, arrays = read_npz(path, format=BOARD_SAMPLING_CHECKPOINT_FORMAT, version=1, kind="checkpoint",
                                  expected="a board-sampling checkpoint (BoardSamplingPCS.save_checkpoint)")
        if header["game_id"] != game_fingerprint(game):
            raise StrategyFileError(f"{path}: checkpoint is for game {header['game_id']!r}, not {game_fingerprint(game)!r}")
        kind = header.get("gadget")
        if kind != (None if gadget is None else type(gadget).__name__):
            raise StrategyFileError(f"{path}: checkpoint of a solve {'without a gadget' if kind is None else f'with a {kind}'}, "
                                    f"given {'none' if gadget is None else f'a {type(gadget).__name__}'}: give the same kind")
        solver = BoardSamplingPCS(game, buckets, CFRConfig(**header["config"]), boards_per_pass=header["boards_per_pass"],
                                  root_reach=root_reach, gadget=gadget)
        try:
            loaded = [np.asarray(arrays[k], dtype=np.float64) for k in ("r0", "r1", "s0", "s1")]
        except KeyError as exc:
            raise StrategyFileError(f"{path}: board-sampling checkpoint without its array {exc.args[0]!r}") from None
        if any(a.shape != r.shape for a, r in zip(loaded, solver.regrets + solver.strategy_sum)):
            raise StrategyFileError(f"{path}: checkpoint tables do not fit this abstraction (buckets {list(buckets.num_buckets)})")
        solver.regrets, solver.strategy_sum = loaded[:2], loaded[2:]
        solver.iteration = int(header["iteration"])
        solver.horizon = header["horizon"]
        solver.rng.bit_generator.state = header["rng"]
        if gadget is not None and solver.root_average is not None:
            state = _gadget_state(gadget)
            if any(k not in arrays or arrays[k].shape != v.shape for k, v in state.items()) or "root_range_sum" not in arrays:
                raise StrategyFileError(f"{path}: the checkpoint's gadget state does not fit this gadget (another subgame?)")
            for k, v in state.items():
                v[...] = arrays[k]
            solver.root_average.total[...] = arrays["root_range_sum"]
            solver.root_average.weight = float(header["root_range_weight"])
        return solver


def _gadget_state(gadget: RootGadget) -> dict[str, np.ndarray]:
    """The arrays a root gadget learns (its regrets), by name: the gadgets of :mod:`subgame.resolving.gadgets` keep
    them as ``regrets``; a gadget that learns nothing has none."""
    regrets = getattr(gadget, "regrets", None)
    return {} if regrets is None else {"gadget_regrets": regrets}

