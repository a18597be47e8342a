"""Tree-free AIVAT (the cards' value, as on HUNL) against the exact value: a search agent against its own blueprint
on ``modicum-table``'s reduced deck.

The exact value comes from both agents' behaviour strategies on the compiled game; the match is played as on HUNL
(no tree: AIVAT's value function is the cards' value). Both estimates' 95 % intervals should hold the exact value.

Usage::

    python3 benchmarks/aivat_search.py --deals 3000 --agent "depth-limited (K = 4)"
"""

from __future__ import annotations

import argparse

from subgame.agents.match import exact_value, play_match
from subgame.experiments.hunl_matches import behaviour
from subgame.experiments.modicum_table import AGENTS, SETUPS, _agent, _blueprints
from subgame.tree.compile import compile_game


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=3000)
    ap.add_argument("--agent", default="naive depth-limited (K = 1)", choices=[a for a in AGENTS if AGENTS[a]])
    ap.add_argument("--seed", type=int, default=7, help="of the deals")
    args = ap.parse_args()
    setup = SETUPS["reduced"]
    bps = _blueprints(setup, 0, None)
    game = bps.game
    tree = compile_game(game)
    exact = exact_value(tree, behaviour(_agent(args.agent, bps, setup), game, tree, 0),
                        behaviour(_agent("blueprint", bps, setup), game, tree, 0))
    result = play_match(game, None, (_agent(args.agent, bps, setup), _agent("blueprint", bps, setup)), args.deals,
                        seed=args.seed)
    print(f"{args.agent} against its blueprint, {args.deals} duplicate deals, mbb/hand: exact {result.scale * exact:+.1f}")
    for kind in ("plain", "aivat"):
        e = result.estimate(kind)
        print(f"  {kind}: {e.mean:+.1f} ± {e.half_width:.1f} (holds the exact value: "
              f"{abs(e.mean - result.scale * exact) <= e.half_width})")


if __name__ == "__main__":
    main()
