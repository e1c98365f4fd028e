"""rulesdsl/simulate/play.py: one game of random orders -> its GameResult, the same for the same job, with each
kind of problem found where the rules or the `simulation` block make one."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
import yaml

from rulesdsl.compiler import load_module
from rulesdsl.game.folder import GameFolder
from rulesdsl.runtime.spec import HiddenSpec, InvariantSpec, RulesetSpec, SimulationSpec
from rulesdsl.simulate.play import Names, game_seed, play, reason_shape
from rulesdsl.simulate.results import CRASH, INVARIANT, LEAK, NO_REASON, GameJob, GameResult
from tests.unit.rulestools import BASE, marked_line, write_ruleset

ROOT = Path(__file__).resolve().parents[2]
COVERT = ROOT / "rulesets" / "covert.rules"
NUKECARDS = ROOT / "rulesets" / "nukecards.rules"


def _scenario(name: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "examples" / name / "scenario.yaml").read_text(encoding="utf-8"))
    return data


def _job(rules: Path, scenario: dict[str, Any], turns: int = 10, index: int = 0, seed: int = 1) -> GameJob:
    return GameJob(str(rules), scenario, turns, index, game_seed(seed, index))


def _with(rules: Path, **simulation: Any) -> RulesetSpec:
    """The compiled ruleset with a hand-made `simulation` block (Python functions for its expressions)."""
    _, spec = load_module(rules)
    return dataclasses.replace(spec, simulation=SimulationSpec(**simulation))


def _kinds(result: GameResult) -> list[str]:
    return [p.kind for p in result.problems]


def test_a_games_seed_comes_from_the_runs_seed_and_its_index_alone() -> None:
    assert game_seed(7, 3) == game_seed(7, 3)
    assert len({game_seed(7, i) for i in range(100)} | {game_seed(8, 0)}) == 101
    assert all(0 <= game_seed(s, i) < 2 ** 32 for s in (0, -5, 10 ** 30) for i in range(3))


def test_the_same_job_gives_the_same_result() -> None:
    job = _job(NUKECARDS, _scenario("nukecards"), turns=6, index=2)
    first, second = play(job), play(job)
    assert first == second
    assert first.seed == job.seed and first.index == 2 and first.seats == 6
    assert sum(first.written.values()) > 50 and first.done and first.refusals
    # Another game of the run is another game.
    assert play(_job(NUKECARDS, _scenario("nukecards"), turns=6, index=3)) != first


@pytest.mark.parametrize("rules", [COVERT, NUKECARDS], ids=["covert", "nukecards"])
def test_the_shipped_games_play_ten_turns_without_a_problem(rules: Path) -> None:
    scenario = _scenario(rules.stem)
    for index in range(3):
        result = play(_job(rules, scenario, index=index))
        assert result.problems == [], [p.text for p in result.problems]
        assert result.turns == 10 or result.ended
        assert sum(result.done.values()) > 0
        assert set(result.done) <= set(result.written) | {"stop"}
        assert all("#" in r or not any(ch.isdigit() for ch in r) for r in result.refusals)


def test_a_game_ends_with_its_winners_by_seat() -> None:
    # Random players who resign often end a game of Covert when one is left: the last is its winner.
    spec = _with(COVERT, weights=(("resign", 3),))
    results = [play(_job(COVERT, _scenario("covert"), index=i), spec) for i in range(3)]
    ended = [r for r in results if r.ended]
    assert ended and all(r.turns < 10 for r in ended)
    assert any(r.winners for r in ended)
    assert all(0 <= seat < r.seats for r in ended for seat in r.winners)


def test_a_false_invariant_is_a_problem_once_per_game() -> None:
    spec = _with(COVERT, weights=(("resign", 0),), invariants=(
        InvariantSpec("never", lambda g: False, line=901),
        InvariantSpec("countries_kept", lambda g: len(g.all["Country"]), unchanged=True, line=902),
        InvariantSpec("turn_kept", lambda g: g.turn, unchanged=True, line=903),
        InvariantSpec("cash_known", lambda g: all(p.cash >= -10 ** 9 for p in g.all_players), line=904)))
    result = play(_job(COVERT, _scenario("covert"), turns=3), spec)
    texts = [p.text for p in result.problems]
    assert _kinds(result) == [INVARIANT, INVARIANT], texts
    assert texts[0] == "invariant never (line 901) does not hold at the start"
    assert result.problems[0].turn == 0
    assert texts[1] == "invariant turn_kept (line 903) was 0 at the start and is 1 after turn 1"
    assert result.problems[1].turn == 1 and result.turns == 3


def test_an_invariant_that_raises_is_a_problem() -> None:
    spec = _with(COVERT, invariants=(InvariantSpec("odd", lambda g: 1 // 0 == 0, line=7),))
    result = play(_job(COVERT, _scenario("covert"), turns=2), spec)
    assert [p.text for p in result.problems] == [
        "invariant odd (line 7) could not be worked out: ZeroDivisionError: integer division or modulo by zero"]


def _influence(unless: Any = None) -> HiddenSpec:
    return HiddenSpec("Country", "influence", "influence", True, ("int",), unless=unless, line=55)


def test_a_hidden_fact_another_players_report_shows_is_a_leak() -> None:
    # Covert shows a country's leader, worked out from every player's influence, to spies and rulers there.
    spec = _with(COVERT, weights=(("resign", 0),), hidden=(_influence(),))
    results = [play(_job(COVERT, _scenario("covert"), index=i), spec) for i in range(3)]
    leaks = [p for r in results for p in r.problems]
    assert leaks and {p.kind for p in leaks} == {LEAK}
    assert all(p.text.startswith("hidden c.influence[p] for c in Country (line 55): ") for p in leaks)
    assert all("'s influence of " in p.text and ", and the report of " in p.text and " changed at $." in p.text
               for p in leaks)
    # Once per declaration and game.
    assert all(len(r.problems) <= 1 for r in results)
    # The facts are put back: the games play as they do without the check.
    plain = [play(_job(COVERT, _scenario("covert"), index=i), _with(COVERT, weights=(("resign", 0),)))
             for i in range(3)]
    assert [(r.written, r.done, r.refusals) for r in plain] == [(r.written, r.done, r.refusals) for r in results]


def test_a_hidden_fact_is_not_checked_where_the_viewer_may_know_it() -> None:
    spec = _with(COVERT, weights=(("resign", 0),), hidden=(
        _influence(unless=lambda g, c, p, q: True),
        HiddenSpec("", "cash", "cash", False, ("money",), line=70)))
    for i in range(3):
        assert play(_job(COVERT, _scenario("covert"), index=i), spec).problems == []


def test_an_optional_thing_and_a_list_are_changed_too() -> None:
    spec = _with(COVERT, weights=(("resign", 0), ("transfer", 5)), hidden=(
        HiddenSpec("", "superspy", "superspy", False, ("opt", ("thing", "Country")), line=73),
        HiddenSpec("", "contacts", "contacts", False, ("list", ("text",)), line=75)))
    texts = [p.text for i in range(2) for p in play(_job(COVERT, _scenario("covert"), index=i), spec).problems]
    # Another superspy in a country moves what its other superspies are told; contacts are the player's own.
    assert texts and all(t.startswith("hidden p.superspy (line 73): ") for t in texts)


CRASHING = BASE + '''phase boom when turn >= 2 {
  news "{100 div (turn - turn)}"  #!
}
'''


def _players(n: int) -> dict[str, Any]:
    return {"players": [{"name": f"P{i}", "account": str(i), "code": f"C{i}"} for i in range(1, n + 1)]}


def test_a_turn_that_raises_is_a_crash_with_its_line_and_mail(tmp_path: Path) -> None:
    rules = write_ruleset(tmp_path, CRASHING)
    result = play(_job(rules, _players(2)))
    assert _kinds(result) == [CRASH]
    assert result.turns == 1 and not result.ended  # the game stops at the crash
    problem = result.problems[0]
    assert problem.turn == 2
    first, mail = problem.text.split("\n", 1)
    assert first == (f"turn 2 of game 0 (seed {result.seed}) failed: t.rules:{marked_line(CRASHING)}: "
                     "division by zero (in phase boom)")
    # The mail replays the turn: each player's header, then the lines it wrote.
    assert mail.startswith("the turn's mail:\n  1.txt:\n    1\n    C1")
    assert "\n  2.txt:\n    2\n    C2" in mail and "\n\n" not in mail


QUIET = BASE + '''order quiet "Q,{n}" {
  n: 1..9
  valid n < 5 else ""
}
phase quieting: run quiet
'''


def test_a_refusal_without_a_reason_is_a_problem(tmp_path: Path) -> None:
    # The language lets a reason be empty ("" or a text that is empty in the game); the simulator finds it.
    rules = write_ruleset(tmp_path, QUIET)
    result = play(_job(rules, _players(2), turns=5))
    assert _kinds(result) == [NO_REASON]  # once per game and order
    assert result.problems[0].text.startswith(("1: line ", "2: line "))
    assert '"Q,' in result.problems[0].text and result.problems[0].text.endswith(
        f"was refused without a reason (game 0, seed {result.seed})")


def test_reasons_are_counted_with_their_numbers_as_hashes() -> None:
    assert reason_shape("not enough cash: it costs 12 and you have 3.5") == "not enough cash: it costs # and you have #"
    assert reason_shape("you hold no S12") == "you hold no S#"


def test_reasons_are_counted_with_the_games_names_as_their_things(tmp_path: Path) -> None:
    """A country by its name or its code, a player by name: one rule's refusals are one row, whichever
    countries they named. The longest name first; only whole words; a lower-case key is no code."""
    folder = GameFolder.create(COVERT, tmp_path / "g", ROOT / "examples" / "covert" / "scenario.yaml", None)
    names = Names(folder.load_game())
    assert reason_shape("Eastern United States is not adjacent to MEX", names) == \
        "<Country> is not adjacent to <Country>"
    assert reason_shape("Spectre may send at most 4 troops from Peru", names) == \
        "<Player> may send at most # troops from <Country>"
    assert reason_shape("MEXICO and Perus and a PERson", names) == "MEXICO and Perus and a PERson"


def test_one_report_a_turn_is_checked_against_its_schema_each_players_in_turn(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rulesdsl.simulate import play as play_module

    checked: list[tuple[int, str]] = []

    def check(spec: Any, data: dict[str, Any]) -> None:
        checked.append((data["game"]["turn"], data["player"]["account"]))
        if data["game"]["turn"] == 3:
            raise ValueError("report data does not fit its schema at $.cash: 1 is not of type 'string'")

    monkeypatch.setattr(play_module, "validate_report", check)
    rules = write_ruleset(tmp_path, BASE)
    result = play(_job(rules, _players(2), turns=5))
    assert checked == [(1, "2"), (2, "1"), (3, "2")]
    assert _kinds(result) == [CRASH] and result.turns == 2
    assert result.problems[0].text.startswith(f"turn 3 of game 0 (seed {result.seed}) failed: ValueError: report "
                                              "data does not fit its schema at $.cash")


def test_a_scenarios_forced_draws_of_later_turns_are_left_out() -> None:
    # dug-in forces the combat dice its golden mail rolls in turns 3 and 5; random mail rolls none of them, and a
    # forced value nothing draws would stop the turn. Its start's draws (the currencies of 1960) are kept.
    path = ROOT / "tests" / "golden" / "wcg" / "dug-in" / "scenario.yaml"
    scenario = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert {d["turn"] for d in scenario["draws"]} == {0, 3, 5}
    result = play(_job(ROOT / "rulesets" / "wcg.rules", scenario, turns=3))
    assert result.problems == [] and result.turns == 3
    assert {d["turn"] for d in scenario["draws"]} == {0, 3, 5}  # the job's scenario is left as it was


def test_an_unless_that_fails_is_said_and_a_report_that_fails_with_a_fact_changed_is_let_go(
        monkeypatch: pytest.MonkeyPatch) -> None:
    spec = _with(COVERT, weights=(("resign", 0),), hidden=(_influence(unless=lambda g, c, p, q: 1 // 0 == 0),))
    result = play(_job(COVERT, _scenario("covert"), turns=2), spec)
    assert [p.text.split(" for p = ")[0] for p in result.problems] == [
        "hidden c.influence[p] for c in Country (line 55): its `unless` could not be worked out"]
    assert result.problems[0].text.endswith(": ZeroDivisionError: integer division or modulo by zero")

    from rulesdsl.simulate import play as play_module

    def failing(g: Any, p: Any) -> dict[str, Any]:
        raise ValueError("no such value")

    # The turn's own reports are made first; only the reports made for a changed fact fail here.
    spec = _with(COVERT, weights=(("resign", 0),), hidden=(_influence(),))
    monkeypatch.setattr(play_module, "report_data", failing)
    monkeypatch.setattr(play_module._Play, "make_reports", lambda self, g: {p.account: {} for p in g.all_players})
    assert play(_job(COVERT, _scenario("covert"), turns=2), spec).problems == []
