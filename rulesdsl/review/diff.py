"""Two game folders (or two rulesets and a game folder, replayed under both) -> every difference between them,
turn by turn and player by player, as data (`GameDiff`) and as a unified text diff.

What is compared, in each turn both folders hold (the start included):
- each report's text (reports/ACCOUNT-name.txt), by line: its data (.json), page (.html) and mail follow
  from the same values and would only repeat it;
- the news (news.txt) and the mail no player was given (unrouted.txt), by line;
- the state (state.yaml) by JSON path, value by value (`$.Country.MEX.troops: 4 -> 5`), without its
  `$.ruleset` section, which names the rules' version and would differ whenever the rules do; a list that
  has its equal items matched first, so that an item added or taken is one change;
- the lines refused in the new game that the old took (game/replay.py's `Unread`, read from the reports'
  data).
A turn that only one folder holds is listed as such. Everything is sorted, and paths are shown relative to
the game folder under the label the user gave it (the folder or the ruleset as typed): the same folders give
the same bytes.

Every shown line is a `Line` (a state value a `ValueChange`) whose `why` is what made it, one cause an item,
shown under it: review/why.py fills it from the two games' traces (`rulesdsl turn --trace`; the replays of
compare_rules are traced), and leaves it empty where neither game has one.
"""

from __future__ import annotations

import difflib
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from rulesdsl.game import yamlio
from rulesdsl.game.errors import GameError
from rulesdsl.game.folder import GameFolder, json_path, turn_name
from rulesdsl.game.progress import NULL, Progress
from rulesdsl.game.replay import newly_refused, replay
from rulesdsl.review import why
from rulesdsl.review.changes import FileChange, GameDiff, Hunk, Line, ValueChange

__all__ = ["FileChange", "GameDiff", "Hunk", "Line", "ValueChange", "compare_folders", "compare_rules",
           "summary", "text"]

CONTEXT = 3  # lines of context around a change, as `diff -u`
_SKIPPED = ("ruleset",)  # state sections that are not the game's (see the docstring)


def diff_lines(old: list[str], new: list[str]) -> tuple[Hunk, ...]:
    """The hunks of a unified diff of two texts' lines, with `CONTEXT` lines around each change."""
    hunks = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for group in matcher.get_grouped_opcodes(CONTEXT):
        lines: list[Line] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [Line(" ", old[i], i + 1, j1 + k + 1) for k, i in enumerate(range(i1, i2))]
                continue
            lines += [Line("-", old[i], i + 1, 0) for i in range(i1, i2)]
            lines += [Line("+", new[j], 0, j + 1) for j in range(j1, j2)]
        first, last = group[0], group[-1]
        old_len, new_len = last[2] - first[1], last[4] - first[3]
        # As diff -u: an empty side's range starts at the line before it.
        hunks.append(Hunk(first[1] + 1 if old_len else first[1], old_len,
                          first[3] + 1 if new_len else first[3], new_len, tuple(lines)))
    return tuple(hunks)


def _lines(path: Path) -> list[str] | None:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return None


def _compare_file(old: Path, new: Path, turn: int, kind: str, name: str, rel: str) -> FileChange | None:
    try:
        if old.read_bytes() == new.read_bytes():
            return None
    except FileNotFoundError:
        pass
    before, after = _lines(old), _lines(new)
    if before is None and after is None:
        return None
    status = "removed" if after is None else "added" if before is None else "changed"
    hunks = diff_lines(before or [], after or [])
    return FileChange(turn, kind, name, rel, hunks, status) if hunks else None


def _shown(value: Any) -> str:
    """A state value as one line: numbers and words as YAML writes them, text quoted as JSON."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (dict, list)) and not value:
        return "{}" if isinstance(value, dict) else "[]"
    return str(value)


_NONE = object()  # no value at this path on one side


def _changes(a: Any, b: Any, parts: list[Any], out: list[tuple[str, str | None, str | None]]) -> None:
    """The leaves that differ under `a` and `b`, walked together in the order the state holds them (the old
    one's keys, then keys only the new one has), so a reader finds a country's values together. Equal
    subtrees are skipped at once: most of a state does not change in a turn."""
    if a == b and type(a) is type(b):
        return
    a_tree = isinstance(a, (dict, list)) and (bool(a) or isinstance(b, type(a)))
    b_tree = isinstance(b, (dict, list)) and (bool(b) or isinstance(a, type(b)))
    if (a_tree and (b_tree or b is _NONE)) or (b_tree and a is _NONE):
        if isinstance(a, dict) or isinstance(b, dict):
            da = a if isinstance(a, dict) else {}
            db = b if isinstance(b, dict) else {}
            for key in [*da, *(k for k in db if k not in da)]:
                if parts or key not in _SKIPPED:
                    _changes(da.get(key, _NONE), db.get(key, _NONE), [*parts, key], out)
            return
        la = a if isinstance(a, list) else []
        lb = b if isinstance(b, list) else []
        if not la or not lb:
            for i in range(max(len(la), len(lb))):
                _changes(la[i] if i < len(la) else _NONE, lb[i] if i < len(lb) else _NONE, [*parts, i], out)
            return
        _aligned(la, lb, parts, out)
        return
    out.append((json_path(parts), None if a is _NONE else _shown(a), None if b is _NONE else _shown(b)))


def _aligned(la: list[Any], lb: list[Any], parts: list[Any], out: list[tuple[str, str | None, str | None]]) -> None:
    """Two lists, their equal items matched in order first (difflib): an item added to or taken from a list (a
    sector a player now sees, a unit's row) is one change at its own index, not a change of every item after
    it. Items in place of others are compared one with one (a value changed in place, as index by index), the
    rest added or removed."""
    keys = [json.dumps(x, sort_keys=True, default=str) for x in la], \
        [json.dumps(x, sort_keys=True, default=str) for x in lb]
    matcher = difflib.SequenceMatcher(None, keys[0], keys[1], autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        both = min(i2 - i1, j2 - j1)
        for k in range(both):
            _changes(la[i1 + k], lb[j1 + k], [*parts, j1 + k], out)
        for i in range(i1 + both, i2):
            _changes(la[i], _NONE, [*parts, i], out)
        for j in range(j1 + both, j2):
            _changes(_NONE, lb[j], [*parts, j], out)


def _state(path: Path) -> Any:
    try:
        return yamlio.load_text(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return _NONE


def _who(data: Any) -> dict[str, str]:
    """Who each `$.players[i]` of a state is: `ACCOUNT name`."""
    players = data.get("players") if isinstance(data, dict) else None
    return {f"$.players[{i}]": f"{p.get('account', '')} {p.get('name', '')}".strip()
            for i, p in enumerate(players if isinstance(players, list) else []) if isinstance(p, dict)}


def _player(path: str, who: dict[str, str]) -> str:
    if not path.startswith("$.players["):
        return ""
    return who.get(path[:path.index("]") + 1], "")


def _compare_state(old: Path, new: Path, turn: int) -> list[ValueChange]:
    try:
        if old.read_bytes() == new.read_bytes():
            return []
    except FileNotFoundError:
        pass
    before, after = _state(old), _state(new)
    out: list[tuple[str, str | None, str | None]] = []
    _changes(before, after, [], out)
    who = _who(before) | _who(after)
    return [ValueChange(turn, path, a, b, _player(path, who)) for path, a, b in out]


def compare_folders(old: Path, new: Path, old_label: str, new_label: str, progress: Progress = NULL) -> GameDiff:
    """Every difference between two game folders (see the module's docstring)."""
    old_turns, new_turns = GameFolder(old).turn_numbers(), GameFolder(new).turn_numbers()
    for label, turns in ((old_label, old_turns), (new_label, new_turns)):
        if not turns:
            raise GameError(f"{label}: not a game folder (no turns/turn-NNN)")
    result = GameDiff(old_label, new_label)
    result.turns = sorted(set(old_turns) & set(new_turns))
    result.only_old = sorted(set(old_turns) - set(new_turns))
    result.only_new = sorted(set(new_turns) - set(old_turns))
    for turn in result.turns:
        progress.stage(f"comparing turn {turn}")
        a, b = old / "turns" / turn_name(turn), new / "turns" / turn_name(turn)
        names = sorted({p.name for side in (a, b) for p in (side / "reports").glob("*.txt")})
        result.reports += len(names)
        for name in names:
            rel = f"turns/{turn_name(turn)}/reports/{name}"
            change = _compare_file(a / "reports" / name, b / "reports" / name, turn, "report", name[:-4], rel)
            if change is not None:
                result.files.append(change)
        for kind in ("news", "unrouted"):
            rel = f"turns/{turn_name(turn)}/{kind}.txt"
            change = _compare_file(a / f"{kind}.txt", b / f"{kind}.txt", turn, kind, kind, rel)
            if change is not None:
                result.files.append(change)
        result.values += _compare_state(a / "state.yaml", b / "state.yaml", turn)
        result.unread += newly_refused(a / "reports", b / "reports", turn)
    return why.fill(result, old, new)


def compare_rules(old_rules: Path, new_rules: Path, game: Path, old_label: str, new_label: str,
                  progress: Progress = NULL, trace: bool = True) -> GameDiff:
    """The game in `game` replayed under both rulesets (into a temporary folder, removed after), compared; with
    `trace`, replayed traced, so that each changed line says what made it."""
    work = Path(tempfile.mkdtemp(prefix="rulesdsl-diff-"))
    try:
        notes = []
        for rules, side, label in ((old_rules, "old", old_label), (new_rules, "new", new_label)):
            progress.stage(f"replaying under {label}")
            done = replay(game, work / side, rules, trace=trace)
            if done.not_played:
                notes.append(f"under {label} the game is over before turn {done.not_played[0]}: turn(s) "
                             f"{', '.join(map(str, done.not_played))} not played")
        result = compare_folders(work / "old", work / "new", old_label, new_label, progress)
        result.notes += notes
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ------------------------------------------------------------ text

def summary(d: GameDiff) -> str:
    """One line: what was compared, and how much differs from which turn."""
    span = f" (turn {d.turns[0]} to {d.turns[-1]})" if len(d.turns) > 1 else f" (turn {d.turns[0]})" if d.turns else ""
    head = f"{len(d.turns)} turn(s) compared{span}"
    if not d.differs:
        return f"{head}, {d.reports} report(s): nothing differs"
    reports = [f for f in d.files if f.kind == "report"]
    parts = [head]
    first = min((f.turn for f in reports), default=None)
    since = f", from turn {first}" if first is not None else ""
    parts.append(f"{len(reports)} of {d.reports} report(s) changed{since}")
    news = sorted({f.turn for f in d.files if f.kind == "news"})
    if news:
        parts.append(f"news changed in {len(news)} turn(s), from turn {news[0]}")
    if d.values:
        parts.append(f"{len(d.values)} state value(s) changed, from turn {min(v.turn for v in d.values)}")
    parts.append(f"{len(d.unread)} line(s) no longer read")
    if d.only_old:
        parts.append(f"turn(s) only in {d.old}: {', '.join(map(str, d.only_old))}")
    if d.only_new:
        parts.append(f"turn(s) only in {d.new}: {', '.join(map(str, d.only_new))}")
    return "; ".join(parts)


def _why(items: tuple[str, ...]) -> list[str]:
    return [f"#   {item}" for item in items]


def text(diffs: list[GameDiff]) -> str:
    """A unified diff of every change, turn by turn, then a summary line for each comparison (and for all,
    when there are several)."""
    out: list[str] = []
    for d in diffs:
        if d.title and d.differs:
            out.append(f"### {d.title}")
        out += [f"note: {n}" for n in d.notes]
        for turn, files, values, unread in d.by_turn():
            out.append(f"=== turn {turn} ===")
            for f in files:
                out.append(f"--- {d.old}: {f.path}" + (" (none)" if f.status == "added" else ""))
                out.append(f"+++ {d.new}: {f.path}" + (" (none)" if f.status == "removed" else ""))
                for hunk in f.hunks:
                    out.append(hunk.header)
                    for line in hunk.lines:
                        out.append(f"{line.sign}{line.text}")
                        out += _why(line.why)
            if values:
                out.append(f"state of turn {turn} (turns/{turn_name(turn)}/state.yaml):")
                for v in values:
                    out.append(f"  {v}")
                    out += _why(v.why)
            for u in unread:
                out.append(f"refused: {u}")
    for d in diffs:
        title = f"{d.title}: " if d.title else ""
        out.append(f"summary: {title}{summary(d)}")
    if len(diffs) > 1 or any(d.title for d in diffs):
        changed = [d.title for d in diffs if d.differs]
        out.append(f"summary: {len(diffs)} game(s) compared; "
                   + (f"{len(changed)} differ: {', '.join(changed)}" if changed else "nothing differs"))
    return "\n".join(out) + "\n"
