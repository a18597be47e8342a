"""Screenshots of the page for the README: ``python -m tests.web.screenshot [FOLDER]`` (default ``docs``).

Plays seeded hands through the page in the headless Chromium of the browser tests, always
checking or calling, against a CFR+ strategy of Leduc hold'em and of a preflop-only
hold'em (to show the hand grid), and writes ``play-leduc.png`` (a decision of the hand),
``play-leduc-after.png`` (the hand over: the agent's cards, range and strategy) and
``play-holdem-grid.png`` (the agent's preflop strategy on a 13×13 grid); then heads-up no-limit
hold'em against the search agent on a small implicit blueprint, dealing until a hand reaches a
decision it searched, and writes ``play-hunl-search.png`` (its range and strategy on the grid).
"""

from __future__ import annotations

import sys
from pathlib import Path

from subgame.agents import StrategyAgent
from subgame.agents.table import Table
from subgame.files import write_atomic
from subgame.games import load_game
from subgame.solve.cfr import CFR_PLUS, CFRSolver
from subgame.tree.compile import compile_game
from subgame.web import create_app, running_server
from tests.web.browser import answers_shown, chromium, wait_for_answer

#: A preflop-only heads-up hold'em: blinds 1 and 2, limit raises of 2, at most 3 bets.
HOLDEM_PREFLOP = {"num_ranks": 13, "num_suits": 4, "hole_cards": 2, "board_cards": (0,), "raise_sizes": (2,),
                  "max_raises": (3,), "ante": 0, "blinds": (1, 2), "first_player": (0,)}


def _table(name: str, label: str, iterations: int, seed: int, seat: int, **params: object) -> Table:
    game = load_game(name, **params)
    tree = compile_game(game)
    solver = CFRSolver(tree, CFR_PLUS)
    for _ in range(iterations):
        solver.step()
    return Table(game, StrategyAgent(tree, solver.average_strategy(), name=f"CFR+ {iterations}"), seed=seed, human_seat=seat, label=label)


def _hunl_search_table(seed: int) -> Table:
    """HUNL against ``search:`` with the turn depth-limited (K = 4, two river cards, raise cap 3) on a quick blueprint."""
    from dataclasses import replace

    from subgame.agents.hunl_search import HunlSearchAgent, HunlSearchConfig
    from subgame.experiments.modicum_table import SETUPS, _blueprints
    from subgame.solve.driver import Budget

    bps = _blueprints(replace(SETUPS["hunl"], iterations=20_000, lookup_iterations=1), seed, None)
    config = HunlSearchConfig(budget=Budget(iterations=30), search_round=2, num_values=4, river_cards=2, raise_cap=3)
    agent = HunlSearchAgent(bps.game, *bps.agents, config, name="search K=4")
    return Table(bps.game, agent, seed=seed, human_seat=1, label="heads-up no-limit hold'em")


def _check_or_call_to_the_end(page, shot_at_first: Path | None = None) -> None:
    while page.get_attribute("body", "data-over") != "true":
        if shot_at_first is not None:
            _save(shot_at_first, page.screenshot())
            shot_at_first = None
        before = answers_shown(page)
        page.locator("#actions button").filter(has_text="c").first.click()  # "check" or "call N"
        wait_for_answer(page, before)


def _save(path: Path, png: bytes) -> None:
    write_atomic(path, lambda f: f.write(png), "screenshot")
    print(f"wrote {path}")


def main(folder: str = "docs") -> None:
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    with chromium() as browser:
        for table, shots in (
            (_table("leduc", "leduc", 300, seed=2, seat=1), ("play-leduc.png", "play-leduc-after.png")),
            (_table("poker", "hold'em, preflop only", 100, seed=1, seat=1, **HOLDEM_PREFLOP), (None, "play-holdem-grid.png")),
        ):
            with running_server(create_app(table)) as url:
                page = browser.new_page(viewport={"width": 1100, "height": 760})
                page.goto(url)
                wait_for_answer(page, 0)
                _check_or_call_to_the_end(page, out / shots[0] if shots[0] else None)
                _save(out / shots[1], page.screenshot(full_page=True))
                page.close()
        with running_server(create_app(_hunl_search_table(seed=3))) as url:
            page = browser.new_page(viewport={"width": 1100, "height": 760})
            page.goto(url)
            wait_for_answer(page, 0)
            for _ in range(40):  # deal until the agent searched a decision of the hand
                _check_or_call_to_the_end(page)
                if page.locator(".decision .grid").count():
                    break
                before = answers_shown(page)
                page.click("#deal")
                wait_for_answer(page, before)
            _save(out / "play-hunl-search.png", page.locator(".decision .grid").first.locator("xpath=..").screenshot())
            page.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
