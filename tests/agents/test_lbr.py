"""Local best response as an agent (Lisý & Bowling 2017) against the implicit blueprint: exact on a reduced deck."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from subgame.agents.beliefs import BlueprintModel
from subgame.agents.exact import agent_strategy
from subgame.agents.lbr import HandEquity, LBRConfig, LocalBestResponse
from subgame.agents.match import play_match
from subgame.agents.specs import load_agent, treeless_agent
from subgame.blueprint.actions import parse_actions
from subgame.blueprint.blueprint_file import Blueprint, strategy_on
from subgame.blueprint.deal_abstraction import ExactCards
from subgame.blueprint.implicit_mccfr import ImplicitConfig, ImplicitMCCFR
from subgame.errors import SubgameError
from subgame.eval.best_response import best_response, expected_value
from subgame.exploit.continual import lbr
from subgame.games import load_game
from subgame.games.poker.game import CALL, FOLD, PokerGame
from subgame.solve.abstraction import _split_public
from subgame.strategy import Strategy
from tests.blueprint.conftest import REDUCED, needs_loop, reduced

pytestmark = needs_loop

#: the reduced four-round game's value for player 0 (the README's figure, -5/28)
GAME_VALUE = -0.17857142857142858


@cache
def _blueprint(iterations: int = 10_000) -> Blueprint:
    """What ``subgame blueprint $G --actions "100,allin:1" --iterations N --exact --seed 1`` trains."""
    game, _ = reduced()
    solver = ImplicitMCCFR(game.spec, parse_actions("100,allin:1"), ExactCards(game.spec), ImplicitConfig(batch=1000), seed=1)
    while solver.iteration < iterations:
        solver.step()
    return Blueprint.of(solver)


def _agent(config: LBRConfig = LBRConfig()) -> LocalBestResponse:
    game, _ = reduced()
    return LocalBestResponse(game, BlueprintModel(game, _blueprint(), ExactCards(game.spec)), config)


def _value(responder: int, probs: np.ndarray) -> float:
    """The responder's exact expected value against the blueprint on the compiled tree."""
    game, tree = reduced()
    model = strategy_on(_blueprint(), game, tree, ExactCards(game.spec))
    pair = (probs, model.probs[1]) if responder == 0 else (model.probs[0], probs)
    v = expected_value(tree, Strategy(tree.game_id, pair))
    return v if responder == 0 else -v


@cache
def _response_value(responder: int, config: LBRConfig) -> float:
    """The exact value of the responder's play, asked at every information set, against the blueprint (computed once a
    process: the look-ahead to the end serves two tests)."""
    game, tree = reduced()
    return _value(responder, agent_strategy(_agent(config), game, tree, responder))


def _preflop(responder: int) -> np.ndarray:
    """[I] the responder's information sets before the first board card."""
    game, tree = reduced()
    pa = tree.players[responder]
    return np.array([not _split_public(game, tree.public_key[n])[1] for n in pa.node[pa.infoset_priv]])


def _unreached_by_model(responder: int, infosets: np.ndarray) -> bool:
    """Whether the model's range, given the responder's hand, is empty at every one of ``infosets``."""
    game, tree = reduced()
    model = BlueprintModel(game, _blueprint(), ExactCards(game.spec))
    labels = [game.cards_str(h) for h in model.hands]
    pa = tree.players[responder]
    for i in infosets.tolist():
        belief = model.start(1 - responder)
        for move in tree.public_key[pa.node[pa.infoset_priv[i]]][2:]:
            belief = belief.after(str(move))
        held = pa.label[pa.infoset_priv[i]]
        if (belief.range * np.array([label != held for label in labels])).sum() > 0:
            return False
    return True


@pytest.mark.parametrize("responder", [0, 1])
@pytest.mark.parametrize("call_preflop", [False, True])
def test_equals_the_compiled_tree_lbr(responder, call_preflop):
    """The agent's behaviour on the compiled tree is the compiled-tree LBR wherever the model reaches; same value."""
    game, tree = reduced()
    model = strategy_on(_blueprint(), game, tree, ExactCards(game.spec))
    compiled = lbr(tree, model, responder, calls=_preflop(responder) if call_preflop else None)
    agent = _agent(LBRConfig(sizes=None, call_preflop=call_preflop))
    mine = agent_strategy(agent, game, tree, responder)
    differ = np.flatnonzero(np.abs(compiled - mine).max(axis=1) > 1e-9)
    assert differ.size <= 4 and _unreached_by_model(responder, differ)  # ties there: the model never plays so
    assert _value(responder, mine) == pytest.approx(_value(responder, compiled), abs=1e-12)
    # the default sizes (0.5, 1 pot, all-in) are every legal bet of this game: the same strategy
    default = agent_strategy(_agent(LBRConfig(call_preflop=call_preflop)), game, tree, responder)
    np.testing.assert_array_equal(default, mine)


def test_readme_figures():
    """The README's LBR wins against the 10,000-iteration blueprint, player 0 / player 1, recomputed (chips/hand)."""
    game, tree = reduced()
    gains = [round(_value(p, agent_strategy(_agent(LBRConfig(call_preflop=False)), game, tree, p)) - (1 - 2 * p) * GAME_VALUE, 4)
             for p in (0, 1)]
    assert gains == [0.0962, 0.0361]


def test_values_follow_the_rule_at_a_river_decision():
    """First to act on the river (pot 4, stacks 6): check and the all-in valued as the rule says, by hand."""
    game, _ = reduced()
    agent = _agent()
    belief = agent.model.start(1)
    for move in ("c", "c", "Js", "c", "c", "Th", "c", "c", "Ks"):
        belief = belief.after(move)
    st = belief.state
    labels = [game.cards_str(h) for h in agent.hands]
    hand = labels.index("Qh")
    values = agent.action_values(belief, hand, agent.candidates(st, game.legal_actions(st)))
    assert sorted(values) == [CALL, 3]  # no fold facing nothing; the pot bet is the all-in here
    free = np.array([x != "Qh" for x in labels], float)
    total = (belief.range * free).sum()

    def showdown(w: np.ndarray, contribution: float) -> float:
        return contribution * (2 * agent.equity(st.board, hand, w[None] * free)[0] - 1) * (w * free).sum()

    legal, joint = belief.after("c").replies()  # the model checks (showdown at 2) or shoves (LBR calls: 6)
    check = sum(showdown(joint[:, k], 2.0 if a == CALL else 6.0) for k, a in enumerate(legal))
    legal, joint = belief.after("r6").replies()  # the model folds (LBR wins his 2) or calls (showdown at 6)
    shove = sum(2.0 * (joint[:, k] * free).sum() if a == FOLD else showdown(joint[:, k], 6.0) for k, a in enumerate(legal))
    assert values[CALL] == pytest.approx(check / total, abs=1e-12)
    assert values[3] == pytest.approx(shove / total, abs=1e-12)


def test_enumerated_equity_against_a_brute_force():
    """The enumerated equity of one hand against weights equals a direct count over deals (reduced deck, turn)."""
    game, _ = reduced()
    eq = HandEquity(game.spec, _agent().hands)
    hands = [h[0] for h in eq.hands.tolist()]
    board, mine = (2, 4), 7  # Js Qs on the board, Kh in hand
    w = np.random.default_rng(0).random(len(hands))
    num = den = 0.0
    for j, c in enumerate(hands):
        if c in board or c == mine:
            continue
        for river in range(game.spec.deck_size):
            if river in board or river in (mine, c):
                continue
            a, b = game.strength((mine, *board, river)), game.strength((c, *board, river))
            num += w[j] * (1.0 if a > b else 0.5 if a == b else 0.0)
            den += w[j]
    assert eq(board, hands.index(mine), w[None])[0] == pytest.approx(num / den, abs=1e-12)


def test_spec_plays_a_match_and_is_deterministic(tmp_path):
    game, tree = reduced()
    _blueprint().save(tmp_path / "bp.npz")
    spec = f"lbr:{tmp_path / 'bp.npz'}"
    assert isinstance(treeless_agent(spec, game), LocalBestResponse)
    agents = (load_agent(spec, tree, game), load_agent(f"blueprint:{tmp_path / 'bp.npz'}", tree, game))
    runs = [play_match(game, None, agents, 40, seed=5) for _ in range(2)]
    assert runs[0].error is None and runs[0].deals == 40
    np.testing.assert_array_equal(runs[0].per_deal, runs[1].per_deal)


def test_blueprint_of_another_game_refused(tmp_path):
    _blueprint().save(tmp_path / "bp.npz")
    other = load_game("poker", **{**REDUCED, "stack": 8})
    assert isinstance(other, PokerGame)
    with pytest.raises(SubgameError, match=r"agent 'lbr:.*bp\.npz'.*other rules") as info:
        treeless_agent(f"lbr:{tmp_path / 'bp.npz'}", other)
    assert "\n" not in str(info.value)


def test_bad_sizes_refused():
    with pytest.raises(SubgameError, match="bet size"):
        LBRConfig(sizes=(0.5, -1.0))


def test_enumerated_equity_equals_the_compiled_one_on_the_52_card_deck():
    """On a hold'em turn the enumeration (used on reduced decks) and the compiled showdown agree."""
    from subgame.agents.beliefs import hand_cards
    from subgame.games.poker import showdown
    from subgame.games.poker.acpc import load_acpc_game

    if not showdown.available():
        pytest.skip("the compiled showdown pass was not built")
    game = load_acpc_game("tests/data/acpc/holdem_nolimit.game")
    eq = HandEquity(game.spec, hand_cards(game.spec))
    w = np.random.default_rng(1).random((2, eq.hands.shape[0]))
    compiled = eq((0, 17, 30, 44), 500, w)
    eq.kernel, eq._scores = None, None
    np.testing.assert_allclose(eq((0, 17, 30, 44), 500, w), compiled, rtol=0, atol=1e-12)


def test_the_model_is_the_blueprint_agent_mixed_over_its_translation():
    """After an off-tree raise the model's reply is the blueprint agent's play averaged over its translation draws."""
    from subgame.agents.base import Move, View
    from subgame.agents.blueprint import BlueprintAgent

    deep = {**REDUCED, "stack": 12}
    small = load_game("poker", **deep)
    real = load_game("poker", **{**deep, "bet_fractions": (1.0, 2.0)})
    assert isinstance(small, PokerGame) and isinstance(real, PokerGame)
    solver = ImplicitMCCFR(small.spec, parse_actions("100,allin:1"), ExactCards(small.spec), ImplicitConfig(batch=500), seed=3)
    while solver.iteration < 2000:
        solver.step()
    bp = Blueprint.of(solver)
    belief = BlueprintModel(real, bp, ExactCards(real.spec)).start(0).after("r10")  # 2 pots: between r6 and all-in
    assert len(belief.branches) == 2
    legal, joint = belief.replies()
    agent = BlueprintAgent(real, bp, ExactCards(real.spec))
    for h, hand in enumerate(belief.model.hands.tolist()):
        view = View(0, (Move("", real.cards_str(hand)), Move("", ""), Move("r10", "")), legal)
        mean = np.zeros(len(legal))
        for seed in range(300):
            agent.new_hand(0, seed)
            mean += [agent.act(view).probs.get(a, 0.0) for a in legal]
        np.testing.assert_allclose(mean / 300, joint[h] / joint[h].sum(), atol=0.08)


def test_the_model_keeps_the_beliefs_it_reached_within_its_budget(monkeypatch):
    """A public path met again is the belief kept the first time; past the budget every kept belief is let go, and
    the beliefs made anew are the same; a pickled model starts with none."""
    import pickle

    import subgame.agents.beliefs as beliefs

    game, _ = reduced()
    model = BlueprintModel(game, _blueprint(), ExactCards(game.spec))
    path = ("c", "r4", "c")
    first = model.start(1)
    ends = [first]
    for name in path:
        ends.append(ends[-1].after(name))
    assert model.start(1) is first and all(b.after(n) is a for b, n, a in zip(ends, path, ends[1:]))
    acting = next(b for b in ends if game.actor(b.state) == 1)
    legal, joint = acting.replies()
    assert not joint.flags.writeable and acting.replies()[1] is joint
    assert pickle.loads(pickle.dumps(model))._roots == {}
    monkeypatch.setattr(beliefs, "BELIEF_BYTES", 2 * first.range.nbytes)  # room for two beliefs' ranges
    fresh = BlueprintModel(game, _blueprint(), ExactCards(game.spec))
    again = [fresh.start(1)]
    for name in path:
        again.append(again[-1].after(name))
    assert fresh.start(1) is not again[0]  # let go when the third belief did not fit
    for a, b in zip(ends, again):
        assert a.state == b.state and np.array_equal(a.range, b.range)


def test_hunl_spec_plays_without_a_tree(tmp_path):
    """On the ACPC HUNL file the spec plays a few duplicate deals against its blueprint, LBR deciding after the flop."""
    from subgame.blueprint.buckets4 import Buckets4Config, FourRoundBuckets
    from subgame.games.poker.acpc import load_acpc_game

    game = load_acpc_game("tests/data/acpc/holdem_nolimit.game")
    buckets = FourRoundBuckets.build(Buckets4Config.of(game.spec, (169, 4, 4, 4), rollouts=2, fit_boards=2))
    Blueprint.of(ImplicitMCCFR(game.spec, parse_actions("50,100,allin/100,allin:2"), buckets)).save(tmp_path / "bp.npz")
    buckets.save(tmp_path / "b4.npz")
    files = f"{tmp_path / 'bp.npz'}:{tmp_path / 'b4.npz'}"
    agents = (treeless_agent(f"lbr:{files}", game), treeless_agent(f"blueprint:{files}", game))
    assert isinstance(agents[0], LocalBestResponse) and agents[1] is not None
    result = play_match(game, None, (agents[0], agents[1]), 3, seed=2)
    assert result.error is None and result.deals == 3
    assert any(r >= 1 for r, _ in agents[0].decision_seconds)


@pytest.mark.parametrize("responder", [0, 1])
def test_cdbr_to_the_end_of_the_game_is_a_best_response_to_the_model(responder):
    """CDBR looking to the end with every legal action: the exact value of its play is the best response's."""
    game, tree = reduced()
    model = strategy_on(_blueprint(), game, tree, ExactCards(game.spec))
    mine = _response_value(responder, LBRConfig(sizes=None, call_preflop=False, depth=None))
    assert mine == pytest.approx(best_response(tree, model, responder).value, abs=1e-12)


def test_cdbr_gains_grow_toward_the_best_response_and_cdbr1_is_lbr():
    """CDBR1 is LBR; looking further never loses to the best response's bound; a deep enough look-ahead is the end's."""
    game, tree = reduced()
    model = strategy_on(_blueprint(), game, tree, ExactCards(game.spec))
    br = best_response(tree, model, 0).value
    values = {d: _response_value(0, LBRConfig(sizes=None, call_preflop=False, depth=d)) for d in (1, 2, 3, 12, None)}
    lbr_value = _response_value(0, LBRConfig(sizes=None, call_preflop=False))
    assert values[1] == lbr_value
    assert all(v <= br + 1e-12 for v in values.values())
    assert values[12] == pytest.approx(values[None], abs=1e-12) and values[3] > values[1]


def test_cdbr_averages_a_deal_inside_its_look_ahead():
    """First to act on the turn, CDBR3's check, by hand: his reply (move 1); after check-check the river card (move 2)
    averaged over its cards, then her check (showdown at 2) or all-in (valued as called, at 6: move 3, the limit);
    after his all-in her fold or call (move 2, the showdown at 6)."""
    game, _ = reduced()
    agent = _agent(LBRConfig(depth=3))
    belief = agent.model.start(1)
    for move in ("c", "c", "Js", "c", "c", "Th"):
        belief = belief.after(move)
    labels = [game.cards_str(h) for h in agent.hands]
    hand = labels.index("Qh")
    st = belief.state
    free = np.array([x != "Qh" for x in labels], float)

    def showdown(board: tuple[int, ...], w: np.ndarray, contribution: float) -> float:
        return contribution * (2 * agent.equity(board, hand, w[None])[0] - 1) * w.sum() if w.sum() > 0 else 0.0

    checked = belief.after("c")
    legal, _ = checked.replies()
    expected = 0.0
    for a in legal:
        after = checked.after(game.action_name(checked.state, a))
        w = after.range * free
        if a == CALL:
            unseen = game.spec.deck_size - len(st.board) - 2
            for c in range(game.spec.deck_size):
                if c in st.board or game.cards_str((c,)) == "Qh":
                    continue
                river = after.after(game.cards_str((c,)))
                wr = river.range * free
                expected += max(showdown(river.state.board, wr, 2.0), showdown(river.state.board, wr, 6.0)) / unseen
        elif a != FOLD:
            expected += max(-2.0 * w.sum(), showdown(st.board, w, 6.0))
    assert legal == (CALL, 3)  # he checks or shoves; no fold facing nothing
    total = (belief.range * free).sum()
    assert agent.action_values(belief, hand, [CALL])[CALL] == pytest.approx(expected / total, abs=1e-12)


def test_bad_depth_refused():
    for depth in (0, -1, 1.5, True):
        with pytest.raises(SubgameError, match="look-ahead depth"):
            LBRConfig(depth=depth)


def test_cdbr_spec_on_a_blueprint_plays_without_a_tree(tmp_path):
    """``cdbr:BP:DEPTH`` is LBR's agent with fold, call, pot, all-in and that look-ahead; it plays deterministically."""
    game, tree = reduced()
    _blueprint().save(tmp_path / "bp.npz")
    agent = treeless_agent(f"cdbr:{tmp_path / 'bp.npz'}:2", game)
    assert isinstance(agent, LocalBestResponse)
    assert (agent.config.depth, agent.config.sizes, agent.name) == (2, (1.0, "allin"), "cdbr2:bp")
    pair = (load_agent(f"cdbr:{tmp_path / 'bp.npz'}:2", tree, game), load_agent(f"blueprint:{tmp_path / 'bp.npz'}", tree, game))
    runs = [play_match(game, None, pair, 30, seed=4) for _ in range(2)]
    assert runs[0].error is None and runs[0].deals == 30
    np.testing.assert_array_equal(runs[0].per_deal, runs[1].per_deal)
    with pytest.raises(SubgameError, match="look-ahead depth"):
        treeless_agent(f"cdbr:{tmp_path / 'bp.npz'}:0", game)


def test_preflop_equity_on_the_52_card_deck_from_sampled_boards():
    """Preflop the equity is over sampled boards: aces against a random hand near their known 85.2 %, seven-deuce
    offsuit near 34.6 % (published all-in equities), the same numbers twice."""
    from subgame.agents.beliefs import hand_cards
    from subgame.games.poker import showdown
    from subgame.games.poker.acpc import load_acpc_game

    if not showdown.available():
        pytest.skip("the compiled showdown pass was not built")
    game = load_acpc_game("tests/data/acpc/holdem_nolimit.game")
    hands = hand_cards(game.spec)
    eq = HandEquity(game.spec, hands)
    labels = {game.cards_str(h): i for i, h in enumerate(hands.tolist())}
    uniform = np.ones((1, hands.shape[0]))
    aces, seven_deuce = labels["AsAh"], labels.get("7d2c", labels.get("2c7d"))
    assert eq((), aces, uniform)[0] == pytest.approx(0.852, abs=0.01)
    assert eq((), seven_deuce, uniform)[0] == pytest.approx(0.346, abs=0.01)
    first = eq.scores((), aces).copy()
    eq._scores = None
    np.testing.assert_array_equal(eq.scores((), aces), first)
