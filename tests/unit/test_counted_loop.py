"""Counted loops (`for each i in A..B`) run end to end: a small ruleset -> its generated module -> turns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rulesdsl.compiler import compile_path
from rulesdsl.runtime.engine import Game
from tests.unit.rulestools import Loaded, load_text, write_ruleset

# A year of months in a phase, an order that repeats its effect N times, and a battle of up to three
# rounds that stops once a side is gone (the `where` is asked before each round).
SEASONS = '''ruleset "Seasons" { version "1" turn "year" }
player {
  grain: int = 0
  raids: int = 0
}
world {
  months: int = 12
  attackers: int = 5
  defenders: int = 4
  rounds_fought: int = 0
  last_month: int = 0
  empty_runs: int = 0
  winner: Player?
  grown: int = 2
}
orders {
  header "{account}", "{code}"
}
order raid "RAID {n}" {
  n: 0..5
  effect {
    for each i in 1..n {
      me.raids += i
    }
  }
}
phase raiding: run raid
phase harvest {
  for each month in 1..world.months where month % 3 == 0 {
    for each p in players { p.grain += month }
    world.last_month = month
  }
  for each never in world.months..world.months - 1 { world.empty_runs += 1 }
}
phase battle {
  for each round in 1..3 where world.attackers > 0 and world.defenders > 0 {
    world.rounds_fought = round
    world.defenders -= 2
    world.attackers -= 1
    if world.defenders <= 0 { world.winner = first(players) }
  }
  if world.winner != none { news "{world.winner.name} won after {world.rounds_fought} rounds" }
}
phase growth {
  for each k in 1..world.grown { world.grown += 1 }
}
report {
  grain = me.grain
  raids = me.raids
  template "seasons.report.j2"
}
'''
TEMPLATE = "{{ grain }} {{ raids }}\n"


@pytest.fixture(scope="module")
def seasons(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    base = tmp_path_factory.mktemp("seasons")
    return load_text(base, SEASONS, TEMPLATE, "seasons", base / "cache")


def submit(g: Game, *lines: str) -> None:
    g.process_turn([("ann.txt", "\n".join(["1", "A", *lines]) + "\n")])


def test_a_year_counts_its_months_with_the_where_of_each(seasons: Loaded) -> None:
    g = seasons.new_game()
    submit(g)
    w: Any = g.world
    # Months 3, 6, 9 and 12: 30 each, and the last month counted is 12.
    assert [p.grain for p in g.all_players] == [30, 30]  # type: ignore[attr-defined]
    assert w.last_month == 12
    # A range whose end is before its start is not gone through at all.
    assert w.empty_runs == 0


def test_the_bounds_are_read_once_before_the_first_round(seasons: Loaded) -> None:
    g = seasons.new_game()
    submit(g)
    assert g.world.grown == 4  # type: ignore[attr-defined]


def test_the_bounds_are_read_from_the_state(seasons: Loaded) -> None:
    g = seasons.new_game(world={"months": 4})
    submit(g)
    assert [p.grain for p in g.all_players] == [3, 3]  # type: ignore[attr-defined]
    assert g.world.last_month == 3  # type: ignore[attr-defined]


def test_an_order_repeats_its_effect_as_often_as_its_argument_says(seasons: Loaded) -> None:
    g = seasons.new_game()
    submit(g, "RAID 4")
    assert g.all_players[0].raids == 1 + 2 + 3 + 4  # type: ignore[attr-defined]
    submit(g, "RAID 0")
    assert g.all_players[0].raids == 10  # type: ignore[attr-defined]


def test_a_battle_stops_at_the_round_in_which_a_side_is_gone(seasons: Loaded) -> None:
    g = seasons.new_game()
    submit(g)
    w: Any = g.world
    # Defenders 4 -> 2 -> 0: the third round's `where` sees them gone and is skipped.
    assert (w.rounds_fought, w.defenders, w.attackers) == (2, 0, 3)
    assert g.news_items() == ["Ann won after 2 rounds"]


def test_a_battle_of_equal_sides_lasts_three_rounds(seasons: Loaded) -> None:
    g = seasons.new_game(world={"defenders": 9})
    submit(g)
    w: Any = g.world
    assert (w.rounds_fought, w.defenders, w.attackers, w.winner) == (3, 3, 2, None)


def test_the_generated_loop_is_a_plain_range(tmp_path: Path) -> None:
    source = compile_path(write_ruleset(tmp_path, SEASONS, TEMPLATE, "seasons"))
    assert "    for v_i in range(1, v_n + 1):\n        me.raids += v_i\n" in source
    assert ("    for v_month in range(1, g.world.months + 1):\n"
            "        if v_month % 3 == 0:\n") in source
    assert "    for v_never in range(g.world.months, g.world.months):\n" in source
    assert "    for v_round in range(1, 4):\n        if g.world.attackers > 0 and g.world.defenders > 0:\n" \
        in source
