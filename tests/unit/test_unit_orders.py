"""Orders that name numbered things, end to end: the line reads a number, the instance is found as the order
is carried out (a split earlier in the turn makes the unit a later order names; a link destroys one), once
sets compare numbers, a standing order ends when its unit is gone, and `valid` cannot read such an argument."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulesdsl.game.yamlio import dump_text
from rulesdsl.game.yamlio import load_text as yaml_load
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.state import dump, load
from tests.unit.rulestools import Loaded, check_text, load_text, marked_line

RULES = '''ruleset "Unit orders" { version "1" turn "turn" }
thing Place keyed by code { name: text }
data Place(code, name) { A: "Alpha"  B: "Beta" }
thing Division numbered per owner {
  place: Place indexed
  regiments: int = 1
  patrols: int = 0
  fresh: bool = false reset each turn
}
orders { header "{account}", "{code}" }
order split "S {unit} {n}" {
  unit: Division
  n: 1..45
  require n < unit.regiments else "division {unit} has only {unit.regiments} regiments"
  effect {
    unit.regiments -= n
    new Division(owner: me, place: unit.place, regiments: n, fresh: true)
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
  once per turn per unit as act
  effect { unit.place = place }
}
order hold "H {unit}" {
  unit: Division
  once per turn per unit as act
  effect { unit.regiments += 0 }
}
order patrol "P {unit} {times}" {
  unit: Division
  times: 0..9
  standing per unit until times == 0
  effect { unit.patrols += times }
}
phase splitting: run split
phase linking: run link
phase moving: run move
phase holding: run hold
phase patrolling: run patrol
report {
  units = [{number: d.number, place: d.place.code, regiments: d.regiments, patrols: d.patrols}
           for d in Division where d.owner == me]
  template "t.report.j2"
}
'''
TEMPLATE = "{% for u in units %}{{ u.number }}\\n{% endfor %}"


@pytest.fixture(scope="module")
def rules(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    base = tmp_path_factory.mktemp("unit_orders")
    return load_text(base, RULES, TEMPLATE, "t", base / "cache")


def turn(g: Game, *lines: str) -> None:
    g.process_turn([("p1.txt", "\n".join(["1", "A", *lines]) + "\n")])


def units(g: Game) -> list[tuple[int, str, int, int]]:
    ann = g.all_players[0]
    return [(d.number, d.place._key, d.regiments, d.patrols) for d in g.units["Division"].live() if d.owner is ann]


def reasons(g: Game) -> list[str]:
    t = g.turns["1"]
    return [f"{r.text}: {r.reason}" for r in t.used if r.reason] + [f"{r.text}: {r.reason}" for r in t.refused]


def start(rules: Loaded) -> Game:
    return rules.new_game(players=1, Division=[{"owner": "1", "number": 1, "place": "A", "regiments": 10},
                                               {"owner": "1", "number": 2, "place": "A"}])


def test_an_order_reaches_a_unit_an_earlier_phase_made(rules: Loaded) -> None:
    g = start(rules)
    turn(g, "S 1 4", "M 3 B")  # 3 is the division the split makes, the lowest unused number
    assert reasons(g) == []
    assert units(g) == [(1, "A", 6, 0), (2, "A", 1, 0), (3, "B", 4, 0)]


def test_an_order_to_a_unit_linked_away_earlier_fails_with_the_reason(rules: Loaded) -> None:
    g = start(rules)
    turn(g, "L 1+2", "M 2 B", "M 5 B")
    assert reasons(g) == ["M 2 B: division 2 no longer exists: it was removed earlier this turn",
                          "M 5 B: you have no division 5"]
    assert units(g) == [(1, "A", 11, 0)]


def test_a_number_no_unit_can_have_is_refused_as_the_line_is_read(rules: Loaded) -> None:
    g = start(rules)
    turn(g, "M 0 B", "M -2 B", "M 4294967296 B", "M x B")
    assert reasons(g) == ["M 0 B: unit must be the number of a division, counted from 1, not 0",
                          "M -2 B: unit must be the number of a division, counted from 1, not -2",
                          "M 4294967296 B: unit must be the number of a division, counted from 1, not 4294967296",
                          'M x B: unit must be a whole number, not "x"']


def test_a_once_set_compares_the_numbers_written(rules: Loaded) -> None:
    g = start(rules)
    turn(g, "S 1 4", "M 3 B", "H 3", "H 1")
    assert reasons(g) == ['H 3: there is already an order for unit 3 this turn: line 4 "M 3 B"']
    assert units(g) == [(1, "A", 6, 0), (2, "A", 1, 0), (3, "B", 4, 0)]


def test_a_standing_order_follows_its_number_and_ends_when_the_unit_is_gone(rules: Loaded) -> None:
    g = start(rules)
    turn(g, "P 2 3")
    turn(g)
    assert units(g) == [(1, "A", 10, 0), (2, "A", 1, 6)]
    turn(g, "L 1+2")  # the patrol of 2 still stood as the turn's orders were chosen: it fails, then it ends
    assert reasons(g) == ["P 2 3: division 2 no longer exists: it was removed earlier this turn"]
    turn(g)
    assert reasons(g) == ["P 2 3: you have no division 2: the standing order ends"]
    assert g.standing_texts(g.all_players[0]) == []


def test_valid_ends_turn_and_until_may_not_read_a_unit_argument(tmp_path: Path) -> None:
    text = RULES.replace('  once per turn per unit as act\n  effect { unit.place',
                         '  once per turn per unit as act\n  valid unit.regiments > 0 else "empty"  #! valid\n'
                         '  ends turn when unit.regiments > 5  #! ends\n  effect { unit.place')
    text = text.replace("until times == 0", "until unit.patrols > 3  #! until")
    got = check_text(tmp_path, text, TEMPLATE)
    assert [(d.code, d.span.line, d.span.col) for d in got.diagnostics] == [
        ("E0244", marked_line(text, "#! valid"), 9), ("E0244", marked_line(text, "#! ends"), 18),
        ("E0244", marked_line(text, "#! until"), 27)]
    assert "`require`" in (got.diagnostics[0].help or "")


def test_the_state_leaves_out_a_reset_field_every_unit_holds_at_its_default(rules: Loaded) -> None:
    g = start(rules)
    turn(g, "S 1 4")
    section = dump(g)["Division"]
    assert section["columns"] == ["owner", "number", "place", "regiments", "patrols", "fresh"]
    assert [row[-1] for row in section["rows"]] == [False, False, True]
    turn(g)
    section = dump(g)["Division"]
    assert section["columns"] == ["owner", "number", "place", "regiments", "patrols"]
    again = load(g.spec, yaml_load(dump_text(dump(g))))
    assert [(d.number, d.fresh) for d in again.units["Division"].live()] == [(1, False), (2, False), (3, False)]


def test_a_personal_orders_valid_reads_its_unit(tmp_path: Path) -> None:
    text = RULES + '''personal order rename "R {unit} {n}" {
  unit: Division
  n: 0..9
  valid unit.regiments > 1 else "division {unit} is too small to name"
  effect { unit.patrols = n }
}
'''
    got = check_text(tmp_path, text, TEMPLATE)
    assert got.ok, [d.message for d in got.diagnostics]
    loaded = load_text(tmp_path / "game", text, TEMPLATE, "t", tmp_path / "cache")
    g = loaded.new_game(players=1, Division=[{"owner": "1", "number": 1, "place": "A", "regiments": 10},
                                             {"owner": "1", "number": 2, "place": "A"}])
    turn(g, "R 1 7", "R 2 7", "R 3 7")
    assert reasons(g) == ["R 2 7: division 2 is too small to name", "R 3 7: you have no division 3"]
    assert units(g) == [(1, "A", 10, 7), (2, "A", 1, 0)]


def test_valid_may_compare_two_unit_arguments_and_name_one(rules: Loaded, tmp_path: Path) -> None:
    text = RULES + '''order merge "J {unit} {other}" {
  unit: Division
  other: Division
  valid unit != other else "division {unit} cannot join itself"
  effect {
    unit.regiments += other.regiments
    destroy other
  }
}
phase merging: run merge
'''
    got = check_text(tmp_path, text, TEMPLATE)
    assert got.ok, [d.message for d in got.diagnostics]
    loaded = load_text(tmp_path / "game", text, TEMPLATE, "t", tmp_path / "cache")
    g = loaded.new_game(players=1, Division=[{"owner": "1", "number": 1, "place": "A", "regiments": 10},
                                             {"owner": "1", "number": 2, "place": "A"}])
    turn(g, "J 1 1", "S 1 4", "J 2 3")
    assert reasons(g) == ["J 1 1: division 1 cannot join itself"]
    assert units(g) == [(1, "A", 6, 0), (2, "A", 5, 0)]
