"""Exact best responses, counterfactual best-response values and exploitability.

One backward pass over the public tree per player gives her counterfactual best-response
value (CBV, Brown & Sandholm 2017 §3; Burch et al. 2014) at every private state of every
public node; the gadgets of subgame solving read their alternative payoffs from it.
Exploitability is NashConv / 2, as OpenSpiel's ``exploitability`` defines it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..strategy import Strategy
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
        return self.nash_conv / 2.0

    def mbb_per_game(self, big_blind: float = 1.0) -> float:
        return 1000.0 * self.exploitability / big_blind


def _reaches(tree: PublicTree, strategy: Strategy, root_reach=(None, None)):
    sws = [transition_weights(tree, p, strategy.probs[p]) for p in (0, 1)]
    return sws, tuple(forward_reach(tree, p, sws[p], root_reach[p]) for p in (0, 1))


def best_response(tree: PublicTree, strategy: Strategy, player: int) -> BestResponse:
    """The best response of ``player`` to ``strategy.probs[1 - player]``."""
    opp = 1 - player
    reach_opp = forward_reach(tree, opp, transition_weights(tree, opp, strategy.probs[opp]))
    return _best_response_to_reach(tree, player, reach_opp)


def _best_response_to_reach(tree: PublicTree, player: int, reach_opp: np.ndarray, want_policy: bool = True) -> BestResponse:
    # The best responder's own reach is never read by her counterfactual values.
    reach = (reach_opp, reach_opp)
    v, best = backward_best(tree, player, leaf_values(tree, player, reach), want_policy=want_policy)
    return BestResponse(player, float(v[tree.plan.root_slice[player]].sum()), v, best, tree.players[player].max_actions)


def counterfactual_values(tree: PublicTree, strategy: Strategy) -> tuple[np.ndarray, np.ndarray]:
    """Each player's counterfactual value [G_p] of every private state under ``strategy``."""
    sws, reach = _reaches(tree, strategy)
    return tuple(backward_expected(tree, p, leaf_values(tree, p, reach), sws[p]) for p in (0, 1))  # type: ignore[return-value]


def expected_value(tree: PublicTree, strategy: Strategy, other: Strategy | None = None) -> float:
    """Player 0's expected utility when player 0 plays ``strategy`` and player 1 plays ``other`` (default: the same profile)."""
    profile = strategy if other is None else Strategy(tree.game_id, (strategy.probs[0], other.probs[1]))
    _, reach = _reaches(tree, profile)
    return float(np.dot(reach[0], leaf_values(tree, 0, reach)))


def exploitability(tree: PublicTree, strategy: Strategy) -> Exploitability:
    """Both players' best-response values and NashConv / 2 of a strategy profile."""
    _, reach = _reaches(tree, strategy)
    br = [_best_response_to_reach(tree, p, reach[1 - p], want_policy=False).value for p in (0, 1)]
    value = float(np.dot(reach[0], leaf_values(tree, 0, reach)))
    return Exploitability((br[0], br[1]), value)
