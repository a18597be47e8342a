"""The table a person plays an agent at: deals, views, results and the agent's recorded strategy."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

from subgame.agents import CallAgent, Decision, Move, RandomAgent, StrategyAgent, View, infoset_key
from subgame.agents.table import AgentFailed, Table
from subgame.errors import IllegalActionError, SubgameError
from subgame.games import GAMES, load_game
from subgame.games.base import CHANCE
from subgame.solve.cfr import CFRSolver
from subgame.tree.public_tree import infoset_index
from tests.conftest import compiled


@pytest.fixture(scope="module")
def blueprint():
    tree = compiled("leduc")
    solver = CFRSolver(tree)
    for _ in range(30):
        solver.step()
    return load_game("leduc"), StrategyAgent(tree, solver.average_strategy(), name="cfr30")


@dataclass
class SpyAgent:
    """Plays uniformly and keeps every view it is shown."""

    name: str = "spy"
    views: list[View] = field(default_factory=list)
    seats: list[int] = field(default_factory=list)

    def new_hand(self, player: int, seed: int) -> None:
        self.seats.append(player)

    def act(self, view: View) -> Decision:
        self.views.append(view)
        return Decision.uniform(view.legal)


def _play(table: Table, hands: int, rng: np.random.Generator) -> list[tuple[tuple[int, int], ...]]:
    """Play ``hands`` hands with uniformly random human actions; the move history of each."""
    histories = []
    for _ in range(hands):
        state = table.new_hand()
        while not state.over:
            state = table.act(int(rng.choice([a.id for a in state.legal])))
        histories.append(table.hand.history)
    return histories


def _utility(game, history) -> float:
    state = game.root()
    for _, action in history:
        state = game.apply(state, action)
    return game.utility(state)


@pytest.mark.parametrize("name", ["leduc", "leduc_nolimit", "kuhn"])
def test_results_are_the_game_utility_and_add_up(name):
    game = load_game(name)
    table = Table(game, RandomAgent(), seed=4)
    histories = _play(table, 8, np.random.default_rng(0))
    results = [_utility(game, h) * (1 if k % 2 == 0 else -1) for k, h in enumerate(histories)]  # the human alternates seats
    assert table.hands_played == 8
    assert table.total == pytest.approx(sum(results))
    assert table.state().result == pytest.approx(results[-1])


def test_same_seed_and_actions_replay_the_same_hands_and_deals_do_not_depend_on_play():
    game = load_game("leduc")
    first = _play(Table(game, RandomAgent(), seed=9), 6, np.random.default_rng(1))
    again = _play(Table(game, RandomAgent(), seed=9), 6, np.random.default_rng(1))
    other_play = _play(Table(game, RandomAgent(), seed=9), 6, np.random.default_rng(2))
    other_seed = _play(Table(game, RandomAgent(), seed=10), 6, np.random.default_rng(1))
    assert first == again
    holes = [[a for who, a in h if who == CHANCE][:2] for h in first]
    assert holes == [[a for who, a in h if who == CHANCE][:2] for h in other_play]
    assert holes != [[a for who, a in h if who == CHANCE][:2] for h in other_seed]


def test_seats_alternate_or_stay_fixed():
    spy = SpyAgent()
    table = Table(load_game("kuhn"), spy, seed=0)
    _play(table, 4, np.random.default_rng(0))
    assert spy.seats == [1, 0, 1, 0]
    fixed = SpyAgent()
    _play(Table(load_game("kuhn"), fixed, seed=0, human_seat=1), 3, np.random.default_rng(0))
    assert fixed.seats == [0, 0, 0]


def test_the_agent_sees_only_its_own_observations():
    game, tree = load_game("leduc"), compiled("leduc")
    spy = SpyAgent()
    table = Table(game, spy, seed=2)
    indexes = (infoset_index(tree, 0), infoset_index(tree, 1))
    rng = np.random.default_rng(3)
    for _ in range(10):
        seen = len(spy.views)
        (history,) = _play(table, 1, rng)
        views = spy.views[seen:]
        assert views
        own_card = [a for who, a in history if who == CHANCE][spy.seats[-1]]  # chance deals player 0, then player 1
        for view in views:
            assert view.player == spy.seats[-1]
            assert infoset_key(view) in indexes[view.player]  # every view names an information set of the game
            assert view.private_label == game.cards_str([own_card])  # its own card, never the human's


def test_decisions_record_the_agents_strategy_and_range(blueprint):
    game, agent = blueprint
    table = Table(game, agent, seed=7, human_seat=0)
    records = []
    for _ in range(6):
        _play(table, 1, np.random.default_rng(len(records)))
        records.extend(table.state().decisions)
    assert any(len(r.public) > 4 for r in records)  # some decision after the board
    for r in records:
        moves = tuple(Move(p, "") for p in r.public)
        legal = tuple(a.id for a in r.actions)
        assert r.chosen in legal
        assert r.probs == pytest.approx([agent.act(_with_private(moves, r.private, 1)).probs.get(a, 0.0) for a in legal])
        assert sum(x.range for x in r.rows) == pytest.approx(1.0)
        for row in r.rows:
            view = _with_private(moves, row.label, 1)
            assert row.probs == pytest.approx([agent.act(View(1, view.moves, legal)).probs.get(a, 0.0) for a in legal])
            assert row.reach == pytest.approx(_own_reach(agent, r.public, row.label))
        assert r.private in [x.label for x in r.rows]


def _with_private(moves: tuple[Move, ...], label: str, player: int) -> View:
    """The view of ``player`` holding ``label`` (dealt on her deal move) after public ``moves``."""
    deal_at = player  # chance deals player 0's card, then player 1's
    moves = tuple(Move(m.public, label if k == deal_at else "") for k, m in enumerate(moves))
    return View(player, moves, ())


def _own_reach(agent: StrategyAgent, public: tuple[str, ...], label: str) -> float:
    """Product of player 1's probabilities of her own actions along ``public`` holding ``label`` (brute force via ``act``)."""
    game = load_game("leduc")
    card = {game.cards_str([c]): c for c in range(game.spec.deck_size)}
    board = [card[o] for o in public[2:] if o in card]
    other = next(c for c in range(game.spec.deck_size) if c != card[label] and c not in board)
    state = game.apply(game.apply(game.root(), other), card[label])
    moves, reach = (Move("", ""), Move("", label)), 1.0
    for obs in public[2:]:
        who = game.actor(state)
        if who == CHANCE:
            action = card[obs]
        else:
            action = next(a for a in game.legal_actions(state) if game.action_name(state, a) == obs)
            if who == 1:
                reach *= agent.act(View(1, moves, tuple(game.legal_actions(state)))).probs.get(action, 0.0)
        moves += (Move(obs, ""),)
        state = game.apply(state, action)
    return reach


def test_agents_that_do_not_expose_a_strategy_have_no_rows():
    table = Table(load_game("leduc"), CallAgent(), seed=1, human_seat=0)
    _play(table, 2, np.random.default_rng(0))
    assert table.state().decisions and all(r.rows == () for r in table.state().decisions)


class _ShowsRange(CallAgent):
    """Calls; shows every private state with its reach, or fails to show it."""

    def __init__(self, fails: bool) -> None:
        self.fails = fails

    def decision_rows(self, view):
        if self.fails:
            raise SubgameError("nothing to show")
        labels = ("J", "Q", "K")
        return labels, np.array([1.0, 0.0, 3.0]), np.tile(np.eye(len(view.legal))[view.legal.index(1)], (3, 1))


def test_an_agent_that_exposes_its_range_is_shown_and_one_that_fails_to_is_not():
    shown = Table(load_game("leduc"), _ShowsRange(False), seed=1, human_seat=0)
    _play(shown, 1, np.random.default_rng(0))
    d = shown.state().decisions[0]
    assert [(r.label, r.range) for r in d.rows] == [("J", 0.25), ("K", 0.75)] and d.rows[0].probs == d.probs
    failing = Table(load_game("leduc"), _ShowsRange(True), seed=1, human_seat=0)
    _play(failing, 1, np.random.default_rng(0))
    assert failing.state().decisions and all(r.rows == () for r in failing.state().decisions)


def test_actions_are_read_by_number_name_or_word():
    table = Table(load_game("leduc_nolimit"), CallAgent(), seed=0, human_seat=0)
    state = table.new_hand()
    labels = [a.label for a in state.legal]
    assert labels == ["check", "bet to 2", "bet to 3", "all-in 20"]
    assert table.parse_action("1") == state.legal[0].id
    assert table.parse_action(" check ") == state.legal[0].id
    assert table.parse_action("r3") == state.legal[2].id
    assert table.parse_action("All-in") == state.legal[3].id
    assert table.parse_action("bet to 2") == state.legal[1].id
    with pytest.raises(IllegalActionError, match="names more than one legal action"):
        table.parse_action("bet")
    with pytest.raises(IllegalActionError, match=r"'fold' is not a legal action; type one of: 1 or c \(check\)"):
        table.parse_action("fold")
    with pytest.raises(IllegalActionError, match="not legal here"):
        table.act(0)  # fold is not legal when nothing is to call


def test_out_of_turn_requests_are_refused():
    table = Table(load_game("kuhn"), CallAgent(), seed=0, human_seat=0)
    state = table.new_hand()
    with pytest.raises(IllegalActionError, match="still being played"):
        table.new_hand()
    while not state.over:
        state = table.act(state.legal[0].id)
    with pytest.raises(IllegalActionError, match="deal a new hand first"):
        table.act(1)
    with pytest.raises(IllegalActionError, match="seat must be 0 or 1"):
        Table(load_game("kuhn"), CallAgent(), human_seat=2)


def test_the_human_sees_poker_chips_and_hidden_cards_until_the_end():
    table = Table(load_game("leduc_nolimit"), CallAgent(), seed=3, human_seat=1)
    state = table.new_hand()  # the agent (player 0) checks; the human acts
    assert state.pot == 2 and state.contributions == (1, 1) and state.stacks == (19, 19)
    assert state.agent_cards is None and state.decisions == ()
    assert any(s.text == "agent is dealt ??" and s.action is None for s in state.steps)
    state = table.act("all-in")
    assert state.over and state.agent_cards and state.result is not None
    assert state.contributions == (20, 20) and state.board
    assert not any("??" in s.text for s in state.steps)


@dataclass
class IllegalAgent:
    """Answers with an action no game has."""

    name: str = "bad"

    def new_hand(self, player: int, seed: int) -> None:
        pass

    def act(self, view: View) -> Decision:
        return Decision.pure(99)


def test_an_agent_that_answers_an_illegal_action_is_one_clear_error():
    table = Table(load_game("kuhn"), IllegalAgent(), human_seat=1)
    with pytest.raises(AgentFailed, match=r"the agent 'bad' failed after the start \(hand 1\): .*illegal action\(s\) \[99\]"):
        table.new_hand()
    table = Table(load_game("kuhn"), IllegalAgent(), human_seat=0)
    before = table.new_hand()
    with pytest.raises(AgentFailed, match="failed after c"):
        table.act("check")
    assert table.state() == before  # the hand is left as it was


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_registered_game_plays_at_the_table(name):
    game = load_game(name)
    table = Table(game, RandomAgent(), seed=6)
    histories = _play(table, 4, np.random.default_rng(1))
    assert table.total == pytest.approx(sum(_utility(game, h) * (1 if k % 2 == 0 else -1) for k, h in enumerate(histories)))


@pytest.mark.parametrize("name", ["rps", "goofspiel"])
def test_moves_the_human_does_not_observe_stay_hidden_until_the_end(name):
    game = load_game(name)
    table = Table(game, RandomAgent(), seed=0, human_seat=1)  # the agent moves first, unseen
    state = table.new_hand()
    agent_move = table.hand.history[0][1]
    assert state.steps[0].action is None and state.steps[0].text.startswith("agent: ??")
    assert game.action_name(game.root(), agent_move) not in state.steps[0].text
    while not state.over:
        state = table.act(state.legal[0].id)
    assert state.steps[0].action == agent_move
    assert state.steps[0].text.startswith(f"agent: {game.action_name(game.root(), agent_move)}")
