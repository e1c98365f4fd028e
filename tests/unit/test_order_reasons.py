"""A line that several syntaxes of one letter match, none of them reading it -> the reason the player is
told: the one of the syntax that read furthest into the line before refusing it."""

from __future__ import annotations

import pytest

from rulesdsl.runtime.engine import Game
from tests.unit.rulestools import Loaded, load_text

# Warlord's shape: `G {box} ...` (a place) is declared before `G {n} ...` (a unit's number), so that a
# place is never read as a number; most refused lines are meant as the second form.
RULES = '''ruleset "Reasons" { version "1" turn "turn" }

thing Box keyed by code { name: text }
data Box(code, name) { A: "Alpha" }

player { log: list of text reset each turn }

orders { header "{account}", "{code}" }

order to_box "G {box} {steps}" {
  box: Box
  steps: 1..3
  effect { add "box" to me.log }
}

order to_unit "G {n} {way}" {
  n: 1..99
  way: 1..8
  effect { add "unit" to me.log }
}

phase going: run to_box, to_unit together

report {
  log = me.log
  template "r.report.j2"
}
'''


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    base = tmp_path_factory.mktemp("reasons")
    return load_text(base / "r", RULES, "{{ log }}\n", "r", base / "cache")


def reasons(g: Game, *lines: str) -> list[str]:
    g.process_turn([("p1.txt", "\n".join(["1", "A", *lines]) + "\n")])
    return [r.reason for r in g.turns["1"].refused]


def test_the_syntax_that_read_more_arguments_gives_the_reason(loaded: Loaded) -> None:
    g = loaded.new_game()
    # `to_box` stops at its first argument (5 is no box), `to_unit` at its second (9 is no way): the
    # player meant a unit and is told about the way, not that 5 is no box.
    [reason] = reasons(g, "G 5 9")
    assert reason == "way must be at most 8 and at least 1", reason


def test_a_tie_keeps_the_first_syntax_declared(loaded: Loaded) -> None:
    g = loaded.new_game()
    # Both stop at their first argument: the first syntax declared speaks, as before.
    [reason] = reasons(g, "G Z 2")
    assert "box" in reason.lower() and "Z" in reason, reason


def test_a_line_one_syntax_reads_is_taken_by_it(loaded: Loaded) -> None:
    g = loaded.new_game()
    assert reasons(g, "G A 2", "G 7 8") == []
    assert list(g.all_players[0].log) == ["box", "unit"]  # type: ignore[attr-defined]
