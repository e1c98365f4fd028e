"""`new THING(...)` and `destroy X` (AST) -> their IR, with the diagnostics of making and destroying instances.

Phase 2 (CHECK_BODIES): the expression checker hands these two constructs here as it meets them; the passes
over numbered things' declarations are in units.py.
"""

from __future__ import annotations

from rulesdsl import ir
from rulesdsl import nodes as n
from rulesdsl import types as T
from rulesdsl.checker.env import Context, Env, ExprChecks, Scope, and_, closest


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


def new(x: ExprChecks, node: n.New, scope: Scope, ctx: Context) -> ir.Expr:
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


def destroy(x: ExprChecks, node: n.Destroy, scope: Scope, ctx: Context) -> ir.Stmt:
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
