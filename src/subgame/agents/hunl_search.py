"""Playing no-limit hold'em by search on an implicit blueprint (Brown, Sandholm & Amos 2018, §5 and Appendix A).

The agent plays the early rounds from its blueprint (:class:`~.blueprint.BlueprintAgent`,
off-tree bets by pseudo-harmonic translation) and searches from ``search_round`` on (the
river by default, as Modicum solved the last round to the end of the game; with
``num_values`` the turn, and the flop where ``search_round`` reaches it, are solved to the
end of their betting round, as Modicum solved its first two rounds, their leaves valued by
the blueprint's play of the rounds below: :mod:`~subgame.depthlimited.poker_leaf`):

* **Beliefs by Bayes' rule.** Both players' ranges over every hand (1,326 in hold'em) are
  computed from the public moves: each betting action multiplies the actor's range by the
  probability the strategy in force gives it at each hand, the blueprint's row of the
  hand's bucket before the search starts, the last solve's strategy in searched rounds,
  and hands that hold a board card get zero (unsafe nested solving, as Modicum did).
* **A subgame from the public state, to the end of the game.** At each decision of a
  searched round the agent compiles the rest of the game from the start of the current
  round: the board dealt so far, the pot as an ante (both put the same in at a round's
  start), the real game's bet sizes, and every bet of the round so far that those sizes
  lack added to the round's sizes, so an off-tree bet of any size is in the tree (nested
  solving rooted before the opponent's action, that action included;
  :func:`~subgame.tree.public_state.subgame_at`, its size estimated before it is built).
  Both ranges are its root reach and CFR runs on it for the budget (unsafe solving: both
  players' strategies re-solved below the root). A solve is a function of the public
  path, so it is cached for the hand by that path and reused while play stays in its tree.
* **The action.** The agent's row of the solve's average strategy at its hand, each
  abstract bet mapped to the real legal bet of the same amount (the nearest where the real
  rules differ: the subgame's minimum raise at a round's start is one chip).
* **The preflop, solved again** (:attr:`HunlSearchConfig.preflop`, App. A). Where a preflop raise
  of the hand is off the blueprint's tree, the whole preflop with that size added is solved
  from the deal to the flop's deal, K-valued leaves there (:mod:`~subgame.depthlimited.preflop_leaf`),
  kept across hands by its sizes; the preflop ranges follow it.
* **A budget, and a fallback.** Each solve runs for the :class:`~subgame.solve.driver.Budget`
  of the configuration (anytime: a budget in seconds stops it and the average is played).
  A subgame that does not fit ``max_bytes``, a solve that fails, or one that ends later
  than ``late_factor`` times its seconds is logged (``subgame.agents.hunl_search``,
  :attr:`HunlSearchAgent.fallbacks`) and the blueprint's action is played: the agent never
  stops a match.

Where the paper is silent: a player whose range is zero at the root of a solve (play no
belief expected) is given every hand not blocked by the board, and every hand of the
agent's own range gets a small floor (:data:`OWN_FLOOR`), so that a hand the strategies so
far never play this way (after a translated bet) is still solved for. Determinism: with an
iteration budget the agent is a fixed function of its views and the hand's seed, so
:func:`~.exact.agent_strategy` gives the exact strategy it plays in a game that compiles.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Literal

import numpy as np

from ..blueprint.actions import DECISION
from ..blueprint.blueprint_file import Blueprint
from ..blueprint.deal_abstraction import DealAbstraction
from ..depthlimited.leaf import MultiValuedLeaf
from ..depthlimited.poker_leaf import CONTINUATIONS, PokerRoundValues, blueprint_root_values, sampled_cards
from ..depthlimited.preflop_leaf import PreflopTable, PreflopValues
from ..errors import SubgameError
from ..games.poker.game import CALL, FOLD, PokerGame, PokerState
from ..resolving.gadgets import MaxMarginGadget, ResolveGadget
from ..solve import driver
from ..solve.cfr import CFR_PLUS, CFRConfig, CFRSolver
from ..tree.public_state import LabeledValues, subgame_at
from ..tree.public_tree import LEAF, PublicTree
from .base import Decision, View
from .beliefs import BlueprintRows, hand_cards
from .blueprint import BlueprintAgent

LOG = logging.getLogger(__name__)
#: added to every hand of the agent's own range at a solve's root (times its largest weight): a hand the strategies
#: so far never play this way still gets its own row of the average strategy, not the uniform one
OWN_FLOOR = 1e-6
#: the opponent's range at a last-round subgame's root (:attr:`HunlSearchConfig.root`)
ROOTS = ("unsafe", "resolve", "maxmargin")
#: App. A's preflop solves an agent keeps (one per set of added sizes and seat)
KEPT_PREFLOP_SOLVES = 32


@dataclass(frozen=True)
class HunlSearchConfig:
    """How the agent searches.

    Attributes:
        budget: of every solve (iterations: deterministic; seconds: anytime).
        search_round: the first round searched (``None``: the last round).
        config: the CFR update rule of the solves.
        max_bytes: the memory a subgame and its solve may take, estimated before building it.
        late_factor: a solve that ends after this many times its budget's seconds is
            logged and the blueprint played instead.
        num_values: K: the second-to-last round (the turn) is solved to the end of its betting
            round, each leaf valued by the blueprint's last round with the opponent choosing among
            K continuations (:mod:`~subgame.depthlimited.poker_leaf`; 1: the blueprint alone, the
            paper's naive depth-limited solving), and so is the round before it (the flop) where
            ``search_round`` reaches it, each leaf valued by the blueprint's last two rounds;
            ``None``: to the end of the game.
        bias_factor: the bias of the continuations (10 in the paper).
        river_cards: the cards dealt at a depth-limited subgame's leaves (the river's at the turn's,
            the turn's at the flop's): a seeded sample of this many (``None``: every card, exact); the
            subgame is compiled with those cards' leaves only.
        rollout_cards: below a flop subgame's leaves, the river cards summed per turn card: a seeded
            sample of this many (``None``: every card), as the paper's rollouts sample them.
        river_sample: the last round's cards a CFR iteration values at the leaves: a fresh seeded sample of this
            many of the subgame's each iteration, weighted as an unbiased estimate
            (:attr:`~subgame.depthlimited.poker_leaf.PokerRoundValues.per_iteration`); ``None``: all of them.
        raise_cap: the most bets and raises a betting round of a subgame offers (the subgame's action
            abstraction, as the paper's subgames keep the blueprint's few actions); the raises the
            round has had count, and a round that had more keeps them. ``None``: the game's own rule.
        root: the opponent's range at the root of a last-round subgame: ``"unsafe"`` her Bayes range (unsafe
            nested solving, as Modicum); ``"resolve"`` or ``"maxmargin"`` a safe re-solve's gadget whose
            alternative payoffs are the blueprint's values at the root (safe-and-nested §4.2;
            :func:`~subgame.depthlimited.poker_leaf.blueprint_root_values`), where the path to the root is on
            the blueprint's tree (else unsafe, logged). Earlier rounds' subgames are always unsafe: the
            blueprint's values there need its play of two rounds.
        preflop: App. A's preflop: where a preflop raise of the hand is off the blueprint's tree, the whole preflop is
            solved again (CFR+ from the deal, every hand in both ranges) with the real sizes and the hand's
            off-tree sizes added, to the flop's deal, each leaf valued by the blueprint's later rounds with the
            opponent choosing among K continuations (``num_values``, or 1;
            :mod:`~subgame.depthlimited.preflop_leaf`); the solve is kept for every later hand with those sizes,
            and both players' preflop ranges follow it. ``False``: the preflop by translation.
        preflop_boards: the boards that value the preflop's leaves: a seeded sample of this many, one pair of hands
            per pair of first-round buckets on each (``None``: every board with every pair, small decks only).
    """

    budget: driver.Budget = field(default_factory=lambda: driver.Budget(iterations=200))
    search_round: int | None = None
    config: CFRConfig = CFR_PLUS
    max_bytes: int | None = 2 * 1024**3
    late_factor: float = 3.0
    num_values: int | None = None
    bias_factor: float = 10.0
    river_cards: int | None = None
    river_sample: int | None = None
    rollout_cards: int | None = None
    raise_cap: int | None = None
    root: Literal["unsafe", "resolve", "maxmargin"] = "unsafe"
    preflop: bool = False
    preflop_boards: int | None = 256

    def __post_init__(self) -> None:
        r = self.search_round
        if r is not None and (isinstance(r, bool) or not isinstance(r, int) or r < 0):
            raise SubgameError(f"search_round must be a round index >= 0 or None, got {r!r}")
        k = self.num_values
        if k is not None and (isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= len(CONTINUATIONS)):
            raise SubgameError(f"num_values (K) must be 1 to {len(CONTINUATIONS)} or None, got {k!r}")
        if not self.bias_factor > 0:
            raise SubgameError(f"bias_factor must be positive, got {self.bias_factor!r}")
        for what, c in (("river_cards", self.river_cards), ("river_sample", self.river_sample),
                        ("rollout_cards", self.rollout_cards)):
            if c is not None and (isinstance(c, bool) or not isinstance(c, int) or c < 1):
                raise SubgameError(f"{what} must be >= 1 or None, got {c!r}")
        cap = self.raise_cap
        if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 1):
            raise SubgameError(f"raise_cap must be >= 1 or None, got {cap!r}")
        b = self.preflop_boards
        if b is not None and (isinstance(b, bool) or not isinstance(b, int) or b < 1):
            raise SubgameError(f"preflop_boards must be >= 1 or None, got {b!r}")
        if not self.late_factor >= 1:
            raise SubgameError(f"late_factor must be >= 1, got {self.late_factor!r}")
        if self.root not in ROOTS:
            raise SubgameError(f"root must be one of {', '.join(ROOTS)}, got {self.root!r}")


@dataclass(frozen=True)
class _Action:
    """One betting action of the hand as the agent replayed it."""

    round: int
    player: int
    name: str  #: the real action's public name (``f``, ``c``, ``r<to>``)
    node: int  #: the blueprint's betting node where it was taken (-1: off the abstraction)
    index: int  #: the abstract action it was translated to at ``node``
    board: tuple[int, ...]  #: the board when it was taken


@dataclass(frozen=True)
class _Path:
    """The public moves of a hand up to a decision, replayed."""

    actions: tuple[_Action, ...]
    boards: tuple[tuple[int, ...], ...]  #: the board at the start of each round reached
    starts: tuple[tuple[int, int], ...]  #: the contributions at the start of each round reached
    state: PokerState  #: the real state now (hole cards unknown)
    node: int  #: the blueprint's betting node now (-1: off the abstraction)

    def of_round(self, rnd: int) -> tuple[_Action, ...]:
        return tuple(a for a in self.actions if a.round == rnd)

    def key(self, rnd: int, upto: int) -> tuple[object, ...]:
        """The public path to the ``upto``-th action of round ``rnd`` (what a subgame rooted there depends on)."""
        return (self.boards[rnd], tuple(a.name for a in self.actions if a.round < rnd),
                tuple(a.name for a in self.of_round(rnd)[:upto]))


@dataclass(frozen=True, eq=False)
class _Solve:
    """A solved subgame from the start of one round: its game, tree and both players' average strategies."""

    game: PokerGame
    tree: PublicTree
    probs: tuple[np.ndarray, np.ndarray]  #: per player [I_p, A]
    iterations: int
    seconds: float
    upto: int  #: the round's actions above its root

    def decision(self, names: tuple[str, ...]) -> int:
        """The node after the round's actions ``names`` (-1: off its tree)."""
        return self.walk(names[self.upto :])

    def walk(self, names: tuple[str, ...], node: int = 0) -> int:
        """The public node after actions ``names`` from ``node``; a raise the tree lacks goes to the raise of the
        nearest amount; -1 where no child fits."""
        for name in names:
            kids = [int(c) for c in np.flatnonzero(self.tree.parent == node)]
            last = {str(self.tree.public_key[c][-1]): c for c in kids}
            if name in last:
                node = last[name]
                continue
            raises = [(abs(int(k[1:]) - int(name[1:])), c) for k, c in last.items() if k[:1] == "r" and k[1:].isdigit()]
            if not (name[:1] == "r" and name[1:].isdigit() and raises):
                return -1
            node = min(raises)[1]
        return node

    def rows(self, player: int, node: int) -> tuple[list[str], np.ndarray]:
        """``player``'s private states at ``node``: their labels and [n] their information sets."""
        pa = self.tree.players[player]
        lo, hi = (int(x) for x in np.searchsorted(pa.node, [node, node + 1]))
        return [pa.label[i] for i in range(lo, hi)], self._infoset_of_state[player][lo:hi]

    @cached_property
    def _infoset_of_state(self) -> tuple[np.ndarray, np.ndarray]:
        out = []
        for pa in self.tree.players:
            inv = np.full(pa.num_states, -1, dtype=np.int64)
            inv[pa.infoset_priv] = np.arange(pa.num_infosets)
            out.append(inv)
        return out[0], out[1]


class HunlSearchAgent:
    """Searches the later rounds of a no-limit poker game on an implicit blueprint; see the module docstring.

    Args:
        game: the real no-limit game (the ACPC HUNL game, or a reduced deck).
        blueprint: the implicit blueprint (``subgame blueprint``).
        abstraction: its card abstraction.
        config: how to search.
        name: for tables.

    Raises:
        GameDefinitionError: the blueprint is of other rules or another card abstraction.
        SubgameError: ``search_round`` beyond the game's last round.
    """

    def __init__(self, game: PokerGame, blueprint: Blueprint, abstraction: DealAbstraction,
                 config: HunlSearchConfig = HunlSearchConfig(), *, name: str = "search") -> None:
        self.game, self.config, self.name = game, config, name
        self.base = BlueprintAgent(game, blueprint, abstraction, name=f"{name} (blueprint)")
        rounds = game.spec.num_rounds
        self.search_round = rounds - 1 if config.search_round is None else config.search_round
        if self.search_round >= rounds:
            raise SubgameError(f"search_round {self.search_round} is beyond the game's last round {rounds - 1}")
        self.player = 0
        self.seed = 0
        self.fallbacks: list[str] = []  #: what made the agent play its blueprint instead of a solve
        self.decision_seconds: list[tuple[int, float]] = []  #: (round, seconds) of every decision
        self._solves: dict[tuple[object, ...], _Solve] = {}
        self._preflop_solves: dict[tuple[object, ...], _Solve] = {}  #: App. A's preflop solves, kept across hands
        self._preflop_tables: dict[int, PreflopTable] = {}  #: per opponent seat
        self._kept_ranges: dict[tuple[object, ...], tuple[np.ndarray, np.ndarray]] = {}
        self._last_searched = False  #: whether the last decision was a solve's (not the blueprint's)

    @cached_property
    def _hands(self) -> tuple[np.ndarray, tuple[str, ...]]:
        """[H, k] every hand of hole cards (ascending cards) and its label as the game writes it."""
        hands = hand_cards(self.game.spec)
        return hands, tuple(self.game.cards_str(h) for h in hands.tolist())

    @cached_property
    def blueprint_rows(self) -> BlueprintRows:
        """The blueprint's rows at every hand (Bayes' rule before the searched rounds)."""
        return BlueprintRows(self.base.blueprint, self.base.abstraction, self._hands[0])

    def new_hand(self, player: int, seed: int) -> None:
        if player not in (0, 1):
            raise SubgameError(f"the seat must be 0 or 1, got {player!r}")
        self.player = player
        self.seed = seed
        self.base.new_hand(player, seed)
        self._solves.clear()
        self._kept_ranges.clear()

    def act(self, view: View) -> Decision:
        """The agent's action probabilities at ``view``: the blueprint's before ``search_round``, a solve's after."""
        started = time.perf_counter()
        self.player = view.player
        path = self._replay(view)
        rnd = path.state.round
        decision: Decision | None = None
        if rnd >= self.search_round or self._preflop_searched(path):
            try:
                decision = self._searched(view, path)
            except SubgameError as e:  # GameDefinitionError and InvalidRangeError are SubgameErrors
                self._fall_back(f"round {rnd}, moves {[m.public for m in view.moves]}: {e}")
        self._last_searched = decision is not None
        if decision is None:
            decision = self.base.act(view)
        self.decision_seconds.append((rnd, time.perf_counter() - started))
        return decision.checked(view)

    def decision_rows(self, view: View) -> tuple[tuple[str, ...], np.ndarray, np.ndarray] | None:
        """At a decision it searched (``view`` just answered): every hand's label, its own range there (Bayes' rule
        along the hand, as its solves assume) and its solve's probabilities of ``view.legal`` at each hand; ``None``
        at a blueprint decision or after a fallback (:class:`~subgame.agents.table.ExposesRange`)."""
        path = self._replay(view)
        rnd = path.state.round
        names = tuple(a.name for a in path.of_round(rnd))
        if not self._last_searched:
            return None
        if rnd < self.search_round:
            if not self._preflop_searched(path):
                return None
            pre = self._preflop_solve(path)
            reach = self._preflop_ranges(path, pre, len(names))[view.player]
            return self._hands[1], reach, self._solve_rows(pre, path, view)
        solve = self._solves.get((view.player, path.key(rnd, len(names))))
        if solve is None:
            return None
        reach = self._ranges(path, rnd, len(names))[view.player]
        return self._hands[1], reach, self._solve_rows(solve, path, view)

    def _solve_rows(self, solve: _Solve, path: _Path, view: View) -> np.ndarray:
        """[H, len(view.legal)] the probabilities ``solve`` gives every hand at ``view``'s decision."""
        _, labels = self._hands
        names = tuple(a.name for a in path.of_round(path.state.round))
        sub_labels, infosets = solve.rows(view.player, solve.decision(names))
        probs = np.zeros((len(labels), len(view.legal)))
        rows = solve.probs[view.player][np.maximum(infosets, 0)] * (infosets >= 0)[:, None]
        for k, real in self._real_actions(solve, path, names, view).items():
            probs[:, view.legal.index(real)] += LabeledValues(sub_labels, rows[:, k]).at(labels, "the solve's strategy")
        return probs

    # -- as an opponent model (search_model.SearchModel) -------------------------------------
    def public_belief(self, view: View) -> tuple[PokerState, int, np.ndarray]:
        """The public state after ``view``'s moves, the blueprint's node there (-1: off the abstraction) and seat
        ``view.player``'s range over every hand as the agent keeps it (Bayes' rule along the hand)."""
        self.player = view.player
        path = self._replay(view)
        rnd = len(path.boards) - 1  # the round whose cards are out (the state may be past its last action)
        if rnd < self.search_round:
            return path.state, path.node, self._blueprint_ranges(path, len(path.boards))[view.player]
        return path.state, path.node, self._ranges(path, rnd, len(path.of_round(rnd)))[view.player]

    def searched_rows(self, view: View) -> np.ndarray | None:
        """[H, len(view.legal)] every hand's probabilities at ``view``'s decision where the agent searches it; ``None``
        where its blueprint plays (before the searched rounds, or where a solve falls back)."""
        self.player = view.player
        path = self._replay(view)
        rnd = path.state.round
        preflop = rnd < self.search_round
        if preflop and not self._preflop_searched(path):
            return None
        try:
            solve = self._preflop_solve(path) if preflop else self._solve(path, rnd, len(path.of_round(rnd)))
            return self._solve_rows(solve, path, view)
        except SubgameError as e:
            self._fall_back(f"round {rnd}, moves {[m.public for m in view.moves]}: {e}")
            return None

    def keep_solves(self, count: int) -> None:
        """Forget all but the ``count`` newest solves (a solve is a function of the public path and the seed only)."""
        while len(self._solves) > count:
            del self._solves[next(iter(self._solves))]
        if len(self._kept_ranges) > count:
            self._kept_ranges.clear()

    def _fall_back(self, why: str) -> None:
        LOG.warning("%s plays its blueprint: %s", self.name, why)
        self.fallbacks.append(why)

    # -- the public path ------------------------------------------------------------------
    def _replay(self, view: View) -> _Path:
        """The betting actions of ``view`` with the blueprint's node and translated action at each."""
        base, g, tree = self.base, self.game, self.base.blueprint.tree
        k = g.spec.hole_cards
        st = g.root()._replace(hole=(tuple(range(-k, 0)), tuple(range(-2 * k, -k))))
        node, actions = 0, []
        boards, starts = [st.board], [st.contrib]
        for index, move in enumerate(view.moves[2:]):
            cards = base._parse(move.public)
            if cards is not None:
                st = st._replace(board=st.board + cards)
                boards.append(st.board)
                starts.append(st.contrib)
                continue
            at, taken = node, -1
            if base.fits(node, st):
                node = base._abstract_child(node, st, move.public, index)
                kids = [tree.child(at, a) for a in tree.actions_of(at)]
                taken = kids.index(node) if node in kids else -1
            else:
                node = -1
            actions.append(_Action(st.round, st.to_act, move.public, at if taken >= 0 else -1, taken, st.board))
            st = base._advance(st, move.public)
        return _Path(tuple(actions), tuple(boards), tuple(starts), st, node)

    def _ranges(self, path: _Path, rnd: int, upto: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """Per player [H] her range over every hand after the first ``upto`` actions of round ``rnd`` (Bayes' rule
        along the path: the blueprint before the search, then the solve the agent's last decision used); read-only,
        kept for the hand like the solves (a function of the public path and the seed)."""
        key = (self.player, path.key(rnd, upto))
        kept = self._kept_ranges.get(key)
        if kept is None:
            kept = self._kept_ranges[key] = self._bayes(path, rnd, upto)
            for r in kept:
                r.setflags(write=False)
        return kept

    def _bayes(self, path: _Path, rnd: int, upto: int) -> tuple[np.ndarray, np.ndarray]:
        hands, _ = self._hands
        if upto > 0:
            before = self._ranges(path, rnd, upto - 1)
            actions = path.of_round(rnd)
            a = actions[upto - 1]
            root = max((j for j in range(upto) if actions[j].player == self.player), default=0)
            solve = self._solve(path, rnd, root)
            node = solve.walk(tuple(x.name for x in actions[root : upto - 1]))
            child = -1 if node < 0 else solve.walk((a.name,), node)
            if child < 0:  # the solve's tree lacks the action: no update
                return before
            out = [before[0], before[1]]
            after = before[a.player] * self._action_probs(solve, a.player, node, child)
            out[a.player] = after if after.sum() > 0 else before[a.player]  # a move the belief ruled out: kept as before
            return out[0], out[1]
        if rnd <= self.search_round:
            return self._blueprint_ranges(path, rnd)
        ended = self._ranges(path, rnd - 1, len(path.of_round(rnd - 1)))
        blocked = np.isin(hands, path.boards[rnd]).any(axis=1)
        return ended[0] * ~blocked, ended[1] * ~blocked

    def _blueprint_ranges(self, path: _Path, rnd: int) -> tuple[np.ndarray, np.ndarray]:
        """Per player [H] her range by the blueprint's rows after the actions before round ``rnd`` (``len(boards)``:
        every action), zero where the board then blocks a hand."""
        hands, _ = self._hands
        reach = [np.ones(len(hands)), np.ones(len(hands))]
        pre = self._preflop_belief(path) if rnd > 0 else None
        if pre is not None:  # the preflop as the solve that played it
            reach = list(self._preflop_ranges(path, pre, len(path.of_round(0))))
        for a in path.actions:
            if a.round >= rnd:
                break
            if a.node < 0 or (pre is not None and a.round == 0):  # off the abstraction: the blueprint says nothing more
                continue
            reach[a.player] *= self.blueprint_rows.at(a.node, a.board)[:, a.index]  # zero where the board blocks
        blocked = np.isin(hands, path.boards[min(rnd, len(path.boards) - 1)]).any(axis=1)
        return reach[0] * ~blocked, reach[1] * ~blocked

    def _preflop_ranges(self, path: _Path, solve: _Solve, upto: int) -> tuple[np.ndarray, np.ndarray]:
        """Per player [H] her range after the first ``upto`` preflop actions by the preflop solve's strategies."""
        hands, _ = self._hands
        reach = [np.ones(len(hands)), np.ones(len(hands))]
        node = 0
        for a in path.of_round(0)[:upto]:
            child = solve.walk((a.name,), node)
            if child < 0:
                break
            reach[a.player] = reach[a.player] * self._action_probs(solve, a.player, node, child)
            node = child
        return reach[0], reach[1]

    def _preflop_belief(self, path: _Path) -> _Solve | None:
        """The preflop solve whose strategies the hand's preflop ranges follow (``None``: the blueprint's)."""
        if not (self.config.preflop and self._off_tree_preflop(path)):
            return None
        try:
            return self._preflop_solve(path, late=False)
        except SubgameError as e:
            self._fall_back(f"the preflop of moves {[a.name for a in path.of_round(0)]}: {e}")
            return None

    def _action_probs(self, solve: _Solve, player: int, node: int, child: int) -> np.ndarray:
        """[H] the probability of the move ``node -> child`` at each hand of ``player`` in ``solve``."""
        _, labels = self._hands
        names, infosets = solve.rows(player, node)
        pa = solve.tree.players[player]
        clo = int(np.searchsorted(pa.node, child))
        column = int(pa.child_seq[clo]) % pa.max_actions
        probs = LabeledValues(names, solve.probs[player][infosets, column])
        return probs.at(labels, "the solve's action probabilities")

    # -- solving --------------------------------------------------------------------------
    def _off_tree_preflop(self, path: _Path) -> bool:
        """Whether a preflop raise of the hand is off the blueprint's tree (a size it lacks, or after one)."""
        bt = self.base.blueprint.tree
        return any(a.name.startswith("r") and (a.node < 0 or bt.child(a.node, a.name) < 0) for a in path.of_round(0))

    def _preflop_searched(self, path: _Path) -> bool:
        """Whether the decision now is a preflop one that App. A's preflop solve plays (:attr:`HunlSearchConfig.preflop`)."""
        return self.config.preflop and path.state.round == 0 and self._off_tree_preflop(path)

    def _preflop_solve(self, path: _Path, late: bool = True) -> _Solve:
        """The whole preflop with the real sizes and the hand's preflop sizes, solved from the deal to the flop's deal
        with the blueprint's later rounds at its leaves (depth-limited paper, App. A); kept for every hand that adds
        the same sizes. ``late``: refuse a first solve that ended past its budget (the leaves' table included) for the
        decision that made it, as a late solve is; it is kept all the same."""
        game = self._round_game(path, 0, len(path.of_round(0)))
        key = (self.player, game.spec.round_bet_fractions, game.spec.raise_cap)
        kept = self._preflop_solves.get(key)
        if kept is not None:
            return kept
        begun = time.perf_counter()
        cfg = self.config
        opponent = 1 - self.player
        table = self._preflop_tables.get(opponent)
        if table is None:
            table = self._preflop_tables[opponent] = PreflopTable.build(
                self.game, self.base.blueprint, self.base.abstraction, opponent, cfg.num_values or 1,
                factor=cfg.bias_factor, boards=cfg.preflop_boards, max_bytes=cfg.max_bytes)
        sub = subgame_at(game, None, max_bytes=cfg.max_bytes, chance_limit=1, before_deal=True)
        started = time.perf_counter()
        values = PreflopValues.build(game, sub.tree, table, self._leaf_nodes(path, 0, game, sub.tree, dealt=False))
        solver = CFRSolver(sub.tree, cfg.config, root_reach=sub.root_reach, leaves=(MultiValuedLeaf(sub.tree, values),),
                           drop_zero_weight=None, compact=None)
        driver.run(solver, cfg.budget)
        avg = solver.average_strategy()
        out = _Solve(game, sub.tree, (avg.probs[0], avg.probs[1]), solver.iteration, time.perf_counter() - started, 0)
        LOG.info("%s: the preflop solved again with sizes %s (%d iterations, %.1f s)", self.name,
                 list(game.spec.fractions(0)), out.iterations, out.seconds)
        while len(self._preflop_solves) >= KEPT_PREFLOP_SOLVES:
            del self._preflop_solves[next(iter(self._preflop_solves))]
        self._preflop_solves[key] = out
        seconds, took = cfg.budget.seconds, time.perf_counter() - begun
        if late and seconds is not None and took > cfg.late_factor * seconds:
            raise SubgameError(f"the preflop solve took {took:.1f} s with its leaves' table, more than "
                               f"{cfg.late_factor:g} x its budget of {seconds:g} s (kept for the next hand)")
        return out

    def _solve(self, path: _Path, rnd: int, upto: int) -> _Solve:
        """The subgame after the first ``upto`` actions of round ``rnd``, to the end of the game, solved (cached)."""
        key = (self.player, path.key(rnd, upto))
        if key in self._solves:
            return self._solves[key]
        ranges = self._ranges(path, rnd, upto)
        game = self._round_game(path, rnd, upto)
        names = tuple(a.name for a in path.of_round(rnd)[:upto])
        _, labels = self._hands
        free = ~np.isin(self._hands[0], path.boards[rnd]).any(axis=1)
        reach = [(r if r.sum() > 0 else np.ones_like(r)) * free for r in ranges]
        reach[self.player] = reach[self.player] + OWN_FLOOR * reach[self.player].max() * free
        given = tuple(LabeledValues(labels, r) for r in reach)
        cfg = self.config
        last = self.game.spec.num_rounds - 1
        cut = cfg.num_values is not None and last - 2 <= rnd < last  # the flop and the turn: to the round's end
        leaf_cards = sampled_cards(game, path.boards[rnd], cfg.river_cards, self.seed) if cut else None
        sub = subgame_at(game, ("", "") + names, (given[0], given[1]), max_bytes=cfg.max_bytes,
                         chance_limit=1 if cut else None, leaf_cards=leaf_cards)
        started = time.perf_counter()
        leaves: tuple[MultiValuedLeaf, ...] = ()
        if cut and (sub.tree.kind == LEAF).any():  # no leaf where both are all-in: to the end of the game
            assert cfg.num_values is not None
            values = PokerRoundValues.build(
                game, sub.tree, self.base.blueprint, self.base.abstraction, self._leaf_nodes(path, rnd, game, sub.tree),
                self.player, cfg.num_values, factor=cfg.bias_factor, max_bytes=cfg.max_bytes,
                per_iteration=cfg.river_sample, seed=self.seed, rollout_cards=cfg.rollout_cards)
            leaves = (MultiValuedLeaf(sub.tree, values),)
        gadget = self._gadget(path, rnd, upto, game, sub.tree, sub.root_reach[self.player]) if not cut else None
        # where it is solved to the end of the game from fixed ranges: the passes over the ranges' hands, compact
        solver = CFRSolver(sub.tree, cfg.config, root_reach=sub.root_reach, leaves=leaves, gadget=gadget,
                           drop_zero_weight=None, compact=None)
        driver.run(solver, self.config.budget)
        avg = solver.average_strategy()
        out = _Solve(game, sub.tree, (avg.probs[0], avg.probs[1]), solver.iteration, time.perf_counter() - started, upto)
        seconds = self.config.budget.seconds
        if seconds is not None and out.seconds > self.config.late_factor * seconds:
            raise SubgameError(f"the solve took {out.seconds:.1f} s, more than {self.config.late_factor:g} x its "
                               f"budget of {seconds:g} s")
        self._solves[key] = out
        return out

    def _gadget(self, path: _Path, rnd: int, upto: int, game: PokerGame, tree: PublicTree,
                reach: np.ndarray) -> ResolveGadget | MaxMarginGadget | None:
        """The safe root of a last-round subgame (:attr:`HunlSearchConfig.root`), or ``None`` (unsafe)."""
        root = self.config.root
        if root == "unsafe" or rnd != self.game.spec.num_rounds - 1:
            return None
        bt, node = self.base.blueprint.tree, 0
        for a in (*(a for a in path.actions if a.round < rnd), *path.of_round(rnd)[:upto]):
            node = -1 if a.node < 0 or node < 0 else bt.child(a.node, bt.actions_of(a.node)[a.index])
        if node < 0 or bt.kind[node] != DECISION or int(bt.round[node]) != rnd:
            LOG.info("%s: the path to the round %d subgame leaves the blueprint's tree: its root is unsafe", self.name, rnd)
            return None
        alt = blueprint_root_values(game, tree, self.base.blueprint, self.base.abstraction, node, self.player, reach)
        return (ResolveGadget if root == "resolve" else MaxMarginGadget)(1 - self.player, alt)

    def _leaf_nodes(self, path: _Path, rnd: int, game: PokerGame, tree: PublicTree,
                    dealt: bool = True) -> dict[tuple[str, ...], int]:
        """The blueprint's node of each leaf sequence of a round's subgame: the round's betting translated from the
        blueprint's node at the round's start, each off-tree raise to its likeliest translation (App. A: leaves mapped
        by the similarity of the action sequence). Where the path to the round's start left the blueprint's tree (an
        earlier off-tree bet translated to a line the real game did not take, such as an all-in), the round starts at
        the blueprint's start of that round whose pot is nearest the real one. ``dealt``: the leaves follow the next
        round's cards (their keys end with them), else they are before that deal."""
        bt = self.base.blueprint.tree
        start = 0
        for a in path.actions:
            if a.round >= rnd:
                break
            start = -1 if a.node < 0 or start < 0 else bt.child(a.node, bt.actions_of(a.node)[a.index])
        if start < 0 or bt.kind[start] != DECISION or int(bt.round[start]) != rnd:
            start = self._nearest_start(rnd, path.starts[rnd][0])
        root = game.root()._replace(hole=path.state.hole)
        out: dict[tuple[str, ...], int] = {}
        for key in {tree.public_key[int(n)][: -1 if dealt else None] for n in np.flatnonzero(tree.kind == LEAF)}:
            node, st = start, root
            for name in key[2:]:
                if node >= 0 and bt.kind[node] == DECISION:
                    node = max(self.base.abstract_children(node, st, name), key=lambda x: x[1])[0]
                st = _after(game, st, name)
            if node < 0:
                raise SubgameError(f"no blueprint node fits the leaf sequence {list(key[2:])}")
            out[key] = node
        return out

    def _nearest_start(self, rnd: int, contrib: int) -> int:
        """The blueprint's first decision of round ``rnd`` whose contribution is nearest ``contrib`` (in ratio)."""
        bt = self.base.blueprint.tree
        prev = bt.decision_nodes(rnd - 1) if rnd > 0 else np.zeros(0, np.int64)
        kids = np.concatenate([bt.children[bt.first_child[m] : bt.first_child[m] + bt.num_actions[m]] for m in prev]
                              or [np.zeros(1 if rnd == 0 else 0, np.int64)])
        starts = np.unique(kids[(bt.kind[kids] == DECISION) & (bt.round[kids] == rnd)]).astype(np.int64)
        if not starts.size:
            raise SubgameError(f"the blueprint has no node at the start of round {rnd}")
        node = int(starts[np.argmin(np.abs(np.log(bt.contrib[starts, 0] / max(contrib, 1))))])
        LOG.info("%s: the path left the blueprint before round %d; its leaves start at the blueprint's node %d (pot "
                 "%d against the real %d)", self.name, rnd, node, int(bt.contrib[node, 0]), contrib)
        return node

    def _round_game(self, path: _Path, rnd: int, upto: int) -> PokerGame:
        """The rest of the game from the start of round ``rnd``: its board, the pot as an ante, the real bet sizes
        and the bets of the round's first ``upto`` actions that they lack (as pot fractions giving their amounts)."""
        s = self.game.spec
        c0, c1 = path.starts[rnd]
        if c0 != c1 and rnd > 0:
            raise SubgameError(f"round {rnd} starts with unequal contributions {c0}, {c1}")
        extra: list[float] = []
        raises = 0
        st = self.game.root()._replace(hole=path.state.hole) if rnd == 0 else path.state._replace(
            board=path.boards[rnd], contrib=(c0, c0), round=rnd, raises=0, acted=0, to_act=s.first_player[rnd],
            last_raise=max(s.blinds), folded=-1, betting_over=False)
        for a in path.of_round(rnd)[:upto]:
            if a.name.startswith("r"):
                raises += 1
                top, to_call = max(st.contrib), max(st.contrib) - st.contrib[a.player]
                amount = int(a.name[1:])
                if amount < s.stack:
                    extra.append((amount - top) / (sum(st.contrib) + to_call))
            st = self.base._advance(st, a.name)
        fractions = [tuple(s.fractions(r)) for r in range(rnd, s.num_rounds)]
        fractions[0] = tuple(sorted(set(fractions[0]) | set(extra)))
        cap = s.raise_cap if self.config.raise_cap is None else max(self.config.raise_cap, raises)
        if rnd == 0:  # the whole game, its first round's sizes extended
            spec = replace(s, bet_fractions=fractions[0], round_bet_fractions=tuple(fractions), raise_cap=cap)
            return PokerGame(spec, name=f"{self.game.name} with its preflop sizes")
        board = path.boards[rnd]
        spec = replace(s, ante=c0, blinds=(0, 0), board=board, board_cards=(len(board),) + s.board_cards[rnd + 1 :],
                       first_player=s.first_player[rnd:], bet_fractions=fractions[0], round_bet_fractions=tuple(fractions),
                       raise_cap=cap)
        return PokerGame(spec, name=f"{self.game.name} from round {rnd}")

    def _searched(self, view: View, path: _Path) -> Decision:
        """The agent's row of the current round's solve at its hand, as real legal actions."""
        rnd = path.state.round
        names = tuple(a.name for a in path.of_round(rnd))
        solve = self._preflop_solve(path) if rnd < self.search_round else self._solve(path, rnd, len(names))
        node = solve.decision(names)
        if node < 0:
            raise SubgameError(f"the solve's tree lacks the moves {list(names)}")
        labels, infosets = solve.rows(view.player, node)
        found = [i for i, label in zip(infosets.tolist(), labels) if label == view.private_label]
        if not found or found[0] < 0:
            raise SubgameError(f"the hand {view.private_label!r} is not in the subgame at {list(names)}")
        inf = found[0]
        out: dict[int, float] = {}
        for k, real in self._real_actions(solve, path, names, view).items():
            p = float(solve.probs[view.player][inf, k])
            if p > 0:
                out[real] = out.get(real, 0.0) + p
        total = sum(out.values())
        if not total > 0:
            raise SubgameError(f"the solve's strategy at {list(names)} is empty")
        return Decision({a: p / total for a, p in out.items()})

    def _real_actions(self, solve: _Solve, path: _Path, names: tuple[str, ...], view: View) -> dict[int, int]:
        """{column of the solve's root row: the real legal action it is played as}, the same at every hand."""
        pa = solve.tree.players[view.player]
        _, infosets = solve.rows(view.player, solve.decision(names))
        inf = int(infosets[infosets >= 0][0])
        sub_state = solve.game.root()._replace(hole=path.state.hole)
        for name in names:
            sub_state = _after(solve.game, sub_state, name)
        to = dict(solve.game._betting_actions(sub_state))
        return {k: self._real(path.state, a, to[a], view.legal)
                for k, (a, ok) in enumerate(zip(pa.action_ids[inf].tolist(), pa.legal[inf].tolist())) if ok}

    def _real(self, st: PokerState, action: int, amount: int, legal: tuple[int, ...]) -> int:
        """The real legal action a subgame action (id ``action``, contributing ``amount``) is played as."""
        if action == FOLD:
            return FOLD if FOLD in legal else CALL
        if action == CALL:
            return CALL
        real = [(a, to) for a, to in self.game._betting_actions(st) if a >= 2 and a in legal]
        if not real:
            return CALL
        return min(real, key=lambda x: (abs(x[1] - amount), x[1]))[0]


def _after(game: PokerGame, st: PokerState, name: str) -> PokerState:
    """The state after the legal action named ``name``."""
    for a in game.legal_actions(st):
        if game.action_name(st, a) == name:
            return game.next_state(st, a)
    raise SubgameError(f"action {name!r} is not legal in {game.name} here")
