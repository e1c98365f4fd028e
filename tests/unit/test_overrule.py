"""`overrule o "..."`: a small ruleset whose later phase judges a player's orders as a whole -> each order's
outcome in the player's report (failed for the phase's reason, or done), and what the effect did left to the
rules."""

from __future__ import annotations

from pathlib import Path

from rulesdsl.runtime.report import report_data
from tests.unit.rulestools import BASE, load_text

# A player's stones put this turn stand together only if they come to at most 5; otherwise every put of
# theirs is taken back and reported failed. A put that failed on its own (cost) keeps its own reason.
RULES = BASE + '''
phase judging {
  for each p in players {
    let total = sum(o.n for o in orders(put) where o.player == p)
    if total > 5 {
      for each o in orders(put) where o.player == p {
        o.box.stones -= o.n
        o.player.cash += money(o.n)
        overrule o "your puts come to {total} stones, more than 5"
      }
    }
  }
}
'''


def test_overruled_orders_are_reported_failed_and_others_stay_done(tmp_path: Path) -> None:
    game = load_text(tmp_path / "rules", RULES, "Cash {{ cash }}\n", "t", tmp_path / "cache")
    g = game.new_game()
    ann, bob = g.all_players
    g.process_turn([("1.txt", "1\nA\nP,A,4\nP,B,3\nP,A,9\n"), ("2.txt", "2\nB\nP,A,2\n")])
    used = [(r["text"], r["status"], r["reason"]) for r in report_data(g, ann)["orders"]["used"]]
    assert used == [("P,A,4", "failed", "your puts come to 7 stones, more than 5"),
                    ("P,B,3", "failed", "your puts come to 7 stones, more than 5"),
                    ("P,A,9", "failed", "not enough cash: it costs 9 and you have 3")]
    assert [(r["text"], r["status"]) for r in report_data(g, bob)["orders"]["used"]] == [("P,A,2", "done")]
    assert (ann.cash, bob.cash) == (10, 8)
    assert (g.index["Box"]["A"].stones, g.index["Box"]["B"].stones) == (2, 0)
