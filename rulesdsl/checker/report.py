"""Report AST + template text -> IR report, its JSON Schema, and the state schema of the ruleset."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

import jinja2
from jinja2 import meta as jmeta
from jinja2 import nodes as jn
from jinja2.parser import Parser

from rulesdsl import ir
from rulesdsl import nodes as n
from rulesdsl import types as T
from rulesdsl.checker.env import Context, Env, Scope, ThingInfo, suggest
from rulesdsl.checker.exprs import ExprChecker
from rulesdsl.checker.state import Checking, TemplateLoader
from rulesdsl.runtime import report as runtime_report
from rulesdsl.runtime.html import html_env
from rulesdsl.runtime.report import template_env, unsafe_attribute
from rulesdsl.source import Source, Span, plain_file_name


def _report_ty(desc: runtime_report.ReportType) -> T.Ty:
    if isinstance(desc, str):
        return {"int": T.INT, "text": T.TEXT, "bool": T.BOOL}[desc]
    kind, inner = desc
    if kind == "list":
        return T.ListT(_report_ty(inner))
    if kind == "opt":
        return T.OptT(_report_ty(inner))
    return T.RecordT(tuple((name, _report_ty(t)) for name, t in inner))


def _builtin_fields() -> dict[str, T.Ty]:
    """The engine's fields of every report (runtime/report.py defines them), as the checker's types; the
    dotted ones (`orders.used`) gathered into their record."""
    out: dict[str, T.Ty] = {}
    parts: dict[str, list[tuple[str, T.Ty]]] = {}
    for name, desc, _ in runtime_report.BUILTIN_FIELDS:
        head, _, rest = name.partition(".")
        if rest:
            parts.setdefault(head, []).append((rest, _report_ty(desc)))
            out[head] = T.ANY  # the place in order; the record is made below
        else:
            out[name] = _report_ty(desc)
    return {k: T.RecordT(tuple(parts[k])) if k in parts else v for k, v in out.items()}


# What the engine puts in every report, beside the ruleset's own fields.
BUILTIN_FIELDS: dict[str, T.Ty] = _builtin_fields()

def _plain_hint(name: str) -> str:
    last = name.rstrip("/").rsplit("/", 1)[-1]
    plain = last if plain_file_name(last) else "NAME.report.j2"
    return f'move the template next to the .rules file and name it plainly: `template "{plain}"`'


def _template_hint(ruleset: str) -> str:
    """E0503's hint: a template named after the ruleset's file (`vassals.rules` -> `vassals.report.j2`)."""
    file = PurePath(ruleset).name
    name = file.removesuffix(".rules") + ".report.j2" if file.endswith(".rules") and file != ".rules" \
        else "NAME.report.j2"
    return f'add `template "{name}"` to the block, naming a Jinja file next to the ruleset'


def report(c: Checking) -> None:
    """The `report { ... }` block: each field's value, and the template that lays them out."""
    c.program.report = _report(c.env, c.exprs, c.module, c.load_template)


def schemas(c: Checking) -> None:
    """The JSON Schemas of a report and of the state file, from the checked program."""
    c.program.report_schema = report_schema(c.program.report, c.env.money_places)
    c.program.state_schema = state_schema(c.env, c.program.instances)


def _report(env: Env, checker: ExprChecker, module: n.Module, load: TemplateLoader) -> ir.Report | None:
    decls = [d for d in module.decls if isinstance(d, n.ReportDecl)]
    for extra in decls[1:]:
        report_at = f"the `report` block at line {decls[0].span.line}"
        held = "its fields" if extra.fields else "its `template`" if extra.template is not None else None
        env.diags.error(extra.span, "E0501", "only one `report { ... }` block per file", help=f"move {held} into "
                        f"{report_at}" if held is not None else f"remove it: {report_at} is the report")
    if not decls:
        # Point at the ruleset's header (else its first declaration): comments above it are not the mistake.
        header = next((d for d in module.decls if isinstance(d, n.RulesetDecl)), None)
        first = header or (module.decls[0] if module.decls else None)
        span = first.span if first is not None else Span(module.file, 1, 1, 1, 2)
        env.diags.error(span, "E0502", "a ruleset needs a `report { ... }` block",
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
        env.diags.error(d.span, "E0503", "the report needs a template: the file that lays out what each player reads",
                        help=_template_hint(module.file))
        return ir.Report(tuple(fields), "", "", d.span.line, span=d.span)
    if not plain_file_name(d.template):
        env.diags.error(d.template_span, "E0510", f"template `{d.template}` is not a file in the ruleset's "
                        "folder: a game copies only the files next to the .rules file",
                        help=_plain_hint(d.template))
        return ir.Report(tuple(fields), "", d.template, d.span.line, span=d.span)
    loaded = load(d.template)
    if loaded is None:
        env.diags.error(d.template_span, "E0504", f"template file `{d.template}` not found",
                        help="templates are looked up next to the .rules file")
        return ir.Report(tuple(fields), "", d.template, d.span.line, span=d.span)
    display, text = loaded
    known = {**BUILTIN_FIELDS, **{k: T.concrete(v.ty) for k, v in fields}}
    _check_template(env, display, text, known, d.template_span)
    html, html_name = _html(env, d, load, known)
    return ir.Report(tuple(fields), text, display, d.span.line, html, html_name, span=d.span)


def _html(env: Env, d: n.ReportDecl, load: TemplateLoader, known: dict[str, T.Ty]) -> tuple[str, str]:
    """The `html "FILE"` of a report: its text and name, checked as the text template is (the same codes: a
    designer meets one set of rules for both); ("", "") for none, or when it cannot be read."""
    if d.html is None or d.html_span is None:
        return "", ""
    if not plain_file_name(d.html):
        env.diags.error(d.html_span, "E0510", f"template `{d.html}` is not a file in the ruleset's "
                        "folder: a game copies only the files next to the .rules file",
                        help=_plain_hint(d.html).replace("template \"", "html \"").replace(".j2", ".html.j2"))
        return "", ""
    loaded = load(d.html)
    if loaded is None:
        env.diags.error(d.html_span, "E0504", f"template file `{d.html}` not found",
                        help="templates are looked up next to the .rules file")
        return "", ""
    display, text = loaded
    _check_template(env, display, text, known, d.html_span, html_env())
    return text, display


def _check_template(env: Env, name: str, text: str, known: dict[str, T.Ty], span: Span,
                    jenv: jinja2.Environment | None = None) -> None:
    jenv = jenv or template_env()
    toks = _Tokens(jenv, name, text)
    parser: Parser | None = None
    try:
        parser = Parser(jenv, text, name=name)
        ast = parser.parse()
    except jinja2.TemplateSyntaxError as e:
        _syntax_error(env, toks, e, parser)
        return
    _check_filters(env, toks, ast, jenv)
    _check_internals(env, toks, ast)
    for var in sorted(jmeta.find_undeclared_variables(ast)):
        param = env.params.get(var)
        if var not in known and param is not None and param.secret:
            # The template sees only the report's fields; naming a secret there would show it, so say that.
            # This E0307 stays here, not in checker/secrets.py: the template is Jinja's AST, not IR, and the
            # same look at each name decides E0506 (a name the report does not have) just below.
            env.diags.error(toks.name_span(var, _first_use(ast, var)), "E0307",
                            f"the template names secret parameter `{var}`, which players must not see",
                            help="secret parameters stay with the GM; report only their effects")
        elif var not in known:
            env.diags.error(toks.name_span(var, _first_use(ast, var)), "E0506",
                            f"the template uses `{var}`, which the report does not have",
                            help=suggest(var, known) or "add it to the `report { ... }` block")
    _check_attrs(env, toks, ast, dict(known))


def _check_filters(env: Env, toks: _Tokens, ast: jn.Node, jenv: jinja2.Environment) -> None:
    """Filters (`|upper`) and tests (`is even`) that Jinja does not have: it would find out only when a turn's
    reports are written. Each gets a stand-in in `jenv`, so that the template can still be gone through."""
    missing: list[tuple[dict[str, Any], str]] = []
    for node in ast.find_all((jn.Filter, jn.Test)):
        if node.name is None:
            continue
        is_filter = isinstance(node, jn.Filter)
        known = jenv.filters if is_filter else jenv.tests
        if node.name in known:
            continue
        what = "filter" if is_filter else "test"
        missing.append((known, node.name))
        after = {"|", "filter"} if is_filter else {"is", "not"}
        env.diags.error(toks.word_span(node.name, after, node.lineno), "E0508",
                        f"the template uses {what} `{node.name}`, which Jinja does not have",
                        help=suggest(node.name, known) or ("filters of this game besides Jinja's own: ljust, rjust"
                                                           if is_filter else None))
    for known, name in missing:
        known[name] = _stand_in


def _check_internals(env: Env, toks: _Tokens, ast: jn.Node) -> None:
    """Python's internals read from a template (`x.__class__`, `x["__globals__"]`, `x|attr("mro")`): the
    sandbox refuses them while a turn runs, so a designer hears it at check, where it is still a typo.
    A chain (`cycler.__init__.__globals__`) is one mistake, reported at its first internal name."""
    for node in ast.find_all((jn.Getattr, jn.Getitem, jn.Filter)):
        name = _internal_name(node)
        inner = getattr(node, "node", None)  # what it reads from; a filter block has none
        if name is None or (isinstance(inner, jn.Node) and any(
                _internal_name(x) is not None for x in (inner, *inner.find_all((jn.Getattr, jn.Getitem, jn.Filter))))):
            continue
        span = toks.attr_span(name, None, node.lineno) if isinstance(node, jn.Getattr) \
            else toks.find(node.lineno, f'"{name}"') or toks.find(node.lineno, f"'{name}'") \
            or toks.line_span(node.lineno)
        env.diags.error(span, "E0509", f"the template reads `{name}`, one of Python's internals",
                        help="a report template reads only the report's fields and their parts; "
                             "Python's own attributes are refused when the report is written")


def _internal_name(node: jn.Node) -> str | None:
    """The internal name `node` reads (`.__class__`, `["mro"]`, `|attr("__init__")`), or None."""
    if isinstance(node, jn.Getattr):
        name: object = node.attr
    elif isinstance(node, jn.Getitem):
        name = node.arg.value if isinstance(node.arg, jn.Const) else None
    elif isinstance(node, jn.Filter) and node.name == "attr" and node.args:
        name = node.args[0].value if isinstance(node.args[0], jn.Const) else None
    else:
        return None
    return name if isinstance(name, str) and unsafe_attribute(name) else None


@dataclass(frozen=True)
class _Tok:
    """A token of the template with its place: the checker points at names, not at lines."""

    line: int
    col: int
    kind: str
    value: str

    def span(self, file: str, start: _Tok | None = None) -> Span:
        first = start or self
        width = len(self.value.split("\n")[0].rstrip()) or 1
        return Span(file, first.line, first.col, self.line, self.col + width)


class _Tokens:
    """The template's tokens as Jinja reads them (whitespace left out), each with its line and column."""

    def __init__(self, jenv: jinja2.Environment, name: str, text: str) -> None:
        self.name = name
        # Jinja reads every line end as "\n"; so does the source the diagnostics quote.
        plain = text.replace("\r\n", "\n").replace("\r", "\n")
        self.source = Source(name, plain)
        self.items: list[_Tok] = []
        pos = 0
        try:
            for _, kind, value in jenv.lex(text):
                # `lstrip_blocks` leaves some blanks out of the values: look for each from where the last ended.
                at = plain.find(value, pos) if value else -1
                if at < 0:
                    continue
                pos = at + len(value)
                if kind != "whitespace":
                    line, col = self.source.position(at)
                    self.items.append(_Tok(line, col, kind, value))
        except jinja2.TemplateSyntaxError:
            pass  # the tokens before the mistake still place it

    def line_span(self, line: int) -> Span:
        """The text of a line, blanks left out: where to point when nothing better is known."""
        text = self.source.line_text(line)
        start = len(text) - len(text.lstrip()) + 1
        return Span(self.name, line, start, line, max(start + 1, len(text.rstrip()) + 1))

    def offset_span(self, offset: int) -> Span:
        line, col = self.source.position(offset)
        return Span(self.name, line, col, line, col + 1)

    def find(self, line: int, text: str) -> Span | None:
        """Where `text` stands on `line`: as a token, or else after the last token read (the lexer stopped there)."""
        hit = next((t for t in self.items if t.line == line and t.value == text), None)
        if hit is not None:
            return hit.span(self.name)
        read = [t for t in self.items if t.line == line]
        after = read[-1].col - 1 + len(read[-1].value) if read else 0
        col = self.source.line_text(line).find(text, after)
        return Span(self.name, line, col + 1, line, col + 1 + len(text)) if col >= 0 else None

    def before(self, i: int) -> _Tok | None:
        return self.items[i - 1] if i > 0 else None

    def name_span(self, var: str, line: int) -> Span:
        """The first place on `line` (or anywhere) where `var` is read as a name: not `.var`, not `|var`."""
        hits = [t for i, t in enumerate(self.items) if t.kind == "name" and t.value == var
                and not ((b := self.before(i)) and b.kind == "operator" and b.value in (".", "|"))]
        hit = next((t for t in hits if t.line == line), hits[0] if hits else None)
        return hit.span(self.name) if hit else self.line_span(line)

    def word_span(self, word: str, after: set[str], line: int) -> Span:
        """Where `word` is read on `line` right after one of `after` (`|` before a filter, `is` before a test)."""
        for i, t in enumerate(self.items):
            b = self.before(i)
            if t.line == line and t.kind == "name" and t.value == word and b is not None and b.value in after:
                return t.span(self.name)
        return self.line_span(line)

    def attr_span(self, attr: str, base: str | None, line: int) -> Span:
        """Where `.attr` is read on `line`, after `base` (the name or field it is read from) if that is known."""
        hits = []
        for i, t in enumerate(self.items):
            dot = self.before(i)
            if t.kind == "name" and t.value == attr and t.line == line and dot and dot.value == ".":
                owner = self.before(i - 1)
                hits.append((owner is not None and owner.value == base, t))
        best = [t for exact, t in hits if exact] or [t for _, t in hits]
        return best[0].span(self.name) if best else self.line_span(line)

    def unclosed(self, tag: str) -> tuple[_Tok, _Tok] | None:
        """The `{% tag ... %}` that opens a block left open: its `{%` and its tag name."""
        stack: list[tuple[_Tok, _Tok]] = []
        for i, t in enumerate(self.items):
            start = self.before(i)
            if t.kind != "name" or start is None or start.kind != "block_begin":
                continue
            if t.value.startswith("end"):
                opened = t.value[3:]
                for k in range(len(stack) - 1, -1, -1):
                    if stack[k][1].value == opened:
                        del stack[k]
                        break
            else:
                stack.append((start, t))
        return next((pair for pair in reversed(stack) if pair[1].value == tag), None)


_INNERMOST = re.compile(r"innermost block that needs to be closed is '(\w+)'")


def _syntax_error(env: Env, toks: _Tokens, e: jinja2.TemplateSyntaxError, parser: Parser | None) -> None:
    """E0505 at the mistake: the character the lexer stopped at, the token the parser did not expect, or the
    block left open."""
    message = e.message or "the template cannot be read"
    line = e.lineno or 1
    notes: list[str] = []
    help_text: str | None = None
    span = toks.line_span(line)
    current = parser.stream.current if parser is not None else None
    inner = _INNERMOST.search(message)
    opened = toks.unclosed(inner.group(1)) if inner else None
    at = re.search(r" at (\d+)$", message)
    unexpected = re.match(r"unexpected '(.+?)'", message)
    if at:
        span = toks.offset_span(int(at.group(1)))
    elif current is not None and current.type == "eof" and opened is not None:
        tag = opened[1].value
        span = opened[1].span(toks.name, opened[0])
        message = f"the template ends inside this `{tag}` block"
        help_text = f"close it with `{{% end{tag} %}}`"
    elif unexpected and (found := toks.find(line, unexpected.group(1))) is not None:
        span = found
    elif current is not None and current.type != "eof":
        same_line = [t for t in toks.items if t.line == current.lineno]
        hit = next((t for t in same_line if t.value == str(current.value)), None) \
            or next((t for t in same_line if t.kind == current.type), None)
        if hit is not None:
            span = hit.span(toks.name)
    if opened is not None and current is not None and current.type != "eof" and opened[0].line != span.line:
        notes.append(f"the `{opened[1].value}` block opened at line {opened[0].line} is still open here")
    env.diags.error(span, "E0505", f"template syntax error: {message}", help=help_text, notes=notes)


def _stand_in(*args: Any, **kwargs: Any) -> None:
    return None


def _first_use(ast: jn.Node, var: str) -> int:
    for node in ast.find_all(jn.Name):
        if node.name == var:
            return int(node.lineno)
    return 1


def _check_attrs(env: Env, toks: _Tokens, node: jn.Node, scope: dict[str, T.Ty]) -> None:
    """Checks `x.field` against report types, following `for` loops over lists of records."""
    if isinstance(node, jn.For) and isinstance(node.target, jn.Name):
        it = _jtype(node.iter, scope)
        inner = dict(scope)
        inner[node.target.name] = it.item if isinstance(it, (T.ListT, T.SetT)) else T.ANY
        inner["loop"] = T.ANY
        for child in node.body:
            _check_attrs(env, toks, child, inner)
        for child in node.else_:
            _check_attrs(env, toks, child, scope)
        _check_attrs(env, toks, node.iter, scope)
        return
    if isinstance(node, jn.Getattr):
        base = _jtype(node.node, scope)
        owner = node.node.name if isinstance(node.node, jn.Name) else \
            node.node.attr if isinstance(node.node, jn.Getattr) else None
        plain = _plain(base)
        if isinstance(base, T.RecordT) and base.get(node.attr) is None:
            env.diags.error(toks.attr_span(node.attr, owner, node.lineno), "E0507",
                            f"the template reads `.{node.attr}`, which is not in {base.show()}",
                            help=suggest(node.attr, [k for k, _ in base.fields])
                            or "its fields are " + ", ".join(f"`{k}`" for k, _ in base.fields))
        elif plain is not None and not hasattr(plain[0], node.attr):
            env.diags.error(toks.attr_span(node.attr, owner, node.lineno), "E0507",
                            f"the template reads `.{node.attr}` of {plain[1]}: it has no fields",
                            help=plain[2])
    for child in node.iter_child_nodes():
        _check_attrs(env, toks, child, scope)


_RECORD_HINT = "to show more of it, make the report field a record, like `{name: p.name, cash: p.cash}`"


def _plain(ty: T.Ty) -> tuple[type, str, str | None] | None:
    """What a value without fields becomes in the template (its Python type, said in words), or None for a
    value that has fields or is not known. Values that are texts there keep the methods of texts (`upper()`)."""
    if isinstance(ty, T.ThingT):
        if ty.name == "Player":
            return str, "a player, which reaches the template as its name", _RECORD_HINT
        return str, f"a {ty.name}, which reaches the template as its key", _RECORD_HINT
    if isinstance(ty, T.Num):
        if ty.decimal:
            return str, 'a decimal, which reaches the template as a text like "18.33"', None
        return int, "a number", None
    if ty == T.BOOL:
        return bool, "true or false", None
    if ty == T.TEXT:
        return str, "a text", None
    if isinstance(ty, (T.ListT, T.SetT)):
        return list, "a list", "go through it with `{% for x in ... %}`"
    return None


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


def schema_of(ty: T.Ty, decimal: dict[str, Any] = _REPORT_DECIMAL,
              numbered: frozenset[str] = frozenset(), money: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON Schema of a value of type `ty` as the engine encodes it: things by their keys, and
    decimals as `decimal` says (report data and state files differ only there). In a state file an instance
    of a `numbered` thing is its number (`3`, or `"3"`) or its owner's account and number (`"ann/3"`).
    `money`: the schema of an amount when the header's `money "0.1"` gives money places (None: whole)."""
    if isinstance(ty, T.ThingT) and ty.name in numbered:
        return {"type": ["string", "integer"]}
    if numbered and isinstance(ty, (T.OptT, T.ListT, T.SetT, T.MapT)):
        inner = ty.inner if isinstance(ty, T.OptT) else ty.value if isinstance(ty, T.MapT) else ty.item
        made = schema_of(inner, decimal, numbered, money)
        if isinstance(ty, T.OptT):
            return {"anyOf": [made, {"type": "null"}]}
        if isinstance(ty, T.MapT):
            return {"type": "object", "additionalProperties": made}
        return {"type": "array", "items": made}
    if isinstance(ty, T.Num):
        if money is not None and ty.unit == "money" and not ty.decimal:
            return dict(money)
        return dict(decimal) if ty.decimal else {"type": "integer"}
    if ty == T.BOOL:
        return {"type": "boolean"}
    if ty == T.TEXT or isinstance(ty, T.ThingT):
        return {"type": "string"}
    if ty == T.NONE:
        return {"type": "null"}
    if isinstance(ty, T.OptT):
        return {"anyOf": [schema_of(ty.inner, decimal, money=money), {"type": "null"}]}
    if isinstance(ty, (T.ListT, T.SetT)):
        return {"type": "array", "items": schema_of(ty.item, decimal, money=money)}
    if isinstance(ty, T.MapT):
        return {"type": "object", "additionalProperties": schema_of(ty.value, decimal, money=money)}
    if isinstance(ty, T.RecordT):
        return {"type": "object", "properties": {k: schema_of(v, decimal, money=money) for k, v in ty.fields},
                "required": [k for k, _ in ty.fields], "additionalProperties": False}
    return {}


def _state_money(env: Env) -> dict[str, Any] | None:
    """An amount in a state file or scenario when money has places: a number (`7.4`) or its text; whether it
    has too many places is the decoder's to say, with the path."""
    return {"anyOf": [{"type": "number"}, {"type": "string"}]} if env.money_places else None


def report_schema(rep: ir.Report | None, money_places: int = 0) -> dict[str, Any]:
    props = {k: schema_of(v) for k, v in BUILTIN_FIELDS.items()}
    # An amount with places is shown as its text in the report (`"7.4"`), as a decimal is.
    money = _REPORT_DECIMAL if money_places else None
    if rep is not None:
        props.update({k: schema_of(T.concrete(e.ty), money=money) for k, e in rep.fields})
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "player report",
            "type": "object", "properties": props, "required": sorted(props), "additionalProperties": False}


def grid_schema(env: Env) -> dict[str, Any]:
    """The grid's section, by field (a layer), described by shape and never by listing its sectors: a drawn
    layer may be rows of symbols (one text), a set of players or keyed things a mapping `by member` of each
    member to its sectors, and any layer a mapping of sector numbers to values, which the pattern of the
    grid's numbering describes."""
    assert env.grid is not None
    digits = "".join("[0-9]" if ch in "CR" else re.escape(ch) for ch in env.grid.pattern)
    drawn = {f for f, _ in env.grid.draws}
    grid = env.grid.decl.name
    props: dict[str, Any] = {}
    for name, f in env.things[grid].fields.items():
        sparse = {"type": "object", "propertyNames": {"pattern": f"^{digits}$"},
                  "additionalProperties": schema_of(f.ty, _STATE_DECIMAL, money=_state_money(env))}
        if name in drawn:
            props[name] = {"anyOf": [{"type": "string"}, sparse]}
        elif (isinstance(f.ty, T.SetT) and isinstance(f.ty.item, T.ThingT) and f.ty.item.name != grid
              and not (f.ty.item.name in env.things and env.things[f.ty.item.name].numbered)):
            # A set of players (or of a keyed thing's instances) may be written by member (runtime/gridstate.py):
            # each member's sectors and runs of sectors ("02200..02800").
            run = f"^{digits}([.][.]{digits})?$"
            members = {"type": "object", "properties": {"by member": {
                "type": "object", "additionalProperties": {"type": "array", "items": {"type": "string",
                                                                                      "pattern": run}}}},
                "required": ["by member"], "additionalProperties": False}
            props[name] = {"anyOf": [sparse, members]}
        else:
            props[name] = sparse
    return {"type": "object", "properties": props, "additionalProperties": False}


def state_schema(env: Env, instances: dict[str, list[ir.Instance]]) -> dict[str, Any]:
    """The schema of the world part of a scenario or state file: players, things, parameters."""
    numbered = frozenset(name for name, info in env.things.items() if info.numbered)

    def fields_schema(fields: dict[str, ir.FieldDef], extra: dict[str, Any]) -> dict[str, Any]:
        props = {k: schema_of(f.ty, _STATE_DECIMAL, numbered, _state_money(env)) for k, f in fields.items()}
        props.update(extra)
        return {"type": "object", "properties": props, "additionalProperties": False}

    player = fields_schema(env.player_fields, {
        "name": {"type": "string", "minLength": 1, "maxLength": 40},
        "account": {"type": ["string", "integer"]},
        "code": {"type": ["string", "integer"]},
        "email": {"type": "string"},
        "active": {"type": "boolean"},
    })
    # A field `from scenario` has no default: each player must be given it (and the world, below).
    player["required"] = ["name", "account", "code", *(k for k, f in env.player_fields.items() if f.from_scenario)]
    things = {}
    for name, info in env.things.items():
        if env.grid is not None and name == env.grid.decl.name:
            things[name] = grid_schema(env)
            continue
        if info.numbered:
            things[name] = numbered_schema(info, fields_schema(info.fields, {}))
            continue
        keys = [i.key for i in instances.get(name, [])]
        things[name] = {"type": "object", "propertyNames": {"enum": keys},
                        "additionalProperties": fields_schema(info.fields, {})}
    params = {}
    for pname, p in env.params.items():
        params[pname] = schema_of(p.ty, _STATE_DECIMAL, money=_state_money(env))
    # A section only for a ruleset with a `world` block: elsewhere `world:` is an unknown section.
    world = {"world": fields_schema(env.world_fields, {})} if env.world_line is not None else {}
    world_required = [k for k, f in env.world_fields.items() if f.from_scenario]
    if world_required:
        world["world"]["required"] = world_required
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
        **({"required": ["world"]} if world_required else {}),
    }


def numbered_schema(info: ThingInfo, fields: dict[str, Any]) -> dict[str, Any]:
    """A numbered thing's section, by its shape (runtime/unitstate.py): a list of rows, each a mapping of its
    fields (`owner` and `number` among them), or the state file's columns and a list of rows of values."""
    row = dict(fields)
    owner = ["string", "integer", "null"] if info.ownerless else ["string", "integer"]
    row["properties"] = {**({"owner": {"type": owner}} if info.numbered == "owner" else {}),
                         "number": {"type": "integer", "minimum": 1}, **fields["properties"]}
    if info.numbered == "owner" and not info.ownerless:
        row["required"] = ["owner"]
    return {"anyOf": [
        {"type": "array", "items": row},
        {"type": "object", "additionalProperties": False, "required": ["columns", "rows"], "properties": {
            "columns": {"type": "array", "items": {"enum": list(row["properties"])}},
            "rows": {"type": "array", "items": {"type": "array"}}}},
    ]}
