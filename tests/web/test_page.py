"""The page of ``subgame serve``: its JSON API, and hands played through it in a real headless Chromium.

The browser tests fail when Chromium or Playwright is missing (CI installs both); set
``SUBGAME_REQUIRE_BROWSER=1`` to make a missing browser a failure (``.ci/run`` does).
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from subgame.agents import CallAgent, Decision, RandomAgent, StrategyAgent
from subgame.agents.table import Table
from subgame.errors import SubgameError
from subgame.games import load_game
from subgame.games.poker.hands import rank_names
from subgame.solve.cfr import CFRSolver
from subgame.web import create_app, require_flask, running_server
from tests.conftest import compiled
from tests.web.browser import REQUIRE_VARIABLE, BrowserUnavailable, answers_shown, chromium, wait_for_answer


def _blueprint_agent(iterations: int = 20) -> tuple[object, StrategyAgent]:
    game, tree = load_game("leduc"), compiled("leduc")
    solver = CFRSolver(tree)
    for _ in range(iterations):
        solver.step()
    return game, StrategyAgent(tree, solver.average_strategy(), name="cfr20")


def _at(state: dict, action: object) -> dict:
    """The body of a post of ``action`` made at ``state`` (its hand and step)."""
    return {"action": action, "hand": state["hand"], "step": len(state["steps"])}


def _expected_result(table: Table) -> float:
    """The human's payoff for the hand just played, replayed from its moves by the game's own rules."""
    game, hand = table.game, table.hand
    assert hand is not None
    state = game.root()
    for _, action in hand.history:
        state = game.apply(state, action)
    return game.utility(state) * (1.0 if hand.seat == 0 else -1.0)


# -- the JSON API (no browser) ----------------------------------------------------------------


@pytest.fixture
def client():
    game, agent = _blueprint_agent()
    table = Table(game, agent, seed=5)
    return create_app(table).test_client(), table


@pytest.mark.slow
def test_page_and_state_are_served(client):
    http, table = client
    assert b'id="actions"' in http.get("/").data
    assert b"function render" in http.get("/static/page.js").data
    state = http.get("/api/state").get_json()
    assert state["hand"] == 1 and state["legal"] and not state["over"]
    assert state["your_cards"] == table.state().your_cards
    dealt = [s for s in state["steps"] if s["text"].startswith("agent is dealt")]
    assert dealt and dealt[0]["action"] is None and "??" in dealt[0]["text"]  # the agent's card stays hidden


def test_api_plays_a_hand_to_the_game_utility(client):
    http, table = client
    state = http.get("/api/state").get_json()
    rng = np.random.default_rng(1)
    while not state["over"]:
        state = http.post("/api/act", json=_at(state, int(rng.choice([a["id"] for a in state["legal"]])))).get_json()
    assert state["result"] == pytest.approx(_expected_result(table))
    assert state["total"] == pytest.approx(state["result"]) and state["hands_played"] == 1
    agent_moves = sum(1 for who, _ in table.hand.history if who == 1 - state["seat"])
    assert len(state["decisions"]) == agent_moves
    assert state["agent_cards"] and all(s["action"] is not None for s in state["steps"])


def test_api_errors_are_one_clear_message(client):
    http, _ = client
    state = http.get("/api/state").get_json()
    answer = http.post("/api/act", json=_at(state, 7))
    assert answer.status_code == 400 and "not legal here" in answer.get_json()["error"]
    answer = http.post("/api/act", json=_at(state, "jump"))
    assert answer.status_code == 400 and "'jump' is not a legal action" in answer.get_json()["error"]
    for body in ("nonsense", {"action": 1}, {"action": 1, "hand": 1}, {"action": 1, "hand": True, "step": 2}):
        answer = http.post("/api/act", data=body) if isinstance(body, str) else http.post("/api/act", json=body)
        assert answer.status_code == 400 and '{"action": ID or NAME, "hand": N, "step": K}' in answer.get_json()["error"]
    answer = http.post("/api/deal")
    assert answer.status_code == 400 and '{"hand": N}' in answer.get_json()["error"]
    answer = http.post("/api/deal", json={"hand": 1})
    assert answer.status_code == 400 and "still being played" in answer.get_json()["error"]


def test_api_refuses_a_post_from_a_state_the_table_has_left(client):
    """An action names the hand and step it was shown at: a repeated or out-of-date post plays nothing."""
    http, table = client
    shown = http.get("/api/state").get_json()
    check = _at(shown, next(a["id"] for a in shown["legal"] if a["name"] == "c"))
    first = http.post("/api/act", json=check)
    assert first.status_code == 200
    moves = table.hand.history
    again = http.post("/api/act", json=check)  # the same post twice
    assert again.status_code == 409 and "nothing was played" in again.get_json()["error"]
    assert again.get_json()["state"] == first.get_json() and table.hand.history == moves
    stale = dict(check, step=check["step"] - 1)
    assert http.post("/api/act", json=stale).status_code == 409 and table.hand.history == moves
    state = first.get_json()
    while not state["over"]:
        state = http.post("/api/act", json=_at(state, state["legal"][0]["id"])).get_json()
    assert http.post("/api/deal", json={"hand": 0}).status_code == 409  # a hand the page did not show
    dealt = http.post("/api/deal", json={"hand": 1})
    assert dealt.status_code == 200 and dealt.get_json()["hand"] == 2
    assert http.post("/api/deal", json={"hand": 1}).status_code == 409  # "next hand" clicked twice: hand 3 is not dealt
    assert table.hand.number == 2


def test_the_page_has_an_icon(client):
    http, _ = client
    for url in ("/favicon.ico", "/static/favicon.svg"):
        icon = http.get(url)
        assert icon.status_code == 200 and icon.mimetype == "image/svg+xml" and b"<svg" in icon.data
    assert b'rel="icon" href="/static/favicon.svg"' in http.get("/").data


def test_missing_flask_is_one_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "flask", None)  # makes "import flask" raise ImportError
    with pytest.raises(SubgameError, match=r"pip install 'subgame\[web\]'"):
        require_flask()


# -- a real browser ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser():
    try:
        with chromium() as b:
            yield b
    except BrowserUnavailable as exc:
        if os.environ.get(REQUIRE_VARIABLE):
            pytest.fail(f"{exc} ({REQUIRE_VARIABLE} is set)", pytrace=False)
        pytest.skip(str(exc))


def _play_hand_by_clicking(page, rng: np.random.Generator, keys: bool = False) -> None:
    """Random legal actions until the hand ends: buttons clicked, or (``keys``) their number keys pressed."""
    while page.get_attribute("body", "data-over") != "true":
        buttons = page.locator("#actions button")
        before = answers_shown(page)
        k = int(rng.integers(buttons.count()))
        if keys:
            page.keyboard.press(str(k + 1))
        else:
            buttons.nth(k).click()
        wait_for_answer(page, before)


@pytest.mark.parametrize("game_name", ["leduc", "leduc_nolimit"])
@pytest.mark.slow
def test_browser_plays_hands_through_the_page(browser, game_name):
    if game_name == "leduc":
        game, agent = _blueprint_agent()
    else:
        game, agent = load_game(game_name), RandomAgent()
    table = Table(game, agent, seed=11, label=game_name)
    rng = np.random.default_rng(3)
    results = []
    with running_server(create_app(table)) as url:
        page = browser.new_page()
        page.goto(url)
        wait_for_answer(page, 0)
        for hand in (1, 2):
            assert page.text_content("#hand-no") == str(hand)
            assert page.locator("#actions button").count() == len(table.state().legal) > 0
            # the human's cards on the page are the ones the table dealt to the human's seat
            assert page.get_attribute("#your-cards .card", "title") == table.state().your_cards
            _play_hand_by_clicking(page, rng, keys=game_name == "leduc_nolimit")
            expected = _expected_result(table)
            results.append(expected)
            assert float(page.get_attribute("#result", "data-result")) == pytest.approx(expected)
            assert float(page.get_attribute("#total", "data-total")) == pytest.approx(sum(results))
            assert page.get_attribute("#agent-cards .card", "title") == table.state().agent_cards
            agent_moves = sum(1 for who, _ in table.hand.history if who == 1 - table.hand.seat)
            assert page.locator(".decision").count() == agent_moves
            if isinstance(agent, StrategyAgent) and agent_moves:
                rows = page.locator(".decision").first.locator("table.strategy tbody tr")
                assert rows.count() == len(table.state().decisions[0].rows)
                assert page.locator(".decision").first.locator("tr.held td").first.text_content() == table.state().decisions[0].private
            if hand == 1:
                before = answers_shown(page)
                if game_name == "leduc_nolimit":
                    page.keyboard.press("Enter")
                else:
                    page.click("#deal")
                wait_for_answer(page, before)
        assert page.locator("#error").is_hidden()
        page.close()


@pytest.mark.slow
def test_browser_shows_a_hand_grid_for_two_card_hands(browser):
    """Two hole cards from a deck with suits: the agent's strategy as a grid of ranks (hold'em's 13×13 on a full deck)."""
    params = {"num_ranks": 6, "num_suits": 4, "hole_cards": 2, "board_cards": (0,), "raise_sizes": (2,), "max_raises": (2,),
              "ante": 0, "blinds": (1, 2), "first_player": (0,)}
    game, tree = load_game("poker", **params), compiled("poker", **params)
    solver = CFRSolver(tree)
    for _ in range(3):
        solver.step()
    table = Table(game, StrategyAgent(tree, solver.average_strategy()), seed=0, human_seat=1)  # the agent acts first
    with running_server(create_app(table)) as url:
        page = browser.new_page()
        page.goto(url)
        wait_for_answer(page, 0)
        _play_hand_by_clicking(page, np.random.default_rng(0))
        first = table.state().decisions[0]
        assert len(first.rows) == 276  # C(24, 2) two-card hands
        cells = page.locator(".decision").first.locator(".grid > div")
        assert cells.count() == 36
        names = cells.all_text_contents()
        r = rank_names(6)[::-1]  # highest first: K, Q, J, T, 9, 8
        assert names[:3] == [r[0] * 2, r[0] + r[1] + "s", r[0] + r[2] + "s"] and names[6] == r[0] + r[1] + "o" and names[-1] == r[5] * 2
        held = page.locator(".decision").first.locator(".grid > div[style*='outline']")
        assert held.count() == 1
        ranks = sorted((c[0] for c in (first.private[:2], first.private[2:])), key=rank_names(6).index, reverse=True)
        suited = first.private[1] == first.private[3]
        expected = ranks[0] * 2 if ranks[0] == ranks[1] else ranks[0] + ranks[1] + ("s" if suited else "o")
        assert held.text_content() == expected
        page.close()


def _human_moves(table: Table) -> int:
    hand = table.hand
    assert hand is not None
    return sum(1 for who, _ in hand.history if who == hand.seat)


def _open(browser, url: str):
    page = browser.new_page()
    page.goto(url)
    wait_for_answer(page, 0)
    return page


@pytest.mark.slow
def test_browser_double_click_plays_one_action(browser):
    """The second click of a human double click lands on the redrawn buttons; it is not a second action."""
    table = Table(load_game("leduc"), CallAgent(), seed=2)
    with running_server(create_app(table)) as url:
        page = _open(browser, url)
        check = page.locator("#actions button", has_text="check")
        box = check.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        before = answers_shown(page)
        page.mouse.down()
        page.mouse.up()
        wait_for_answer(page, before)  # the agent checked; the next round's buttons are drawn, "check" where it was
        assert page.locator("#actions button").first.text_content() == "check"
        page.wait_for_timeout(150)
        page.mouse.down(click_count=2)
        page.mouse.up(click_count=2)
        page.wait_for_timeout(500)
        assert _human_moves(table) == 1 and answers_shown(page) == before + 1
        assert page.locator("#steps li").count() == len(table.state().steps)
        page.close()


@pytest.mark.slow
def test_browser_stale_tab_is_refused_and_redrawn(browser):
    """A second tab that still shows an earlier step cannot play its (now different) bet."""
    table = Table(load_game("leduc_nolimit"), CallAgent(), seed=4)
    with running_server(create_app(table)) as url:
        stale, current = _open(browser, url), _open(browser, url)
        bet = stale.locator("#actions button", has_text="bet").first
        label = bet.text_content()
        before = answers_shown(current)
        current.locator("#actions button", has_text="bet").first.click()
        wait_for_answer(current, before)  # the agent called: the next round, a bigger pot and bigger bets
        assert _human_moves(table) == 1
        moves = table.hand.history
        before = answers_shown(stale)
        bet.click()
        wait_for_answer(stale, before)
        assert table.hand.history == moves  # nothing played
        error = stale.text_content("#error")
        assert stale.locator("#error").is_visible() and "nothing was played" in error and "after 2 steps" in error
        assert stale.locator("#steps li").count() == len(table.state().steps) == current.locator("#steps li").count()
        labels = [b.text_content() for b in stale.locator("#actions button").all()]
        assert labels == [a.label for a in table.state().legal] and label not in labels  # the bets the table offers now
        stale.close()
        current.close()


@pytest.mark.slow
def test_browser_concurrent_posts_of_one_action_play_it_once(browser):
    table = Table(load_game("leduc"), CallAgent(), seed=6)
    with running_server(create_app(table)) as url:
        pages = [_open(browser, url), _open(browser, url)]
        before = [answers_shown(p) for p in pages]
        for p in pages:  # both posts leave before either is answered
            p.locator("#actions button", has_text="check").dispatch_event("click")
        for p, b in zip(pages, before):
            wait_for_answer(p, b)
        assert _human_moves(table) == 1
        errors = [p.text_content("#error") for p in pages if p.locator("#error").is_visible()]
        assert len(errors) == 1 and "nothing was played" in errors[0]
        for p in pages:
            p.close()


@pytest.mark.slow
def test_browser_loads_the_page_without_a_missing_file(browser):
    table = Table(load_game("kuhn"), CallAgent(), seed=0)
    with running_server(create_app(table)) as url:
        page = browser.new_page()
        failed: list[str] = []
        page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
        page.goto(url)
        wait_for_answer(page, 0)
        icon = page.evaluate("""async () => {
            const r = await fetch(document.querySelector("link[rel=icon]").href);
            return [r.status, r.headers.get("content-type")];
        }""")
        missing = page.evaluate("async () => (await fetch('/favicon.ico')).status")
        assert failed == [] and icon[0] == 200 and icon[1].startswith("image/svg+xml") and missing == 200
        page.close()


class IllegalAgent:
    name = "bad"

    def new_hand(self, player: int, seed: int) -> None:
        pass

    def act(self, view):
        return Decision.pure(99)  # no game has this action


def test_an_agent_failure_is_shown_as_an_error():
    table = Table(load_game("kuhn"), IllegalAgent(), human_seat=0)
    http = create_app(table).test_client()
    assert http.get("/api/state").status_code == 200
    answer = http.post("/api/act", json={"action": "check", "hand": 1, "step": 2})
    assert answer.status_code == 400 and "the agent 'bad' failed" in answer.get_json()["error"]
