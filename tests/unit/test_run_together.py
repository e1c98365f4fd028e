"""Tiny rulesets played end to end -> `run a, b together` (one round robin over several kinds, each player's
orders in the order taken) and `halt "REASON"` (no game made, or the turn not processed, the GM told why)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from rulesdsl.game.folder import GameError, GameFolder
from tests.unit.rulestools import ROOT, check_text, show, write_ruleset

RULES = '''ruleset "Boxes" { turn "turn" }
secret param most_players: int = 3
param room: int = 100

thing Box keyed by code {
  stones: int = 0
}
data Box(code, stones) {
  A: 0
  B: 0
}
player {
  cash: money = 10
}
world {
  seq: list of text reset each turn
  puts: list of int reset each turn
  takes: list of int reset each turn
  total: int = 0
}
orders {
  header "{account}", "{code}"
  at most 4 per turn
}
order put "P {box} {n}" {
  box: Box
  n: 1..9
  effect {
    box.stones += n
    add "P{n}" to world.seq
  }
}
order take "T {box} {n}" {
  box: Box
  n: 1..9
  require box.stones >= n else "{box.code} has only {box.stones} stones"
  effect {
    box.stones -= n
    add "T{n}" to world.seq
  }
}
order keep "K {box} {n}" {
  box: Box
  n: 1..9
  standing per box
  effect { add "K{n}" to world.seq }
}
procedure count_players() {
  if size(players) > most_players {
    halt "there is room for {most_players} players, not {size(players)}"
  }
}
procedure overflow() {
  if world.total > room {
    halt "the boxes hold {world.total} stones, more than {room}"
  }
}
phase make at start {
  count_players()
}
phase moves: run put, take, keep together
phase tally {
  world.puts = [o.n for o in orders(put)]
  world.takes = [o.n for o in orders(take)]
  world.total = sum(b.stones for b in Box)
  overflow()
}
report {
  seq = world.seq
  template "t.report.j2"
}
'''
TEMPLATE = '''seq {{ seq }}
{% for o in orders.used %}used {{ o.line }} {{ o.text }}: {{ o.status }}{{ " (%s)" % o.reason if o.reason else "" }}
{% endfor %}{% for t in orders.on_file %}on file {{ t }}
{% endfor %}'''
PLAYERS = [{"name": "Ann", "account": "ann", "code": "A1"}, {"name": "Bob", "account": "bob", "code": "B1"}]


def start(tmp: Path, rules: str = RULES, players: list[dict[str, str]] = PLAYERS, **extra: object) -> GameFolder:
    path = write_ruleset(tmp / "rules", rules, TEMPLATE)
    scenario = tmp / "scenario.yaml"
    scenario.write_text(yaml.safe_dump({"players": players, **extra}), encoding="utf-8")
    return GameFolder.create(path, tmp / "game", scenario, None)


def turn(folder: GameFolder, tmp: Path, ann: list[str], bob: list[str]) -> tuple[str, dict[str, object]]:
    """Plays a turn with Ann's and Bob's lines; Ann's report, and the state after it."""
    files = []
    for account, code, lines in (("ann", "A1", ann), ("bob", "B1", bob)):
        f = tmp / f"{account}.txt"
        f.write_text("\n".join([account, code, *lines]) + "\n", encoding="utf-8")
        files.append(f)
    result = folder.process_turn(files, force=True)
    state = yaml.safe_load((result.folder / "state.yaml").read_text(encoding="utf-8"))
    return (result.folder / "reports" / "ann-ann.txt").read_text(encoding="utf-8"), state


def world(state: dict[str, object]) -> dict[str, object]:
    w = state["world"]
    assert isinstance(w, dict)
    return w


# ---------------------------------------------------------------- run ... together

def test_kinds_run_together_go_round_robin_each_player_in_the_order_written(tmp_path: Path) -> None:
    folder = start(tmp_path)
    ann = ["T A 1", "P A 2", "T B 3"]
    bob = ["P B 5", "P A 6", "T A 7", "P B 8"]
    # Turn 1: Ann first. Her T A 1 fails (box A is empty: her P A 2 comes after it, as she wrote it), Bob's
    # P B 5 follows, then each one's second order, and so on.
    report, state = turn(folder, tmp_path, ann, bob)
    assert world(state)["seq"] == ["P5", "P2", "P6", "T3", "T7", "P8"]
    assert "used 3 T A 1: failed (A has only 0 stones)" in report
    # `orders(KIND)` still lists each kind's orders done, in the order they ran.
    assert world(state)["puts"] == [5, 2, 6, 8]
    assert world(state)["takes"] == [3, 7]
    # Turn 2: Bob goes first, as he would in a `run` of one kind.
    _, state = turn(folder, tmp_path, ann, bob)
    assert world(state)["seq"] == ["P5", "T1", "P6", "P2", "T7", "T3", "P8"]


def test_kinds_run_one_after_the_other_each_go_whole(tmp_path: Path) -> None:
    # The contrast: without `together`, every put is carried out before any take (Ann's T A 1 now finds stones).
    rules = RULES.replace("phase moves: run put, take, keep together",
                          "phase puts: run put\nphase takes: run take\nphase keeps: run keep")
    folder = start(tmp_path, rules=rules)
    _, state = turn(folder, tmp_path, ["T A 1", "P A 2", "T B 3"], ["P B 5", "P A 6", "T A 7", "P B 8"])
    assert world(state)["seq"] == ["P2", "P5", "P6", "P8", "T1", "T7", "T3"]


def test_a_standing_order_run_again_comes_first_then_orders_on_file_then_new_ones(tmp_path: Path) -> None:
    folder = start(tmp_path)
    # Turn 1: Ann's K stands; her fifth line is past `at most 4 per turn` and stays on file.
    report, state = turn(folder, tmp_path, ["P A 1", "K A 9", "P A 2", "P A 3", "P A 4"], [])
    assert world(state)["seq"] == ["P1", "K9", "P2", "P3"]
    assert "on file P A 4" in report
    # Turn 2: the standing K (line 0) runs first, then the order from file, then the new one.
    report, state = turn(folder, tmp_path, ["P B 5"], [])
    assert world(state)["seq"] == ["K9", "P4", "P5"]
    assert report.index("used 0 K A 9: done") < report.index("used 0 P A 4: done") < report.index("used 3 P B 5")


def test_orders_of_a_together_phase_that_does_not_run_go_back_on_file(tmp_path: Path) -> None:
    rules = RULES.replace("phase moves: run put, take, keep together",
                          "phase moves when turn > 1: run put, take, keep together")
    folder = start(tmp_path, rules=rules)
    report, state = turn(folder, tmp_path, ["P A 1", "T A 1"], [])
    assert world(state)["seq"] == []
    assert "on file P A 1" in report and "on file T A 1" in report
    _, state = turn(folder, tmp_path, [], [])
    assert world(state)["seq"] == ["P1", "T1"]


def test_a_together_statement_in_a_phase_block_reads_the_same(tmp_path: Path) -> None:
    rules = RULES.replace("phase moves: run put, take, keep together",
                          "phase moves {\n  run put, take,\n      keep together\n}")
    folder = start(tmp_path, rules=rules)
    _, state = turn(folder, tmp_path, ["T A 1", "P A 2"], ["P B 5"])
    assert world(state)["seq"] == ["P5", "P2"]


def test_together_and_halt_may_still_name_fields_and_locals(tmp_path: Path) -> None:
    rules = RULES.replace("  stones: int = 0\n", "  stones: int = 0\n  together: int = 0\n  halt: int = 0\n", 1)
    rules = rules.replace("    box.stones += n\n", "    let together = n\n    box.together += together\n"
                          "    box.halt = together\n", 1)
    rules = rules.replace("  seq = world.seq\n", "  seq = world.seq\n  halt = [b.halt for b in Box]\n", 1)
    checked = check_text(tmp_path, rules, TEMPLATE)
    assert checked.ok and not checked.diagnostics, show(checked.diagnostics)


# ---------------------------------------------------------------- halt

def test_a_halt_at_start_makes_no_game_and_tells_the_gm_why(tmp_path: Path) -> None:
    four = [*PLAYERS, {"name": "Cy", "account": "cy", "code": "C1"}, {"name": "Di", "account": "di", "code": "D1"}]
    with pytest.raises(GameError) as err:
        start(tmp_path, players=four)
    line = RULES.splitlines().index('    halt "there is room for {most_players} players, not {size(players)}"') + 1
    # The secret parameter is in the text: the GM reads it, no player does.
    assert str(err.value) == (f"the game was not made: t.rules:{line}: halted: there is room for 3 players, not 4 "
                              "(in procedure count_players, while phase make)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rules", "scenario.yaml"]


def test_a_halt_may_show_a_secret_parameter_where_news_may_not(tmp_path: Path) -> None:
    checked = check_text(tmp_path, RULES, TEMPLATE)
    assert checked.ok and not checked.diagnostics, show(checked.diagnostics)
    told = RULES.replace('    halt "there is room for {most_players} players, not {size(players)}"',
                         '    news "there is room for {most_players} players, not {size(players)}"')
    told = told.replace("phase make at start {", "phase make {")
    checked = check_text(tmp_path, told, TEMPLATE)
    assert [d.code for d in checked.diagnostics] == ["E0307"], show(checked.diagnostics)


def test_rulesdsl_new_prints_the_reason_and_exits_as_for_a_bad_scenario(tmp_path: Path) -> None:
    rules = write_ruleset(tmp_path / "rules", RULES, TEMPLATE)
    scenario = tmp_path / "s.yaml"
    four = [*PLAYERS, {"name": "Cy", "account": "cy", "code": "C1"}, {"name": "Di", "account": "di", "code": "D1"}]
    scenario.write_text(yaml.safe_dump({"players": four}), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "rulesdsl", "new", str(rules), str(tmp_path / "game"),
                           "--scenario", str(scenario)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("error: the game was not made: t.rules:")
    assert "halted: there is room for 3 players, not 4" in done.stderr
    assert not (tmp_path / "game").exists()


def test_a_halt_in_a_turn_leaves_the_game_as_it_was(tmp_path: Path) -> None:
    folder = start(tmp_path, parameters={"room": 10})
    _, state = turn(folder, tmp_path, ["P A 4"], [])
    assert world(state)["total"] == 4
    before = sorted(p.relative_to(folder.root) for p in folder.root.rglob("*"))
    # 4 + 9 stones: the tally halts after the orders ran and changed the boxes; none of it is kept.
    with pytest.raises(GameError) as err:
        turn(folder, tmp_path, ["P A 9"], [])
    line = RULES.splitlines().index('    halt "the boxes hold {world.total} stones, more than {room}"') + 1
    assert str(err.value) == ("the turn was not processed, and the game is as it was: "
                              f"t.rules:{line}: halted: the boxes hold 13 stones, more than 10 "
                              "(in procedure overflow, while phase tally)")
    assert sorted(p.relative_to(folder.root) for p in folder.root.rglob("*")) == before
    # The GM can go on with other mail.
    _, state = turn(folder, tmp_path, ["P A 1"], [])
    assert state["turn"] == 2 and world(state)["total"] == 5


def test_a_halt_in_a_phase_before_orders_stops_the_turn_too(tmp_path: Path) -> None:
    rules = RULES.replace("phase make at start {", 'phase check before orders {\n'
                          '  if turn == 2 { halt "turn 2 is not ready" }\n}\nphase make at start {')
    folder = start(tmp_path, rules=rules)
    turn(folder, tmp_path, [], [])
    with pytest.raises(GameError, match=r"t\.rules:\d+: halted: turn 2 is not ready \(in phase check\)$"):
        turn(folder, tmp_path, [], [])


def test_a_kind_run_together_and_again_is_pointed_at_where_it_is_named(tmp_path: Path) -> None:
    rules = RULES.replace("phase make at start {", "phase again: run take\nphase make at start {")
    checked = check_text(tmp_path, rules, TEMPLATE)
    [d] = checked.diagnostics
    line = rules.splitlines().index("phase again: run take") + 1
    # The phase written first runs it; the caret is under `take` in the list of the phase after it.
    assert (d.code, d.span.line, d.span.col) == ("E0413", line + 4, 23)
    assert d.message == f"order `take` is already run at t.rules:{line}:18"


UNITS = '''ruleset "Divisions" { turn "turn" }
thing Division numbered per owner {
  regiments: int = 1
}
player { pp: money = 0 }
orders { header "{account}", "{code}" }
order split "S {unit} {regiments}" {
  unit: Division
  regiments: 1..45
  require unit.regiments > regiments else "division {unit} has only {unit.regiments} regiments"
  effect {
    unit.regiments -= regiments
    new Division(owner: me, regiments: regiments)
  }
}
order link "L {unit} {other}" {
  unit: Division
  other: Division
  valid unit != other else "a division cannot link with itself"
  effect {
    unit.regiments += other.regiments
    destroy other
  }
}
PHASES
report {
  pp = me.pp
  template "t.report.j2"
}
'''


@pytest.mark.parametrize(("phases", "divisions"), [
    # Warlord's step 1: "S 1 4" then "L 2 1" splits division 1, then links what is left of it into division 2.
    ("phase immediate: run split, link together", [(2, 9), (3, 4)]),
    # One kind after the other, every link comes first: division 1 is gone when its split's turn comes.
    ("phase links: run link\nphase splits: run split", [(2, 13)]),
])
def test_numbered_units_split_then_link_as_written(tmp_path: Path, phases: str, divisions: list[tuple[int, int]]
                                                   ) -> None:
    path = write_ruleset(tmp_path / "rules", UNITS.replace("PHASES", phases), TEMPLATE.replace("seq {{ seq }}\n", ""))
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(yaml.safe_dump({"players": PLAYERS, "Division": [
        {"owner": "ann", "number": 1, "regiments": 10}, {"owner": "ann", "number": 2, "regiments": 3}]}),
        encoding="utf-8")
    folder = GameFolder.create(path, tmp_path / "game", scenario, None)
    _, state = turn(folder, tmp_path, ["S 1 4", "L 2 1"], [])
    rows = state["Division"]
    assert isinstance(rows, dict) and rows["columns"] == ["owner", "number", "regiments"]
    assert [(r[1], r[2]) for r in rows["rows"]] == divisions, rows


def test_a_link_reaches_the_division_a_split_made_earlier_in_the_round_robin(tmp_path: Path) -> None:
    phases = "phase immediate: run split, link together"
    path = write_ruleset(tmp_path / "rules", UNITS.replace("PHASES", phases), TEMPLATE.replace("seq {{ seq }}\n", ""))
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(yaml.safe_dump({"players": PLAYERS, "Division": [
        {"owner": "ann", "number": 1, "regiments": 10}, {"owner": "ann", "number": 2, "regiments": 3}]}),
        encoding="utf-8")
    folder = GameFolder.create(path, tmp_path / "game", scenario, None)
    _, state = turn(folder, tmp_path, ["S 1 4", "L 2 3", "L 2 2"], [])
    rows = state["Division"]
    assert isinstance(rows, dict) and [(r[1], r[2]) for r in rows["rows"]] == [(1, 6), (2, 7)], rows
