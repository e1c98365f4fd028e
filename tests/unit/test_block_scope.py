"""A name bound inside a block (a loop's variable, a `let` in a loop or an `if`) that an enclosing block binds
too: a small ruleset -> its generated module -> a turn, where the outer name must keep its value after the
block. Python has no block scope, so the generated module gives the inner one a name of its own."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.unit.rulestools import load_text

SHADOWS = '''ruleset "Shadows" { version "1" turn "turn" }
thing Box keyed by code {
  name: text
  stones: int = 0
  near: set of Box
}
data Box(code, name, stones) {
  A: "Alpha", 1
  B: "Beta", 2
}
links Box.near {
  A: B
}
player {
  score: int = 0
}
orders {
  header "{account}", "{code}"
}
order tally "T,{box}" {
  box: Box
  effect {
    for each box in box.near {
      me.score += box.stones * 10
    }
    me.score += box.stones
  }
}
phase tallies: run tally
phase count {
  let b = 7
  for each b in Box {
    news "loop {b.name}"
  }
  news "after the loop, b is {b}"
  let n = 100
  for each n in 1..3 where n > 1 {
    news "round {n}"
  }
  news "after the count, n is {n}"
  for each c in Box {
    let b = c.stones
    if b > 1 {
      let b = b * 5
      news "inner {b}"
    }
    news "in the loop, b is {b}"
  }
  news "at the end, b is {b}"
  let s = sum(b.stones for b in Box where b.stones > 0)
  news "s is {s}, b is {b}"
}
report {
  score = me.score
  template "shadows.report.j2"
}
'''


def test_a_block_does_not_overwrite_the_enclosing_blocks_name(tmp_path: Path) -> None:
    loaded = load_text(tmp_path / "rules", SHADOWS, "{{ score }}\n", "shadows", tmp_path / "cache")
    g = loaded.new_game(players=1)
    g.process_turn([("ann.txt", "1\nA\nT,A\n")])
    assert g.news_items() == [
        "loop Alpha", "loop Beta", "after the loop, b is 7",
        "round 2", "round 3", "after the count, n is 100",
        "in the loop, b is 1", "inner 10", "in the loop, b is 2", "at the end, b is 7",
        "s is 3, b is 7",
    ]
    # The order's argument `box` is A (1 stone) after a loop over its neighbour B (2 stones).
    assert g.all_players[0].score == 2 * 10 + 1


def test_a_name_that_shadows_no_other_keeps_its_plain_name(tmp_path: Path) -> None:
    loaded = load_text(tmp_path / "rules", SHADOWS, "{{ score }}\n", "shadows", tmp_path / "cache")
    tree = ast.parse(Path(str(loaded.module.__file__)).read_text(encoding="utf-8"))
    count = next(f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name == "phase_count")
    bound = sorted({t.id for node in ast.walk(count) for t in
                    ([node.target] if isinstance(node, ast.For) else getattr(node, "targets", []))
                    if isinstance(t, ast.Name)})
    # `c` and the outer `b`, `n`, `s` as always; each inner `b` and `n` a name of its own.
    assert bound == ["v__b_2", "v__b_3", "v__n_2", "v_b", "v_c", "v_n", "v_s"]
