"""Depth-limited solving in response to an off-tree bet (depth-limited paper §6.1, Fig. 2).

A no-limit game whose first action has bets of 0.5, 0.75 and 1 pot (and all-in); the
blueprint is solved in the abstraction without 0.75, and player 0 opens with the off-tree
0.75 bet. Player 1 answers it by

* randomized pseudo-harmonic translation (Ganzfried & Sandholm 2013) of the bet to 0.5 or 1;
* nested solving of the whole game below the bet (no depth limit), with player 0's
  alternative payoff at each root information set her counterfactual best-response value
  in the abstraction (C̃BV, safe-and-nested §6);
* depth-limited solving: the same re-solve of a subgame cut at the end of the first
  betting round, whose leaves hold K values per leaf state (§4); once the board card is
  dealt, the rest of the game below the bet is solved safely with player 0's values at the
  leaves as alternative payoffs (as the paper did). Three kinds of leaf values:

  - the paper's: the self-generative set of the abstraction's depth-limited game at the
    start, its value vectors at the leaves below the 0.5 and 1 bets averaged;
  - exact values with player 1 playing her translated blueprint below the leaves, the
    self-generative set generated in this subgame (player 0's first continuation is her
    blueprint of the translated bet);
  - a diagnostic: the same with player 1 playing, below the bet, the lower bound's
    strategy, a near-equilibrium of the game with the bet.

and the figure gives the exploitability of player 1's strategy against K, beside
translation and beside the lower bound: a CFR+ solution, with the blueprint's iterations,
of the abstraction with the 0.75 bet added at the first action.

Exploitability is player 0's best-response value against player 1's strategy minus the
game's value (estimated by a long CFR+ run, whose own gap the output states).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from ..depthlimited import Continuations, ExactValues, LeafValues, MultiValuedLeaf, depth_limited_tree
from ..depthlimited.solving import self_generative_continuations
from ..errors import SubgameError
from ..eval import exploitability
from ..eval.best_response import best_response, best_response_to_reach
from ..games.poker.game import PokerGame
from ..resolving import BetAbstraction, restrict, translation_strategy
from ..resolving.problem import GadgetSpec, SubgameProblem, resolve_subgame
from ..resolving.solving import blueprint_problem, blueprint_values
from ..solve.cfr import CFR_PLUS, CFRSolver
from ..tree.compile import compile_game
from ..tree.part import Part, compile_part, place
from ..tree.public_tree import CHANCE_NODE, LEAF, PublicKey, PublicTree
from ..tree.sweep import forward_reach, transition_weights
from .nested_table import BIG_BLIND, nested_game
from .report import ExperimentResult, Series

PAPER_SHAPE = ("Paper (Fig. 2, no-limit flop hold'em, 1,000 CFR+ iterations): K = 1 is worse than randomized "
               "pseudo-harmonic translation, K >= 2 better, and K = 16 close to the lower bound of a blueprint that "
               "had the 0.75x bet all along. The paper gives the figure, not its numbers.")

RESPONDER, BETTOR = 1, 0
PAPER_VALUES = "depth-limited, the paper's leaf values (average of the 0.5 and 1 pot leaves)"
TRANSLATED_VALUES = "depth-limited, leaves under the translated blueprint"
GOOD_VALUES = "depth-limited, leaves under the lower bound's strategy after the bet (diagnostic)"


def offtree_values(
    *,
    full: bool = False,
    seed: int = 0,
    ks: Sequence[int] = (1, 2, 4, 8, 16),
    num_ranks: int | None = None,
    stack: int | None = None,
    blueprint_iterations: int | None = None,
    iterations: int | None = None,
    equilibrium_iterations: int | None = None,
) -> ExperimentResult:
    """Fig. 2 of the depth-limited paper: exploitability of the answer to an off-tree bet against K.

    Default: 3 ranks × 2 suits, stacks of 10 big blinds, 500 CFR+ iterations for the
    blueprint and for each solve; ``full``: 4 ranks, 12 big blinds, 1,000 iterations (the
    paper's). Deterministic (``seed`` is recorded only).
    """
    ranks = num_ranks or (4 if full else 3)
    chips = stack or (24 if full else 20)
    bp_its = blueprint_iterations or (1000 if full else 500)
    its = iterations or (1000 if full else 500)
    eq_its = equilibrium_iterations or (10000 if full else 3000)
    started = time.perf_counter()
    game = nested_game(ranks, chips)
    full_tree = compile_game(game)
    abstraction = BetAbstraction(game, (0.5, 1.0), True)
    root = full_tree.public_key[0]
    abstract = restrict(game, full_tree, abstraction)
    real = restrict(game, full_tree, abstraction, open_at={root})  # the 0.75 bet at the first action only
    names = full_tree.players[BETTOR].action_names[0]
    bet = next(n for n in names if n.startswith("r") and not abstract.players[BETTOR].legal[0, names.index(n)]
               and n != names[-1])
    after = root + (bet,)

    blueprint = CFRSolver(abstract, CFR_PLUS).run(bp_its).average_strategy()
    with_bet = CFRSolver(real, CFR_PLUS).run(bp_its).average_strategy()
    reference = CFRSolver(real, CFR_PLUS).run(eq_its).average_strategy()
    ref = exploitability(real, reference)
    value = float(ref.game_value or 0.0)  # always set for a full-game strategy

    def responder_exploitability(probs: np.ndarray) -> float:
        return best_response(real, reference.with_player(RESPONDER, probs), BETTOR).value - value

    # Both players' blueprints in the real game: the responder translates the bet; the
    # bettor, after her own 0.75 bet, plays her blueprint of the translated bet (the
    # abstraction's blueprint never trained the rows below 0.75).
    translated = blueprint.with_player(RESPONDER, translation_strategy(game, real, abstraction, blueprint, RESPONDER)) \
        .with_player(BETTOR, translation_strategy(game, real, abstraction, blueprint, BETTOR, own_off_tree=True))
    rows: list[tuple[str, int | str, float]] = [
        ("randomized pseudo-harmonic translation", "", responder_exploitability(translated.probs[RESPONDER])),
        (f"lower bound: 0.75 in the abstraction (CFR+ {bp_its} it. of the whole game)", "", responder_exploitability(with_bet.probs[RESPONDER])),
    ]
    bv_real = blueprint_values(real, translated)
    cbv_abstract = blueprint_values(abstract, blueprint).cbv[BETTOR]
    dl_part = place(real, restrict(game, depth_limited_tree(game, public_state=after, chance_limit=1), abstraction))
    dl = dl_part.tree

    def subgame_problem(part: Part) -> SubgameProblem:
        """Re-solving below the bet in ``part``, the bettor's alternatives her C̃BV at the start of the abstraction
        (footnote 4: at I, not I·a; the bet is public, so I is the parent of each root state)."""
        c_tilde = cbv_abstract[real.players[BETTOR].parent[part.root_states[BETTOR]]]
        return replace(blueprint_problem(bv_real, part, RESPONDER, "resolve"), alt=c_tilde)

    problem = subgame_problem(dl_part)

    def answer(values: LeafValues) -> tuple[MultiValuedLeaf, np.ndarray]:
        """The depth-limited solve against ``values``: (its leaf, the responder's strategy in ``dl``)."""
        leaf = MultiValuedLeaf(dl, values)
        return leaf, resolve_subgame(problem, iterations=its, leaves=(leaf,)).probs

    def final_exploitability(leaf: MultiValuedLeaf, dl_probs: np.ndarray) -> float:
        """With the rest of the game below the bet re-solved safely from the leaves (§6.1), the blueprint elsewhere."""
        probs = dl_part.embed(translated.probs[RESPONDER], dl_probs, RESPONDER)
        return responder_exploitability(_solve_below(game, real, abstraction, dl, leaf, dl_probs, problem.root_reach,
                                                     probs, its))

    def self_generative(below: np.ndarray) -> list[float]:
        """Exploitability for each K with exact leaf values, the responder playing ``below`` under the leaves.

        The self-generative set (§4) is generated with the very subgame problem it serves:
        the bettor's best response to the depth-limited solution (``below`` under it) is added.
        """
        source = ExactValues(game, real, translated.with_player(RESPONDER, below))
        conts = Continuations(BETTOR, (translated.probs[BETTOR],), ("blueprint",))
        solved = [answer(source.leaf_values(dl, conts))]
        while conts.num_values < max(ks):
            br = best_response(real, translated.with_player(RESPONDER, dl_part.embed(below, solved[-1][1], RESPONDER)), BETTOR)
            conts = conts.add(br.policy, f"best response {conts.num_values}")
            solved.append(answer(source.leaf_values(dl, conts)))
        return [final_exploitability(*solved[k - 1]) for k in ks]

    # No depth limit: the whole game below the bet re-solved with the same gadget, what the
    # depth-limited solve approximates ("solving to the end of the game", §6.1).
    whole = compile_part(game, real, [real.node_of_key[after]])
    whole = replace(whole, tree=restrict(game, whole.tree, abstraction))
    rows.append(("nested solving to the end of the game (no depth limit)", "", responder_exploitability(
        whole.embed(translated.probs[RESPONDER], resolve_subgame(subgame_problem(whole), iterations=its).probs, RESPONDER))))

    # The paper's leaves: the self-generative set of the abstraction's depth-limited game at
    # the start, valued at the leaves below the neighbouring bets and averaged (§6.1).
    start = restrict(game, depth_limited_tree(game, chance_limit=1), abstraction)
    start_source = ExactValues(game, abstract, blueprint)
    start_conts = self_generative_continuations(abstract, blueprint_values(abstract, blueprint), start, RESPONDER,
                                                start_source, max(ks), iterations=its)
    neighbours = [root + (names[names.index(bet) + d],) for d in (-1, 1)]
    paper_values = averaged_leaf_values(dl, start, start_source.leaf_values(start, start_conts), neighbours)
    curves = {
        PAPER_VALUES: [final_exploitability(*answer(paper_values.select(range(k)))) for k in ks],
        TRANSLATED_VALUES: self_generative(translated.probs[RESPONDER]),
        # Diagnostic: below the leaves, the lower bound's own strategy after the bet (blueprint elsewhere).
        GOOD_VALUES: self_generative(whole.embed(translated.probs[RESPONDER],
                                                 with_bet.probs[RESPONDER][whole.infosets[RESPONDER]], RESPONDER)),
    }
    for name, ys in curves.items():
        rows.extend((name, k, e) for k, e in zip(ks, ys))
    mbb = 1000.0 / BIG_BLIND
    table = [(name, k, e, mbb * e) for name, k, e in rows]
    kmax = max(ks)
    last = {name: mbb * ys[list(ks).index(kmax)] for name, ys in curves.items()}
    notes = (
        f"Ours: {ranks} ranks x 2 suits, one hole card, one board card, blinds 1/2, stacks {chips} chips, bets of 0.5, "
        f"0.75, 1 pot and all-in at the first action ({bet} is the 0.75 bet), 0.5, 1 pot and all-in elsewhere; the "
        f"blueprint is CFR+ {bp_its} iterations without 0.75. Every solve is CFR+ {its} iterations, and the leaf values "
        "are exact. Player 0's first continuation below the 0.75 bet is her blueprint of the translated bet (the "
        "abstraction's blueprint has no trained rows below 0.75). Exploitability is player 0's best-response value "
        "against player 1's strategy minus the game value, in chips and mbb/hand (big blind 2 chips); the value comes "
        f"from CFR+ {eq_its} iterations, whose NashConv/2 is {ref.exploitability:.2e} chips. Seed {seed} "
        f"(deterministic); {time.perf_counter() - started:.0f} s.",
        f"What limits depth-limited solving here (mbb/hand, K = {kmax}): nested solving to the end of the game "
        f"{mbb * rows[2][2]:.2f} against the lower bound {mbb * rows[1][2]:.2f}; depth-limited with the lower bound's "
        f"own play below the bet under the leaves {last[GOOD_VALUES]:.2f}; with the translated blueprint under the "
        f"leaves {last[TRANSLATED_VALUES]:.2f}; with the paper's averaged values {last[PAPER_VALUES]:.2f}; translation "
        f"{mbb * rows[0][2]:.2f}. The first gap is the root gadget's (C̃BV alternatives, blueprint elsewhere), the "
        "second the depth limit's with right values below it, and the third what the assumed play below the leaves "
        "costs: the blueprint of a 0.5 or 1 pot played in the 0.75 pot, the same play translation makes. The paper's "
        "averaged values assume that blueprint too (its values in the 0.5 and 1 pots).",
        "Where we differ from the paper: no-limit flop hold'em (52 cards, 200 big blinds) there, a Leduc-sized deck "
        "here; the paper's leaf values came from a stored table. The lower bound is the paper's: the exploitability "
        "of the same CFR+ run on an abstraction that had the bet; re-solving below the bet with more values can go "
        "under it. The paper's averaged values are the series that the blueprint's last bits move most: with CFR+ "
        "summing terminal values in another order (equal up to rounding) they crossed translation at some K in "
        "both forms, while the other series moved less; read their place beside translation with that in mind.",
        PAPER_SHAPE,
    )
    xs = list(ks)
    series = (
        *(Series(name, xs, ys) for name, ys in curves.items()),
        Series("randomized pseudo-harmonic translation", xs, [rows[0][2]] * len(xs)),
        Series("lower bound (0.75 in the abstraction)", xs, [rows[1][2]] * len(xs)),
    )
    return ExperimentResult(
        "offtree-values",
        "Answering an off-tree bet by depth-limited solving with K values per state (depth-limited paper, Fig. 2)",
        ("responder to the 0.75-pot bet", "K", "exploitability (chips/hand)", "mbb/hand"),
        table, series, "values per leaf state K", "exploitability (chips/hand)", logx=True, logy=True, notes=notes,
    )


def _solve_below(game: PokerGame, real: PublicTree, abstraction: BetAbstraction, dl: PublicTree, leaf: MultiValuedLeaf,
                 dl_probs: np.ndarray, root_reach: np.ndarray, probs: np.ndarray, iterations: int) -> np.ndarray:
    """The responder's strategy below the depth limit, re-solved safely from the leaves' values (§6.1).

    Player 0's alternative payoff at each leaf state is her value there against the
    depth-limited solution with her best continuation; the responder's range is her reach there.
    """
    reach = forward_reach(dl, RESPONDER, transition_weights(dl, RESPONDER, dl_probs), root_reach)
    zero = np.zeros(dl.players[BETTOR].num_states)
    leaf_cfv = leaf.evaluate(BETTOR, (zero, reach), "best")
    cbv = best_response_to_reach(dl, BETTOR, reach, leaf_cfv=leaf_cfv, want_policy=False).cbv
    below = compile_part(game, dl, np.flatnonzero(dl.kind == LEAF))
    below = replace(below, tree=restrict(game, below.tree, abstraction))
    problem = SubgameProblem(below, RESPONDER, below.at_roots(reach, RESPONDER), below.at_roots(cbv, BETTOR), GadgetSpec("resolve"))
    sol = resolve_subgame(problem, iterations=iterations)
    return place(real, below.tree).embed(probs, sol.probs, RESPONDER)


def _children(tree: PublicTree) -> list[list[int]]:
    """[N] each public node's children, in the tree's order (the order of its actions or outcomes)."""
    out: list[list[int]] = [[] for _ in range(tree.num_nodes)]
    for n in np.flatnonzero(tree.parent >= 0):
        out[int(tree.parent[n])].append(int(n))
    return out


def _matching_leaves(dl: PublicTree, start: PublicTree, target: PublicKey) -> np.ndarray:
    """[N_dl] for each leaf node of ``dl``, the leaf of ``start`` reached by the same actions below ``target``, else -1.

    The paper matched "the exact same sequence of actions, except P1 initially bets 0.5x or
    1x the pot" (§6.1). Bets are named by chips, which differ with the pot, so a fold
    matches the fold, a call the call, the all-in (the last raise) the all-in, and the
    i-th other raise the i-th other raise (the last of them where the other pot has
    fewer); chance outcomes match by name.
    """
    kids_dl, kids_st = _children(dl), _children(start)
    image = np.full(dl.num_nodes, -1, dtype=np.int64)
    image[np.flatnonzero(dl.parent < 0)] = start.node_of_key[target]
    for n in range(dl.num_nodes):  # once per public node; parents come before children
        m = int(image[n])
        if m < 0:
            continue
        names_st = [start.public_key[c][-1] for c in kids_st[m]]
        for i, c in enumerate(kids_dl[n]):
            name = dl.public_key[c][-1]
            if dl.kind[n] == CHANCE_NODE or name[:1] in ("f", "c"):
                j = next((k for k, x in enumerate(names_st) if x == name or (dl.kind[n] != CHANCE_NODE and x == name[:1])),
                         -1)
            else:
                raises_dl = [k for k, c2 in enumerate(kids_dl[n]) if dl.public_key[c2][-1][:1] == "r"]
                raises_st = [k for k, x in enumerate(names_st) if x[:1] == "r"]
                pos = raises_dl.index(i)
                j = -1 if not raises_st else raises_st[-1] if pos == len(raises_dl) - 1 else (
                    raises_st[min(pos, max(len(raises_st) - 2, 0))])
            image[c] = kids_st[m][j] if j >= 0 else -1
    leaves = dl.kind == LEAF
    image[~leaves] = -1
    found = leaves & (image >= 0)
    image[found] = np.where(start.kind[image[found]] == LEAF, image[found], -1)
    return image


def averaged_leaf_values(dl: PublicTree, start: PublicTree, values: LeafValues, targets: Sequence[PublicKey]) -> LeafValues:
    """Leaf values of the off-tree subgame ``dl``: the average of the value vectors at the matching leaves below ``targets``.

    Depth-limited paper §6.1: "The values of a leaf node in this subgame were set by first
    determining the in-abstraction leaf nodes corresponding to the exact same sequence of
    actions, except P1 initially bets 0.5x or 1x the pot. The leaf node values in the 0.75x
    subgame were set to the average of those two corresponding value vectors." ``values``
    are over ``start``, the depth-limited tree of the abstraction; a private state matches
    by its label (the same hole card), so chance weights agree. Where the sequence ends
    below one target but not the other (there a raise was all-in and ended the betting),
    the leaf takes the one that matches.

    Raises:
        SubgameError: a leaf of ``dl`` matches no leaf below any target.
    """
    import scipy.sparse as sp
    images = [_matching_leaves(dl, start, t) for t in targets]
    leaves = np.flatnonzero(dl.kind == LEAF)
    count: np.ndarray = (np.stack(images) >= 0).sum(axis=0).astype(np.float64)
    bad = leaves[count[leaves] == 0]
    if bad.size:
        raise SubgameError(f"the off-tree leaf {dl.public_key[bad[0]]!r} matches no leaf with the same actions below "
                           f"{', '.join(map(repr, targets))}; choose a depth limit above the point where they differ")
    out = [sp.csr_matrix((dl.players[0].num_states, dl.players[1].num_states)) for _ in values.matrices]
    for image in images:
        maps = []
        for p in (0, 1):
            pd, ps = dl.players[p], start.players[p]
            at = {(int(ps.node[g]), ps.label[g]): int(g) for g in np.flatnonzero(start.kind[ps.node] == LEAF)}
            rows = np.flatnonzero((dl.kind[pd.node] == LEAF) & (image[pd.node] >= 0))
            cols = np.fromiter((at[(int(image[pd.node[g]]), pd.label[g])] for g in rows), dtype=np.int64, count=rows.size)
            weight = 1.0 / count[pd.node[rows]] if p == 0 else np.ones(rows.size)
            maps.append(sp.csr_matrix((weight, (rows, cols)), shape=(pd.num_states, ps.num_states)))
        out = [o + maps[0] @ g @ maps[1].T for o, g in zip(out, values.matrices)]
    return LeafValues(dl.game_id, values.player, tuple(sp.csr_matrix(o) for o in out), values.names)
