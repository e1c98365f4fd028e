"""Checked IR -> the `path` searches whose prices may be kept for the whole game (`Program.priced`).

A COST may keep its prices when everything it reads is settled once the game has started:
- fields that no rule changes after the start, nor the engine (the `pay from` and `budget` fields): not
  assigned (`=`, `+=`, `add`, `remove`, `clear`, a per-key value or a list position of it) in an order's
  effect, in a phase that is not `at start`, or in a procedure either of those calls (at any depth); not
  `reset each turn`; and not able to hold a numbered thing (`destroy` lets go of those). A phase at start,
  or a procedure only phases at start call, may set them, and so may the scenario: all of that happens
  before any turn, and prices are neither kept while phases at start run nor kept from before them;
- keys, parameters, literals, instances by key, keyed things and the grid's sectors as lists, tables
  (a table is data), functions whose bodies read only such things and their own parameters, and the
  builtins that depend only on their arguments;
- values fixed for the call: locals, arguments and parameters of the enclosing rule, `me` and `turn`, which
  become part of the prices' key (so they must be numbers, texts, truth values or instances, or optional
  ones of those).
Anything else (a field some order changes, `players`, a random draw, `orders(...)`, a nested `path`) and the
search asks COST afresh, as before.
"""

from __future__ import annotations

import dataclasses

from rulesdsl import ir
from rulesdsl import types as T
from rulesdsl.checker.state import Checking

# Builtins whose value depends only on their arguments (and the map, which never changes).
_PURE_BUILTINS = frozenset({
    "min", "max", "clamp", "abs", "round", "floor", "ceil", "size", "length", "upper", "truncate", "is_alnum",
    "join", "text", "first", "money", "amount", "neighbour", "neighbours", "distance", "direction", "within",
    "window", "column", "row", "sector_at", "band", "coast", "regions", "away_from", "least_distance",
})


# Statements that may change a field, by the target they change (a Field, or a per-key value or list position
# of one), and those that change none themselves. A new kind of statement must be put in one of the two
# (tests/unit/test_routes_rules.py holds them to every Stmt of ir.py): one left out could change what a
# kept price read, and the prices would no longer be the ones COST gives.
WRITES: tuple[type[ir.Stmt], ...] = (ir.Assign, ir.Add, ir.Remove, ir.Clear)
# `new` sets only a new instance's fields, which no kept price can read (a field that could hold it changes);
# `destroy` lets go of it in fields that could hold it, which are counted as changing below.
WRITES_NO_FIELD: tuple[type[ir.Stmt], ...] = (ir.Let, ir.If, ir.For, ir.CallProc, ir.Run, ir.Halt, ir.News,
                                              ir.Tell, ir.Fail, ir.Overrule, ir.NewStmt, ir.Destroy, ir.While,
                                              ir.Return, ir.Break, ir.Skip)


class _Unsettled(Exception):
    """COST reads something that may change during the game: its prices are asked afresh for each search."""


def priced(c: Checking) -> None:
    """Program.priced: for each `path` that may keep its prices, its site number and the values of its key."""
    program = c.program
    changing = changing_fields(c)
    sites: dict[object, int] = {}
    for decl in program.nodes():
        for e in ir.walk(decl):
            if not isinstance(e, ir.Route) or e in program.priced:
                continue
            try:
                key = _Reader(c, changing).inputs(e)
            except _Unsettled:
                continue
            # The same COST written at two places shares its prices: the site is the expression, lines left out.
            site = sites.setdefault((e.var, _shape(e.cost)), len(sites) + 1)
            program.priced[e] = (site, tuple(key))


def changing_fields(c: Checking) -> frozenset[tuple[str, str]]:
    """(owner, field) of every field that may change once the game has started; the owner is a thing's name,
    the grid's, "Player" or "world"."""
    program = c.program
    env = c.env
    out: set[tuple[str, str]] = set()
    procs = {p.name: p for p in program.procedures}
    roots: list[ir.Node] = [*(o for o in program.orders), *(p for p in program.phases if not p.at_start)]
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        node = todo.pop()
        for e in ir.walk(node):
            # A procedure runs where it is called, as a statement or for its value.
            if isinstance(e, (ir.CallProc, ir.CallProcValue)) and e.proc not in seen and e.proc in procs:
                seen.add(e.proc)
                todo.append(procs[e.proc])
            elif isinstance(e, WRITES):
                target: ir.Expr = e.target  # type: ignore[attr-defined]  # each of WRITES has one
                while isinstance(target, (ir.MapGet, ir.ListIndex)):
                    target = target.obj
                if isinstance(target, ir.Field):
                    owner = _owner(target.obj.ty)
                    if owner is not None:
                        out.add((owner, target.name))
    declared: list[tuple[str, ir.FieldDef]] = [(t.name, f) for t in program.things for f in t.fields]
    if program.grid is not None:
        declared += [(program.grid.name, f) for f in program.grid.fields]
    declared += [("Player", f) for f in program.player_fields] + [("world", f) for f in program.world_fields]
    # The engine itself takes orders' costs from the `pay from` field and counts the budget down.
    for engine_field in (program.policy.pay_field, program.policy.budget_field):
        if engine_field is not None:
            out.add(("Player", engine_field))
    for owner, f in declared:
        if f.reset_each_turn or env.holds_numbered(f.ty):
            out.add((owner, f.name))
    return frozenset(out)


def _shape(e: object) -> object:
    if isinstance(e, ir.Node):
        return (type(e).__name__, *(_shape(getattr(e, f.name)) for f in dataclasses.fields(e)
                                    if f.name not in ("line", "span")))
    if isinstance(e, tuple):
        return tuple(_shape(x) for x in e)
    return e


def _owner(ty: T.Ty) -> str | None:
    if isinstance(ty, T.OptT):
        ty = ty.inner
    if isinstance(ty, T.ThingT):
        return ty.name
    if isinstance(ty, T.WorldT):
        return "world"
    return None



def _keyable(ty: T.Ty) -> bool:
    """A value that can stand in a key: compared by value (numbers, texts, truth values) or by identity."""
    if isinstance(ty, T.OptT):
        ty = ty.inner
    return isinstance(ty, (T.Num, T.ThingT)) or ty in (T.BOOL, T.TEXT)


class _Reader:
    """Walks a COST, raising _Unsettled at the first thing it reads that may change, and collecting the values
    fixed for the call that it reads."""

    def __init__(self, c: Checking, changing: frozenset[tuple[str, str]]) -> None:
        self.program = c.program
        self.env = c.env
        self.changing = changing
        self.functions = {f.name: f for f in c.program.functions}
        self.settled_functions: set[str] = set()
        self.keys: list[ir.Expr] = []
        self.fixed: dict[str, ir.Field | None] = {}
        self.keyed = {t.name for t in c.program.things if not t.numbered}
        self.numbered = {t.name: t.numbered for t in c.program.things if t.numbered}

    def inputs(self, route: ir.Route) -> list[ir.Expr]:
        self.read(route.cost, {route.var}, True)
        return self.keys

    def capture(self, e: ir.Expr) -> None:
        if not _keyable(e.ty):
            raise _Unsettled
        if e not in self.keys:
            self.keys.append(e)

    def read(self, e: ir.Expr, bound: set[str], at_site: bool) -> None:
        """`bound`: names the walk itself binds (the path's variable, an aggregate's, a function's parameters);
        `at_site`: e is written in the path itself, where a local of the rule may be captured."""
        if isinstance(e, (ir.Const, ir.ParamRef, ir.InstanceRef)):
            return
        if isinstance(e, ir.Local):
            if e.name in bound:
                return
            if not at_site:
                raise _Unsettled
            self.capture(e)
            return
        if isinstance(e, ir.Special):
            if e.name in ("me", "turn") and at_site:
                self.capture(e)
                return
            if e.name == "world":
                return  # only ever the object of a field, judged there
            raise _Unsettled
        if isinstance(e, ir.AllOf):
            if e.thing in self.numbered:
                raise _Unsettled
            return
        if isinstance(e, ir.Field):
            owner = _owner(e.obj.ty)
            if owner is None or (owner, e.name) in self.changing or not self._declared(owner, e.name):
                raise _Unsettled
            self.read(e.obj, bound, at_site)
            return
        if isinstance(e, ir.CallFn):
            for a in e.args:
                self.read(a, bound, at_site)
            self.function(e.func)
            return
        if isinstance(e, ir.Builtin):
            if e.func not in _PURE_BUILTINS:
                raise _Unsettled
            for a in e.args:
                self.read(a, bound, at_site)
            return
        if isinstance(e, ir.Agg):
            self.read(e.source, bound, at_site)
            inner = bound | {e.var}
            for part in (e.body, e.where, e.by):
                if part is not None:
                    self.read(part, inner, at_site)
            return
        if isinstance(e, (ir.MapGet, ir.ListIndex, ir.RecordGet, ir.TableGet, ir.BinOp, ir.UnaryOp, ir.Cond,
                          ir.MakeList, ir.MakeRecord, ir.Interp)):
            for child in e.children():
                if isinstance(child, ir.Expr):
                    self.read(child, bound, at_site)
                else:
                    raise _Unsettled
            return
        raise _Unsettled  # a nested path or fill, `new`, anything not listed: asked afresh

    def function(self, name: str) -> None:
        if name in self.settled_functions:
            return
        f = self.functions.get(name)
        if f is None:
            raise _Unsettled
        self.settled_functions.add(name)  # a recursive call is judged by the body being judged
        self.read(f.body, {p for p, _ in f.params}, False)

    def _declared(self, owner: str, name: str) -> bool:
        """A field the ruleset declares (or a keyed thing's key, or a numbered thing's read-only number and
        owner): one the engine itself never sets during a turn."""
        program = self.program
        if owner == "world":
            return any(f.name == name for f in program.world_fields)
        if owner == "Player":
            return any(f.name == name for f in program.player_fields)
        if program.grid is not None and owner == program.grid.name:
            return any(f.name == name for f in program.grid.fields)
        for t in program.things:
            if t.name == owner:
                if t.key and name == t.key:
                    return True
                if t.numbered and name in ("number", "owner"):
                    return True
                return any(f.name == name for f in t.fields)
        return False
