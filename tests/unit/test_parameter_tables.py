"""Range bounds and chances set by parameters (issue 10 §4) -> tables that follow the scenario's values, and
a game start that refuses values which would make a table the checker could not have passed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from rulesdsl.game.folder import GameError, GameFolder
from tests.unit.rulestools import write_ruleset

RULES = '''ruleset "Grades" { version "1" turn "turn" }
param edge: int = 5
secret param spy_odds: int = 30
param loyal_odds: int = 70
table grade(x: int) -> text {
  below edge: "low"
  from edge: "high"
}
table loyalty -> text weighted {
  spy_odds%: "spy"
  loyal_odds%: "loyal"
}
player {
  score: int = 7
  found: text = ""
}
orders { header "{account}", "{code}" }
phase look {
  for each p in players {
    p.found = draw(loyalty, "loyalty")
  }
}
report {
  grade = grade(me.score)
  found = me.found
  template "t.report.j2"
}
'''
TEMPLATE = "{{ grade }} {{ found }}\n"


def _start(tmp: Path, parameters: dict[str, Any]) -> GameFolder:
    rules = write_ruleset(tmp / "rules", RULES, TEMPLATE)
    scenario = tmp / "scenario.yaml"
    scenario.write_text(yaml.safe_dump({"parameters": parameters, "players": [
        {"name": "Ann", "account": "1", "code": "A"}]}), encoding="utf-8")
    return GameFolder.create(rules, tmp / "game", scenario, None)


def _report(folder: GameFolder, turn: int) -> str:
    return (folder.turns_dir / f"turn-{turn:03d}" / "reports" / "1-ann.txt").read_text(encoding="utf-8")


def test_a_range_bound_follows_its_parameter(tmp_path: Path) -> None:
    assert _report(_start(tmp_path / "a", {}), 0) == "high\n"
    assert _report(_start(tmp_path / "b", {"edge": 8}), 0) == "low\n"


def _draws(tmp: Path, parameters: dict[str, Any]) -> list[str]:
    folder = _start(tmp, parameters)
    orders = tmp / "orders.txt"
    orders.write_text("1\nA\n", encoding="utf-8")
    found = []
    for turn in range(1, 6):
        folder.process_turn([orders], force=True)
        found.append(_report(folder, turn).split()[-1])
    return found


def test_chances_follow_their_parameters(tmp_path: Path) -> None:
    assert _draws(tmp_path / "a", {"spy_odds": 99, "loyal_odds": 1}).count("spy") >= 4
    assert _draws(tmp_path / "b", {"spy_odds": 1, "loyal_odds": 99}).count("spy") <= 1


@pytest.mark.parametrize(("parameters", "message"), [
    ({"spy_odds": 30, "loyal_odds": 60},
     "scenario.yaml: $.parameters.spy_odds: the chances of `loyalty` add up to 90%, not 100% "
     "(spy_odds = 30, loyal_odds = 60)"),
    ({"spy_odds": 0, "loyal_odds": 100},
     "scenario.yaml: $.parameters.spy_odds: a chance of `loyalty` is not above 0% (spy_odds = 0, loyal_odds = 100)"),
])
def test_a_game_whose_parameters_break_a_table_is_refused_at_its_start(tmp_path: Path, parameters: dict[str, Any],
                                                                       message: str) -> None:
    with pytest.raises(GameError) as info:
        _start(tmp_path, parameters)
    assert str(info.value) == message
    assert not (tmp_path / "game").exists()


# ---------------------------------------------------------------- `digits A..B` bounds that parameters set
DIGITS = '''ruleset "Steps" { version "1" turn "turn" }
param low_step: int = 0
param top_step: int = 8
param cap: int = 9
world { limit: int = 12 }
player { moved: int = 0 }
orders { header "{account}", "{code}" }
order march "M {route}" {
  route: digits low_step..top_step
  effect { me.moved += size(route) }
}
order hop "H {route}" {
  route: digits 0..cap - 1
  effect { me.moved += size(route) }
}
order drift "D {route}" {
  route: digits 0..world.limit
  effect { me.moved += size(route) }
}
phase marching: run march
phase hopping: run hop
phase drifting: run drift
report { moved = me.moved  template "t.report.j2" }
'''


def _start_digits(tmp: Path, parameters: dict[str, Any]) -> GameFolder:
    rules = write_ruleset(tmp / "rules", DIGITS, "{{ moved }}\n")
    scenario = tmp / "scenario.yaml"
    scenario.write_text(yaml.safe_dump({"parameters": parameters, "players": [
        {"name": "Ann", "account": "1", "code": "A"}]}), encoding="utf-8")
    return GameFolder.create(rules, tmp / "game", scenario, None)


@pytest.mark.parametrize(("parameters", "message"), [
    ({"top_step": 12},
     "scenario.yaml: $.parameters.top_step: `route` of order `march` reads each digit as one number, so its high "
     "bound must be a single digit from 0 to 9, not 12 (top_step = 12)"),
    ({"low_step": -1},
     "scenario.yaml: $.parameters.low_step: `route` of order `march` reads each digit as one number, so its low "
     "bound must be a single digit from 0 to 9, not -1 (low_step = -1)"),
    ({"low_step": 6, "top_step": 3},
     "scenario.yaml: $.parameters.low_step: order `march` can never be given: `route` takes no digit at least 6 "
     "and at most 3 (low_step = 6, top_step = 3)"),
    ({"cap": 0},  # a bound that is an expression of a parameter names the parameter
     "scenario.yaml: $.parameters.cap: `route` of order `hop` reads each digit as one number, so its high "
     "bound must be a single digit from 0 to 9, not -1 (cap = 0)"),
    ({"top_step": 10, "cap": 11},  # every fault, not only the first
     "scenario.yaml: $.parameters.top_step: `route` of order `march` reads each digit as one number, so its high "
     "bound must be a single digit from 0 to 9, not 10 (top_step = 10)\n"
     "scenario.yaml: $.parameters.cap: `route` of order `hop` reads each digit as one number, so its high "
     "bound must be a single digit from 0 to 9, not 10 (cap = 11)"),
])
def test_a_game_whose_parameters_break_a_digits_bound_is_refused_at_its_start(
        tmp_path: Path, parameters: dict[str, Any], message: str) -> None:
    """Regression: a scenario could set a `digits` bound past 9, below 0 or above the other one."""
    with pytest.raises(GameError) as info:
        _start_digits(tmp_path, parameters)
    assert str(info.value) == message
    assert not (tmp_path / "game").exists()


def test_digits_bounds_that_parameters_set_within_a_digit_start_a_game(tmp_path: Path) -> None:
    # A bound that reads the game's state (world.limit, 12 at the start) is not one a scenario decides: it is
    # not judged when the game starts; a turn reads digits up to 9.
    folder = _start_digits(tmp_path, {"low_step": 2, "top_step": 2, "cap": 1})
    assert folder.latest_turn() == 0
