"""Exploitability by a pass over boards equals the whole tree's, for explicit strategies and bucket blueprints."""

from __future__ import annotations

import json
from functools import cache
from itertools import combinations

import numpy as np
import pytest
from typer.testing import CliRunner

from subgame.blueprint.card_abstraction import BucketStrategy, CardBuckets, is_bucket_strategy_file
from subgame.cli.main import app
from subgame.errors import GameDefinitionError, StrategyFileError
from subgame.eval.best_response import exploitability
from subgame.eval.board_pass import BoardClasses, board_pass_exploitability, strategy_rows
from subgame.games import load_game
from subgame.games.poker import PokerGame
from subgame.solve.mccfr import PUBLIC_CHANCE_SAMPLING, MCCFRSolver
from subgame.strategy import Strategy
from subgame.tree.board_cut import BoardCut
from subgame.tree.compile import compile_game
from subgame.tree.isomorphism import suit_classes


def poker(name: str, **params: int) -> PokerGame:
    game = load_game(name, **params)
    assert isinstance(game, PokerGame)
    return game


def random_strategy(tree, seed: int) -> Strategy:
    rng = np.random.default_rng(seed)
    probs = []
    for pa in tree.players:
        x = rng.random(pa.legal.shape) ** 3 * pa.legal  # far from uniform, so that every sum matters
        probs.append(x / x.sum(axis=1, keepdims=True))
    return Strategy(tree.game_id, (probs[0], probs[1]))


@pytest.fixture(scope="module")
def nlfh_small():
    game = load_game("nlfh", num_ranks=4, num_suits=2)
    return game, compile_game(game)


@pytest.mark.parametrize("batch", [1, 5, 100])
@pytest.mark.slow
def test_board_pass_equals_whole_tree_exploitability_on_reduced_nlfh(nlfh_small, batch):
    game, tree = nlfh_small
    strategy = random_strategy(tree, batch)
    whole = exploitability(tree, strategy)
    result = board_pass_exploitability(game, strategy_rows(tree, strategy), batch=batch)
    assert result.exploitability.br_values == pytest.approx(whole.br_values, abs=1e-9, rel=0)
    assert result.boards == 56  # C(8 - 0, 3) flops, each reached from every preflop call sequence
    assert result.batches == -(-56 // batch)


def test_board_pass_on_leduc_matches_the_whole_tree():
    game = load_game("leduc")
    tree = compile_game(game)
    strategy = random_strategy(tree, 7)
    result = board_pass_exploitability(game, strategy_rows(tree, strategy), batch=2)
    assert result.exploitability.br_values == pytest.approx(exploitability(tree, strategy).br_values, abs=1e-12, rel=0)


@pytest.mark.slow
def test_a_bucket_blueprint_gives_the_solver_its_own_strategy_and_the_same_exploitability(nlfh_small, tmp_path):
    game, tree = nlfh_small
    buckets = CardBuckets.build(game, [28, 6], seed=0)
    abstraction = buckets.abstraction(game, tree)
    solver = MCCFRSolver(tree, PUBLIC_CHANCE_SAMPLING, seed=3, abstraction=abstraction)
    for _ in range(20):
        solver.step()
    avg = solver.average_strategy()
    blueprint = BucketStrategy.of(game, buckets, tree, abstraction, avg.probs)
    for p in (0, 1):
        assert len(blueprint.keys[p]) == abstraction.num_buckets(p)
        np.testing.assert_array_equal(blueprint.rows(game, tree, p), avg.probs[p])
    path = blueprint.save(tmp_path / "bp.npz", game="nlfh", params={"num_ranks": 4, "num_suits": 2})
    loaded, meta = BucketStrategy.load(path)
    assert meta == {"game": "nlfh", "params": {"num_ranks": 4, "num_suits": 2}} and is_bucket_strategy_file(path)
    result = board_pass_exploitability(game, lambda t, p: loaded.rows(game, t, p), batch=7)
    assert result.exploitability.br_values == pytest.approx(exploitability(tree, avg).br_values, abs=1e-9, rel=0)
    # isomorphic (board, hand) pairs share a bucket, so the blueprint is suit-symmetric
    iso = board_pass_exploitability(game, lambda t, p: loaded.rows(game, t, p), batch=7, isomorphic=True, check_symmetry=5)
    assert (iso.compiled, iso.checked) == (29, 5)
    assert iso.exploitability.br_values == pytest.approx(result.exploitability.br_values, abs=1e-9, rel=0)
    cli = CliRunner().invoke(app, ["evaluate", str(path), "--isomorphic", "--batch", "7", "--json"])
    assert cli.exit_code == 0, cli.output
    out = json.loads(cli.stdout)
    assert (out["boards"], out["compiled_boards"], out["checked_boards"], out["batches"]) == (56, 29, 2, 5)
    assert out["br_values"] == pytest.approx(list(result.exploitability.br_values), abs=1e-9, rel=0)


def test_board_pass_refuses_a_game_without_public_chance_and_a_bad_batch(nlfh_small):
    kuhn = load_game("kuhn")
    tree = compile_game(kuhn)
    with pytest.raises(GameDefinitionError, match="no public chance event"):
        board_pass_exploitability(kuhn, strategy_rows(tree, random_strategy(tree, 0)))
    game, tree = nlfh_small
    with pytest.raises(GameDefinitionError, match="batch"):
        board_pass_exploitability(game, strategy_rows(tree, random_strategy(tree, 0)), batch=0)
    with pytest.raises(GameDefinitionError, match="check_symmetry"):
        board_pass_exploitability(game, strategy_rows(tree, random_strategy(tree, 0)), isomorphic=True, check_symmetry=-1)


def test_a_strategy_file_is_not_a_bucket_blueprint(tmp_path):
    (tmp_path / "x.npz").write_bytes(b"not an archive")
    assert not is_bucket_strategy_file(tmp_path / "x.npz")
    with pytest.raises(StrategyFileError, match="card-abstracted blueprint"):
        BucketStrategy.load(tmp_path / "x.npz")


def test_the_full_deck_trunk_keeps_one_flop_per_betting_sequence():
    from subgame.tree.board_cut import BoardCut
    from subgame.tree.public_tree import LEAF

    cut = BoardCut.of(poker("nlfh"))
    trunk = cut.trunk
    assert cut.size == 3 and len(cut.deals) == 22_100
    leaves = np.flatnonzero(trunk.kind == LEAF)
    assert len({trunk.public_key[n][-1] for n in leaves}) == 1  # one flop, whatever the 22,100 dealt
    assert trunk.players[0].num_states < 100_000  # the preflop's 1,326 hands per node, not every flop's


def suit_symmetric_rows(game, *, symmetric_board: bool = True):
    """A random strategy whose rows depend on the cards only up to suit permutations.

    Each information set's row is drawn once for its class (betting, canonical image of
    (board, hand) under every suit permutation), so suit-isomorphic information sets share
    it exactly. ``symmetric_board=False`` keys the rows after the deal by the board and hand
    as dealt instead: symmetric before the deal, not after it.
    """
    spec = game.spec
    perms = suit_classes(spec.num_ranks, spec.num_suits, ()).card_perms()
    cut = BoardCut.of(game)
    boards = {game.cards_str(d): d for d in cut.deals}
    hands = {game.cards_str(h): tuple(h) for h in combinations(range(spec.deck_size), spec.hole_cards)}
    rng = np.random.default_rng(11)
    drawn: dict = {}

    @cache
    def image(board: tuple[int, ...], hand: tuple[int, ...]) -> tuple:
        if board and not symmetric_board:
            return board, hand
        return min((tuple(sorted(pi[c] for c in board)), tuple(sorted(pi[c] for c in hand))) for pi in perms.tolist())

    @cache
    def node_key(key: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[int, ...]]:
        return tuple(e for e in key if e not in boards), next((boards[e] for e in key if e in boards), ())

    def rows(tree, player):
        pa = tree.players[player]
        out = np.empty(pa.legal.shape)
        for i, g in enumerate(pa.infoset_priv.tolist()):
            betting, board = node_key(tree.public_key[pa.node[g]])
            x = drawn.setdefault((betting, image(board, hands[pa.label[g].split("/")[0]])), rng.random(8) ** 3 + 1e-3)
            out[i] = x[: pa.max_actions]
        out *= pa.legal
        return out / out.sum(axis=1, keepdims=True)

    return rows


@pytest.mark.parametrize(("ranks", "suits"), [(4, 2), (2, 4), (3, 3)])
@pytest.mark.slow
def test_the_isomorphic_pass_equals_the_plain_pass_and_the_whole_tree(ranks, suits):
    game = poker("nlfh", num_ranks=ranks, num_suits=suits)
    tree = compile_game(game)
    uniform = Strategy(tree.game_id, tuple(pa.legal / pa.legal.sum(axis=1, keepdims=True) for pa in tree.players))
    rows = suit_symmetric_rows(game)
    symmetric = Strategy(tree.game_id, (rows(tree, 0), rows(tree, 1)))
    classes = BoardClasses.of(BoardCut.of(game), True)
    for strategy, source in ((uniform, strategy_rows(tree, uniform)), (symmetric, rows)):
        whole = exploitability(tree, strategy).br_values
        plain = board_pass_exploitability(game, source, batch=4)
        iso = board_pass_exploitability(game, source, batch=4, isomorphic=True, check_symmetry=3)
        assert plain.exploitability.br_values == pytest.approx(whole, abs=1e-9, rel=0)
        assert iso.exploitability.br_values == pytest.approx(whole, abs=1e-9, rel=0)
        assert (plain.boards, plain.compiled, plain.checked) == (iso.boards, iso.boards, 0)
        assert iso.compiled == classes.compiled.size < iso.boards and iso.checked == 3
    assert exploitability(tree, symmetric).nash_conv > 2 * exploitability(tree, uniform).nash_conv / 3  # far from uniform too


def test_the_isomorphic_pass_on_leduc():
    game = load_game("leduc")
    tree = compile_game(game)
    rows = suit_symmetric_rows(game)
    whole = exploitability(tree, Strategy(tree.game_id, (rows(tree, 0), rows(tree, 1))))
    iso = board_pass_exploitability(game, rows, isomorphic=True, check_symmetry=3)
    assert (iso.boards, iso.compiled, iso.checked) == (6, 3, 3)
    assert iso.exploitability.br_values == pytest.approx(whole.br_values, abs=1e-12, rel=0)


@pytest.mark.slow
def test_a_strategy_that_is_not_suit_symmetric_is_refused(nlfh_small):
    game, tree = nlfh_small
    with pytest.raises(GameDefinitionError, match="not suit-symmetric: player .'s reach"):
        board_pass_exploitability(game, strategy_rows(tree, random_strategy(tree, 3)), isomorphic=True)
    # symmetric before the flop, so only the boards compiled beside their class's board can tell
    rows = suit_symmetric_rows(game, symmetric_board=False)
    with pytest.raises(GameDefinitionError, match="best-response values after board"):
        board_pass_exploitability(game, rows, isomorphic=True)
    unchecked = board_pass_exploitability(game, rows, isomorphic=True, check_symmetry=0)
    whole = exploitability(tree, Strategy(tree.game_id, (rows(tree, 0), rows(tree, 1))))
    assert unchecked.checked == 0
    assert abs(unchecked.exploitability.nash_conv - whole.nash_conv) > 1e-3  # what the check is for


@pytest.mark.slow
def test_evaluate_isomorphic_refuses_a_strategy_file_that_is_not_suit_symmetric(nlfh_small, tmp_path):
    game, tree = nlfh_small
    path = random_strategy(tree, 5).save(tmp_path / "r.npz")
    cli = CliRunner().invoke(app, ["evaluate", str(path), "--game", "nlfh", "-p", "num_ranks=4", "-p", "num_suits=2", "--isomorphic"])
    assert cli.exit_code != 0 and "not suit-symmetric" in cli.output and "Traceback" not in cli.output


def test_the_full_deck_compiles_one_flop_per_class_and_the_whole_class_the_trunk_keeps():
    cut = BoardCut.of(poker("nlfh"))
    classes = BoardClasses.of(cut, True)
    # 1,755 classes of flops; the trunk's own flop (2s2h2d, its showdown after an all-in) has 3 images compiled too
    assert classes.compiled.size == 1_755 + 3
    assert classes.weight.sum() == 22_100 and classes.perms.shape == (24, 52)
    np.testing.assert_array_equal(classes.compiled[classes.representative[classes.compiled]], classes.compiled)
    i = 12_345
    pi = classes.perms[classes.perm[i]]
    assert sorted(pi[list(cut.deals[i])]) == list(cut.deals[classes.compiled[classes.representative[i]]])
