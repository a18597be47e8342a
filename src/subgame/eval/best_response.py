"""Exact best responses, counterfactual best-response values and exploitability.

One backward pass over the public tree per player gives her counterfactual best-response
value (CBV, Brown & Sandholm 2017 §3; Burch et al. 2014) at every private state of every
public node; the gadgets of subgame solving read their alternative payoffs from it.
Exploitability is NashConv / 2, as OpenSpiel's ``exploitability`` defines it.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import GameDefinitionError, InvalidRangeError, StrategyFileError
from ..solve.cfr import CFRSolver
from ..solve.plugins import Leaf, counterfactual_leaf_values, plug_in_values
from ..strategy import Strategy
from ..tree import kernels, whole
from ..tree.poker_layout import BEST_RESPONSE, PROBS, VALUES, PokerLayout, Source, root_values, usable
from ..tree.public_tree import PublicTree
from ..tree.sweep import backward_best, backward_expected, forward_reach, leaf_values, transition_weights


@dataclass(frozen=True, eq=False)
class BestResponse:
    """A best response of ``player`` to the other player's strategy."""

    player: int
    value: float  #: the best responder's expected utility
    cbv: np.ndarray  #: [G_player] counterfactual best-response value of each private state
    best_action: np.ndarray | None  #: [I] action slot of a pure best response (ties: lowest index)
    num_actions: int  #: A, the width of the player's strategy arrays

    @property
    def policy(self) -> np.ndarray:
        """[I, A] the pure best response as a behaviour strategy."""
        if self.best_action is None:
            raise ValueError("this best response was computed without its policy")
        out = np.zeros((self.best_action.size, self.num_actions))
        out[np.arange(self.best_action.size), self.best_action] = 1.0
        return out


@dataclass(frozen=True)
class Exploitability:
    """How much a strategy profile loses to best responses (game units, e.g. chips)."""

    br_values: tuple[float, float]  #: each player's best-response value against the other
    game_value: float | None = None  #: player 0's value of the profile itself

    @property
    def nash_conv(self) -> float:
        return self.br_values[0] + self.br_values[1]

    @property
    def exploitability(self) -> float:
        """NashConv / 2 (OpenSpiel's ``exploitability``)."""
        return (self.br_values[0] + self.br_values[1]) / 2.0

    def mbb_per_game(self, big_blind: float = 1.0) -> float:
        return 1000.0 * self.exploitability / big_blind


def profile_reaches(
    tree: PublicTree, strategy: Strategy, root_reach: tuple[np.ndarray | None, np.ndarray | None] = (None, None)
) -> tuple[list[np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Each player's transition weights [G_p] under ``strategy`` and her own reach [G_p] of every private state,
    from ``root_reach`` (:func:`checked_root_reach`; ones where None)."""
    sws = [transition_weights(tree, p, strategy.probs[p]) for p in (0, 1)]
    return sws, (forward_reach(tree, 0, sws[0], root_reach[0]), forward_reach(tree, 1, sws[1], root_reach[1]))


def _checked(tree: PublicTree, strategy: Strategy) -> Strategy:
    if not isinstance(tree, PublicTree):
        raise GameDefinitionError(f"expected a compiled PublicTree (compile_game(game)), got {type(tree).__name__}")
    if not isinstance(strategy, Strategy):
        raise GameDefinitionError(f"expected a Strategy, got {type(strategy).__name__}")
    if strategy.game_id != tree.game_id:
        raise StrategyFileError(f"the strategy is of game {strategy.game_id!r} but the tree is {tree.game_id!r}; "
                                "evaluate it on the tree of the game it was computed for")
    for p, (x, pa) in enumerate(zip(strategy.probs, tree.players)):
        if np.shape(x) != pa.legal.shape:
            raise InvalidRangeError(f"player {p}: the strategy has shape {np.shape(x)}, the tree needs {pa.legal.shape}")
    return strategy


def checked_root_reach(tree: PublicTree, reach: tuple[np.ndarray | None, np.ndarray | None]) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Each player's reach of the tree's root private states as float64, refused unless finite, non-negative and one
    per root state."""
    return _checked_root(tree, 0, reach[0]), _checked_root(tree, 1, reach[1])


def _checked_root(tree: PublicTree, player: int, reach: np.ndarray | None) -> np.ndarray | None:
    if reach is None:
        return None
    rs = tree.root_slice[player]
    out = np.asarray(reach, dtype=np.float64)
    if out.shape != (rs.stop - rs.start,) or not np.all(np.isfinite(out)) or out.min(initial=0.0) < 0:
        raise InvalidRangeError(f"root reach of player {player}: expected {rs.stop - rs.start} finite non-negative "
                                f"values (one per root private state), got shape {out.shape}")
    return out


def _checked_player(player: int) -> int:
    if isinstance(player, bool) or player not in (0, 1):
        raise GameDefinitionError(f"player must be 0 or 1, got {player!r}")
    return int(player)


def best_response(tree: PublicTree, strategy: Strategy, player: int, *, leaves: Sequence[Leaf] = (),
                  root_reach: tuple[np.ndarray | None, np.ndarray | None] = (None, None)) -> BestResponse:
    """The best response of ``player`` to ``strategy.probs[1 - player]``.

    ``leaves`` give values at the tree's depth-limit leaves (evaluated at the reaches of
    ``strategy``, never changing a leaf's state). ``root_reach`` gives each player's reach
    of the root private states of a part (ones where None).
    """
    player = _checked_player(player)
    _, reach = profile_reaches(tree, _checked(tree, strategy), checked_root_reach(tree, root_reach))
    return best_response_to_reach(tree, player, reach[1 - player], leaf_cfv=plug_in_values(player, reach, leaves, None))


def best_response_to_reach(
    tree: PublicTree, player: int, reach_opp: np.ndarray, *, leaf_cfv: np.ndarray | None = None, want_policy: bool = True
) -> BestResponse:
    """The best response of ``player`` to the opponent's own reach ``reach_opp`` [G_opp].

    The counterfactual best-response values of every private state come from one
    backward pass. ``leaf_cfv`` [G_player] adds fixed values at depth-limit leaf private
    states (stored root values, a leaf plug-in's evaluation).
    """
    # The best responder's own reach is never read by her counterfactual values.
    v = leaf_values(tree, player, (reach_opp, reach_opp))
    if leaf_cfv is not None:
        v += leaf_cfv
    v, best = backward_best(tree, player, v, want_policy=want_policy)
    return BestResponse(player, float(v[tree.root_slice[player]].sum()), v, best, tree.players[player].max_actions)


def counterfactual_values(tree: PublicTree, strategy: Strategy, *, leaves: Sequence[Leaf] = (),
                          root_reach: tuple[np.ndarray | None, np.ndarray | None] = (None, None)) -> tuple[np.ndarray, np.ndarray]:
    """Each player's counterfactual value [G_p] of every private state under ``strategy`` (``root_reach`` as in
    :func:`best_response`)."""
    sws, reach = profile_reaches(tree, _checked(tree, strategy), checked_root_reach(tree, root_reach))
    return (backward_expected(tree, 0, counterfactual_leaf_values(tree, 0, reach, leaves, None), sws[0]),
            backward_expected(tree, 1, counterfactual_leaf_values(tree, 1, reach, leaves, None), sws[1]))


def expected_value(tree: PublicTree, strategy: Strategy, other: Strategy | None = None, *, leaves: Sequence[Leaf] = ()) -> float:
    """Player 0's expected utility when player 0 plays ``strategy`` and player 1 plays ``other`` (default: the same profile)."""
    _checked(tree, strategy)
    profile = strategy if other is None else Strategy(tree.game_id, (strategy.probs[0], _checked(tree, other).probs[1]))
    sws, reach = profile_reaches(tree, profile)
    return _profile_value(tree, sws, reach, leaves)


def _profile_value(tree: PublicTree, sws: Sequence[np.ndarray], reach: tuple[np.ndarray, np.ndarray],
                   leaves: Sequence[Leaf]) -> float:
    """Player 0's value: her reach times her terminal values; on a suit-isomorphic tree, whose left-out
    chance children only the backward sweep counts (:mod:`~subgame.tree.isomorphism`), her root values."""
    v = counterfactual_leaf_values(tree, 0, reach, leaves, None)
    if tree.mirrors is None:
        return float(np.dot(reach[0], v))
    rs = tree.root_slice[0]
    return float(np.dot(reach[0][rs], backward_expected(tree, 0, v, sws[0])[rs]))


def layout_exploitability(tree: PublicTree, sources: tuple[Source, Source],
                          root_reach: tuple[np.ndarray | None, np.ndarray | None],
                          layout: PokerLayout | None = None, *, value: bool = True) -> Exploitability:
    """:func:`exploitability` from depth-first passes over the tree's poker layout (:mod:`~subgame.tree.poker_layout`).

    Three passes (each player's best response, player 0's values) that keep rows along
    the path walked instead of arrays over every private state; the strategies come from
    ``sources``: given behaviour strategies, or a solver's strategy sums read as their
    average without making it (:meth:`~subgame.solve.cfr.CFRSolver.exploitability`), laid out on ``layout`` (the
    tree's where ``None``; a solver's :attr:`~subgame.solve.cfr.CFRSolver.sources_layout`). Without ``value`` the
    values pass is left out and the game value is ``None``.
    """
    layout = tree.layout if layout is None else layout
    if layout is None:
        raise GameDefinitionError("layout_exploitability needs a tree with a poker layout (compile_poker without leaves)")
    rows = _root_rows(tree, layout, root_reach)
    # One compiled call of the three passes, prepared once for these arrays (on Kuhn poker preparing a pass costs
    # several times the pass), where the library has it; else the passes one by one.
    call = whole.layout_best_responses(layout, sources, rows, value)
    values: np.ndarray | None
    if call is None:
        best = (root_values(layout, 0, BEST_RESPONSE, sources, rows), root_values(layout, 1, BEST_RESPONSE, sources, rows))
        values = root_values(layout, 0, VALUES, sources, rows) if value else None
    else:
        totals = call.run()
        if root_reach[0] is None and root_reach[1] is None:  # its totals are the sums below
            return Exploitability((totals[0], totals[1]), totals[2])
        best, values = call.best, call.values
    return Exploitability((_at_roots(best[0], root_reach[0]), _at_roots(best[1], root_reach[1])),
                          None if values is None else _at_roots(values, root_reach[0]))


def _root_rows(tree: PublicTree, layout: PokerLayout,
               root_reach: tuple[np.ndarray | None, np.ndarray | None]) -> tuple[np.ndarray, np.ndarray]:
    """Each player's root reach as the passes read it: the one given, or the layout's kept ones."""
    rs = tree.root_slice
    return (layout.kept("ones", rs[0].stop - rs[0].start) if root_reach[0] is None else root_reach[0],
            layout.kept("ones", rs[1].stop - rs[1].start) if root_reach[1] is None else root_reach[1])


def exploitability(
    tree: PublicTree, strategy: Strategy | CFRSolver, *, leaves: Sequence[Leaf] = (),
    root_reach: tuple[np.ndarray | None, np.ndarray | None] = (None, None), value: bool = True,
) -> Exploitability:
    """Both players' best-response values and NashConv / 2 of a strategy profile.

    ``strategy`` may be a :class:`~subgame.solve.cfr.CFRSolver` of ``tree``: its average
    strategy, read from its strategy sums by the depth-first passes where they apply (no
    [I, A] copy of the average; evaluated again after more iterations, the call prepared
    for the sums is run again), else its :meth:`~subgame.solve.cfr.CFRSolver.average_strategy`.
    ``root_reach`` gives each player's reach of her root private states (her range in a
    subgame, as :class:`~subgame.solve.cfr.CFRSolver` takes it; ``None``: all ones): both
    the reach a best response plays against and the weight of the best responder's own
    root values. ``value=False`` leaves the game value out (``None``) where it takes a
    depth-first pass of its own (a check against a target needs the best responses only).

    Raises:
        StrategyFileError, InvalidRangeError: ``strategy`` is of another game or not a
            valid strategy of this tree, or a root reach that does not fit it.
    """
    hit = _solver_calls[1 if value else 0].get(id(strategy))  # a solver evaluated before (a strategy never is one)
    if hit is not None and hit[4]() is strategy and not leaves and root_reach[0] is None and root_reach[1] is None:
        sums = strategy.strategy_sum
        if hit[0] is sums[0] and hit[1] is sums[1] and hit[2] is tree:
            best0, best1, game_value = hit[3]()
            return Exploitability((best0, best1), game_value)
    if isinstance(strategy, CFRSolver):
        return _solver_exploitability(tree, strategy, leaves, root_reach, value)
    roots = tuple(_checked_root(tree, p, r) for p, r in enumerate(root_reach))
    _checked(tree, strategy)
    probs = [np.ascontiguousarray(x, dtype=np.float64) for x in strategy.probs]
    legal = [pa.legal for pa in tree.players]
    if not leaves and tree.layout is not None and usable(tree.layout, min(pa.num_states for pa in tree.players), *probs, *legal):
        return layout_exploitability(tree, (Source(PROBS, probs[0], legal[0]), Source(PROBS, probs[1], legal[1])),
                                     (roots[0], roots[1]), value=value)
    call = None if leaves else whole.sweep_best_responses(tree)
    if call is not None:
        return _swept_exploitability(tree, call, probs, roots)
    sws, reach = profile_reaches(tree, strategy, (roots[0], roots[1]))
    br = []
    for p in (0, 1):
        resp = best_response_to_reach(tree, p, reach[1 - p], leaf_cfv=plug_in_values(p, reach, leaves, None), want_policy=False)
        own = roots[p]
        br.append(resp.value if own is None else float(np.dot(own, resp.cbv[tree.root_slice[p]])))
    return Exploitability((br[0], br[1]), _profile_value(tree, sws, reach, leaves))


def profile_value(tree: PublicTree, solver: CFRSolver,
                  root_reach: tuple[np.ndarray | None, np.ndarray | None] = (None, None)) -> float:
    """Player 0's value of a solver's average strategy (:attr:`Exploitability.game_value`, bitwise): one depth-first
    pass of the values from the strategy sums where the passes read them, else the whole evaluation's."""
    sources = solver.average_sources() if solver.tree is tree else None
    layout = solver.sources_layout
    if sources is None or layout is None:
        value = exploitability(tree, solver, root_reach=root_reach).game_value
        assert value is not None  # an evaluation with the value has one
        return value
    own = (_checked_root(tree, 0, root_reach[0]), _checked_root(tree, 1, root_reach[1]))
    return _at_roots(root_values(layout, 0, VALUES, sources, _root_rows(tree, layout, own)), own[0])


#: Per solver (by id, while it lives), without and with the game value: its strategy sums, its tree, the evaluation
#: prepared for them, which returns both best-response values and the game value, and a weak reference to the solver.
_solver_calls: tuple[dict[int, tuple[np.ndarray, np.ndarray, PublicTree, Callable[[], tuple[float, float, float | None]],
                                     weakref.ref[CFRSolver]]], ...] = ({}, {})


def _keep_evaluation(solver: CFRSolver, tree: PublicTree, value: bool,
                     evaluate: Callable[[], tuple[float, float, float | None]]) -> None:
    key, kept = id(solver), _solver_calls[1 if value else 0]

    def forget(_: weakref.ref[CFRSolver]) -> None:
        kept.pop(key, None)

    kept[key] = (solver.strategy_sum[0], solver.strategy_sum[1], tree, evaluate, weakref.ref(solver, forget))


def _solver_exploitability(tree: PublicTree, solver: CFRSolver, leaves: Sequence[Leaf],
                           root_reach: tuple[np.ndarray | None, np.ndarray | None], value: bool) -> Exploitability:
    """:func:`exploitability` of a solver's average strategy: from its strategy sums where the passes read them; where
    the tree is one compiled call's (:func:`~subgame.tree.whole.sweep_best_responses`), from its average made into
    buffers kept for the next evaluation; else from :meth:`~subgame.solve.cfr.CFRSolver.average_strategy`."""
    whole_game = not leaves and root_reach[0] is None and root_reach[1] is None
    sums = solver.strategy_sum
    ours = solver.tree is tree and not leaves
    sources = solver.average_sources() if ours else None
    if sources is not None:
        layout = solver.sources_layout
        call = (whole.layout_best_responses(layout, sources, _root_rows(tree, layout, root_reach), value)
                if whole_game and layout is not None else None)
        if call is not None:  # the call layout_exploitability would run, kept for the solver's next evaluation
            _keep_evaluation(solver, tree, value, call.run)
            best0, best1, game_value = call.run()
            return Exploitability((best0, best1), game_value)
        roots = (_checked_root(tree, 0, root_reach[0]), _checked_root(tree, 1, root_reach[1]))
        return layout_exploitability(tree, sources, roots, layout, value=value)
    swept = whole.sweep_best_responses(tree) if ours and solver.abstraction is None and not solver.compact else None
    if swept is None or not kernels.takes(*sums) or tree.players[0].max_actions >= 16 or tree.players[1].max_actions >= 16:
        return exploitability(tree, solver.average_strategy(), leaves=leaves, root_reach=root_reach, value=value)
    evaluate = _averaged(tree, swept, sums, root_reach)
    if whole_game:
        _keep_evaluation(solver, tree, value, evaluate)
    best0, best1, game_value = evaluate()
    return Exploitability((best0, best1), game_value)


def _averaged(tree: PublicTree, call: whole.SweepBestResponses, sums: Sequence[np.ndarray],
              root_reach: tuple[np.ndarray | None, np.ndarray | None]) -> Callable[[], tuple[float, float, float | None]]:
    """Both best-response values and the game value of the average of ``sums``, made into buffers of its own each
    time (bitwise :func:`~subgame.solve.plan.average_rows`), by one compiled call."""
    legal = [pa.legal for pa in tree.players]
    probs = [np.empty(x.shape) for x in sums]
    roots = (_checked_root(tree, 0, root_reach[0]), _checked_root(tree, 1, root_reach[1]))

    def evaluate() -> tuple[float, float, float | None]:
        for p in (0, 1):
            kernels.average_strategy(sums[p], legal[p], probs[p])
        ex = _swept_exploitability(tree, call, probs, roots)
        return ex.br_values[0], ex.br_values[1], ex.game_value

    return evaluate


def _swept_exploitability(tree: PublicTree, call: whole.SweepBestResponses, probs: list[np.ndarray],
                          roots: tuple[np.ndarray | None, ...]) -> Exploitability:
    """:func:`exploitability` from one compiled call (a tree of one sparse payoff matrix), bitwise the sweeps': the call
    fills the reaches, terminal values and best-response values, and the sums are numpy's, as below."""
    call.run((probs[0], probs[1]), (roots[0], roots[1]))
    br = []
    for p in (0, 1):
        v, own = call.best[p][tree.root_slice[p]], roots[p]
        br.append(_at_roots(v, own))
    return Exploitability((br[0], br[1]), float(np.dot(call.reach[0], call.terminal[0])))


def _at_roots(values: np.ndarray, own: np.ndarray | None) -> float:
    """A player's total of her root rows' ``values``: their sum, or weighted by her root reach ``own``."""
    return float(values.sum()) if own is None else float(np.dot(own, values))
