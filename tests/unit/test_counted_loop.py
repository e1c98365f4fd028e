"""Counted loops (`for each i in A..B`) run end to end: a small ruleset -> its generated module -> turns."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from rulesdsl.compiler import compile_path
from rulesdsl.runtime.core import MAX_ROUNDS, RulesError
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


def test_the_generated_loop_is_a_plain_range_between_literals_and_bounded_otherwise(tmp_path: Path) -> None:
    source = compile_path(write_ruleset(tmp_path, SEASONS, TEMPLATE, "seasons"))
    # A bound that is not a literal may come from what a player wrote: the runtime's `rounds` bounds it.
    assert "    for v_i in rounds(1, v_n):\n        me.raids += v_i\n" in source
    assert ("    for v_month in rounds(1, g.world.months):\n"
            "        if v_month % 3 == 0:\n") in source
    assert "    for v_never in rounds(g.world.months, g.world.months - 1):\n" in source
    assert "    for v_round in range(1, 4):\n        if g.world.attackers > 0 and g.world.defenders > 0:\n" \
        in source


# Orders whose argument has no upper bound, with a check and an effect that loop as often as it says.
UNBOUNDED = SEASONS.replace(
    'order raid "RAID {n}" {\n  n: 0..5\n',
    'order raid "RAID {n}" {\n  n: int\n  require count_to(n) >= 0 else "never"\n',
).replace("phase raiding: run raid", """define count_to(n: int) -> int = sum(1 for i in [1]) + size([k for k in [n]])
procedure tally(n: int) {
  for each i in 1..n { world.rounds_fought += 0 }
}
phase raiding: run raid
order hoard "HOARD {n}" {
  n: int
  require n >= 0 else "a hoard of nothing"
  effect {
    for each i in 1..n { me.grain += 1 }
  }
}
order tally "TALLY {n}" {
  n: int
  valid n >= 0 else "count up"
  effect { tally(n) }
}
phase hoarding: run hoard
phase tallying: run tally""")


@pytest.fixture(scope="module")
def unbounded(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    base = tmp_path_factory.mktemp("unbounded")
    return load_text(base, UNBOUNDED, TEMPLATE, "seasons", base / "cache")


def test_a_loop_as_long_as_a_player_says_fails_that_order_not_the_turn(unbounded: Loaded) -> None:
    """Issue 9's promise: no player stalls or refuses a turn. HOARD 999999999999999999 would loop for ages:
    that order fails with the reason, and the other orders and the turn go on."""
    g = unbounded.new_game()
    start = time.monotonic()
    submit(g, "HOARD 999999999999999999", "TALLY 999999999999999999", "HOARD 3", "RAID 2")
    assert time.monotonic() - start < 2
    used = {(r.text, r.status, r.reason) for r in g.turns["1"].used}
    reason = ("a counted loop from 1 to 999999999999999999 would run 999999999999999999 rounds; "
              "at most 100,000 are allowed")
    assert ("HOARD 999999999999999999", "failed", reason) in used
    assert ("TALLY 999999999999999999", "failed", reason) in used
    assert ("HOARD 3", "done", None) in used and ("RAID 2", "done", None) in used
    ann: Any = g.all_players[0]
    assert (ann.grain, ann.raids) == (30 + 3, 3)


def test_a_loop_of_the_most_rounds_allowed_runs(unbounded: Loaded) -> None:
    g = unbounded.new_game()
    submit(g, f"HOARD {MAX_ROUNDS}", f"HOARD {MAX_ROUNDS + 1}")
    assert g.all_players[0].grain == MAX_ROUNDS + 30  # type: ignore[attr-defined]
    assert [r.status for r in g.turns["1"].used] == ["done", "failed"]


def test_a_loop_too_long_outside_an_order_stops_the_turn_at_its_line(seasons: Loaded) -> None:
    g = seasons.new_game(world={"months": 10 ** 12})
    with pytest.raises(RulesError) as info:
        submit(g)
    assert "seasons.rules:" in str(info.value) and "at most 100,000" in str(info.value)
    assert "phase harvest" in str(info.value)
