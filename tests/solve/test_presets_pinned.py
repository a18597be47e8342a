"""Exact early iterates of each CFR preset, pinned against OpenSpiel's solvers and a tabular CFR.

A convergence check cannot see an update rule that is slightly wrong (a discount applied
one iteration late, the average weighted by t instead of t^γ): the first iterates can. The
average policies of OpenSpiel's ``CFRSolver``, ``CFRPlusSolver``, ``LCFRSolver`` and
``DCFRSolver`` (alternating updates, the same parameters as our presets) after each of the
first iterations (five on Kuhn, two on Leduc) are matched to 1e-12, on the numpy path and on
the compiled depth-first passes (Leduc). MODICUM, which OpenSpiel lacks, is matched to a
tabular CFR written over the game's rules from the preset's definition.
"""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python.algorithms import cfr as os_cfr  # noqa: E402
from open_spiel.python.algorithms import discounted_cfr as os_dcfr  # noqa: E402

from subgame.agents import Move, StrategyAgent, View  # noqa: E402
from subgame.games import load_game  # noqa: E402
from subgame.games.base import CHANCE, TERMINAL  # noqa: E402
from subgame.interop.openspiel import from_tabular_policy  # noqa: E402
from subgame.solve.cfr import CFR, CFR_PLUS, DCFR, LINEAR_CFR, MODICUM, CFRConfig, CFRSolver  # noqa: E402
from subgame.tree import kernels  # noqa: E402
from subgame.tree.compile import compile_game  # noqa: E402

PRESET_CONFIGS = {"cfr": CFR, "cfr+": CFR_PLUS, "lcfr": LINEAR_CFR, "dcfr": DCFR, "modicum": MODICUM}
PRESETS = {
    "cfr": (CFR, os_cfr.CFRSolver),
    "cfr+": (CFR_PLUS, os_cfr.CFRPlusSolver),
    "lcfr": (LINEAR_CFR, os_dcfr.LCFRSolver),
    "dcfr": (DCFR, os_dcfr.DCFRSolver),
}


def _check_first_iterates(name: str, preset: str, iterations: int) -> None:
    game = load_game(name)
    tree = compile_game(game)
    os_game = pyspiel.load_game(f"{name}_poker")
    config, reference = PRESETS[preset]
    ours, theirs = CFRSolver(tree, config), reference(os_game)
    for t in range(1, iterations + 1):
        ours.step()
        theirs.evaluate_and_update_policy()
        expected = from_tabular_policy(game, tree, theirs.average_policy(), os_game)
        got = ours.average_strategy()
        for p in (0, 1):
            np.testing.assert_allclose(got.probs[p], expected.probs[p], rtol=0, atol=1e-12, err_msg=f"{preset} t={t} p={p}")


@pytest.mark.parametrize("compiled", [False, True], ids=["numpy", "compiled"])
@pytest.mark.parametrize("preset", list(PRESETS))
def test_kuhn_first_five_average_policies_equal_openspiel(preset, compiled):
    """Five: DCFR's discount of negative regrets shows in the average policy from the fourth iteration on."""
    with kernels.compiled(compiled):
        _check_first_iterates("kuhn", preset, 5)


@pytest.mark.parametrize("compiled", [pytest.param(False, id="numpy", marks=pytest.mark.slow), pytest.param(True, id="passes")])
@pytest.mark.parametrize("preset", ["cfr+", "dcfr"])
def test_leduc_first_two_average_policies_equal_openspiel(preset, compiled):
    """Leduc runs the depth-first passes where the compiled loops are on (Kuhn is too small for them)."""
    with kernels.compiled(compiled):
        _check_first_iterates("leduc", preset, 2)


# -- presets OpenSpiel does not have: a tabular CFR over the game's rules ------------------------------


def _tabular_cfr(game, config: CFRConfig, iterations: int) -> dict:
    """Average strategies after ``iterations`` of alternating tabular CFR, from ``config``'s definition alone.

    Written over the game's rules as OpenSpiel's solvers are (no compiled tree): regret
    matching (floored for ``rm+``), DCFR's discounts after each update, √t/√(t+1) for the
    first ``sqrt_discount`` iterations, the average weighted by t^γ and skipping the first
    ``average_skip`` of the run. Keys: ``(player, tuple of (public, private) observations)``.
    """
    regrets: dict = {}
    sums: dict = {}
    legal: dict = {}

    def current(key):
        pos = np.maximum(regrets[key], 0.0)
        return pos / pos.sum() if pos.sum() > 0 else np.full(len(pos), 1.0 / len(pos))

    def walk(st, moves, reach, p, t, weight):
        """Player p's expected utility at st (counterfactual: the others' reach in ``reach``); updates her tables."""
        who = game.actor(st)
        if who == TERMINAL:
            return game.utility(st) * (1 if p == 0 else -1)
        if who == CHANCE:
            return sum(q * walk(game.next_state(st, a), _after(game, st, a, moves), reach * np.array([1, 1, q]), p, t, weight)
                       for a, q in game.chance_outcomes(st))
        key = (who, tuple(m[who] for m in moves))
        actions = list(game.legal_actions(st))
        if key not in regrets:
            legal[key], regrets[key], sums[key] = actions, np.zeros(len(actions)), np.zeros(len(actions))
        sigma = current(key)
        values = np.zeros(len(actions))
        for k, a in enumerate(actions):
            nxt = reach.copy()
            nxt[who] *= sigma[k]
            values[k] = walk(game.next_state(st, a), _after(game, st, a, moves), nxt, p, t, weight)
        value = float(sigma @ values)
        if who == p:
            others = reach[1 - p] * reach[2]
            pending.append((key, others * (values - value), reach[p] * sigma * weight))
        return value

    for t in range(1, iterations + 1):
        weight = 0.0 if t <= config.average_skip * iterations else float(t) ** config.gamma
        for p in (0, 1):
            pending: list = []
            walk(game.root(), (), np.ones(3), p, t, weight)
            inst: dict = {}
            for key, regret, avg in pending:  # an information set is met once per history in it
                sums[key] += avg
                inst[key] = inst.get(key, 0.0) + regret
            for key, total in inst.items():
                r = regrets[key] + total
                if config.regret == "rm+":
                    r = np.maximum(r, 0.0)
                if config.alpha is not None:
                    r = r * np.where(r > 0, t**config.alpha / (t**config.alpha + 1), t**config.beta / (t**config.beta + 1))
                if t <= config.sqrt_discount:
                    r = r * np.sqrt(t) / np.sqrt(t + 1)
                regrets[key] = r
    return {key: (legal[key], s / s.sum() if s.sum() > 0 else np.full(len(s), 1 / len(s))) for key, s in sums.items()}


def _after(game, st, a, moves):
    pub, o0, o1 = game.observations(st, a)
    return moves + (((pub, o0), (pub, o1)),)


@pytest.mark.parametrize("preset", ["modicum", "cfr", "cfr+", "lcfr", "dcfr"])
@pytest.mark.parametrize("iterations", [1, 2, 3, 4])
def test_kuhn_presets_equal_a_tabular_cfr_over_the_rules(preset, iterations):
    """MODICUM (depth-limited paper, Appendix A) has no OpenSpiel solver: a tabular CFR written from its definition.

    The other presets check the tabular CFR itself against what OpenSpiel pins above.
    """
    game = load_game("kuhn")
    tree = compile_game(game)
    config = PRESET_CONFIGS[preset]
    agent = StrategyAgent(tree, CFRSolver(tree, config).run(iterations).average_strategy())
    reference = _tabular_cfr(game, config, iterations)
    assert len(reference) == sum(pa.num_infosets for pa in tree.players)
    for (player, observed), (actions, probs) in reference.items():
        view = View(player, tuple(Move(pub, priv) for pub, priv in observed), tuple(actions))
        got = agent.act(view).probs
        np.testing.assert_allclose([got.get(a, 0.0) for a in actions], probs, rtol=0, atol=1e-12, err_msg=str(observed))
