"""Numbered things end to end: orders build, split, link and move units, a phase destroys some in a loop, the
report lists them by number; numbers are the lowest unused, destroy lets go of every reference, indexes give
what a scan gives, and the state file round-trips."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from rulesdsl.compiler import compile_path
from rulesdsl.game.folder import GameFolder
from rulesdsl.game.yamlio import dump_text
from rulesdsl.game.yamlio import load_text as yaml_load
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.report import report_data
from rulesdsl.runtime.state import StateError, dump, load
from tests.unit.rulestools import Loaded, load_text, write_ruleset

RULES = '''ruleset "Units" { version "1" turn "turn" }
thing Place keyed by code { name: text }
data Place(code, name) { A: "Alpha"  B: "Beta"  C: "Swamp" }
thing Division numbered per owner {
  place: Place indexed
  regiments: int = 1 where regiments >= 0
  follows: Division?
}
thing City numbered {
  holder: Player? indexed
  place: Place
}
player {
  built: list of Division
  seen: set of City
}
world { flagship: Division? }
orders { header "{account}", "{code}" }
order build "B {place}" {
  place: Place
  effect {
    let d = new Division(owner: me, place: place, regiments: 2)
    add d to me.built
  }
}
order split "S {unit} {n}" {
  unit: Division
  n: 1..45
  require n < unit.regiments else "division {unit} has only {unit.regiments} regiments"
  effect {
    unit.regiments -= n
    new Division(owner: me, place: unit.place, regiments: n)
  }
}
order link "L {units}" {
  units: list of Division
  effect {
    let keep = first(sorted(u for u in units by u.number))
    if keep != none {
      for each u in units where u.number != keep.number {
        keep.regiments += u.regiments
        destroy u
      }
    }
  }
}
order move "M {unit} {place}" {
  unit: Division
  place: Place
  effect { unit.place = place }
}
order follow "F {unit} {leader}" {
  unit: Division
  leader: Division
  effect { unit.follows = leader }
}
order visit "V {city}" {
  city: City
  effect { add city to me.seen }
}
phase building: run build
phase splitting: run split
phase linking: run link
phase moving: run move
phase following: run follow
phase visiting: run visit
phase swamp {
  for each d in Division where d.place == Place.C { destroy d }
}
phase ambush {
  for each d in Division where d.regiments == 9 {
    let f = d.follows
    if f != none { destroy f }
  }
}
report {
  units = [{number: d.number, place: d.place.code, regiments: d.regiments} for d in Division where d.owner == me]
  alpha = count(d for d in Division where d.place == Place.A)
  strength = sum(d.regiments for d in Division where d.place == Place.A and d.owner == me)
  built = [d.number for d in me.built]
  template "t.report.j2"
}
'''
TEMPLATE = "{% for u in units %}{{ u.number }} {{ u.place }} {{ u.regiments }}\n{% endfor %}"


@pytest.fixture(scope="module")
def units(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    base = tmp_path_factory.mktemp("units")
    return load_text(base, RULES, TEMPLATE, "t", base / "cache")


def turn(g: Game, *mail: tuple[int, list[str]]) -> None:
    g.process_turn([(f"p{n}.txt", "\n".join([str(n), chr(ord("A") + n - 1), *lines]) + "\n") for n, lines in mail])


def mine(g: Game, player: int = 1) -> list[tuple[int, str, int]]:
    data = report_data(g, g.all_players[player - 1])
    return [(u["number"], u["place"], u["regiments"]) for u in data["units"]]


def reasons(g: Game, player: int = 1) -> list[str]:
    t = g.turns[str(player)]
    return [f"{r.text}: {r.reason}" for r in t.used if r.reason] + [f"{r.text}: {r.reason}" for r in t.refused]


def test_build_split_link_move_and_the_report(units: Loaded) -> None:
    g = units.new_game()
    turn(g, (1, ["B A", "B A", "B B"]), (2, ["B A"]))
    assert mine(g, 1) == [(1, "A", 2), (2, "A", 2), (3, "B", 2)]
    assert mine(g, 2) == [(1, "A", 2)]  # each player numbers its own
    turn(g, (1, ["S 1 1", "S 2 1", "S 3 5"]))
    # New numbers are the lowest unused: 4 and 5; `S 3 5` is refused by its require.
    assert mine(g, 1) == [(1, "A", 1), (2, "A", 1), (3, "B", 2), (4, "A", 1), (5, "A", 1)]
    assert reasons(g) == ["S 3 5: division 3 has only 2 regiments"]
    turn(g, (1, ["L 4+2+5", "M 3 A"]))
    # The lowest number of those linked is kept; the others leave, and their numbers are free again.
    assert mine(g, 1) == [(1, "A", 1), (2, "A", 3), (3, "A", 2)]
    turn(g, (1, ["S 2 2"]))
    assert mine(g, 1) == [(1, "A", 1), (2, "A", 1), (3, "A", 2), (4, "A", 2)]
    data = report_data(g, g.all_players[0])
    assert data["alpha"] == 5 and data["strength"] == 6
    assert data["built"] == [1, 2, 3]


def test_orders_name_the_players_own_units_by_number(units: Loaded) -> None:
    g = units.new_game(City=[{"place": "A"}, {"number": 7, "place": "B"}])
    turn(g, (1, ["B A"]), (2, ["B B"]))
    turn(g, (1, ["M 2 B", "M x B", "V 7", "V 2"]), (2, ["M 1 C"]))
    # A number is looked up as the order is carried out: those that fail then come before the lines refused.
    assert reasons(g, 1) == ['M 2 B: you have no division 2', "V 2: there is no city 2",
                             'M x B: unit must be a whole number, not "x"']
    assert [c.number for c in g.all_players[0].seen] == [7]
    assert mine(g, 2) == []  # moved into the swamp, and the swamp destroys it


def test_destroy_lets_go_of_every_reference(units: Loaded) -> None:
    g = units.new_game()
    turn(g, (1, ["B A", "B A"]), (2, ["B B"]))
    ann, bob = g.all_players
    first_of_ann = g.units["Division"].find(ann, 1)
    g.world.flagship = first_of_ann
    turn(g, (2, ["F 1 1"]), (1, ["M 1 C"]))  # bob's 1 follows bob's own 1 (itself); ann's 1 walks into the swamp
    assert first_of_ann._live is False
    assert g.world.flagship is None
    assert [d.number for d in ann.built] == [2]
    bobs = g.units["Division"].find(bob, 1)
    assert bobs.follows is bobs
    g.units["Division"].destroy(bobs)
    assert bob.built == []
    assert [d._key for d in g.ix["Division"]["follows"][None]] == ["1/2"] and len(g.ix["Division"]["follows"]) == 1


def test_a_loop_skips_what_its_body_destroyed(units: Loaded) -> None:
    # Ann's 1 (9 regiments) follows her 2, which follows her 3, and 2 has 9 too. The ambush goes through 1,
    # destroying 2; then it skips 2 (destroyed since the loop began), so 3 survives.
    g = units.new_game(Division=[
        {"owner": "1", "number": 1, "place": "A", "regiments": 9, "follows": "1/2"},
        {"owner": "1", "number": 2, "place": "A", "regiments": 9, "follows": "1/3"},
        {"owner": "1", "number": 3, "place": "B"},
    ])
    turn(g)
    assert mine(g) == [(1, "A", 9), (3, "B", 1)]
    assert g.units["Division"].find(g.all_players[0], 1).follows is None


def test_an_order_whose_unit_was_destroyed_before_it_ran_fails(units: Loaded) -> None:
    g = units.new_game(Division=[{"owner": "1", "number": 1, "place": "A"},
                                 {"owner": "1", "number": 2, "place": "A"}])
    turn(g, (1, ["L 1+2", "M 2 B"]))  # linking (an earlier phase) destroys 2 before moving runs
    assert reasons(g) == ["M 2 B: division 2 no longer exists: it was removed earlier this turn"]


def test_the_index_gives_what_a_scan_gives(units: Loaded, tmp_path: Path) -> None:
    text = compile_path(write_ruleset(tmp_path, RULES, TEMPLATE))
    # The report's loops read the indexes; the same loops with no index would scan.
    assert "bucket(g.ix['Division']['owner'], me)" in text
    assert "bucket_size(g.ix['Division']['place'], g.index['Place']['A'])" in text
    assert "bucket(g.ix['Division']['place'], g.index['Place']['C'])" in text
    g = units.new_game()
    turn(g, (1, ["B A", "B B", "B A"]), (2, ["B A", "B B"]))
    turn(g, (1, ["M 2 A", "M 1 B"]), (2, ["M 2 A"]))
    scan = [(d.owner.name, d.number) for d in g.units["Division"].live() if d.place._key == "A"]
    read = [(d.owner.name, d.number) for d in g.ix["Division"]["place"][g.index["Place"]["A"]]]
    assert sorted(read, key=lambda x: x) != [] and scan == [("Ann", 2), ("Ann", 3), ("Bob", 1), ("Bob", 2)]
    assert sorted(read) == scan


def test_the_state_writes_each_unit_on_one_line_and_reads_back(units: Loaded) -> None:
    g = units.new_game(City=[{"place": "A", "holder": "2"}])
    turn(g, (1, ["B A", "B B", "B C"]), (2, ["B A"]))
    turn(g, (2, ["F 1 1"]))
    data = dump(g)
    assert data["Division"]["columns"] == ["owner", "number", "place", "regiments", "follows"]
    assert data["Division"]["rows"] == [["1", 1, "A", 2, None], ["1", 2, "B", 2, None], ["2", 1, "A", 2, "2/1"]]
    text = dump_text(data)
    assert "  - ['1', 1, A, 2, null]\n" in text and "  columns: [number, holder, place]\n" in text
    again = load(units.spec, yaml_load(text))
    assert dump(again) == data
    assert again.units["Division"].find(again.all_players[1], 1).follows is not None
    # New numbers after reading continue from the gaps: Ann's 3 was destroyed in the swamp.
    turn(again, (1, ["B A"]))
    assert [n for n, _, _ in mine(again)] == [1, 2, 3]


@pytest.mark.parametrize(("rows", "fault"), [
    ([{"owner": "1", "number": 3, "place": "A"}, {"owner": "1", "number": 3, "place": "B"}],
     "$.Division[1].number: Ann already has division 3"),
    ([{"owner": "1", "place": "Q"}], "$.Division[0].place: no Place is keyed 'Q'"),
    ([{"number": 1, "place": "A"}], "$.Division[0].owner: missing: every Division has an owner"),
    ([{"owner": "1", "regiments": 2}], "$.Division[0].place: missing: every Division needs its place"),
    ([{"owner": "1", "place": "A", "follows": "1/9"}], "$.Division[0].follows: there is no division 1/9"),
    ([{"owner": "1", "place": "A", "regiments": -1}], "$.Division[0].regiments: -1 is not allowed"),
    ([{"owner": "1", "number": 0, "place": "A"}], "$.Division[0].number: a number is a whole number from 1 to"),
    ([{"owner": "1", "number": 2 ** 32, "place": "A"}], "$.Division[0].number: a number is a whole number from 1"),
])
def test_scenario_faults_name_their_json_path(units: Loaded, rows: list[dict[str, Any]], fault: str) -> None:
    with pytest.raises(StateError) as got:
        units.new_game(Division=rows)
    assert fault in str(got.value)


def test_rows_without_numbers_take_the_lowest_unused(units: Loaded) -> None:
    g = units.new_game(Division=[{"owner": "1", "place": "A"}, {"owner": "1", "number": 1, "place": "B"},
                                 {"owner": "1", "number": 3, "place": "B"}, {"owner": "1", "place": "C"}])
    assert [(d.number, d.place._key) for d in g.units["Division"].live()] == [(1, "B"), (2, "A"), (3, "B"),
                                                                           (4, "C")]


def test_a_game_folder_checks_the_section_by_its_shape(tmp_path: Path) -> None:
    rules = write_ruleset(tmp_path / "rules", RULES, TEMPLATE)
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(yaml.safe_dump({
        "players": [{"name": "Ann", "account": "ann", "code": "A"}],
        "Division": [{"owner": "ann", "place": "A", "regiments": 4}],
    }), encoding="utf-8")
    folder = GameFolder.create(rules, tmp_path / "game", scenario, None)
    g = folder.load_game()
    assert [(d.number, d.regiments) for d in g.units["Division"].live()] == [(1, 4)]
    schema = units_schema(g)
    assert "anyOf" in schema and "Division" not in str(schema.get("propertyNames", ""))


def units_schema(g: Game) -> dict[str, Any]:
    section: dict[str, Any] = g.spec.state_schema["properties"]["Division"]
    return section


KEYED = '''ruleset "Keyed" { version "1" turn "turn" }
thing Place keyed by code { holder: Player? indexed }
data Place(code, holder) { A: none  B: none  C: none  D: none }
orders { header "{account}", "{code}" }
order take "T {place}" {
  place: Place
  effect { place.holder = me }
}
phase taking: run take
report {
  held = [p.code for p in Place where p.holder == me]
  free = count(p for p in Place where p.holder == none)
  template "t.report.j2"
}
'''


def test_an_index_on_a_keyed_thing_follows_its_field(tmp_path: Path) -> None:
    loaded = load_text(tmp_path, KEYED, "{{ held }}\n", "t", tmp_path / "cache")
    g = loaded.new_game(Place={"C": {"holder": "2"}})
    turn(g, (1, ["T D", "T B"]), (2, ["T A"]))
    data = report_data(g, g.all_players[0])
    assert data["held"] == ["B", "D"] and data["free"] == 0  # declaration order, as a scan gives
    assert report_data(g, g.all_players[1])["held"] == ["A", "C"]
    turn(g, (2, ["T B"]))
    assert report_data(g, g.all_players[0])["held"] == ["D"]
    again = load(loaded.spec, dump(g))
    assert report_data(again, again.all_players[1])["held"] == ["A", "B", "C"]


def test_a_loop_that_only_destroys_is_one_batch(units: Loaded, tmp_path: Path) -> None:
    text = compile_path(write_ruleset(tmp_path, RULES, TEMPLATE))
    assert "g.units['Division'].destroy_all([v_d for v_d in bucket(g.ix['Division']['place'], " in text
    g = units.new_game()
    turn(g, (1, ["B C", "B A", "B C", "B C"]), (2, ["B C"]))  # the swamp takes every unit built in it
    assert [d.number for d in g.all_players[0].built] == [2] and g.all_players[1].built == []
    assert mine(g, 1) == [(2, "A", 2)]
    turn(g, (1, ["B B"]))
    assert mine(g, 1) == [(1, "B", 2), (2, "A", 2)]


def test_a_scenario_row_gives_what_new_must_give(tmp_path: Path) -> None:
    rules = RULES.replace("  regiments: int = 1 where regiments >= 0\n", "  regiments: int\n")
    loaded = load_text(tmp_path, rules, TEMPLATE, "t", tmp_path / "cache")
    with pytest.raises(StateError) as got:
        loaded.new_game(Division=[{"owner": "1", "place": "A"}])
    assert "$.Division[0].regiments: missing: every Division needs its regiments" in str(got.value)
    g = loaded.new_game(Division=[{"owner": "1", "place": "A", "regiments": 0}])
    assert mine(g) == [(1, "A", 0)]


def test_a_value_worked_out_once_may_call_a_function_but_not_draw(tmp_path: Path) -> None:
    rules = RULES.replace("report {\n", 'define spot(p: Player) -> Place = if p.built == [] then Place.A else '
                          'Place.B\nreport {\n  near = count(d for d in Division where d.place == spot(me))\n')
    text = compile_path(write_ruleset(tmp_path, rules, TEMPLATE))
    assert "out['near'] = bucket_size(g.ix['Division']['place'], fn_spot(g, me))" in text
    phase = rules.replace("phase swamp {\n", 'phase swamp {\n  for each d in Division where d.place == '
                          'pick(Place, "luck") { d.regiments += 1 }\n')
    text = compile_path(write_ruleset(tmp_path / "draw", phase, TEMPLATE))
    assert "bucket(g.ix['Division']['place'], pick(" not in text


WAR = Path(__file__).parent / "data" / "units" / "war.rules"


def test_units_on_a_grid(tmp_path: Path) -> None:
    loaded = load_text(tmp_path, WAR.read_text(encoding="utf-8"), "{{ units }}\n", "war", tmp_path / "cache")
    g = loaded.new_game(Division=[{"owner": "1", "sector": "0101", "regiments": 3}, {"owner": "2", "sector": "0302"}])
    turn(g, (1, ["R 0000", "M 1 0200"]))
    ann = g.all_players[0]
    data = report_data(g, ann)
    assert data["units"] == [1, 2] and data["held"] == 2 and data["camps"] == [2, 1]  # sectors in map order
    assert [s._key for s in g.ix["Sector"]["holder"][ann]] == ["0000", "0200"]
    turn(g, (1, ["D 2"]))
    assert [s._key for s in g.sectors if s.camp is not None] == ["0200", "0302"]
    again = load(loaded.spec, dump(g))
    assert report_data(again, again.all_players[0])["camps"] == [1]
    assert sorted(s._key for s in again.ix["Sector"]["holder"][again.all_players[0]]) == ["0000", "0200"]
