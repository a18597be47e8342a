"""Table 2 on NLFH as a job over flops: each flop's nested solving is the whole game's, flop by flop."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from subgame.errors import GameDefinitionError, SubgameError
from subgame.eval import exploitability
from subgame.experiments.flop_job import TreeRows, run_flop_job
from subgame.experiments.nested_flops import ABSTRACT_FRACTIONS, NESTED_ROWS, NestedResponses, nlfh_nested_game, table_2
from subgame.experiments.nested_flops import nlfh_nested_table as nested_table_nlfh
from subgame.experiments.nested_preflop import PreflopResolves
from subgame.experiments.nested_table import ROWS
from subgame.resolving import BetAbstraction, nested_strategy, restrict, translation_strategy
from subgame.solve.cfr import CFR_PLUS, CFRSolver
from subgame.strategy import Strategy
from subgame.tree.compile import compile_game

#: 4 ranks × 2 suits (56 flops), one bet preflop and one on the flop: seconds, not minutes
SMALL = {"num_ranks": 4, "num_suits": 2, "round_raise_caps": (1, 1), "preflop_fractions": (0.5, 1.0)}  # off-tree: flop only
EXACT_ROWS = ("translation", "resolve", "unsafe-expensive")


@pytest.fixture(scope="module")
def small():
    game = nlfh_nested_game(**SMALL)
    abstraction = BetAbstraction(game, ABSTRACT_FRACTIONS, all_in=False)
    return game, abstraction


@pytest.mark.slow
def test_every_flop_solved_apart_is_the_whole_games_nested_solving(small):
    """Translation, inexpensive and expensive nested roots (the unsafe one with its mirror solve): the flop job's exact
    exploitability equals the whole game's, whose nested solving sees every flop at once."""
    game, abstraction = small
    tree = compile_game(game)
    blueprint = CFRSolver(restrict(game, tree, abstraction), CFR_PLUS).run(30).average_strategy()
    its = 5
    whole = {}
    for name in EXACT_ROWS:
        how = ROWS[NESTED_ROWS[name]]
        probs = [translation_strategy(game, tree, abstraction, blueprint, p) if how is None else
                 nested_strategy(game, tree, abstraction, blueprint, p, how[0], root=how[1], iterations=its).probs
                 for p in (0, 1)]
        whole[name] = exploitability(tree, Strategy(tree.game_id, (probs[0], probs[1]))).exploitability
    plugin = NestedResponses(abstraction, EXACT_ROWS, its)
    for isomorphic in (False, True):  # every flop, or one per suit class standing for its class
        job = run_flop_job(game, TreeRows(tree, blueprint), blueprint_id="bp", methods=plugin, isomorphic=isomorphic)
        assert job.exact and (job.classes < 56) == isomorphic
        by = {e.method: e.exploitability for e in job.estimates}
        for name in EXACT_ROWS:
            assert by[name] == pytest.approx(whole[name], abs=1e-9), (name, isomorphic)
    assert by["translation"] > 0 and len({round(v, 6) for v in whole.values()}) == len(whole)  # three different strategies


def test_a_problem_met_again_at_a_flop_is_solved_once(small, monkeypatch):
    """Without gifts above a flop's off-tree bets, reach-maxmargin's nested problems there are maxmargin's: a flop's
    methods solve them once, and reach-maxmargin's exploitability is that of a job that solves them apart, bit for bit."""
    import subgame.resolving.nested as nested

    game, abstraction = small
    tree = compile_game(game)
    rows = TreeRows(tree, CFRSolver(restrict(game, tree, abstraction), CFR_PLUS).run(30).average_strategy())
    alone = run_flop_job(game, rows, blueprint_id="bp", methods=NestedResponses(abstraction, ("reach-maxmargin",), 5))
    calls = []
    solve = nested.resolve_subgame
    monkeypatch.setattr(nested, "resolve_subgame", lambda *a, **k: calls.append(1) or solve(*a, **k))
    both = run_flop_job(game, rows, blueprint_id="bp", methods=NestedResponses(abstraction, ("maxmargin", "reach-maxmargin"), 5))
    made = len(calls)
    run_flop_job(game, rows, blueprint_id="bp", methods=NestedResponses(abstraction, ("maxmargin",), 5))
    assert made == len(calls) - made > 0  # every one of reach-maxmargin's re-solves taken from maxmargin's
    assert both.estimates[2] == alone.estimates[1] and both.estimates[1].exploitability == alone.estimates[1].exploitability


PREFLOP_075 = {**SMALL, "preflop_fractions": (0.5, 0.75, 1.0)}  # the paper's game: 0.75 preflop too


@pytest.fixture(scope="module")
def preflop():
    """The small game with 0.75 preflop, its abstraction, whole tree and a whole-tree blueprint in the abstraction."""
    game = nlfh_nested_game(**PREFLOP_075)
    abstraction = BetAbstraction(game, ABSTRACT_FRACTIONS, all_in=False)
    tree = compile_game(game)
    return game, abstraction, tree, CFRSolver(restrict(game, tree, abstraction), CFR_PLUS).run(30).average_strategy()


@pytest.mark.slow
def test_translation_through_the_preflop_is_the_whole_games(preflop):
    """A 0.75 bet preflop is translated in the trunk and every flop below it plays the translated lines' blueprint,
    weighted by the responder's reach of them: the flop job's exploitability is the whole game's, and the blueprint's
    in its abstraction is too; with flops sampled as well, translation being valued at every flop (the control
    variate of the nested methods)."""
    game, abstraction, tree, blueprint = preflop
    probs = [translation_strategy(game, tree, abstraction, blueprint, p) for p in (0, 1)]
    whole = exploitability(tree, Strategy(tree.game_id, (probs[0], probs[1]))).exploitability
    own = exploitability(restrict(game, tree, abstraction), blueprint).exploitability
    plugin = NestedResponses(abstraction, ("translation",), 5, preflop=PreflopResolves(_lossless(game), 1))
    for isomorphic, flops in ((False, None), (True, None), (True, 3)):  # a sample too: translation is the control
        by = {e.method: e.exploitability for e in run_flop_job(game, TreeRows(tree, blueprint), blueprint_id="bp",
                                                               methods=plugin, isomorphic=isomorphic,
                                                               flops=flops).estimates}
        assert by["translation"] == pytest.approx(whole, abs=1e-9) and by["blueprint"] == pytest.approx(own, abs=1e-9)
    assert whole > own  # the preflop 0.75 bet costs the translating responder


def _lossless(game):
    from subgame.blueprint.card_abstraction import CardBuckets

    return CardBuckets.build(game, (28, 560))  # every preflop hand and every (flop, hand) class its own bucket


@pytest.mark.slow
def test_nested_solving_of_a_preflop_bet_is_measured_exactly_and_near_the_whole_games(preflop):
    """The job's exploitability of nested solving through the preflop is that of the responder's strategy put
    together on the whole tree (trunk rows, every flop's), bit for bit up to rounding; with the preflop re-solved
    in lossless buckets over every flop, it is near the whole game's nested solving (a re-solve by CFR). So is resolve
    at the flop's 0.75 bets alone, translation answering the preflop's (a splice: no re-solve of its own)."""
    from subgame.tree.board_cut import BoardCut
    from subgame.tree.part import place

    game, abstraction, tree, blueprint = preflop
    rows = ("translation", "resolve", "maxmargin")
    config = PreflopResolves(_lossless(game), 60, boards_per_pass=None, flop_method="resolve")
    job = run_flop_job(game, TreeRows(tree, blueprint), blueprint_id="bp", methods=NestedResponses(abstraction, rows, 30,
                       preflop=config))
    plugin = job.plugin
    assert isinstance(plugin, NestedResponses) and plugin.prepared is not None
    cut = BoardCut.of(game)
    source = TreeRows(tree, blueprint)
    reach = plugin.prepared.trunks["blueprint"].reach
    off_tree = plugin.prepared.off_tree_flops
    assert off_tree.any() and not off_tree.all()
    by = {e.method: e.exploitability for e in job.estimates}
    flops: dict[tuple[int, str], list[np.ndarray]] = {}  # each flop's responses of a method, computed once

    def responses(deal, part, flop, root, name):
        if (deal, name) not in flops:
            flops[deal, name] = [r.probs for r in plugin.responses_at(cut, part, flop, root, name)]
        return flops[deal, name]

    def assembled(trunk_rows, name, flop_only=False):
        """The exploitability of the responder's strategy on the whole tree: ``trunk_rows`` preflop, ``name`` at the
        flops (``flop_only``: at those below on-tree preflop lines, translation below the off-tree ones)."""
        probs = [np.zeros_like(blueprint.probs[q]) for q in (0, 1)]
        parts = [(place(tree, cut.trunk), trunk_rows)]
        for deal in cut.deals:
            part = cut.forest([deal])
            forest = part.tree
            root = (reach[0][part.gather[0]], reach[1][part.gather[1]])
            flop = Strategy(forest.game_id, (source(forest, 0), source(forest, 1)))
            res = responses(deal, part, flop, root, name)
            if flop_only:
                other = responses(deal, part, flop, root, "translation")
                below = np.zeros(forest.num_nodes, dtype=bool)  # per node: below an off-tree preflop bet
                for i, r in enumerate(np.flatnonzero(forest.parent < 0)):
                    below[r] = off_tree[part.root_chance[i]]
                for n in range(forest.num_nodes):
                    if forest.parent[n] >= 0:
                        assert forest.parent[n] < n
                        below[n] = below[forest.parent[n]]
                res = [np.where(below[forest.players[q].node[forest.players[q].infoset_priv]][:, None], other[q], res[q])
                       for q in (0, 1)]
            parts.append((place(tree, forest), (res[0], res[1])))
        for placed, (p0, p1) in parts:
            for q, pq in ((0, p0), (1, p1)):
                probs[q][placed.infosets[q], : pq.shape[1]] = pq
        return exploitability(tree, Strategy(tree.game_id, (probs[0], probs[1]))).exploitability

    for name in rows:
        assert by[name] == pytest.approx(assembled(plugin.prepared.rows[name], name), abs=1e-9), name
        if name == "translation":
            continue
        how = ROWS[NESTED_ROWS[name]]
        exact = [nested_strategy(game, tree, abstraction, blueprint, p, how[0], root=how[1], iterations=30).probs
                 for p in (0, 1)]
        whole = exploitability(tree, Strategy(tree.game_id, (exact[0], exact[1]))).exploitability
        assert abs(by[name] - whole) < 0.1 * whole, (name, by[name], whole)  # other solvers, 30 to 60 iterations
    spliced = assembled(plugin.prepared.rows["translation"], "resolve", flop_only=True)
    assert by["resolve@flop"] == pytest.approx(spliced, abs=1e-9)
    assert len({round(by[m], 6) for m in ("resolve", "resolve@flop", "translation")}) == 3  # a strategy of its own


def test_preflop_re_solves_refuse_what_they_cannot_do(preflop):
    from subgame.experiments.nested_preflop import preflop_answers, start_game

    game, abstraction, tree, _ = preflop
    with pytest.raises(GameDefinitionError, match="passes >= 1, workers >= 1 and a flop method"):
        PreflopResolves(_lossless(game), 10, flop_method="estimate")
    with pytest.raises(GameDefinitionError, match="needs the expensive root"):
        preflop_answers(game, abstraction, None, (None, None), (None, None), "unsafe", "inexpensive",  # type: ignore[arg-type]
                        PreflopResolves(_lossless(game), 1))
    sub = start_game(game, ("", "", "c", "r250"), (0.5, 1.0))  # the big blind's 0.75 bet after a limp
    assert sub.start_names == ("c", "r250") and sub.spec.round_bet_fractions == ((0.5, 0.75, 1.0), (0.5, 1.0))
    with pytest.raises(GameDefinitionError, match="not a preflop action"):
        start_game(game, ("", "", "r999"), (0.5, 1.0))


@pytest.mark.slow
def test_flop_blueprints_solved_from_the_preflop_and_a_run_that_resumes_reads_every_flop_back(small, tmp_path):
    game, abstraction = small
    tree = compile_game(game)
    rows = TreeRows(tree, CFRSolver(restrict(game, tree, abstraction), CFR_PLUS).run(10).average_strategy())
    plugin = NestedResponses(abstraction, ("translation", "maxmargin"), 5, blueprint_iterations=10)
    first = run_flop_job(game, rows, blueprint_id="bp", methods=plugin, isomorphic=True, checkpoint=tmp_path)
    by = {e.method: e.exploitability for e in first.estimates}
    assert first.exact and first.resumed == 0 and by["blueprint"] > 0 and by["translation"] > 0
    again = run_flop_job(game, rows, blueprint_id="bp", methods=plugin, isomorphic=True, checkpoint=tmp_path)
    assert again.resumed == again.classes and again.estimates == first.estimates
    with pytest.raises(SubgameError, match="another job"):  # another flop blueprint is another job
        run_flop_job(game, rows, blueprint_id="bp", methods=replace(plugin, blueprint_iterations=11), isomorphic=True,
                     checkpoint=tmp_path)


def test_the_real_game_bets_once_preflop_and_three_times_on_the_flop_and_the_abstraction_drops_075_on_the_flop():
    game = nlfh_nested_game(num_ranks=4, num_suits=2)
    st = game.root()
    while game.actor(st) < 0:  # deal the hole cards
        st = game.next_state(st, game.chance_outcomes(st)[0][0])
    names = [game.action_name(st, a) for a in game.legal_actions(st)]
    assert names[:2] == ["f", "c"] and len(names) == 5  # fold, call, 0.5, 0.75 and 1 pot
    st = game.next_state(st, game.legal_actions(st)[-1])
    assert [game.action_name(st, a) for a in game.legal_actions(st)] == ["f", "c"]  # one bet preflop
    st = game.next_state(st, game.legal_actions(st)[1])
    st = game.next_state(st, game.chance_outcomes(st)[0][0])  # the flop
    raises = 0
    while len(game.legal_actions(st)) > 2:
        assert len(game.legal_actions(st)) == (4 if raises == 0 else 5)  # (fold,) check or call, three sizes
        st = game.next_state(st, game.legal_actions(st)[-1])
        raises += 1
    assert raises == 3
    abstract = BetAbstraction(game, ABSTRACT_FRACTIONS, all_in=False).abstract_game
    assert abstract.spec.round_bet_fractions == ((0.5, 1.0), (0.5, 1.0)) and abstract.spec.round_raise_caps == (1, 3)
    assert game.spec.round_bet_fractions == ((0.5, 0.75, 1.0), (0.5, 0.75, 1.0))  # the paper's: 0.75 preflop too
    with pytest.raises(GameDefinitionError, match="round_raise_caps needs one"):
        nlfh_nested_game(round_raise_caps=(1, 3, 3))
    with pytest.raises(GameDefinitionError, match="round_raise_caps needs one whole"):
        nlfh_nested_game(round_raise_caps=(1, 2.5))
    assert nlfh_nested_game(round_raise_caps=(1.0, 3.0)).params == nlfh_nested_game().params  # `-p round_raise_caps=1,3`: one game


def test_the_leduc_form_refuses_the_job_options():
    with pytest.raises(GameDefinitionError, match="are for nlfh"):
        table_2(flops=3)
    with pytest.raises(GameDefinitionError, match="unknown nested-table rows"):
        NestedResponses(BetAbstraction(nlfh_nested_game(**SMALL), ABSTRACT_FRACTIONS, all_in=False), ("bogus",), 5)


@pytest.mark.slow
def test_the_nlfh_table_on_a_small_deck_samples_flops_and_prints_the_same_table_again(tmp_path, monkeypatch):
    import subgame.experiments.nested_flops as nested_flops
    from subgame.resolving.problem import problem_key

    below: list[tuple[object, ...]] = []  # the flops' re-solves below the preflop's re-solves, by flop and problem
    solve = nested_flops.resolve_subgame
    monkeypatch.setattr(nested_flops, "resolve_subgame", lambda problem, **k: below.append(
        (problem.part.tree.public_key[0], problem_key(problem))) or solve(problem, **k))
    options = {"num_ranks": 4, "num_suits": 2, "round_raise_caps": (1, 1), "flops": 3, "flop_buckets": 20,
               "blueprint_passes": 50, "blueprint_iterations": 5, "subgame_iterations": 5,
               "rows": ("translation", "resolve", "maxmargin", "reach-maxmargin")}
    heard: list[str] = []
    first = nested_table_nlfh(checkpoint=tmp_path, progress=heard.append, **options)
    flop_only = [f"{m} at the flop's 0.75 bets, translation preflop" for m in ("resolve", "maxmargin", "reach-maxmargin")]
    assert [row[0] for row in first.rows] == ["blueprint (in its abstraction)", "randomized pseudo-harmonic translation",
                                              "resolve", "maxmargin", "reach-maxmargin", *flop_only]
    blueprint, translation, resolve, maxmargin, reach, resolve_flop, *_ = first.rows
    assert blueprint[1] == blueprint[2] == blueprint[3] and translation[1] == translation[2] == translation[3]  # exact
    assert resolve[2] < resolve[3] and resolve_flop[2] < resolve_flop[3]  # sampled: intervals about translation's values
    assert resolve_flop[4] == "" and "'at the flop's 0.75 bets' plays its method" in first.setup[2]
    assert len(first.series[0].y) == 4  # the paper's rows plotted, not the splices
    assert [translation[4], resolve[4]] == [1465.0, 150.2] and "3 of 56 flops sampled" in first.setup[2]
    assert "as the paper" in first.setup[0] and "at a preflop 0.75 bet by decomposition" in first.setup[1]
    solved = sorted(path.name for path in (tmp_path / "preflop").glob("*.npz"))  # each preflop re-solve, kept
    assert solved == ["maxmargin-c_r250-1.npz", "maxmargin-r250-0.npz",  # the 0.75 bets: the small blind's open, the big's
                      "resolve-c_r250-1.npz", "resolve-r250-0.npz"]
    # no gift before a 0.75 bet preflop (the bettor's first action): reach-maxmargin's problems are maxmargin's, solved once
    assert reach[1:4] == maxmargin[1:4] and sum("the problem of an earlier re-solve" in line for line in heard) == 2
    assert below and len(set(below)) == len(below)  # ... and so are the flops' below them
    again = nested_table_nlfh(checkpoint=tmp_path, **options)  # ... read back, not run again
    assert again.rows == first.rows and "read back" in again.notes[0] and " 3 flop(s) read back" in again.notes[0]
    two = nested_table_nlfh(checkpoint=tmp_path / "two", workers=2, **options)  # the preflop's re-solves in two processes
    assert two.rows == first.rows
    finer = nested_table_nlfh(checkpoint=tmp_path, preflop_buckets=40, **options)  # the same folder: translation read back
    assert finer.rows[:2] == first.rows[:2] and finer.rows[2] != first.rows[2] and " 0 flop(s) read back" in finer.notes[0]
    assert "169 lossless preflop and 40 OCHS flop buckets with the method's root gadget" in finer.setup[1]
    assert len(list((tmp_path / "preflop-40").glob("*.npz"))) == 4 and len(list((tmp_path / "preflop").glob("*.npz"))) == 4


def test_a_preflop_re_solve_stopped_part_way_goes_on_to_its_passes_bitwise(preflop, tmp_path):
    """A re-solve's checkpoint of fewer passes than asked (a job stopped during it) is run on to the passes asked, the
    same solution bit for bit as a re-solve never stopped."""
    from subgame.experiments.nested_preflop import PreflopProblem, solve_preflop, start_game
    from subgame.tree.board_cut import BoardCut

    game, _, _, _ = preflop
    sub = start_game(game, ("", "", "r250"), (0.5, 1.0))
    trunk = BoardCut.of(sub).trunk
    root = (np.ones(trunk.players[0].num_states)[trunk.root_slice[0]], np.ones(trunk.players[1].num_states)[trunk.root_slice[1]])
    alt = np.linspace(-1.0, 1.0, root[1].size)  # the opponent's alternative payoffs: some regrets for the gadget

    def solved(passes: int, folder):
        folder.mkdir(exist_ok=True)
        config = PreflopResolves(_lossless(game), passes, folder=folder)
        return solve_preflop(PreflopProblem(sub, 0, root, alt, "resolve", config))

    solved(4, tmp_path / "stopped")
    resumed, whole = solved(10, tmp_path / "stopped"), solved(10, tmp_path / "whole")
    assert all(np.array_equal(a, b) for a, b in zip(resumed[0], whole[0])) and np.array_equal(resumed[1], whole[1])
    assert not np.array_equal(solved(4, tmp_path / "four")[1], whole[1])  # the passes matter to the gadget's range
