"""Root gadgets: small regret minimizers that set the opponent's root range each iteration.

In subgame solving the re-solving player's strategy below a public state is recomputed
while the opponent (the "gadget player") may, at each of her root information sets I,
decline to enter the subgame and take an *alternative payoff* alt(I) instead (Burch,
Johanson & Bowling 2014, "Subgame Strategy Re-Solving", Fig. 2; Brown & Sandholm 2017,
§4–5, Fig. 3). Every quantity is a counterfactual value: it already carries chance and
the re-solver's reach, so the gadget player's reach into the subgame is just her gadget
choice. A gadget is a :class:`~subgame.solve.plugins.RootGadget`: the solver reads her
root range from it before each pass and hands it her root counterfactual values after;
the gadget updates its own regrets. No copy of the tree is made.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, overload

import numpy as np

#: The two gadgets whose value against a best-responding opponent :func:`gadget_value` gives.
GadgetName = Literal["resolve", "maxmargin"]


@overload
def gadget_value(gadget: GadgetName, alt: np.ndarray, cbv: np.ndarray, segment: np.ndarray, subgames: int,
                 per_subgame: Literal[False] = False) -> float: ...
@overload
def gadget_value(gadget: GadgetName, alt: np.ndarray, cbv: np.ndarray, segment: np.ndarray, subgames: int,
                 per_subgame: Literal[True]) -> np.ndarray: ...
def gadget_value(gadget: GadgetName, alt: np.ndarray, cbv: np.ndarray, segment: np.ndarray, subgames: int,
                 per_subgame: bool = False) -> float | np.ndarray:
    """The gadget player's value of a gadget game when she best-responds: her total, or [S] per subgame.

    ``alt`` and ``cbv`` [R] are her alternative payoffs and her counterfactual best-response
    values at her root private states, ``segment`` [R] the subgame (0..S-1) of each. The
    resolving gadget lets her follow or terminate at every root state: Σ_I max(alt(I), CBV(I))
    (Burch et al. 2014, Fig. 2); the max-margin gadget lets her pick one root state per
    subgame and pays her value there minus its alternative payoff: max_I (CBV(I) − alt(I))
    (safe-and-nested §4.2; Milec et al. §5, Fig. 3).
    """
    if gadget == "resolve":
        best = np.maximum(alt, cbv)
        if per_subgame:
            out: np.ndarray = np.bincount(segment, weights=best, minlength=subgames)
            return out
        return float(best.sum())
    margin = np.full(subgames, -np.inf)
    np.maximum.at(margin, segment, cbv - alt)
    return margin if per_subgame else float(margin.sum())


@dataclass
class FixedRange:
    """Unsafe subgame solving (safe-and-nested §4.1): the opponent's root range stays the blueprint's."""

    player: int  #: the gadget (opponent) player
    blueprint_range: np.ndarray  #: [R] her blueprint reach at the root private states

    def root_range(self) -> np.ndarray:
        return self.blueprint_range

    def update(self, player: int, root_cfv: np.ndarray, t: int) -> None:
        return None


@dataclass
class ResolveGadget:
    """The re-solving gadget (safe-and-nested §4.2; Burch et al. 2014, Fig. 2).

    At each root information set the opponent chooses between following into the
    subgame (worth her counterfactual value there) and terminating (worth ``alt``). The
    choice is learned with regret matching+; her root range is the follow probability.
    """

    player: int
    alt: np.ndarray  #: [R] alternative payoff of each root private state
    regrets: np.ndarray = field(init=False)  #: [R, 2] follow, terminate

    def __post_init__(self) -> None:
        self.regrets = np.zeros((self.alt.shape[0], 2))

    def follow(self) -> np.ndarray:
        pos = np.maximum(self.regrets, 0.0)
        tot = pos.sum(axis=1)
        return np.where(tot > 0, pos[:, 0] / np.where(tot > 0, tot, 1.0), 0.5)

    def root_range(self) -> np.ndarray:
        return self.follow()

    def update(self, player: int, root_cfv: np.ndarray, t: int) -> None:
        if player != self.player:
            return
        f = self.follow()
        value = f * root_cfv + (1.0 - f) * self.alt
        self.regrets[:, 0] += root_cfv - value
        self.regrets[:, 1] += self.alt - value
        np.maximum(self.regrets, 0.0, out=self.regrets)


@dataclass
class MaxMarginGadget:
    """The max-margin gadget (Moravčík et al. 2016; safe-and-nested §4.2).

    In each subgame the opponent picks one root information set to enter, and is paid her
    counterfactual value there minus ``alt``; the re-solver thereby maximizes the smallest
    margin ``alt(I) − CBV(I)``. The pick is learned with regret matching+ over the root
    states of each subgame; ``segment`` says which subgame of a forest each root state is
    in (``None``: one subgame).
    """

    player: int
    alt: np.ndarray  #: [R]
    segment: np.ndarray | None = None  #: [R] subgame of each root state
    regrets: np.ndarray = field(init=False)  #: [R]
    _subgame: np.ndarray = field(init=False, repr=False)  #: [R] ``segment`` or all zeros
    _uniform: np.ndarray = field(init=False, repr=False)  #: [R] 1 / the root states of its subgame

    def __post_init__(self) -> None:
        self.regrets = np.zeros(self.alt.shape[0])
        self._subgame = np.zeros(self.alt.shape[0], dtype=np.int64) if self.segment is None else self.segment
        per_subgame = np.bincount(self._subgame).astype(float)
        self._uniform = 1.0 / per_subgame[self._subgame]

    def choice(self) -> np.ndarray:
        pos = np.maximum(self.regrets, 0.0)
        tot = np.bincount(self._subgame, weights=pos)[self._subgame]
        return np.where(tot > 0, pos / np.where(tot > 0, tot, 1.0), self._uniform)

    def root_range(self) -> np.ndarray:
        return self.choice()

    def update(self, player: int, root_cfv: np.ndarray, t: int) -> None:
        if player != self.player:
            return
        gain = root_cfv - self.alt
        value = np.bincount(self._subgame, weights=self.choice() * gain)
        self.regrets += gain - value[self._subgame]
        np.maximum(self.regrets, 0.0, out=self.regrets)


@dataclass
class DistributionalGadget:
    """Follow/terminate with a random alternative payoff (safe-and-nested §5, Table 1).

    The paper's Appendix C is not available to us; this is our definition. The
    alternative payoff of root state I is normally distributed around the estimate
    ``est(I)`` with standard deviation ``spread · (cbv(I) − est(I))``: it lies between what
    the blueprint says the opponent gets and what she could get by best-responding to it.
    Facing that uncertainty the opponent follows with probability
    ``Φ((ĉ(I) − est(I)) / sd(I))``, the chance that the drawn alternative is worth less
    than following, where ĉ is an exponentially smoothed (Hedge-like) average of her
    counterfactual values with step size ``step``. With ``sd = 0`` this is the hard choice
    of :class:`ResolveGadget` against ``est``.
    """

    player: int
    est: np.ndarray  #: [R] estimated alternative payoff
    cbv: np.ndarray  #: [R] the blueprint's counterfactual best-response values
    spread: float = 0.5
    step: float = 0.1
    smoothed: np.ndarray | None = None  #: [R] ĉ
    _spread: np.ndarray = field(init=False, repr=False)  #: [R] sd where positive, else 1
    _drawn: np.ndarray = field(init=False, repr=False)  #: [R] sd > 0

    def __post_init__(self) -> None:
        sd = self.sd()
        self._drawn = sd > 0
        self._spread = np.where(self._drawn, sd, 1.0)

    def sd(self) -> np.ndarray:
        return self.spread * np.maximum(self.cbv - self.est, 0.0)

    def follow(self) -> np.ndarray:
        if self.smoothed is None:
            return np.full(self.est.shape, 0.5)
        gap = self.smoothed - self.est
        from scipy.special import ndtr  # imported where used (scipy.special is slow to import)

        return np.where(self._drawn, ndtr(gap / self._spread), (gap > 0).astype(float) + 0.5 * (gap == 0))

    def root_range(self) -> np.ndarray:
        return self.follow()

    def update(self, player: int, root_cfv: np.ndarray, t: int) -> None:
        if player != self.player:
            return
        if self.smoothed is None:
            self.smoothed = root_cfv.copy()
        else:
            self.smoothed += self.step * (root_cfv - self.smoothed)
