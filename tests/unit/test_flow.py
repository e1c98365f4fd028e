"""Control flow end to end: a ruleset with procedures that return a value, `return`, `break`, `skip` and
`while` -> its generated module -> turns; and the checker's rules about them (narrowing past an early exit,
what never runs, where a procedure's value may be asked)."""

from __future__ import annotations

import ast
import time
from pathlib import Path
from typing import Any

import pytest

from rulesdsl.codegen import names
from rulesdsl.compiler import compile_path
from rulesdsl.runtime.core import MAX_ROUNDS, RulesError
from rulesdsl.runtime.engine import Game
from tests.unit.rulestools import Loaded, check_text, load_text, show, write_ruleset
from tests.unit.test_codegen_safety import _identifiers

# A border war: a battle procedure draws and returns its outcome, an attack order ends early when there is
# nothing to attack (done, not failed), a march stops at the first sea (`break`) and passes over the
# sectors it already holds (`skip`), supply spreads with `while` until nothing new is reached, and a
# siege repeats for as many rounds as a player's order says, stopping at MAX_ROUNDS.
RULES = '''ruleset "Border" { version "1" turn "turn" }
thing Sector keyed by code {
  name: text
  troops: int = 0
  sea: bool = false
  rank: int = 0
  holder: Player?
  near: set of Sector
  supplied: bool = false
}
data Sector(code, name, troops, sea, rank) {
  A: "Ardenne", 0, false, 1
  B: "Brabant", 3, false, 2
  C: "Calais", 2, false, 3
  D: "Dover", 0, true, 4
  E: "Essex", 1, false, 5
}
links Sector.near { A: B  B: C  C: D  D: E }
define next(s: Sector) -> Sector? = first([x for x in s.near where x.rank > s.rank])
player {
  wins: int = 0
  marched: list of text
  outcomes: list of text
  siege: int = 0
  while: int = 0
}
world { rounds: int = 0  reached: int = 0 }
orders { header "{account}", "{code}" }

procedure fight(s: Sector, p: Player) -> text {
  if s.troops == 0 {
    return "empty"
  }
  for each round in 1..3 {
    if roll(6, "battle") > 3 {
      s.troops -= 1
    }
    if s.troops == 0 {
      s.holder = p
      return "taken"
    }
  }
  return if s.troops > 1 then "repelled" else "undecided"
}

procedure holder_name(s: Sector) -> text {
  let h = s.holder
  if h == none {
    return "nobody"
  }
  return h.name
}

order attack "ATTACK {sector}" {
  sector: Sector
  effect {
    if sector.sea {
      return
    }
    let outcome = fight(sector, me)
    add "{sector.code}:{outcome}" to me.outcomes
    if outcome == "taken" {
      me.wins += 1
    }
    tell me "{sector.name} is held by {holder_name(sector)}"
  }
}

order march "MARCH {start}" {
  start: Sector
  effect {
    let at = next(start)
    while at != none {
      let here = at
      at = next(here)
      if here.sea {
        break
      }
      if here.holder == me {
        skip
      }
      add here.code to me.marched
    }
  }
}

order besiege "SIEGE {n}" {
  n: int
  effect {
    let left = n
    while left > 0 {
      left -= 1
      me.siege += 1
    }
  }
}

phase fighting: run attack
phase marching: run march
phase besieging: run besiege

phase supply {
  let frontier = [Sector.A]
  while size(frontier) > 0 {
    world.rounds += 1
    let found = [s for s in frontier where false]
    for each s in frontier where not s.supplied {
      s.supplied = true
      world.reached += 1
      let n = next(s)
      if n == none or n.sea {
        skip
      }
      add n to found
    }
    frontier = found
  }
}

report {
  wins = me.wins
  template "border.report.j2"
}
'''
TEMPLATE = "{{ wins }}\n"


@pytest.fixture(scope="module")
def border(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    base = tmp_path_factory.mktemp("border")
    return load_text(base, RULES, TEMPLATE, "border", base / "cache")


def submit(g: Game, *lines: str) -> None:
    g.process_turn([("ann.txt", "\n".join(["1", "A", *lines]) + "\n")])


def used(g: Game) -> list[tuple[str, str, str | None]]:
    return [(r.text, r.status, r.reason) for r in g.turns[str(g.turn)].used]


def test_a_procedure_returns_what_happened_and_the_effect_uses_it(border: Loaded) -> None:
    g = border.new_game()
    submit(g, "ATTACK A", "ATTACK E", "ATTACK C")
    ann: Any = g.all_players[0]
    sectors: Any = {s._key: s for s in g.all["Sector"]}  # type: ignore[attr-defined]
    # A has no troops: the procedure returns before any draw.
    assert ann.outcomes[0] == "A:empty"
    outcomes = dict(o.split(":") for o in ann.outcomes)
    assert set(outcomes) == {"A", "E", "C"}
    assert all(v in ("empty", "taken", "repelled", "undecided") for v in outcomes.values())
    # What the procedure returned is what it did to the state.
    for code in ("E", "C"):
        assert (outcomes[code] == "taken") == (sectors[code].troops == 0) == (sectors[code].holder is ann)
    assert ann.wins == sum(v == "taken" for v in outcomes.values())
    # The second procedure's value is read inside a text.
    told = [m for m in g.turns[ann._key].messages if "is held by" in m]
    assert told[0] == "Ardenne is held by nobody"


def test_the_same_seed_gives_the_same_battles(border: Loaded) -> None:
    outs = []
    for _ in range(2):
        g = border.new_game()
        submit(g, "ATTACK B", "ATTACK C", "ATTACK E")
        outs.append(list(g.all_players[0].outcomes))  # type: ignore[attr-defined]
    assert outs[0] == outs[1]


def test_return_ends_an_effect_as_done_keeping_what_it_changed(border: Loaded) -> None:
    g = border.new_game()
    submit(g, "ATTACK D")
    assert used(g) == [("ATTACK D", "done", None)]
    assert g.all_players[0].outcomes == []  # type: ignore[attr-defined]


def test_break_leaves_the_loop_and_skip_goes_on_to_the_next_round(border: Loaded) -> None:
    g = border.new_game()
    ann: Any = g.all_players[0]
    sectors: Any = {s._key: s for s in g.all["Sector"]}  # type: ignore[attr-defined]
    sectors["B"].holder = ann
    submit(g, "MARCH A")
    # B is Ann's (skipped), C is marched through, D is sea (the loop stops before E).
    assert ann.marched == ["C"]


def test_while_spreads_until_nothing_new_is_reached(border: Loaded) -> None:
    g = border.new_game()
    submit(g)
    w: Any = g.world
    sectors: Any = {s._key: s for s in g.all["Sector"]}  # type: ignore[attr-defined]
    # A -> B -> C, then D is sea: three rounds with a frontier, the fourth finds it empty.
    assert [k for k, s in sectors.items() if s.supplied] == ["A", "B", "C"]
    assert (w.rounds, w.reached) == (3, 3)


def test_a_while_loop_as_long_as_a_player_says_fails_that_order_not_the_turn(border: Loaded) -> None:
    g = border.new_game()
    start = time.monotonic()
    submit(g, f"SIEGE {MAX_ROUNDS}", f"SIEGE {MAX_ROUNDS + 1}", "ATTACK A")
    assert time.monotonic() - start < 5
    reason = "a `while` loop would run more than 100,000 rounds; at most 100,000 are allowed"
    assert sorted(used(g)) == [("ATTACK A", "done", None), (f"SIEGE {MAX_ROUNDS}", "done", None),
                               (f"SIEGE {MAX_ROUNDS + 1}", "failed", reason)]
    # The loop of the most rounds allowed ran them all; the one past it changed what it did before failing.
    assert g.all_players[0].siege == 2 * MAX_ROUNDS  # type: ignore[attr-defined]


def test_a_while_loop_too_long_in_a_phase_stops_the_turn_at_its_line(tmp_path: Path) -> None:
    text = RULES.replace("  while size(frontier) > 0 {", "  while world.rounds >= 0 {")
    loaded = load_text(tmp_path, text, TEMPLATE, "border", tmp_path / "cache")
    g = loaded.new_game()
    with pytest.raises(RulesError) as info:
        submit(g)
    assert "border.rules:" in str(info.value) and "at most 100,000" in str(info.value)
    assert "phase supply" in str(info.value)


def test_the_generated_code_says_return_break_continue(tmp_path: Path) -> None:
    source = compile_path(write_ruleset(tmp_path, RULES, TEMPLATE, "border"))
    assert "        return 'empty'\n" in source
    assert "            return 'taken'\n" in source
    assert "    return 'repelled' if v_s.troops > 1 else 'undecided'\n" in source
    assert "    v_outcome = proc_fight(g, v_sector, me)\n" in source
    assert "    for _ in rounds_while(lambda: v_at is not None):\n" in source
    assert "            break\n" in source and "            continue\n" in source
    # An effect's `return` is a plain `return`: the engine counts the order as done.
    assert "    if v_sector.sea:\n        return\n" in source
    # The emitter writes no name outside codegen/names.py's families (`_`, the unread round, is fixed there).
    things = {names.thing("Sector")}
    stray = {i for i in _identifiers(ast.parse(source))
             if i not in names.FIXED and i not in things and not i.startswith(names.PREFIXES)}
    assert stray == set()


def test_statement_words_still_name_fields_and_arguments(tmp_path: Path) -> None:
    """`while`, `return`, `break` and `skip` are keywords only where a statement may start."""
    text = RULES.replace('order besiege "SIEGE {n}" {\n  n: int\n', 'order besiege "SIEGE {skip}" {\n  skip: int\n') \
        .replace("    let left = n\n", "    let left = skip\n    me.while = skip\n")
    loaded = load_text(tmp_path, text, TEMPLATE, "border", tmp_path / "cache")
    g = loaded.new_game()
    submit(g, "SIEGE 4")
    ann: Any = g.all_players[0]
    assert (ann.siege, ann.while_ if hasattr(ann, "while_") else getattr(ann, "while")) == (4, 4)


# ---------------------------------------------------------------- the checker

PROCS = '''ruleset "T" { version "1" turn "turn" }
thing Box keyed by code {
  name: text
  next: Box?
  stones: int = 0
}
data Box(code, name) { A: "Alpha"  B: "Beta" }
player { cash: int = 0 }
report { cash = me.cash  template "t.report.j2" }
'''


def test_a_test_that_ends_its_block_narrows_the_rest_of_it(tmp_path: Path) -> None:
    text = PROCS + '''procedure walk(b: Box) -> text {
  let n = b.next
  if n == none {
    return "end"
  } else if n.stones == 0 {
    return "empty"
  }
  return n.name
}
phase q {
  for each b in Box {
    let n = b.next
    if n == none { skip }
    news "{n.name} {walk(b)}"
  }
}
'''
    checked = check_text(tmp_path, text, "{{ cash }}\n")
    assert checked.ok and not checked.diagnostics, show(checked.diagnostics)


def test_a_test_that_does_not_end_its_block_narrows_nothing_after_it(tmp_path: Path) -> None:
    text = PROCS + 'phase q {\n  let n = Box.A.next\n  if n == none { news "none" }\n  news "{n.name}"\n}\n'
    checked = check_text(tmp_path, text, "{{ cash }}\n")
    assert [(d.code, d.span.line) for d in checked.diagnostics] == [("E0310", text.count("\n") - 1)]


def test_a_narrowed_name_given_a_value_that_may_be_none_is_optional_again(tmp_path: Path) -> None:
    """Regression: `if x != none { x = x.next  ...x.name }` was accepted, and stopped the turn on a none."""
    text = PROCS + '''phase q {
  let x = Box.A.next
  if x != none {
    x = x.next
    news "{x.name}"
  }
  let y = Box.A.next
  if y == none { return }
  y = y.next
  news "{y.name}"
}
'''
    checked = check_text(tmp_path, text, "{{ cash }}\n")
    lines = text.splitlines()
    want = [i for i, ln in enumerate(lines, 1) if '"{x.name}"' in ln or '"{y.name}"' in ln]
    assert [(d.code, d.span.line) for d in checked.diagnostics] == [("E0310", want[0]), ("E0310", want[1])]


def test_a_narrowed_name_given_a_value_that_is_never_none_stays_narrowed(tmp_path: Path) -> None:
    text = PROCS + 'phase q {\n  let x = Box.A.next\n  if x != none {\n    x = Box.B\n    news "{x.name}"\n  }\n}\n'
    checked = check_text(tmp_path, text, "{{ cash }}\n")
    assert checked.ok and not checked.diagnostics, show(checked.diagnostics)


def test_a_while_condition_narrows_its_body(tmp_path: Path) -> None:
    text = PROCS + ('phase q {\n  let x = Box.A.next\n  while x != none {\n    news "{x.name}"\n'
                    '    x = x.next\n  }\n}\n')
    checked = check_text(tmp_path, text, "{{ cash }}\n")
    assert checked.ok and not checked.diagnostics, show(checked.diagnostics)


def test_every_path_of_a_procedure_with_a_result_must_return(tmp_path: Path) -> None:
    ok = PROCS + '''procedure pick(b: Box) -> int {
  if b.stones > 3 {
    return 3
  } else if b.stones > 1 {
    for each i in 1..2 { return i }
    return 2
  } else {
    return 0
  }
}
phase q { Box.A.stones = pick(Box.B) }
'''
    checked = check_text(tmp_path / "ok", ok, "{{ cash }}\n")
    assert checked.ok and not checked.diagnostics, show(checked.diagnostics)
    # A loop never counts as returning, not even `while true`: the body may run no round.
    loop = ok.replace("    return 2\n", "")
    checked = check_text(tmp_path / "loop", loop, "{{ cash }}\n")
    assert [d.code for d in checked.diagnostics] == ["E0367"]
    assert "the loop at line" in (checked.diagnostics[0].help or "") or "`else`" in (checked.diagnostics[0].help or "")


def test_a_procedure_called_as_a_statement_drops_its_value(tmp_path: Path) -> None:
    text = PROCS + 'procedure bump(b: Box) -> int {\n  b.stones += 1\n  return b.stones\n}\nphase q { bump(Box.A) }\n'
    checked = check_text(tmp_path, text, "{{ cash }}\n")
    assert checked.ok and not checked.diagnostics, show(checked.diagnostics)


def test_a_procedure_without_a_result_in_an_expression_is_still_e0318(tmp_path: Path) -> None:
    text = PROCS + 'procedure bump(b: Box) {\n  b.stones += 1\n}\nphase q { let v = bump(Box.A) }\n'
    checked = check_text(tmp_path, text, "{{ cash }}\n")
    assert [d.code for d in checked.diagnostics] == ["E0318"]


def test_run_inside_a_while_is_refused_like_inside_for_each(tmp_path: Path) -> None:
    text = PROCS.replace("player", 'orders { header "{account}", "{code}" }\norder o "O" { effect { me.cash += 1 } }\n'
                         "player") + 'phase q {\n  while Box.A.stones < 3 {\n    run o\n    Box.A.stones += 1\n  }\n}\n'
    checked = check_text(tmp_path, text, "{{ cash }}\n")
    assert [d.code for d in checked.diagnostics] == ["E0417"]


def test_a_fail_after_a_procedure_asked_for_its_value_is_after_a_change(tmp_path: Path) -> None:
    orders = PROCS.replace("player", 'orders { header "{account}", "{code}" }\nplayer')
    text = orders + '''procedure bump(b: Box) -> int {
  b.stones += 1
  return b.stones
}
order o "O" {
  effect {
    let v = bump(Box.A)
    if v > 2 { fail "too many" }
  }
}
phase p: run o
'''
    checked = check_text(tmp_path, text, "{{ cash }}\n")
    assert [d.code for d in checked.diagnostics] == ["E0418"]


# An order that makes or destroys a numbered thing and may then `fail`: the instance would stay (or stay
# gone) while the player reads that the order failed.
UNITS = PROCS.replace("player", 'thing Unit numbered per owner { size: int = 1 }\n'
                      'orders { header "{account}", "{code}" }\nplayer')


@pytest.mark.parametrize("effect", [
    '    new Unit(owner: me)\n    if me.cash < 1 { fail "poor" }\n',
    '    let u = new Unit(owner: me, size: 2)\n    if u.size > me.cash { fail "poor" }\n',
    '    for each u in Unit where u.owner == me { destroy u }\n    fail "gone"\n',
    '    if me.cash > 1 { new Unit(owner: me) }\n    fail "made"\n',
], ids=["new", "let-new", "destroy", "new-in-a-branch"])
def test_a_fail_after_new_or_destroy_is_after_a_change(effect: str, tmp_path: Path) -> None:
    """Regression: E0418 counted assignments but not `new` or `destroy`."""
    text = UNITS + f'order o "O" {{\n  effect {{\n{effect}  }}\n}}\nphase p: run o\n'
    checked = check_text(tmp_path, text, "{{ cash }}\n")
    assert [d.code for d in checked.diagnostics] == ["E0418"], show(checked.diagnostics)


def test_a_fail_before_new_is_fine(tmp_path: Path) -> None:
    text = UNITS + ('order o "O" {\n  effect {\n    if me.cash < 1 { fail "poor" }\n'
                    '    let u = new Unit(owner: me)\n  }\n}\nphase p: run o\n')
    checked = check_text(tmp_path, text, "{{ cash }}\n")
    assert checked.ok and not checked.diagnostics, show(checked.diagnostics)


def test_a_loop_that_gives_a_narrowed_name_a_value_that_may_be_none_sees_it_in_the_next_round(tmp_path: Path) -> None:
    """Regression: the second round reads `x.name` after the first round set `x` to what may be none."""
    text = PROCS + '''phase q {
  let x = Box.A.next
  if x != none {
    for each b in Box {
      news "{x.name}"
      x = b.next
    }
    while Box.A.stones < 3 {
      Box.A.stones += 1
    }
  }
  let y = Box.A.next
  while y != none {
    news "{y.name}"
    y = y.next
  }
}
'''
    checked = check_text(tmp_path, text, "{{ cash }}\n")
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if '"{x.name}"' in ln)
    assert [(d.code, d.span.line) for d in checked.diagnostics] == [("E0310", line)]


def test_a_counted_loop_breaks_and_skips_and_a_phase_returns_early(tmp_path: Path) -> None:
    text = '''ruleset "Count" { version "1" turn "turn" }
world { total: int = 0  late: int = 0 }
orders { header "{account}", "{code}" }
phase counting {
  for each i in 1..world.late + 10 where i % 2 == 1 {
    if i == 7 { break }
    if i == 3 { skip }
    world.total += i
  }
  if world.total > 0 { return }
  world.late = 100
}
report { template "count.report.j2" }
'''
    loaded = load_text(tmp_path, text, "{{ game.turn }}\n", "count", tmp_path / "cache")
    g = loaded.new_game()
    submit(g)
    w: Any = g.world
    # 1 and 5 (3 skipped, the loop left at 7); the phase returned before its last line.
    assert (w.total, w.late) == (6, 0)


def test_halt_ends_a_path_and_what_follows_it_never_runs(tmp_path: Path) -> None:
    text = PROCS + '''procedure pick(b: Box) -> int {
  if b.stones > 0 {
    return b.stones
  }
  halt "box {b.code} is empty"
}
phase q {
  Box.A.stones = pick(Box.B)
  while true {
    if Box.A.stones > 3 { halt "too many" }
    Box.A.stones += 1
  }
  halt "done"
  news "never"
}
'''
    checked = check_text(tmp_path, text, "{{ cash }}\n")
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if 'news "never"' in ln)
    assert [(d.code, d.span.line) for d in checked.diagnostics] == [("W0212", line)]


def test_a_call_kept_in_a_let_narrows_and_a_call_itself_does_not(tmp_path: Path) -> None:
    """G14: `let x = first(L)` and a test of `x` narrow as any local; a test of `first(L)` proves nothing about
    the next call."""
    text = PROCS + '''phase q {
  let x = first([b for b in Box where b.stones > 0])
  if x == none { return }
  news "{x.name}"
  let y = if first([b for b in Box]) != none then first([b for b in Box]).name else ""
}
'''
    checked = check_text(tmp_path, text, "{{ cash }}\n")
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "let y" in ln)
    assert [(d.code, d.span.line) for d in checked.diagnostics] == [("E0310", line)]


def test_a_procedure_returning_a_secret_shows_it_in_a_text(tmp_path: Path) -> None:
    text = PROCS + '''secret param odds: int = 3
procedure peek() -> int {
  let x = odds + 1
  return x
}
procedure fight() -> text {
  if roll(6, "fight") > odds {
    return "won"
  }
  return "lost"
}
phase q {
  news "{peek()}"
  news "{fight()}"
}
'''
    checked = check_text(tmp_path, text, "{{ cash }}\n")
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "{peek()}" in ln)
    # The value of `peek` is the secret; `fight` only used it to decide, and says what happened.
    assert [(d.code, d.span.line) for d in checked.diagnostics] == [("E0307", line)]
    assert "through procedure `peek`" in checked.diagnostics[0].message
