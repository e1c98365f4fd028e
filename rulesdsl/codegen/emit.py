"""Typed IR (`ir.Program`) -> Python module text that imports only `rulesdsl.runtime`.

The generator trusts the IR: every user error was reported by the checker, so anything that goes
wrong here is a bug in rulesdsl and raises AssertionError.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from fractions import Fraction
from typing import Any

from rulesdsl import __version__, ir
from rulesdsl import types as T
from rulesdsl.builtins import BUILTINS, CHANCE, KEYED
from rulesdsl.codegen import names, traced
from rulesdsl.codegen.writer import Writer, comment_text
from rulesdsl.runtime import exported

# The money places of the program being generated (the header's `money "0.1"` is 1): amounts are then
# Fractions, not ints, so a module-level test of "a value that is a Python int" (`_whole`) must know it.
_PLACES: ContextVar[int] = ContextVar("money_places", default=0)


def money_places(program: ir.Program) -> int:
    """The header's smallest amount as a number of decimal places: "0.1" is 1; "1" (the default) is 0."""
    setting = str(program.settings.get("money", "1"))
    return len(setting.split(".", 1)[1]) if "." in setting else 0


def type_desc(ty: T.Ty) -> tuple[Any, ...]:
    if isinstance(ty, T.Num):
        if not ty.decimal and ty.unit == "money":
            places = _PLACES.get()
            return ("money", places) if places else ("money",)
        return ("decimal",) if ty.decimal else ("int",)
    if ty == T.BOOL:
        return ("bool",)
    if ty == T.TEXT:
        return ("text",)
    if isinstance(ty, T.ThingT):
        return ("thing", ty.name)
    if isinstance(ty, T.OptT):
        return ("opt", type_desc(ty.inner))
    if isinstance(ty, T.ListT):
        return ("list", type_desc(ty.item))
    if isinstance(ty, T.SetT):
        return ("set", type_desc(ty.item))
    if isinstance(ty, T.MapT):
        assert isinstance(ty.key, T.ThingT)
        return ("map", ty.key.name, type_desc(ty.value))
    raise AssertionError(f"no state type for {ty}")


def docstring(text: str) -> str:
    """`text` as a Python string literal: in triple quotes when it reads the same there, else as `repr`
    writes it, so that no title or file name can end the literal and go on as code."""
    if text.isprintable() and '"' not in text and "\\" not in text:
        return f'"""{text}"""'
    return repr(text)


def const(value: Any, used: set[str] | None = None) -> str:
    """`value` as a Python literal; `used` collects `Fraction` when the literal calls it, so that the module
    imports it only then."""
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return str(value.numerator)
        if used is not None:
            used.add("Fraction")
        return f"Fraction({value.numerator}, {value.denominator})"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(const(v, used) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {const(v, used)}" for k, v in value.items()) + "}"
    return repr(value)


class Emitter:
    def __init__(self, program: ir.Program, trace: bool = False) -> None:
        self.p = program
        # The traced build (codegen/traced.py): the same rules, each change of state, table read and draw told
        # to `g.trace`. False writes the normal module, which no part of the traced build touches.
        self.trace = trace
        self.secret_fns = program.secret_functions if trace else frozenset()
        self.written = traced.written(program) if trace else frozenset()
        self.round_procs = traced.rounds(program) if trace else frozenset()
        self.round_depth = 0  # loops inside a step whose rounds are steps of their own, being written (traced)
        # While a phase's own statements are written (not a loop's body, not a branch's): a loop there starts a
        # step of the trace each round.
        self.phase_top = False
        self.w = Writer(program.source_name)
        self.used: set[str] = set()
        # The locals visible where code is emitted, innermost block last: rules name -> Python name. Python has
        # no block scope, so a name bound in a block that an enclosing block binds too gets a name of its own.
        self.scopes: list[dict[str, str]] = [{}]
        self._plain_functions: dict[str, bool] = {}
        # Per-key values an order-free aggregate binds from `stored_items`, innermost last: the value read
        # `m[var]`, the rules name and Python name of the loop's variable, and the name its value is bound to.
        self.stored_values: list[tuple[ir.MapGet, str, str, str]] = []
        # Calls a function's body makes more than once, worked out once before its `return` (see `functions`):
        # the call's shape -> the local that holds its value. Empty inside a block (an aggregate), whose
        # variable may stand for another value under the same name.
        self.hoisted: dict[object, str] = {}
        # Range tables of one decimal key compared in whole numbers: each has a function of the key's numerator
        # and denominator too (`ratio_NAME`), which a call with `a / b` of whole numbers calls with a and b.
        self.ratio_tables = {t.name for t in program.tables if _ratio_table(t)}
        # Numbered things (made by `new`), and the fields the runtime keeps an index of, by thing.
        self.numbered = {t.name: t.numbered for t in program.things if t.numbered}
        self.indexed = {t.name: _indexed_fields(t, self.numbered) for t in program.things}
        if program.grid is not None:
            gr = program.grid
            self.indexed[gr.name] = _indexed_fields(ir.Thing(gr.name, "", gr.fields, gr.line), self.numbered)

    # ------------------------------------------------------------ locals
    def local(self, name: str) -> str:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return names.local(name)

    def bind(self, name: str) -> str:
        """The Python name of a local the innermost block binds: its plain name, unless an enclosing block of
        the same function binds it too (then `v2_b`, `v3_b`: one more for each enclosing binding, so the
        names visible at once all differ). Binding again in the same block keeps the name."""
        scope = self.scopes[-1]
        if name not in scope:
            scope[name] = names.local(name, 1 + sum(name in s for s in self.scopes))
        return scope[name]

    @contextmanager
    def block(self) -> Iterator[None]:
        self.scopes.append({})
        hoisted, self.hoisted = self.hoisted, {}
        try:
            yield
        finally:
            self.scopes.pop()
            self.hoisted = hoisted

    @contextmanager
    def function(self, params: Iterable[str]) -> Iterator[None]:
        """The body of one generated function: its parameters are its outermost locals."""
        outer = self.scopes
        self.scopes = [{name: names.local(name) for name in params}]
        try:
            yield
        finally:
            self.scopes = outer

    # ------------------------------------------------------------ expressions
    def rt(self, name: str) -> str:
        assert name in exported, f"runtime does not export {name}"
        self.used.add(name)
        return name

    def ex(self, e: ir.Expr) -> str:
        if isinstance(e, ir.Const):
            if isinstance(e.value, Fraction):
                return const(e.value, self.used)
            return repr(e.value)
        if isinstance(e, ir.Interp):
            return self.interp(e)
        if isinstance(e, ir.Local):
            return self.local(e.name)
        if isinstance(e, ir.ParamRef):
            return f"g.params[{e.name!r}]"
        if isinstance(e, ir.Special):
            return {"me": "me", "turn": "g.turn", "players": "g.players()", "all_players": "g.all_players",
                    "game_over": "g.game_over", "world": "g.world"}.get(e.name) or f"g.date().{e.name[9:]}"
        if isinstance(e, ir.AllOf):
            if e.thing in self.numbered:
                # A list of its own: the store's list of live instances is kept between news and destroys.
                return f"list(g.units[{e.thing!r}].live())"
            return f"g.all[{e.thing!r}]"
        if isinstance(e, ir.New):
            return self.new(e)
        if isinstance(e, ir.InstanceRef):
            return f"g.index[{e.thing!r}][{e.key!r}]"
        if isinstance(e, ir.Field):
            return self.field(e)
        if isinstance(e, ir.MapGet):
            for m, var, v, at in reversed(self.stored_values):
                if e == m and self.local(var) == v:  # the same item's value, bound where the loop took it
                    return at
            default = self.ex(e.default) if e.default is not None else "None"
            if self.trace and (code := traced.read_key(self, e, default)) is not None:
                return code
            return _map_get(self.sub(e.obj, 9, False), self.sub(e.key, 9, False), default)
        if isinstance(e, ir.ListIndex):
            return f"{self.rt('index')}({self.ex(e.obj)}, {self.ex(e.index)})"
        if isinstance(e, ir.RecordGet):
            return f"{self.ex(e.obj)}[{e.name!r}]"
        if isinstance(e, ir.TableGet):
            (key, *more) = e.args
            if not more and e.table in self.ratio_tables and isinstance(key, ir.BinOp) and key.op == "/" \
                    and _whole(key.left.ty) and _whole(key.right.ty):
                # A whole number over another, compared in whole numbers: no Fraction is made (see `tables`).
                return (f"{names.table_ratio(e.table)}(g, *{self.rt('whole_ratio')}({self.ex(key.left)}, "
                        f"{self.ex(key.right)}))")
            return f"{names.table(e.table)}(g, " + ", ".join(self.ex(a) for a in e.args) + ")"
        if isinstance(e, ir.CallFn):
            if self.hoisted:
                held = self.hoisted.get(_shape(e))
                if held is not None:
                    return held
            return f"{names.function(e.func)}(" + ", ".join(["g", *(self.ex(a) for a in e.args)]) + ")"
        if isinstance(e, ir.CallProcValue):
            return f"{names.procedure(e.proc)}(" + ", ".join(["g", *(self.ex(a) for a in e.args)]) + ")"
        if isinstance(e, ir.Builtin):
            return self.builtin(e)
        if isinstance(e, ir.Agg):
            return self.agg(e)
        if isinstance(e, ir.Route):
            start, goal = self.ex(e.start), self.ex(e.goal)
            window = "" if e.bound is None else f", {self.ex(e.bound)}"
            priced = self.p.priced.get(e)
            keys = "" if priced is None else ", ".join(self.ex(k) for k in priced[1])
            with self.block():
                v = self.bind(e.var)
                cost = self.ex(e.cost)
            if priced is not None:
                # Prices kept for the game, keyed by the site and the values fixed for the call that COST reads
                # (checker/routes.py): the lambda is asked only for sectors no earlier search priced.
                keys = f"({keys},)" if len(priced[1]) == 1 else f"({keys})"
                return (f"{self.rt('route_priced')}(g, {priced[0]}, {keys}, {start}, {goal}, "
                        f"lambda {v}: {cost}{window})")
            # The price is asked for at once, inside the call: the lambda outlives no loop.
            return f"{self.rt('route')}(g, {start}, {goal}, lambda {v}: {cost}{window})"
        if isinstance(e, ir.Reach):
            seeds = self.ex(e.seeds)
            with self.block():
                v = self.bind(e.var)
                cond = self.ex(e.cond) if e.cond is not None else "True"
                step = self.ex(e.step) if e.step is not None else None
            # Both asked for at once, inside the call, as a path's price is.
            if step is None:
                return f"{self.rt('reach')}(g, {seeds}, lambda {v}: {cond})"
            return f"{self.rt('reach_via')}({seeds}, lambda {v}: {cond}, lambda {v}: {step})"
        if isinstance(e, ir.BinOp):
            if e.op == "/":
                if _whole(e.left.ty) and _whole(e.right.ty):
                    # Two whole numbers: one exact fraction, made at once (the runtime's div converts each).
                    return f"{self.rt('Fraction')}({self.ex(e.left)}, {self.ex(e.right)})"
                return f"{self.rt('div')}({self.ex(e.left)}, {self.ex(e.right)})"
            if e.op == "div":
                if _money(e.ty):
                    return f"{self.rt('money_div')}({self.ex(e.left)}, {self.ex(e.right)}, {_PLACES.get()})"
                return f"{self.rt('intdiv')}({self.ex(e.left)}, {self.ex(e.right)})"
            op = e.op
            if op in ("==", "!=") and (_is_thing(e.left.ty) or _is_thing(e.right.ty)):
                # Things are compared by identity: there is one object per key.
                op = "is" if op == "==" else "is not"
            prec = _PREC[e.op]
            # Comparisons do not chain in the rules language; Python's would, so both sides nest.
            right_strict = prec == _PREC["=="] or e.op in ("-", "%", "*")
            # An `and` under an `or` gets parentheses it does not need, so no reader has to know which binds
            # tighter.
            a = self.sub(e.left, _PREC["not"] if _is_and(e, e.left) else prec, prec == _PREC["=="])
            b = self.sub(e.right, _PREC["not"] if _is_and(e, e.right) else prec, right_strict)
            return f"{a} {op} {b}"
        if isinstance(e, ir.UnaryOp):
            if e.op == "not":
                flipped = _negated(e.operand)
                if flipped is not None:
                    return self.ex(flipped)
                return f"not {self.sub(e.operand, _PREC['not'], False)}"
            return f"-{self.sub(e.operand, _PREC['neg'], False)}"
        if isinstance(e, ir.Cond):
            return f"{self.sub(e.then, 1, True)} if {self.sub(e.cond, 1, True)} else {self.sub(e.otherwise, 0, False)}"
        if isinstance(e, ir.MakeList):
            return "[" + ", ".join(self.ex(i) for i in e.items) + "]"
        if isinstance(e, ir.MakeRecord):
            if self.trace:
                return traced.record([(k, self.ex(v)) for k, v in e.fields])
            return "{" + ", ".join(f"{k!r}: {self.ex(v)}" for k, v in e.fields) + "}"
        raise AssertionError(f"cannot emit {e!r}")

    def interp(self, e: ir.Interp) -> str:
        """A text with values in it: an f-string, where each value reads in it as `fmt` would write it (text and
        whole numbers as themselves, anything else through `fmt`); the runtime's `interp` where a value's code
        cannot stand in an f-string on Python 3.11 (a quote, a brace, a backslash, a colon)."""
        pieces = []
        for p in e.parts:
            if isinstance(p, str):
                pieces.append(_fstring_text(p))
                continue
            code = self.money_text(p)
            if any(c in code for c in _NOT_IN_FSTRING) or "!" in code.replace("!=", ""):
                parts = ", ".join(repr(q) if isinstance(q, str) else self.money_text(q) for q in e.parts)
                return f"{self.rt('interp')}({parts})"
            as_is = p.ty == T.TEXT or _whole(p.ty) or _money(T.strip_opt(p.ty))  # an amount is text already
            pieces.append(f"{{{code}}}" if as_is else f"{{{self.rt('fmt')}({code})}}")
        return f'f"{"".join(pieces)}"'

    def money_text(self, e: ir.Expr) -> str:
        """A value in a text: an amount with places as `fmt_money` writes it, anything else as it is."""
        code = self.ex(e)
        return f"{self.rt('fmt_money')}({code}, {_PLACES.get()})" if _money(T.strip_opt(e.ty)) else code

    def sub(self, e: ir.Expr, outer: int, strict: bool) -> str:
        """An operand: in parentheses only where Python's precedence would read it otherwise."""
        text = self.ex(e)
        inner = _precedence(e)
        return f"({text})" if inner < outer or (strict and inner == outer) else text

    def field(self, e: ir.Field) -> str:
        obj = self.ex(e.obj)
        ty = e.obj.ty
        if isinstance(ty, T.OrderT):
            return f"{obj}.player" if e.name == "player" else f"{obj}.args[{e.name!r}]"
        if isinstance(ty, T.ThingT):
            if ty.name == "Player" and e.name == "key":
                return f"{obj}._key"
            thing = next((t for t in self.p.things if t.name == ty.name), None)
            if thing is not None and e.name == thing.key:
                return f"{obj}._key"
        return traced.read(self, e, obj) if self.trace else f"{obj}.{names.attr(e.name)}"

    def new(self, e: ir.New) -> str:
        """`new THING(...)`: the store gives the number and the defaults; the fields given are set by name."""
        owner = "None"
        values = []
        for name, value in e.fields:
            if name == "owner" and self.numbered.get(e.thing) == "owner":
                owner = self.ex(value)
            else:
                thing = next(t for t in self.p.things if t.name == e.thing)
                ty = next((f.ty for f in thing.fields if f.name == name), value.ty)
                values.append(f"{names.attr(name)}={self.stored(value, ty)}")
        code = f"g.units[{e.thing!r}].new(" + ", ".join([owner, *values]) + ")"
        return traced.new(self, e, code) if self.trace else code

    def stored(self, value: ir.Expr, target: T.Ty) -> str:
        """`value` as a field or a local of type `target` keeps it: a list (or what a function made) given where
        a set is kept becomes one (each item once, things in declaration order), as `add` keeps it."""
        code = self.ex(value)
        if isinstance(value, ir.MakeList) and len(value.items) < 2:
            return code  # `[]` and `[x]` are sets already
        if isinstance(T.strip_opt(target), T.SetT) and (isinstance(value.ty, T.ListT) or
                                                        isinstance(value, (ir.CallFn, ir.CallProcValue))):
            return f"{self.rt('as_set')}({code})"
        return code

    def builtin(self, e: ir.Builtin) -> str:
        """A builtin function's call, as its entry in `rulesdsl.builtins` writes it."""
        b = BUILTINS[e.func]
        a = [self.ex(x) for x in e.args]
        if e.func in ("round", "floor", "ceil") and _money(e.ty):
            return f"{self.rt('money_' + e.func)}({a[0]}, {_PLACES.get()})"  # to the smallest amount
        if e.func == "text" and _money(T.strip_opt(e.args[0].ty)):
            return f"{self.rt('fmt_money')}({a[0]}, {_PLACES.get()})"
        if e.func == "size" and isinstance(e.args[0], ir.Special) and e.args[0].name == "players":
            a = ["g.players_read()"]  # only counted: the game's own list, not a copy
        fills = {"args": ", ".join(a), "extra": repr(e.extra)}
        if b.runtime is not None:
            fills["rt"] = self.rt(b.runtime)
        emit = b.emit
        keys = a if e.func == "draw" else a[1:]
        if e.func in KEYED and keys:
            # A keyed draw: the stream of (purpose, keys), which no draw under another key moves.
            emit = emit.replace("g.rng({extra})", "g.keyed({extra}, {keys})").replace(
                "g.rng({purpose})", "g.keyed({purpose}, {keys})")
            fills["keys"] = ", ".join(keys)
        if e.func == "draw":
            table, purpose = e.extra
            fills.update(table=names.table(table), purpose=repr(purpose))
        if self.trace and e.func in traced.DRAWN:
            emit = traced.draw(self, e, emit)
            fills["trace_at"] = traced.at(self, e.line)
        return emit.format(*a, **fills)

    def loop_source(self, var: str, source: ir.Expr, where: ir.Expr | None) -> str:
        """What a loop or an aggregate goes through, as Python, read in the enclosing block.

        Where the condition can hold only for a key stored in a per-key value (`for p in players where
        c.influence[p] > 0`), the loop goes through the keys that value stores instead of every player or
        thing: the same items in the same order, found in the few stored rather than among all (see
        `_stored_test`; `loop_condition` adds what `players` would have kept to the condition)."""
        if isinstance(source, ir.Builtin) and source.func == "orders":
            # Every loop and aggregate goes through a copy or makes a new value, so the engine's own list of
            # the turn's orders is read in place, not copied first as a value of `orders(kind)` is.
            return f"g.orders_done[{source.extra!r}]"
        found = self.index_test(var, source, where)
        if found is not None:
            thing, field, value, _ = found
            return f"{self.rt('bucket')}(g.ix[{thing!r}][{field!r}], {self.ex(value)})"
        test = _stored_test(var, source, where)
        if test is None:
            if isinstance(source, ir.Special) and source.name == "players":
                return "g.players_read()"  # the game's own list, not a copy, as for orders(kind) above
            if isinstance(source, ir.AllOf) and source.thing in self.numbered:
                return f"g.units[{source.thing!r}].live()"  # likewise: read, or copied by the loop
            return self.ex(source)
        thing = source.thing if isinstance(source, ir.AllOf) else "Player"
        return f"{self.rt('stored')}(g.index[{thing!r}], {self.sub(test.obj, 9, False)})"

    def loop_condition(self, var: str, source: ir.Expr, where: ir.Expr | None) -> str:
        """A loop's condition (` if ...`, or nothing), read in the loop's block once its variable is bound."""
        if where is None:
            return ""
        found = self.index_test(var, source, where)
        if found is not None:
            # The index's bucket holds only what passes the test: the rest of the condition is asked.
            rest = [c for c in _conjuncts(where) if c is not found[3]]
            if not rest:
                return ""
            where = functools.reduce(lambda a, b: ir.BinOp(T.BOOL, a.line, "and", a, b), rest)
        if isinstance(source, ir.Special) and source.name == "players" and _stored_test(var, source, where):
            return f" if {self.local(var)}.active and {self.sub(where, _PREC['and'], False)}"
        return f" if {self.ex(where)}"

    def index_test(self, var: str, source: ir.Expr,
                   where: ir.Expr | None) -> tuple[str, str, ir.Expr, ir.Expr] | None:
        """(thing, field, value, the test) when `for var in THING where ... var.F == value ...` may read the index of F
        instead of going through every instance: the bucket holds exactly the instances for which the test
        holds, in the order a scan gives (see runtime/units.py). Every conjunct before the test must be a
        comparison of names and constants, as for `_stored_test`: for an instance skipped, the scan would have
        evaluated only those and the test, none of which can fail or change anything."""
        if not isinstance(source, ir.AllOf) or where is None:
            return None
        indexed = self.indexed.get(source.thing, ())
        tests = {id(conj): (f, value) for f, value, conj in ir.field_tests(var, where)}
        for conj in _conjuncts(where):
            found = tests.get(id(conj))
            if found is not None and found[0] in indexed:
                return source.thing, found[0], found[1], conj
            if not _harmless_comparison(conj):
                return None
        return None

    def agg(self, e: ir.Agg) -> str:
        found = self.index_test(e.var, e.source, e.where)
        if found is not None and e.func == "count" and e.where is not None and len(_conjuncts(e.where)) == 1 \
                and (e.body.ty != T.BOOL or (isinstance(e.body, ir.Local) and e.body.name == e.var)):
            # count(x for x in T where x.F == v): the size of the bucket, with no list made.
            thing, field, value, _ = found
            return f"{self.rt('bucket_size')}(g.ix[{thing!r}][{field!r}], {self.ex(value)})"
        test = _stored_test(e.var, e.source, e.where) if _order_free(e) and found is None else None
        if test is not None:
            above = _best_by_stored(e, test)
            if above is not None:
                return self.best_stored(e, test, *above)
            return self.stored_agg(e, test)
        src = self.loop_source(e.var, e.source, e.where)
        with self.block():
            v = self.bind(e.var)
            return self._agg(e, v, src)

    def best_stored(self, e: ir.Agg, m: ir.MapGet, low: ir.Const, strict: bool) -> str:
        """`best(x for x in S where m[x] > low by m[x])` (or `>=`): the thing `m` stores the one highest value for,
        found by the runtime's `best_stored` in one loop over what `m` stores. It is a country's leader (who
        holds the most influence there), which the rules of a game ask for everywhere; the aggregate's own
        form costs a generator and a call of `best` besides, two and a half times as much."""
        thing = e.source.thing if isinstance(e.source, ir.AllOf) else "Player"
        active = isinstance(e.source, ir.Special) and e.source.name == "players"
        return (f"{self.rt('best_stored')}(g.index[{thing!r}], {self.sub(m.obj, 9, False)}, {self.ex(low)}, "
                f"strict={strict!r}, active={active!r})")

    def stored_agg(self, e: ir.Agg, test: ir.MapGet) -> str:
        """An aggregate whose value does not depend on the order of its items, over the keys a per-key value
        `m` stores (see `loop_source`): it goes through `m`'s (thing, value) pairs as `m` stores them, not
        sorted into declaration order, and reads `m[var]` from the pair instead of looking it up again.

        The same items pass the condition as in declaration order, and each one's body is worked out alike;
        only the order differs, which a sum, a count, the best (the one highest, none on a tie) and the
        largest or smallest whole number do not see. (Where several items' bodies would fail, another may
        be the first to: the turn fails either way.)"""
        thing = e.source.thing if isinstance(e.source, ir.AllOf) else "Player"
        src = f"{self.rt('stored_items')}(g.index[{thing!r}], {self.sub(test.obj, 9, False)})"
        with self.block():
            v = self.bind(e.var)
            at = names.stored_value(v)
            self.stored_values.append((test, e.var, v, at))
            try:
                return self._agg(e, v, src, target=f"{v}, {at}")
            finally:
                self.stored_values.pop()

    def _agg(self, e: ir.Agg, v: str, src: str, body: str | None = None, target: str | None = None) -> str:
        gen = f"for {target or v} in {src}{self.loop_condition(e.var, e.source, e.where)}"
        body = self.ex(e.body) if body is None else body
        f = e.func
        if f == "sum":
            return f"sum({body} {gen})"
        if f == "count":
            # count(cond for x in L) counts where cond holds; count(x for x in L) counts the items.
            if e.body.ty == T.BOOL and not (isinstance(e.body, ir.Local) and e.body.name == e.var):
                return f"sum(1 {gen} if {body})"
            return f"sum(1 {gen})"
        if f == "max":
            return f"{self.rt('agg_max')}({body} {gen})"
        if f == "min":
            return f"{self.rt('agg_min')}({body} {gen})"
        if f in ("any", "all"):
            return f"{f}({body} {gen})"
        if f == "best":
            assert e.by is not None
            return f"{self.rt('best')}(({self.ex(e.by)}, {body}) {gen})"
        if f == "distinct":
            # A dict keeps its keys in the order they came, each once: ints and texts by value, players and
            # instances by identity (they do not define equality), so the first of each stays where it was.
            if e.by is None:
                return f"list(dict.fromkeys({body} {gen}))"
            by = f"sorted([{v} {gen}], key=lambda {v}: {self.ex(e.by)}{', reverse=True' if e.descending else ''})"
            return f"list(dict.fromkeys({body} for {v} in {by}))"
        # sorted, list
        if e.by is None:
            return f"[{body} {gen}]"
        # `sorted`, not the runtime's `ordered` (the same stable sort): a key defined in a loop and called at
        # once reads as such (ruff's B023 knows `sorted` calls it at once).
        by = f"sorted([{v} {gen}], key=lambda {v}: {self.ex(e.by)}{', reverse=True' if e.descending else ''})"
        if isinstance(e.body, ir.Local) and e.body.name == e.var:
            return by  # sorted() makes a new list already
        return f"[{body} for {v} in {by}]"

    # ------------------------------------------------------------ values as plain data
    def plain(self, e: ir.Expr) -> str | None:
        """`e` as code whose value is plain data made for its caller alone: text, whole numbers, yes/no, none,
        and lists and records of them, sharing no list with the state (a list of the state is copied where it
        is read). None where that cannot be shown. A report made only of such values is `Plain`, and the
        runtime's `to_data` need not convert and copy it again."""
        made = self._plain(e)
        return None if made is None else made[0]

    def _plain(self, e: ir.Expr) -> tuple[str, bool] | None:
        """`plain`, and whether the code is one operand (no parentheses needed around it)."""
        ty = e.ty
        if not _plain_type(ty):
            return None
        if _scalar(ty):
            return self.ex(e), _precedence(e) == 9
        if isinstance(e, ir.MakeRecord):
            fields = [(k, self.plain(v)) for k, v in e.fields]
            if any(v is None for _, v in fields):
                return None
            if self.trace:
                return traced.record([(k, v) for k, v in fields if v is not None]), True
            return "{" + ", ".join(f"{k!r}: {v}" for k, v in fields) + "}", True
        if isinstance(e, ir.MakeList):
            items = [self.plain(i) for i in e.items]
            if any(i is None for i in items):
                return None
            return "[" + ", ".join(i for i in items if i is not None) + "]", True
        if isinstance(e, ir.Agg) and e.func in ("list", "sorted", "distinct"):
            src = self.loop_source(e.var, e.source, e.where)
            with self.block():
                v = self.bind(e.var)
                body = self.plain(e.body)
                return None if body is None else (self._agg(e, v, src, body), True)
        if isinstance(e, ir.BinOp) and e.op == "+":
            left, right = self.plain(e.left), self._plain(e.right)
            if left is None or right is None:
                return None
            return f"{left} + {right[0] if right[1] else f'({right[0]})'}", False
        if isinstance(e, ir.Cond):
            then, otherwise = self._plain(e.then), self._plain(e.otherwise)
            if then is None or otherwise is None:
                return None
            return (f"{then[0] if then[1] else f'({then[0]})'} if {self.sub(e.cond, 1, True)} else "
                    f"{otherwise[0] if otherwise[1] else f'({otherwise[0]})'}", False)
        if isinstance(e, ir.CallFn) and self.plain_result(e.func):
            return self.ex(e), True
        if isinstance(ty, (T.ListT, T.SetT)) and _scalar(ty.item):
            return f"list({self.ex(e)})", True  # a list the state (or a caller) holds: a copy of it
        return None

    def plain_result(self, name: str) -> bool:
        """Whether function `name` returns plain data made for its caller (its body is emitted with `plain`)."""
        if name not in self._plain_functions:
            f = next(f for f in self.p.functions if f.name == name)
            self._plain_functions[name] = False  # a function that calls itself: not shown plain
            scopes = self.scopes
            with self.function(a for a, _ in f.params):
                self._plain_functions[name] = _plain_type(f.result) and self.plain(f.body) is not None
            self.scopes = scopes
        return self._plain_functions[name]

    # ------------------------------------------------------------ statements
    def stmts(self, body: tuple[ir.Stmt, ...]) -> None:
        if not body:
            self.w.line("pass")
        for s in body:
            self.stmt(s)

    def stmt(self, s: ir.Stmt) -> None:
        if self.trace and traced.stmt(self, s):
            return
        top, self.phase_top = self.phase_top, False
        try:
            self._stmt(s, top)
        finally:
            self.phase_top = top

    def _stmt(self, s: ir.Stmt, top: bool) -> None:
        w = self.w
        if isinstance(s, ir.Let):
            value = self.ex(s.value)  # read before the name is bound: `let b = b + 1` reads an enclosing `b`
            w.line(f"{self.bind(s.name)} = {value}", s.line)
        elif isinstance(s, ir.Assign):
            self.assign(s)
        elif isinstance(s, ir.If):
            for i, (test, body) in enumerate(s.branches):
                w.line(f"{'if' if i == 0 else 'elif'} {self.ex(test)}:", test.line)
                with w.indent(), self.block():
                    self.stmts(body)
            if s.otherwise is not None:
                w.line("else:")
                with w.indent(), self.block():
                    self.stmts(s.otherwise)
        elif isinstance(s, ir.For) and isinstance(s.source, ir.CountRange):
            self.count(s, s.source)
        elif isinstance(s, ir.For) and not self.trace and self.destroys_each(s):
            # `for each x in ... { destroy x }`: one batch, so that fields holding them are read once, not per item.
            src = self.loop_source(s.var, s.source, s.where)
            thing = s.source.ty.item.name  # type: ignore[attr-defined]
            with self.block():
                v = self.bind(s.var)
                w.line(f"g.units[{thing!r}].destroy_all([{v} for {v} in {src}"
                       f"{self.loop_condition(s.var, s.source, s.where)}])", s.line)
        elif isinstance(s, ir.For):
            src = self.loop_source(s.var, s.source, s.where)
            # Traced: a round of a loop inside a step is a step of its own where it may change the state, so that
            # what each change read and used is that of its round (a division's move, not the whole phase's).
            outer = None
            if self.trace and not top and traced.changes(self, s.body):
                self.round_depth += 1
                outer = traced.rounds_open(self, s.line, self.round_depth)
                w.level += 1
            with self.block():
                v = self.bind(s.var)
                cond = self.loop_condition(s.var, s.source, s.where)
                # Always a copy: the body may change what it goes through.
                if s.where is None and s.by is None:
                    w.line(f"for {v} in list({src}):", s.line)
                elif s.by is None:
                    w.line(f"for {v} in [{v} for {v} in {src}{cond}]:", s.line)
                else:
                    w.line(f"for {v} in sorted([{v} for {v} in {src}{cond}], key=lambda {v}: "
                           f"{self.ex(s.by)}{', reverse=True' if s.descending else ''}):", s.line)
                with w.indent():
                    if top and self.trace:
                        traced.step(self, s.line, v)
                    elif outer is not None:
                        traced.round_step(self, s.line, v, outer)
                    item = s.source.ty.item if isinstance(s.source.ty, (T.ListT, T.SetT)) else None
                    if isinstance(item, T.ThingT) and item.name in self.numbered:
                        # The body, or a procedure it calls, may destroy an instance the loop has yet to reach.
                        w.line(f"if not {v}._live:")
                        with w.indent():
                            w.line("continue")
                    self.stmts(s.body)
            if outer is not None:
                w.level -= 1
                traced.rounds_close(self, s.line, outer)
                self.round_depth -= 1
            if top and self.trace:
                traced.step(self, s.line, None)  # what follows the loop is a step of its own
        elif isinstance(s, ir.NewStmt):
            w.line(self.new(s.value), s.line)
        elif isinstance(s, ir.Destroy):
            held = s.target.ty
            assert isinstance(held, T.ThingT)
            w.line(f"g.units[{held.name!r}].destroy({self.ex(s.target)})", s.line)
        elif isinstance(s, ir.CallProc):
            w.line(f"{names.procedure(s.proc)}(" + ", ".join(["g", *(self.ex(a) for a in s.args)]) + ")", s.line)
        elif isinstance(s, ir.Run):
            w.line(f"g.run({', '.join(map(repr, s.orders))})", s.line)
        elif isinstance(s, ir.Halt):
            w.line(f"raise {self.rt('Halt')}({self.ex(s.text)})", s.line)
        elif isinstance(s, ir.News):
            w.line(f"g.news({self.ex(s.text)})", s.line)
        elif isinstance(s, ir.Overrule):
            w.line(f"g.overrule({self.ex(s.order)}, {self.ex(s.text)})", s.line)
        elif isinstance(s, ir.Tell):
            w.line(f"g.tell({self.ex(s.player)}, {self.ex(s.text)})", s.line)
        elif isinstance(s, ir.Add):
            self.add(s)
        elif isinstance(s, ir.Remove):
            t = s.target
            if isinstance(t, ir.MapGet):
                obj, key = self.ex(t.obj), self.ex(t.key)
                default = self.ex(t.default) if t.default is not None else "[]"
                self.w.line(f"{self.rt('mremove')}({obj}, {key}, {self.ex(s.value)}, {default})", s.line)
            else:
                self.w.line(f"{self.rt('remove_item')}({self.ex(t)}, {self.ex(s.value)})", s.line)
        elif isinstance(s, ir.Clear):
            t = s.target
            if isinstance(t, ir.MapGet):
                w.line(f"{self.rt('mset')}({self.ex(t.obj)}, {self.ex(t.key)}, [], [])", s.line)
            else:
                w.line(f"{self.ex(t)}.clear()", s.line)
        elif isinstance(s, ir.Fail):
            w.line(f"raise {self.rt('OrderFailed')}({self.ex(s.text)})", s.line)
        elif isinstance(s, ir.While):
            # The condition is a lambda so that it is asked afresh before each round (and after `skip`), by
            # the runtime, which stops a loop that runs past MAX_ROUNDS.
            w.line(f"for _ in {self.rt('rounds_while')}(lambda: {self.ex(s.cond)}):", s.line)
            with w.indent(), self.block():
                self.stmts(s.body)
        elif isinstance(s, ir.Return):
            w.line("return" if s.value is None else f"return {self.ex(s.value)}", s.line)
        elif isinstance(s, ir.Break):
            w.line("break", s.line)
        elif isinstance(s, ir.Skip):
            w.line("continue", s.line)
        else:
            raise AssertionError(f"cannot emit {s!r}")

    def destroys_each(self, s: ir.For) -> bool:
        """A loop over numbered things whose whole body destroys its item: what it goes through is decided
        before the first round (its `where` asked of every item first), so destroying them all at once is the
        same."""
        item = s.source.ty.item if isinstance(s.source.ty, (T.ListT, T.SetT)) else None
        return (isinstance(item, T.ThingT) and item.name in self.numbered and s.by is None and len(s.body) == 1
                and isinstance(s.body[0], ir.Destroy) and isinstance(s.body[0].target, ir.Local)
                and s.body[0].target.name == s.var)

    def count(self, s: ir.For, source: ir.CountRange) -> None:
        """A counted loop: both bounds read once, as the rules say. Python's `range` where both are literals;
        otherwise the runtime's `rounds`, which refuses a loop longer than MAX_ROUNDS (a bound may come
        from what a player wrote)."""
        low, high = source.low, source.high
        if not (_literal_int(low) and _literal_int(high)):
            rounds = f"{self.rt('rounds')}({self.ex(low)}, {self.ex(high)})"
        else:
            assert isinstance(high, ir.Const) and isinstance(high.value, int)
            rounds = f"range({self.ex(low)}, {high.value + 1})"
        with self.block():
            self.w.line(f"for {self.bind(s.var)} in {rounds}:", s.line)
            self._count_body(s)

    def _count_body(self, s: ir.For) -> None:
        with self.w.indent():
            if s.where is None:
                self.stmts(s.body)
                return
            # The condition is asked at the start of each round, so it sees what earlier rounds changed.
            self.w.line(f"if {self.ex(s.where)}:", s.where.line)
            with self.w.indent():
                self.stmts(s.body)

    def assign(self, s: ir.Assign) -> None:
        t = s.target
        value = self.stored(s.value, t.ty) if s.op == "=" else self.ex(s.value)
        if isinstance(t, ir.MapGet):
            obj, key = self.ex(t.obj), self.ex(t.key)
            default = self.ex(t.default) if t.default is not None else "None"
            if s.op != "=":
                value = f"{_map_get(self.sub(t.obj, 9, False), self.sub(t.key, 9, False), default)} {s.op[0]} {value}"
            self.w.line(f"{self.rt('mset')}({obj}, {key}, {value}, {default})", s.line)
            return
        if isinstance(t, (ir.Local, ir.Field)):
            self.w.line(f"{self.ex(t)} {s.op} {value}", s.line)
            return
        raise AssertionError(f"cannot assign to {t!r}")

    def add(self, s: ir.Add) -> None:
        t = s.target
        is_set = isinstance(t.ty, T.SetT)
        if isinstance(t, ir.MapGet):
            obj, key = self.ex(t.obj), self.ex(t.key)
            self.w.line(f"{self.rt('madd')}({obj}, {key}, {self.ex(s.value)}, {is_set})", s.line)
        elif is_set:
            self.w.line(f"{self.rt('set_add')}({self.ex(t)}, {self.ex(s.value)})", s.line)
        else:
            self.w.line(f"{self.ex(t)}.append({self.ex(s.value)})", s.line)

    # ------------------------------------------------------------ declarations
    def module(self) -> str:
        p = self.p
        w = self.w
        body = Writer(p.source_name)
        self.w = body
        self.things()
        self.tables()
        self.functions()
        self.orders()
        self.phases()
        self.report_and_victory()
        self.simulation()
        self.spec()
        self.w = w
        w.line(f"# @generated by rulesdsl {__version__} from {comment_text(p.source_name)} "
               f"(sha256:{p.source_hash[:16]}).")
        w.line("# Do not edit: change the .rules file and compile again.")
        if self.trace:
            w.line("# The traced build (`rulesdsl turn --trace`): every change of state is told to g.trace.")
        # One expression stays on one line, so that the line map points an error at one `.rules` line; the
        # schemas and long conditions make such lines longer than the project's 120 columns.
        w.line("# ruff: noqa: E501")
        w.line(docstring(f"{p.title}, compiled from {p.source_name}."))
        w.line()
        imports = sorted(self.used | {"Thing", "PlayerBase", "RulesetSpec"})
        w.line("from rulesdsl.runtime import (")
        with w.indent():
            for name in imports:
                w.line(f"{name},")
        w.line(")")
        offset = len(w.lines)
        for text in body.lines:
            w.lines.append(text)
        w.line_map.extend((py + offset, src) for py, src in body.line_map)
        rules = [(py + offset, label) for py, label in body.rule_map]
        files = [(py + offset, name) for py, name in body.file_map]
        w.line()
        w.line("LINE_MAP = (")
        with w.indent():
            for i in range(0, len(w.line_map), 6):
                w.line(" ".join(f"({a}, {b})," for a, b in w.line_map[i:i + 6]))
        w.line(")")
        w.line("RULE_MAP = (")
        with w.indent():
            for py, label in rules:
                w.line(f"({py}, {label!r}),")
        w.line(")")
        if files:
            # A variant: the `.rules` lines above are numbered in the files named here, from each line on.
            w.line("FILE_MAP = (")
            with w.indent():
                for py, name in files:
                    w.line(f"({py}, {name!r}),")
            w.line(")")
            w.line("RULESET = _ruleset(LINE_MAP, RULE_MAP, FILE_MAP)")
        else:
            w.line("RULESET = _ruleset(LINE_MAP, RULE_MAP)")
        return w.text()

    def things(self) -> None:
        w = self.w
        for t in self.p.things:
            w.section(file=_file(t))
            w.mark(t.line)
            indexed = self.indexed[t.name]
            base = self.rt("Numbered") if t.numbered else "Thing"
            w.line(f"class {names.thing(t.name)}({base}):")
            with w.indent():
                # An indexed field's value is kept in a slot of its own, behind a property that keeps the index.
                attrs = [names.attr(f.name) if f.name not in indexed else _index_slot(f.name) for f in t.fields]
                if t.numbered == "owner":
                    attrs.append("owner")
                if indexed and not t.numbered:
                    attrs.append("_ix")
                slots = ", ".join(sorted(repr(a) for a in attrs))
                w.line(f"__slots__ = ({slots}{',' if len(attrs) == 1 else ''})")
                w.line(f"TYPE = {t.name!r}")
                for f in t.fields:
                    if f.name in indexed:
                        w.line(f"{names.attr(f.name)} = {self.rt('indexed_field')}({f.name!r}, "
                               f"{_index_slot(f.name)!r})")
        gr = self.p.grid
        if gr is not None:
            # A sector is a thing: the same attribute reads, one object per sector, made by the runtime.
            w.section()
            w.mark(gr.line)
            w.line(f"class {names.thing(gr.name)}(Thing):")
            with w.indent():
                indexed = self.indexed[gr.name]
                attrs = [names.attr(f.name) if f.name not in indexed else _index_slot(f.name) for f in gr.fields]
                attrs += ["_ix"] if indexed else []
                slots = ", ".join(sorted(repr(a) for a in attrs))
                w.line(f"__slots__ = ({slots}{',' if len(attrs) == 1 else ''})")
                w.line(f"TYPE = {gr.name!r}")
                for f in gr.fields:
                    if f.name in indexed:
                        w.line(f"{names.attr(f.name)} = {self.rt('indexed_field')}({f.name!r}, "
                               f"{_index_slot(f.name)!r})")
        w.section(self.p.player_line)
        w.line("class Player(PlayerBase):")
        with w.indent():
            slots = ", ".join(sorted(repr(names.attr(f.name)) for f in self.p.player_fields))
            w.line(f"__slots__ = ({slots}{',' if len(self.p.player_fields) == 1 else ''})")
            w.line("TYPE = 'Player'")
        if self.p.world_line is not None:
            w.section(self.p.world_line)
            w.line(f"class World({self.rt('WorldBase')}):")
            with w.indent():
                slots = ", ".join(sorted(repr(names.attr(f.name)) for f in self.p.world_fields))
                w.line(f"__slots__ = ({slots}{',' if len(self.p.world_fields) == 1 else ''})")

    def table_rows(self, t: ir.Table) -> None:
        for k, value in t.rows:
            self.w.line(f"({', '.join(const(x, self.used) for x in k)},): {self.ex(value)},", value.line)

    def tables(self) -> None:
        w = self.w
        for t in self.p.tables:
            if t.kind == "exact" and all(_immutable(value) for _, value in t.rows):
                # Built once at import: no row reads the game, and no caller can change a shared value.
                w.section(t.line, rule=f"table {t.name}", file=_file(t))
                w.line(f"{names.table_rows(t.name)} = {{")
                with w.indent():
                    self.table_rows(t)
                w.line("}")
                w.section(t.line, rule=f"table {t.name}", file=_file(t))
                params = [f"k{i}" for i in range(len(t.param_types))]
                key = ", ".join(f"{p}._key" if isinstance(pt, T.ThingT) else p
                                for p, pt in zip(params, t.param_types, strict=True))
                w.line(f"def {names.table(t.name)}(" + ", ".join(["g", *params]) + "):")
                with w.indent():
                    w.line(f"return {self.rt('lookup')}({t.name!r}, {names.table_rows(t.name)}, ({key},))")
                continue
            w.section(t.line, rule=f"table {t.name}", file=_file(t))
            if t.kind == "weighted":
                w.line(f"def {names.table(t.name)}(g, rng):")
                with w.indent():
                    rows = ", ".join(f"({self.bound(wt)}, {self.ex(v)})" for wt, v in t.rows)
                    w.line(f"return {self.rt('weighted_pick')}(rng, ({rows},))")
                continue
            params = [f"k{i}" for i in range(len(t.param_types))]
            w.line(f"def {names.table(t.name)}(" + ", ".join(["g", *params]) + "):")
            if t.name in self.ratio_tables:
                # A key compared with fractions is compared in whole numbers: k0 < 3/2 is 2 * num < 3 * den
                # where k0 = num/den (den > 0, for a whole number too), with no fraction made per row.
                with w.indent():
                    w.line(f"return {names.table_ratio(t.name)}(g, k0.numerator, k0.denominator)")
                w.section(t.line, rule=f"table {t.name}", file=_file(t))
                w.line(f"def {names.table_ratio(t.name)}(g, num, den):")
            with w.indent():
                if t.kind == "range":
                    whole = t.name in self.ratio_tables
                    for (lo, lo_open, hi, hi_open), value in t.rows:
                        conds = []
                        if lo is not None:
                            conds.append(f"k0 {'>' if lo_open else '>='} {self.ex(lo)}" if isinstance(lo, ir.Expr)
                                         else _compare("k0", ">" if lo_open else ">=", lo, whole, self.used))
                        if hi is not None:
                            conds.append(f"k0 {'<' if hi_open else '<='} {self.ex(hi)}" if isinstance(hi, ir.Expr)
                                         else _compare("k0", "<" if hi_open else "<=", hi, whole, self.used))
                        w.line(f"if {' and '.join(conds) or 'True'}:", value.line)
                        with w.indent():
                            w.line(f"return {self.ex(value)}")
                    missed = f"{self.rt('Fraction')}(num, den)" if whole else "k0"
                    w.line(f"raise {self.rt('TableMiss')}({t.name!r}, {missed})")
                else:
                    key = ", ".join(f"{p}._key" if isinstance(pt, T.ThingT) else p
                                    for p, pt in zip(params, t.param_types, strict=True))
                    w.line(f"return {self.rt('lookup')}({t.name!r}, {{")
                    with w.indent():
                        self.table_rows(t)
                    w.line(f"}}, ({key},))")
        if self.trace:
            traced.table_wrappers(self)

    def bound(self, b: Any) -> str:
        """A range bound or a chance: a number, or a parameter that sets it (`g.params[...]`)."""
        return self.ex(b) if isinstance(b, ir.Expr) else const(Fraction(b), self.used)

    def table_checks(self) -> None:
        """`table_checks=(...)`: tables whose bounds or chances parameters set, checked when a game starts."""
        w = self.w
        decided = [t for t in self.p.tables if t.decided_by]
        if not decided:
            return  # only a ruleset with such tables names them, so other modules read the same
        self.used.add("TableCheckSpec")
        w.line("table_checks=(")
        with w.indent():
            for t in decided:
                if t.kind == "weighted":
                    rows = ", ".join(self.bound(wt) for wt, _ in t.rows)
                    whole = ""
                else:
                    rows = ", ".join(f"({self.bound(lo) if lo is not None else 'None'}, {lo_open!r}, "
                                     f"{self.bound(hi) if hi is not None else 'None'}, {hi_open!r})"
                                     for (lo, lo_open, hi, hi_open), _ in t.rows)
                    whole = f", whole={_whole(t.param_types[0])!r}"
                w.line(f"TableCheckSpec(table={t.name!r}, kind={t.kind!r}, params={t.decided_by!r}, "
                       f"rows=lambda g: ({rows},){whole}),")
        w.line("),")

    def functions(self) -> None:
        w = self.w
        remembered = _remembered(self.p)
        chancy = _chancy(self.p)
        for f in self.p.functions:
            if f.name in remembered:
                # The decorator first, so that the `.rules` marker stays right above the `def` it names.
                w.section()
                w.line(f"@{self.rt('pure')}")
                w.in_file(_file(f))
                w.mark(f.line)
                w.rule(f"function {f.name}")
            else:
                w.section(f.line, rule=f"function {f.name}", file=_file(f))
            w.line(f"def {names.function(f.name)}(" + ", ".join(["g", *(names.local(a) for a, _ in f.params)]) + "):")
            with w.indent(), self.function(a for a, _ in f.params):
                self.hoist(_repeated_calls(f.body, chancy), f.body.line)
                body = self.plain(f.body) if not _scalar(f.result) and self.plain_result(f.name) else None
                w.line(f"return {self.ex(f.body) if body is None else body}", f.body.line)
                self.hoisted = {}
        for pr in self.p.procedures:
            w.section(pr.line, rule=f"procedure {pr.name}", file=_file(pr))
            w.line(f"def {names.procedure(pr.name)}(" + ", ".join(["g", *(names.local(a) for a, _ in pr.params)])
                   + "):")
            with w.indent(), self.function(a for a, _ in pr.params):
                self.stmts(pr.body)

    def hoist(self, calls: list[ir.CallFn], line: int) -> None:
        """Each call a function's body makes twice or more, and surely makes (not only in one branch), as a
        local set before the `return`: `res_my_troops_in = fn_my_troops_in(g, v_p, v_c)`, then read where the
        call stood. The body is an expression, which writes nothing, so each of its calls returns the same
        value wherever it stands; none of them draws a chance, so the draws keep their order. (A call that would
        fail now fails before the rest of the body, not after: the turn fails either way.)"""
        count: dict[str, int] = {}
        for call in calls:
            n = count[call.func] = count.get(call.func, 0) + 1
            name = names.held_call(call.func, n)
            self.w.line(f"{name} = {self.ex(call)}", line)  # after those it may use, found inside it first
            self.hoisted[_shape(call)] = name

    def _order_function(self, o: ir.Order, part: str, line: int, body: object) -> None:
        """The head of one of an order's functions, `(g, me, o)`, with the arguments `body` reads unpacked;
        the body follows in an indented block."""
        w = self.w
        w.section(line, rule=f"order {o.name}", file=_file(o))
        w.line(f"def {names.order(o.name, part)}(g, me, o):")
        self.scopes = [{a.name: names.local(a.name) for a in o.args}]
        read = _locals_read(body)
        with w.indent():
            for a in o.args:
                if a.name in read:
                    w.line(f"{names.local(a.name)} = o.args[{a.name!r}]")

    def _order_value(self, o: ir.Order, part: str, value: ir.Expr) -> None:
        """One function of an order that returns one expression: its cost, or whether it ends the turn."""
        self._order_function(o, part, value.line, value)
        with self.w.indent():
            self.w.line(f"return {self.ex(value)}", value.line)

    def orders(self) -> None:
        w = self.w
        for o in self.p.orders:
            if o.kind in ("stop", "discard"):
                continue
            for part, checks in (("valid", o.valids), ("require", o.requires)):
                if not checks:
                    continue
                self._order_function(o, part, o.line, checks)
                with w.indent():
                    for c in checks:
                        w.line(f"if {self.ex(ir.UnaryOp(T.BOOL, c.line, 'not', c.cond))}:", c.line)
                        with w.indent():
                            w.line(f"return {self.ex(c.message)}")
                    w.line("return None")
            if o.cost is not None:
                self._order_value(o, "cost", o.cost)
            if o.effect:
                self._order_function(o, "effect", o.line, o.effect)
                with w.indent():
                    self.stmts(o.effect)
            if o.ends_turn is not None:
                self._order_value(o, "ends_turn", o.ends_turn)
            if o.until is not None:
                self._order_value(o, "until", o.until)
            if o.default is not None:
                # `(g, me)`: no order was given, so there are no arguments; `me` is None for a world order.
                w.section(o.default.line, rule=f"order {o.name}", file=_file(o.default))
                w.line(f"def {names.order(o.name, 'default')}(g, me):")
                self.scopes = [{}]
                with w.indent():
                    self.stmts(o.default.body)
        for grp in self.p.policy.groups:
            w.section(grp.line, rule=f"order group {grp.name}", file=_file(grp.reason))
            w.line(f"def {names.group(grp.name)}(g, me):")
            self.scopes = [{}]
            with w.indent():
                w.line(f"return {self.ex(grp.reason)}", grp.reason.line)

    def phases(self) -> None:
        w = self.w
        for ph in self.p.phases:
            w.section(ph.line, rule=f"phase {ph.name}", file=_file(ph))
            w.line(f"def {names.phase(ph.name)}(g):")
            self.scopes = [{}]
            with w.indent():
                if self.trace:
                    traced.step(self, ph.line, None)
                self.phase_top = self.trace
                self.stmts(ph.body)
                self.phase_top = False
            if ph.when is not None:
                w.section(ph.when.line, rule=f"phase {ph.name}", file=_file(ph.when))
                w.line(f"def {names.phase_when(ph.name)}(g):", ph.when.line)
                self.scopes = [{}]
                with w.indent():
                    w.line(f"return {self.ex(ph.when)}", ph.when.line)

    def report_and_victory(self) -> None:
        w = self.w
        rep = self.p.report
        w.section(rep.line if rep is not None else None, rule="the report", file=_file(rep))
        w.line("def report_data(g, me):")
        self.scopes = [{}]
        with w.indent():
            if rep is not None and _remembered(self.p):
                # Nothing changes while a report is written: a function it calls again is not computed again.
                w.line(f"with {self.rt('unchanging')}(g):")
                w.level += 1
            fields = [(name, e, self.plain(e)) for name, e in (rep.fields if rep else ())]
            if fields and all(code is not None for _, _, code in fields):
                # Every value is plain data made for this report: the runtime need not convert or copy it.
                w.line(f"out = {self.rt('Plain')}()")
            else:
                fields = [(name, e, self.ex(e)) for name, e, _ in fields]
                w.line("out = {}")
            for name, e, code in fields:
                shape = _shown_shape(e.ty)
                if shape is not None:
                    code = f"{self.rt('show_money')}({code}, {shape!r}, {_PLACES.get()})"
                w.in_file(_file(e))  # a variant's report fields and its base's, each from its own file
                assert code is not None
                w.line(f"out[{name!r}] = {traced.value(code) if self.trace else code}", e.line)
            w.line("return g.trace.rec(out)" if self.trace else "return out")
            if rep is not None and _remembered(self.p):
                w.level -= 1
        for v in self.p.victories:
            w.section(v.line, rule=f"victory {v.name}", file=_file(v))
            w.line(f"def {names.victory(v.name, 'when')}(g, {names.local(v.var)}):")
            self.scopes = [{v.var: names.local(v.var)}]
            with w.indent():
                w.line(f"return {self.ex(v.when)}", v.when.line)
            if v.warn is not None:
                w.section(v.warn.line, rule=f"victory {v.name}", file=_file(v.warn))
                w.line(f"def {names.victory(v.name, 'warn')}(g, {names.local(v.var)}):")
                self.scopes = [{v.var: names.local(v.var)}]
                with w.indent():
                    w.line(f"return {self.ex(v.warn)}", v.warn.line)

    def simulation(self) -> None:
        """The `simulation` block's functions: a choice's options for `me`, an invariant's value, a hidden fact's
        `unless`. Only `rulesdsl simulate` calls them, between turns."""
        sim = self.p.simulation
        if sim is None:
            return
        w = self.w
        for i, ch in enumerate(sim.choices, 1):
            w.section(ch.line, rule="the simulation block", file=_file(ch))
            w.line(f"def {names.sim_choice(i)}(g, me):")
            with self.function(()), w.indent():
                w.line(f"return {self.ex(ch.options)}", ch.options.line)
        for inv in sim.invariants:
            w.section(inv.line, rule="the simulation block", file=_file(inv))
            w.line(f"def {names.sim_invariant(inv.name)}(g):")
            with self.function(()), w.indent():
                value = self.ex(inv.value)
                # The value is kept from the start to compare after each turn, which may change a list in place:
                # keep a copy (a set, kept as a list in the order things were added, sorted).
                if inv.unchanged and isinstance(inv.value.ty, T.ListT):
                    value = f"list({value})"
                elif inv.unchanged and isinstance(inv.value.ty, T.SetT):
                    value = f"sorted({value})"
                w.line(f"return {value}", inv.value.line)
        for i, h in enumerate(sim.hidden, 1):
            if h.unless is None:
                continue
            w.section(h.line, rule="the simulation block", file=_file(h))
            params = [h.var or "_", h.owner, h.viewer]
            w.line(f"def {names.sim_unless(i)}(g, " + ", ".join(names.local(x) if x != "_" else x for x in params)
                   + "):")
            with self.function([x for x in params if x != "_"]), w.indent():
                w.line(f"return {self.ex(h.unless)}", h.unless.line)

    def simulation_spec(self) -> None:
        """`simulation=SimulationSpec(...)`, written only for a ruleset with the block."""
        sim = self.p.simulation
        if sim is None:
            return
        w = self.w
        self.used.add("SimulationSpec")
        w.line("simulation=SimulationSpec(")
        with w.indent():
            if sim.weights:
                w.line(f"weights={sim.weights!r},")
            if sim.choices:
                self.used.add("ChoiceSpec")
                w.line("choices=(")
                with w.indent():
                    for i, ch in enumerate(sim.choices, 1):
                        w.line(f"ChoiceSpec(order={ch.order!r}, arg={ch.arg!r}, options={names.sim_choice(i)}, "
                               f"line={ch.line}),")
                w.line("),")
            if sim.invariants:
                self.used.add("InvariantSpec")
                w.line("invariants=(")
                with w.indent():
                    for inv in sim.invariants:
                        w.line(f"InvariantSpec(name={inv.name!r}, value={names.sim_invariant(inv.name)}, "
                               f"unchanged={inv.unchanged!r}, line={inv.line}),")
                w.line("),")
            if sim.hidden:
                self.used.add("HiddenSpec")
                w.line("hidden=(")
                with w.indent():
                    for i, h in enumerate(sim.hidden, 1):
                        unless = names.sim_unless(i) if h.unless is not None else "None"
                        w.line(f"HiddenSpec(thing={h.thing!r}, field={h.field!r}, attr={names.attr(h.field)!r}, "
                               f"keyed={bool(h.thing)!r}, type={type_desc(h.ty)!r}, unless={unless}, "
                               f"line={h.line}),")
                w.line("),")
        w.line("),")

    def field_spec(self, f: ir.FieldDef) -> str:
        if f.default is not None:
            default = f"lambda g: {self.stored(f.default, f.ty)}"
        else:
            value_ty = f.ty.value if isinstance(f.ty, T.MapT) else f.ty
            default = f"lambda g: {_zero(value_ty)}"
        self.used.add("FieldSpec")
        # Only when set, so that the modules of rulesets without such a field stay as they were.
        scenario = ", from_scenario=True" if f.from_scenario else ""
        where = ""
        if f.where is not None:
            where = (f", where=lambda g, {names.local(f.name)}: {self.ex(f.where)}, where_text={f.where_text!r}, "
                     f"line={f.line}")
        return (f"FieldSpec(name={f.name!r}, attr={names.attr(f.name)!r}, type={type_desc(f.ty)!r}, "
                f"default={default}, reset_each_turn={f.reset_each_turn!r}{scenario}{where})")

    def field_line(self, f: ir.FieldDef, shown: str) -> None:
        """A field's spec, whose default may fail while a turn runs: its lines name the field."""
        self.w.rule(f"the default of {shown}")
        self.w.in_file(_file(f))  # a variant's field and its base's, each from its own file
        self.w.line(self.field_spec(f) + ",", f.default.line if f.default is not None else None)
        self.w.rule("")

    def spec(self) -> None:
        w = self.w
        p = self.p
        for name in ("ThingSpec", "ParamSpec", "ArgSpec", "OrderSpec", "PolicySpec", "PhaseSpec", "VictorySpec",
                     "FieldSpec"):
            self.used.add(name)
        w.section(rule="")
        # A variant's declarations come from several files (its bases' are emitted before this): only then
        # does the spec name a file per line, so one-file modules read as they did.
        w.line("def _ruleset(line_map, rule_map, file_map):" if w.file_map else "def _ruleset(line_map, rule_map):")
        self.scopes = [{}]
        with w.indent():
            w.line("return RulesetSpec(")
            with w.indent():
                w.line(f"title={p.title!r},")
                w.line(f"version={p.settings.get('version', '')!r},")
                w.line(f"turn_unit={p.settings.get('turn', 'turn')!r},")
                w.line(f"game_id={p.settings.get('game', '{number}')!r},")
                w.line(f"source={p.source_name!r},")
                w.line(f"source_hash={p.source_hash!r},")
                w.line("player_cls=Player,")
                w.line("player_fields=(")
                with w.indent():
                    for f in p.player_fields:
                        self.field_line(f, f"player.{f.name}")
                w.line("),")
                w.line("things=(")
                with w.indent():
                    for t in p.things:
                        w.line(f"ThingSpec(name={t.name!r}, cls={names.thing(t.name)}, key={t.key!r}, fields=(")
                        with w.indent():
                            for f in t.fields:
                                self.field_line(f, f"{t.name}.{f.name}")
                        w.line("), instances=(")
                        with w.indent():
                            for inst in p.instances.get(t.name, []):
                                w.line(f"({inst.key!r}, {const(inst.values, self.used)}),")
                        # Only where there is something to say, so that other modules read as they did.
                        indexed = tuple(f.name for f in t.fields if f.name in self.indexed[t.name])
                        required = tuple(f.name for f in t.fields if t.numbered and f.default is None
                                         and not isinstance(f.ty, (T.OptT, T.ListT, T.SetT, T.MapT)))
                        more = (f", numbered={t.numbered!r}" if t.numbered else "") + \
                            (", ownerless=True" if t.ownerless else "") + \
                            (f", indexed={indexed!r}" if indexed else "") + \
                            (f", required={required!r}" if required else "")
                        w.line(f"){more}),")
                w.line("),")
                w.line("params=(")
                with w.indent():
                    for pa in p.params:
                        w.line(f"ParamSpec(name={pa.name!r}, type={type_desc(pa.ty)!r}, "
                               f"default={const(pa.default, self.used)}, secret={pa.secret!r}),")
                w.line("),")
                pol = p.policy
                groups = ""
                if pol.groups:
                    self.used.add("GroupSpec")
                    specs = [f"GroupSpec(name={g.name!r}, limit={g.limit!r}, reason={names.group(g.name)})"
                             for g in pol.groups]
                    groups = f", groups=({', '.join(specs)}{',' if len(specs) == 1 else ''})"
                # Written only when not the default, so the modules of rulesets without it stay as they were.
                if pol.later_mail != "replaces":
                    groups += f", later_mail={pol.later_mail!r}"
                # The runtime reads and sets these two fields by their Python attribute.
                w.line(f"policy=PolicySpec(header={pol.header!r}, budget_field={pol.budget_field!r}, "
                       f"budget_start={pol.budget_start!r}, budget_plus={pol.budget_plus!r}, limit={pol.limit!r}, "
                       f"new_limit={pol.new_limit!r}, pay_field={pol.pay_field!r}{groups}),")
                w.line("orders=(")
                with w.indent():
                    for o in p.orders:
                        self.order_spec(o)
                w.line("),")
                w.line("phases=(")
                with w.indent():
                    for ph in p.phases:
                        when = names.phase_when(ph.name) if ph.when is not None else "None"
                        start = ", at_start=True" if ph.at_start else ""
                        start += f", kinds={ph.kinds!r}" if ph.kinds else ""
                        w.line(f"PhaseSpec(name={ph.name!r}, run={names.phase(ph.name)}, when={when}, line={ph.line}, "
                               f"before_orders={ph.before_orders!r}{start}),")
                w.line("),")
                w.line("victories=(")
                with w.indent():
                    for v in p.victories:
                        warn = names.victory(v.name, "warn") if v.warn is not None else "None"
                        w.line(f"VictorySpec(name={v.name!r}, when={names.victory(v.name, 'when')}, "
                               f"held_for={v.held_for}, warn={warn}, line={v.line}),")
                w.line("),")
                if p.world_line is not None:
                    # Only a ruleset with a `world` block names one, so older modules read the same.
                    w.line("world_cls=World,")
                    w.line("world_fields=(")
                    with w.indent():
                        for f in p.world_fields:
                            self.field_line(f, f"world.{f.name}")
                    w.line("),")
                if p.grid is not None:
                    self.grid_spec(p.grid)
                if p.unrun_orders:
                    # Only a ruleset with such orders names them, so other modules read the same.
                    w.line(f"unrun_orders={p.unrun_orders!r},")
                if p.calendar is not None:  # only a ruleset with a calendar: other modules read the same
                    cal = p.calendar
                    w.line(f"calendar=({cal.year!r}, {cal.start!r}, {cal.steps!r}),")
                if streams := _streams(p):  # only a ruleset that draws: other modules read the same
                    w.line(f"streams={streams!r},")
                self.table_checks()
                w.line("report=report_data,")
                rep = p.report
                w.line(f"template={(rep.template if rep else '')!r},")
                w.line(f"template_name={(rep.template_name if rep else '')!r},")
                if rep is not None and rep.html_name:
                    # Only a ruleset with an HTML template names it, so other modules read the same.
                    w.line(f"html={rep.html!r},")
                    w.line(f"html_name={rep.html_name!r},")
                w.line(f"report_schema={_pyjson(p.report_schema)},")
                w.line(f"state_schema={_pyjson(p.state_schema)},")
                self.simulation_spec()
                w.line("line_map=line_map,")
                w.line("rule_map=rule_map,")
                if w.file_map:
                    w.line("file_map=file_map,")
            w.line(")")

    def grid_spec(self, gr: ir.Grid) -> None:
        """`grid=GridSpec(...)`: the map's size, wraps and numbering, and the sectors' fields; nothing per sector,
        so that the module is as long for a 320 x 99 map as for a 6 x 5 one."""
        w = self.w
        self.used.add("GridSpec")
        draws = []
        for fname, sym in gr.draws:
            fd = next(f for f in gr.fields if f.name == fname)
            assert isinstance(fd.ty, T.ThingT)
            draws.append((fname, names.attr(sym)))
        indexed = self.indexed[gr.name]
        more = f"indexed={indexed!r}, " if indexed else ""  # only where there is one: other modules read as before
        w.line(f"grid=GridSpec(name={gr.name!r}, cls={names.thing(gr.name)}, width={gr.width!r}, "
               f"height={gr.height!r}, wrap_x={gr.wrap_x!r}, wrap_y={gr.wrap_y!r}, pattern={gr.pattern!r}, "
               f"draws={tuple(draws)!r}, {more}fields=(")
        with w.indent():
            for f in gr.fields:
                self.field_line(f, f"{gr.name}.{f.name}")
        w.line(")),")

    def order_spec(self, o: ir.Order) -> None:
        w = self.w
        w.rule(f"order {o.name}")  # the bounds of its arguments
        def fn(part: str, present: bool) -> str:
            return names.order(o.name, part) if present else "None"

        args = []
        for a in o.args:
            lo = f"lambda g: {self.ex(a.low)}" if a.low is not None else "None"
            hi = f"lambda g: {self.ex(a.high)}" if a.high is not None else "None"
            ty = ("digits",) if a.digits else type_desc(a.ty)
            # Only where a parameter sets a bound: other modules read as before.
            decided = f", decided_by={a.decided_by!r}" if any(a.decided_by or ()) else ""
            spaced = ", spaced=True" if a.spaced else ""  # likewise: only where written
            args.append(f"ArgSpec(name={a.name!r}, type={ty!r}, low={lo}, high={hi}{decided}{spaced})")
        bounds = [b.line for a in o.args for b in (a.low, a.high) if b is not None]
        w.line(f"OrderSpec(name={o.name!r}, kind={o.kind!r}, pattern={o.pattern!r}, "
               f"args=({', '.join(args)}{',' if len(args) == 1 else ''}),", bounds[0] if bounds else None)
        with w.indent():
            extra = ""
            if o.counts_as or o.ends_turn is not None:
                extra = f", counts_as={o.counts_as!r}, ends_turn={fn('ends_turn', o.ends_turn is not None)}"
            # Only orders that use them name these, so the modules of rulesets without them read as before.
            if o.once_as:
                extra += f", once_as={o.once_as!r}"
            if o.standing:
                extra += f", standing=True, standing_per={o.standing_per!r}, until={fn('until', o.until is not None)}"
                if o.standing_as:
                    extra += f", standing_as={o.standing_as!r}"
            if o.only_in:
                extra += f", only_in={o.only_in!r}"
            if o.world:
                extra += ", world=True"
            if o.default is not None:
                extra += f", default={fn('default', True)}, default_kinds={o.default.kinds!r}"
            w.line(f"valid={fn('valid', bool(o.valids))}, require={fn('require', bool(o.requires))}, "
                   f"cost={fn('cost', o.cost is not None)}, effect={fn('effect', bool(o.effect))}, "
                   f"once_per={o.once_per!r}, line={o.line}{extra}),")
        w.rule("")


def _indexed_fields(t: ir.Thing, numbered: dict[str, str]) -> tuple[str, ...]:
    """The fields of `t` the runtime keeps an index of: those marked `indexed`; every optional field holding a
    numbered thing, so that `destroy` finds who holds an instance without reading every holder; and the built-in
    `owner` of a thing `numbered per owner`."""
    out = ["owner"] if t.numbered == "owner" else []
    for f in t.fields:
        held = T.strip_opt(f.ty)
        if f.indexed or (isinstance(f.ty, T.OptT) and isinstance(held, T.ThingT) and held.name in numbered):
            out.append(f.name)
    return tuple(out)


def _index_slot(name: str) -> str:
    """Where an indexed field's value is kept: no rules name starts with `_`, so no field's attribute is one."""
    return f"_i_{name}"


def _zero(ty: T.Ty) -> str:
    if isinstance(ty, T.Num):
        return "0"
    if ty == T.BOOL:
        return "False"
    if ty == T.TEXT:
        return "''"
    if isinstance(ty, (T.ListT, T.SetT)):
        return "[]"
    if isinstance(ty, T.MapT):
        return "{}"
    return "None"


_PREC = {"if": 0, "or": 1, "and": 2, "not": 3, "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4, "in": 4,
         "not in": 4, "+": 6, "-": 6, "*": 7, "%": 7, "neg": 8}


def _precedence(e: ir.Expr) -> int:
    if isinstance(e, ir.BinOp):
        return 9 if e.op in ("/", "div") else _PREC[e.op]
    if isinstance(e, ir.UnaryOp):
        if e.op == "not":
            flipped = _negated(e.operand)
            return _precedence(flipped) if flipped is not None else _PREC["not"]
        return _PREC["neg"]
    if isinstance(e, ir.Cond):
        return 0
    if isinstance(e, ir.Const) and isinstance(e.value, (int, Fraction)) and not isinstance(e.value, bool) \
            and e.value < 0:
        return _PREC["neg"]
    return 9


# `not (a OP b)` is `a FLIPPED b`. The orderings flip only between numbers (see `_negated`).
_FLIPPED = {"==": "!=", "!=": "==", "in": "not in", "not in": "in", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}


def _negated(e: ir.Expr) -> ir.Expr | None:
    """`not e` without the `not`, where that means the same: `not not x` is `x` (a bool), a comparison or a
    membership test flips its operator (`==` on things is emitted as `is`, so `is` flips with it). An
    ordering flips only between numbers, which are totally ordered: elsewhere (an optional that may be none)
    Python's error would name the other operator. None: `not e` stays as it is."""
    if isinstance(e, ir.UnaryOp) and e.op == "not":
        return e.operand
    if isinstance(e, ir.BinOp) and e.op in _FLIPPED:
        if e.op in ("<", "<=", ">", ">=") and not (isinstance(e.left.ty, T.Num) and isinstance(e.right.ty, T.Num)):
            return None
        return ir.BinOp(e.ty, e.line, _FLIPPED[e.op], e.left, e.right)
    return None


_ORDERINGS: dict[str, Any] = {">": lambda a, b: a > b, ">=": lambda a, b: a >= b, "<": lambda a, b: a < b,
                              "<=": lambda a, b: a <= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
_MIRRORED = {">": "<", ">=": "<=", "<": ">", "<=": ">=", "==": "==", "!=": "!="}


def _stored_test(var: str, source: ir.Expr, where: ir.Expr | None) -> ir.MapGet | None:
    """The per-key value `m` when `for var in source where ...` may go through the keys `m` stores instead.

    It may when all of this holds, and then both loops take the same items in the same order:
    - `source` is `players`, `all_players` or a thing type: its items in declaration order, as `stored` gives
      them (`players` keeps only the active ones, as `g.players()` does);
    - the condition is `A and ... and m[var] OP k and ...`, where `m` is keyed by the source's items, its
      default d is a number and `d OP k` is false: an item `m` does not store reads d, so the condition is
      false for it, and it is false in the other loop too;
    - `m` is read from names alone (no call, no optional on the way: it cannot fail, nor depend on `var`),
      and every conjunct before `m[var] OP k` compares names and constants: for an item skipped, the
      other loop would have evaluated only those and the test, none of which can fail or change anything.
    """
    if where is None:
        return None
    if isinstance(source, ir.Special) and source.name in ("players", "all_players"):
        keyed = "Player"
    elif isinstance(source, ir.AllOf):
        keyed = source.thing
    else:
        return None
    for conj in _conjuncts(where):
        test = _map_test(var, keyed, conj)
        if test is not None:
            return test
        if not _harmless_comparison(conj):
            return None
    return None


def _conjuncts(e: ir.Expr) -> list[ir.Expr]:
    if isinstance(e, ir.BinOp) and e.op == "and":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _map_test(var: str, keyed: str, e: ir.Expr) -> ir.MapGet | None:
    if not (isinstance(e, ir.BinOp) and e.op in _ORDERINGS):
        return None
    m, k, op = e.left, e.right, e.op
    if isinstance(k, ir.MapGet):
        m, k, op = k, m, _MIRRORED[op]
    # `m` is read before the loop, where its variable is not bound: `b.pull[b]` is not such a test.
    if not (isinstance(m, ir.MapGet) and isinstance(m.key, ir.Local) and m.key.name == var and _plain(m.obj)
            and var not in _locals_read(m.obj) and T.strip_opt(m.key.ty) == T.ThingT(keyed)):
        return None
    d = m.default
    if not (_number(k) and d is not None and _number(d)):
        return None
    assert isinstance(k, ir.Const) and isinstance(d, ir.Const)
    return None if _ORDERINGS[op](d.value, k.value) else m


def _best_by_stored(e: ir.Agg, m: ir.MapGet) -> tuple[ir.Const, bool] | None:
    """(low, strict) when `e` is `best(x for x in S where m[x] > low by m[x])` (`>=` where not strict, either
    side of the comparison): the thing whose stored value is the one highest above `low`. `m` is the
    aggregate's stored-keys test (`_stored_test`), so S is players, all players or a thing type."""
    where = e.where
    if not (e.func == "best" and isinstance(e.body, ir.Local) and e.body.name == e.var and e.by == m
            and isinstance(where, ir.BinOp)):
        return None
    if where.left == m and where.op in (">", ">=") and _number(where.right):
        low, op = where.right, where.op
    elif where.right == m and where.op in ("<", "<=") and _number(where.left):
        low, op = where.left, _MIRRORED[where.op]
    else:
        return None
    assert isinstance(low, ir.Const)
    return low, op == ">"


def _ratio_table(t: ir.Table) -> bool:
    """A range table whose key is compared in whole numbers: one decimal key, and bounds that are whole numbers
    and fractions, not all whole (then the key is compared as it is)."""
    if t.kind != "range" or len(t.param_types) != 1:
        return False
    bounds = [b for (lo, _, hi, _), _ in t.rows for b in (lo, hi) if b is not None]
    return not all(isinstance(b, int) for b in bounds) \
        and all(isinstance(b, (int, Fraction)) and not isinstance(b, bool) for b in bounds)


def _order_free(e: ir.Agg) -> bool:
    """An aggregate whose value the order of its items does not change: a sum or a count, the best (its
    one highest score, or none on a tie), and the largest or smallest of whole numbers (of decimals, equal
    values may be an int and a Fraction, and which one comes first is the one kept)."""
    return e.func in ("sum", "count", "best") or (e.func in ("max", "min") and _whole(e.body.ty))


def _number(e: ir.Expr) -> bool:
    return isinstance(e, ir.Const) and isinstance(e.value, (int, Fraction)) and not isinstance(e.value, bool)


def _plain(e: ir.Expr) -> bool:
    """Names and the fields of things that are there (not optional): reading them cannot fail."""
    if isinstance(e, (ir.Local, ir.Const, ir.ParamRef)):
        return True
    if isinstance(e, ir.Special):
        return e.name in ("me", "turn", "game_over")
    return isinstance(e, ir.Field) and isinstance(e.obj.ty, T.ThingT) and _plain(e.obj)


def _harmless_comparison(e: ir.Expr) -> bool:
    return isinstance(e, ir.BinOp) and e.op in ("==", "!=") and _plain(e.left) and _plain(e.right)


# Builtins that draw from the game's random streams: a function that calls one returns something new each time.
_CHANCE = frozenset({"chance", "roll", "pick", "shuffle", "draw"})


def _streams(program: ir.Program) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each stream the rules draw from and the chance builtins that draw from it, both sorted: the names a
    scenario's forced draws may give (runtime/draws.py)."""
    found: dict[str, set[str]] = {}
    for n in ir.values(program):
        if isinstance(n, ir.Builtin) and n.func in CHANCE:
            stream = n.extra[1] if n.func == "draw" else n.extra
            found.setdefault(str(stream), set()).add(n.func)
    return tuple((name, tuple(sorted(found[name]))) for name in sorted(found))


def _unchangeable(ty: T.Ty, decimal: bool = True) -> bool:
    """A value no caller can change in place, and (for an argument) that equals only values of its own type:
    an int argument 1 and a decimal 1 are equal keys, so decimals are not remembered arguments."""
    ty = T.strip_opt(ty)
    if isinstance(ty, T.Num):
        return decimal or not ty.decimal
    return ty in (T.BOOL, T.TEXT, T.NONE) or isinstance(ty, T.ThingT)


def _remembered(program: ir.Program) -> set[str]:
    """The functions the module marks `pure`, so that they are computed once inside an `unchanging` window:
    those the report or a victory condition calls (directly or not: windows are open there, so elsewhere
    remembering would only cost), that loop (an aggregate in their own body: the others cost less than
    remembering them), draw no chance (nor call a function that does), take arguments that can be keys and
    return values no caller can change.

    Not one that is called in one place only, with the report's own player (`sees_military(me, c)`): each
    report calls it with a player of its own, so no value it remembers would be asked for again, and
    remembering would only cost."""
    functions = program.functions
    calls = {f.name: {n.func for n in ir.values(f.body) if isinstance(n, ir.CallFn)} for f in functions}
    roots = [e for _, e in program.report.fields] if program.report is not None else []
    roots += [e for v in program.victories for e in (v.when, v.warn) if e is not None]
    reached = {n.func for n in ir.values(roots) if isinstance(n, ir.CallFn)}
    todo = list(reached)
    while todo:
        for name in calls.get(todo.pop(), set()) - reached:
            reached.add(name)
            todo.append(name)
    chancy = _chancy(program)
    sites: dict[str, list[ir.CallFn]] = {}
    for n in ir.values([roots, [f.body for f in functions if f.name in reached]]):
        if isinstance(n, ir.CallFn):
            sites.setdefault(n.func, []).append(n)
    own = {name for name, found in sites.items()
           if len(found) == 1 and any(isinstance(a, ir.Special) and a.name == "me" for a in found[0].args)}
    return {f.name for f in functions
            if f.name in reached and f.name not in chancy and f.name not in own
            and any(isinstance(n, ir.Agg) for n in ir.values(f.body))
            and all(_unchangeable(ty, decimal=False) for _, ty in f.params) and _unchangeable(f.result)}


def _chancy(program: ir.Program) -> set[str]:
    """The functions that draw a chance, or call one that does: each call may return something new."""
    calls = {f.name: {n.func for n in ir.values(f.body) if isinstance(n, ir.CallFn)} for f in program.functions}
    chancy = {f.name for f in program.functions
              if any(isinstance(n, ir.Builtin) and n.func in _CHANCE for n in ir.values(f.body))}
    grew = True
    while grew:
        more = {name for name, called in calls.items() if called & chancy} - chancy
        chancy |= more
        grew = bool(more)
    return chancy


def _shape(e: object) -> object:
    """What an IR value means, without where it stands (its line and span): two calls of one shape are the
    same call."""
    if isinstance(e, (tuple, list)):
        return tuple(_shape(x) for x in e)
    if isinstance(e, ir.Node):
        return (type(e).__name__, *(_shape(getattr(e, f.name)) for f in dataclasses.fields(e)
                                    if f.name not in ("line", "span")))
    return e


def _repeated_calls(body: ir.Expr, chancy: set[str]) -> list[ir.CallFn]:
    """The calls of functions that draw no chance that `body` makes more than once, at least once outside
    any branch (the `then` or `else` of an `if`, the right side of `and` or `or`), in the order a call's
    arguments come before the call; calls inside an aggregate are left alone, where its variable may stand
    for another value under a parameter's name."""
    seen: dict[object, int] = {}
    sure: set[object] = set()
    found: list[tuple[object, ir.CallFn]] = []

    def visit(e: ir.Node, unconditional: bool) -> None:
        if isinstance(e, (ir.Agg, ir.Route, ir.Reach)):
            return
        if isinstance(e, ir.Cond):
            visit(e.cond, unconditional)
            visit(e.then, False)
            visit(e.otherwise, False)
            return
        if isinstance(e, ir.BinOp) and e.op in ("and", "or"):
            visit(e.left, unconditional)
            visit(e.right, False)
            return
        for child in e.children():
            visit(child, unconditional)
        if isinstance(e, ir.CallFn) and e.func not in chancy:
            shape = _shape(e)
            if shape not in seen:
                seen[shape] = 0
                found.append((shape, e))
            seen[shape] += 1
            if unconditional:
                sure.add(shape)

    visit(body, True)
    return [call for shape, call in found if seen[shape] > 1 and shape in sure]


# What the code of a value may not hold inside an f-string on Python 3.11: its quotes, a backslash, braces, a
# comment, and a colon or `!` (a format spec, a conversion) that the f-string would take as its own.
_NOT_IN_FSTRING = frozenset('"\\{}#:')


def _fstring_text(text: str) -> str:
    """Literal text inside f"...": braces doubled, and everything that could end the literal or the line escaped
    (quotes, backslashes, and every character that is not printable, as `repr` writes it)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in "{}":
            out.append(ch * 2)
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append(repr(ch)[1:-1])
    return "".join(out)


def _scalar(ty: T.Ty) -> bool:
    """Plain data no one can change in place: text, a whole number, yes/no, none, or an optional one."""
    ty = T.strip_opt(ty)
    return ty in (T.TEXT, T.BOOL, T.NONE) or _whole(ty)


def _plain_type(ty: T.Ty) -> bool:
    """Plain data as a report holds it: scalars, and lists and records of plain data (no things, no decimals)."""
    ty = T.strip_opt(ty)
    if isinstance(ty, (T.ListT, T.SetT)):
        return _plain_type(ty.item)
    if isinstance(ty, T.RecordT):
        return all(_plain_type(t) for _, t in ty.fields)
    return _scalar(ty)


def _whole(ty: T.Ty) -> bool:
    """A type whose values are Python ints: a number that is not a decimal, nor money with places."""
    return isinstance(ty, T.Num) and not ty.decimal and not (ty.unit == "money" and _PLACES.get())


def _money(ty: T.Ty) -> bool:
    """Money kept to places (the header's `money "0.1"`): a Fraction that shows with exactly that many."""
    return ty == T.MONEY and _PLACES.get() > 0


def _shown_shape(ty: T.Ty) -> Any:
    """Where a report value of type `ty` holds amounts with places ("m") or decimals ("d"), as `show_money` reads
    it; None: nowhere. A decimal is marked because its value may be a whole Python int (a literal `1.0`, a whole
    number kept as a decimal, `min` choosing one), which the report must still show as the text its schema says."""
    ty = T.strip_opt(ty)
    if isinstance(ty, T.Num):
        return "m" if _money(ty) else "d" if ty.decimal and ty.unit == "" else None
    if isinstance(ty, (T.ListT, T.SetT)):
        inner = _shown_shape(ty.item)
        return None if inner is None else ("list", inner)
    if isinstance(ty, T.MapT):
        inner = _shown_shape(ty.value)
        return None if inner is None else ("map", inner)
    if isinstance(ty, T.RecordT):
        parts = tuple((k, _shown_shape(v)) for k, v in ty.fields)
        return ("rec", parts) if any(p is not None for _, p in parts) else None
    return None


def _compare(key: str, op: str, bound: Any, whole: bool, used: set[str]) -> str:
    """`key OP bound` in a range table; `whole`: in whole numbers, with the key as num/den (see `tables`)."""
    if not whole:
        return f"{key} {op} {const(bound, used)}"
    b = Fraction(bound)
    left = "num" if b.denominator == 1 else f"{b.denominator} * num"
    right = {0: "0", 1: "den"}.get(b.numerator, f"{b.numerator} * den")
    return f"{left} {op} {right}"


def _map_get(obj: str, key: str, default: str) -> str:
    """A per-key value read in place: the dict holds each key thing's `_key`, and a key not stored holds the
    default (the runtime's `mget` does the same, one call more)."""
    return f"{obj}.get({key}._key, {default})"


def _is_and(parent: ir.BinOp, operand: ir.Expr) -> bool:
    return parent.op == "or" and isinstance(operand, ir.BinOp) and operand.op == "and"


def _locals_read(node: object) -> set[str]:
    """The names of the locals an IR subtree reads (or may read: a `let` of the same name counts too), so an
    order's function unpacks only the arguments it uses."""
    found: set[str] = set()
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, ir.Local):
            found.add(x.name)
        elif isinstance(x, (tuple, list)):
            stack.extend(x)
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x))
    return found


def _immutable(e: ir.Expr) -> bool:
    """A literal no caller can change: a table row that may be shared by every lookup."""
    return isinstance(e, ir.Const) and (e.value is None or isinstance(e.value, (bool, int, str, Fraction)))


def _literal_int(e: ir.Expr) -> bool:
    return isinstance(e, ir.Const) and type(e.value) is int


def _is_thing(ty: T.Ty) -> bool:
    return isinstance(T.strip_opt(ty), T.ThingT)


def _file(node: ir.Node | None) -> str | None:
    """The file `node` was written in, as diagnostics name it (a variant's program holds its bases' lines)."""
    return node.span.file if node is not None and node.span is not None else None


def _pyjson(value: Any) -> str:
    """A JSON value as a Python literal: sorted, so the module is byte-identical run to run."""
    return repr(json.loads(json.dumps(value, sort_keys=True)))


def generate(program: ir.Program, trace: bool = False) -> str:
    """The module's text; with `trace`, the traced build (codegen/traced.py), which records what a turn does."""
    token = _PLACES.set(money_places(program))
    try:
        return Emitter(program, trace).module()
    finally:
        _PLACES.reset(token)
