"""Checked IR and names -> the warnings and errors only a whole program shows: shadowed syntaxes, unused names."""

from __future__ import annotations

from rulesdsl import nodes as n
from rulesdsl.checker import shadows
from rulesdsl.checker.env import Env
from rulesdsl.checker.state import Checking


def shadowed(c: Checking) -> None:
    """Order syntaxes that an earlier one always matches first."""
    shadows.shadowed(c.env, c.program.orders, c.program.unrun_orders)


def unused(c: Checking) -> None:
    """Warnings for declarations nothing refers to: usually a typo elsewhere or a rule left out."""
    env = c.env
    for d in c.module.decls:
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
