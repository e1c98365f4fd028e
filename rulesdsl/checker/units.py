"""Numbered things (AST and IR) -> their diagnostics: fields that could hold a destroyed instance, `indexed`
fields, `new` and `destroy`, and loops that could read an index but have none to read.

`fields` is a phase 1 (declare) pass, `new`/`destroy` are checked in phase 2 as `exprs.py` meets them, and
`unindexed` is a phase 3 (analyse) pass over the finished IR.
"""

from __future__ import annotations

from rulesdsl import ir
from rulesdsl import nodes as n
from rulesdsl import types as T
from rulesdsl.checker.env import Env
from rulesdsl.checker.state import Checking


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
    if inner is not None and not env.numbered(inner) and env.holds_numbered(inner):
        env.diags.error(f.type.span, "E0241", f"field `{f.name}` holds {value.show()}: a destroyed instance can "
                        "leave a list, a set or an optional value, but not one nested deeper",
                        help="keep the inner lists in fields of a thing of their own")



def _indexed(env: Env, d: n.Decl, f: n.FieldDecl, ty: T.Ty) -> None:
    if not isinstance(d, (n.ThingDecl, n.GridDecl)):
        whose = "a player's" if isinstance(d, n.PlayerDecl) else "the world's"
        env.diags.error(f.span, "E0243", f"only a thing's field can be `indexed`, not {whose} `{f.name}`",
                        help="remove `indexed`: there are few players and one world, so going through them is "
                             "quick")
        return
    if not _indexable(ty):
        env.diags.error(f.type.span, "E0242", f"`{f.name}` is {ty.show()}: only a field holding a player or a "
                        "thing (optional or not) can be `indexed`",
                        help="an index finds the instances that hold one player or thing; remove `indexed`")


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
                # Only a field an index can hold is worth the warning: telling a text field to be `indexed`
                # asks for E0242.
                tests = [t for t in tests if t[0] in info.fields and _indexable(info.fields[t[0]].ty)]
                if not tests:
                    continue
                field, _, test = tests[0]
                span = test.span or node.span
                if span is None or field not in info.fields or (span.line, span.col, field) in seen:
                    continue
                seen.add((span.line, span.col, field))
                env.diags.warning(span, "W0207", f"this goes through every {info.name} to find those whose "
                                  f"`{field}` is one value", help=f"mark the field `indexed` (`{field}: "
                                  f"{info.fields[field].ty.show()} indexed`), and only those are read")


def _indexable(ty: T.Ty) -> bool:
    """Whether a field of this type may be marked `indexed` (the test of E0242)."""
    return isinstance(T.strip_opt(ty), T.ThingT) or ty == T.ANY


def indexed(env: Env, thing: str, field: str) -> bool:
    """Whether the runtime keeps an index of `field` of `thing`, as the code generator decides it
    (codegen/emit.py `_indexed_fields`): marked `indexed`, the built-in `owner` of a thing `numbered per owner`,
    or an optional field holding a numbered thing, which `destroy` finds its holders through."""
    info = env.things.get(thing)
    if info is None:
        return False
    if field == "owner" and info.numbered == "owner":
        return True
    fd = info.fields.get(field)
    if fd is None:
        return False
    held = T.strip_opt(fd.ty)
    numbered = isinstance(held, T.ThingT) and held.name in env.things and bool(env.things[held.name].numbered)
    return fd.indexed or (isinstance(fd.ty, T.OptT) and numbered)
