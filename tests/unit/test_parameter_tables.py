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
