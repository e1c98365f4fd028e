"""Grids in the language: `grid NAME { ... }` -> checked, compiled and played games over its sectors.

tests/unit/data/grid/tiny.rules is the end-to-end game: a 6 x 5 map that wraps east-west, drawn by the scenario,
owners given sparse, a scout order naming a sector, phases reading neighbours, ranges and routes, and a
report that draws the map around a player's home with window().
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from rulesdsl.compiler import check_path, compile_path, load_module
from rulesdsl.game.folder import GameError, GameFolder
from rulesdsl.game.yamlio import dump_text, load_text
from rulesdsl.runtime import routes
from rulesdsl.runtime import sectors as rs
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.spec import RulesetSpec
from rulesdsl.runtime.state import StateError, dump, load, new_game
from tests.unit.rulestools import BASE, BASE_TEMPLATE, show
from tests.unit.rulestools import load_text as load_text_rules

DATA = Path(__file__).resolve().parent / "data" / "grid"
TERRAIN = "~~~~~~\n~..^.~\n~.^^.~\n~....~\n~~~~~~\n"
SCENARIO = f"""seed: 7
players:
  - {{name: Ann, account: ann, code: A1, home: "0101"}}
  - {{name: Bob, account: bob, code: B2, home: "0403"}}
Sector:
  terrain: |
{"".join("    " + row + chr(10) for row in TERRAIN.splitlines())}  owner: {{"0101": ann, "0403": bob}}
"""


@pytest.fixture(scope="module")
def spec(tmp_path_factory: pytest.TempPathFactory) -> RulesetSpec:
    folder = tmp_path_factory.mktemp("tiny")
    for f in DATA.iterdir():
        shutil.copy(f, folder / f.name)
    checked = check_path(folder / "tiny.rules")
    assert checked.ok, show(checked.diagnostics)
    _, loaded = load_module(folder / "tiny.rules", folder / "cache")
    return loaded


def _scenario(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = load_text(SCENARIO)
    data.update(changes)
    return data


def test_a_game_is_played_on_the_map_from_scenario_to_reports(tmp_path: Path, snapshot: SnapshotAssertion) -> None:
    for f in DATA.iterdir():
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / "scenario.yaml").write_text(SCENARIO, encoding="utf-8")
    folder = GameFolder.create(tmp_path / "tiny.rules", tmp_path / "game", tmp_path / "scenario.yaml", None)
    start = folder.turns_dir / "turn-000"
    out = {f"0/{p.name}": p.read_text(encoding="utf-8") for p in sorted((start / "reports").glob("*.txt"))}
    (tmp_path / "ann.txt").write_text("ann\nA1\nS 0203\n", encoding="utf-8")
    (tmp_path / "bob.txt").write_text("bob\nB2\nS 0000\nS 9999\nS 203\nS 0401\n", encoding="utf-8")
    result = folder.process_turn([tmp_path / "ann.txt", tmp_path / "bob.txt"])
    for _, path in result.reports:
        out[f"1/{path.name}"] = path.read_text(encoding="utf-8")
    state = (folder.turns_dir / "turn-001" / "state.yaml").read_text(encoding="utf-8")
    out["1/state Sector"] = state[state.index("\nSector:"):state.index("\nengine:")]
    assert out == snapshot
    assert "  marks:\n    '0203': 1\n" in state  # a per-key value keyed by sectors, by number
    again = folder.load_game()
    assert again.all_players[0].marks == {"0203": 1}  # type: ignore[attr-defined]


def test_the_state_writes_drawn_fields_as_rows_and_others_sparse_and_reads_back(spec: RulesetSpec) -> None:
    g = new_game(spec, _scenario())
    data = dump(g)
    section = data["Sector"]
    assert section["terrain"] == TERRAIN
    assert section["owner"] == {"0101": "ann", "0403": "bob"}
    assert section["visits"] == {} and section["seen_by"] == {}
    text = dump_text(data)
    assert "  terrain: |\n    ~~~~~~\n    ~..^.~\n" in text  # one line of the file per row of the map
    again = load(spec, load_text(text))
    assert dump(again) == data
    assert again.sectors[7].terrain._key == "open" and again.sectors[7]._key == "0101"
    assert again.sectors[7].owner is again.all_players[0]


@pytest.mark.parametrize(("section", "path", "words"), [
    ({"terrain": "~~~~~~\n~~~~~~\n"}, "$.Sector.terrain", "2 rows, not 5"),
    ({"terrain": TERRAIN.replace("~..^.~", "~..^.")}, "$.Sector.terrain", "row 1 has 5 symbols, not 6"),
    ({"terrain": TERRAIN.replace("~..^.~", "~..x.~")}, "$.Sector.terrain", "row 1, column 3: 'x' is no Terrain"),
    ({"owner": {"0101": "zed"}}, "$.Sector.owner.0101", "no Player is keyed 'zed'"),
    ({"owner": {"9999": "ann"}}, "$.Sector.owner.9999", "column 99 is outside the map"),
    ({"owner": {"101": "ann"}}, "$.Sector.owner.101", "a sector is written CCRR"),
    ({"owner": {65: "ann"}}, "$.Sector.owner.65", "write sectors in quotes"),
    ({"visits": {"0101": -1}}, "$.Sector.visits.0101", "is not allowed: `visits: ... where visits >= 0`"),
    ({"visits": "12"}, "$.Sector.visits", "expected a mapping of sector numbers to values"),
    ({"height": {}}, "$.Sector.height", "has no field `height`"),
])
def test_a_scenario_s_faults_in_the_grid_name_their_json_path(spec: RulesetSpec, section: dict[str, Any], path: str,
                                                               words: str) -> None:
    with pytest.raises(StateError) as err:
        new_game(spec, _scenario(Sector=section))
    assert [e.path for e in err.value.errors] == [path]
    assert words in str(err.value)


def test_a_size_a_parameter_sets_is_checked_against_the_numbering_when_the_game_is_made(spec: RulesetSpec) -> None:
    g = new_game(spec, _scenario(parameters={"map_width": 9}, Sector={}))
    assert (g.grid.width, g.grid.height, len(g.sectors)) == (9, 5, 45)  # type: ignore[union-attr]
    with pytest.raises(StateError) as err:
        new_game(spec, _scenario(parameters={"map_width": 101}, Sector={}))
    assert err.value.path == "$.parameters.map_width"
    assert 'do not fit the numbering "CCRR"' in str(err.value)


def _game(spec: RulesetSpec) -> Game:
    return new_game(spec, _scenario())


def test_grid_builtins_read_the_library_in_sectors(spec: RulesetSpec) -> None:
    g = _game(spec)
    s = g.sectors
    at = {x._key: x for x in s}
    assert rs.neighbour(g, at["0101"], 1)._key == "0100"
    assert rs.neighbour(g, at["0100"], 1) is None  # the north edge does not wrap
    assert rs.neighbour(g, at["0001"], 7)._key == "0501"  # the west edge wraps to the east
    assert rs.neighbour(g, at["0101"], 0) is at["0101"]
    assert [x._key for x in rs.neighbours(g, at["0101"])] == ["0100", "0200", "0201", "0202", "0102", "0002",
                                                              "0001", "0000"]
    assert rs.distance(g, at["0001"], at["0501"]) == 1
    assert [x._key for x in rs.within(g, at["0000"], 1)] == ["0500", "0000", "0100", "0501", "0001", "0101"]
    assert [[x._key if x else None for x in r] for r in rs.window(g, at["0000"], 1)] == [
        [None, None, None], ["0500", "0000", "0100"], ["0501", "0001", "0101"]]
    assert (rs.column(g, at["0403"]), rs.row(g, at["0403"])) == (4, 3)
    assert rs.sector_at(g, 4, 3) is at["0403"] and rs.sector_at(g, 6, 0) is None
    with pytest.raises(IndexError, match="there is no direction 9"):
        rs.neighbour(g, at["0101"], 9)


@pytest.mark.parametrize(("a", "b", "d"), [
    ("0202", "0202", 0), ("0202", "0200", 1), ("0202", "0400", 2), ("0202", "0402", 3), ("0202", "0404", 4),
    ("0202", "0204", 5), ("0202", "0004", 6), ("0202", "0002", 7), ("0202", "0000", 8),
    ("0202", "0401", 2),  # two east, one north: halfway rounds away, so the line starts north-east
    ("0202", "0501", 3),  # three east, one north: mostly east, so east first
    ("0002", "0502", 7),  # across the wrapping edge, west is one step
])
def test_direction_is_the_first_step_of_a_straight_line(spec: RulesetSpec, a: str, b: str, d: int) -> None:
    g = _game(spec)
    at = {x._key: x for x in g.sectors}
    assert rs.direction(g, at[a], at[b]) == d


def test_path_steers_around_impassable_sectors_and_prices_entering(spec: RulesetSpec) -> None:
    g = _game(spec)
    at = {x._key: x for x in g.sectors}

    def cost(x: Any) -> int | None:
        return x.terrain.cost  # type: ignore[no-any-return]

    route = routes.route(g, at["0101"], at["0403"], cost)
    assert [x._key for x in route][-1] == "0403"
    # Around the hills (3 each) over open land (1 each): four steps, where three would cross a hill.
    assert (len(route), sum(cost(x) or 0 for x in route)) == (4, 4)
    assert routes.route(g, at["0101"], at["0101"], cost) == []
    assert routes.route(g, at["0101"], at["0000"], cost) == []  # sea: no way in
    free = routes.route(g, at["0101"], at["0403"], lambda x: 0 if x.terrain.cost else None)
    assert [x._key for x in free][-1] == "0403"  # a price of 0 is allowed: the search runs without an estimate
    with pytest.raises(IndexError, match="a cost is 0 or more"):
        routes.route(g, at["0101"], at["0403"], lambda x: -1)


def test_a_field_reset_each_turn_goes_back_to_its_default_in_every_sector(spec: RulesetSpec) -> None:
    g = _game(spec)
    g.sectors[3].seen_by.append(g.all_players[0])
    rs.reset(g)
    assert all(s.seen_by == [] for s in g.sectors)
    assert len({id(s.seen_by) for s in g.sectors}) == len(g.sectors)  # a list of its own in each sector


def test_the_generated_module_does_not_grow_with_the_map(tmp_path: Path) -> None:
    text = (DATA / "tiny.rules").read_text(encoding="utf-8")
    sizes = []
    for size, pattern in (("map_width by 5", '"CCRR"'), ("320 by 99", '"CCCRR"')):
        folder = tmp_path / pattern.strip('"')
        folder.mkdir()
        shutil.copy(DATA / "tiny.report.j2", folder / "tiny.report.j2")
        big = text.replace("size map_width by 5", f"size {size}").replace('numbered "CCRR"', f"numbered {pattern}")
        (folder / "tiny.rules").write_text(big, encoding="utf-8")
        sizes.append(len(compile_path(folder / "tiny.rules")))
    assert abs(sizes[0] - sizes[1]) < 200


def test_grid_words_may_still_name_fields(tmp_path: Path) -> None:
    text = (DATA / "tiny.rules").read_text(encoding="utf-8").replace(
        "  visits: int = 0\n", "  visits: int = 0\n  size: int = 1\n  wrap: bool = false\n  draw: text = \"\"\n")
    folder = tmp_path / "t"
    folder.mkdir()
    shutil.copy(DATA / "tiny.report.j2", folder / "tiny.report.j2")
    (folder / "tiny.rules").write_text(text, encoding="utf-8")
    checked = check_path(folder / "tiny.rules")
    assert checked.ok, show(checked.diagnostics)


def test_a_direction_outside_0_to_8_stops_the_turn_with_a_clear_error(tmp_path: Path) -> None:
    for f in DATA.iterdir():
        shutil.copy(f, tmp_path / f.name)
    rules = tmp_path / "tiny.rules"
    text = rules.read_text(encoding="utf-8")
    rules.write_text(text.replace("      for each d in 1..8 {", "      let far = neighbour(p.home, p.steps + 9)\n"
                                  "      for each d in 1..8 {"), encoding="utf-8")
    (tmp_path / "scenario.yaml").write_text(SCENARIO, encoding="utf-8")
    folder = GameFolder.create(rules, tmp_path / "game", tmp_path / "scenario.yaml", None)
    with pytest.raises(GameError) as err:
        folder.process_turn([])
    assert "neighbour(0101, 9): there is no direction 9" in str(err.value)
    assert "tiny.rules:" in str(err.value)


def test_a_thing_s_data_names_a_sector_by_its_number_in_quotes(tmp_path: Path) -> None:
    text = (DATA / "tiny.rules").read_text(encoding="utf-8") + (
        'thing City keyed by code {\n  at: Sector?\n}\ndata City(code, at) {\n  PAR: "0302"\n  ROM: none\n}\n'
        "phase found { for each c in City { if c.at != none { c.at.visits += 1 } } }\n")
    folder = tmp_path / "t"
    folder.mkdir()
    shutil.copy(DATA / "tiny.report.j2", folder / "tiny.report.j2")
    (folder / "tiny.rules").write_text(text, encoding="utf-8")
    checked = check_path(folder / "tiny.rules")
    assert checked.ok, show(checked.diagnostics)
    _, spec = load_module(folder / "tiny.rules", folder / "cache")
    g = new_game(spec, _scenario())
    assert g.index["City"]["PAR"].at is g.index["Sector"]["0302"]  # type: ignore[attr-defined]
    (folder / "tiny.rules").write_text(text.replace('PAR: "0302"', 'PAR: "302"'), encoding="utf-8")
    wrong = check_path(folder / "tiny.rules")
    assert [d.code for d in wrong.diagnostics] == ["E0206"]
    assert 'written in quotes as its number: `numbered "CCRR"` writes one like "0000"' in wrong.diagnostics[0].message


def test_a_ruleset_without_a_grid_still_gathers_a_parameter_s_fault_with_the_others(tmp_path: Path) -> None:
    text = BASE + 'param bonus: int = 1\nphase q { news "{bonus}" }\n'
    loaded = load_text_rules(tmp_path, text, BASE_TEMPLATE, "t", tmp_path / "cache")
    with pytest.raises(StateError) as err:
        loaded.new_game(parameters={"bonus": "lots"}, Box={"A": {"stones": "many"}})
    assert [e.path for e in err.value.errors] == ["$.parameters.bonus", "$.Box.A.stones"]


def test_an_order_whose_literal_sector_an_earlier_order_reads_is_shadowed(tmp_path: Path) -> None:
    text = (DATA / "tiny.rules").read_text(encoding="utf-8").replace("  size map_width by 5", "  size 6 by 5")
    text += 'order home "S 0101" {\n  effect { me.steps = 0 }\n}\nphase homing: run home\n'
    folder = tmp_path / "t"
    folder.mkdir()
    shutil.copy(DATA / "tiny.report.j2", folder / "tiny.report.j2")
    (folder / "tiny.rules").write_text(text, encoding="utf-8")
    checked = check_path(folder / "tiny.rules")
    assert [d.code for d in checked.diagnostics if d.severity == "error"] == ["E0421"]
    (folder / "tiny.rules").write_text(text.replace('"S 0101"', '"S 0901"'), encoding="utf-8")  # off the map
    checked = check_path(folder / "tiny.rules")
    assert [d.code for d in checked.diagnostics if d.severity == "error"] == [], show(checked.diagnostics)


@pytest.mark.parametrize(("pattern", "width", "height"), [("CCRR", 6, 5), ("R-CC", 12, 3), ("XCCCRRY", 320, 99)])
def test_sector_names_are_built_as_the_library_writes_them(pattern: str, width: int, height: int) -> None:
    from rulesdsl.runtime.grid import Grid, SectorNames
    from rulesdsl.runtime.gridstate import _names

    names = SectorNames(Grid(width, height), pattern)
    assert _names(pattern, width, height) == [names.name(s) for s in range(width * height)]
