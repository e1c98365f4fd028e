"""`players` read in place: a small ruleset -> its generated module, where loops, aggregates and `size` go through
the game's own list of active players (Game.players_read), and a value of `players` is a list of its own.
Compared with the plain reading: a loop that makes players leave still visits each one, and a `let` of players
changed by the rules changes nothing of the game's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.rulestools import Loaded, load_text

RULES = '''ruleset "Players" { version "1" turn "turn" }
player {
  cash: money = 10
}
world {
  seen: int = 0
  kept: int = 0
}
orders {
  header "{account}", "{code}"
}
define rich() -> int = count(p for p in players where p.cash > 5)
phase purge {
  for each p in players where p.cash < 5 {
    p.active = false
    world.seen += size(players)
  }
  let some = players
  let gone = first(some)
  if gone != none {
    remove gone from some
  }
  world.kept = size(some) * 100 + size(players)
}
report {
  cash = me.cash
  rich = rich()
  template "players.report.j2"
}
'''


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    tmp = tmp_path_factory.mktemp("players")
    return load_text(tmp / "rules", RULES, "{{ cash }}\n", "players", tmp / "cache")


def test_loops_and_sizes_read_the_games_list_and_values_are_copies(loaded: Loaded) -> None:
    source = Path(str(loaded.module.__file__)).read_text(encoding="utf-8")
    assert "for v_p in g.players_read() if v_p.cash > 5" in source
    assert "for v_p in [v_p for v_p in g.players_read() if v_p.cash < 5]:" in source
    assert "v_some = g.players()" in source
    g = loaded.new_game(players=4)
    _, bob, cid, dee = g.all_players
    bob.cash, cid.cash, dee.cash = 1, 2, 7
    assert loaded.module.fn_rich(g) == 2
    g.process_turn([])
    # Both poor players left, each seeing the players still active then (3, then 2).
    assert [p.active for p in g.all_players] == [True, False, False, True]
    assert g.world.seen == 3 + 2
    # `some` lost Ann; the game's players did not.
    assert g.world.kept == 1 * 100 + 2
    assert [p.name for p in g.players()] == ["Ann", "Dee"]
    assert loaded.module.fn_rich(g) == 2
    g.players().clear()  # a value of its own
    assert len(g.players_read()) == 2
