"""A field's `where` -> a state no rule could make is refused with its JSON path: in a scenario, in a
state file a GM edited, and after a turn whose rules would make one (the turn is then not committed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from rulesdsl.game.folder import GameError, GameFolder
from tests.unit.rulestools import check_text, show
from tests.unit.test_nukecards import RULES as NUKECARDS
from tests.unit.test_nukecards import play_round, scenario

# A fort's walls are never below 0, and its captain is a soldier: BREACH takes more than the walls hold.
FORT = '''ruleset "Forts" { version "1" turn "turn" }
thing Man keyed by code {
  rank: text
}
data Man(code, rank) {
  SGT: "soldier"
  COOK: "cook"
}
player {
  walls: int = 3 where walls >= 0
  captain: Man? where captain.rank == "soldier"
  guards: Man -> int where guards <= 9
}
orders { header "{account}", "{code}" }
order breach "BREACH {n}" {
  n: 1..9
  effect { me.walls -= n }
}
phase breaching: run breach
report {
  walls = me.walls
  template "t.report.j2"
}
'''


def _start(tmp: Path, rules: Path, data: dict[str, Any]) -> GameFolder:
    path = tmp / "scenario.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return GameFolder.create(rules, tmp / "game", path, None)


def _fort(tmp: Path) -> Path:
    (tmp / "rules").mkdir()
    (tmp / "rules" / "t.report.j2").write_text("Walls {{ walls }}\n", encoding="utf-8")
    path = tmp / "rules" / "t.rules"
    path.write_text(FORT, encoding="utf-8")
    return path


def _players(*extra: dict[str, Any]) -> dict[str, Any]:
    return {"players": [{"name": f"P{i}", "account": f"A{i}", "code": "X", **e} for i, e in enumerate(extra)]}


def test_every_value_a_scenario_breaks_is_named_with_its_path_in_one_run(tmp_path: Path) -> None:
    rules = _fort(tmp_path)
    with pytest.raises(GameError) as info:
        _start(tmp_path, rules, _players({}, {"walls": -1, "captain": "COOK", "guards": {"SGT": 10, "COOK": 2}}))
    assert str(info.value).splitlines() == [
        "scenario.yaml: $.players[1].walls: -1 is not allowed: `walls: ... where walls >= 0` (t.rules line 10)",
        "scenario.yaml: $.players[1].captain: 'COOK' is not allowed: `captain: ... where captain.rank == \"soldier\"` "
        "(t.rules line 11)",
        "scenario.yaml: $.players[1].guards.SGT: 10 is not allowed: `guards: ... where guards <= 9` (t.rules line 12)",
    ]
    assert not (tmp_path / "game").exists()


def test_a_none_and_the_defaults_are_allowed(tmp_path: Path) -> None:
    folder = _start(tmp_path, _fort(tmp_path), _players({}, {"captain": "SGT", "guards": {"SGT": 9}}))
    assert folder.turn_numbers() == [0]


def test_a_state_file_edited_to_break_a_where_is_refused(tmp_path: Path) -> None:
    folder = _start(tmp_path, _fort(tmp_path), _players({}))
    state_file = folder.turns_dir / "turn-000" / "state.yaml"
    state = yaml.safe_load(state_file.read_text(encoding="utf-8"))
    state["players"][0]["walls"] = -4
    state_file.write_text(yaml.safe_dump(state), encoding="utf-8")
    with pytest.raises(GameError, match=r"^turns/turn-000/state.yaml: \$\.players\[0\]\.walls: -4 is not allowed"):
        folder.load_game()


def test_a_turn_whose_rules_break_a_where_is_not_committed(tmp_path: Path) -> None:
    folder = _start(tmp_path, _fort(tmp_path), _players({}))
    orders = tmp_path / "orders.txt"
    orders.write_text("A0\nX\nBREACH 5\n", encoding="utf-8")
    with pytest.raises(GameError) as info:
        folder.process_turn([orders])
    assert str(info.value) == ("the turn was not processed, and the game is as it was: after it, $.players[0].walls: "
                               "-2 is not allowed: `walls: ... where walls >= 0` (t.rules line 10)")
    assert folder.turn_numbers() == [0]
    orders.write_text("A0\nX\nBREACH 3\n", encoding="utf-8")
    assert folder.process_turn([orders]).turn == 1


def test_nukecards_refuses_a_negative_population_and_a_warhead_as_the_prepared_missile(tmp_path: Path) -> None:
    data = scenario({"Ann": ["P100"], "Bob": ["P100"]})
    data["players"][0].update(population=-10, prepared="N200")
    data["players"][1]["rounds_left"] = {"S15": -1}
    with pytest.raises(GameError) as info:
        _start(tmp_path, NUKECARDS, data)
    paths = [line.split(": ")[1] for line in str(info.value).splitlines()]
    assert paths == ["$.players[0].population", "$.players[0].prepared", "$.players[1].rounds_left.S15"]


def test_nukecards_plays_with_a_prepared_missile_from_the_scenario(tmp_path: Path) -> None:
    data = scenario({"Ann": ["M500", "N500"], "Bob": ["P100"]})
    data["players"][0].update(prepared="M500")
    folder = _start(tmp_path, NUKECARDS, data)
    assert play_round(folder, tmp_path / "orders", {"Ann": ["PICK P"], "Bob": ["PICK P"]}).turn == 1


@pytest.mark.parametrize(("field", "code"), [
    ("walls: int = 3 where walls + 1", "E0301"),          # a number is not a condition
    ("walls: int = 3 where me.walls >= 0", "E0"),         # no `me`: a value is checked on its own
    ("walls: int = 3 where chance(50, \"x\")", "E0"),     # no chance
    ("walls: int = 3 where cash >= 0", "E0"),             # another field is not in scope
])
def test_the_checker_refuses_a_where_that_cannot_be_checked_on_the_value_alone(tmp_path: Path, field: str,
                                                                                code: str) -> None:
    text = FORT.replace('walls: int = 3 where walls >= 0', field)
    checked = check_text(tmp_path, text, "Walls {{ walls }}\n")
    errors = [d for d in checked.diagnostics if d.severity == "error"]
    assert errors and all(d.code.startswith(code) for d in errors), show(checked.diagnostics)
    assert errors[0].span.line == 10, show(checked.diagnostics)
