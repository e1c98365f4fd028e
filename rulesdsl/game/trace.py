"""A traced turn -> trace.jsonl (what changed, at which rule and line, doing what, with which rows and draws); and back.

A turn is traced by running the traced build of its ruleset's module (codegen/traced.py) on a TracedGame: the
same game, whose `trace` (a Recorder) the traced module tells of each change of state, news and message, table
read and chance draw, and whose `_execute` adds what the engine itself changes for an order (its cost, a
refund, one order of the budget). The normal module never calls a recorder, and a game that is not traced is
a plain engine.Game: a turn without --trace runs exactly the code it ran before.

The file, one JSON object a line, in the order things happened (no timestamps: the same turn writes the same
bytes):
    {"trace": FORMAT, "ruleset": TITLE, "source": FILE, "turn": N, "unit": "day"}     the head
    {"ev": "step", "step": K, "at": [FILE, LINE, RULE], "about": KEY, "doing": DOING}
    {"ev": "step", "step": K, "at": [...], "about": KEY, "in": OUTER(, "doing": DOING)}     a round of a loop
                                   inside step OUTER (its DOING when not OUTER's); a numbered thing's KEY is its
                                   path (`$.Division.1.3`)
    {"ev": "change", "step": K, "op": "set"|"clear"|"made"|"destroyed"|"cost"|"refund"|"budget",
     "path": "$.Country.MEX.troops", "old": V, "new": V, "at": [...], "doing": DOING}
    {"ev": "change", "step": K, "op": "add"|"remove", "path": P, "item": V, "size": N, "at": [...], "doing": DOING}
    {"ev": "reset", "path": "$.Country.*.combat"}                     a field `reset each turn`, at the turn's start
    {"ev": "table", "step": K, "table": NAME, "key": [V...], "row": V, "secret": BOOL}
    {"ev": "draw", "step": K, "func": "chance", "stream": NAME, "odds": V, "result": V, "secret": BOOL, "at": [...]}
    {"ev": "said", "step": K, "to": ACCOUNT|null, "text": TEXT, "at": [...], "doing": DOING}
    {"ev": "read", "step": K, "path": P, "value": V}          a value a rule read (the first time in its step,
                                                            and again only when it has changed since); a
                                                            list or map of more than READ_ITEMS items:
                                                            "size": N instead of its value
    {"ev": "shown", "player": ACCOUNT, "values": [[DATA, [P...], DIRECT, COUNT(, ROWS)], ...]}
                                   what each value of a player's report was worked out from: DATA a path of the
                                   report's data (`$.controlled[2].troops`), P the state values read for it
                                   (the first SHOWN_READS; COUNT how many in all), DIRECT whether the report
                                   shows the one value read as it is, ROWS the table rows read for it, each
                                   [TABLE, [KEY...], ROW, SECRET]
DOING is {"order": TEXT, "kind": KIND, "player": ACCOUNT, "line": LINE} (LINE: of the player's mail; 0 for an
order on file) or {"what": "phase combat"}; a record without one was made doing what its step began doing. A
step is what the table reads, draws and reads of values of a change belong to: an order carried out, a phase,
one round of a loop at the top of a phase (one country's combat), or one round of a loop inside a step whose
body changes the state and decides how (codegen/traced.py's `rounds`: a division's move).

Reads are recorded only of fields some rule writes (codegen/traced.py's `written`): a value no rule changes is
no answer to "why". While a report is written, the reads are not records of their own: each value of the
report (a field of the report or of a record in it) collects what was read to work it out, and the `shown`
record keeps that per value, for `explain` to answer for a report line by the state values it shows.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

from rulesdsl.runtime.core import Numbered, OrderRec, PlayerBase, Thing, WorldBase, fmt_decimal
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.report import to_data
from rulesdsl.runtime.spec import OrderSpec

FORMAT = 2  # 2: reads and the values of each report (`read`, `shown`) are recorded
FILE_NAME = "trace.jsonl"
SHOWN_READS = 12  # the state values listed for one value of a report; more are counted
READ_ITEMS = 8  # a list or a map read is recorded whole up to this many items, longer by its size

At = tuple[str, int, str]


def enc(value: Any) -> Any:
    """A value as the trace writes it: a thing as its key (a numbered one as its number), a decimal as text."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, Numbered):
        return value.number
    if isinstance(value, Thing):
        return value._key
    if isinstance(value, Fraction):
        return value.numerator if value.denominator == 1 else fmt_decimal(value)
    if isinstance(value, (list, tuple)):
        return [enc(v) for v in value]
    if isinstance(value, dict):
        return {str(k): enc(v) for k, v in value.items()}
    if isinstance(value, OrderRec):  # a loop over orders: whose it is stays, so that explain can hide it
        return {"order": value.text, "player": value.player.account if value.player is not None else None}
    return str(value)


class _Round:
    """A round of a loop inside a step, not written until it records something other than reads: Warlord's turn
    begins 37,000 rounds, most of which (a sector seen again) change nothing."""

    __slots__ = ("doing", "number", "outer", "reads", "record")

    def __init__(self, record: dict[str, Any], outer: int | _Round, doing: dict[str, Any]) -> None:
        self.record = record
        self.outer = outer
        self.doing = doing
        self.reads: list[dict[str, Any]] = []
        self.number: int | None = None


Context = tuple["int | _Round", dict[tuple[int, str, Any], Any]]


class Recorder:
    """What the traced module tells it, as records; `closed` once the turn is over (reports read tables too)."""

    def __init__(self, game: Game) -> None:
        self.g = game
        self.records: list[dict[str, Any]] = []
        self.step_no = 0  # the step the records now belong to
        self.steps = 0  # the steps begun: an order's step ends back in its phase's, and a new one takes a new number
        self.closed = False
        self._players: dict[int, int] = {}
        self._doings: dict[int, dict[str, Any]] = {}  # what the engine was doing as each step began
        # The values read in this step, by (object, field, key): the value last recorded, so that a value read
        # again is recorded again only when it has changed (Warlord's movement reads each unit many times).
        self._read: dict[tuple[int, str, Any], Any] = {}
        self._round: _Round | None = None  # the round the records now belong to, while it is not written yet
        # While a report is written: the reads of each value being worked out, innermost last (`begin`/`end`)
        # and the values worked out, waiting for the record they belong to (`rec`). Empty otherwise.
        self.frames: list[list[tuple[Any, str, Any, Any]]] = []
        self.reporting = False
        self._pending: list[tuple[list[tuple[Any, str, Any, Any]], Any]] = []
        self._records: dict[int, tuple[dict[str, Any], list[tuple[list[tuple[Any, str, Any, Any]], Any]]]] = {}

    # ------------------------------------------------------------ where and what
    def doing(self) -> dict[str, Any]:
        d = self.g._doing
        if isinstance(d, OrderRec):
            return {"order": d.text, "kind": d.kind, "player": d.player.account if d.player is not None else None,
                    "line": d.line}
        return {"what": d}

    def path(self, obj: Any) -> str:
        """The JSON path of a thing, a player or the world as the state file has it (a numbered thing's: its
        thing and number, with its owner's key when numbered per owner)."""
        if isinstance(obj, PlayerBase):
            i = self._players.get(id(obj))
            if i is None:
                i = self._players[id(obj)] = next(n for n, p in enumerate(self.g.all_players) if p is obj)
            return f"$.players[{i}]"
        if isinstance(obj, WorldBase):
            return "$.world"
        if isinstance(obj, Numbered):
            owner = getattr(obj, "owner", None)
            return f"$.{obj.TYPE}." + (f"{owner._key}." if isinstance(owner, Thing) else "") + str(obj.number)
        return f"$.{obj.TYPE}.{obj._key}"

    def add(self, record: dict[str, Any]) -> None:
        if self.closed:
            return
        if self._round is not None:
            if record["ev"] == "read":
                self._round.reads.append(record)  # kept with its round, written only if the round is
                return
            self._write(self._round)
        record["step"] = self.step_no
        if "doing" in record and record["doing"] == self._doings.get(self.step_no):
            del record["doing"]  # as its step's: most records are, and Warlord's turn writes 50,000 of them
        self.records.append(record)

    def _write(self, r: _Round) -> None:
        """A round is written, with the rounds it is in first and the reads it kept, and becomes the step."""
        if r.number is None:
            if isinstance(r.outer, _Round):
                self._write(r.outer)
            outer = r.outer.number if isinstance(r.outer, _Round) else r.outer
            assert outer is not None
            self.steps += 1
            r.number = self.steps
            self._doings[r.number] = r.doing
            r.record.update(step=r.number, **{"in": outer})
            if r.doing != self._doings.get(outer):
                r.record["doing"] = r.doing  # otherwise as the step it is in: most rounds are
            self.records.append(r.record)
            for read in r.reads:
                read["step"] = r.number
                self.records.append(read)
            r.reads = []
        self.step_no = r.number
        self._round = None

    # ------------------------------------------------------------ what the traced module calls
    def step(self, at: At, about: Any) -> None:
        if self.closed:
            return
        if self._round is not None:
            self._write(self._round)  # an order carried out inside a round: the round is where it was
        self.steps += 1
        self.step_no = self.steps
        self._read = {}
        doing = self._doings[self.step_no] = self.doing()
        self.records.append({"ev": "step", "step": self.step_no, "at": list(at), "about": self.about(about),
                             "doing": doing})

    def about(self, item: Any) -> Any:
        """A round's item as its step names it: a numbered thing by its path (whose it is decides who may see
        the round), anything else as the trace writes a value."""
        return self.path(item) if isinstance(item, Numbered) else enc(item)

    def inner(self) -> Context:
        """Where the records now go (a step, or a round not written yet) and the reads of it, to go back to
        after a loop whose rounds are steps of their own, or after an order (`back`)."""
        return (self._round if self._round is not None else self.step_no), self._read

    def round(self, at: At, about: Any, outer: Context) -> None:
        """One round of such a loop: a step inside `outer`, written when it records more than reads."""
        if self.closed:
            return
        self._round = _Round({"ev": "step", "step": 0, "at": list(at), "about": self.about(about)}, outer[0],
                             self.doing())
        self._read = {}

    def back(self, outer: Context) -> None:
        """The loop (or the order) is over: the records that follow are the step's it was inside again."""
        if self.closed:
            return
        where, self._read = outer
        if isinstance(where, _Round) and where.number is None:
            self._round = where
        else:
            self._round = None
            number = where.number if isinstance(where, _Round) else where
            assert number is not None
            self.step_no = number

    def rd(self, obj: Any, attr: str, name: str) -> Any:
        """`obj.attr` (the field `name`), read by a rule: recorded, and returned."""
        value = getattr(obj, attr)
        if self.frames:
            self.frames[-1].append((obj, name, None, value))
        elif not self.closed:
            self._saw(obj, name, None, value)
        return value

    def rdk(self, obj: Any, attr: str, name: str, key: Any, default: Any) -> Any:
        """One key's value of the per-key field `name` of `obj`, read by a rule: recorded, and returned."""
        value = getattr(obj, attr).get(key._key, default)
        if self.frames:
            self.frames[-1].append((obj, name, key, value))
        elif not self.closed:
            self._saw(obj, name, key, value)
        return value

    def _saw(self, obj: Any, name: str, key: Any, value: Any) -> None:
        seen = (id(obj), name, None if key is None else key._key)
        if isinstance(value, (list, dict, set)) and len(value) > READ_ITEMS:
            # A long list or map is recorded by its size: Warlord reads each player's thousands of sectors seen.
            record: dict[str, Any] = {"ev": "read", "path": "", "size": len(value)}
            enc_value: Any = ("size", len(value))
        else:
            enc_value = enc(value)
            record = {"ev": "read", "path": "", "value": enc_value}
        if self._read.get(seen, self) == enc_value:
            return
        self._read[seen] = enc_value
        record["path"] = self._field_path(obj, name, key)
        self.add(record)

    def _field_path(self, obj: Any, name: str, key: Any) -> str:
        path = f"{self.path(obj)}.{name}"
        return path if key is None else f"{path}.{enc(key)}"

    # ------------------------------------------------------------ what a report's values were worked out from
    def begin(self) -> bool:
        """A value of a report begins to be worked out (a field of the report, or of a record made in it)."""
        if not self.reporting:
            return False
        self.frames.append([])
        return True

    def end(self, began: bool, value: Any) -> Any:
        """The value `begin` began, worked out: what it read waits for the record it belongs to (`rec`), and
        counts for the value around it too."""
        if began:
            reads = self.frames.pop()
            if self.frames:
                self.frames[-1].extend(reads)
            self._pending.append((reads, value))
        return value

    def rec(self, record: dict[str, Any]) -> dict[str, Any]:
        """A record made of values each begun and ended in the order of its fields: each field's reads kept."""
        if self.reporting and record:
            n = len(record)
            self._records[id(record)] = (record, self._pending[-n:])
            del self._pending[-n:]
        return record

    def report(self, player: PlayerBase, build: Callable[[], Any]) -> Any:
        """A player's own report data, made by `build` with what each value read recorded (a `shown` record)."""
        self.reporting = True
        try:
            own = build()
        finally:
            self.reporting = False
            self.frames.clear()
            self._pending.clear()
        values: list[list[Any]] = []
        self._shown(own, "$", values)
        self._records.clear()
        self.records.append({"ev": "shown", "player": player.account, "values": values})
        return own

    def _sources(self, path: str, reads: list[tuple[Any, str, Any, Any]], value: Any) -> list[Any]:
        """The `shown` entry of the report's value at `path`: the state values read for it, the first SHOWN_READS
        of them (and how many in all: a Warlord map is worked out from 2,000 sectors), and the table rows read
        for it (Warlord's rank letters: a table no turn reads, that only the report does)."""
        first: dict[tuple[int, str, Any], tuple[Any, str, Any, Any]] = {}
        rows: dict[str, list[Any]] = {}
        for r in reads:
            if r[0] is None:  # a table's row: (None, table, (key, secret), row)
                row = [r[1], enc(r[2][0]), enc(r[3]), r[2][1]]
                rows.setdefault(repr(row), row)
            elif len(first) <= SHOWN_READS:
                first.setdefault((id(r[0]), r[1], None if r[2] is None else r[2]._key), r)
        kept = list(first.values())[:SHOWN_READS]
        total = len(first) if len(first) <= SHOWN_READS else \
            len({(id(o), n, None if k is None else k._key) for o, n, k, _ in reads if o is not None})
        paths = [self._field_path(o, n, key) for o, n, key, _ in kept]
        direct = total == 1 and not rows and value is not None and to_data(kept[0][3]) == to_data(value)
        return [path, paths, direct, total] + ([list(rows.values())] if rows else [])

    def _shown(self, value: Any, path: str, out: list[list[Any]]) -> bool:
        """Adds to `out` what each value under `value` (at the report data's `path`) was worked out from: for
        the innermost values of which it is known. Whether any value under it is known."""
        if isinstance(value, dict):
            got = self._records.get(id(value))
            fields = dict(zip(value, got[1], strict=True)) if got is not None and got[0] is value else {}
            known = bool(fields)
            for k, v in value.items():
                sub = f"{path}.{k}"
                if self._shown(v, sub, out):
                    known = True
                    continue
                if k in fields:
                    reads, shown_value = fields[k]
                    if reads:
                        out.append(self._sources(sub, reads, shown_value))
            return known
        if isinstance(value, (list, tuple)):
            found = False
            for i, v in enumerate(value):
                found = self._shown(v, f"{path}[{i}]", out) or found
            return found
        return False

    def old(self, obj: Any, attr: str, key: Any, default: Any) -> Any:
        if self.closed:
            return None
        value = getattr(obj, attr)
        return enc(value if key is None else value.get(key._key, default))

    def change(self, at: At, op: str, obj: Any, name: str, attr: str, key: Any, old: Any, default: Any,
               item: Any = None) -> None:
        if self.closed:
            return
        value = getattr(obj, attr)
        path = f"{self.path(obj)}.{name}"
        if key is not None:
            value = value.get(key._key, default)
            path += f".{enc(key)}"
        record: dict[str, Any] = {"ev": "change", "op": op, "path": path}
        if op in ("add", "remove"):
            # The item and the size after, not the list: Warlord adds each sector a unit sees to lists of thousands.
            record.update(item=enc(item), size=len(value) if value is not None else 0)
        else:
            new = enc(value)
            if op == "set" and new == old:
                return  # set to what it was: nothing made it, and every day's `leader_at_dawn` would fill the trace
            record.update(old=old, new=new)
        record.update(at=list(at), doing=self.doing())
        self.add(record)

    def made(self, at: At, obj: Any) -> Any:
        self.add({"ev": "change", "op": "made", "path": self.path(obj), "old": None, "new": None, "at": list(at),
                  "doing": self.doing()})
        return obj

    def destroyed(self, at: At, obj: Any) -> None:
        self.add({"ev": "change", "op": "destroyed", "path": self.path(obj), "old": None, "new": None,
                  "at": list(at), "doing": self.doing()})

    def said(self, at: At, to: PlayerBase | None, text: str) -> None:
        self.add({"ev": "said", "to": to.account if to is not None else None, "text": text, "at": list(at),
                  "doing": self.doing()})

    def table(self, name: str, key: tuple[Any, ...], row: Any, secret: bool) -> Any:
        if self.frames:
            self.frames[-1].append((None, name, (key, secret), row))
        else:
            self.add({"ev": "table", "table": name, "key": enc(key), "row": enc(row), "secret": secret})
        return row

    def drew(self, at: At, func: str, stream: str, secret: bool, fn: Callable[..., Any], *args: Any) -> Any:
        result = fn(*args)
        odds = args[-1] if func != "draw" else None
        self.add({"ev": "draw", "func": func, "stream": stream, "odds": enc(odds), "result": enc(result),
                  "secret": secret, "at": list(at)})
        return result

    # ------------------------------------------------------------ the file
    def lines(self) -> bytes:
        head = {"trace": FORMAT, "ruleset": self.g.spec.title, "source": self.g.spec.source, "turn": self.g.turn,
                "unit": self.g.spec.turn_unit}
        out = [json.dumps(head, ensure_ascii=False)]
        out += [json.dumps(r, ensure_ascii=False) for r in self.records]
        return ("\n".join(out) + "\n").encode("utf-8")


class TracedGame(Game):
    """A Game whose turn is recorded: made by `traced` from a game loaded with the traced build's spec."""

    trace: Recorder
    _traced_specs: dict[str, OrderSpec]
    _order_pay: tuple[str, Any] | None

    @property
    def window(self) -> Any:
        """Never an open window: a `pure` function is computed at each call, so that each call's reads are
        recorded (a remembered value would read nothing). The values are the same; only slower."""
        return None

    @window.setter
    def window(self, value: Any) -> None:
        pass

    def own_report(self, p: PlayerBase) -> Any:
        return self.trace.report(p, lambda: Game.own_report(self, p))

    def process_turn(self, submissions: list[tuple[str, str]], phase_done: Callable[[], object] | None = None) -> None:
        try:
            super().process_turn(submissions, phase_done)
        finally:
            self.trace.closed = True

    def _reset_fields(self) -> None:
        spec = self.spec
        for tspec in spec.things:
            for f in tspec.fields:
                if f.reset_each_turn:
                    self.trace.add({"ev": "reset", "path": f"$.{tspec.name}.*.{f.name}"})
        for f in spec.player_fields:
            if f.reset_each_turn:
                self.trace.add({"ev": "reset", "path": f"$.players[*].{f.name}"})
        for f in spec.world_fields:
            if f.reset_each_turn:
                self.trace.add({"ev": "reset", "path": f"$.world.{f.name}"})
        super()._reset_fields()

    def _execute(self, spec: OrderSpec, rec: OrderRec) -> None:
        """The engine's own changes for an order, recorded around it: what it paid (before its effect), what
        came back when its effect failed, the order it took from the budget."""
        tr, me = self.trace, rec.player
        outer, before_doing = tr.inner(), self._doing
        self._doing = rec
        tr.step((self.spec.source, spec.line, f"order {spec.name}"), None)
        self._doing = before_doing
        pay, budget = self.pay_attr, self.budget_attr
        pay_path = f"{tr.path(me)}.{self.spec.policy.pay_field}" if pay else ""
        self._order_pay = (pay_path, enc(getattr(me, pay))) if pay else None
        had_budget = enc(getattr(me, budget)) if budget else None
        start = len(tr.records)
        super()._execute(self._traced_spec(spec), rec)
        if pay:
            last = self._order_pay[1] if self._order_pay else None
            for r in tr.records[start:]:
                if r.get("path") == pay_path and r["ev"] == "change":
                    last = r["new"]
            now = enc(getattr(me, pay))
            if now != last:
                self._engine_change(rec, "refund", pay_path, last, now)
        if budget and enc(getattr(me, budget)) != had_budget:
            self._engine_change(rec, "budget", f"{tr.path(me)}.{self.spec.policy.budget_field}", had_budget,
                                enc(getattr(me, budget)))
        self._order_pay = None
        tr.back(outer)

    def _engine_change(self, rec: OrderRec, op: str, path: str, old: Any, new: Any) -> None:
        before, self._doing = self._doing, rec
        self.trace.add({"ev": "change", "op": op, "path": path, "old": old, "new": new,
                        "at": [self.spec.source, self.orders[rec.kind].line, f"order {rec.kind}"],
                        "doing": self.trace.doing()})
        self._doing = before

    def _traced_spec(self, spec: OrderSpec) -> OrderSpec:
        """`spec` with an effect that first records what the order paid (the engine pays just before it)."""
        got = self._traced_specs.get(spec.name)
        if got is None:
            effect = spec.effect

            def traced_effect(g: Any, me: Any, rec: OrderRec) -> None:
                paid = self._order_pay
                if paid is not None and me is not None:
                    now = enc(getattr(me, self.pay_attr or ""))
                    if now != paid[1]:
                        self._engine_change(rec, "cost", paid[0], paid[1], now)
                        self._order_pay = (paid[0], now)
                if effect is not None:
                    effect(g, me, rec)

            got = self._traced_specs[spec.name] = dataclasses.replace(spec, effect=traced_effect)
        return got


def traced(game: Game) -> TracedGame:
    """`game` (loaded with the traced build's spec) made a TracedGame, recording from now on."""
    game.__class__ = TracedGame
    assert isinstance(game, TracedGame)
    game.trace = Recorder(game)
    game._traced_specs = {}
    game._order_pay = None
    return game


# ------------------------------------------------------------ reading back
class TraceError(Exception):
    """A trace file that cannot be read back."""


def read(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The head and the records of a trace file."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise TraceError(f"{path}: cannot read: {e.strerror or e}") from None
    try:
        rows = [json.loads(line) for line in lines if line.strip()]
    except json.JSONDecodeError as e:
        raise TraceError(f"{path}:{e.lineno}: not a trace line: {e.msg}") from None
    if rows and isinstance(rows[0], dict) and isinstance(rows[0].get("trace"), int) and rows[0]["trace"] < FORMAT:
        raise TraceError(f"{path}: recorded by an earlier rulesdsl, which did not record what the rules read; the "
                         "same orders make the same turn, so run it again with --trace (roll the game back to it)")
    if not rows or not isinstance(rows[0], dict) or rows[0].get("trace") != FORMAT:
        raise TraceError(f"{path}: not a trace of this rulesdsl (its first line names no trace format {FORMAT})")
    return rows[0], rows[1:]
