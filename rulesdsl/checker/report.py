"""Report AST + template text -> IR report, its JSON Schema, and the state schema of the ruleset."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jinja2
from jinja2 import meta as jmeta
from jinja2 import nodes as jn

from rulesdsl import ir
from rulesdsl import nodes as n
from rulesdsl import types as T
from rulesdsl.checker.env import Context, Env, Scope, suggest
from rulesdsl.checker.exprs import ExprChecker
from rulesdsl.runtime.report import template_env
from rulesdsl.source import Span

_ORDER_LINE = T.RecordT((("line", T.INT), ("text", T.TEXT), ("status", T.TEXT), ("reason", T.OptT(T.TEXT))))
_REFUSED = T.RecordT((("line", T.INT), ("text", T.TEXT), ("reason", T.TEXT)))

# What the engine puts in every report, beside the ruleset's own fields (see runtime/engine.py).
BUILTIN_FIELDS: dict[str, T.Ty] = {
    "game": T.RecordT((("id", T.TEXT), ("title", T.TEXT), ("turn", T.INT), ("unit", T.TEXT))),
    "player": T.RecordT((("name", T.TEXT), ("account", T.TEXT), ("code", T.TEXT), ("email", T.TEXT),
                         ("active", T.BOOL))),
    "orders": T.RecordT((("used", T.ListT(_ORDER_LINE)), ("refused", T.ListT(_REFUSED)),
                         ("on_file", T.ListT(T.TEXT)), ("notices", T.ListT(T.TEXT)))),
    "news": T.ListT(T.TEXT),
    "messages": T.ListT(T.TEXT),
    "warnings": T.ListT(T.TEXT),
    "game_over": T.BOOL,
    "winners": T.ListT(T.TEXT),
}

TemplateLoader = Callable[[str], "tuple[str, str] | None"]


def report(env: Env, checker: ExprChecker, module: n.Module, load: TemplateLoader) -> ir.Report | None:
    decls = [d for d in module.decls if isinstance(d, n.ReportDecl)]
    for extra in decls[1:]:
        env.diags.error(extra.span, "E0501", "only one `report { ... }` block per file")
    if not decls:
        env.diags.error(Span(module.file, 1, 1, 1, 2), "E0502", "a ruleset needs a `report { ... }` block",
                        help="every player gets a report each turn: say what it shows")
        return None
    d = decls[0]
    fields: list[tuple[str, ir.Expr]] = []
    seen: set[str] = set()
    for f in d.fields:
        if f.name in seen or f.name in BUILTIN_FIELDS:
            env.diags.error(f.span, "E0203", f"report field `{f.name}` is "
                            + ("declared twice" if f.name in seen else "built in already"))
            continue
        seen.add(f.name)
        ctx = Context("report", me=True, allow_chance=False)
        e = checker.expr(f.value, Scope(), ctx)
        fields.append((f.name, e))
    if d.template is None or d.template_span is None:
        env.diags.error(d.span, "E0503", "the report needs a template: `template \"NAME.report.j2\"`")
        return ir.Report(tuple(fields), "", "", d.span.line)
    loaded = load(d.template)
    if loaded is None:
        env.diags.error(d.template_span, "E0504", f"template file `{d.template}` not found",
                        help="templates are looked up next to the .rules file")
        return ir.Report(tuple(fields), "", d.template, d.span.line)
    display, text = loaded
    _check_template(env, display, text, {**BUILTIN_FIELDS, **{k: T.concrete(v.ty) for k, v in fields}},
                    d.template_span)
    return ir.Report(tuple(fields), text, display, d.span.line)


def _check_template(env: Env, name: str, text: str, known: dict[str, T.Ty], span: Span) -> None:
    jenv = template_env()
    try:
        ast = jenv.parse(text, name=name)
    except jinja2.TemplateSyntaxError as e:
        line = e.lineno or 1
        env.diags.error(Span(name, line, 1, line, 2), "E0505", f"template syntax error: {e.message}")
        return
    for var in sorted(jmeta.find_undeclared_variables(ast)):
        if var not in known:
            line = _first_use(ast, var)
            env.diags.error(Span(name, line, 1, line, 2), "E0506", f"the template uses `{var}`, which the report "
                            "does not have", help=suggest(var, known) or "add it to the `report { ... }` block")
    _check_attrs(env, name, ast, dict(known))


def _first_use(ast: jn.Node, var: str) -> int:
    for node in ast.find_all(jn.Name):
        if node.name == var:
            return int(node.lineno)
    return 1


def _check_attrs(env: Env, name: str, node: jn.Node, scope: dict[str, T.Ty]) -> None:
    """Checks `x.field` against report types, following `for` loops over lists of records."""
    if isinstance(node, jn.For) and isinstance(node.target, jn.Name):
        it = _jtype(node.iter, scope)
        inner = dict(scope)
        inner[node.target.name] = it.item if isinstance(it, (T.ListT, T.SetT)) else T.ANY
        inner["loop"] = T.ANY
        for child in node.body:
            _check_attrs(env, name, child, inner)
        for child in node.else_:
            _check_attrs(env, name, child, scope)
        _check_attrs(env, name, node.iter, scope)
        return
    if isinstance(node, jn.Getattr):
        base = _jtype(node.node, scope)
        if isinstance(base, T.RecordT) and base.get(node.attr) is None:
            env.diags.error(Span(name, node.lineno, 1, node.lineno, 2), "E0507",
                            f"the template reads `.{node.attr}`, which is not in {base.show()}",
                            help=suggest(node.attr, [k for k, _ in base.fields]))
    for child in node.iter_child_nodes():
        _check_attrs(env, name, child, scope)


def _jtype(node: jn.Node, scope: dict[str, T.Ty]) -> T.Ty:
    if isinstance(node, jn.Name):
        return T.strip_opt(scope.get(node.name, T.ANY))
    if isinstance(node, jn.Getattr):
        base = _jtype(node.node, scope)
        if isinstance(base, T.RecordT):
            return T.strip_opt(base.get(node.attr) or T.ANY)
    return T.ANY


# ---------------------------------------------------------------- schemas

_REPORT_DECIMAL: dict[str, Any] = {"type": "string"}
# State files keep decimals exact, as "3/20"; a GM may also write a plain number.
_STATE_DECIMAL: dict[str, Any] = {
    "anyOf": [{"type": "number"}, {"type": "string", "pattern": r"^-?[0-9]+(/[0-9]+|\.[0-9]+)?$"}]}


def schema_of(ty: T.Ty, decimal: dict[str, Any] = _REPORT_DECIMAL) -> dict[str, Any]:
    """The JSON Schema of a value of type `ty` as the engine encodes it: things by their keys, and
    decimals as `decimal` says (report data and state files differ only there)."""
    if isinstance(ty, T.Num):
        return dict(decimal) if ty.decimal else {"type": "integer"}
    if ty == T.BOOL:
        return {"type": "boolean"}
    if ty == T.TEXT or isinstance(ty, T.ThingT):
        return {"type": "string"}
    if ty == T.NONE:
        return {"type": "null"}
    if isinstance(ty, T.OptT):
        return {"anyOf": [schema_of(ty.inner, decimal), {"type": "null"}]}
    if isinstance(ty, (T.ListT, T.SetT)):
        return {"type": "array", "items": schema_of(ty.item, decimal)}
    if isinstance(ty, T.MapT):
        return {"type": "object", "additionalProperties": schema_of(ty.value, decimal)}
    if isinstance(ty, T.RecordT):
        return {"type": "object", "properties": {k: schema_of(v, decimal) for k, v in ty.fields},
                "required": [k for k, _ in ty.fields], "additionalProperties": False}
    return {}


def report_schema(rep: ir.Report | None) -> dict[str, Any]:
    props = {k: schema_of(v) for k, v in BUILTIN_FIELDS.items()}
    if rep is not None:
        props.update({k: schema_of(T.concrete(e.ty)) for k, e in rep.fields})
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "player report",
            "type": "object", "properties": props, "required": sorted(props), "additionalProperties": False}


def state_schema(env: Env, instances: dict[str, list[ir.Instance]]) -> dict[str, Any]:
    """The schema of the world part of a scenario or state file: players, things, parameters."""
    def fields_schema(fields: dict[str, ir.FieldDef], extra: dict[str, Any]) -> dict[str, Any]:
        props = {k: schema_of(f.ty, _STATE_DECIMAL) for k, f in fields.items()}
        props.update(extra)
        return {"type": "object", "properties": props, "additionalProperties": False}

    player = fields_schema(env.player_fields, {
        "name": {"type": "string", "minLength": 1, "maxLength": 40},
        "account": {"type": ["string", "integer"]},
        "code": {"type": ["string", "integer"]},
        "email": {"type": "string"},
        "active": {"type": "boolean"},
    })
    player["required"] = ["name", "account", "code"]
    things = {}
    for name, info in env.things.items():
        keys = [i.key for i in instances.get(name, [])]
        things[name] = {"type": "object", "propertyNames": {"enum": keys},
                        "additionalProperties": fields_schema(info.fields, {})}
    params = {}
    for pname, p in env.params.items():
        params[pname] = schema_of(p.ty, _STATE_DECIMAL)
    # A section only for a ruleset with a `world` block: elsewhere `world:` is an unknown section.
    world = {"world": fields_schema(env.world_fields, {})} if env.world_line is not None else {}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "ruleset world",
        "type": "object",
        "properties": {
            "players": {"type": "array", "items": player},
            "parameters": {"type": "object", "properties": params, "additionalProperties": False},
            **world,
            **things,
        },
    }
