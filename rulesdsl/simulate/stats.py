"""Simulated games' results, added in game order -> the run's statistics and their text summary.

Only counts are kept, never a game's result, so a run of any size fits in memory, and two Stats merge
(`merge`) into what one Stats given both runs' games in order would hold. The text is stable: sorted, no
timings, no paths, so that the same seed gives the same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from rulesdsl.simulate.results import CRASH, INVARIANT, KINDS, LEAK, NO_REASON, GameResult, Problem

SHOWN_PROBLEMS = 20  # problems told in full; beyond them, only counted by kind
SHOWN_REASONS = 20  # refusal reasons listed; the rest are counted
BINS = 10  # at most this many bars in the game length histogram
BAR = 40  # the longest bar of a histogram, in characters

# How the text names each kind of problem when counting them.
_KIND_PLURAL = {CRASH: "crashes", NO_REASON: "refusals without a reason", INVARIANT: "invariants broken",
                LEAK: "hidden facts shown"}

K = TypeVar("K", int, str)


@dataclass
class Stats:
    """The counts over every game added so far. `seats` names the players by seat (the scenario's order), for
    the text; a seat past its end is shown by number only."""

    seats: tuple[str, ...] = ()
    games: int = 0
    turns: int = 0  # turns played, over all games
    ended: int = 0  # games a victory (or every player out) ended before the turn limit
    crashed: int = 0  # games stopped by a crash
    wins: dict[int, int] = field(default_factory=dict)  # seat -> games it won, alone or shared
    shared: int = 0  # games won by more than one seat
    no_winner: int = 0  # games that ended with no winner or reached the turn limit (or crashed)
    lengths: dict[int, int] = field(default_factory=dict)  # turns played -> games
    written: dict[str, int] = field(default_factory=dict)  # order name -> lines written
    done: dict[str, int] = field(default_factory=dict)  # order name -> lines carried out
    refusals: dict[str, int] = field(default_factory=dict)  # reason -> lines refused
    problems: list[tuple[Problem, int]] = field(default_factory=list)  # the first SHOWN_PROBLEMS, with their seed
    kinds: dict[str, int] = field(default_factory=dict)  # problem kind -> how many

    def add(self, result: GameResult) -> None:
        """Counts one more game: games are added in their index's order, so that the problems kept are the
        first ones whatever ran the games."""
        self.games += 1
        self.turns += result.turns
        self.ended += result.ended
        self.crashed += any(p.kind == CRASH for p in result.problems)
        for seat in result.winners:
            _count(self.wins, seat, 1)
        if len(result.winners) > 1:
            self.shared += 1
        elif not result.winners:
            self.no_winner += 1
        if result.seats > len(self.seats):
            self.seats = self.seats + tuple("" for _ in range(result.seats - len(self.seats)))
        _count(self.lengths, result.turns, 1)
        _add_all(self.written, result.written)
        _add_all(self.done, result.done)
        _add_all(self.refusals, result.refusals)
        for problem in result.problems:
            _count(self.kinds, problem.kind, 1)
            if len(self.problems) < SHOWN_PROBLEMS:
                self.problems.append((problem, result.seed))

    def merge(self, other: Stats) -> None:
        """Adds the counts of `other`, whose games all come after this one's."""
        self.games += other.games
        self.turns += other.turns
        self.ended += other.ended
        self.crashed += other.crashed
        self.shared += other.shared
        self.no_winner += other.no_winner
        if len(other.seats) > len(self.seats):
            self.seats = self.seats + other.seats[len(self.seats):]
        for mine, theirs in ((self.wins, other.wins), (self.lengths, other.lengths)):
            _add_all(mine, theirs)
        for counts, more in ((self.written, other.written), (self.done, other.done),
                             (self.refusals, other.refusals), (self.kinds, other.kinds)):
            _add_all(counts, more)
        self.problems.extend(other.problems[:SHOWN_PROBLEMS - len(self.problems)])

    @property
    def problem_count(self) -> int:
        return sum(self.kinds.values())

    def seat_name(self, seat: int) -> str:
        name = self.seats[seat] if seat < len(self.seats) else ""
        return f"seat {seat + 1}" + (f" ({name})" if name else "")

    def length_summary(self) -> tuple[int, float, float, int]:
        """Game length: min, median, mean, max (zeros when no game was played)."""
        if not self.games:
            return 0, 0.0, 0.0, 0
        ordered = sorted(self.lengths)
        return ordered[0], _median(self.lengths, self.games), self.turns / self.games, ordered[-1]

    def histogram(self) -> list[tuple[int, int, int]]:
        """Game length in at most BINS bins: (first, last, games) each, from the shortest game to the longest."""
        if not self.lengths:
            return []
        low, high = min(self.lengths), max(self.lengths)
        width = max(1, math.ceil((high - low + 1) / BINS))
        bins = []
        for first in range(low, high + 1, width):
            last = min(first + width - 1, high)
            bins.append((first, last, sum(n for t, n in self.lengths.items() if first <= t <= last)))
        return bins

    def orders(self) -> list[tuple[str, int, int]]:
        """(order, lines written, lines carried out), by order name."""
        return [(name, self.written.get(name, 0), self.done.get(name, 0))
                for name in sorted(set(self.written) | set(self.done))]

    def top_reasons(self, n: int = SHOWN_REASONS) -> list[tuple[str, int]]:
        """The refusal reasons by count, most first (ties by reason), at most n."""
        return sorted(self.refusals.items(), key=lambda kv: (-kv[1], kv[0]))[:n]

    def text(self, heading: str = "") -> str:
        """The summary a designer reads: `heading` first (what was run), then each part under its title."""
        out: list[str] = [heading] if heading else []
        parts = (self._games_text(), self._wins_text(), self._length_text(), self._orders_text(),
                 self._refusals_text(), self._problems_text())
        return "\n\n".join("\n".join(part) for part in [out, *parts] if part).removeprefix("\n") + "\n"

    def _games_text(self) -> list[str]:
        limit = self.games - self.ended - self.crashed
        return [f"Games: {self.games:,}; turns played: {self.turns:,}",
                f"  ended by the rules: {self.ended:,}{_share(self.ended, self.games)}",
                f"  reached the turn limit: {limit:,}{_share(limit, self.games)}",
                f"  stopped by a crash: {self.crashed:,}{_share(self.crashed, self.games)}"]

    def _wins_text(self) -> list[str]:
        seats = max([len(self.seats), *(s + 1 for s in self.wins)])
        names = [self.seat_name(s) for s in range(seats)]
        width = max([len(n) for n in names] + [4])
        out = ["Wins by seat (a shared win counts for each winner):", f"  {'seat':<{width}}  {'wins':>7}  share"]
        for seat, name in enumerate(names):
            won = self.wins.get(seat, 0)
            out.append(f"  {name:<{width}}  {won:>7,}  {_percent(won, self.games)}")
        out.append(f"  games won by more than one seat: {self.shared:,}")
        out.append(f"  games with no winner: {self.no_winner:,}{_share(self.no_winner, self.games)}")
        return out

    def _length_text(self) -> list[str]:
        low, median, mean, high = self.length_summary()
        out = [f"Game length in turns: min {low}, median {median:g}, mean {mean:.1f}, max {high}"]
        bins = self.histogram()
        most = max([n for _, _, n in bins] + [1])
        labels = [f"{a}" if a == b else f"{a}-{b}" for a, b, _ in bins]
        width = max([len(x) for x in labels] + [1])
        for label, (_, _, n) in zip(labels, bins, strict=True):
            bar = "#" * (math.ceil(n * BAR / most) if n else 0)
            out.append(f"  {label:>{width}} | {bar}{' ' if bar else ''}{n:,}")
        return out

    def _orders_text(self) -> list[str]:
        rows = self.orders()
        if not rows:
            return ["Orders: none written"]
        width = max([len(name) for name, _, _ in rows] + [5])
        out = ["Orders (lines written; carried out; refused, or not carried out for another reason):",
               f"  {'order':<{width}}  {'written':>9}  {'carried out':>11}  {'refused':>9}"]
        for name, written, done in rows:
            out.append(f"  {name:<{width}}  {written:>9,}  {done:>11,}  {written - done:>9,}")
        return out

    def _refusals_text(self) -> list[str]:
        if not self.refusals:
            return ["Refusals: none"]
        total = sum(self.refusals.values())
        out = [f"Refusals by reason ({_plural(total, 'line')}, {_plural(len(self.refusals), 'reason')}; "
               "numbers shown as #, names as <Thing>):"]
        shown = self.top_reasons()
        width = max(len(f"{n:,}") for _, n in shown)
        out += [f"  {n:>{width},}  {reason}" for reason, n in shown]
        rest = self.refusals.keys() - {reason for reason, _ in shown}
        if rest:
            lines = sum(self.refusals[r] for r in rest)
            out.append(f"  and {_plural(len(rest), 'more reason')} ({_plural(lines, 'line')})")
        return out

    def _problems_text(self) -> list[str]:
        counts = ", ".join(f"{_KIND_PLURAL.get(k, k)} {self.kinds.get(k, 0):,}" for k in _kinds(self.kinds))
        if not self.problem_count:
            return [f"Problems: none ({counts})"]
        out = [f"Problems: {self.problem_count:,} ({counts})"]
        for problem, seed in self.problems:
            first, *more = problem.text.splitlines() or [""]
            out.append(f"  {problem.kind}: game {problem.game} (seed {seed}), turn {problem.turn}: {first}")
            out += [f"      {line}".rstrip() for line in more]
        if self.problem_count > len(self.problems):
            out.append(f"  and {self.problem_count - len(self.problems):,} more (counted above by kind)")
        return out


def collect(results: Iterable[GameResult], seats: tuple[str, ...] = ()) -> Stats:
    """The Stats of results given in game order."""
    stats = Stats(seats=seats)
    for result in results:
        stats.add(result)
    return stats


def _kinds(kinds: dict[str, int]) -> list[str]:
    # Every known kind, found or not (a zero says the check ran); then any other, by name.
    return list(KINDS) + sorted(k for k in kinds if k not in KINDS)


def _count(counts: dict[K, int], key: K, n: int) -> None:
    counts[key] = counts.get(key, 0) + n


def _add_all(counts: dict[K, int], more: dict[K, int]) -> None:
    for key, n in more.items():
        _count(counts, key, n)


def _median(counts: dict[int, int], total: int) -> float:
    """The median of `total` values given as value -> how many."""
    middle = [(total - 1) // 2, total // 2]
    found: list[int] = []
    seen = 0
    for value in sorted(counts):
        seen += counts[value]
        while len(found) < 2 and middle[len(found)] < seen:
            found.append(value)
    return (found[0] + found[1]) / 2


def _plural(n: int, what: str) -> str:
    return f"{n:,} {what}{'' if n == 1 else 's'}"


def _percent(n: int, total: int) -> str:
    return f"{100 * n / total:5.1f}%" if total else "    -"


def _share(n: int, total: int) -> str:
    return f" ({100 * n / total:.1f}%)" if total else ""
