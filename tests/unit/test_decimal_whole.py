"""A decimal that happens to be whole (a literal `1.0`, a whole number widened, `min` choosing either) is still a
decimal: reports show it as the text their schema says, and the state keeps it as one."""

from __future__ import annotations

from pathlib import Path

from rulesdsl.runtime.report import render, report_data, validate_report
from tests.unit.rulestools import load_text

RULES = '''ruleset "T" { version "1" turn "turn" }
player {
  share: decimal = 0.5
  whole: decimal = 0.5
  best: decimal = 0.25
}
orders {
  header "{account}", "{code}"
}
phase grow {
  for each p in players {
    p.share = min(1.0, p.share + 0.75)
    p.whole = 2
    p.best = max(p.best, 3)
  }
}
report {
  share = me.share
  whole = me.whole
  best = me.best
  literal = 1.0
  template "t.report.j2"
}
'''


def test_whole_decimals_are_reported_as_decimals(tmp_path: Path) -> None:
    loaded = load_text(tmp_path, RULES, "{{ share }} {{ whole }} {{ best }} {{ literal }}\n", "t", tmp_path / "c")
    g = loaded.new_game(1)
    g.process_turn([])
    p = g.all_players[0]
    data = report_data(g, p)
    validate_report(loaded.spec, data)  # the schema wants each as a text
    assert (data["share"], data["whole"], data["best"], data["literal"]) == ("1", "2", "3", "1")
    assert render(loaded.spec, data) == "1 2 3 1\n"
