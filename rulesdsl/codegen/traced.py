"""Typed IR statements -> the traced build's Python: each change of state, table read and chance draw told to `g.trace`.

Only `emit(program, trace=True)` comes here; the normal build never does, so its module stays as it was byte for
byte. The traced build runs the same rules in the same order: each traced statement evaluates its target once
(bound to a `_t*` local, a name no user name can take: those are prefixed, codegen/names.py), asks the recorder
for the old value, runs the statement as the normal build writes it, then tells the recorder what changed. The
recorder (rulesdsl/game/trace.py) reads the new value itself, and knows from the game what the engine is doing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from rulesdsl import ir
from rulesdsl import types as T
from rulesdsl.codegen import names

if TYPE_CHECKING:

    from rulesdsl.codegen.writer import Writer


def written(program: ir.Program) -> frozenset[str]:
    """The fields some rule may change (by name, of any thing, player or world): each read of one is recorded.
    A field no rule writes (a country's name, its neighbours) holds what the game began with: a read of it
    would answer no "why", and Warlord's turn reads such fields most."""
    out: set[str] = set()
    for n in ir.walk(list(program.nodes())):
        if isinstance(n, (ir.Assign, ir.Add, ir.Remove, ir.Clear)) and (f := _changed_field(n.target)):
            out.add(f.name)
        elif isinstance(n, ir.New):
            out.update(name for name, _ in n.fields)
    fields = [*program.player_fields, *program.world_fields, *(f for t in program.things for f in t.fields)]
    out.update(f.name for f in fields if f.reset_each_turn)
    out.update(f for f in (program.policy.pay_field, program.policy.budget_field) if f)
    return frozenset(out)


def _changed_field(target: ir.Expr) -> ir.Field | None:
    """The field of a thing, a player or the world a statement's target is part of (`c.spy[p]`: `spy`)."""
    while isinstance(target, (ir.MapGet, ir.ListIndex)):
        target = target.obj
    return _state_field(target)


def _changes_here(n: object, changing: frozenset[str] | set[str]) -> bool:
    if isinstance(n, (ir.Assign, ir.Add, ir.Remove, ir.Clear)):
        return _changed_field(n.target) is not None
    if isinstance(n, (ir.Destroy, ir.News, ir.Tell, ir.NewStmt, ir.New, ir.Run)):
        return True
    return isinstance(n, (ir.CallProc, ir.CallProcValue)) and n.proc in changing


def _decides_here(n: object, deciding: set[str]) -> bool:
    if isinstance(n, (ir.If, ir.TableGet)):
        return True
    if isinstance(n, ir.Builtin) and n.func in DRAWN:
        return True
    return isinstance(n, (ir.CallProc, ir.CallProcValue, ir.CallFn)) and \
        (n.proc if not isinstance(n, ir.CallFn) else n.func) in deciding


def rounds(program: ir.Program) -> frozenset[str]:
    """The procedures whose calls make a loop's rounds worth a step each: they change the state or say
    something, and decide how (an `if`, a table, a draw), themselves or through what they call (a division's
    move by its terrain's cost, a player's losses in a battle): what a round used is then its own, not the whole
    phase's."""
    changing: set[str] = set()
    deciding: set[str] = set()
    bodies = [(f.name, [f.body]) for f in program.functions] + [(p.name, list(p.body)) for p in program.procedures]
    grew = True
    while grew:
        grew = False
        for name, body in bodies:
            nodes = list(ir.walk(body))
            if name not in deciding and any(_decides_here(n, deciding) for n in nodes):
                deciding.add(name)
                grew = True
            if name not in changing and any(_changes_here(n, changing) for n in nodes):
                changing.add(name)
                grew = True
    return frozenset(changing & deciding)


def changes(em: Emitter, body: tuple[ir.Stmt, ...] | list[ir.Stmt]) -> bool:
    """Whether each round of a loop over `body` is a step of its own: the body may change the state or say
    something, and decides how (an `add` to every sector a unit sees, with no condition, needs no step a
    sector)."""
    nodes = list(ir.walk(list(body)))
    worth = set(em.round_procs)
    return any(_changes_here(n, worth) for n in nodes) and any(_decides_here(n, worth) for n in nodes)


class Emitter(Protocol):
    """What the traced build reads of codegen/emit.py's Emitter, which calls it (named here, not imported, so
    that the two modules do not import each other)."""

    p: ir.Program
    w: Writer
    secret_fns: frozenset[str]
    ratio_tables: set[str]
    written: frozenset[str]
    round_procs: frozenset[str]

    def ex(self, e: ir.Expr) -> str: ...
    def rt(self, name: str) -> str: ...
    def stored(self, value: ir.Expr, target: T.Ty) -> str: ...

# The chance builtins whose draws are recorded, and how each names the value its draw depends on (the record's
# `odds`): the percent of `chance`, the sides of `roll`, the items of `pick` and `shuffle`. `draw` records its
# table; the map generators (continents, ...) run at a game's start, never in a traced turn.
DRAWN = ("chance", "roll", "pick", "shuffle", "draw")


def at(em: Emitter, line: int) -> str:
    """Where a statement is, as the literal tuple each record of it carries: (file, `.rules` line, rule)."""
    rule = em.w.rule_map[-1][1] if em.w.rule_map else ""
    return repr((em.w.file, line, rule))


def _reads_secret(n: object, params: set[str], tables: dict[str, tuple[str, ...]], fns: frozenset[str]) -> bool:
    return ((isinstance(n, ir.ParamRef) and n.name in params) or (isinstance(n, ir.TableGet) and n.table in tables)
            or (isinstance(n, ir.CallFn) and n.func in fns))


def odds_secret(em: Emitter, e: ir.Builtin) -> bool:
    params = {p.name for p in em.p.params if p.secret}
    return any(_reads_secret(n, params, em.p.secret_tables, em.secret_fns) for n in ir.values(e.args))


def draw(em: Emitter, e: ir.Builtin, emit: str) -> str:
    """A chance builtin's call template (rulesdsl/builtins.py's `emit`) made to draw through the recorder:
    `g.trace.drew(AT, FUNC, STREAM, SECRET, fn, *args)` calls `fn(*args)` and records what it drew."""
    secret = repr(odds_secret(em, e))
    if e.func == "draw":
        return emit.replace("{table}(", f"g.trace.drew({{trace_at}}, 'draw', {{purpose}}, {secret}, {{table}}, ", 1)
    return emit.replace("{rt}(", f"g.trace.drew({{trace_at}}, {e.func!r}, {{extra}}, {secret}, {{rt}}, ", 1)


def read(em: Emitter, e: ir.Field, obj: str) -> str:
    """A field's read of the object whose code is `obj` (not an order's argument, nor a thing's key), as the
    normal build writes it, or told to the recorder where some rule writes that field."""
    attr = names.attr(e.name)
    if e.name not in em.written:
        return f"{obj}.{attr}"
    return f"g.trace.rd({obj}, {attr!r}, {e.name!r})"


def read_key(em: Emitter, e: ir.MapGet, default: str) -> str | None:
    """One key's value of a per-key field, told to the recorder; None where `e` is not one (a local's map)."""
    f = e.obj
    if not isinstance(f, ir.Field) or isinstance(f.obj.ty, T.OrderT) or f.name not in em.written:
        return None
    return f"g.trace.rdk({em.ex(f.obj)}, {names.attr(f.name)!r}, {f.name!r}, {em.ex(e.key)}, {default})"


def record(fields: list[tuple[str, str]]) -> str:
    """A record made while a report may be written: each field's value begun and ended, so that the recorder
    knows what each was worked out from (game/trace.py's `begin`, `end`, `rec`)."""
    return "g.trace.rec({" + ", ".join(f"{k!r}: {value(v)}" for k, v in fields) + "})"


def value(code: str) -> str:
    """A value of a report or of a record made in it, worked out with its reads told apart."""
    return f"g.trace.end(g.trace.begin(), {code})"


def new(em: Emitter, e: ir.New, code: str) -> str:
    return f"g.trace.made({at(em, e.line)}, {code})"


def _state_field(t: ir.Expr) -> ir.Field | None:
    """The field of a thing, a player or the world that `t` names, if it is one (not a local, not an order's)."""
    if isinstance(t, ir.Field) and not isinstance(t.obj.ty, T.OrderT):
        return t
    return None


def stmt(em: Emitter, s: ir.Stmt) -> bool:
    """Writes `s` as the traced build does, if it changes the state or says something; False: as the normal
    build writes it."""
    w = em.w
    if isinstance(s, (ir.Assign, ir.Add, ir.Remove, ir.Clear)):
        target = s.target
        keyed = isinstance(target, ir.MapGet)
        f = _state_field(target.obj if isinstance(target, ir.MapGet) else target)
        if f is None:
            return False
        where = at(em, s.line)
        attr = names.attr(f.name)
        w.line(f"_to = {em.ex(f.obj)}", s.line)
        key = ", None"
        default = "None"
        if isinstance(target, ir.MapGet):
            w.line(f"_tk = {em.ex(target.key)}", s.line)
            key = ", _tk"
            if target.default is not None:
                default = em.ex(target.default)
        if isinstance(s, (ir.Add, ir.Remove)):
            w.line("_tv = None", s.line)  # the item is recorded, not the list: a list may hold a whole map's sectors
        else:
            w.line(f"_tv = g.trace.old(_to, {attr!r}{key}, {default})", s.line)
        op = _write(em, s, f"_to.{attr}", "_tk" if keyed else None, default)
        w.line(f"g.trace.change({where}, {op!r}, _to, {f.name!r}, {attr!r}{key}, _tv, {default}{_item(s)})", s.line)
        return True
    if isinstance(s, ir.Destroy):
        held = s.target.ty
        assert isinstance(held, T.ThingT)
        w.line(f"_to = {em.ex(s.target)}", s.line)
        w.line(f"g.trace.destroyed({at(em, s.line)}, _to)", s.line)
        w.line(f"g.units[{held.name!r}].destroy(_to)", s.line)
        return True
    if isinstance(s, ir.News):
        w.line(f"_tx = {em.ex(s.text)}", s.line)
        w.line("g.news(_tx)", s.line)
        w.line(f"g.trace.said({at(em, s.line)}, None, _tx)", s.line)
        return True
    if isinstance(s, ir.Tell):
        w.line(f"_tp = {em.ex(s.player)}", s.line)
        w.line(f"_tx = {em.ex(s.text)}", s.line)
        w.line("g.tell(_tp, _tx)", s.line)
        w.line(f"g.trace.said({at(em, s.line)}, _tp, _tx)", s.line)
        return True
    return False


def _item(s: ir.Stmt) -> str:
    """The item an `add` or a `remove` named (bound to `_ti` before the change), as the record's last argument."""
    return ", _ti" if isinstance(s, (ir.Add, ir.Remove)) else ""


def _write(em: Emitter, s: ir.Stmt, obj: str, key: str | None, default: str) -> str:
    """The statement itself on the bound target `obj` (a field; `key` for one key of a per-key value), as the
    normal build writes it; returns the record's operation."""
    w, line = em.w, s.line
    if isinstance(s, ir.Assign):
        value = em.stored(s.value, s.target.ty) if s.op == "=" else em.ex(s.value)
        if key is None:
            w.line(f"{obj} {s.op} {value}", line)
        else:
            if s.op != "=":
                value = f"{obj}.get({key}._key, {default}) {s.op[0]} {value}"
            w.line(f"{em.rt('mset')}({obj}, {key}, {value}, {default})", line)
        return "set"
    if isinstance(s, ir.Add):
        w.line(f"_ti = {em.ex(s.value)}", line)
        if key is not None:
            w.line(f"{em.rt('madd')}({obj}, {key}, _ti, {isinstance(s.target.ty, T.SetT)})", line)
        elif isinstance(s.target.ty, T.SetT):
            w.line(f"{em.rt('set_add')}({obj}, _ti)", line)
        else:
            w.line(f"{obj}.append(_ti)", line)
        return "add"
    if isinstance(s, ir.Remove):
        w.line(f"_ti = {em.ex(s.value)}", line)
        if key is not None:
            w.line(f"{em.rt('mremove')}({obj}, {key}, _ti, {'[]' if default == 'None' else default})", line)
        else:
            w.line(f"{em.rt('remove_item')}({obj}, _ti)", line)
        return "remove"
    assert isinstance(s, ir.Clear)
    if key is not None:
        w.line(f"{em.rt('mset')}({obj}, {key}, [], [])", line)
    else:
        w.line(f"{obj}.clear()", line)
    return "clear"


def step(em: Emitter, line: int, item: str | None) -> None:
    """A new step of a phase: its start, or one round of a loop at its top. The table rows and draws a change
    used are those of its step, before it."""
    em.w.line(f"g.trace.step({at(em, line)}, {item or 'None'})", line)


def rounds_open(em: Emitter, line: int, depth: int) -> str:
    """Before a loop inside a step whose rounds change the state: the step it is inside, kept (`_trN`) to go back
    to when the loop is over, however it ends; the loop follows inside a `try`."""
    name = f"_tr{depth}"
    em.w.line(f"{name} = g.trace.inner()", line)
    em.w.line("try:", line)
    return name


def round_step(em: Emitter, line: int, item: str, outer: str) -> None:
    """One round of such a loop: a step of its own, inside the step the loop is in."""
    em.w.line(f"g.trace.round({at(em, line)}, {item}, {outer})", line)


def rounds_close(em: Emitter, line: int, outer: str) -> None:
    em.w.line("finally:", line)
    with em.w.indent():
        em.w.line(f"g.trace.back({outer})", line)


def table_wrappers(em: Emitter) -> None:
    """Each table's look-up function wrapped to tell the recorder the key and the row's value. A weighted
    table is drawn, and its draw recorded (`draw`); a ratio table is read through its whole-number function."""
    w = em.w
    for t in em.p.tables:
        if t.kind == "weighted":
            continue
        secret = t.name in em.p.secret_tables
        fn = names.table_ratio(t.name) if t.name in em.ratio_tables else names.table(t.name)
        w.section(t.line, rule=f"table {t.name}")
        w.line(f"_plain_{fn} = {fn}")
        w.line()
        w.line()
        w.line(f"def {fn}(g, *k):")
        with w.indent():
            w.line(f"r = _plain_{fn}(g, *k)")
            key = f"({em.rt('Fraction')}(*k),)" if t.name in em.ratio_tables else "k"
            w.line(f"g.trace.table({t.name!r}, {key}, r, {secret!r})")
            w.line("return r")
