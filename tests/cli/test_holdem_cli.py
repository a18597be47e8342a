"""``subgame solve`` and ``evaluate`` on hold'em spots: endgame files and holdem-subgame."""

from __future__ import annotations

from pathlib import Path

import pytest

from subgame.cli.holdem import parse_target
from subgame.tree import kernels
from tests.cli.test_cli import invoke, ok_json
from tests.tree.test_kernels import REQUIRED

ENDGAMES = Path(__file__).resolve().parents[2] / ".." / "shared" / "fixtures" / "libratus-endgames"
RIVER = "Js Ks 5c Qs 7d"


@pytest.mark.slow
def test_holdem_subgame_to_a_target_then_evaluate(tmp_path):
    ranges = tmp_path / "ranges.txt"
    ranges.write_text("# first to act\nAA,KK,QQ,AKs,AQs,T9s:0.5,65s\n# the button\nAA,AK,AQ,JJ-88:0.5,A5s-A2s\n")
    out = tmp_path / "spot.npz"
    args = ("solve", "holdem-subgame", "--board", RIVER, "--pot", "1000", "--stack", "2000", "--ranges", ranges,
            "--bets", "1,allin", "--raise-cap", "2", "--algo", "dcfr", "--target", "2%pot", "--iterations", "400",
            "--out", out)
    report = ok_json(*args)
    assert report["stopped"] == "target" and report["exploitability_pct_pot"] <= 2.0
    assert report["peak_rss_mib"] >= report["rss_at_start_mib"] > 0 and report["seconds"] > 0  # peaks so far, in-process
    assert report["loops"] == ("passes" if kernels.available() else "numpy")  # 1,081 hands a node: above MIN_STATES
    checked = [p["iteration"] for p in report["curve"]]  # first at --evaluate-every, then where the target is predicted
    assert checked[0] == 10 and checked[-1] == report["iterations"] and all(b - a >= 10 for a, b in zip(checked, checked[1:]))
    assert all(p["pct_pot"] > 2.0 for p in report["curve"][:-1])
    again = ok_json(*args)
    assert again["exploitability_pct_pot"] == report["exploitability_pct_pot"]  # deterministic
    evaluated = ok_json("evaluate", out)
    assert evaluated["exploitability_pct_pot"] == pytest.approx(report["exploitability_pct_pot"], rel=1e-9)


@pytest.mark.skipif(not ENDGAMES.is_dir(), reason="the Libratus endgame fixtures are not beside the repository")
def test_an_endgame_file_solves_from_the_command_line(tmp_path):
    report = ok_json("solve", ENDGAMES / "subgame4.txt", "--bets", "1,allin", "--raise-cap", "2", "--iterations", "20",
                     "--target", "0.5%pot", "--grid", tmp_path / "grid.png")
    assert (tmp_path / "grid.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert report["spot"]["board"] == RIVER and report["spot"]["pot"] == 3750 and report["spot"]["stack"] == 18125
    assert report["stopped"] == "iterations" and report["iterations"] == 20
    assert report["curve"][-1]["pct_pot"] < report["curve"][0]["pct_pot"]


@pytest.mark.parametrize(("args", "message"), [
    (("--board", "Js Ks Js 2c", "--pot", "100", "--stack", "100"), "Js twice"),
    (("--board", RIVER, "--pot", "3750", "--starting-stack", "1000"), "smaller than the pot commitment"),
    (("--board", RIVER, "--pot", "100", "--stack", "100", "--ranges", "AA"), "give a range file"),
    (("--board", RIVER, "--pot", "100"), "needs --stack"),
    (("--board", RIVER, "--pot", "100", "--stack", "100000", "--bets", "0.1,0.2,0.3,allin", "--raise-cap", "0",
      "--max-memory", "0.01"), "use fewer bet sizes"),
    (("--board", RIVER, "--pot", "100", "--stack", "100", "--target", "fast"), "positive percentage"),
])
def test_bad_spots_get_one_line_each(args, message):
    result = invoke("solve", "holdem-subgame", *args)
    assert result.exit_code == 2 and message in result.output.replace("\n", " ")


def test_a_range_over_board_cards_is_refused(tmp_path):
    ranges = tmp_path / "r.txt"
    ranges.write_text("QQ,KsKh\n")
    result = invoke("solve", "holdem-subgame", "--board", RIVER, "--pot", "100", "--stack", "100", "--ranges", ranges)
    assert result.exit_code == 2 and "holds a card of the board" in result.output


def test_holdem_options_need_a_holdem_game(tmp_path):
    result = invoke("solve", "kuhn", "--board", RIVER, "--out", tmp_path / "k.npz")
    assert result.exit_code == 2 and "--board: hold'em options" in result.output
    assert "--out PATH is needed" in invoke("solve", "kuhn").output
    refused = invoke("solve", "holdem-subgame", "--board", RIVER, "--pot", "100", "--stack", "100", "--resume")
    assert refused.exit_code == 2 and "--resume: not available for hold'em spots" in refused.output


@pytest.mark.parametrize(("text", "value"), [("0.5%pot", 0.5), ("1%", 1.0), ("2", 2.0), ("1e-1 % pot", 0.1)])
def test_targets(text, value):
    assert parse_target(text) == value


@pytest.mark.skipif(not ENDGAMES.is_dir(), reason="the Libratus endgame fixtures are not beside the repository")
def test_an_endgame_is_re_solved_against_a_coarser_blueprint(tmp_path):
    out = tmp_path / "resolved.npz"
    report = ok_json("resolve", ENDGAMES / "subgame4.txt", "--bets", "1,allin", "--blueprint-bets", "allin",
                     "--raise-cap", "2", "--method", "maxmargin", "-n", "30", "--out", out)
    assert report["blueprint_bets"] == "allin" and [m["method"] for m in report["methods"]] == ["maxmargin"]
    evaluated = ok_json("evaluate", out)  # the file records the ranges: evaluated under them
    assert evaluated["exploitability_pct_pot"] == pytest.approx(report["methods"][0]["exploitability_pct_pot"], rel=1e-9)
    both = ok_json("resolve", ENDGAMES / "subgame4.txt", "--bets", "1,allin", "--blueprint-bets", "allin",
                   "--raise-cap", "2", "--method", "unsafe,resolve", "-n", "10", "--out", tmp_path / "none.npz")
    assert [m["method"] for m in both["methods"]] == ["unsafe", "resolve"] and both["out"] is None


@pytest.mark.parametrize(("args", "message"), [
    (("--blueprint-bets", "allin", "--method", "reach-maxmargin"), "re-solved with unsafe, resolve, maxmargin"),
    (("--method", "resolve"), "--blueprint-bets 1,allin"),
])
def test_endgame_re_solving_options_are_checked(args, message):
    result = invoke("resolve", ENDGAMES / "subgame4.txt", *args)
    assert result.exit_code != 0 and message in result.output


def test_endgame_options_on_a_strategy_file_are_refused(tmp_path):
    result = invoke("resolve", tmp_path / "blueprint.npz", "--blueprint-bets", "allin")
    assert result.exit_code != 0 and "--blueprint-bets is an option of re-solving a hold'em endgame file" in result.output


@pytest.mark.slow
def test_suit_isomorphism_is_on_where_the_board_allows_it_and_evaluate_rebuilds_the_same_tree(tmp_path):
    args = ("solve", "holdem-subgame", "--board", "Ks 7s 2s 5s", "--pot", "100", "--stack", "100", "--bets", "allin",
            "--raise-cap", "1", "--iterations", "5", "--evaluate-every", "5")
    folded = ok_json(*args, "--out", tmp_path / "folded.npz")
    plain = ok_json(*args, "--no-isomorphism", "--out", tmp_path / "plain.npz")
    assert folded["isomorphism"] == "suits h=d=c interchangeable" and plain["isomorphism"] == "no suit isomorphism"
    assert folded["private_states"] < plain["private_states"] / 2
    assert folded["exploitability_pct_pot"] == pytest.approx(plain["exploitability_pct_pot"], abs=1e-9)
    for name, report in (("folded", folded), ("plain", plain)):
        evaluated = ok_json("evaluate", tmp_path / f"{name}.npz")
        assert evaluated["exploitability_pct_pot"] == pytest.approx(report["exploitability_pct_pot"], rel=1e-9)


def test_float32_halves_the_solver_state_from_the_command_line(tmp_path):
    """--dtype float32 reaches the same target (its regrets and average in half the memory); an LP has no such state."""
    args = ("solve", "holdem-subgame", "--board", RIVER, "--pot", "1000", "--stack", "2000", "--ranges", "uniform",
            "--bets", "allin", "--raise-cap", "1", "--algo", "dcfr", "--target", "1%pot", "--iterations", "300")
    single, double = ok_json(*args, "--dtype", "float32"), ok_json(*args)
    assert (single["dtype"], double["dtype"]) == ("float32", "float64")
    assert single["exploitability_pct_pot"] <= 1.0 and abs(single["iterations"] - double["iterations"]) <= 10
    lp = invoke("solve", "kuhn", "--algo", "lp", "--dtype", "float32", "--out", tmp_path / "k.npz")
    assert lp.exit_code == 2 and "--dtype applies to --algo cfr, cfr+" in lp.output


def test_the_header_names_the_spot_once():
    """Regression: the first line printed the spot twice ('river Js ... : river Js ...')."""
    result = invoke("solve", "holdem-subgame", "--board", "Js Ks 5c Qs 7d", "--pot", "100", "--stack", "100", "--bets", "1",
                    "--iterations", "2")
    assert result.exit_code == 0, result.output
    header = result.output.splitlines()[0]
    assert header.startswith("holdem-subgame: river Js Ks 5c Qs 7d") and header.count("Js Ks 5c Qs 7d") == 1, header


@pytest.mark.skipif(not ENDGAMES.is_dir(), reason="the Libratus endgame fixtures are not beside the repository")
def test_a_spot_solves_in_compact_kept_rows_by_default_and_as_padded_rows_on_request():
    """The default stores each node's own actions for the ranges' hands (as postflop-solver); --keep-zero-weight
    --no-compact pads every hand's row to the tree's most actions: the same iterations to the same exploitability."""
    args = ("solve", ENDGAMES / "subgame4.txt", "--bets", "1,allin", "--raise-cap", "2", "--algo", "dcfr",
            "--iterations", "30")
    lean, padded = ok_json(*args), ok_json(*args, "--keep-zero-weight", "--no-compact")
    available = kernels.available()
    assert (lean["compact"], lean["drop_zero_weight"]) == (available, True)
    assert (padded["compact"], padded["drop_zero_weight"]) == (False, False)
    assert lean["exploitability_pct_pot"] == padded["exploitability_pct_pot"]  # bit for bit below eight actions
    misplaced = invoke("solve", "kuhn", "--no-compact", "--out", "k.npz")
    assert misplaced.exit_code == 2 and "--no-compact" in misplaced.output


@pytest.mark.skipif(not kernels.available() and not REQUIRED, reason="the compiled passes were not built")
def test_a_spot_solves_in_float32_passes_on_request_and_says_so():
    """--compute float32 runs the passes in float32 over float32 storage, and the output says which; without --dtype
    float32 it is refused with the fix, and on a game that is not a hold'em spot too."""
    args = ("solve", "holdem-subgame", "--board", "Js Ks 5c Qs 7d", "--pot", "100", "--stack", "100", "--bets", "1,allin",
            "--algo", "dcfr-postflop", "--iterations", "20", "--dtype", "float32")
    exact, fast = ok_json(*args), ok_json(*args, "--compute", "float32")
    assert (exact["compute"], fast["compute"]) == ("float64", "float32")
    assert fast["exploitability_pct_pot"] == pytest.approx(exact["exploitability_pct_pot"], rel=0.05)
    refused = invoke(*args[:-2], "--compute", "float32")
    assert refused.exit_code != 0 and "dtype='float32'" in refused.output
    misplaced = invoke("solve", "kuhn", "--compute", "float32", "--out", "k.npz")
    assert misplaced.exit_code == 2 and "--compute" in misplaced.output


@pytest.mark.skipif(not kernels.available() and not REQUIRED, reason="the compiled passes were not built")
def test_a_spot_solves_in_sixteen_bits_on_request_and_says_so():
    """--compress stores 16-bit regrets and sums as postflop-solver's compression; it needs the float32 passes and
    dcfr-postflop's average of the strategy alone, and is refused with the fix otherwise, and off hold'em spots."""
    args = ("solve", "holdem-subgame", "--board", "Js Ks 5c Qs 7d", "--pot", "100", "--stack", "100", "--bets", "1,allin",
            "--algo", "dcfr-postflop", "--iterations", "20", "--dtype", "float32", "--compute", "float32")
    plain, small = ok_json(*args), ok_json(*args, "--compress")
    assert (plain["compress"], small["compress"]) == (False, True)
    assert small["exploitability_pct_pot"] == pytest.approx(plain["exploitability_pct_pot"], rel=0.1)
    refused = invoke(*args[:-2], "--compress")
    assert refused.exit_code != 0 and "compute='float32'" in refused.output
    refused = invoke(*(("dcfr" if a == "dcfr-postflop" else a) for a in args), "--compress")
    assert refused.exit_code != 0 and "reach_average=False" in refused.output
    misplaced = invoke("solve", "kuhn", "--compress", "--out", "k.npz")
    assert misplaced.exit_code == 2 and "--compress" in misplaced.output
