"""AST (`nodes.Module`) -> typed IR (`ir.Program`) plus every diagnostic, all reported in one run.

The passes run in the order listed in `check`; each is a plain function of the environment, so a new
check is one more function in the list (the shape of sqlglot's optimizer).
"""

from __future__ import annotations

from rulesdsl import ir
from rulesdsl import nodes as n
from rulesdsl.checker import decls, lookups, orders, report, shadows
from rulesdsl.checker.env import Env
from rulesdsl.checker.exprs import ExprChecker
from rulesdsl.checker.report import TemplateLoader
from rulesdsl.diagnostics import DiagnosticBag


def check(module: n.Module, source_hash: str, load_template: TemplateLoader) -> tuple[ir.Program, DiagnosticBag]:
    diags = DiagnosticBag()
    env = Env(diags)
    checker = ExprChecker(env)

    decls.collect(env, module)
    title, settings = decls.settings(env, module)
    program = ir.Program(title, settings, module.file, source_hash)
    decls.params(env, module)
    decls.fields(env, module, checker)
    program.instances = decls.data(env, module)
    decls.links(env, module, program.instances)
    decls.signatures(env)
    orders.signatures(env)
    program.tables = decls.tables(env, checker)
    program.functions = decls.functions(env, checker)
    program.procedures = decls.procedures(env, checker)
    program.policy = orders.policy(env, checker, module)
    program.orders = orders.orders(env, checker, program.policy)
    program.phases = orders.phases(env, checker, module)
    program.unrun_orders = orders.unrun(env)
    shadows.shadowed(env, program.orders, program.unrun_orders)
    program.victories = orders.victories(env, checker, module)
    program.report = report.report(env, checker, module, load_template)
    orders.unused_groups(env, program.orders)
    lookups.check(env, module, program.tables, program.orders)
    unused(env, module)

    program.params = list(env.params.values())
    program.things = [ir.Thing(t.name, t.key, tuple(t.fields.values()), t.decl_span.line) for t in env.things.values()]
    program.player_fields = list(env.player_fields.values())
    program.world_fields = list(env.world_fields.values())
    program.world_line = env.world_line
    program.player_line = next((d.span.line for d in module.decls if isinstance(d, n.PlayerDecl)), 0)
    program.report_schema = report.report_schema(program.report)
    program.state_schema = report.state_schema(env, program.instances)
    return program, diags


def unused(env: Env, module: n.Module) -> None:
    """Warnings for declarations nothing refers to: usually a typo elsewhere or a rule left out."""
    for d in module.decls:
        kind = {n.ParamDecl: "parameter", n.TableDecl: "table", n.DefineDecl: "function",
                n.ProcedureDecl: "procedure"}.get(type(d))
        if kind and d.name not in env.used and _registered(env, d):
            env.diags.warning(d.name_span or d.span, "W0101", f"{kind} `{d.name}` is never used",
                              help="remove it, or refer to it where the rule applies")


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
