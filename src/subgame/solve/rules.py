"""The CFR update rule as a value: the configuration, its named presets, and iteration t's parameters.

A :class:`CFRConfig` says how cumulative regrets are updated (regret matching or RM+, DCFR
discounts after the update or postflop-solver's before it, a √t/√(t+1) factor), how the
average strategy is accumulated (weights t^γ, a skipped prefix, a strategy sum discounted and
restarted at powers of 4, increments weighted by the player's reach or not) and whether the
current strategy is matched from a prediction (predictive CFR+). :func:`update_rule` turns it
into iteration t's :class:`UpdateRule`, the one record every loop reads: the numpy sweeps
(:func:`accumulate_regrets`, :func:`add_average`), the compiled sweeps and the depth-first
passes (:func:`~subgame.tree.kernels.update_params`), sampling CFR and checkpoints. A loop
that cannot run a part of a rule refuses it by name (:func:`refuse`). :data:`PRESETS` is the
registry of named configurations, with a one-line description each (:data:`PRESET_HELP`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal, get_args

import numpy as np

from ..errors import GameDefinitionError

Schedule = Literal["dcfr", "postflop"]
Prediction = Literal["none", "last"]
SCHEDULES: tuple[Schedule, ...] = ("dcfr", "postflop")
PREDICTIONS: tuple[Prediction, ...] = ("none", "last")


@dataclass(frozen=True)
class CFRConfig:
    """How regrets and the average strategy are updated.

    Attributes:
        regret: ``"rm"`` (regret matching) or ``"rm+"`` (cumulative regrets floored at 0).
        alpha, beta: DCFR discounts of positive and negative cumulative regrets, by s^α/(s^α+1)
            and s^β/(s^β+1); ``None`` disables. With schedule ``"dcfr"`` (Brown & Sandholm
            2019, §3) s = t and the factors multiply the regrets after iteration t's are added;
            with ``"postflop"`` (postflop-solver) s = max(t-2, 0) and they multiply the
            cumulative regrets before iteration t's are added (so β = 0 halves negative
            regrets and the first two iterations' positive regrets are dropped).
        gamma: schedule ``"dcfr"``: the average strategy weights iteration t by t^γ (0:
            uniform, 1: linear). Schedule ``"postflop"``: before iteration t's increment the
            strategy sum is multiplied by (u/(u+1))^γ, u = t-1 less the largest power of 4
            not above it (0 at t = 1): DCFR's averaging with a clock that restarts at
            iterations 1, 2, 5, 17, 65, ... (the sum is reset there).
        alternating: update player 0 then player 1 (player 1 sees player 0's new strategy),
            or both simultaneously.
        sqrt_discount: for iterations t <= this, cumulative regrets are multiplied by
            √t/√(t+1) after the update (depth-limited paper, Appendix A); 0 disables.
        average_skip: the average strategy leaves out iterations t <= average_skip × T,
            T being the run's planned length (``CFRSolver.plan``); without a plan every
            iteration is averaged.
        schedule: ``"dcfr"`` or ``"postflop"``, how α, β, γ are applied (above).
        prediction: ``"none"``, or ``"last"``: the current strategy is regret matching of the
            cumulative regrets plus the prediction m_{t+1} = the last instantaneous regret
            (predictive CFR+, Farina, Kroer & Sandholm 2021, §5); the solver keeps R_t + m_{t+1}.
        reach_average: the average strategy adds the player's reach × her strategy at each
            information set (the sequence-form average of CFR); ``False`` adds the strategy
            alone, as postflop-solver does.
    """

    regret: Literal["rm", "rm+"] = "rm"
    alpha: float | None = None
    beta: float | None = None
    gamma: float = 0.0
    alternating: bool = True
    sqrt_discount: int = 0
    average_skip: float = 0.0
    schedule: Schedule = "dcfr"
    prediction: Prediction = "none"
    reach_average: bool = True

    def __post_init__(self) -> None:
        for name, value, allowed in (("regret", self.regret, ("rm", "rm+")), ("schedule", self.schedule, SCHEDULES),
                                     ("prediction", self.prediction, PREDICTIONS)):
            if value not in allowed:
                raise GameDefinitionError(f"CFRConfig: {name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")
        for name, x in (("alpha", self.alpha), ("beta", self.beta), ("gamma", self.gamma), ("average_skip", self.average_skip)):
            if x is not None and (isinstance(x, bool) or not isinstance(x, (int, float)) or not np.isfinite(x) or x < 0):
                raise GameDefinitionError(f"CFRConfig: {name} must be a finite number >= 0, got {x!r}")
        if self.average_skip >= 1:
            raise GameDefinitionError(f"CFRConfig: average_skip must be below 1 (a fraction of the run), got {self.average_skip!r}")


@dataclass(frozen=True)
class UpdateRule:
    """Iteration t's update of one player's regrets and strategy sums, as every loop applies it.

    Attributes:
        rm_plus: cumulative regrets floored at 0 after the increment.
        before: (positive, negative) factors of the cumulative regrets before the increment, or ``None``.
        after: (positive, negative) factors after the increment (and the floor), or ``None``.
        scale: a factor of every cumulative regret after those, or ``None``.
        sum_discount: a factor of the strategy sum before the increment, or ``None``.
        weight: the increment's weight in the strategy sum.
        reach_average: the increment is reach × strategy (else the strategy alone).
        predict: the solver keeps R_t + r_t, which the current strategy is matched from.
    """

    rm_plus: bool = False
    before: tuple[float, float] | None = None
    after: tuple[float, float] | None = None
    scale: float | None = None
    sum_discount: float | None = None
    weight: float = 1.0
    reach_average: bool = True
    predict: bool = False


def _sign_factors(config: CFRConfig, s: float) -> tuple[float, float] | None:
    if config.alpha is None and config.beta is None:
        return None
    return (s**config.alpha / (s**config.alpha + 1.0) if config.alpha is not None else 1.0,
            s**config.beta / (s**config.beta + 1.0) if config.beta is not None else 1.0)


def update_rule(config: CFRConfig, t: int, horizon: int | None = None) -> UpdateRule:
    """Iteration t's :class:`UpdateRule` (t from 1) of a run planned to ``horizon`` iterations."""
    return UpdateRule(*rule_fields(config, t, horizon))


#: An :class:`UpdateRule`'s fields, in its order.
RuleFields = tuple[bool, "tuple[float, float] | None", "tuple[float, float] | None", "float | None", "float | None", float,
                   bool, bool]


def rule_fields(config: CFRConfig, t: int, horizon: int | None = None) -> RuleFields:
    """The fields of :func:`update_rule` without the record (a run of many iterations asks for each one's)."""
    postflop = config.schedule == "postflop"
    signs = _sign_factors(config, float(max(t - 2, 0)) if postflop else t)
    skipped = config.average_skip > 0 and horizon is not None and t <= config.average_skip * horizon
    if postflop:
        u = t - 1 - (0 if t == 1 else 4 ** ((t - 1).bit_length() - 1 >> 1))
        weight, sum_discount = (0.0 if skipped else 1.0), (u / (u + 1.0)) ** config.gamma
    else:
        weight, sum_discount = (0.0 if skipped else float(t) ** config.gamma), None
    return (config.regret == "rm+", signs if postflop else None, None if postflop else signs,
            float(np.sqrt(t) / np.sqrt(t + 1.0)) if t <= config.sqrt_discount else None,
            sum_discount, weight, config.reach_average, config.prediction == "last")


def average_restarts(config: CFRConfig, up_to: int) -> tuple[int, ...]:
    """The iterations up to ``up_to`` at which the strategy sum starts again (schedule ``"postflop"``: 4^k + 1, the
    sum multiplied by 0 before the iteration's increment), beyond the first; none under the other schedules."""
    if config.schedule != "postflop":
        return ()
    return tuple(4**k + 1 for k in range(1, max(up_to, 1).bit_length()) if 4**k + 1 <= up_to)


def accumulate_regrets(rule: UpdateRule, regrets: np.ndarray, inst: np.ndarray, predicted: np.ndarray | None = None,
                       rows: np.ndarray | None = None) -> None:
    """Add instantaneous regrets ``inst`` [I, A] to ``regrets`` in place per ``rule``; with prediction
    ``predicted`` becomes the new regrets plus ``inst`` (what the next strategy is matched from).

    ``rows`` [n] (distinct): ``inst`` [n, A] holds only these rows of the table, every other row's being zero; the
    regrets are those a whole zero-filled ``inst`` would give, bit for bit, without adding its zeros."""
    if rows is not None and rule.predict:
        raise GameDefinitionError("a predictive update rule adds the instantaneous regrets of every row to the prediction; "
                                  "give them for the whole table")
    r = regrets
    if rule.before is not None:
        _discount(r, rule.before)
    if rows is None:
        r += inst
    else:
        r[rows] += inst
    if rule.rm_plus:
        np.maximum(r, 0.0, out=r)
    if rule.after is not None:
        _discount(r, rule.after)
    if rule.scale is not None:
        r *= np.float64(rule.scale)
    if rule.predict:
        if predicted is None:
            raise GameDefinitionError("a predictive update rule needs the array of predicted regrets")
        np.add(r, inst, out=predicted, casting="same_kind")


def add_average(rule: UpdateRule, strategy_sum: np.ndarray, increment: np.ndarray, rows: np.ndarray | None = None) -> None:
    """Add an average-strategy increment (reach × strategy, or the strategy alone) to ``strategy_sum`` per ``rule``.

    ``increment`` is scaled by the weight in place. ``rows`` [n] (distinct): ``increment`` [n, A] holds only these
    rows of the table, every other row's being zero (as :func:`accumulate_regrets`).
    """
    increment *= rule.weight
    if rule.sum_discount is not None:
        strategy_sum *= rule.sum_discount
    if rows is None:
        strategy_sum += increment
    else:
        strategy_sum[rows] += increment


def _discount(r: np.ndarray, signs: tuple[float, float]) -> None:
    """``r`` times the discount of each entry's sign (positive, other), in place: one product where both are alike
    (in float64 the same bits as the product by the chosen factors)."""
    if signs[0] == signs[1] and r.dtype == np.float64:
        r *= signs[0]
    else:
        r *= np.where(r > 0, *signs)


Part = Literal["prediction", "reach_average", "schedule"]


def _uses(config: CFRConfig, part: Part) -> bool:
    return {"prediction": config.prediction != "none", "reach_average": not config.reach_average,
            "schedule": config.schedule != "dcfr"}[part]


def refuse(config: CFRConfig, loop: str, cannot: tuple[Part, ...]) -> None:
    """Refuse, by name, the parts of ``config`` that ``loop`` cannot run: ``prediction``,
    ``reach_average`` (averaging without reach weights) or a ``schedule`` other than DCFR's."""
    names = {"prediction": f"prediction {config.prediction!r}", "reach_average": "averaging without reach weights",
             "schedule": f"schedule {config.schedule!r}"}
    bad = [names[part] for part in cannot if _uses(config, part)]
    if bad:
        fits = ", ".join(n for n, c in PRESETS.items() if not any(_uses(c, part) for part in cannot))
        raise GameDefinitionError(f"{loop} cannot run the update rule's {' and '.join(bad)} ({_name(config)}); "
                                  f"use one of the presets {fits}")


def _name(config: CFRConfig) -> str:
    """The preset's name of ``config``, or "a custom CFRConfig"."""
    return next((f"preset {n!r}" for n, c in PRESETS.items() if c == config), "a custom CFRConfig")


CFR = CFRConfig()
CFR_PLUS = CFRConfig(regret="rm+", gamma=1.0)
LINEAR_CFR = CFRConfig(alpha=1.0, beta=1.0, gamma=1.0)
DCFR = CFRConfig(alpha=1.5, beta=0.0, gamma=2.0)
#: CFR+ as the depth-limited paper's agent ran it in subgames (Appendix A): regrets discounted by
#: √t/√(t+1) for the first 30 iterations, the first half of the iterations left out of the average.
MODICUM = CFRConfig(regret="rm+", gamma=1.0, sqrt_discount=30, average_skip=0.5)
#: Predictive CFR+ (Farina, Kroer & Sandholm 2021): RM+ on R_t + m_{t+1}, m_{t+1} the last
#: instantaneous regret, alternating updates, quadratic averaging (weights t²).
PCFR_PLUS = CFRConfig(regret="rm+", gamma=2.0, prediction="last")
#: DCFR+ (Xu et al. 2024, "Minimizing weighted counterfactual regret with optimistic online mirror
#: descent", IJCAI): RM+ with the cumulative regrets discounted by (t-1)^1.5/((t-1)^1.5+1) before
#: iteration t's are added, the average weighted by t^4. Discounting after the update by
#: t^1.5/(t^1.5+1), as here, scales every later regret alike: the same strategies.
DCFR_PLUS = CFRConfig(regret="rm+", alpha=1.5, gamma=4.0)
#: DCFR+ averaging the strategy alone, as postflop-solver averages: no reach carried down the
#: traverser's pass (cheaper passes) and an average that 16-bit storage can hold.
POSTFLOP_DCFR_PLUS = CFRConfig(regret="rm+", alpha=1.5, gamma=4.0, reach_average=False)
#: postflop-solver's discounted CFR: DCFR(1.5, 0, 3) with the discounts applied before the update,
#: the strategy sum restarted at powers of 4, increments not weighted by reach.
POSTFLOP_DCFR = CFRConfig(alpha=1.5, beta=0.0, gamma=3.0, schedule="postflop", reach_average=False)

_REGISTRY: tuple[tuple[str, CFRConfig, str], ...] = (
    ("cfr", CFR, "CFR: regret matching, uniform average (Zinkevich et al. 2007)"),
    ("cfr+", CFR_PLUS, "CFR+: regret matching+, linear average (Tammelin 2014)"),
    ("lcfr", LINEAR_CFR, "linear CFR: regrets and average weighted by t (Brown & Sandholm 2019)"),
    ("dcfr", DCFR, "discounted CFR (1.5, 0, 2) (Brown & Sandholm 2019)"),
    ("modicum", MODICUM, "CFR+ with sqrt discounts and half the run averaged (depth-limited paper, App. A)"),
    ("pcfr+", PCFR_PLUS, "predictive CFR+: RM+ on regrets plus the last regret, quadratic average (Farina et al. 2021)"),
    ("dcfr+", DCFR_PLUS, "DCFR+: RM+ with DCFR's discount of regrets, average weighted by t^4 (Xu et al. 2024)"),
    ("dcfr+-postflop", POSTFLOP_DCFR_PLUS, "DCFR+ averaging the strategy alone, as postflop-solver averages"),
    ("dcfr-postflop", POSTFLOP_DCFR, "postflop-solver's DCFR: discounts before the update, average restarted at powers of 4"),
)
#: The named configurations (name → :class:`CFRConfig`), in the order help lists them.
PRESETS: Mapping[str, CFRConfig] = MappingProxyType({name: config for name, config, _ in _REGISTRY})
#: One line per preset (name → description), for help texts.
PRESET_HELP: Mapping[str, str] = MappingProxyType({name: text for name, _, text in _REGISTRY})


def preset(name: str) -> CFRConfig:
    """The preset called ``name``; an unknown name is refused with the list of presets."""
    if name not in PRESETS:
        listing = "; ".join(f"{n}: {text}" for n, text in PRESET_HELP.items())
        raise GameDefinitionError(f"no CFR preset {name!r}; the presets are {listing}")
    return PRESETS[name]


#: Which loops run a CFR iteration: ``"auto"`` (the depth-first passes where they apply, else the
#: compiled sweeps on trees of at least :data:`~subgame.tree.kernels.MIN_STATES` private states,
#: else numpy), or one of them always.
Engine = Literal["auto", "numpy", "compiled", "passes"]
ENGINES: tuple[Engine, ...] = get_args(Engine)
