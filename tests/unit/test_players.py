"""`players` in the rules (Game.players()) -> the active players in game order, however and whenever a player's
`active` changes: a personal order, a phase, a scenario or state file, or Python setting it."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.state import dump, load
from tests.unit.rulestools import Loaded, load_text

RULES = '''ruleset "Roll" { version "1" turn "turn" }
player {
  seen: int = 0
}
orders {
  header "{account}", "{code}"
}
personal order quit "QUIT" {
  effect {
    me.active = false
  }
}
order back "BACK,{p}" {
  p: Player
  effect {
    p.active = true
  }
}
phase count_before {
  for each p in players {
    p.seen += 1
  }
  news "before {size(players)}"
}
phase returning: run back
phase count_after {
  news "after {size(players)}"
}
report {
  seen = me.seen
  template "roll.report.j2"
}
'''


@pytest.fixture(scope="module")
def roll(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    base = tmp_path_factory.mktemp("roll")
    return load_text(base, RULES, "{{ seen }}\n", "roll", base / "cache")


def names(g: Game) -> list[str]:
    return [p.name for p in g.players()]


def test_a_player_who_quits_is_gone_from_players_at_once_and_one_brought_back_is_there(roll: Loaded) -> None:
    g = roll.new_game(players=3)
    assert len(names(g)) == 3
    g.process_turn([("b.txt", "2\nB\nQUIT\n")])
    assert g.news_items() == ["before 2", "after 2"]
    assert names(g) == [g.all_players[0].name, g.all_players[2].name]
    # A phase that sets `active` again is seen by the next phase of the same turn.
    g.process_turn([("a.txt", f"1\nA\nBACK,{g.all_players[1].name}\n")])
    assert g.news_items() == ["before 2", "after 3"]
    assert names(g) == [p.name for p in g.all_players]


def test_players_follows_active_set_from_python_and_players_added(roll: Loaded) -> None:
    g = roll.new_game(players=3)
    first = g.players()
    g.all_players[0].active = False
    assert names(g) == [p.name for p in g.all_players[1:]]
    g.all_players[0].active = True
    assert g.players() == first
    newcomer = type(g.all_players[0])("9", 9)
    newcomer.name = "Nine"
    g.all_players.append(newcomer)
    assert names(g)[-1] == "Nine"
    g.all_players = g.all_players[:2]
    assert len(g.players()) == 2


def test_the_list_given_out_is_the_callers_own(roll: Loaded) -> None:
    g = roll.new_game(players=3)
    taken = g.players()
    taken.pop()
    taken.append(taken[0])
    assert names(g) == [p.name for p in g.all_players]


def test_a_loaded_state_gives_the_players_active_in_it(roll: Loaded, tmp_path: Path) -> None:
    g = roll.new_game(players=3)
    assert len(g.players()) == 3
    g.all_players[1].active = False
    again = load(g.spec, dump(g))
    assert names(again) == [g.all_players[0].name, g.all_players[2].name]
