"""An agent that searches as it plays: nested depth-limited solving (Brown, Sandholm & Amos 2018, Appendix A).

The agent holds a blueprint σ̂ of the whole game and never plays it directly. As the hand
proceeds it solves subgames rooted at the current public state, the way the paper's agent
Modicum did, as far as it applies to games whose tree we compile:

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
from ..tree.part import Part
from ..tree.public_tree import CHANCE_NODE, DECISION, LEAF, PublicTree, infoset_index, infoset_keys, rows_in
from ..tree.sweep import forward_reach, transition_weights
from .base import Decision, View, infoset_key
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


@dataclass(eq=False)
class SolvedSubgame:
    """One solved subgame of the agent (a cache entry).

    Attributes:
        root: the full tree's public node at its root.
        tree: the subgame's tree (depth-limited or to the end of the game).
        player: the agent's seat (the re-solver).
        probs: per player [I_sub_p, A] her strategy in the subgame: the agent's, and what
            the agent assumes the opponent plays.
        row_of: per player [I_full] the subgame's row of each information set of the full
            tree (-1 where the subgame has none).
        decides: the full tree's public decision nodes the subgame has (not leaves).
        root_reach: [R_player] the agent's reach at the subgame's root states.
        gadget: ``"unsafe"``, ``"resolve"`` or ``"maxmargin"``.
        depth_limited: whether the subgame is cut by a depth limit.
        iterations: CFR iterations run.
    """

    root: int
    tree: PublicTree
    player: int
    probs: tuple[np.ndarray, np.ndarray]
    row_of: tuple[np.ndarray, np.ndarray]
    decides: frozenset[int]
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


@dataclass(frozen=True, eq=False)
class _PathState:
    """What the agent knows at a public node of the path: both ranges and the solve in force."""

    node: int
    reach: tuple[np.ndarray, np.ndarray]  #: per player, over the full tree's private states at ``node``
    solve: SolvedSubgame | None


class SearchAgent:
    """Nested depth-limited search on a blueprint; see the module docstring.

    Args:
        game: the rules.
        tree: the full game's compiled tree (the blueprint's).
        blueprint: σ̂ on ``tree``.
        config: how to solve.
        seed: of the rollout leaf values (unused with exact values).
        name: for tables.
    """

    def __init__(self, game: Game, tree: PublicTree, blueprint: Strategy, config: SearchConfig = SearchConfig(),
                 *, seed: int = 0, name: str | None = None) -> None:
        blueprint.check(tree)
        if game_fingerprint(game) != tree.game_id:
            raise GameDefinitionError(f"the tree is of game {tree.game_id!r}, not {game.describe()}")
        if np.any(tree.kind == LEAF):
            raise GameDefinitionError("the search agent needs the full game's tree (without depth-limit leaves)")
        self.game, self.tree, self.blueprint, self.config, self.seed = game, tree, blueprint, config, seed
        self._name = name or f"search (K={config.num_values}, {config.continuations})"
        self.player = 0
        self.solves: dict[tuple[int, int], SolvedSubgame] = {}
        self._states: dict[tuple[int, int], _PathState] = {}
        self._index = (infoset_index(tree, 0), infoset_index(tree, 1))
        self._infoset_of_state = []
        for pa in tree.players:
            inv = np.full(pa.num_states, -1, dtype=np.int64)
            inv[pa.infoset_priv] = np.arange(pa.num_infosets)
            self._infoset_of_state.append(inv)
        self._bounds = [np.searchsorted(pa.node, np.arange(tree.num_nodes + 1)) for pa in tree.players]
        self._slot = _action_slots(tree)
        self._chance_below = _chance_below(tree)
        self._tables: dict[int, LeafValueTable] = {}
        self._continuations: dict[int, Continuations] = {}
        self._exact = ExactValues(game, tree, blueprint)  # keeps the game below each set of leaves compiled
        self._rollouts: RolloutValues | None = None

    # -- the Agent protocol --------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    def new_hand(self, player: int, seed: int) -> None:
        """A hand starts in seat ``player``; solved subgames stay cached across hands."""
        if player not in (0, 1):
            raise SubgameError(f"the seat must be 0 or 1, got {player!r}")
        self.player = player

    def behaviour(self, tree: PublicTree) -> Strategy:
        """The strategy the agent plays in both seats (:func:`~.exact.agent_strategy`: every
        information set it reaches queried as in play, so matches get exact values and AIVAT)."""
        if tree.game_id != self.tree.game_id:
            raise SubgameError(f"the search agent plays {self.tree.game_id!r}, not {tree.game_id!r}")
        both = [agent_strategy(self, self.game, tree, p, seed=self.seed) for p in (0, 1)]
        return Strategy(tree.game_id, (both[0], both[1]), {"algo": f"agent: {self.name}"})

    def act(self, view: View) -> Decision:
        """The agent's action probabilities at ``view`` (solving the subgames its path needs)."""
        if view.player != self.player:
            raise SubgameError(f"the view is player {view.player}'s but the agent sits in seat {self.player}; "
                               "call new_hand with the seat first")
        key, label = infoset_key(view)
        node = self.tree.node_of_key.get(key, -1)
        if node < 0 or self.tree.kind[node] != DECISION or self.tree.actor[node] != view.player:
            raise SubgameError(f"public state {list(key)!r} is not a decision of player {view.player} in "
                               f"{self.tree.game_name}")
        inf = self._index[view.player].get((key, label))
        if inf is None:
            raise SubgameError(f"player {view.player} has no information set {label!r} at public state {list(key)!r}")
        state = self._state(node)
        solve = self._solve_for(state)
        row = solve.probs[self.player][solve.row_of[self.player][inf]]
        pa = self.tree.players[self.player]
        probs = {int(a): float(p) for a, p, ok in zip(pa.action_ids[inf], row, pa.legal[inf]) if ok}
        total = sum(probs.values())
        return Decision({a: p / total for a, p in probs.items()}).checked(view)

    # -- the path ---------------------------------------------------------------------
    def _state(self, node: int) -> _PathState:
        """Both ranges and the solve in force at public ``node`` of the full tree (memoized by seat and node)."""
        cached = self._states.get((self.player, node))
        if cached is not None:
            return cached
        tree = self.tree
        parent = int(tree.parent[node])
        if parent < 0:
            ones = tuple(np.ones(int(b[node + 1] - b[node])) for b in self._bounds)
            state = _PathState(node, (ones[0], ones[1]), None)
        else:
            up = self._state(parent)
            solve = up.solve
            reach = []
            weight = None
            if tree.kind[parent] == DECISION:
                actor = int(tree.actor[parent])
                solve = self._solve_for(up)
                inf = self._infoset_of_state[actor][self._bounds[actor][parent] : self._bounds[actor][parent + 1]]
                probs = solve.probs[actor][solve.row_of[actor][inf]]
                weight = (actor, probs[:, self._slot[node]])
            for p, pa in enumerate(tree.players):
                lo, hi = self._bounds[p][node], self._bounds[p][node + 1]
                plo = self._bounds[p][parent]
                r = up.reach[p] if weight is None or weight[0] != p else up.reach[p] * weight[1]
                reach.append(r[pa.parent[lo:hi] - plo])
            state = _PathState(node, (reach[0], reach[1]), solve)
        self._states[(self.player, node)] = state
        return state

    def _solve_for(self, state: _PathState) -> SolvedSubgame:
        """The solve that decides at ``state.node``: a new one rooted there when the opponent acts
        (nested solving) or when no solve in force reaches it; the one in force otherwise."""
        node = state.node
        if self.tree.actor[node] == self.player and state.solve is not None and node in state.solve.decides:
            return state.solve
        return self._solve_at(state)

    def _solve_at(self, state: _PathState) -> SolvedSubgame:
        key = (self.player, state.node)
        if key not in self.solves:
            self.solves[key] = self._solve(state)
        return self.solves[key]

    # -- solving ----------------------------------------------------------------------
    def _solve(self, state: _PathState) -> SolvedSubgame:
        """Solve the subgame rooted at ``state.node`` for the agent (module docstring)."""
        full, game, cfg = self.tree, self.game, self.config
        me, opp, node = self.player, 1 - self.player, state.node
        root_key = full.public_key[node]
        at_start = full.parent[node] < 0
        fits = not self._chance_below[node]
        prev = state.solve
        if fits:
            tree = compile_game(game, public_state=None if at_start else root_key)
        else:
            tree = depth_limited_tree(game, public_state=None if at_start else root_key, chance_limit=cfg.chance_limit,
                                      leaf_histories=cfg.leaf_values == "rollouts")
        local = tree.node_of_key[root_key]
        my_reach = self._to_local(state.reach[me], tree, me, node, local)
        leaves: tuple[MultiValuedLeaf, ...] = ()
        if not fits:
            leaves = (MultiValuedLeaf(tree, self._leaf_values(tree)),)
        safe = prev is not None and root_key in prev.tree.node_of_key and (
            (fits and (not prev.depth_limited or cfg.first_final == "safe")) or (not fits and cfg.early == "safe"))
        gadget: str
        if safe:
            assert prev is not None  # for the type checker
            gadget = cfg.safe_gadget
            prev_local = prev.tree.node_of_key[root_key]
            alt = self._to_local(self._block(prev.opponent_cbv(), prev.tree, opp, prev_local), tree, opp, local,
                                 local, source=(prev.tree, prev_local))
            problem = SubgameProblem(Part.whole(tree), me, my_reach, alt, GadgetSpec(gadget))
        else:
            gadget = "unsafe"
            belief = self._to_local(state.reach[opp], tree, opp, node, local)
            if not belief.sum() > 0:
                belief = np.ones_like(belief)
            problem = SubgameProblem(Part.whole(tree), me, my_reach, np.full(belief.size, np.nan), GadgetSpec("unsafe"),
                                     opponent_reach=belief)
        sol = resolve_subgame(problem, config=cfg.config, leaves=leaves, budget=cfg.budget)
        assert sol.opponent_probs is not None  # resolve_subgame always sets it
        probs = [sol.probs, sol.opponent_probs] if me == 0 else [sol.opponent_probs, sol.probs]
        row_of = []
        for p in (0, 1):
            rows = np.full(full.players[p].num_infosets, -1, dtype=np.int64)
            rows[rows_in(self._index[p], infoset_keys(tree, p), "search subgame")] = np.arange(tree.players[p].num_infosets)
            row_of.append(rows)
        decides = frozenset(full.node_of_key[tree.public_key[n]] for n in np.flatnonzero(tree.kind == DECISION))
        return SolvedSubgame(node, tree, me, (probs[0], probs[1]), (row_of[0], row_of[1]), decides, my_reach, gadget,
                             not fits, sol.iterations, leaves[0] if leaves else None)

    def _leaf_values(self, tree: PublicTree) -> LeafValues:
        """The K values at ``tree``'s leaves for the agent: from the table of the game's first cut, else computed."""
        me = self.player
        table = self._table(me)
        try:
            return table.leaf_values(tree)
        except SubgameError:  # a leaf beyond the first cut: value it now
            return self._source().leaf_values(tree, self._opponent_continuations(me))

    def _table(self, me: int) -> LeafValueTable:
        if me not in self._tables:
            cut = depth_limited_tree(self.game, chance_limit=self.config.chance_limit,
                                     leaf_histories=self.config.leaf_values == "rollouts")
            values = self._source().leaf_values(cut, self._opponent_continuations(me))
            self._tables[me] = LeafValueTable.from_leaf_values(cut, values)
        return self._tables[me]

    def _source(self) -> LeafValueSource:
        if self.config.leaf_values == "rollouts":
            if self._rollouts is None:
                self._rollouts = RolloutValues(self.game, self.tree, self.blueprint, self.config.rollouts, self.seed)
            return self._rollouts
        return self._exact

    def _opponent_continuations(self, me: int) -> Continuations:
        """The opponent's K continuations (full-tree strategies), built once per seat of the agent."""
        if me not in self._continuations:
            cfg, opp = self.config, 1 - me
            if cfg.continuations == "bias":
                self._continuations[me] = bias_continuations(self.tree, self.blueprint, opp, cfg.num_values)
            else:
                cut = depth_limited_tree(self.game, chance_limit=cfg.chance_limit)
                self._continuations[me] = self_generative_continuations(
                    self.tree, blueprint_values(self.tree, self.blueprint), cut, me, self._exact, cfg.num_values,
                    iterations=cfg.generation_iterations, config=cfg.config,
                )
        return self._continuations[me]

    # -- ranges between trees -----------------------------------------------------------
    def _block(self, values: np.ndarray, tree: PublicTree, player: int, node: int) -> np.ndarray:
        """``values`` [G_player of tree] at the private states of public ``node`` of ``tree``."""
        lo, hi = np.searchsorted(tree.players[player].node, [node, node + 1])
        return values[lo:hi]

    def _to_local(self, values: np.ndarray, tree: PublicTree, player: int, node: int, local: int,
                  source: tuple[PublicTree, int] | None = None) -> np.ndarray:
        """``values`` over ``player``'s private states at a public node of ``source`` (default: ``node`` of the
        full tree) as an array over her private states at node ``local`` of ``tree``, matched by label."""
        src_tree, src_node = source if source is not None else (self.tree, node)
        lo, hi = np.searchsorted(src_tree.players[player].node, [src_node, src_node + 1])
        pos = {lab: i for i, lab in enumerate(src_tree.players[player].label[lo:hi])}
        llo, lhi = np.searchsorted(tree.players[player].node, [local, local + 1])
        labels = tree.players[player].label[llo:lhi]
        return np.asarray(values, dtype=np.float64)[np.fromiter((pos[lab] for lab in labels), dtype=np.int64, count=len(labels))]


def _action_slots(tree: PublicTree) -> np.ndarray:
    """[N] the action slot leading to each child of a decision node (-1 elsewhere)."""
    out = np.full(tree.num_nodes, -1, dtype=np.int64)
    for pa in tree.players:
        own = pa.child_seq >= 0
        out[pa.node[own]] = pa.child_seq[own] % pa.max_actions
    return out


def _chance_below(tree: PublicTree) -> np.ndarray:
    """[N] whether a public chance node lies strictly below each node."""
    below = np.zeros(tree.num_nodes, dtype=bool)
    for n in range(tree.num_nodes - 1, 0, -1):  # children come after parents (breadth-first order)
        par = tree.parent[n]
        if par >= 0 and (below[n] or tree.kind[n] == CHANCE_NODE):
            below[par] = True
    return below
