"""AST (`nodes.Module`) -> typed IR (`ir.Program`) plus every diagnostic, all reported in one run.

The checker runs three phases, each a tuple of plain functions of one `Checking` state, run in order
(the shape of sqlglot's optimizer). A new check is one more function in the right tuple.

1. DECLARE: every name, signature, field type and table type; no body is looked at, so that any body
   may use anything declared anywhere in the file.
2. CHECK_BODIES: each default, table row, function, procedure, order, phase, victory and report field is
   checked once, into the IR. A body needed sooner (a default calling a function) is checked on demand
   and kept (`bodies.Bodies`).
3. ANALYSE: checks over the finished IR and names: orders never run, shadowed syntaxes, unused groups,
   table reads that stop a turn, unused names; then the schemas.
"""

from __future__ import annotations

from rulesdsl import ir
from rulesdsl import nodes as n
from rulesdsl.checker import bodies, decls, lookups, orders, report, shadows, tables
from rulesdsl.checker.env import Env
from rulesdsl.checker.state import Checking, Pass, TemplateLoader
from rulesdsl.diagnostics import DiagnosticBag

__all__ = ["ANALYSE", "CHECK_BODIES", "DECLARE", "TemplateLoader", "check"]


def unused(c: Checking) -> None:
    """Warnings for declarations nothing refers to: usually a typo elsewhere or a rule left out."""
    env = c.env
    for d in c.module.decls:
        kind = {n.ParamDecl: "parameter", n.TableDecl: "table", n.DefineDecl: "function",
                n.ProcedureDecl: "procedure"}.get(type(d))
        if kind and d.name not in env.used and _registered(env, d):
            env.diags.warning(d.name_span or d.span, "W0101", f"{kind} `{d.name}` is never used",
                              help="remove it, or refer to it where the rule applies")


def shadowed(c: Checking) -> None:
    """Order syntaxes that an earlier one always matches first."""
    shadows.shadowed(c.env, c.program.orders, c.program.unrun_orders)


def declarations(c: Checking) -> None:
    """What the code generator reads of things, players and the world, with every default in place."""
    env, program = c.env, c.program
    program.params = list(env.params.values())
    program.things = [ir.Thing(t.name, t.key, tuple(t.fields.values()), t.decl_span.line, span=t.decl_span)
                      for t in env.things.values()]
    program.player_fields = list(env.player_fields.values())
    program.world_fields = list(env.world_fields.values())
    program.world_line = env.world_line
    program.player_line = next((d.span.line for d in c.module.decls if isinstance(d, n.PlayerDecl)), 0)


DECLARE: tuple[Pass, ...] = (
    decls.collect,       # every global name, and E0202 for names a ruleset may not give
    decls.settings,      # the `ruleset` header
    decls.params,
    decls.field_types,   # fields of things, players and the world (defaults wait)
    decls.data,          # instances, whose values are literals of those types
    decls.links,
    decls.signatures,    # functions and procedures
    tables.table_types,  # key and result types (rows wait)
    orders.signatures,   # argument types, so that functions may read `o.units`
)
CHECK_BODIES: tuple[Pass, ...] = (
    bodies.functions,
    bodies.defaults,
    tables.tables,
    bodies.procedures,
    orders.policy,
    orders.orders,
    orders.phases,
    orders.victories,
    report.report,
    declarations,
)
ANALYSE: tuple[Pass, ...] = (
    orders.unrun,
    shadowed,
    orders.unused_groups,
    lookups.check,
    unused,
    report.schemas,
)


def check(module: n.Module, source_hash: str, load_template: TemplateLoader) -> tuple[ir.Program, DiagnosticBag]:
    diags = DiagnosticBag()
    env = Env(diags)
    c = Checking(module, env, bodies.Bodies(env).exprs, ir.Program("", {}, module.file, source_hash), load_template)
    for phase in (DECLARE, CHECK_BODIES, ANALYSE):
        for run in phase:
            run(c)
    return c.program, diags


def _registered(env: Env, d: n.Decl) -> bool:
    """Whether `d` is the declaration its name stands for: a second one already has its E0203."""
    if isinstance(d, n.ParamDecl):
        return env.param_spans.get(d.name) == d.span
    if isinstance(d, n.TableDecl):
        return env.tables.get(d.name) is d
    if isinstance(d, n.DefineDecl):
        info = env.functions.get(d.name)
        return info is not None and info.decl is d
    if isinstance(d, n.ProcedureDecl):
        proc = env.procedures.get(d.name)
        return proc is not None and proc.decl is d
    return True
