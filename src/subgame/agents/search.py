"""An agent that searches as it plays: nested depth-limited solving (Brown, Sandholm & Amos 2018, Appendix A).

The agent holds a blueprint σ̂ of the whole game and never plays it directly. As the hand
proceeds it solves subgames rooted at the current public state, the way the paper's agent
Modicum did, and it never needs the game's whole tree:

* **Subgames from public states.** Every subgame is compiled from the game's rules at the
  public state it starts in, with both ranges there
  (:func:`~subgame.tree.public_state.subgame_at`, its size estimated before it is built),
  to the end of the round or of the game; the ranges along the path live on the trees
  the agent compiled and are carried from one to the next by private-state label. The
  blueprint is asked per information set, on each part the agent compiles
  (:class:`~.blueprints.Blueprint`): a strategy of the whole tree where one exists
  (:class:`~.blueprints.TreeBlueprint`), or any blueprint that answers on parts. Only
  self-generative continuations need the whole tree (they solve it); exact and rollout
  leaf values compile the game below a subgame's leaves and ask the blueprint there.

* **Nested unsafe solving with Bayesian beliefs, early rounds.** Each player's range (her
  reach over her private states) is kept along the public path. The agent's own range is
  the product of its own action probabilities as it actually played them; the opponent's
  is a belief, updated by Bayes' rule assuming she played the strategy the last solve
  computed for her. Whenever the opponent acts, a subgame rooted immediately *before* her
  action is solved with her range fixed to the belief (the unsafe gadget); the agent's
  own decisions inside that subgame come from the solve, and where the agent acts at a
  public state no solve reaches (after a chance event), a subgame is rooted there.
* **Depth limits with multi-valued states.** While the rest of the game does not fit
  (a public chance event lies below the root), the subgame is cut after ``chance_limit``
  public chance events (the end of the current betting round, as Modicum solved the
  first two rounds) and its leaves are :class:`~subgame.depthlimited.MultiValuedLeaf`: the
  opponent picks one of K continuation strategies per leaf information set (bias or
  self-generative sets, §4 and Appendix A) while the agent plays its blueprint below.
  Leaf values are computed once for the leaves of the game's first cut and stored in a
  :class:`~subgame.depthlimited.LeafValueTable` (Modicum stored its first-round values in a
  table); leaves the table lacks are valued when a subgame meets them.
* **Safe solving once the rest of the game fits.** With no public chance event left below
  the root, the subgame is solved to the end of the game, safely, with the ``resolve``
  gadget (or ``maxmargin``): the opponent's alternative payoff at each root information set
  is her counterfactual best-response value in the previously solved subgame against the
  agent's strategy there (at a depth-limit leaf: the value of her best continuation, as the
  paper's §6.1 experiment solved the rest of the game after its depth-limited subgame).
  Where we differ: Modicum solved the first subgame of its last part unsafely (our
  ``first_final="unsafe"``) and used Reach subgame solving (gifts added to the
  alternatives); we use the gadget without gifts. On small games the beliefs of unsafe
  solving often give zero probability to hands the opponent holds, and an agent that
  solves the last round from them is very exploitable (Leduc, K = 4, a 100-iteration
  CFR+ blueprint, 100 iterations per solve: 1.25 chips/hand with ``first_final="unsafe"``,
  0.0088 with the safe default, 0.0134 for the blueprint itself).
* **A budget per decision, a cache of solved subgames.** Every solve runs for the
  :class:`~subgame.solve.driver.Budget` of the configuration under the CFR preset it names
  (the Modicum schedule by default). A solve is a function of the public path to its root,
  so it is cached by (seat, public state) and computed once however often play reaches it.

Determinism: with an iteration budget the agent is a fixed function of its views, so
:func:`~subgame.agents.exact.agent_strategy` can ask it at every information set and the
exploitability of what it plays is exact. A budget in seconds makes solves depend on the
machine's speed. Rollout leaf values are drawn once, from the agent's ``seed``.

Where the paper is silent: when the opponent reaches a public state that the belief gives
probability zero, her belief is reset to the uninformed range (ones) before solving.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np

from ..depthlimited import (
    Continuations,
    ExactValues,
    LeafValues,
    LeafValueTable,
    MultiValuedLeaf,
    RolloutValues,
    bias_continuations,
    depth_limited_part,
    depth_limited_tree,
    self_generative_continuations,
)
from ..depthlimited.values import LeafValueSource
from ..errors import GameDefinitionError, SubgameError
from ..eval.best_response import best_response_to_reach
from ..games.base import Game, game_fingerprint
from ..resolving.problem import GadgetSpec, SubgameProblem, resolve_subgame
from ..resolving.solving import blueprint_values
from ..solve.cfr import MODICUM, CFRConfig
from ..solve.driver import Budget
from ..strategy import Strategy
from ..tree.compile import compile_game
from ..tree.enumeration import enumerate_game
from ..tree.lookup import InfosetLookup, lookups
from ..tree.part import Part
from ..tree.public_state import LabeledValues, RangeLike, subgame_at
from ..tree.public_tree import DECISION, LEAF, TERMINAL_NODE, PublicKey, PublicTree
from ..tree.sweep import forward_reach, transition_weights
from .base import Decision, View, infoset_key
from .blueprints import Blueprint, TreeBlueprint
from .exact import agent_strategy

ContinuationKind = Literal["bias", "self-generative"]
SafeGadget = Literal["resolve", "maxmargin"]


@dataclass(frozen=True)
class SearchConfig:
    """How the search agent solves.

    Attributes:
        num_values: K, the opponent's continuations per leaf information set.
        continuations: ``"bias"`` (blueprint, then fold / check-call / bet-raise ×10) or
            ``"self-generative"`` (generated once at the game's start, §4).
        leaf_values: ``"exact"`` (a traversal below the leaves) or ``"rollouts"``.
        rollouts: rollouts per leaf history and continuation (Appendix A used three).
        budget: of every subgame solve (the budget per decision).
        config: the CFR update rule of the solves (default: the Modicum schedule).
        chance_limit: a depth-limited subgame ends after this many public chance events.
        safe_gadget: the gadget of safe solving in the last part of the game.
        first_final: how the first subgame that reaches the end of the game is solved:
            ``"safe"`` (alternative payoffs from the depth-limited solve's leaf values, as
            the paper's §6.1 experiment did after the first round) or ``"unsafe"`` (with
            the beliefs, as Modicum did on the third round).
        early: how the subgames that end at a depth limit are solved after the first one:
            ``"unsafe"`` (Bayesian beliefs, Modicum) or ``"safe"`` (the safe gadget, with
            the previous solve's values as alternative payoffs).
        generation_iterations: CFR iterations of each self-generative round.
        max_bytes: the memory each subgame and its solve may take, estimated before it is
            built (:func:`~subgame.tree.public_state.subgame_at`); ``None``: the memory available.
    """

    num_values: int = 4
    continuations: ContinuationKind = "bias"
    leaf_values: Literal["exact", "rollouts"] = "exact"
    rollouts: int = 3
    budget: Budget = field(default_factory=lambda: Budget(iterations=200))
    config: CFRConfig = MODICUM
    chance_limit: int = 1
    safe_gadget: SafeGadget = "resolve"
    first_final: Literal["safe", "unsafe"] = "safe"
    early: Literal["unsafe", "safe"] = "unsafe"
    generation_iterations: int = 200
    max_bytes: int | None = None

    def __post_init__(self) -> None:
        k = self.num_values
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise SubgameError(f"the number of values K must be a whole number >= 1, got {k!r}")
        if self.continuations not in ("bias", "self-generative"):
            raise SubgameError(f"unknown continuation set {self.continuations!r}; choose bias or self-generative")
        if self.leaf_values not in ("exact", "rollouts"):
            raise SubgameError(f"unknown leaf values {self.leaf_values!r}; choose exact or rollouts")
        for name in ("first_final", "early"):
            if getattr(self, name) not in ("safe", "unsafe"):
                raise SubgameError(f"{name} must be safe or unsafe, got {getattr(self, name)!r}")
        if self.safe_gadget not in ("resolve", "maxmargin"):
            raise SubgameError(f"the safe gadget must be resolve or maxmargin, got {self.safe_gadget!r}")
        for name in ("chance_limit", "rollouts", "generation_iterations"):
            x = getattr(self, name)
            if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 1:
                raise SubgameError(f"{name} must be a whole number >= 1, got {x!r}")
        m = self.max_bytes
        if m is not None and (isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1):
            raise SubgameError(f"max_bytes must be a whole number of bytes >= 1 or None, got {m!r}")


@dataclass(eq=False)
class SolvedSubgame:
    """One solved subgame of the agent (a cache entry).

    Attributes:
        root: the public state at its root.
        tree: the subgame's tree (depth-limited or to the end of the game).
        player: the agent's seat (the re-solver).
        probs: per player [I_sub_p, A] her strategy in the subgame: the agent's, and what
            the agent assumes the opponent plays.
        decides: the public states where the subgame's tree has a decision (not a leaf).
        root_reach: [R_player] the agent's reach at the subgame's root states.
        gadget: ``"unsafe"``, ``"resolve"`` or ``"maxmargin"``.
        depth_limited: whether the subgame is cut by a depth limit.
        iterations: CFR iterations run.
    """

    root: PublicKey
    tree: PublicTree
    player: int
    probs: tuple[np.ndarray, np.ndarray]
    decides: frozenset[PublicKey]
    root_reach: np.ndarray
    gadget: str
    depth_limited: bool
    iterations: int
    leaf: MultiValuedLeaf | None = None
    _opp_cbv: np.ndarray | None = field(default=None, repr=False)

    def opponent_cbv(self) -> np.ndarray:
        """[G_sub_opp] the opponent's counterfactual best-response values against the agent's solved strategy.

        At depth-limit leaves she takes her best continuation (the leaf's value of the
        multi-valued state, 2018 §4), so a safe solve below a leaf holds her to it.
        """
        if self._opp_cbv is None:
            me, opp, tree = self.player, 1 - self.player, self.tree
            reach = forward_reach(tree, me, transition_weights(tree, me, self.probs[me]), self.root_reach)
            leaf_cfv = None
            if self.leaf is not None:
                both = [reach, reach]
                both[opp] = np.zeros(tree.players[opp].num_states)  # her leaf values read only the agent's reach
                leaf_cfv = self.leaf.evaluate(opp, (both[0], both[1]), "best")
            self._opp_cbv = best_response_to_reach(tree, opp, reach, leaf_cfv=leaf_cfv, want_policy=False).cbv
        return self._opp_cbv

    @cached_property
    def _lookups(self) -> tuple[InfosetLookup, InfosetLookup]:
        return lookups(self.tree)

    @property
    def infoset_of_state(self) -> tuple[np.ndarray, np.ndarray]:
        """Per player [G_sub_p] the information set of each private state (-1 where she does not act)."""
        return self._lookups[0].of_state, self._lookups[1].of_state

    def infoset(self, player: int, node: int, label: str) -> int:
        """``player``'s information set with private label ``label`` at public ``node`` of the tree (-1 if none)."""
        return self._lookups[player].at(node, label)


@dataclass(frozen=True, eq=False)
class _PathState:
    """What the agent knows at a public state of the path: both ranges and the solve in force."""

    key: PublicKey
    tree: PublicTree  #: a compiled tree holding the public state (where its ranges were computed)
    node: int  #: the public state's node in ``tree``
    reach: tuple[np.ndarray, np.ndarray]  #: per player, over her private states at ``node`` of ``tree``
    solve: SolvedSubgame | None


class SearchAgent:
    """Nested depth-limited search on a blueprint; see the module docstring.

    Args:
        game: the rules.
        tree: the whole game's compiled tree, with ``blueprint`` a strategy on it; or
            ``None``, with ``blueprint`` queried per information set (:class:`~.blueprints.Blueprint`):
            the agent then never compiles the whole tree.
        blueprint: σ̂.
        config: how to solve.
        seed: of the rollout leaf values (unused with exact values).
        name: for tables.

    Raises:
        GameDefinitionError: the tree or the blueprint is of another game, or the tree has
            depth-limit leaves.
        SubgameError: self-generative continuations with a blueprint that is not a
            strategy of the whole tree (they solve it).
    """

    def __init__(self, game: Game, tree: PublicTree | None, blueprint: Strategy | Blueprint,
                 config: SearchConfig = SearchConfig(), *, seed: int = 0, name: str | None = None) -> None:
        self.blueprint = _blueprint(game, tree, blueprint)
        self._whole = self.blueprint if isinstance(self.blueprint, TreeBlueprint) else None
        if self._whole is None and config.continuations == "self-generative":
            raise SubgameError("self-generative continuations solve the whole game: give the search agent the game's "
                               "tree, or use bias continuations")
        self.game, self.config, self.seed = game, config, seed
        self._name = name or f"search (K={config.num_values}, {config.continuations})"
        self.player = 0
        self.solves: dict[tuple[int, PublicKey], SolvedSubgame] = {}
        self._states: dict[tuple[int, PublicKey], _PathState] = {}
        self._probes: dict[PublicKey | None, PublicTree] = {}
        self._tables: dict[int, LeafValueTable] = {}
        self._below: dict[tuple[PublicKey, ...], PublicTree] = {}
        self._continuations: dict[int, Continuations] = {}
        self._exact: ExactValues | None = None
        self._rollouts: RolloutValues | None = None

    # -- the Agent protocol --------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def tree(self) -> PublicTree | None:
        """The whole game's tree where the blueprint is a strategy on it (a :class:`~.blueprints.TreeBlueprint`)."""
        return None if self._whole is None else self._whole.tree

    def new_hand(self, player: int, seed: int) -> None:
        """A hand starts in seat ``player``; solved subgames stay cached across hands."""
        if player not in (0, 1):
            raise SubgameError(f"the seat must be 0 or 1, got {player!r}")
        self.player = player

    def behaviour(self, tree: PublicTree) -> Strategy:
        """The strategy the agent plays in both seats (:func:`~.exact.agent_strategy`: every
        information set it reaches queried as in play, so matches get exact values and AIVAT)."""
        if tree.game_id != self.blueprint.game_id:
            raise SubgameError(f"the search agent plays {self.blueprint.game_id!r}, not {tree.game_id!r}")
        both = [agent_strategy(self, self.game, tree, p, seed=self.seed) for p in (0, 1)]
        return Strategy(tree.game_id, (both[0], both[1]), {"algo": f"agent: {self.name}"})

    def act(self, view: View) -> Decision:
        """The agent's action probabilities at ``view`` (solving the subgames its path needs)."""
        if view.player != self.player:
            raise SubgameError(f"the view is player {view.player}'s but the agent sits in seat {self.player}; "
                               "call new_hand with the seat first")
        key, label = infoset_key(view)
        state = self._state(key)
        where = None if state is None else self._expanded_at(state)
        if state is None or where is None or where[0].kind[where[1]] != DECISION or where[0].actor[where[1]] != view.player:
            raise SubgameError(f"public state {list(key)!r} is not a decision of player {view.player} in {self.game.name}")
        solve = self._solve_for(state, view.player)
        local = solve.tree.node_of_key[key]
        inf = solve.infoset(view.player, local, label)
        if inf < 0:
            raise SubgameError(f"player {view.player} has no information set {label!r} at public state {list(key)!r}")
        row = solve.probs[self.player][inf]
        pa = solve.tree.players[self.player]
        probs = {int(a): float(p) for a, p, ok in zip(pa.action_ids[inf], row, pa.legal[inf]) if ok}
        total = sum(probs.values())
        return Decision({a: p / total for a, p in probs.items()}).checked(view)

    # -- the path ---------------------------------------------------------------------
    def _root(self) -> _PathState:
        """The game's first public state: both ranges uninformed, no solve yet."""
        tree = self._probe(None)
        key = (self.player, tree.public_key[0])
        if key not in self._states:
            rs = tree.root_slice
            self._states[key] = _PathState(tree.public_key[0], tree, 0, (np.ones(rs[0].stop - rs[0].start),
                                                                          np.ones(rs[1].stop - rs[1].start)), None)
        return self._states[key]

    def _probe(self, key: PublicKey | None) -> PublicTree:
        """The public state ``key`` (``None``: the game's start) and its children, compiled to depth 1."""
        if key not in self._probes:
            self._probes[key] = compile_game(self.game, public_state=key, depth_limit=1)
        return self._probes[key]

    def _state(self, key: PublicKey) -> _PathState | None:
        """Both ranges and the solve in force at public state ``key`` (memoized by seat and public state);
        ``None`` where play never reaches it. Walked down from the deepest public state known above it."""
        state = self._root()
        for end in range(len(key), len(state.key) - 1, -1):
            known = self._states.get((self.player, key[:end]))
            if known is not None:
                state = known
                break
        if key[: len(state.key)] != state.key:
            return None
        while state.key != key:
            child = self._child(state, key)
            if child is None:
                return None
            self._states[(self.player, child.key)] = state = child
        return state

    def _expanded_at(self, state: _PathState) -> tuple[PublicTree, int] | None:
        """A compiled tree where ``state``'s public state has its children, and its node there (``None``: terminal)."""
        tree, node = state.tree, state.node
        if tree.kind[node] == LEAF:
            tree, node = self._probe(state.key), 0
        return None if tree.kind[node] == TERMINAL_NODE else (tree, node)

    def _child(self, up: _PathState, key: PublicKey) -> _PathState | None:
        """The state one public step below ``up`` toward ``key``: the acting player's range weighted by the
        strategy of the solve that decides at ``up`` (Bayes' rule along the path), the others' carried."""
        where = self._expanded_at(up)
        if where is None:
            return None
        tree, node = where
        deciding = None
        if tree.kind[node] == DECISION:
            deciding = self._solve_for(up, int(tree.actor[node]))
            tree, node = deciding.tree, deciding.tree.node_of_key[up.key]
        kids = np.flatnonzero(tree.parent == node)
        found = [int(c) for c in kids if key[: len(tree.public_key[c])] == tree.public_key[c]]
        if not found:
            return None
        child = found[0]
        reach = [_carry(up.reach[p], up.tree, up.node, tree, node, p) for p in (0, 1)]
        if deciding is not None:
            actor = int(tree.actor[node])
            pa = tree.players[actor]
            lo, hi = _block(tree, actor, node)
            clo, _ = _block(tree, actor, child)
            probs = deciding.probs[actor][deciding.infoset_of_state[actor][lo:hi]]
            reach[actor] = reach[actor] * probs[:, int(pa.child_seq[clo]) % pa.max_actions]
        for p, pa in enumerate(tree.players):
            lo, hi = _block(tree, p, child)
            reach[p] = reach[p][pa.parent[lo:hi] - _block(tree, p, node)[0]]
        return _PathState(tree.public_key[child], tree, child, (reach[0], reach[1]),
                          up.solve if deciding is None else deciding)

    def _solve_for(self, state: _PathState, actor: int) -> SolvedSubgame:
        """The solve that decides at ``state`` (where ``actor`` acts): a new one rooted there when the opponent
        acts (nested solving) or when no solve in force reaches it; the one in force otherwise."""
        if actor == self.player and state.solve is not None and state.key in state.solve.decides:
            return state.solve
        key = (self.player, state.key)
        if key not in self.solves:
            self.solves[key] = self._solve(state)
        return self.solves[key]

    # -- solving ----------------------------------------------------------------------
    def _solve(self, state: _PathState) -> SolvedSubgame:
        """Solve the subgame rooted at ``state`` for the agent (module docstring)."""
        game, cfg = self.game, self.config
        me, opp, root_key = self.player, 1 - self.player, state.key
        prev = state.solve
        ranges: list[RangeLike] = [None, None]
        for p in (0, 1):
            lo, hi = _block(state.tree, p, state.node)
            ranges[p] = LabeledValues(state.tree.players[p].label[lo:hi], state.reach[p])
        sub = subgame_at(game, None if root_key == self._root().key else root_key, (ranges[0], ranges[1]),
                         chance_limit=cfg.chance_limit, leaf_histories=cfg.leaf_values == "rollouts",
                         max_bytes=cfg.max_bytes)
        tree = sub.tree
        fits = not np.any(tree.kind == LEAF)  # no public chance event below with play after it
        my_reach = sub.root_reach[me]
        leaves: tuple[MultiValuedLeaf, ...] = ()
        if not fits:
            leaves = (MultiValuedLeaf(tree, self._leaf_values(tree)),)
        safe = prev is not None and root_key in prev.tree.node_of_key and (
            (fits and (not prev.depth_limited or cfg.first_final == "safe")) or (not fits and cfg.early == "safe"))
        gadget: str
        if safe:
            assert prev is not None  # for the type checker
            gadget = cfg.safe_gadget
            alt = sub.align(opp, LabeledValues.block(prev.tree, opp, prev.tree.node_of_key[root_key], prev.opponent_cbv()),
                            "alternative payoffs")
            problem = SubgameProblem(sub.part, me, my_reach, alt, GadgetSpec(gadget))
        else:
            gadget = "unsafe"
            belief = sub.root_reach[opp]
            if not belief.sum() > 0:
                belief = np.ones_like(belief)
            problem = SubgameProblem(sub.part, me, my_reach, np.full(belief.size, np.nan), GadgetSpec("unsafe"),
                                     opponent_reach=belief)
        sol = resolve_subgame(problem, config=cfg.config, leaves=leaves, budget=cfg.budget)
        assert sol.opponent_probs is not None  # resolve_subgame always sets it
        probs = (sol.probs, sol.opponent_probs) if me == 0 else (sol.opponent_probs, sol.probs)
        decides = frozenset(tree.public_key[n] for n in np.flatnonzero(tree.kind == DECISION))
        return SolvedSubgame(root_key, tree, me, probs, decides, my_reach, gadget, not fits, sol.iterations,
                             leaves[0] if leaves else None)

    def _leaf_values(self, tree: PublicTree) -> LeafValues:
        """The K values at ``tree``'s leaves for the agent: from the table of the game's first cut, else computed."""
        table = self._table(self.player)
        try:
            return table.leaf_values(tree)
        except SubgameError:  # a leaf beyond the first cut: value it now
            return self._values(tree)

    def _table(self, me: int) -> LeafValueTable:
        if me not in self._tables:
            cut = depth_limited_tree(self.game, chance_limit=self.config.chance_limit,
                                     leaf_histories=self.config.leaf_values == "rollouts")
            self._tables[me] = LeafValueTable.from_leaf_values(cut, self._values(cut))
        return self._tables[me]

    def _values(self, tree: PublicTree) -> LeafValues:
        """The leaves' K values for the agent (2018 §4): exact or by rollouts, on the game below the leaves, with the
        bias continuations of the blueprint there; or (given the whole tree) from the configured source."""
        me = self.player
        if self._whole is not None and (self.config.leaf_values == "rollouts" or self.config.continuations != "bias"):
            return self._source().leaf_values(tree, self._opponent_continuations(me))
        keys = tuple(tree.public_key[n] for n in np.flatnonzero(tree.kind == LEAF))
        if keys not in self._below:
            self._below[keys] = enumerate_game(self.game, public_states=keys)
        below = self._below[keys]
        sigma = Strategy(below.game_id, (self.blueprint.probs(below, 0), self.blueprint.probs(below, 1)))
        continuations = bias_continuations(below, sigma, 1 - me, self.config.num_values)
        if self.config.leaf_values == "rollouts":
            return RolloutValues(self.game, below, sigma, self.config.rollouts, self.seed).leaf_values(tree, continuations)
        return ExactValues(self.game, below, sigma, _forests={keys: Part.whole(below)}).leaf_values(tree, continuations)

    def _source(self) -> LeafValueSource:
        whole = self._whole_tree()
        if self.config.leaf_values == "rollouts":
            if self._rollouts is None:
                self._rollouts = RolloutValues(self.game, whole.tree, whole.strategy, self.config.rollouts, self.seed)
            return self._rollouts
        if self._exact is None:
            self._exact = ExactValues(self.game, whole.tree, whole.strategy)
        return self._exact

    def _whole_tree(self) -> TreeBlueprint:
        if self._whole is None:  # the constructor refuses the configurations that come here without it
            raise SubgameError("this leaf value source needs the whole game's tree")
        return self._whole

    def _opponent_continuations(self, me: int) -> Continuations:
        """The opponent's K continuations (strategies of the whole tree), built once per seat of the agent."""
        if me not in self._continuations:
            whole = self._whole_tree()
            cfg, opp, full, blueprint = self.config, 1 - me, whole.tree, whole.strategy
            if cfg.continuations == "bias":
                self._continuations[me] = bias_continuations(full, blueprint, opp, cfg.num_values)
            else:
                cut = depth_limited_part(self.game, full, chance_limit=cfg.chance_limit)
                self._continuations[me] = self_generative_continuations(
                    full, blueprint_values(full, blueprint), cut, me, self._source(), cfg.num_values,
                    iterations=cfg.generation_iterations, config=cfg.config,
                )
        return self._continuations[me]


def _blueprint(game: Game, tree: PublicTree | None, blueprint: Strategy | Blueprint) -> Blueprint:
    """The agent's blueprint, queried per information set: a strategy of the whole tree, or one given so."""
    if tree is not None:
        if not isinstance(blueprint, Strategy):
            raise GameDefinitionError("with the whole game's tree the blueprint is a Strategy on it; "
                                      "give tree=None for a blueprint queried per information set")
        blueprint.check(tree)
        if game_fingerprint(game) != tree.game_id:
            raise GameDefinitionError(f"the tree is of game {tree.game_id!r}, not {game.describe()}")
        if np.any(tree.kind == LEAF):
            raise GameDefinitionError("the search agent's tree must be the full game's tree (without depth-limit "
                                      "leaves); give tree=None and a blueprint queried per information set instead")
        return TreeBlueprint(tree, blueprint)
    if isinstance(blueprint, Strategy) or not isinstance(blueprint, Blueprint):  # a Strategy has the protocol's names
        raise GameDefinitionError("without the game's tree the blueprint must be queried per information set "
                                  f"(a Blueprint such as TreeBlueprint or UniformBlueprint), got {type(blueprint).__name__}")
    if blueprint.game_id != game_fingerprint(game):
        raise GameDefinitionError(f"the blueprint is of game {blueprint.game_id!r}, not {game.describe()}")
    return blueprint


def _block(tree: PublicTree, player: int, node: int) -> tuple[int, int]:
    """``player``'s private states at public ``node`` of ``tree`` are ``lo:hi``."""
    lo, hi = np.searchsorted(tree.players[player].node, [node, node + 1])
    return int(lo), int(hi)


def _carry(values: np.ndarray, src: PublicTree, src_node: int, dst: PublicTree, dst_node: int, player: int) -> np.ndarray:
    """``values`` over ``player``'s private states at ``src_node`` of ``src``, at ``dst_node`` of ``dst`` (by label)."""
    if src is dst and src_node == dst_node:
        return values
    lo, hi = _block(src, player, src_node)
    dlo, dhi = _block(dst, player, dst_node)
    return LabeledValues(src.players[player].label[lo:hi], values).at(dst.players[player].label[dlo:dhi], "a range")
