"""A diff (review/diff.py's `GameDiff`) and the two game folders it compares -> the same diff with each changed
line's `why` filled from the turns' traces (trace.jsonl, `rulesdsl turn --trace`; review/explain.py reads them).

- A changed state value: the changes that made it that turn (explain.causes, the GM's answer in one line a
  change: the rule's file:line and name, the order or phase, the table rows and draws), of the old game
  (`old: ...`) and of the new (`new: ...`).
- A changed report line: on a removed line the old game's changes of the values it shows (explain.report_view)
  or the news item or message it is (explain.said_causes); on an added line the new game's. A news line: the
  rule that said it.

A change made alike in both games (the same rule, order, rows and draws: explain.Cause's key) says nothing
about the difference and is left out, on the other side of the same value or hunk. When that leaves nothing:
where the value already differed as the turn began, one line says so (the difference is an earlier turn's);
otherwise all the changes are shown, since the same rules read values that differ. At most `SHOWN` causes a
line, the rest counted.

A turn without a trace (the start, a game played without --trace) leaves `why` empty. Each side's traced turns
are read once, and the changes of a trace are indexed by the thing or player they change: a diff of many
values stays linear in the trace's size.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from rulesdsl.game.errors import GameError
from rulesdsl.game.names import report_base
from rulesdsl.review.changes import FileChange, GameDiff, Hunk, ValueChange
from rulesdsl.review.explain import (
    Cause,
    ReportView,
    Turn,
    Viewer,
    causes,
    load_turn,
    normal,
    order_causes,
    report_view,
    said_causes,
    segments,
    show,
)

__all__ = ["SHOWN", "fill"]

SHOWN = 4  # causes shown under one line, a side; the rest counted


class _Side:
    """One game of a diff: its traced turns, read when first asked for."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._turns: dict[int, tuple[Turn, dict[str, list[int]]] | None] = {}

    def turn(self, number: int) -> tuple[Turn, dict[str, list[int]]] | None:
        if number not in self._turns:
            try:
                turn = load_turn(self.root, number)
            except GameError:  # not played, the start, or played without --trace
                self._turns[number] = None
            else:
                self._turns[number] = (turn, _index(turn))
        return self._turns[number]

    def causes(self, number: int, path: str) -> list[Cause] | None:
        loaded = self.turn(number)
        if loaded is None:
            return None
        turn, index = loaded
        try:
            head = _head(normal(path, turn))
        except GameError:
            return []
        return causes(turn, path, index.get(head, []) + index.get("", []))

    def before(self, number: int, path: str) -> tuple[bool, Any]:
        loaded = self.turn(number)
        if loaded is None:
            return False, None
        try:
            return loaded[0].value(False, normal(path, loaded[0]))
        except GameError:
            return False, None


def _head(path: str) -> str:
    """The thing or player a path is of (`$.Country.MEX`, `$.players[2]`); "" for a path above one."""
    parts = segments(path)
    return "/".join(parts[:2]) if len(parts) >= 2 else ""


def _index(turn: Turn) -> dict[str, list[int]]:
    """The changes of a trace by the thing or player they change: a change covers a path only within it."""
    index: dict[str, list[int]] = {}
    for i, r in enumerate(turn.records):
        if r.get("ev") == "change":
            try:
                head = _head(r["path"])
            except GameError:
                continue
            index.setdefault(head, []).append(i)
    return index


def _shown(found: list[Cause], other: list[Cause] | None, prefix: str = "") -> list[str]:
    """The causes of one side not made alike on the other (all of them when the other has no trace)."""
    alike = {c.key for c in other} if other is not None else set()
    kept = [c for c in found if c.key not in alike]
    out = [f"{prefix}{c.text}" for c in kept[:SHOWN]]
    if len(kept) > SHOWN:
        out.append(f"{prefix}... and {len(kept) - SHOWN} more change(s)")
    return out


def _alike(n: int, turn: int, before: tuple[tuple[bool, Any], tuple[bool, Any]]) -> str:
    """The line for a value whose changes were all made alike in both games, from values that differed as the
    turn began; "" when they did not."""
    if not (before[0][0] and before[1][0] and before[0][1] != before[1][1]):
        return ""
    was = f"it was {show(before[0][1])} in the old game and {show(before[1][1])} in the new as turn {turn} began"
    return f"{'no rule changed it' if n == 0 else f'the same {n} change(s) in both games'}; {was}"


def _own(found: list[Cause], prefix: str = "") -> list[str]:
    """All the causes of one side: those made alike in both, from the same start, read values that differ."""
    return _shown(found, None, prefix)


def _value(v: ValueChange, old: _Side, new: _Side) -> ValueChange:
    before, after = old.causes(v.turn, v.path), new.causes(v.turn, v.path)
    if before is None and after is None:
        return v
    why = _shown(before or [], after, "old: ") + _shown(after or [], before, "new: ")
    if not why and before is not None and after is not None:
        said = _alike(len(after), v.turn, (old.before(v.turn, v.path), new.before(v.turn, v.path)))
        why = [said] if said else _own(before, "old: ") + _own(after, "new: ")
    return dataclasses.replace(v, why=tuple(why))


def _report(side: _Side, f: FileChange) -> tuple[Turn, ReportView, str] | None:
    """What a report line's causes are read from: the turn, the report with what each line shows, and whose it
    is; None without a trace, or where the report's lines cannot be tied to its values."""
    loaded = side.turn(f.turn)
    if loaded is None:
        return None
    turn = loaded[0]
    account = next((str(p.get("account")) for p in turn.after.get("players", [])
                    if report_base(str(p.get("account")), str(p.get("name", ""))) == f.name), None)
    if account is None:
        return None
    try:
        return turn, report_view(side.root, turn, account), account
    except GameError:
        return None


def _line_causes(side: _Side, f: FileChange, read: tuple[Turn, ReportView, str] | None,
                 number: int, text: str) -> tuple[list[Cause], list[str]] | None:
    """The causes of a report's or the news' line, and the state values it shows; None: no trace to read."""
    loaded = side.turn(f.turn)
    if loaded is None:
        return None
    if f.kind == "news":
        return said_causes(loaded[0], text.strip(), None), []
    if f.kind != "report" or read is None:
        return None
    turn, view, account = read
    said = said_causes(turn, text.strip(), account)
    if said or not text.strip():
        return said, []
    paths = view.state_paths(number - 1)
    found: list[Cause] = []
    for d, _, src in view.values(number - 1):  # a table row read while the report was written
        for r in src.rows if src is not None else ():
            row = Viewer().use(r)
            found.append(Cause(("report", d, row), f"{d}: {row}, read as the report was written"))
    for k in view.orders(number - 1):  # an order's line: what the order changed, value by value
        found += [Cause(c.key, f"{c.key[2]}: {c.text}") for c in order_causes(turn, account,
                                                                            view.data["orders"]["used"][k])]
    for path in paths:
        # A line showing several values, or one it does not name, says which value each change made.
        named = len(paths) == 1 and _field(path, account).replace("_", " ").lower() in text.lower()
        for c in side.causes(f.turn, path) or []:
            found.append(c if named else Cause(c.key, f"{path}: {c.text}"))
    return found, paths


def _field(path: str, account: str) -> str:
    """The field a path is of: its last part, or the one before the player's key of a per-key value."""
    parts = segments(path)
    return parts[-2] if len(parts) > 1 and parts[-1] == account else parts[-1]


def _hunk(h: Hunk, f: FileChange, old: _Side, new: _Side, reads: tuple[Any, Any]) -> Hunk:
    made: dict[int, tuple[list[Cause], list[str]] | None] = {}
    for k, line in enumerate(h.lines):
        if line.sign == "-":
            made[k] = _line_causes(old, f, reads[0], line.old, line.text)
        elif line.sign == "+":
            made[k] = _line_causes(new, f, reads[1], line.new, line.text)
    removed = [c for k, m in made.items() if h.lines[k].sign == "-" and m for c in m[0]]
    added = [c for k, m in made.items() if h.lines[k].sign == "+" and m for c in m[0]]
    traced = old.turn(f.turn) is not None and new.turn(f.turn) is not None
    lines = []
    for k, line in enumerate(h.lines):
        m = made.get(k)
        if m is None:
            lines.append(line)
            continue
        found, paths = m
        if line.sign == "-":
            why = _shown(found, added if new.turn(f.turn) is not None else None)
        else:
            why = _shown(found, removed if old.turn(f.turn) is not None else None)
        if not why and traced and (found or paths):
            befores = [(old.before(f.turn, p), new.before(f.turn, p)) for p in paths]
            said = next((_alike(len(found), f.turn, b) for b in befores if b[0] != b[1]), "")
            why = [said] if said else _own(found)
        lines.append(dataclasses.replace(line, why=tuple(why)) if why else line)
    return dataclasses.replace(h, lines=tuple(lines))


def fill(diff: GameDiff, old_root: Path, new_root: Path) -> GameDiff:
    """`diff` (of the games in `old_root` and `new_root`) with the `why` of each changed line filled from their
    traces, where they have them."""
    old, new = _Side(old_root), _Side(new_root)
    files = []
    for f in diff.files:
        if old.turn(f.turn) is None and new.turn(f.turn) is None:
            files.append(f)
            continue
        reads = (_report(old, f), _report(new, f)) if f.kind == "report" else (None, None)
        files.append(dataclasses.replace(f, hunks=tuple(_hunk(h, f, old, new, reads) for h in f.hunks)))
    diff.files = files
    diff.values = [_value(v, old, new) for v in diff.values]
    return diff
