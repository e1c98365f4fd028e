"""A diff of two games, as data: the records `rulesdsl diff` is made of (diff.py compares, why.py gives each line
its causes, page.py and diff.text show them), in a module of their own so that each of those reads them
without reading the others."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from rulesdsl.game.replay import Unread


@dataclass(frozen=True)
class Line:
    """One line of a diff: `sign` is " " (in both), "-" (only in the old) or "+" (only in the new); `old` and
    `new` its line numbers (0 where it is not in that file). `why`: the provenance of the line, one item a
    cause, shown under it (review/why.py); empty without traces."""

    sign: str
    text: str
    old: int = 0
    new: int = 0
    why: tuple[str, ...] = ()


@dataclass(frozen=True)
class Hunk:
    old_start: int
    old_len: int
    new_start: int
    new_len: int
    lines: tuple[Line, ...]

    @property
    def header(self) -> str:
        return f"@@ -{_range(self.old_start, self.old_len)} +{_range(self.new_start, self.new_len)} @@"


@dataclass(frozen=True)
class FileChange:
    turn: int
    kind: str  # "report", "news" or "unrouted"
    name: str  # the report's ACCOUNT-name, or "news", "unrouted"
    path: str  # relative to the game folder: turns/turn-003/reports/20408-spectre.txt
    hunks: tuple[Hunk, ...]
    status: str = "changed"  # or "added", "removed": a file only one game has


@dataclass(frozen=True)
class ValueChange:
    turn: int
    path: str  # JSON path in the turn's state
    old: str | None  # as YAML shows it; None: no such value
    new: str | None
    player: str = ""  # under $.players[i]: that player's account and name, since the index alone says little
    why: tuple[str, ...] = ()

    def __str__(self) -> str:
        return (f"{self.path}: {self.old if self.old is not None else '(none)'} -> "
                f"{self.new if self.new is not None else '(none)'}" + (f"  ({self.player})" if self.player else ""))


@dataclass
class GameDiff:
    old: str  # labels, as the user typed them
    new: str
    title: str = ""  # a golden scenario's ruleset/name; "" for one comparison
    turns: list[int] = field(default_factory=list)  # compared: in both
    only_old: list[int] = field(default_factory=list)
    only_new: list[int] = field(default_factory=list)
    reports: int = 0  # reports compared, over all turns
    files: list[FileChange] = field(default_factory=list)
    values: list[ValueChange] = field(default_factory=list)
    unread: list[Unread] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the replays said (a game over sooner, a failure)

    @property
    def differs(self) -> bool:
        return bool(self.files or self.values or self.unread or self.only_old or self.only_new or self.notes)

    def by_turn(self) -> Iterator[tuple[int, list[FileChange], list[ValueChange], list[Unread]]]:
        """The changes of each turn that has any, in turn order."""
        turns = {f.turn for f in self.files} | {v.turn for v in self.values} | {u.turn for u in self.unread}
        for turn in sorted(turns):
            yield (turn, [f for f in self.files if f.turn == turn], [v for v in self.values if v.turn == turn],
                   [u for u in self.unread if u.turn == turn])


def _range(start: int, length: int) -> str:
    return f"{start}" if length == 1 else f"{start},{length}"


# ------------------------------------------------------------ comparing
