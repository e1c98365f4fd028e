"""Instances of no player (`numbered per owner or none`): numbered in their own series, listed after every
player's, found through the owner index under none, never named by a player's order, written with a null
owner in the state and read back; `owner` is `Player?` to the checker."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rulesdsl.game.folder import GameFolder
from rulesdsl.game.yamlio import dump_text
from rulesdsl.game.yamlio import load_text as yaml_load
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.state import StateError, dump, load
from tests.unit.rulestools import Loaded, check_text, load_text, marked_line, write_ruleset

RULES = '''ruleset "Rebels" { version "1" turn "turn" }
thing Place keyed by code { name: text }
data Place(code, name) { A: "Alpha"  B: "Beta" }
thing Division numbered per owner or none {
  place: Place indexed
  regiments: int = 1
}
world { flagship: Division? }
orders { header "{account}", "{code}" }
order move "M {unit} {place}" {
  unit: Division
  place: Place
  effect { unit.place = place }
}
phase moving: run move
phase rising {
  new Division(owner: none, place: Place.B, regiments: 3)
  for each d in Division where d.owner == none and d.regiments == 2 { destroy d }
}
report {
  rebels = count(d for d in Division where d.owner == none)
  units = [d.number for d in Division where d.owner == me]
  leader = first([d.owner.name for d in Division where d.owner != none])
  template "t.report.j2"
}
'''


@pytest.fixture(scope="module")
def rebels(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    base = tmp_path_factory.mktemp("rebels")
    return load_text(base, RULES, "{{ rebels }}", "t", base / "cache")


def listed(g: Game) -> list[tuple[str | None, int, str, int]]:
    return [(d.owner._key if d.owner is not None else None, d.number, d.place._key, d.regiments)
            for d in g.units["Division"].live()]


def start(rebels: Loaded) -> Game:
    return rebels.new_game(Division=[{"owner": "1", "place": "A"}, {"place": "A", "regiments": 2},
                                     {"owner": None, "number": 4, "place": "B"}])


def test_instances_of_no_owner_have_their_own_numbers_and_come_last(rebels: Loaded) -> None:
    g = start(rebels)
    assert listed(g) == [("1", 1, "A", 1), (None, 1, "A", 2), (None, 4, "B", 1)]
    g.process_turn([("p1.txt", "1\nA\nM 1 B\n")])
    # Ann's order moves her division 1, not the rebels' 1; the rising makes rebel 2 (the lowest unused) and
    # destroys rebel 1 (two regiments), whose number is free again.
    assert listed(g) == [("1", 1, "B", 1), (None, 2, "B", 3), (None, 4, "B", 1)]
    assert g.units["Division"].find(None, 2) is not None
    assert len(g.ix["Division"]["owner"][None]) == 2


def test_a_player_never_names_an_instance_of_no_owner(rebels: Loaded) -> None:
    g = start(rebels)
    g.process_turn([("p2.txt", "2\nB\nM 4 A\n")])
    assert [r.reason for r in g.turns["2"].used] == ["you have no division 4"]


def test_the_state_writes_a_null_owner_and_reads_it_back(rebels: Loaded) -> None:
    g = start(rebels)
    g.world.flagship = g.units["Division"].find(None, 4)  # type: ignore[attr-defined]
    data = dump(g)
    assert [row[0] for row in data["Division"]["rows"]] == ["1", None, None]
    assert data["world"]["flagship"] == "4"
    again = load(g.spec, yaml_load(dump_text(data)))
    assert listed(again) == listed(g)
    assert again.world.flagship is again.units["Division"].find(None, 4)  # type: ignore[attr-defined]


def test_a_second_instance_of_no_owner_with_one_number_is_refused(rebels: Loaded) -> None:
    with pytest.raises(StateError) as err:
        rebels.new_game(Division=[{"place": "A", "number": 2}, {"owner": None, "place": "B", "number": 2}])
    assert "$.Division[1].number: there is already an ownerless division 2" in str(err.value)


def test_the_owner_may_be_none_to_the_checker(tmp_path: Path) -> None:
    text = RULES.replace("  leader = first([d.owner.name for d in Division where d.owner != none])\n",
                         "  leader = first([d.owner.name for d in Division])  #!\n")
    got = check_text(tmp_path, text, "{{ rebels }}")
    assert [(d.code, d.span.line) for d in got.diagnostics] == [("E0310", marked_line(text))]
    plain = RULES.replace("numbered per owner or none", "numbered per owner")
    got = check_text(tmp_path, plain, "{{ rebels }}")
    assert got.diagnostics[0].code == "E0245"


def test_a_game_folder_takes_rows_of_no_owner_and_turns_them(tmp_path: Path) -> None:
    rules = write_ruleset(tmp_path / "rules", RULES, "{{ rebels }} {{ units }}\n")
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(yaml.safe_dump({
        "players": [{"name": "Ann", "account": "ann", "code": "A"}],
        "Division": [{"owner": "ann", "place": "A"}, {"place": "B"}, {"owner": None, "place": "A", "regiments": 2}],
    }), encoding="utf-8")
    folder = GameFolder.create(rules, tmp_path / "game", scenario, None)
    orders = tmp_path / "ann.txt"
    orders.write_text("ann\nA\nM 1 B\n", encoding="utf-8")
    result = folder.process_turn([orders])
    g = folder.load_game()
    assert listed(g) == [("ann", 1, "B", 1), (None, 1, "B", 1), (None, 3, "B", 3)]
    assert [path.read_text(encoding="utf-8") for _, path in result.reports] == ["2 [1]\n"]
