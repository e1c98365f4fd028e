"""rulesdsl/simulate/stats.py: GameResults added in order -> counts that merge, and the text a designer reads."""

from __future__ import annotations

from rulesdsl.simulate.results import CRASH, INVARIANT, LEAK, GameResult, Problem
from rulesdsl.simulate.stats import SHOWN_PROBLEMS, Stats, _median, collect


def _game(index: int, turns: int, winners: tuple[int, ...] = (), problems: int = 0,
          reasons: dict[str, int] | None = None) -> GameResult:
    found = [Problem(LEAK if i % 2 else INVARIANT, index, i, f"fact {i} of game {index}") for i in range(problems)]
    return GameResult(index, 1000 + index, turns, bool(winners), winners, 3, {"move": 2 * turns, "buy": 1},
                      {"move": turns}, reasons or {"no money: # needed": 1}, found)


def test_merging_two_runs_is_adding_their_games_in_order() -> None:
    games = [_game(i, 3 + i % 5, (i % 3,) if i % 4 else (), problems=i % 3, reasons={f"why {i % 7}": i})
             for i in range(40)]
    whole = collect(games, ("A", "B", "C"))
    first, second = collect(games[:13], ("A", "B", "C")), collect(games[13:])
    first.merge(second)
    assert first == whole
    assert [p.game for p, _ in whole.problems] == sorted(p.game for p, _ in whole.problems)
    assert len(whole.problems) == SHOWN_PROBLEMS and whole.problem_count == 39


def test_the_median_of_counted_values() -> None:
    assert _median({3: 1}, 1) == 3
    assert _median({1: 1, 4: 1}, 2) == 2.5
    assert _median({1: 2, 4: 1, 9: 1}, 4) == 2.5
    assert _median({1: 2, 4: 3}, 5) == 4


def test_wins_and_length() -> None:
    stats = collect([_game(0, 4, (0,)), _game(1, 6, (0, 2)), _game(2, 10), _game(3, 4, (1,))], ("Ann", "Bob", "Cyd"))
    assert stats.wins == {0: 2, 1: 1, 2: 1} and stats.shared == 1 and stats.no_winner == 1
    assert stats.length_summary() == (4, 5.0, 6.0, 10)
    assert stats.histogram() == [(4, 4, 2), (5, 5, 0), (6, 6, 1), (7, 7, 0), (8, 8, 0), (9, 9, 0), (10, 10, 1)]
    text = stats.text("Heading")
    assert text.startswith("Heading\n\nGames: 4; turns played: 24\n")
    assert "  seat 1 (Ann)        2   50.0%\n  seat 2 (Bob)        1   25.0%\n" in text
    assert "  games won by more than one seat: 1\n  games with no winner: 1 (25.0%)\n" in text
    assert ("Game length in turns: min 4, median 5, mean 6.0, max 10\n"
            f"   4 | {'#' * 40} 2\n   5 | 0\n   6 | {'#' * 20} 1\n") in text


def test_long_lengths_share_bins() -> None:
    stats = collect([_game(i, t) for i, t in enumerate([1, 2, 3, 25, 25, 40])])
    bins = stats.histogram()
    assert len(bins) == 10 and bins[0] == (1, 4, 3) and bins[-1] == (37, 40, 1)
    assert sum(n for _, _, n in bins) == 6


def test_orders_and_reasons() -> None:
    reasons = {f"reason {i:02}": 30 - i for i in range(25)}
    stats = collect([_game(0, 5, reasons=reasons), _game(1, 5)])
    text = stats.text()
    assert "  buy            2            0          2\n  move          20           10         10\n" in text
    assert (f"Refusals by reason ({sum(reasons.values()) + 1} lines, 26 reasons; numbers shown as #, names as "
            "<Thing>):\n") in text
    assert "  30  reason 00\n" in text and "  11  reason 19\n" in text and "reason 20" not in text
    assert text.count("  reason ") == 20 and "  and 6 more reasons (41 lines)\n" in text


def test_problems_in_full_then_counted() -> None:
    stats = Stats()
    for i in range(8):
        stats.add(_game(i, 5, problems=4))
    stats.add(GameResult(8, 77, 2, problems=[Problem(CRASH, 8, 2, "covert.rules:40: boom\nmail of 1001:\n  B,3")]))
    text = stats.text()
    assert ("Problems: 33 (crashes 1, refusals without a reason 0, invariants broken 16, hidden facts shown 16)\n"
            "  invariant broken: game 0 (seed 1000), turn 0: fact 0 of game 0\n") in text
    assert "  and 13 more (counted above by kind)\n" in text and "boom" not in text
    assert stats.crashed == 1
    alone = collect([GameResult(8, 77, 2, problems=[Problem(CRASH, 8, 2, "covert.rules:40: boom\nmail:\n  B,3")])])
    assert alone.text().endswith("  crash: game 8 (seed 77), turn 2: covert.rules:40: boom\n      mail:\n        B,3\n")


def test_no_games_no_problems() -> None:
    text = Stats().text()
    assert "Games: 0; turns played: 0\n" in text and "Orders: none written\n" in text and "Refusals: none\n" in text
    assert text.endswith("Problems: none (crashes 0, refusals without a reason 0, invariants broken 0, "
                         "hidden facts shown 0)\n")
