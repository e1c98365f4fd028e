"""A traced turn + a question (a state value's JSON path, or a line of a player's report) -> the answer as plain text.

The answer is the chain of changes that made the value this turn, in the order they happened: each with its
`.rules` file:line and the line's text, its rule, the order or phase being carried out, the table rows and
chance draws of its step before it (game/trace.py says what a step is), and the values its step read before
it, each with the change that made it earlier in the turn. A report line is answered by what it shows: a news
item or a message is the rule that said it and what its step changed and read before; any other line, the
values of the report's data (reports/ACCOUNT-name.json) the line read when rendered (review/shown.py), each
with the state values the trace's `shown` record says it was worked out from; an order's line, what the order
changed.

For a player (`--player`), only what that player may know: their own orders in full, another player's only as
"an order of another player"; a table's row only where the table is not secret, a draw's odds only where no
secret parameter or table sets them; and only values the player may see: their own position's fields, per-key
values under their own key, their own numbered things, and the values their report shows as they are. Without
it, the GM's answer: everything.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

from rulesdsl.game import trace
from rulesdsl.game.errors import GameError
from rulesdsl.game.folder import GameFolder, read_yaml, turn_name
from rulesdsl.game.names import report_base
from rulesdsl.review.shown import line_sources
from rulesdsl.runtime.spec import RulesetSpec

_DECIMAL = re.compile(r"-?[0-9]+\.[0-9]+")
_SEGMENT = re.compile(r"\.([^.\[\]]+)|\[(\d+|\*)\]")


@dataclass
class Turn:
    """What explain reads of one turn: its trace, the state before and after it, and the ruleset's lines."""

    number: int
    unit: str
    records: list[dict[str, Any]]
    before: dict[str, Any]
    after: dict[str, Any]
    sources: dict[str, list[str]] = field(default_factory=dict)
    root: Path | None = None  # the game folder, where the grid's values are read from (`value`)
    steps: dict[int, dict[str, Any]] = field(default_factory=dict)  # each step's own record, by number
    # The changes by the path they change, each a list of record indexes in order (`set_before`).
    changed: dict[str, list[int]] = field(default_factory=dict)
    _games: dict[bool, Any] = field(default_factory=dict)  # the states after and before, loaded as games
    # Each player's `shown` record's values, by account (`sources`).
    shown: dict[str, list[list[Any]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.steps = {r["step"]: r for r in self.records if r.get("ev") == "step"}
        for i, r in enumerate(self.records):
            if r.get("ev") == "change":
                self.changed.setdefault(r["path"], []).append(i)
            elif r.get("ev") == "shown":
                self.shown[str(r.get("player"))] = r["values"]

    @cached_property
    def ruleset(self) -> tuple[RulesetSpec, str] | None:
        """The game's compiled ruleset and its module's file; None for a turn read without its folder."""
        return GameFolder(self.root).load_spec() if self.root is not None else None

    def value(self, after: bool, path: str) -> tuple[bool, Any]:
        """(found, value) of `path` in the state after the turn or before it. A grid's sector is read from the
        game loaded from that state: the state file keeps a grid by layer (a drawn map, runs of sectors), which
        only the runtime reads back."""
        state = self.after if after else self.before
        parts = segments(path)
        ruleset = self.ruleset
        grid = ruleset[0].grid if ruleset is not None else None
        if ruleset is None or grid is None or parts[0] != grid.name or len(parts) < 3:
            return value_at(state, path)
        if after not in self._games:
            from rulesdsl.runtime.state import load

            self._games[after] = load(ruleset[0], state, ruleset[1])
        sector = self._games[after].index[grid.name].get(parts[1])
        f = next((f for f in grid.fields if f.name == parts[2]), None)
        if sector is None or f is None:
            return False, None
        value = getattr(sector, f.attr)
        if len(parts) > 3:
            if not isinstance(value, dict) or parts[3] not in value:
                return False, None
            value = value[parts[3]]
        return True, trace.enc(value)

    def doing_of(self, step: int | None) -> dict[str, Any]:
        """What the engine was doing as step `step` began: its own, or (a round that says none) the step's it is
        inside."""
        while step is not None:
            rec = self.steps.get(step) or {}
            if "doing" in rec:
                return rec["doing"] or {}
            step = rec.get("in")
        return {}

    def chain(self, step: int) -> list[int]:
        """Step `step` and the steps it is a round inside, innermost first."""
        out: list[int] = []
        here: int | None = step
        while here is not None:
            out.append(here)
            here = (self.steps.get(here) or {}).get("in")
        return out

    def before_in(self, upto: int, step: int) -> Iterator[int]:
        """The records that came before record `upto` in its step `step`, nearest first: the step's own, those
        of the rounds it is inside (what their round did before this one began) and those of rounds inside it;
        not a sibling round's (another division's move)."""
        chain = self.chain(step)
        top = chain[-1]
        for i in range(upto - 1, -1, -1):
            r = self.records[i]
            if r.get("ev") == "step" and r.get("step") == top:
                return
            s = r.get("step")
            if s in chain or self.within(s, step):
                yield i

    def within(self, step: int | None, outer: int) -> bool:
        """Whether step `step` is `outer`, or a round of a loop inside it (at any depth)."""
        while step is not None:
            if step == outer:
                return True
            step = (self.steps.get(step) or {}).get("in")
        return False

    def set_before(self, path: str, upto: int) -> int | None:
        """The index of the last change of `path` (or of the per-key value or numbered thing it is part of)
        before record `upto`; None when none was made this turn before it."""
        found = None
        parts = segments(path)
        for k in range(len(parts), 0, -1):
            for i in reversed(self.changed.get(join(parts[:k]), [])):
                if i < upto:
                    found = i if found is None else max(found, i)
                    break
        return found

    def player_index(self, account: str) -> int:
        for i, p in enumerate(self.after.get("players", [])):
            if str(p.get("account")) == account:
                return i
        raise GameError(f"no player has the account {account!r} in this game")

    def player_name(self, account: str | None) -> str:
        for p in self.after.get("players", []):
            if str(p.get("account")) == account:
                return str(p.get("name", account))
        return str(account)

    def source_line(self, at: list[Any]) -> str:
        lines = self.sources.get(str(at[0]), [])
        n = int(at[1])
        return lines[n - 1].strip() if 0 < n <= len(lines) else ""

    def inside(self, at: list[Any], most: int = 4) -> list[str]:
        """The `if`, `else`, `for each` and `while` lines the line `at` is inside, outermost first, read from
        the ruleset by its indentation (the layout `rulesdsl fmt` keeps): why that line ran."""
        lines = self.sources.get(str(at[0]), [])
        n = int(at[1])
        if not 0 < n <= len(lines):
            return []
        indent = _indent(lines[n - 1])
        found: list[str] = []
        k = n - 1
        while k > 0 and indent > 0 and len(found) < most:
            k -= 1
            text = lines[k].strip()
            if not text or text.startswith("#") or _indent(lines[k]) >= indent:
                continue
            indent = _indent(lines[k])
            if text.startswith("} else"):
                opening = next((lines[j].strip() for j in range(k - 1, -1, -1)
                                if _indent(lines[j]) == indent and lines[j].strip().startswith("if ")), "")
                found.append(f"{text}   (not: {opening})" if opening else text)
            elif text.startswith(("if ", "for each ", "while ", "for ")):
                found.append(text)
        return found[::-1]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def load_turn(root: Path, number: int) -> Turn:
    """The turn `number` of the game in `root`; GameError when it was not played or not traced."""
    folder = GameFolder(root)
    played = folder.turn_numbers()
    if number not in played or number == played[0]:
        raise GameError(f"{root}: turn {number} was not played (the turns played are "
                        f"{', '.join(str(t) for t in played[1:]) or 'none yet'})")
    here = folder.turns_dir / turn_name(number)
    path = here / trace.FILE_NAME
    if not path.is_file():
        newest = played[-1]
        again = (f"rulesdsl rollback {root} && rulesdsl turn {root} --trace" if number == newest else
                 f"copy the game folder, roll the copy back to turn {number - 1} (`rulesdsl rollback`, once for each "
                 f"later turn) and run turn {number} in it again with `rulesdsl turn COPY --trace`")
        raise GameError(f"turn {number} was run without --trace, so nothing recorded what made its values. The same "
                        f"orders make the same turn byte for byte, so it can be run again traced: {again}")
    try:
        head, records = trace.read(path)
    except trace.TraceError as e:
        raise GameError(str(e)) from None
    before = read_yaml(folder.turns_dir / turn_name(max(t for t in played if t < number)) / "state.yaml", "state")
    after = read_yaml(here / "state.yaml", "state")
    sources: dict[str, list[str]] = {}
    for f in sorted((root / "rules").glob("*.rules")):
        sources[f.name] = f.read_text(encoding="utf-8", errors="replace").splitlines()
    return Turn(number, str(head.get("unit", "turn")), records, before, after, sources, root)


# ------------------------------------------------------------ paths and values
def segments(path: str) -> list[str]:
    """`$.players[2].cash` -> ["players", "2", "cash"]; GameError for what is not such a path."""
    if not path.startswith("$"):
        raise GameError(f"{path!r} is not a JSON path of the state (they start with `$.`, as `$.Country.MEX.troops`)")
    parts, pos = [], 1
    while pos < len(path):
        m = _SEGMENT.match(path, pos)
        if m is None:
            raise GameError(f"{path!r}: cannot read the path from {path[pos:]!r} on")
        parts.append(m.group(1) or m.group(2))
        pos = m.end()
    return parts


def normal(path: str, turn: Turn) -> str:
    """The path as the trace writes it: a player named by account (`$.players.1001.cash`) becomes their index."""
    parts = segments(path)
    if len(parts) > 1 and parts[0] == "players" and not parts[1].isdigit():
        parts[1] = str(turn.player_index(parts[1]))
    elif len(parts) > 1 and parts[0] == "players":
        turn.player_name(parts[1])
    return join(parts)


def join(parts: list[str]) -> str:
    out = "$"
    for i, p in enumerate(parts):
        out += f"[{p}]" if i == 1 and parts[0] == "players" else f".{p}"
    return out


def value_at(state: dict[str, Any], path: str) -> tuple[bool, Any]:
    """(found, value) of `path` in a state file's data; a per-key value not stored is not found (its default).
    A numbered thing's instance is a row of its section (`$.Crate.1.2`: owner 1's crate 2; `$.Fleet.4`)."""
    node: Any = state
    parts = segments(path)
    while parts:
        p = parts.pop(0)
        if isinstance(node, dict) and isinstance(node.get("columns"), list) and isinstance(node.get("rows"), list):
            cols = node["columns"]
            want = [p] + ([parts.pop(0)] if cols[:1] == ["owner"] and parts else [])
            keys = [c for c in ("owner", "number") if c in cols]
            row = next((r for r in node["rows"] if [str(r[cols.index(c)]) for c in keys] == want), None)
            if row is None:
                return False, None
            node = dict(zip(cols, row, strict=False))
        elif isinstance(node, list):
            if not p.isdigit() or int(p) >= len(node):
                return False, None
            node = node[int(p)]
        elif isinstance(node, dict) and p in node:
            node = node[p]
        else:
            return False, None
    return True, node


def show(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, str) and _DECIMAL.fullmatch(value):
        return value  # a decimal, which the trace writes as text to keep it exact
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(show(v) for v in value) + "]"
    if isinstance(value, dict) and set(value) == {"order", "player"}:
        return f"order {show(value['order'])}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {show(v)}" for k, v in value.items()) + "}"
    return str(value)


def _covers(asked: str, changed: str) -> bool:
    """A change of `changed` changes `asked`: the same value, a part of it (one key of a per-key value), or the
    whole it belongs to (a per-key value cleared; a numbered thing made or destroyed)."""
    return asked == changed or changed.startswith(asked + ".") or asked.startswith(changed + ".")


def _reset_of(path: str, records: list[dict[str, Any]]) -> bool:
    for r in records:
        if r.get("ev") == "reset":
            pattern = re.escape(r["path"]).replace(r"\*", r"[^.\]]+")
            if re.fullmatch(pattern + r"(\..*)?", path):
                return True
    return False


# ------------------------------------------------------------ who may know what
@dataclass
class Viewer:
    """Who asks: None for the GM, else a player's account, with what that player may see."""

    account: str | None = None
    index: int = -1
    shown: set[str] = field(default_factory=set)  # the state paths their report shows
    owned: frozenset[str] = frozenset()  # the things numbered per owner: their own are theirs to see

    @property
    def gm(self) -> bool:
        return self.account is None

    def sees(self, path: str) -> bool:
        if self.gm:
            return True
        parts = segments(path)
        if parts[:2] == ["players", str(self.index)]:
            return True
        if len(parts) >= 4 and parts[-1] == self.account:
            return True  # one key of a per-key value: theirs
        if len(parts) >= 3 and parts[0] in self.owned and parts[1] == self.account:
            return True  # a thing of theirs (`$.Division.1.3`: player 1's division 3)
        return any(path == s or path.startswith(s + ".") for s in self.shown)

    def doing(self, d: dict[str, Any], turn: Turn) -> str:
        if "order" not in d:
            return str(d.get("what") or "the engine")
        if d.get("player") is None:
            return f"the GM's order {show(d['order'])}" if self.gm else "an order of the GM"
        if self.gm:
            name = turn.player_name(d["player"])
            where = f"line {d['line']} of its orders" if d.get("line") else "on file from an earlier turn"
            return f"order {show(d['order'])} of {name} (account {d['player']}; {where})"
        if d["player"] == self.account:
            where = f"line {d['line']} of your orders" if d.get("line") else "on file from an earlier turn"
            return f"your order {show(d['order'])} ({where})"
        return "an order of another player"

    def use(self, r: dict[str, Any]) -> str:
        if r["ev"] == "table":
            if r.get("secret") and not self.gm:
                return f"a row of table {r['table']}, which the GM keeps secret"
            return f"table {r['table']}[{', '.join(show(k) for k in r['key'])}] = {show(r['row'])}"
        func, stream, result = r["func"], show(r["stream"]), r["result"]
        odds = r.get("odds")
        if r.get("secret") and not self.gm:
            what = f"{func} {stream} (its odds are secret)"
        elif func == "chance":
            what = f"chance {stream} at {show(odds)}%"
        elif func == "roll":
            what = f"roll {stream} of 1 to {show(odds)}"
        elif func in ("pick", "shuffle"):
            what = f"{func} {stream} among {len(odds) if isinstance(odds, list) else show(odds)}"
        else:
            what = f"draw {stream}"
        if func == "chance":
            return f"{what}: {'it came up' if result else 'it did not come up'}"
        return f"{what}: {show(result)}"


def viewer_for(root: Path, turn: Turn, account: str | None) -> Viewer:
    if account is None:
        return Viewer()
    index = turn.player_index(account)
    owned = frozenset(name for name, section in turn.after.items()
                      if isinstance(section, dict) and section.get("columns", [])[:1] == ["owner"])
    return Viewer(account, index, {src.paths[0] for src in sources(turn, account).values() if src.direct}, owned)


# ------------------------------------------------------------ reports
def report_of(root: Path, turn: Turn, account: str) -> tuple[dict[str, Any], list[str]]:
    """The player's report this turn: its data and its text's lines."""
    name = turn.player_name(account)
    base = root / "turns" / turn_name(turn.number) / "reports" / report_base(account, name)
    try:
        data = json.loads(base.with_suffix(".json").read_text(encoding="utf-8"))
        text = base.with_suffix(".txt").read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise GameError(f"{base}: cannot read {name}'s report: {e.strerror or e}") from None
    return data, text


class Source(NamedTuple):
    """What one value of a report was worked out from (the trace's `shown` record): the state values read for
    it (the first trace.SHOWN_READS), whether the report shows the one value read as it is, how many were
    read in all, and the table rows read for it (each {table, key, row, secret}, as a `table` record)."""

    paths: tuple[str, ...]
    direct: bool
    total: int
    rows: tuple[dict[str, Any], ...] = ()


def sources(turn: Turn, account: str) -> dict[str, Source]:
    """Each value of the player's report that was worked out from the state, by its path in the report's data."""
    return {v[0]: Source(tuple(v[1]), bool(v[2]), int(v[3]),
                         tuple({"ev": "table", "table": t, "key": k, "row": row, "secret": secret}
                               for t, k, row, secret in (v[4] if len(v) > 4 else ())))
            for v in turn.shown.get(account, [])}


def source_of(found: dict[str, Source], data_path: str) -> tuple[str, Source] | None:
    """The source of a value of the report: its own, or that of the nearest value holding it (a list made
    whole by the turn, as a country's combat lines), with that value's path."""
    path = data_path
    while True:
        if path in found:
            return path, found[path]
        cut = max(path.rfind("."), path.rfind("["))
        if cut <= 1:
            return None
        path = path[:cut]


@dataclass
class ReportView:
    """A player's report this turn as explain reads it: its text's lines, the report-data paths each line
    shows (review/shown.py: the report rendered again from its data, each read noted), and what each value of
    the data was worked out from (the trace)."""

    text: list[str]
    lines: list[tuple[str, ...]]
    sources: dict[str, Source]
    data: dict[str, Any]

    def orders(self, n: int) -> list[int]:
        """The indexes of the player's orders carried out (`orders.used`) that line `n` shows."""
        found = (re.fullmatch(r"\$\.orders\.used\[(\d+)\](\..*)?", d) for d in self.lines[n])
        return list(dict.fromkeys(int(m.group(1)) for m in found if m))

    def values(self, n: int) -> list[tuple[str, str, Source | None]]:
        """What line `n` (0-based) shows: (the data path, the value holding it that the trace knows, its
        source); an engine's field (orders, news) or a value no rule changes has none."""
        out: list[tuple[str, str, Source | None]] = []
        for d in self.lines[n] if n < len(self.lines) else ():
            got = source_of(self.sources, d)
            out.append((d, got[0], got[1]) if got is not None else (d, d, None))
        return out

    def state_paths(self, n: int) -> list[str]:
        """The state values line `n` shows or was worked out from, each once, in the order read."""
        out: dict[str, None] = {}
        for _, _, src in self.values(n):
            if src is not None:
                out.update(dict.fromkeys(src.paths))
        return list(out)


def report_view(root: Path, turn: Turn, account: str) -> ReportView:
    """The player's report of `turn` with what each line shows; GameError where its text cannot be made again
    from its data (a template changed since), so nothing is said of lines that may not be the report's."""
    from rulesdsl.compiler import load_template

    data, text = report_of(root, turn, account)
    try:
        template = load_template((turn.ruleset or GameFolder(root).load_spec())[0])
    except (GameError, OSError) as e:
        raise GameError(f"cannot load the game's report template: {e}") from None
    made = line_sources(template, data)
    if made is None or made.text.splitlines() != text:
        raise GameError(f"{turn.player_name(account)}'s report of {turn.unit} {turn.number} is not what the game's "
                        "report template makes of its data (was the template changed after the turn?), so its "
                        "lines cannot be tied to the values they show")
    return ReportView(text, [tuple(ls) for ls in made.lines], sources(turn, account), data)


# ------------------------------------------------------------ answers
_USES_SHOWN = 6
_READS_SHOWN = 6  # of a change's or a saying's step, the nearest before it
_CHANGES_SHOWN = 8  # of a news item's or a message's step, the nearest before it


def _uses(turn: Turn, upto: int, step: int, listed: set[int], viewer: Viewer) -> list[str]:
    """The table rows and draws of step `step` before record `upto` (Turn.before_in: with the rounds it is in and
    those inside it), each once in an answer, the nearest _USES_SHOWN of them.

    A player is shown those of a step that is theirs alone: their own order, or one round of a phase's loop
    over a thing (a country's combat). A whole phase's step, or another player's order, reads rows and draws
    about others too, whose keys would tell what the others have and do."""
    records = turn.records
    step_rec = turn.steps.get(step)
    if not viewer.gm and (step_rec is None or not _own_step(step_rec, turn, viewer)):
        return []
    found = []
    for i in turn.before_in(upto, step):
        r = records[i]
        if r.get("ev") in ("table", "draw") and i not in listed and \
                (viewer.gm or r["step"] == step or _own_step(turn.steps[r["step"]], turn, viewer)):
            found.append(i)  # its step's, or a round's around or inside it that the viewer may read
    listed.update(found)
    out = [viewer.use(records[i]) for i in reversed(found[:_USES_SHOWN])]
    if len(found) > _USES_SHOWN and viewer.gm:
        out.insert(0, f"{len(found) - _USES_SHOWN} earlier table rows and draws of the same step (not listed)")
    return out


def _reads(turn: Turn, upto: int, step: int, viewer: Viewer) -> list[str]:
    """The values the rules read in step `step` before record `upto` (Turn.before_in), the nearest _READS_SHOWN
    of them (each once, with the value it had then), each with where that value came from: the change that
    made it earlier in the turn, or the turn's start. A player is shown only values they may see."""
    records = turn.records
    found: dict[str, int] = {}
    for i in turn.before_in(upto, step):
        r = records[i]
        if r.get("ev") == "read" and r["path"] not in found and viewer.sees(r["path"]):
            found[r["path"]] = i
            if len(found) == _READS_SHOWN:
                break
    out = []
    for path, i in sorted(found.items(), key=lambda kv: kv[1]):
        made = turn.set_before(path, i)
        if made is None:
            origin = f"as the {turn.unit} began"
        else:
            c = records[made]
            at = c["at"]
            where = f"{at[0]}:{at[1]}" if at[1] else str(at[0])
            origin = f"set at {where}, while {viewer.doing(_doing(turn, c), turn)}"
        value = show(records[i]["value"]) if "value" in records[i] else f"({records[i]['size']} items)"
        out.append(f"{path} = {value} ({origin})")
    return out


def _own_step(step: dict[str, Any], turn: Turn, viewer: Viewer) -> bool:
    """A step whose table rows and draws the player may read: their own order, or a round about something of
    theirs or of nobody's (a country's combat, their own division), inside rounds they may read too. A whole
    phase's step is about everyone."""
    doing = turn.doing_of(step.get("step"))
    if "order" in doing:
        return bool(doing.get("player") == viewer.account)
    here: dict[str, Any] | None = step
    first = True
    while here is not None:
        about = here.get("about")
        if about is None and first:
            return False
        if about is not None and not _public(about, turn, viewer):
            return False
        first = False
        here = turn.steps.get(here["in"]) if "in" in here else None
    return True


def _what(r: dict[str, Any]) -> str:
    op = r["op"]
    if op == "cost":
        return f"{show(r['old'])} -> {show(r['new'])}: what the order cost"
    if op == "refund":
        return f"{show(r['old'])} -> {show(r['new'])}: its cost given back, as the order failed"
    if op == "budget":
        return f"{show(r['old'])} -> {show(r['new'])}: the order counted against the budget"
    if op == "made":
        return "made"
    if op == "destroyed":
        return "destroyed"
    if op == "add":
        return f"{show(r['item'])} added ({r['size']} in all)"
    if op == "remove":
        return f"{show(r['item'])} removed ({r['size']} left)"
    if op == "clear":
        return f"cleared (it held {show(r['old'])})"
    return f"{show(r['old'])} -> {show(r['new'])}"


def _project(r: dict[str, Any], asked: str) -> dict[str, Any]:
    """A change of a whole per-key value as the change of the one key asked about."""
    if asked == r["path"] or not asked.startswith(r["path"] + ".") or r["op"] not in ("set", "clear"):
        return r
    key = asked[len(r["path"]) + 1:]
    old = r["old"].get(key) if isinstance(r.get("old"), dict) else None
    new = r["new"].get(key) if isinstance(r.get("new"), dict) else None
    return {**r, "op": "set", "old": old, "new": new, "path": asked}


def _at(r: dict[str, Any], turn: Turn) -> list[str]:
    at = r["at"]
    head = f"{at[0]}:{at[1]} ({at[2]})" if at[1] else f"{at[0]} ({at[2]})"
    src = turn.source_line(at) if at[1] else ""
    if not src:
        return [head]
    return [head] + [f"    | {c}" for c in turn.inside(at)] + [f"    > {src}"]


def _step_line(r: dict[str, Any], steps: dict[int, dict[str, Any]], viewer: Viewer, turn: Turn) -> str:
    step = steps.get(r.get("step", 0))
    doing = r.get("doing") or turn.doing_of(r.get("step"))
    said = f"    while {viewer.doing(doing, turn)}"
    # The rounds the record was made in, innermost first: a loop's round inside another's (a division's move in
    # one player's turn of the movement), as far as the viewer may read them.
    rounds = []
    while step is not None:
        about = step.get("about")
        if about is not None and "order" not in turn.doing_of(step.get("step")):
            if not (viewer.gm or _public(about, turn, viewer)):
                break
            rounds.append(_round_name(about, turn, viewer))
        step = steps.get(step["in"]) if "in" in step else None
    if rounds:
        said += ", in its round for " + ", within its round for ".join(rounds)
    return said


def _round_name(about: Any, turn: Turn, viewer: Viewer) -> str:
    if isinstance(about, dict):
        if not viewer.gm:
            return f"your order {show(about['order'])}"
        return f"order {show(about['order'])} of {turn.player_name(about.get('player'))}"
    if any(str(p.get("account")) == str(about) for p in turn.after.get("players", [])):
        return "you" if str(about) == viewer.account else f"{turn.player_name(str(about))} (account {about})"
    return about if isinstance(about, str) else show(about)


def _public(about: Any, turn: Turn, viewer: Viewer) -> bool:
    """A loop's item a player may read: a thing's key, their own numbered thing, themselves, or their own
    order; never another player (an account), another's numbered thing, nor another player's order."""
    if isinstance(about, dict):
        return about.get("player") == viewer.account
    if viewer.gm or str(about) == viewer.account:
        return True
    if isinstance(about, str) and about.startswith("$."):
        return viewer.sees(about)
    accounts = {str(p.get("account")) for p in turn.after.get("players", [])}
    return isinstance(about, (str, int)) and str(about) not in accounts


def _changes(turn: Turn, path: str) -> list[tuple[int, dict[str, Any]]]:
    """The changes of the turn that changed `path` (its index among the records, the change as of `path`)."""
    return [(i, _project(r, path)) for i, r in enumerate(turn.records)
            if r.get("ev") == "change" and _covers(path, r["path"])]


class Cause(NamedTuple):
    """One change (or news item, or message) as a diff shows it under a line: `text`, the GM's answer in one
    line; `key`, the same without the values it changed (the rule's line, what it did, the order or phase,
    the rows and draws), equal in two games where the same rule, order, rows and draws made it."""

    key: tuple[str, ...]
    text: str


def causes(turn: Turn, path: str, among: Iterable[int] | None = None) -> list[Cause]:
    """The changes of the turn that made `path`, as `Cause`s, in order; `among`: the only records that may be
    (an index's candidates, for a tool that asks about many paths). Empty when no rule changed it or the path
    is not the state's."""
    try:
        path = normal(path, turn)
    except GameError:
        return []
    gm, listed = Viewer(), set[int]()
    if among is None:
        found = _changes(turn, path)
    else:
        found = [(i, _project(turn.records[i], path)) for i in sorted(among)
                 if turn.records[i].get("ev") == "change" and _covers(path, turn.records[i]["path"])]
    return [_cause(turn, i, r, listed, gm) for i, r in found]


def _cause(turn: Turn, i: int, r: dict[str, Any], listed: set[int], gm: Viewer) -> Cause:
    at = r["at"]
    where = f"{at[0]}:{at[1]} ({at[2]})" if at[1] else f"{at[0]} ({at[2]})"
    doing = gm.doing(_doing(turn, r), turn)
    uses = _uses(turn, i, r["step"], listed, gm)
    return Cause((where, r["op"], r["path"], doing, *uses),
                 f"{where}, {doing}: {_what(r)}" + (f"; {'; '.join(uses)}" if uses else ""))


def _doing(turn: Turn, r: dict[str, Any]) -> dict[str, Any]:
    """What the engine was doing when record `r` was made: its own, or its step's."""
    return r.get("doing") or turn.doing_of(r.get("step"))


def order_changes(turn: Turn, account: str, order: dict[str, Any]) -> list[int]:
    """The changes made while carrying out one of the player's orders (an entry of their report's
    `orders.used`: its text and line), as indexes of the turn's records."""
    doing = {"order": order.get("text"), "player": account, "line": order.get("line")}
    return [i for i, r in enumerate(turn.records) if r.get("ev") == "change"
            and all(_doing(turn, r).get(key) == v for key, v in doing.items())]


def order_causes(turn: Turn, account: str, order: dict[str, Any]) -> list[Cause]:
    """What one of the player's orders changed, as `Cause`s (the GM's), in order."""
    listed: set[int] = set()
    return [_cause(turn, i, turn.records[i], listed, Viewer()) for i in order_changes(turn, account, order)]


def said_causes(turn: Turn, text: str, account: str | None) -> list[Cause]:
    """The news items (and, with `account`, the messages to that player) that read `text`, as `Cause`s: the
    rule that said it, the order or phase, and the rows and draws of its step before it."""
    gm, listed = Viewer(), set[int]()
    out = []
    for i, r in enumerate(turn.records):
        if r.get("ev") != "said" or r["text"] != text or r["to"] not in (None, account):
            continue
        at = r["at"]
        where = f"{at[0]}:{at[1]} ({at[2]})" if at[1] else f"{at[0]} ({at[2]})"
        doing = gm.doing(_doing(turn, r), turn)
        uses = _uses(turn, i, r["step"], listed, gm)
        said = "news" if r["to"] is None else "a message"
        out.append(Cause((where, said, doing, *uses), f"{where}, {doing}: {said}"
                         + (f"; {'; '.join(uses)}" if uses else "")))
    return out


def brief(turn: Turn, path: str) -> list[str]:
    """The GM's answer for `path` in one line per change, for a tool that shows provenance under each line it
    shows (a diff's changed state value): `covert.rules:213 (procedure take_defence_losses), phase combat:
    4 -> 2; table combat_losses[1.5] = 2`. Empty when no rule changed it or the path is not the state's."""
    return [c.text for c in causes(turn, path)]


def explain_path(turn: Turn, path: str, viewer: Viewer) -> str:
    path = normal(path, turn)
    if not viewer.sees(path):
        raise GameError(f"{path} is not a value this player's report shows, nor one of their own, so it is not "
                        "explained to them (the GM can ask without --player)")
    recs = turn.records
    steps = turn.steps
    found_before, before = turn.value(False, path)
    found_after, after = turn.value(True, path)
    changes = _changes(turn, path)
    unit = f"{turn.unit} {turn.number}"
    exact = [r for _, r in changes if r["path"] == path and "new" in r]
    reset = _reset_of(path, recs)
    start = before if found_before and not reset else (exact[0]["old"] if exact else None)
    end = after if found_after else (exact[-1]["new"] if exact else None)
    if not changes and not found_before and not found_after:
        raise GameError(f"{path}: no such value in the state of {unit}, and no rule changed it")
    known = changes and (exact or not reset)  # a list reset each turn and only added to: its start is its default
    made = any(r["op"] == "made" for _, r in changes)
    lines = [f"{path} after {unit}: {show(end)}" + (f" (made this {turn.unit})" if made else
                                                   f" (before it: {show(start)})" if known else "")]
    if reset:
        lines.append(f"It is reset each {turn.unit}: it went back to its default as the {turn.unit} began.")
    if not changes:
        lines.append(f"No rule changed it in {unit}.")
        return "\n".join(lines) + "\n"
    lines.append(f"What changed it, in order ({len(changes)}):")
    listed: set[int] = set()
    for n, (i, r) in enumerate(changes, 1):
        where = _at(r, turn)
        part = f"[{r['path'][len(path) + 1:]}] " if r["path"].startswith(path + ".") else ""
        lines.append(f"  {n}. {part}{_what(r)}, at {where[0]}")
        lines += [f"  {w}" for w in where[1:]]
        lines.append(_step_line(r, steps, viewer, turn))
        for u in _uses(turn, i, r["step"], listed, viewer):
            lines.append(f"    using {u}")
        for v in _reads(turn, i, r["step"], viewer):
            lines.append(f"    reading {v}")
    return "\n".join(lines) + "\n"


def explain_said(turn: Turn, i: int, viewer: Viewer) -> str:
    """A news item or a message: the rule that said it, and what its step changed and drew before it."""
    recs = turn.records
    r = recs[i]
    steps = turn.steps
    whom = "news for everyone" if r["to"] is None else (
        "a message to you" if r["to"] == viewer.account else f"a message to {turn.player_name(r['to'])}")
    where = _at(r, turn)
    lines = [f"{show(r['text'])}: {whom}, said at {where[0]}"] + [f"  {w}" for w in where[1:]]
    lines.append(_step_line(r, steps, viewer, turn).replace("    while", "  while", 1))
    before: list[str] = []
    listed: set[int] = set()
    for k in range(i - 1, -1, -1):
        c = recs[k]
        if c.get("ev") == "step" and c.get("step") == r["step"]:
            break
        if c.get("step") == r["step"] and c.get("ev") == "change" and viewer.sees(c["path"]):
            at = _at(c, turn)
            before.append(f"  - {c['path']}: {_what(c)}, at {at[0]}")
    uses = _uses(turn, i, r["step"], listed, viewer)
    if before:
        lines.append("What the rules changed just before, in the same step:")
        if len(before) > _CHANGES_SHOWN and viewer.gm:
            lines.append(f"  ({len(before) - _CHANGES_SHOWN} changes before these, not listed)")
        lines += before[:_CHANGES_SHOWN][::-1]
    read = _reads(turn, i, r["step"], viewer)
    if read:
        lines.append("What the rules read before it, in the same step:")
        lines += [f"  - {v}" for v in read]
    for u in uses:
        lines.append(f"  using {u}")
    return "\n".join(lines) + "\n"


def explain_line(root: Path, turn: Turn, account: str, line: str | None, number: int | None,
                 viewer: Viewer) -> str:
    _, text = report_of(root, turn, account)
    if number is not None:
        if not 1 <= number <= len(text):
            raise GameError(f"{turn.player_name(account)}'s report of {turn.unit} {turn.number} has {len(text)} "
                            f"lines, not {number}")
        n = number - 1
    else:
        assert line is not None
        wanted = line.strip()
        hits = [k for k, t in enumerate(text) if t.strip() == wanted] or \
               [k for k, t in enumerate(text) if wanted and wanted in t]
        if not hits:
            raise GameError(f"no line of {turn.player_name(account)}'s report of {turn.unit} {turn.number} reads "
                            f"{wanted!r} (give the line's text, or its number with --line N)")
        n = hits[0]
    asked = text[n].strip()
    head = f"Line {n + 1} of {turn.player_name(account)}'s report of {turn.unit} {turn.number}: {asked}\n"
    said = [k for k, r in enumerate(turn.records) if r.get("ev") == "said" and r["text"] == asked
            and r["to"] in (None, account)]
    if said:
        return head + "\n" + "\n".join(explain_said(turn, k, viewer) for k in said)
    view = report_view(root, turn, account)
    return head + _line_answer(view, n, turn, account, viewer)


_PATHS_EXPLAINED = 6  # the state values of one report line explained in full; more are listed


_ORDER_ENTRY = re.compile(r"\$\.orders\.(used|refused)\[(\d+)\](\..*)?")


def _line_answer(view: ReportView, n: int, turn: Turn, account: str, viewer: Viewer) -> str:
    """What line `n` of the report shows, value by value, and why each of its state values is what it is."""
    shown = view.values(n)
    if not shown:
        return "\nThe line shows no value of the report's data: it is the report's own wording.\n"
    lines = ["", "The line is made from:"]
    explained: list[str] = []
    fixed: list[str] = []
    entries: dict[tuple[str, int], None] = {}
    for d, holder, src in shown:
        if src is None:
            m = _ORDER_ENTRY.fullmatch(d)
            if m:
                entries[(m.group(1), int(m.group(2)))] = None
            else:
                fixed.append(d)
            continue
        seen = [p for p in src.paths if viewer.sees(p)]
        whose = "" if holder == d else f" (part of {holder})"
        # A table's key may be a value the player does not see (a bucket's exact amount): rows are told to a
        # player only where every value they were worked out with is theirs to see.
        told = viewer.gm or len(seen) == src.total
        rows = "".join(f"; using {viewer.use(r)}" for r in src.rows) if told else ""
        if src.direct and seen:
            lines.append(f"  - {d}{whose}: the value of {seen[0]}")
        elif seen or (rows and src.total == 0):
            more = src.total - len(seen)
            lines.append(f"  - {d}{whose}: worked out from " + (", ".join(seen) or "no value of the game") +
                         (f" and {more} more value(s)" if more > 0 and viewer.gm else
                          " and values you do not see" if more > 0 else "") + rows)
        else:
            lines.append(f"  - {d}{whose}: worked out by the report from values you do not see" + rows)
        explained += [p for p in seen if p not in explained]
    if fixed:
        lines.append(f"  - {', '.join(fixed)}: {'a value' if len(fixed) == 1 else 'values'} no rule changes "
                     "(the game's own, or the engine's)")
    for kind, k in entries:
        lines += _order_answer(turn, account, view.data, kind, k, viewer)
    answers = []
    for p in explained[:_PATHS_EXPLAINED]:
        try:
            answers.append(explain_path(turn, p, viewer))
        except GameError:
            answers.append(f"{p} after {turn.unit} {turn.number}: not stored (its default); no rule changed it.\n")
    if len(explained) > _PATHS_EXPLAINED:
        lines.append(f"(the first {_PATHS_EXPLAINED} of its {len(explained)} state values are explained below; ask "
                     "about the others by their paths)")
    return "\n".join(lines) + "\n" + "".join("\n" + a for a in answers)


def _order_answer(turn: Turn, account: str, data: dict[str, Any], kind: str, k: int, viewer: Viewer) -> list[str]:
    """An order the line shows: one the engine refused as it read it, or one carried out, with what it changed."""
    listed = data.get("orders", {}).get(kind, [])
    if not 0 <= k < len(listed):
        return []
    order = listed[k]
    whose = "your order" if not viewer.gm else f"the order of {turn.player_name(account)}"
    head = f"  - $.orders.{kind}[{k}]: {whose} {show(order.get('text'))}" + \
        (f" (line {order['line']})" if order.get("line") else " (on file)")
    if kind == "refused":
        return [f"{head}, refused as it was read: {order.get('reason')}. A refused order changes nothing."]
    made = []
    for i in order_changes(turn, account, order):
        r = turn.records[i]
        if viewer.sees(r["path"]):
            made.append(f"      {r['path']}: {_what(r)}, at {_at(r, turn)[0]}")
    status = "carried out" if order.get("status") == "done" else f"{order.get('status')}: {order.get('reason')}"
    return [f"{head}, {status}; " + ("what it changed:" if made else "it changed nothing" +
                                     ("" if viewer.gm else " you see") + "."), *made]


def explain(root: Path, number: int, what: str | None, player: str | None = None, report: str | None = None,
            line: int | None = None) -> str:
    """The answer to `rulesdsl explain`: `what` a state path (`$....`) or a report line's text, or `line` a
    line number of the report of `player` (answered for them) or of `report` (answered for the GM)."""
    turn = load_turn(root, number)
    viewer = viewer_for(root, turn, player)
    if what is not None and what.startswith("$") and line is None:
        return explain_path(turn, what, viewer)
    account = player or report
    if account is None:
        raise GameError("a report line is explained for the player whose report it is: give --player ACCOUNT (the "
                        "answer that player may read) or --report ACCOUNT (the GM's answer)")
    return explain_line(root, turn, account, what, line, viewer)
