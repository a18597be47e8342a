"""Table 2 on NLFH as a job over flops: each flop's nested solving is the whole game's, flop by flop."""

from __future__ import annotations

from dataclasses import replace

import pytest

from subgame.errors import GameDefinitionError, SubgameError
from subgame.eval import exploitability
from subgame.experiments.flop_job import TreeRows, run_flop_job
from subgame.experiments.nested_flops import ABSTRACT_FRACTIONS, NESTED_ROWS, NestedResponses, nlfh_nested_game, table_2
from subgame.experiments.nested_flops import nlfh_nested_table as nested_table_nlfh
from subgame.experiments.nested_table import ROWS
from subgame.resolving import BetAbstraction, nested_strategy, restrict, translation_strategy
from subgame.solve.cfr import CFR_PLUS, CFRSolver
from subgame.strategy import Strategy
from subgame.tree.compile import compile_game

#: 4 ranks × 2 suits (56 flops), one bet preflop and one on the flop: seconds, not minutes
SMALL = {"num_ranks": 4, "num_suits": 2, "round_raise_caps": (1, 1)}
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
    assert names[:2] == ["f", "c"] and len(names) == 4  # fold, call, 0.5 and 1 pot
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
def test_the_nlfh_table_on_a_small_deck_samples_flops_and_prints_the_same_table_again(tmp_path):
    options = {"num_ranks": 4, "num_suits": 2, "round_raise_caps": (1, 1), "flops": 3, "flop_buckets": 20,
               "blueprint_passes": 50, "blueprint_iterations": 5, "subgame_iterations": 5, "rows": ("translation", "resolve")}
    first = nested_table_nlfh(checkpoint=tmp_path, **options)
    assert [row[0] for row in first.rows] == ["blueprint (in its abstraction)", "randomized pseudo-harmonic translation", "resolve"]
    blueprint, *sampled = first.rows
    assert blueprint[1] == blueprint[2] == blueprint[3]  # the blueprint's values at every flop: exact
    assert all(low < high for _, _, low, high, _ in sampled)  # sampled: an interval
    assert [row[4] for row in sampled] == [1465.0, 150.2] and "3 of 56 flops sampled" in first.setup[2]
    assert "ours does not" in first.setup[0] and "no card abstraction on the flop" in first.setup[1]
    again = nested_table_nlfh(checkpoint=tmp_path, **options)
    assert again.rows == first.rows and "read back" in again.notes[0] and " 3 flop(s) read back" in again.notes[0]
