"""The HUNL search agent on reduced four-round decks: it lowers its blueprint's exact exploitability, answers any
bet legally, is deterministic with an iteration budget, falls back to the blueprint when a subgame does not fit."""

from __future__ import annotations

import logging
from functools import cache

import numpy as np
import pytest

from subgame.agents import CallAgent
from subgame.agents.acpc import Dealer, DealerConfig
from subgame.agents.base import Move, View
from subgame.agents.blueprint import BlueprintAgent
from subgame.agents.exact import agent_exploitability
from subgame.agents.hunl_search import HunlSearchAgent, HunlSearchConfig
from subgame.agents.specs import load_agent
from subgame.agents.table import Table
from subgame.blueprint.actions import ActionAbstraction, parse_actions
from subgame.blueprint.blueprint_file import Blueprint
from subgame.blueprint.buckets4 import Buckets4Config, FourRoundBuckets
from subgame.blueprint.deal_abstraction import ExactCards
from subgame.blueprint.implicit_mccfr import ImplicitConfig, ImplicitMCCFR, available
from subgame.errors import SubgameError
from subgame.games import load_game
from subgame.games.poker.acpc import load_acpc_game
from subgame.games.poker.game import PokerGame
from subgame.solve.driver import Budget
from subgame.tree.compile import compile_game
from subgame.tree.public_tree import PublicTree
from tests.agents.test_acpc_match import FAST, _client, _match
from tests.blueprint.conftest import REDUCED

pytestmark = pytest.mark.skipif(not available(), reason="the compiled loop of implicit MCCFR is not built")

#: three ranks: every river public state of the agent's walk is solved in seconds
SMALL = {**REDUCED, "num_ranks": 3}


@cache
def _game(**changes: object) -> PokerGame:
    game = load_game("poker", **{**SMALL, **changes})
    assert isinstance(game, PokerGame)
    return game


@cache
def _blueprint(iterations: int = 300) -> Blueprint:
    game = _game()
    solver = ImplicitMCCFR(game.spec, ActionAbstraction.of_spec(game.spec), ExactCards(game.spec),
                           ImplicitConfig(batch=1000), seed=2)
    while solver.iteration < iterations:
        solver.step()
    return Blueprint.of(solver)


def _agent(game: PokerGame, **config: object) -> HunlSearchAgent:
    cfg = HunlSearchConfig(**{"budget": Budget(iterations=20), **config})  # type: ignore[arg-type]
    return HunlSearchAgent(game, _blueprint(), ExactCards(_game().spec), cfg)


def _nash_conv_half(agent, game, tree) -> float:
    e, _ = agent_exploitability(agent, game, tree)
    return float(sum(e.br_values) / 2)


#: sizes the blueprint lacks (it bets a pot)
OFF_TREE = {"bet_fractions": (0.5, 1.0, 2.0), "raise_cap": 2}


@cache
def _tree(**changes: object) -> PublicTree:
    return compile_game(_game(**changes))


@cache
def _blueprints_nash_conv_half(**changes: object) -> float:
    """The blueprint agent's NashConv / 2 on the game with ``changes`` (translation where it has other sizes): the
    yardstick of most tests here, computed once a process."""
    game = _game(**changes)
    return _nash_conv_half(BlueprintAgent(game, _blueprint(), ExactCards(_game().spec)), game, _tree(**changes))


@pytest.mark.parametrize("search_round", [3, 2])
def test_search_lowers_the_blueprints_exact_exploitability(search_round):
    """Measured (NashConv / 2): blueprint 0.2432 chips/hand; river search 0.2291, turn and river 0.1782 (20 CFR+
    iterations a solve)."""
    game = _game()
    tree = _tree()
    blueprint = _blueprints_nash_conv_half()
    agent = _agent(game, search_round=search_round)
    searched = _nash_conv_half(agent, game, tree)
    assert agent.fallbacks == []
    assert searched < blueprint - 0.01
    assert any(r >= search_round for r, _ in agent.decision_seconds)


@pytest.mark.slow
@pytest.mark.parametrize("num_values", [1, 4])
def test_depth_limited_turn_search_lowers_the_blueprints_exact_exploitability(num_values):
    """The turn solved to the end of its betting round, K continuations at its leaves (the river to the end of the
    game). Measured (NashConv / 2, 20 CFR+ iterations a solve): blueprint 0.2432, K = 1 0.1806, K = 4 0.1905; the turn
    to the end of the game 0.1782."""
    game = _game()
    tree = _tree()
    blueprint = _blueprints_nash_conv_half()
    agent = _agent(game, search_round=2, num_values=num_values)
    searched = _nash_conv_half(agent, game, tree)
    assert agent.fallbacks == []
    assert searched < blueprint - 0.02


@pytest.mark.slow
def test_depth_limited_flop_search_with_multi_valued_leaves_beats_naive_and_the_blueprint():
    """The flop solved to the end of its betting round, its leaves (after the turn card) valued by the blueprint's
    turn and river with K continuations (the depth-limited paper's flop, §6 and App. A), then the turn and river as
    in the other tests. Measured (NashConv / 2, 20 CFR+ iterations a solve): blueprint 0.2432, K = 1 (naive) 0.1640,
    K = 4 0.1143; the turn searched first with K = 4: 0.1905."""
    game = _game()
    tree = _tree()
    blueprint = _blueprints_nash_conv_half()
    searched = {}
    for k in (1, 4):
        agent = _agent(game, search_round=1, num_values=k)
        searched[k] = _nash_conv_half(agent, game, tree)
        assert agent.fallbacks == [] and any(r == 1 for r, _ in agent.decision_seconds)
    assert searched[4] < searched[1] - 0.02 and searched[1] < blueprint - 0.05


@pytest.mark.slow
def test_a_fixed_sample_of_river_cards_loses_what_a_fresh_sample_each_iteration_keeps():
    """K = 4 with one river card of the leaves: compiled with one sampled card (``river_cards``) the turn search is
    more exploitable than its blueprint (its leaves are that card's, wrong for most hands); compiled with every card
    and one fresh card valued per CFR iteration (``river_sample``) it is near the exact leaves' agent. Measured
    (NashConv / 2): blueprint 0.2432, every card 0.1905, fixed card 0.2514, a fresh card each iteration 0.1777."""
    game = _game()
    tree = _tree()
    blueprint = _blueprints_nash_conv_half()
    fixed = _nash_conv_half(_agent(game, search_round=2, num_values=4, river_cards=1), game, tree)
    fresh = _nash_conv_half(_agent(game, search_round=2, num_values=4, river_sample=1), game, tree)
    assert fixed > blueprint > fresh + 0.05


@pytest.mark.slow
def test_a_safe_river_root_is_no_more_exploitable_than_the_blueprint():
    """``root``: each river re-solve's gadget (resolve, maxmargin) takes the opponent's counterfactual best-response
    values against the blueprint as her alternative payoffs (safe-and-nested §4.2), so re-solving cannot give her more
    than the blueprint did. Measured (NashConv / 2, 20 CFR+ iterations a solve): blueprint 0.2432, unsafe 0.2291,
    resolve 0.2290, maxmargin 0.2252."""
    game = _game()
    tree = _tree()
    blueprint = _blueprints_nash_conv_half()
    for root in ("resolve", "maxmargin"):
        assert _nash_conv_half(_agent(game, root=root), game, tree) < blueprint
    with pytest.raises(SubgameError, match="root must be one of"):
        HunlSearchConfig(root="safe")  # type: ignore[arg-type]


def test_bad_depth_limited_options_refused():
    for bad in ({"num_values": 0}, {"num_values": 5}, {"num_values": True}, {"bias_factor": 0.0}, {"river_cards": 0},
                {"rollout_cards": 0}):
        with pytest.raises(SubgameError):
            HunlSearchConfig(**bad)  # type: ignore[arg-type]


def _river_views(tree, player, count, rng, cards=3):
    """Views at ``count`` of ``player``'s river information sets of ``tree`` (``cards`` board cards dealt: 1 the flop's)."""
    pa = tree.players[player]
    rows = [i for i in range(pa.num_infosets)
            if sum(len(o) == 2 and o[1] in "shdc" for o in tree.public_key[pa.node[pa.infoset_priv[i]]]) == cards]
    for i in rng.choice(rows, min(count, len(rows)), replace=False):
        key, label = tree.public_key[pa.node[pa.infoset_priv[i]]], pa.label[pa.infoset_priv[i]]
        moves = [Move(key[0], label if player == 0 else ""), Move(key[1], label if player == 1 else "")]
        moves += [Move(o, "") for o in key[2:]]
        yield View(player, tuple(moves), tuple(int(a) for a in pa.action_ids[i][pa.legal[i]]))


def test_off_tree_bets_answered_legally_by_search():
    """A real game with sizes the blueprint lacks (50 % and 200 % of the pot, two raises a round): every river
    decision is a solve's (the off-tree bets added to the subgame), legal, the same when asked again."""
    real = _game(**OFF_TREE)
    tree = _tree(**OFF_TREE)
    agent = _agent(real)
    rng = np.random.default_rng(0)
    asked = 0
    for p in (0, 1):
        for view in _river_views(tree, p, 40, rng):
            agent.new_hand(p, 7)
            first = agent.act(view).checked(view)
            assert agent.act(view).probs == first.probs
            asked += 1
    assert asked == 80 and agent.fallbacks == []


@pytest.mark.slow
def test_off_tree_flop_bets_answered_legally_by_depth_limited_search():
    """The same with the flop searched to its round's end (K = 4): an off-tree flop bet is added to the flop subgame
    and its leaves are mapped to the blueprint's turn by translation; after an off-tree preflop raise that translation
    made the blueprint's all-in (the blueprint has no flop on that line) the leaves start at the blueprint's flop of
    the nearest pot. Every flop decision a solve's, legal and repeatable."""
    real = _game(**OFF_TREE)
    tree = _tree(**OFF_TREE)
    agent = _agent(real, search_round=1, num_values=4)
    rng = np.random.default_rng(1)
    asked = preflop = flop = 0
    for p in (0, 1):
        for view in _river_views(tree, p, 25, rng, cards=1):
            names = [m.public for m in view.moves[2:]]
            agent.new_hand(p, 7)
            first = agent.act(view).checked(view)
            assert agent.act(view).probs == first.probs
            asked += 1
            at = next(i for i, n in enumerate(names) if len(n) == 2 and n[1] in "shdc")
            preflop += "r4" in names[:at]  # half a pot: the blueprint bets a pot (all-in) only
            flop += "r4" in names[at:]
    assert asked == 50 and preflop >= 5 and flop >= 5
    assert agent.fallbacks == [] and {r for r, _ in agent.decision_seconds} == {1}


@pytest.mark.slow
def test_depth_limited_search_off_the_blueprints_tree_beats_translation():
    """A real game with sizes the blueprint lacks: the blueprint plays it by translation; the search agent's flop and
    turn subgames hold the real sizes and their leaves are mapped back to the blueprint (the nearest pot where the
    path left its tree). Measured (NashConv / 2, 20 CFR+ iterations a solve): translation 0.3534, the turn searched
    first with K = 4 0.2019, the flop with K = 1 0.2274 and K = 4 0.2398; before the nearest-pot start (a fallback to
    translation wherever the path had left the tree: 3,072 and 5,070 fallbacks) 0.3240, 0.3488 and 0.3709."""
    real = _game(**OFF_TREE)
    tree = _tree(**OFF_TREE)
    translation = _blueprints_nash_conv_half(**OFF_TREE)
    agent = _agent(real, search_round=1, num_values=4)
    searched = _nash_conv_half(agent, real, tree)
    assert agent.fallbacks == [] and searched < translation - 0.08


@pytest.mark.slow
def test_the_preflop_solved_again_after_an_off_tree_size_beats_translation_under_a_river_search():
    """App. A's preflop: an off-tree preflop raise (half a pot; the blueprint bets a pot) re-solves the whole preflop
    with that size added, its leaves valued by the blueprint's later rounds over every board, and the ranges follow
    that solve. With the river searched, translating the preflop raise is worse than no search at all; solving the
    preflop again makes the agent less exploitable than translation. Measured (NashConv / 2, 20 CFR+ iterations a
    solve): translation 0.3534, river search 0.4251, with the preflop solved again (K = 4 at its leaves) 0.3350."""
    real = _game(**OFF_TREE)
    tree = _tree(**OFF_TREE)
    translation = _blueprints_nash_conv_half(**OFF_TREE)
    river = _nash_conv_half(_agent(real), real, tree)
    agent = _agent(real, num_values=4, search_round=3, preflop=True, preflop_boards=None)
    preflop = _nash_conv_half(agent, real, tree)
    assert agent.fallbacks == [] and preflop < translation - 0.01 < river - 0.05
    assert len(agent._preflop_solves) == 2  # one per seat: every hand with the half-pot raise met the kept solve


def test_an_off_tree_preflop_raise_is_answered_by_the_preflop_solve_kept_across_hands():
    real = _game(**OFF_TREE)
    agent = _agent(real, num_values=2, preflop=True, preflop_boards=None)
    plain = _agent(real, num_values=2)
    rows = {}
    for seed, hand in enumerate(("Js", "Qh", "Ks")):
        view = View(0, (Move("", hand), Move("", ""), Move("r4", "")), (0, 1, 2, 3))
        agent.new_hand(0, seed)
        plain.new_hand(0, seed)
        d = agent.act(view).checked(view)
        assert agent.decision_rows(view) is not None and plain.decision_rows(view) is None
        assert agent.searched_rows(view) is not None
        rows[hand] = d.probs
        on_tree = View(0, (Move("", hand), Move("", ""), Move("c", "")), (1, 2, 3))
        assert agent.act(on_tree).probs == plain.act(on_tree).probs  # the blueprint's where the path is on its tree
    assert len(agent._preflop_solves) == 1 and agent.fallbacks == []
    assert rows["Js"] != rows["Ks"]
    # a first solve past its budget is logged and the blueprint answers; the next hand meets the kept solve
    hurried = _agent(real, num_values=2, preflop=True, preflop_boards=None, budget=Budget(seconds=1e-4))
    view = View(0, (Move("", "Js"), Move("", ""), Move("r4", "")), (0, 1, 2, 3))
    hurried.new_hand(0, 0)
    hurried.act(view).checked(view)
    assert len(hurried.fallbacks) == 1 and "preflop solve took" in hurried.fallbacks[0]
    hurried.new_hand(0, 1)
    hurried.act(view).checked(view)
    assert len(hurried.fallbacks) == 1 and len(hurried._preflop_solves) == 1
    with pytest.raises(SubgameError, match="preflop_boards"):
        HunlSearchConfig(preflop_boards=0)


@pytest.mark.slow
def test_a_raise_cap_shrinks_the_subgames_and_keeps_the_raises_a_round_had():
    """``raise_cap=1`` in a game of three raises a round: the solves are smaller, and a river where two raises were
    made is still solved (the cap grows to the raises so far), legally, with no fallback."""
    real = _game(bet_fractions=(0.5, 1.0), raise_cap=3)
    tree = compile_game(real)
    capped, free = _agent(real, raise_cap=1), _agent(real)
    rng = np.random.default_rng(5)
    raised = smaller = 0
    for p in (0, 1):
        for view in _river_views(tree, p, 60, rng):
            last_card = max(i for i, m in enumerate(view.moves) if len(m.public) == 2 and m.public[1] in "shdc")
            river = [m.public for m in view.moves[last_card + 1 :]]
            for agent in (capped, free):
                agent.new_hand(p, 3)
                agent.act(view).checked(view)
            raised += sum(o.startswith("r") for o in river) >= 2
            sizes = [min(s.tree.num_nodes for s in a._solves.values()) for a in (capped, free)]
            assert sizes[0] <= sizes[1]
            smaller += sizes[0] < sizes[1]
    assert raised > 0 and smaller > 0 and capped.fallbacks == [] and free.fallbacks == []
    with pytest.raises(SubgameError, match="raise_cap"):
        HunlSearchConfig(raise_cap=0)


def test_at_the_table_a_searched_decision_shows_its_range_and_strategy_at_every_hand():
    """The table records, at each decision the agent searched, its belief over its hands and its solve's strategy at
    each: the row of the hand it held is what it played, every row is a distribution, the ranges sum to one."""
    game = _game()
    table = Table(game, _agent(game), seed=4)
    shown = 0
    for _ in range(12):
        state = table.new_hand()
        while not state.over:
            state = table.act("call")
        for d in state.decisions:
            assert d.seconds > 0
            if not d.rows:
                continue
            shown += 1
            held = next(r for r in d.rows if r.label == d.private)
            np.testing.assert_allclose(held.probs, d.probs, atol=1e-12)
            np.testing.assert_allclose([sum(r.probs) for r in d.rows], 1.0, atol=1e-9)
            assert sum(r.range for r in d.rows) == pytest.approx(1.0) and all(r.reach > 0 for r in d.rows)
    assert shown > 0


def test_acpc_raise_of_a_size_the_game_lacks():
    """An ACPC opponent's river bet of a size neither the game nor the blueprint has (r5 into a 4-chip pot)."""
    game = _game()
    agent = _agent(game)
    agent.new_hand(0, 1)
    view = View(0, (Move("", "Kh"), Move("", ""), Move("c", ""), Move("c", ""), Move("Ks", ""), Move("c", ""),
                    Move("c", ""), Move("Qs", ""), Move("c", ""), Move("c", ""), Move("Qh", ""), Move("c", ""),
                    Move("r5", "")), (0, 1))
    decision = agent.act(view).checked(view)
    assert agent.fallbacks == [] and sum(decision.probs.values()) == pytest.approx(1.0)
    assert decision.probs.get(0, 0.0) < 0.01  # kings and queens, the nuts here, never fold


def test_deterministic_with_an_iteration_budget():
    game = _game()
    tree = compile_game(game)
    views = list(_river_views(tree, 1, 10, np.random.default_rng(3)))
    answers = []
    for _ in range(2):
        agent = _agent(game)
        agent.new_hand(1, 4)
        answers.append([agent.act(v).probs for v in views])
    assert answers[0] == answers[1]


def _plays_the_blueprint(agent: HunlSearchAgent, decisions: int, seed: int, caplog) -> list[str]:
    """The agent's answers at `decisions` river decisions are its blueprint's, each logged: its fallbacks' reasons."""
    game = _game()
    base = BlueprintAgent(game, _blueprint(), ExactCards(game.spec))
    with caplog.at_level(logging.WARNING, logger="subgame.agents.hunl_search"):
        for view in _river_views(compile_game(game), 0, decisions, np.random.default_rng(seed)):
            agent.new_hand(0, 2)
            base.new_hand(0, 2)
            assert agent.act(view).probs == base.act(view).probs
    assert "plays its blueprint" in caplog.text
    return agent.fallbacks


def test_a_subgame_that_does_not_fit_falls_back_to_the_blueprint(caplog):
    fallbacks = _plays_the_blueprint(_agent(_game(), max_bytes=1), 5, 4, caplog)
    assert len(fallbacks) == 5 and "more than" in fallbacks[0]


def test_a_solve_past_its_budget_falls_back_to_the_blueprint(caplog):
    """A decision whose solve ends after late_factor times its seconds (here any solve: a microsecond's budget) is
    logged and answered by the blueprint, a legal action in every case."""
    agent = _agent(_game(), budget=Budget(seconds=1e-6), late_factor=1.0)
    fallbacks = _plays_the_blueprint(agent, 3, 5, caplog)
    assert len(fallbacks) == 3 and all("budget of 1e-06 s" in f for f in fallbacks)


def test_spec_loads_the_agent_without_a_tree(tmp_path):
    _blueprint().save(tmp_path / "bp.npz")
    game = _game()
    agent = load_agent(f"search:{tmp_path / 'bp.npz'}:15", None, game)
    assert isinstance(agent, HunlSearchAgent) and agent.config.budget == Budget(iterations=15)
    timed = load_agent(f"search:{tmp_path / 'bp.npz'}:0.5s", None, game)
    assert isinstance(timed, HunlSearchAgent) and timed.config.budget == Budget(seconds=0.5)
    capped = load_agent(f"search:{tmp_path / 'bp.npz'}:k4c3:r2:15", None, game)
    assert isinstance(capped, HunlSearchAgent) and (capped.config.raise_cap, capped.config.num_values) == (2, 4)
    limited = load_agent(f"search:{tmp_path / 'bp.npz'}:k4c3:15", None, game)
    assert isinstance(limited, HunlSearchAgent)
    assert (limited.config.num_values, limited.config.river_cards, limited.search_round) == (4, 3, 2)
    flop = load_agent(f"search:{tmp_path / 'bp.npz'}:k4c2f3:10", None, game)
    assert isinstance(flop, HunlSearchAgent)
    assert (flop.config.river_cards, flop.config.rollout_cards, flop.search_round) == (2, 3, 1)
    every = load_agent(f"search:{tmp_path / 'bp.npz'}:k1f:10", None, game)
    assert isinstance(every, HunlSearchAgent) and (every.config.rollout_cards, every.search_round) == (None, 1)
    assert limited.config.budget == Budget(iterations=15) and limited.config.root == "unsafe"
    preflop = load_agent(f"search:{tmp_path / 'bp.npz'}:k4c2f3p40:10", None, game)
    assert isinstance(preflop, HunlSearchAgent) and (preflop.config.preflop, preflop.config.preflop_boards) == (True, 40)
    assert not flop.config.preflop
    safe = load_agent(f"search:{tmp_path / 'bp.npz'}:k4s2:r3:maxmargin:15", None, game)
    assert isinstance(safe, HunlSearchAgent)
    assert (safe.config.root, safe.config.river_sample, safe.config.raise_cap) == ("maxmargin", 2, 3)


def test_bad_search_round_refused():
    with pytest.raises(SubgameError, match="beyond the game's last round"):
        _agent(_game(), search_round=4)
    with pytest.raises(SubgameError, match="search_round"):
        HunlSearchConfig(search_round=-1)


def test_other_abstraction_refused():
    bp = Blueprint.of(ImplicitMCCFR(_game().spec, parse_actions("100,allin:1"), ExactCards(_game().spec)))
    other = load_game("poker", **{**SMALL, "stack": 8})
    assert isinstance(other, PokerGame)
    with pytest.raises(SubgameError, match="other rules"):
        HunlSearchAgent(other, bp, ExactCards(other.spec))


def test_hunl_over_acpc_against_call(tmp_path):
    """The spec on the ACPC HUNL file, no tree: hands against `call` reach the river, where the agent solves."""
    game = load_acpc_game("tests/data/acpc/holdem_nolimit.game")
    buckets = FourRoundBuckets.build(Buckets4Config.of(game.spec, (169, 4, 4, 4), rollouts=2, fit_boards=2))
    Blueprint.of(ImplicitMCCFR(game.spec, parse_actions("100,allin:2"), buckets)).save(tmp_path / "bp.npz")
    buckets.save(tmp_path / "b4.npz")
    agent = load_agent(f"search:{tmp_path / 'bp.npz'}:{tmp_path / 'b4.npz'}:10", None, game)
    assert isinstance(agent, HunlSearchAgent)
    dealer = Dealer(game, DealerConfig(8, seed=3, **{**FAST, "response_timeout_s": 60.0}))
    result, clients = _match(dealer, _client(agent, game, seed=1), _client(CallAgent(), game))
    assert result.complete and len(result.hands) == 8 and result.events == ()
    assert all(c.errors == () for c in clients)
    assert agent.fallbacks == [] and any(r == 3 for r, _ in agent.decision_seconds)
