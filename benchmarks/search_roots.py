"""The search agents of ``modicum-table``'s reduced deck with unsafe and safe river roots: exact exploitability and
exact winrate against LBR.

Each agent (the blueprint; K = 1 and K = 4 flop and turn search, the river to the end) is asked at every
information set of the compiled reduced game (``behaviour``); its exploitability is exact, and so
is its winrate against LBR modelled on it (a twin of the agent keeping every solve), the mean of
both seats. ``root``: the opponent's range at each river re-solve's root, her Bayes range
(unsafe) or a resolve or maxmargin gadget on her best-response values against the blueprint.

Usage::

    python3 benchmarks/search_roots.py [--seed 0]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

from subgame.agents.beliefs import BlueprintModel
from subgame.agents.hunl_search import ROOTS, HunlSearchAgent
from subgame.agents.lbr import LocalBestResponse
from subgame.agents.match import mbb_scale
from subgame.agents.search_model import SearchModel
from subgame.eval import exploitability
from subgame.eval.best_response import expected_value
from subgame.experiments.hunl_matches import behaviour
from subgame.experiments.modicum_table import AGENTS, SETUPS, _agent, _blueprints
from subgame.strategy import Strategy
from subgame.tree.compile import compile_game


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    seed = ap.parse_args().seed
    setup = SETUPS["reduced"]
    bps = _blueprints(setup, seed, None)
    game = bps.game
    tree = compile_game(game)
    scale, unit = mbb_scale(game)
    print(f"| agent | river root | exploitability ({unit}) | agent vs LBR ({unit}) | seconds |\n|---|---|---:|---:|---:|")
    for name in AGENTS:
        for root in ROOTS if AGENTS[name] is not None else ("unsafe",):
            started = time.perf_counter()
            agent = _agent(name, bps, setup)
            if isinstance(agent, HunlSearchAgent):
                agent = HunlSearchAgent(game, agent.base.blueprint, agent.base.abstraction,
                                        replace(agent.config, root=root), name=agent.name)
            played = behaviour(agent, game, tree, seed)
            model = (SearchModel(agent, seed=seed, keep=None) if isinstance(agent, HunlSearchAgent)
                     else BlueprintModel(game, *bps.agents))
            lbr = behaviour(LocalBestResponse(game, model, name="lbr"), game, tree, seed)
            seats = [expected_value(tree, Strategy(tree.game_id, pair)) for pair in
                     ((played.probs[0], lbr.probs[1]), (lbr.probs[0], played.probs[1]))]
            print(f"| {name} | {root if AGENTS[name] is not None else '(no search)'} | {exploitability(tree, played).exploitability * scale:.1f} | "
                  f"{(seats[0] - seats[1]) / 2 * scale:+.1f} | {time.perf_counter() - started:.0f} |", flush=True)


if __name__ == "__main__":
    main()
