"""Sets kept as sets: `add` finds an item's place by bisection (each item once, things in declaration order,
whatever order they are added in), and a list assigned or given where a set is kept becomes one."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rulesdsl.runtime.core import Thing, as_set, set_add
from tests.unit.rulestools import Loaded, load_text


def test_adding_things_in_any_order_keeps_each_once_in_declaration_order() -> None:
    things = [Thing(f"k{i}", i) for i in range(500)]
    rng = random.Random(7)
    order = [rng.choice(things) for _ in range(2000)]
    items: list[Thing] = []
    for t in order:
        set_add(items, t)
    assert items == sorted(set(order), key=lambda t: t._ord)
    assert len(items) == len({id(t) for t in items})


def test_adding_plain_values_keeps_the_order_added() -> None:
    items: list[int] = []
    for v in (3, 1, 3, 2, 1):
        set_add(items, v)
    assert items == [3, 1, 2]


def test_as_set_drops_repeats_and_orders_things() -> None:
    a, b, c = Thing("a", 0), Thing("b", 1), Thing("c", 2)
    assert as_set([c, a, c, b, a]) == [a, b, c]
    assert as_set([2, 1, 2]) == [2, 1]
    assert as_set([{"n": 1}, {"n": 1}, {"n": 2}]) == [{"n": 1}, {"n": 2}]


RULES = '''ruleset "Sets" { version "1" turn "turn" }
thing Place keyed by code { name: text }
data Place(code, name) { A: "Alpha"  B: "Beta"  C: "Gamma" }
thing Camp numbered { sites: set of Place }
player { seen: set of Place }
world {
  marked: set of Place = [Place.C, Place.A, Place.C]
  gathered: set of Place
}
orders { header "{account}", "{code}" }
define around() -> set of Place = [Place.C, Place.B, Place.C]
procedure gather() -> set of Place { return [Place.B, Place.A, Place.B] }
phase p {
  for each q in players {
    q.seen = [Place.C, Place.A, Place.C]
    add Place.B to q.seen
  }
  new Camp(sites: [Place.B, Place.A, Place.B])
  let c = new Camp(sites: around())
  add Place.A to c.sites
  world.gathered = gather()
}
report {
  seen = [x.code for x in me.seen]
  template "t.report.j2"
}
'''


@pytest.fixture(scope="module")
def sets(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    base = tmp_path_factory.mktemp("sets")
    return load_text(base, RULES, "{{ seen }}", "t", base / "cache")


def test_a_list_given_where_a_set_is_kept_becomes_one(sets: Loaded, tmp_path: Path) -> None:
    g = sets.new_game(players=1)
    g.process_turn([])
    assert [x._key for x in g.all_players[0].seen] == ["A", "B", "C"]  # type: ignore[attr-defined]
    assert [[x._key for x in c.sites] for c in g.units["Camp"].live()] == [["A", "B"], ["A", "B", "C"]]
    assert [x._key for x in g.world.marked] == ["A", "C"]  # type: ignore[attr-defined]
    assert [x._key for x in g.world.gathered] == ["A", "B"]  # type: ignore[attr-defined]

