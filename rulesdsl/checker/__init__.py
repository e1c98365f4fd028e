"""AST (`nodes.Module`) -> typed IR (`ir.Program`) plus every diagnostic, all reported in one run.

The checker runs three phases, each a tuple of plain functions of one `Checking` state, run in order
(the shape of sqlglot's optimizer). A new check is one more function in the right tuple.

1. DECLARE: every name, signature, field type and table type; no body is looked at, so that any body
   may use anything declared anywhere in the file.
2. CHECK_BODIES: each default, table row, function, procedure, order, phase, victory, report field and
   `simulation` entry is checked once, into the IR. A body needed sooner (a default calling a function) is
   checked on demand and kept (`bodies.Bodies`).
3. ANALYSE: checks over the finished IR and names: which keys tables' rows cover, orders never run, secrets
   shown to players, shadowed syntaxes, unused groups, table reads that stop a turn, unused names; then
   the schemas.
"""

from __future__ import annotations

from rulesdsl import ir
from rulesdsl import nodes as n
from rulesdsl.checker import (
    analyse,
    bodies,
    calendar,
    coverage,
    decls,
    grids,
    lookups,
    orders,
    report,
    routes,
    secrets,
    simulation,
    tables,
    units,
)
from rulesdsl.checker.env import Env
from rulesdsl.checker.state import Checking, Pass, TemplateLoader
from rulesdsl.diagnostics import DiagnosticBag

__all__ = ["ANALYSE", "CHECK_BODIES", "DECLARE", "TemplateLoader", "check", "checking"]

DECLARE: tuple[Pass, ...] = (
    decls.collect,       # every global name, and E0202 for names a ruleset may not give
    decls.settings,      # the `ruleset` header
    calendar.declare,    # the calendar's kinds and cycle, which phases, orders and `calendar.kind` read
    decls.params,
    decls.field_types,   # fields of things, players and the world (defaults wait)
    units.fields,        # fields that could hold a destroyed instance; `indexed` fields
    decls.data,          # instances, whose values are literals of those types
    decls.links,
    grids.declare,       # the grid's size, wraps, numbering and drawn fields (after the rows it draws with)
    decls.signatures,    # functions and procedures
    tables.table_types,  # key and result types (rows wait)
    orders.signatures,   # argument types, so that functions may read `o.units`
    simulation.declare,  # the `simulation` block: the orders, arguments, names and fields it names
)
CHECK_BODIES: tuple[Pass, ...] = (
    bodies.functions,    # each body once; a default or a call may have needed it sooner
    bodies.defaults,     # field defaults, likewise
    bodies.field_wheres,  # what each field's values must be (`where`)
    tables.tables,       # rows: values, keys and chances; each row's bounds as read
    bodies.procedures,
    orders.policy,       # the `orders { ... }` block
    orders.orders,
    orders.phases,
    orders.victories,
    report.report,
    simulation.bodies,   # its options, invariants and `unless` conditions
    bodies.declarations,  # things, players and the world as the code generator reads them
)
ANALYSE: tuple[Pass, ...] = (
    coverage.check,      # rows for every combination of things; ranges empty, never used, overlapping, gaps
    orders.unrun,        # game orders no phase runs (W0102)
    orders.halts_in_effects,  # an order's effect calling a procedure that can `halt` (E0430)
    secrets.check,       # reports and texts that would show a secret parameter (E0307)
    analyse.shadowed,    # syntaxes an earlier order always takes first
    orders.unused_groups,
    orders.shared_sets,  # orders sharing `once ... as NAME` or `standing ... as NAME` name one kind of value
    lookups.check,       # table reads and list positions that stop a turn (E0339, E0340, W0205)
    units.unindexed,     # loops over numbered things that could read an index (W0207)
    routes.priced,       # paths whose prices depend on nothing that changes after the start: kept per game
    analyse.unused,      # W0101
    report.schemas,      # the report's and the state file's JSON Schemas
)


def check(module: n.Module, source_hash: str, load_template: TemplateLoader) -> tuple[ir.Program, DiagnosticBag]:
    """The checked program and every diagnostic; the program is only for the code generator if none is an error."""
    c = checking(module, source_hash, load_template)
    return c.program, c.env.diags


def checking(module: n.Module, source_hash: str, load_template: TemplateLoader) -> Checking:
    """The state every pass has run over: the program, its diagnostics, and the names (`env`) that the language
    server reads for hover, definitions and completion."""
    env = Env(DiagnosticBag())
    c = Checking(module, env, bodies.Bodies(env).exprs, ir.Program("", {}, module.file, source_hash), load_template)
    for phase in (DECLARE, CHECK_BODIES, ANALYSE):
        for run in phase:
            run(c)
    return c
