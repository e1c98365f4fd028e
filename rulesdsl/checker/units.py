"""Numbered things (AST and IR) -> their diagnostics: fields that could hold a destroyed instance, `indexed`
fields, `new` and `destroy`, and loops that could read an index but have none to read.

`fields` is a phase 1 (declare) pass, `new`/`destroy` are checked in phase 2 as `exprs.py` meets them, and
`unindexed` is a phase 3 (analyse) pass over the finished IR.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulesdsl import ir
from rulesdsl import nodes as n
from rulesdsl import types as T
from rulesdsl.checker.decls import and_, closest
from rulesdsl.checker.env import Context, Env, Scope
from rulesdsl.checker.state import Checking

if TYPE_CHECKING:
    from rulesdsl.checker.exprs import ExprChecker


def fields(c: Checking) -> None:
    """E0241 for a field whose type could keep a destroyed instance that cleaning could not let go of, E0242
    for `indexed` on a type that has no instances to index by, and E0243 for `indexed` outside a thing."""
    env = c.env
    for d in c.module.decls:
        if isinstance(d, n.ThingDecl):
            holder = env.things.get(d.name)
            if holder is None or holder.decl_span != d.span:
                continue
            owned = holder.fields
        elif isinstance(d, n.GridDecl):
            if env.grid is None or env.grid.decl is not d:
                continue  # a second grid (E0230)
            owned = env.things[d.name].fields
        elif isinstance(d, n.PlayerDecl):
            owned = env.player_fields
        elif isinstance(d, n.WorldDecl):
            owned = env.world_fields
        else:
            continue
        for f in d.fields:
            fd = owned.get(f.name)
            if fd is None or fd.span != f.span:
                continue  # refused already (declared twice, or a built-in field)
            _dangling(env, f, fd.ty)
            if f.indexed:
                _indexed(env, d, f, fd.ty)


def _dangling(env: Env, f: n.FieldDecl, ty: T.Ty) -> None:
    """A field may hold a numbered thing only where `destroy` can let go of it: as an optional value (it
    becomes none), in a list or a set (it leaves), or as such a value of a per-key value."""
    value = ty.value if isinstance(ty, T.MapT) else ty
    if isinstance(ty, T.MapT) and env.numbered(ty.key):
        env.diags.error(f.type.span, "E0241", f"a per-key value cannot be keyed by {ty.key.show()}: "
                        f"{ty.key.show()} is numbered, and its instances come and go",
                        help=f"keep the value in a field of {ty.key.show()} itself, like "
                             f"`thing {ty.key.show()} ... {{ {f.name}: {value.show()} }}`")
        return
    if env.numbered(value):
        env.diags.error(f.type.span, "E0241", f"field `{f.name}` holds a {value.show()}, which can be destroyed: "
                        "it would then hold nothing", help=f"make it optional: `{f.name}: {value.show()}?` "
                                                           "(it becomes none when its instance is destroyed)")
        return
    inner = value.inner if isinstance(value, T.OptT) else value.item if isinstance(value, (T.ListT, T.SetT)) \
        else None
    if inner is not None and not env.numbered(inner) and _holds_numbered(env, inner):
        env.diags.error(f.type.span, "E0241", f"field `{f.name}` holds {value.show()}: a destroyed instance can "
                        "leave a list, a set or an optional value, but not one nested deeper",
                        help="keep the inner lists in fields of a thing of their own")


def _holds_numbered(env: Env, ty: T.Ty) -> bool:
    if isinstance(ty, T.OptT):
        return _holds_numbered(env, ty.inner)
    if isinstance(ty, (T.ListT, T.SetT)):
        return _holds_numbered(env, ty.item)
    if isinstance(ty, T.MapT):
        return _holds_numbered(env, ty.key) or _holds_numbered(env, ty.value)
    if isinstance(ty, T.RecordT):
        return any(_holds_numbered(env, v) for _, v in ty.fields)
    return bool(env.numbered(ty))


def _indexed(env: Env, d: n.Decl, f: n.FieldDecl, ty: T.Ty) -> None:
    if not isinstance(d, (n.ThingDecl, n.GridDecl)):
        whose = "a player's" if isinstance(d, n.PlayerDecl) else "the world's"
        env.diags.error(f.span, "E0243", f"only a thing's field can be `indexed`, not {whose} `{f.name}`",
                        help="remove `indexed`: there are few players and one world, so going through them is "
                             "quick")
        return
    if not isinstance(T.strip_opt(ty), T.ThingT) and ty != T.ANY:
        env.diags.error(f.type.span, "E0242", f"`{f.name}` is {ty.show()}: only a field holding a player or a "
                        "thing (optional or not) can be `indexed`",
                        help="an index finds the instances that hold one player or thing; remove `indexed`")


# ---------------------------------------------------------------- new and destroy

def changes_allowed(ctx: Context) -> bool:
    """Where the state may change: a phase, a procedure, an order's effect (the places chance is allowed)."""
    return ctx.allow_chance


_NO_CHANGE = {
    "function": "a function",
    "order": "an order's `valid`, `require`, `cost` or `ends turn`",
    "report": "a report",
    "victory": "a victory rule",
    "static": "a default, a table, a bound or a field's `where`",
}


def new(x: ExprChecker, node: n.New, scope: Scope, ctx: Context) -> ir.Expr:
    """`new THING(field: value, ...)`: E0346 (not a numbered thing), E0347 (a field unknown, given twice or
    built in), E0348 (a field that must be given is missing), E0349 (where the state cannot change)."""
    env, line = x.env, node.span.line
    info = env.things.get(node.thing)
    values = [(name, span, x.expr(value, scope, ctx)) for name, span, value in node.fields]
    if not changes_allowed(ctx):
        x.err(node.span, "E0349", f"`new` makes an instance, and {_NO_CHANGE.get(ctx.kind, 'this')} changes "
              "nothing", help="make it in a phase, a procedure or an order's `effect`")
    if info is None or not info.numbered:
        what = ("a player, and players join a game in its scenario" if node.thing == "Player"
                else "keyed: its instances are its `data` rows" if info is not None
                else "not a thing")
        numbered = [t for t, i in env.things.items() if i.numbered]
        hint = (f"did you mean `{closest(node.thing, numbered)}`?" if closest(node.thing, numbered)
                else "declare it `thing NAME numbered { ... }` to make instances while the game runs")
        x.err(node.thing_span, "E0346", f"`new` makes a numbered thing, and `{node.thing}` is {what}", help=hint)
        return ir.New(T.ANY, line, node.thing, tuple((k, v) for k, _, v in values))
    fields = info.fields
    builtin = {"number"} | ({"owner"} if info.numbered == "owner" else set())
    given: dict[str, ir.Expr] = {}
    for name, span, value in values:
        if name in given:
            x.err(span, "E0347", f"`{name}` is given twice", help="give each field once")
            continue
        if name == "number":
            x.err(span, "E0347", f"the `number` of a new {node.thing} cannot be given: it is the lowest unused "
                  "number" + (" of its owner" if info.numbered == "owner" else ""), help="remove `number: ...`")
            continue
        want = info.owner_ty if name == "owner" and "owner" in builtin else fields[name].ty if name in fields else None
        if want is None:
            listed = [*sorted(builtin - {"number"}), *fields]
            x.err(span, "E0347", f"{node.thing} has no field `{name}`",
                  help=f"did you mean `{closest(name, listed)}`?" if closest(name, listed)
                  else f"the fields of {node.thing} are " + and_(f"`{k}`" for k in listed) if listed else None)
            continue
        if name == "owner" and value.ty == T.NONE and info.numbered == "owner" and not info.ownerless:
            x.err(value.span or node.span, "E0245", f"a {node.thing} always has an owner, so `owner` cannot be none",
                  help=f"to have {node.thing}s of no player (neutral forces, rebels), declare it "
                       f"`thing {node.thing} numbered per owner or none`")
        else:
            x.expect(value, want, value.span or node.span, f"`{name}`")
        given[name] = value
    missing = [k for k in required(env, node.thing) if k not in given]
    if missing:
        shown = and_(f"`{k}`" for k in missing)
        why = ("each has its owner (`numbered per owner`)" if missing == ["owner"] else
               f"{'it has' if len(missing) == 1 else 'they have'} no default")
        x.err(node.span, "E0348", f"a new {node.thing} needs {shown}: {why}",
              help=f"give {'it' if len(missing) == 1 else 'them'}, like `new {node.thing}("
                   + ", ".join(f"{k}: ..." for k in sorted([*given, *missing], key=lambda k: k != "owner")) + ")`")
    return ir.New(T.ThingT(node.thing), line, node.thing, tuple(given.items()))


def required(env: Env, thing: str) -> list[str]:
    """The fields every new instance of a numbered thing must be given: its owner (`per owner`), and each field
    with no default that does not start empty or none by itself (not optional, a list, a set or a map)."""
    info = env.things[thing]
    out = ["owner"] if info.numbered == "owner" else []
    for name, fd in info.fields.items():
        if (thing, name) not in env.defaults and not isinstance(fd.ty, (T.OptT, T.ListT, T.SetT, T.MapT)):
            out.append(name)
    return out


def destroy(x: ExprChecker, node: n.Destroy, scope: Scope, ctx: Context) -> ir.Stmt:
    target = x.expr(node.target, scope, ctx)
    if not changes_allowed(ctx):
        x.err(node.span, "E0349", f"`destroy` removes an instance, and {_NO_CHANGE.get(ctx.kind, 'this')} changes "
              "nothing", help="destroy it in a phase, a procedure or an order's `effect`")
    if target.ty != T.ANY and not x.env.numbered(target.ty):
        shown = x.shown(node.target) or "this"
        hint = (f"check it first: `if {shown} != none {{ destroy {shown} }}`"
                if x.env.numbered(T.strip_opt(target.ty)) else
                "only instances made by `new` (of a `numbered` thing) can be destroyed")
        x.err(node.target.span, "E0346", f"`destroy` needs an instance of a numbered thing, not "
              f"{target.ty.show()}", help=hint)
    return ir.Destroy(node.span.line, target)


# ---------------------------------------------------------------- loops that could read an index

def unindexed(c: Checking) -> None:
    """W0207: a loop or an aggregate over every instance of a numbered thing whose `where` compares a field with
    one value (`d.sector == s`) goes through them all, where an `indexed` field would give only those."""
    env = c.env
    seen: set[tuple[int, int, str]] = set()
    for decl in c.program.nodes():
        for node in ir.walk(decl):
            if isinstance(node, (ir.For, ir.Agg)) and isinstance(node.source, ir.AllOf):
                info = env.things.get(node.source.thing)
                if info is None or not info.numbered:
                    continue
                tests = ir.field_tests(node.var, node.where)
                if not tests or any(indexed(env, info.name, f) for f, _, _ in tests):
                    continue
                field, _, test = tests[0]
                span = test.span or node.span
                if span is None or field not in info.fields or (span.line, span.col, field) in seen:
                    continue
                seen.add((span.line, span.col, field))
                env.diags.warning(span, "W0207", f"this goes through every {info.name} to find those whose "
                                  f"`{field}` is one value", help=f"mark the field `indexed` (`{field}: "
                                  f"{info.fields[field].ty.show()} indexed`), and only those are read")


def indexed(env: Env, thing: str, field: str) -> bool:
    """Whether the runtime keeps an index of `field` of `thing`: marked `indexed`, or the built-in `owner` of
    a thing `numbered per owner`."""
    info = env.things.get(thing)
    if info is None:
        return False
    if field == "owner" and info.numbered == "owner":
        return True
    fd = info.fields.get(field)
    return fd is not None and fd.indexed
