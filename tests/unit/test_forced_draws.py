"""A scenario's `draws:` (runtime/draws.py, runtime/forced.py) -> games whose first draws are the values forced."""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from rulesdsl.game.errors import GameError
from rulesdsl.game.folder import GameFolder, yaml_bytes
from rulesdsl.game.history import read_history
from rulesdsl.game.store import rollback, status, status_text
from rulesdsl.runtime import draws, generate
from rulesdsl.runtime.core import RulesError
from rulesdsl.runtime.forced import Forced, ForcedDrawError, ForcedStream, this_turn
from rulesdsl.runtime.state import StateError, dump, load
from tests.unit.rulestools import Loaded, load_text, write_ruleset

RULES = '''ruleset "D" { version "1" turn "turn" }
thing Country keyed by code { name: text }
data Country(code, name) {
  USA: "America"
  MEX: "Mexico"
}
thing Force numbered per owner { size: int = 1 }
thing Battle numbered { size: int = 1 }
world {
  rolls: list of int
  hits: list of bool
  picks: list of text
  mixed: list of text
  loot: list of int
  made: list of int
}
table loot -> int weighted { 50%: 0, 30%: 5, 20%: 10 }
phase setup at start {
  add roll(6, "setup") to world.made
}
phase dice {
  world.rolls = []
  world.hits = []
  world.picks = []
  world.loot = []
  add roll(10, "dice") to world.rolls
  add roll(10, "dice") to world.rolls
  add roll(10, "dice") to world.rolls
  add roll(10, "dice", Country.USA) to world.rolls
  add roll(10, "dice", Country.USA) to world.rolls
  add roll(10, "dice", Country.MEX) to world.rolls
  add chance(30, "hit") to world.hits
  add chance(30, "hit", Country.USA, 3) to world.hits
  let p = pick(["a", "b", "c"], "pick")
  if p != none {
    add p to world.picks
  }
  world.mixed = shuffle(["a", "b", "c", "d"], "mix")
  add draw(loot, "loot") to world.loot
  add draw(loot, "loot") to world.loot
}
report {
  rolls = world.rolls
  template "d.report.j2"
}
'''
TEMPLATE = "{{ rolls }}\n"


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    base = tmp_path_factory.mktemp("draws")
    return load_text(base, RULES, TEMPLATE, "d", base / "cache")


def play(loaded: Loaded, draws: list[dict[str, Any]] | None = None, turns: int = 1) -> Any:
    extra = {"seed": 5} | ({"draws": draws} if draws is not None else {})
    g = loaded.new_game(1, **extra)
    for _ in range(turns):
        g.process_turn([])
    return g


def seen(g: Any) -> dict[str, list[Any]]:
    w = g.world
    return {"rolls": w.rolls, "hits": w.hits, "picks": w.picks, "mixed": w.mixed, "loot": w.loot, "made": w.made}


def test_unforced_draws_are_the_seeds(loaded: Loaded) -> None:
    # The values the forced runs below are compared with: none of them is what a test forces.
    assert seen(play(loaded)) == {"rolls": [2, 4, 7, 1, 6, 4], "hits": [False, False], "picks": ["c"],
                                  "mixed": ["b", "a", "c", "d"], "loot": [5, 0], "made": [6]}


def test_a_forced_roll_is_returned_and_the_draws_after_it_are_unmoved(loaded: Loaded) -> None:
    got = seen(play(loaded, [{"turn": 1, "stream": "dice", "values": [9]}]))
    assert got["rolls"] == [9, 4, 7, 1, 6, 4]  # only the first draw of the stream; the next ones as unforced
    assert got | {"rolls": None} == seen(play(loaded)) | {"rolls": None}


def test_forcing_one_key_leaves_the_other_keys_and_no_key_alone(loaded: Loaded) -> None:
    got = seen(play(loaded, [{"turn": 1, "stream": "dice", "keys": ["Country:usa"], "values": [5, 9]}]))
    assert got["rolls"] == [2, 4, 7, 5, 9, 4]
    got = seen(play(loaded, [{"turn": 1, "stream": "dice", "keys": ["Country:MEX"], "values": [10]}]))
    assert got["rolls"] == [2, 4, 7, 1, 6, 10]


def test_forced_chance_with_and_without_keys(loaded: Loaded) -> None:
    # A chance takes a roll of 1..100 and is true when it is at most P (30 here).
    got = seen(play(loaded, [{"turn": 1, "stream": "hit", "values": [30]},
                             {"turn": 1, "stream": "hit", "keys": ["Country:USA", 3], "values": [1]}]))
    assert got["hits"] == [True, True]
    got = seen(play(loaded, [{"turn": 1, "stream": "hit", "keys": ["Country:USA", "int:3"], "values": [31]}]))
    assert got["hits"] == [False, False]


def test_forced_pick_shuffle_and_weighted_draw(loaded: Loaded) -> None:
    got = seen(play(loaded, [{"turn": 1, "stream": "pick", "values": [1]},
                             {"turn": 1, "stream": "mix", "values": [[4, 3, 2, 1]]},
                             {"turn": 1, "stream": "loot", "values": [3]}]))
    assert (got["picks"], got["mixed"], got["loot"]) == (["a"], ["d", "c", "b", "a"], [10, 0])


def test_a_forced_draw_at_the_start_and_in_a_later_turn_only(loaded: Loaded) -> None:
    g = play(loaded, [{"turn": 0, "stream": "setup", "values": [2]}, {"turn": 2, "stream": "dice", "values": [8]}])
    assert seen(g)["made"] == [2] and seen(g)["rolls"][0] == 2
    g.process_turn([])
    assert seen(g)["rolls"][0] == 8


@pytest.mark.parametrize(("entry", "message"), [
    ({"stream": "dice", "values": [11]}, "$.draws[0].values[0]: 11 is not a roll of 1..10"),
    ({"stream": "hit", "values": [0]}, "$.draws[0].values[0]: 0 is not a roll of 1..100"),
    ({"stream": "pick", "values": [4]}, "$.draws[0].values[0]: 4 is not the place of an item of a list of 3 (1..3)"),
    ({"stream": "mix", "values": [[1, 2, 2, 3]]}, "$.draws[0].values[0]: [1, 2, 2, 3] is not an order of a list of 4"),
    ({"stream": "loot", "values": [4]}, "$.draws[0].values[0]: 4 is not a row of a weighted table of 3 rows"),
])
def test_a_forced_value_out_of_range_stops_the_turn_naming_the_entry(loaded: Loaded, entry: dict[str, Any],
                                                                     message: str) -> None:
    g = loaded.new_game(1, seed=5, draws=[{"turn": 1, **entry}])
    with pytest.raises(RulesError, match="phase dice") as e:
        g.process_turn([])
    assert message in str(e.value)


def test_an_entry_never_drawn_stops_the_turn(loaded: Loaded) -> None:
    g = loaded.new_game(1, seed=5, draws=[{"turn": 1, "stream": "dice", "values": [1, 2, 3, 4]},
                                          {"turn": 1, "stream": "dice", "keys": ["text:nobody"], "values": [1]}])
    with pytest.raises(RulesError) as e:
        g.process_turn([])
    assert "forced draws were never drawn this turn: $.draws[0].values[3] (4), $.draws[1].values[0] (1)" in str(e.value)


def test_the_scenario_is_checked_against_the_ruleset(loaded: Loaded) -> None:
    with pytest.raises(StateError) as e:
        loaded.new_game(1, draws=[
            {"turn": 1, "stream": "dize", "keys": ["USA", "Country:XX", "Box:1"], "values": [1]},
            {"turn": -1, "stream": "dice", "values": ["a"]},
            {"turn": 1, "stream": "dice", "keys": ["Player:nobody"], "values": [1], "when": 3},
        ])
    assert str(e.value).splitlines() == [
        "$.draws[0].stream: the ruleset draws nothing from stream 'dize'; did you mean dice?",
        "$.draws[0].keys[0]: 'USA' is not a key: write KIND:KEY (a thing's name and key, Country:USA; "
        "Player:ACCOUNT; Force:ann/12), a whole number, or text:WORDS; did you mean Country:USA?",
        "$.draws[0].keys[1]: Country has no key 'XX'",
        "$.draws[0].keys[2]: 'Box' is no kind of key (a thing, Player, text, int or bool)",
        "$.draws[1].turn: turn -1 is before the game's start (turn 0); it would never come",
        "$.draws[1].values[0]: expected a whole number (or, for a shuffle, a list of them), not 'a'",
        "$.draws[2].when: no such key; an entry has turn, stream, keys and values",
        "$.draws[2].keys[0]: no player has account 'nobody'",
    ]


def test_the_state_keeps_the_draws_for_later_turns(loaded: Loaded) -> None:
    draws = [{"turn": 2, "stream": "dice", "keys": ["Country:usa"], "values": [3]},
             {"turn": 2, "stream": "mix", "values": [[2, 1, 4, 3]]}]
    g = play(loaded, draws)
    data = dump(g)
    assert data["engine"]["draws"] == [{"turn": 2, "stream": "dice", "keys": ["Country:USA"], "values": [3]},
                                       {"turn": 2, "stream": "mix", "values": [[2, 1, 4, 3]]}]
    again = load(loaded.spec, yaml.safe_load(yaml_bytes(data)), str(loaded.module.__file__))
    again.process_turn([])
    assert seen(again)["rolls"][3] == 3 and seen(again)["mixed"] == ["b", "a", "d", "c"]
    assert dump(again) == dump(play(loaded, draws, turns=2))
    assert "draws" not in dump(play(loaded))["engine"]  # a game with none writes its state as before


def test_a_game_folder_with_forced_draws_records_them_in_its_history(tmp_path: Path) -> None:
    rules = write_ruleset(tmp_path / "rules", RULES, TEMPLATE, "d")
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(yaml.safe_dump({"seed": 5, "players": [{"name": "Ann", "account": "ann", "code": "A1"}],
                                        "draws": [{"turn": 2, "stream": "dice", "values": [10]}]}), encoding="utf-8")
    folder = GameFolder.create(rules, tmp_path / "game", scenario, None)
    assert "A test game: its scenario forces draws of turn(s) 2 " in status_text(status(tmp_path / "game"))
    folder.process_turn([], force=True)
    result = folder.process_turn([], force=True)
    assert "[10, " in (result.folder / "reports" / "ann-ann.txt").read_text(encoding="utf-8")
    assert read_history(tmp_path / "game") == [
        {"action": "new", "turn": 0, "test": "forced draws", "draws": 1},
        {"action": "draws", "turn": 2, "forced": ["$.draws[0]"]},
    ]
    assert "A test game" not in status_text(status(tmp_path / "game"))  # no forced draw is still to come
    # Rolled back, the turn's forced draws are no GM action to do again: the turn run again forces them.
    assert rollback(tmp_path / "game")[2] == []
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({"players": [{"name": "Ann", "account": "ann", "code": "A1"}],
                                   "draws": [{"turn": 1, "stream": 3, "values": []}]}), encoding="utf-8")
    with pytest.raises(GameError) as e:
        GameFolder.create(rules, tmp_path / "game2", bad, None)
    assert "bad.yaml: $.draws[0].stream: 3 is not of type 'string'" in str(e.value)
    assert not (tmp_path / "game2").exists()


def test_the_world_generation_builtins_streams_cannot_be_forced() -> None:
    # They draw hundreds of numbers for one result: a stream only they draw from is refused by `new`, and a
    # forced stream one of them meets (it shares its name with a roll's) stops the turn.
    spec = SimpleNamespace(streams=(("world", ("continents", "patches")), ("cities", ("roll", "scatter"))))
    errors: list[StateError] = []
    draws.read(SimpleNamespace(spec=spec), [{"turn": 1, "stream": "world", "values": [1]},
                                            {"turn": 1, "stream": "cities", "values": [1]}], 0, errors)
    assert [str(e) for e in errors] == [
        "$.draws[0].stream: stream 'world' is drawn only by continents, patches, whose draws cannot be forced "
        "(only chance, roll, pick, shuffle and draw)"]
    entry = Forced(1, 1, "cities", (), (1,))
    stream = ForcedStream(random.Random(1), this_turn([entry], 1)["cities"])
    with pytest.raises(ForcedDrawError, match=r"\$\.draws\[1\]\.values\[0\]: scatter draws from this stream"):
        generate.scatter(None, stream, [], 1, 1)


@pytest.mark.parametrize(("key", "text"), [
    ("Force:1/12", "Force:1/12"), ("Battle:3", "Battle:3"), ("country:usa", None), ("Country:usa", "Country:USA"),
    ("Player:1", "Player:1"), (7, "int:7"), ("int:07", "int:7"), ("text:a b", "text:a b"), (True, "bool:yes"),
    (None, "none"), ("Force:12", None), ("Battle:1/3", None), ("Force:9/1", None), ("Battle:x", None),
])
def test_keys_are_written_as_state_files_write_them(loaded: Loaded, key: Any, text: str | None) -> None:
    g = loaded.new_game(1)
    errors: list[StateError] = []
    assert draws.key_of(g, key, "$.k", errors) == text
    assert bool(errors) == (text is None)
