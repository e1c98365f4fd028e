"""Fields `from scenario` -> a game whose players each start with their own value, and the refusal of a
scenario that leaves one out: through new_game, the game folder and the `rulesdsl` command line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from rulesdsl.cli import main
from rulesdsl.compiler import check_path, load_module
from rulesdsl.runtime.state import StateErrors, dump, load, new_game
from tests.unit.rulestools import write_ruleset

# Each warlord starts in a home region and under a banner that the scenario names (Warlord's home regions).
RULES = '''ruleset "Warlets" { version "1" turn "turn" game "WL-{number}" }
thing Region keyed by code {
  name: text
  troops: int = 0
}
data Region(code, name) {
  N: "North"
  S: "South"
  E: "East"
}
player {
  home: Region from scenario
  banner: text from scenario
  cash: money = 5
}
world {
  capital: Region from scenario
}
orders { header "WL-{game}", "{account}", "{code}" }
order muster "MUSTER {n}" {
  n: 1..9
  effect { me.home.troops += n }
}
phase mustering: run muster
report {
  home = me.home.name
  banner = me.banner
  troops = me.home.troops
  capital = world.capital.name
  template "t.report.j2"
}
'''
TEMPLATE = "Home {{ home }} ({{ banner }}), troops {{ troops }}; capital {{ capital }}\n"
SCENARIO: dict[str, Any] = {
    "game": {"number": 3},
    "players": [
        {"name": "Red", "account": "1", "code": "R", "home": "N", "banner": "red"},
        {"name": "Blue", "account": "2", "code": "B", "home": "s", "banner": "blue"},
    ],
    "world": {"capital": "E"},
}


@pytest.fixture(scope="module")
def rules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_ruleset(tmp_path_factory.mktemp("warlets"), RULES, TEMPLATE)


def _scenario(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_the_schema_requires_each_players_and_the_worlds_fields_from_the_scenario(rules: Path) -> None:
    checked = check_path(rules)
    assert checked.diagnostics == []
    assert checked.program is not None
    schema = checked.program.state_schema
    player = schema["properties"]["players"]["items"]
    assert player["required"] == ["name", "account", "code", "home", "banner"]
    assert schema["properties"]["world"]["required"] == ["capital"]
    assert schema["required"] == ["world"]


def test_each_player_starts_with_their_own_home_and_keeps_it_through_a_turn(rules: Path, tmp_path: Path,
                                                                            capsys: pytest.CaptureFixture[str]) -> None:
    game = tmp_path / "game"
    assert main(["new", str(rules), str(game), "--scenario", str(_scenario(tmp_path, SCENARIO))]) == 0
    start = (game / "turns" / "turn-000" / "reports" / "2-blue.txt").read_text(encoding="utf-8")
    assert "Home South (blue), troops 0; capital East" in start
    red = (game / "turns" / "turn-000" / "reports" / "1-red.txt").read_text(encoding="utf-8")
    assert "Home North (red), troops 0; capital East" in red
    mail = tmp_path / "blue.txt"
    mail.write_text("WL-3\n2\nB\nMUSTER 4\n", encoding="utf-8")
    assert main(["turn", str(game), str(mail)]) == 0
    after = (game / "turns" / "turn-001" / "reports" / "2-blue.txt").read_text(encoding="utf-8")
    assert "Home South (blue), troops 4; capital East" in after
    state = yaml.safe_load((game / "turns" / "turn-001" / "state.yaml").read_text(encoding="utf-8"))
    assert [(p["home"], p["banner"]) for p in state["players"]] == [("N", "red"), ("S", "blue")]
    assert state["world"]["capital"] == "E"
    assert state["Region"]["S"]["troops"] == 4
    capsys.readouterr()


def test_new_refuses_a_scenario_that_leaves_them_out_naming_every_one(rules: Path, tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    data = {"game": {"number": 3}, "players": [
        {"name": "Red", "account": "1", "code": "R", "home": "N"},
        {"name": "Blue", "account": "2", "code": "B", "banner": "blue"},
    ]}
    game = tmp_path / "game"
    assert main(["new", str(rules), str(game), "--scenario", str(_scenario(tmp_path, data))]) == 2
    err = capsys.readouterr().err
    assert "scenario.yaml: $.players[1].home: missing: every scenario must set it" in err
    assert "scenario.yaml: $.players[0].banner: missing: every scenario must set it" in err
    assert "scenario.yaml: $.world: missing: every scenario must set it" in err
    assert not game.exists()


def test_new_refuses_a_world_section_without_the_worlds_field(rules: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    data = {**SCENARIO, "world": {}}
    assert main(["new", str(rules), str(tmp_path / "game"), "--scenario", str(_scenario(tmp_path, data))]) == 2
    assert "scenario.yaml: $.world.capital: missing: every scenario must set it" in capsys.readouterr().err


def test_new_game_names_every_missing_field_with_its_path(rules: Path, tmp_path: Path) -> None:
    # new_game guards callers that did not check the scenario against its schema first.
    _, spec = load_module(rules, tmp_path / "cache")
    data = {"players": [{"name": "Red", "account": "1", "code": "R", "banner": "red"},
                        {"name": "Blue", "account": "2", "code": "B", "home": "S"}]}
    with pytest.raises(StateErrors) as caught:
        new_game(spec, data)
    assert [str(e) for e in caught.value.errors] == [
        "$.players[0].home: missing: every scenario must set it (`from scenario`)",
        "$.players[1].banner: missing: every scenario must set it (`from scenario`)",
        "$.world.capital: missing: every scenario must set it (`from scenario`)",
    ]


def test_a_state_file_keeps_them(rules: Path, tmp_path: Path) -> None:
    _, spec = load_module(rules, tmp_path / "cache")
    again = dump(load(spec, dump(new_game(spec, SCENARIO))))
    assert [(p["home"], p["banner"]) for p in again["players"]] == [("N", "red"), ("S", "blue")]
    assert again["world"]["capital"] == "E"
