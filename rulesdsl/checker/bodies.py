"""Function, procedure and field-default AST -> IR: phase 2's bodies, each checked exactly once.

A body is checked when its pass reaches it, or earlier when a call or a read needs it (a default that
calls a function, a function whose result type is left to inference): `Bodies` keeps the result on the
function's `FuncInfo` (or by field), so that no body is checked twice and no diagnostic is thrown away.
"""

from __future__ import annotations

import dataclasses

from rulesdsl import ir
from rulesdsl import nodes as n
from rulesdsl import types as T
from rulesdsl.checker import flow
from rulesdsl.checker.env import Context, Env, FuncInfo, Scope
from rulesdsl.checker.exprs import ExprChecker, show_expr
from rulesdsl.checker.state import Checking


class Bodies:
    """The resolver the expression checker asks for bodies (`exprs.Resolver`); it owns that checker."""

    def __init__(self, env: Env) -> None:
        self.env = env
        self.exprs = ExprChecker(env, self)
        self._defaults: dict[tuple[str, str], ir.Expr | None] = {}
        self._pending: set[tuple[str, str]] = set()  # defaults being checked: a read of one now is circular

    def function(self, info: FuncInfo) -> ir.Function | None:
        if info.checked is not None or info.checking:
            return info.checked
        info.checking = True
        scope = Scope()
        for pname, pty in info.params:
            scope.declare(pname, pty)
        ctx = Context("function", allow_chance=False)
        decl = info.decl
        body = self.exprs.expr(decl.body, scope, ctx)
        if info.result is None:
            info.result = T.concrete(body.ty)
        else:
            self.exprs.expect(body, info.result, decl.body.span, f"the result of `{decl.name}`")
        info.checking = False
        self.exprs.calls_itself(info, body.ty)
        info.checked = ir.Function(decl.name, info.params, info.result, body, decl.span.line, span=decl.span)
        return info.checked

    def field_default(self, owner: str, name: str) -> ir.Expr | None:
        key = (owner, name)
        if key in self._defaults:
            return self._defaults[key]
        node = self.env.defaults.get(key)
        if node is None or key in self._pending:
            return None
        self._pending.add(key)
        fields = self.env.owned_fields(owner)
        fd = fields[name]
        default = self.exprs.expr(node, Scope(), Context("static", allow_chance=False))
        self.exprs.expect(default, fd.ty.value if isinstance(fd.ty, T.MapT) else fd.ty, node.span,
                          f"the default of `{name}`")
        fields[name] = dataclasses.replace(fd, default=default)
        self._defaults[key] = default
        self._pending.discard(key)
        return default


def defaults(c: Checking) -> None:
    """The default of every field of the things, the players and the world."""
    for owner, name in list(c.env.defaults):
        c.exprs.resolver.field_default(owner, name)


def field_wheres(c: Checking) -> None:
    """A field's `where`: a condition on one value (each value of a map; a none is never checked, so the
    name is not optional inside), named by the field's own name. It is checked when a state is read or
    made and after each turn, where nothing else is in scope: no `me`, no other field, no chance."""
    for (owner, name), node in c.env.wheres.items():
        fields = c.env.owned_fields(owner)
        fd = fields[name]
        value = fd.ty.value if isinstance(fd.ty, T.MapT) else fd.ty
        scope = Scope()
        scope.declare(name, value.inner if isinstance(value, T.OptT) else value)
        cond = c.exprs.cond(node, scope, Context("static", allow_chance=False))
        text = show_expr(node) or f"the condition at line {node.span.line}"
        fields[name] = dataclasses.replace(fd, where=cond, where_text=text)


def functions(c: Checking) -> None:
    c.program.functions = [f for info in c.env.functions.values()
                           if (f := c.exprs.resolver.function(info)) is not None]


def procedures(c: Checking) -> None:
    out = []
    for name, info in c.env.procedures.items():
        scope = Scope()
        for pname, pty in info.params:
            scope.declare(pname, pty)
        body = c.exprs.stmts(info.decl.body, scope, Context("procedure", proc=name, result=info.result))
        if info.result is not None:
            flow.must_return(c.env, info.decl, body)
        out.append(ir.Procedure(name, info.params, body, info.decl.span.line, info.result, span=info.decl.span))
    c.program.procedures = out


def declarations(c: Checking) -> None:
    """What the code generator reads of things, players and the world, with every default in place."""
    env, program = c.env, c.program
    program.params = list(env.params.values())
    grid = env.grid.decl.name if env.grid is not None else None
    program.things = [ir.Thing(t.name, t.key, tuple(t.fields.values()), t.decl_span.line, t.numbered,
                               t.ownerless, span=t.decl_span) for t in env.things.values() if t.name != grid]
    if env.grid is not None:
        gi = env.grid
        program.grid = ir.Grid(gi.decl.name, tuple(env.things[gi.decl.name].fields.values()), gi.width, gi.height,
                               gi.wrap_x, gi.wrap_y, gi.pattern, gi.draws, gi.decl.span.line, span=gi.decl.span)
    program.player_fields = list(env.player_fields.values())
    program.world_fields = list(env.world_fields.values())
    program.world_line = env.world_line
    program.player_line = next((d.span.line for d in c.module.decls if isinstance(d, n.PlayerDecl)), 0)
