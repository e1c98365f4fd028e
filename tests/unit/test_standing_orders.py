"""Tiny rulesets played end to end -> packed digits, once sets shared by kinds, standing orders kept from turn
to turn (replaced, cancelled, listed in the report, through the state file), and phases `at start`."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rulesdsl.game.folder import GameError, GameFolder
from tests.unit.rulestools import write_ruleset

RULES = '''ruleset "Air Bridge" { turn "turn" }
param most_step: int = 8
param generate: bool = true

thing Base keyed by code {
  planes: int = 0
  moved: int = 0
}
data Base(code, planes) {
  B1: 9
  B2: 0
  B3: 4
}
player {
  fuel: money = 50
  spying: int = 0
  steps: list of int
  luck: int = 0
}
world { seeded: int = 0 }
orders {
  header "{account}", "{code}"
  at most 3 per turn
  pay from fuel
}
order fly "F {base} {dest} {planes}" {
  base: Base
  dest: Base
  planes: 0..9
  valid base != dest else "a flight goes somewhere else"
  once per turn per base as base_order
  standing per base until planes == 0
  require base.planes >= planes else "{base.code} has only {base.planes} planes"
  cost money(1)
  effect {
    base.planes -= planes
    dest.planes += planes
  }
}
order guard "G {base}" {
  base: Base
  once per turn per base as base_order
  effect { base.moved += 100 }
}
order spy "I {target} {amount}" {
  target: Player
  amount: 0..20
  standing until target != me or amount == 0
  effect {
    if target == me { me.spying += amount }
  }
}
order march "M {base} {route}" {
  base: Base
  route: digits 0..most_step
  effect {
    me.steps = route
    base.moved += size(route)
  }
}
phase world_making at start when generate {
  world.seeded = roll(1000000, "world")
  for each p in players { p.luck = roll(100, "luck") }
}
phase flights: run fly
phase guards: run guard
phase spies: run spy
phase marches: run march
report {
  fuel = me.fuel
  spying = me.spying
  steps = me.steps
  luck = me.luck
  seeded = world.seeded
  planes = [b.planes for b in Base]
  template "t.report.j2"
}
'''
TEMPLATE = '''fuel {{ fuel }} spying {{ spying }} luck {{ luck }} seeded {{ seeded }} steps {{ steps }}
planes {{ planes }}
{% for o in orders.used %}used {{ o.line }} {{ o.text }}: {{ o.status }} {{ "(%s)" % o.reason if o.reason else "" }}
{% endfor %}{% for o in orders.refused %}refused {{ o.line }} {{ o.text }}: {{ o.reason }}
{% endfor %}{% for t in orders.standing %}standing {{ t }}
{% endfor %}{% for t in orders.on_file %}on file {{ t }}
{% endfor %}'''


def start(tmp: Path, seed: int = 1, rules: str = RULES, template: str = TEMPLATE, **extra: object) -> GameFolder:
    path = write_ruleset(tmp / "rules", rules, template)
    scenario = tmp / f"scenario-{seed}.yaml"
    scenario.write_text(yaml.safe_dump({
        "seed": seed, "players": [{"name": "Ann", "account": "ann", "code": "A1"},
                                  {"name": "Bob", "account": "bob", "code": "B1"}], **extra}), encoding="utf-8")
    return GameFolder.create(path, tmp / f"game-{seed}", scenario, None)


def turn(folder: GameFolder, tmp: Path, *lines: str) -> tuple[str, dict[str, object]]:
    """Plays a turn with Ann's lines; her report, and the state after it."""
    mail = tmp / "ann.txt"
    mail.write_text("\n".join(["ann", "A1", *lines]) + "\n", encoding="utf-8")
    result = folder.process_turn([mail], force=True)
    state = yaml.safe_load((result.folder / "state.yaml").read_text(encoding="utf-8"))
    return (result.folder / "reports" / "ann-ann.txt").read_text(encoding="utf-8"), state


def test_packed_digits_read_one_number_each_within_the_bounds(tmp_path: Path) -> None:
    folder = start(tmp_path)
    report, state = turn(folder, tmp_path, "M B1 0011", "M B2 0019", "M B3 00x1", "M B3 ")
    assert "used 3 M B1 0011: done" in report
    assert "steps [0, 0, 1, 1]" in report
    assert 'refused 4 M B2 0019: route must be digits from 0 to 8, written together, not "0019"' in report
    assert 'refused 5 M B3 00x1: route must be digits from 0 to 8, written together, not "00x1"' in report
    assert state["Base"]["B1"]["moved"] == 4


def test_a_parameter_bound_of_digits_is_read_from_the_scenario(tmp_path: Path) -> None:
    folder = start(tmp_path, parameters={"most_step": 9})
    report, _ = turn(folder, tmp_path, "M B1 0919")
    assert "steps [0, 9, 1, 9]" in report


def test_a_parameter_bound_past_one_digit_is_refused_when_the_game_starts(tmp_path: Path) -> None:
    # It once let no more digits through; a scenario's mistake is now said where it was made.
    with pytest.raises(GameError, match=r"\$\.parameters\.most_step: `route` of order `march` .* not 12"):
        start(tmp_path, parameters={"most_step": 12})


def test_a_once_set_refuses_a_second_order_of_another_kind_for_the_same_value(tmp_path: Path) -> None:
    folder = start(tmp_path)
    report, _ = turn(folder, tmp_path, "F B1 B2 3", "G B1", "G B3")
    assert "used 3 F B1 B2 3: done" in report
    assert 'refused 4 G B1: there is already an order for base B1 this turn: line 3 "F B1 B2 3"' in report
    assert "used 5 G B3: done" in report


def test_an_order_without_as_keeps_its_own_once(tmp_path: Path) -> None:
    rules = RULES.replace("  once per turn per base as base_order\n  effect { base.moved += 100 }",
                          "  once per turn per base\n  effect { base.moved += 100 }")
    folder = start(tmp_path, rules=rules)
    report, _ = turn(folder, tmp_path, "F B1 B2 3", "G B1", "G B1")
    assert "used 4 G B1: done" in report
    assert "refused 5 G B1: this order may be given once per turn for the same base" in report


def test_a_standing_order_runs_every_turn_until_cancelled(tmp_path: Path) -> None:
    folder = start(tmp_path)
    report, state = turn(folder, tmp_path, "F B1 B2 2")
    assert "standing F B1 B2 2" in report
    assert state["engine"]["standing"] == {"ann": [{"order": "fly", "text": "F B1 B2 2"}]}
    # Turn 2: no order given, the flight runs again (line 0), and pays its cost again.
    report, state = turn(folder, tmp_path)
    assert "used 0 F B1 B2 2: done" in report
    assert state["Base"]["B2"]["planes"] == 4 and state["players"][0]["fuel"] == 48
    # Turn 3: `F B1 B2 0` cancels it: it runs once (moving nothing) and nothing stands after it.
    report, state = turn(folder, tmp_path, "F B1 B2 0")
    assert "used 3 F B1 B2 0: done" in report and "used 0" not in report
    assert "standing" not in report
    assert "standing" not in state["engine"]
    report, state = turn(folder, tmp_path)
    assert "used" not in report and state["Base"]["B2"]["planes"] == 4


def test_a_new_order_with_the_same_key_replaces_the_standing_one_in_its_place(tmp_path: Path) -> None:
    folder = start(tmp_path)
    turn(folder, tmp_path, "F B1 B2 1", "F B3 B2 1")
    report, state = turn(folder, tmp_path, "F B1 B3 2")
    # The replaced order does not also run as it stood; the other one does.
    assert "used 0 F B3 B2 1: done" in report and "used 0 F B1 B2 1" not in report
    assert "used 3 F B1 B3 2: done" in report
    assert report.index("standing F B1 B3 2") < report.index("standing F B3 B2 1")
    assert [o["text"] for o in state["engine"]["standing"]["ann"]] == ["F B1 B3 2", "F B3 B2 1"]


def test_a_standing_order_that_fails_its_require_still_stands(tmp_path: Path) -> None:
    folder = start(tmp_path)
    turn(folder, tmp_path, "F B3 B2 4")  # B3 has 4 planes: they fly; next turn it has none
    report, _ = turn(folder, tmp_path)
    assert "used 0 F B3 B2 4: failed (B3 has only 0 planes)" in report
    assert "standing F B3 B2 4" in report


def test_a_standing_order_no_longer_valid_ends_with_its_reason(tmp_path: Path) -> None:
    # A scenario-free way to make it invalid: the rules' `valid` reads the state, which a turn changes.
    rules = RULES.replace('valid base != dest else "a flight goes somewhere else"',
                          'valid base.moved < 100 else "{base.code} is guarded"')
    folder = start(tmp_path, rules=rules)
    turn(folder, tmp_path, "F B1 B2 1")
    turn(folder, tmp_path, "G B1")  # the standing flight runs again, and B1 is guarded after the turn
    report, state = turn(folder, tmp_path)
    assert "refused 0 F B1 B2 1: B1 is guarded: the standing order ends" in report
    assert "standing" not in state["engine"]


def test_repeats_take_no_place_among_the_turns_orders(tmp_path: Path) -> None:
    folder = start(tmp_path)
    turn(folder, tmp_path, "F B1 B2 1", "F B3 B2 1", "I ann 2")
    report, _ = turn(folder, tmp_path, "M B1 1", "M B2 1", "M B3 1", "M B1 2")
    # Three standing orders ran again, and three new ones were still taken (`at most 3 per turn`).
    assert report.count("used 0 ") == 3
    assert "used 5 M B3 1: done" in report and "on file M B1 2" in report


def test_counter_espionage_stands_until_spying_on_someone_else(tmp_path: Path) -> None:
    folder = start(tmp_path)
    report, _ = turn(folder, tmp_path, "I ann 3")
    assert "standing I ann 3" in report and "spying 3" in report
    report, _ = turn(folder, tmp_path)
    assert "spying 6" in report
    # Spying on Bob is carried out, and cancels the standing counter-espionage (`standing` alone: one a player).
    report, state = turn(folder, tmp_path, "I bob 5")
    assert "used 3 I bob 5: done" in report and "used 0" not in report and "spying 6" in report
    assert "standing" not in state["engine"]


def test_standing_orders_survive_a_saved_and_loaded_state_byte_for_byte(tmp_path: Path) -> None:
    folder = start(tmp_path)
    turn(folder, tmp_path, "F B1 B2 1", "I ann 1")
    from rulesdsl.runtime.state import dump, load

    game = folder.load_game()
    assert game.standing == {"ann": [("fly", "F B1 B2 1"), ("spy", "I ann 1")]}
    again = load(game.spec, dump(game))
    assert again.standing == game.standing and dump(again) == dump(game)


def test_a_standing_order_of_an_unknown_kind_in_a_state_is_refused_with_its_path(tmp_path: Path) -> None:
    from rulesdsl.runtime.state import StateError, dump, load

    folder = start(tmp_path)
    turn(folder, tmp_path, "F B1 B2 1")
    data = dump(folder.load_game())
    data["engine"]["standing"]["ann"][0]["order"] = "march"
    with pytest.raises(StateError, match=r"\$\.engine\.standing\.ann\[0\]\.order: 'march' is not a standing order"):
        load(folder.load_game().spec, data)


def test_a_start_phase_draws_the_same_world_for_the_same_seed(tmp_path: Path) -> None:
    a = start(tmp_path / "a", seed=5)
    b = start(tmp_path / "b", seed=5)
    c = start(tmp_path / "c", seed=6)

    def made(folder: GameFolder) -> tuple[bytes, str]:
        turn0 = folder.root / "turns" / "turn-000"
        return (turn0 / "state.yaml").read_bytes(), (turn0 / "reports" / "ann-ann.txt").read_text(encoding="utf-8")

    assert made(a) == made(b)
    assert made(a)[0] != made(c)[0]
    state = yaml.safe_load(made(a)[0])
    # The starting reports show the world the phase made.
    assert state["world"]["seeded"] > 0 and f"seeded {state['world']['seeded']}" in made(a)[1]
    assert all(1 <= p["luck"] <= 100 for p in state["players"])


def test_a_start_phase_is_skipped_by_its_when_and_never_runs_in_a_turn(tmp_path: Path) -> None:
    folder = start(tmp_path, parameters={"generate": False}, world={"seeded": 7})
    report, state = turn(folder, tmp_path)
    assert state["world"]["seeded"] == 7 and "seeded 7" in report
    made = start(tmp_path / "made")
    seeded = yaml.safe_load((made.root / "turns" / "turn-000" / "state.yaml").read_text())["world"]["seeded"]
    _, state = turn(made, tmp_path)
    assert state["world"]["seeded"] == seeded


def test_a_start_phase_that_fails_makes_no_game_and_names_its_line(tmp_path: Path) -> None:
    rules = RULES.replace('world.seeded = roll(1000000, "world")', "world.seeded = 1 div (world.seeded - world.seeded)")
    with pytest.raises(GameError, match=r"the game was not made: .*t\.rules:\d+: division by zero \(in phase "
                                        r"world_making\)"):
        start(tmp_path, rules=rules)
    assert not (tmp_path / "game-1").exists()


def test_digits_shadow_only_digits_within_their_bounds(tmp_path: Path) -> None:
    from tests.unit.rulestools import BASE, check_text

    wide = 'order go "GO {r}" {\n r: digits 0..8\n}\norder step "GO {s}" {\n s: digits 1..3\n}\n'
    checked = check_text(tmp_path / "a", BASE + wide + "phase q: run go\nphase q2: run step\n")
    assert [d.code for d in checked.diagnostics] == ["E0421"]
    # A number may be too long to read for a run of digits, and digits read no number above 9 as one.
    mixed = 'order go "GO {r}" {\n r: int\n}\norder step "GO {s}" {\n s: digits 1..3\n}\n'
    checked = check_text(tmp_path / "b", BASE + mixed + "phase q: run go\nphase q2: run step\n")
    assert [d.code for d in checked.diagnostics] == []
    word = 'order go "GO {r}" {\n r: digits 0..8\n}\norder step "GO 12" {\n}\n'
    checked = check_text(tmp_path / "c", BASE + word + "phase q: run go\nphase q2: run step\n")
    assert [d.code for d in checked.diagnostics] == ["E0421"]


def test_orders_of_a_standing_kind_carry_their_digits_into_orders_of_kind(tmp_path: Path) -> None:
    from tests.unit.rulestools import BASE, check_text

    extra = ('order go "GO {r}" {\n r: digits 0..8\n standing\n}\nphase q: run go\n'
             "phase count {\n for each o in orders(go) { o.player.moves += size(o.r) + o.r[0] }\n}\n")
    checked = check_text(tmp_path, BASE + extra)
    assert checked.ok and not checked.diagnostics


def test_a_turn_whose_phase_does_not_run_keeps_the_standing_order_and_files_the_new_one(tmp_path: Path) -> None:
    rules = RULES.replace("phase flights: run fly", "phase flights when turn != 2: run fly")
    folder = start(tmp_path, rules=rules)
    turn(folder, tmp_path, "F B1 B2 1")
    # Turn 2 runs no flight: the standing one stays as it stands (not on file); the new one goes on file.
    report, state = turn(folder, tmp_path, "F B1 B3 2")
    assert "used" not in report and "on file F B1 B3 2" in report and "on file F B1 B2 1" not in report
    assert [o["text"] for o in state["engine"]["standing"]["ann"]] == ["F B1 B2 1"]
    # Turn 3: the filed order is taken and replaces the standing one, which does not also run.
    report, state = turn(folder, tmp_path)
    assert "used 0 F B1 B3 2: done" in report and "F B1 B2 1" not in report
    assert [o["text"] for o in state["engine"]["standing"]["ann"]] == ["F B1 B3 2"]


WARLORD = '''ruleset "Warlord orders" { turn "turn" }

thing City keyed by number {
  owner: Player?
  fighters: int = 0
  bombers: int = 0
}
data City(number, fighters, bombers) {
  C123: 9, 9
  C32: 0, 0
}
player {
  pp: money = 50
  counter_spying: money = 0
}
orders {
  header "{account}", "{code}"
  pay from pp
}

# F 123 32 23: 2 fighters and 3 bombers from airbase 123 to airbase 32, every turn; F 123 0 0 cancels.
order stop_flying "F {base} 0 0" {
  base: City
  standing per base as flights until true
}
order fly "F {base} {dest} {planes}" {
  base: City
  dest: City
  planes: digits 0..9
  valid size(planes) == 2 else "write the fighters, then the bombers, like 23"
  standing per base as flights
  require base.owner == me else "you do not own airbase {base}"
  require base.fighters >= planes[0] and base.bombers >= planes[1] else "airbase {base} has too few aircraft"
  effect {
    base.fighters -= planes[0]
    base.bombers -= planes[1]
    dest.fighters += planes[0]
    dest.bombers += planes[1]
  }
}

# I 34 20 spies on player 34 once; I 10 3 (yourself) spends 3 a turn on counter-espionage until I 10 0
# or a spy order on someone else.
order investigate "I {target} {amount}" {
  target: Player
  amount: money from 0
  standing until target != me or amount == money(0)
  cost amount
  effect {
    if target == me {
      me.counter_spying = amount
    }
  }
}
phase flights {
  run stop_flying
  run fly
}
phase spying: run investigate
report {
  pp = me.pp
  template "w.j2"
}
'''


def test_a_standing_set_lets_an_order_of_another_syntax_cancel_warlords_flights(tmp_path: Path) -> None:
    scenario = {"City": {"C123": {"owner": "ann"}}}
    rules = WARLORD.replace('template "w.j2"', 'template "t.report.j2"')
    rules = rules.replace("  pp = me.pp\n", "  pp = me.pp\n  planes = [[c.fighters, c.bombers] for c in City]\n")
    template = "pp {{ pp }} planes {{ planes }}\n" + TEMPLATE.split("\n", 2)[2]
    folder = start(tmp_path, rules=rules, template=template, **scenario)
    report, _ = turn(folder, tmp_path, "F C123 C32 23", "I ann 3")
    assert "standing F C123 C32 23" in report and "standing I ann 3" in report
    report, state = turn(folder, tmp_path)
    assert state["City"]["C32"] == {"owner": None, "fighters": 4, "bombers": 6}
    assert state["players"][0]["pp"] == 50 - 3 - 3
    # `F C123 0 0` reads as stop_flying (declared first: `0` is no city), of the set `flights`: it cancels.
    report, state = turn(folder, tmp_path, "F C123 0 0", "I ann 0")
    assert "used 3 F C123 0 0: done" in report and "used 0" not in report
    assert "standing" not in report and "standing" not in state["engine"]
    assert state["City"]["C32"]["fighters"] == 4


def test_a_once_set_names_a_run_of_digits_as_written(tmp_path: Path) -> None:
    rules = RULES.replace("  route: digits 0..most_step\n", "  route: digits 0..most_step\n"
                          "  once per turn per route as routes\n")
    rules = rules.replace('order march "M {base} {route}" {', 'order hike "H {route}" {\n  route: digits 0..8\n'
                          "  once per turn per route as routes\n}\n" + 'order march "M {base} {route}" {')
    rules = rules.replace("phase marches: run march", "phase marches: run march\nphase hikes: run hike")
    folder = start(tmp_path, rules=rules)
    report, _ = turn(folder, tmp_path, "M B1 0011", "H 0011")
    assert 'refused 4 H 0011: there is already an order for route 0011 this turn: line 3 "M B1 0011"' in report
