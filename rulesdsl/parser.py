"""`.rules` source text -> AST (`nodes.Module`), or syntax diagnostics in the designer's words."""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import re
from fractions import Fraction
from functools import cache
from importlib import resources
from typing import Any

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from rulesdsl import nodes as n
from rulesdsl.diagnostics import Diagnostic
from rulesdsl.source import Source, Span


@cache
def _lark() -> Lark:
    grammar = resources.files("rulesdsl").joinpath("grammar/rules.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", propagate_positions=True, start=["start", "expr"],
                maybe_placeholders=True, cache=False)


def _number(text: str) -> int | Fraction:
    return Fraction(text) if "." in text else int(text)


Kinds = tuple[tuple[str, Span], ...]  # turn kinds as written, each with its span

_UNESCAPE = re.compile(r"\\(.)")


def _unquote(raw: str) -> str:
    body = raw[3:-3] if raw.startswith('"""') else raw[1:-1]
    if raw.startswith('"""'):
        # Triple-quoted text is a template or prose: drop the first newline and common indent.
        body = body.removeprefix("\n")
        lines = body.split("\n")
        indents = [len(ln) - len(ln.lstrip(" ")) for ln in lines if ln.strip()]
        cut = min(indents, default=0)
        body = "\n".join(ln[cut:] for ln in lines).rstrip(" ")
    return _UNESCAPE.sub(lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


class _Builder(Transformer[Any, Any]):
    """Turns Lark's tree into AST nodes; no Lark object survives it."""

    def __init__(self, source: Source, errors: list[Diagnostic]) -> None:
        super().__init__()
        self.source = source
        self.errors = errors

    # -- helpers
    def span(self, meta: Any) -> Span:
        if getattr(meta, "empty", True):
            return Span(self.source.name, 0, 0, 0, 0)
        return Span(self.source.name, meta.line, meta.column, meta.end_line, meta.end_column)

    def tspan(self, tok: Token) -> Span:
        return Span(self.source.name, tok.line or 0, tok.column or 0,
                    tok.end_line or tok.line or 0, tok.end_column or tok.column or 0)

    def text(self, tok: Token) -> n.Text:
        """A string literal, split into literal parts and `{expr}` interpolations.

        The scan runs over the raw text, line by line, so an interpolation's span points at where it
        stands in the file, past escapes and the indent a triple-quoted text drops.
        """
        raw = str(tok)
        span = self.tspan(tok)
        quote = 3 if raw.startswith('"""') else 1
        lines = raw[quote:-quote].split("\n")
        starts = [(span.line, span.col + quote)] + [(span.line + k, 1) for k in range(1, len(lines))]
        if quote == 3:
            if len(lines) > 1 and lines[0] == "":
                lines, starts = lines[1:], starts[1:]
            cut = min((len(ln) - len(ln.lstrip(" ")) for ln in lines if ln.strip()), default=0)
            starts = [(ln_no, col + min(cut, len(ln))) for (ln_no, col), ln in zip(starts, lines, strict=True)]
            lines = [ln[cut:] for ln in lines]
            lines[-1] = lines[-1].rstrip(" ")
        parts: list[str | n.Expr] = []
        buf = ""
        for k, (text, (line_no, col0)) in enumerate(zip(lines, starts, strict=True)):
            if k:
                buf += "\n"
            i = 0
            while i < len(text):
                ch = text[i]
                if ch == "\\" and i + 1 < len(text):
                    buf += {"n": "\n", "t": "\t"}.get(text[i + 1], text[i + 1])
                    i += 2
                elif text.startswith("{{", i) or text.startswith("}}", i):
                    buf += ch
                    i += 2
                elif ch == "{":
                    end = _closing_brace(text, i)
                    if end < 0:
                        self.errors.append(Diagnostic(Span(span.file, line_no, col0 + i, line_no, col0 + i + 1),
                                                      "E0104", "unclosed `{` in text",
                                                      help="close it with `}`, or write `{{` for a literal brace"))
                        buf += text[i:]
                        break
                    if buf:
                        parts.append(buf)
                        buf = ""
                    inner = text[i + 1:end]
                    if "{" in _unquoted(inner):
                        self.errors.append(Diagnostic(Span(span.file, line_no, col0 + i, line_no, col0 + i + 1),
                                                      "E0104", "this `{` is not closed before the next `{`",
                                                      help="close it with `}`, or write `{{` for a literal brace"))
                        return n.Text(span, ("",))
                    where = Span(span.file, line_no, col0 + i, line_no, col0 + end + 1)
                    parts.append(self._sub_expr(inner, line_no, col0 + i + 1, where))
                    i = end + 1
                else:
                    buf += ch
                    i += 1
        if buf or not parts:
            parts.append(buf)
        return n.Text(span, tuple(parts))

    def _sub_expr(self, text: str, line: int, col: int, whole: Span) -> n.Expr:
        sub = Source(self.source.name, text)
        try:
            tree = _lark().parse(text, start="expr")
        except UnexpectedInput as err:
            what, where, hint = "", whole, None
            if isinstance(err, UnexpectedToken) and err.token.type != "$END":
                what = f": unexpected `{err.token}`"
                where = _shift(Span(sub.name, err.line, err.column, err.line, err.column + len(str(err.token))),
                               line - 1, col - 1, self.source.name)
                accepts = set(err.accepts or err.expected) - {"$END"}
                hint = f"expected {_describe(accepts)}" if accepts else None
            elif isinstance(err, (UnexpectedToken, UnexpectedEOF)):
                what = ": it stops too early" if text.strip() else ": it is empty"
            self.errors.append(Diagnostic(where, "E0105", f"`{{{text}}}` in this text is not an expression{what}",
                                          help=hint or "inside `{...}` write a name or an expression, like "
                                                       "`{country.name}`; `{{` gives a literal brace"))
            return n.Text(whole, ("",))
        inner = _Builder(sub, self.errors).transform(tree)
        return _shift(inner, line - 1, col - 1, self.source.name)

    # -- top level
    @v_args(meta=True)
    def start(self, meta: Any, decls: list[n.Decl]) -> n.Module:
        return n.Module(self.span(meta), self.source.name, tuple(decls))

    # -- variants
    @v_args(meta=True, inline=True)
    def extends_decl(self, meta: Any, path: Token) -> n.ExtendsDecl:
        return n.ExtendsDecl(self.span(meta), _unquote(str(path)), self.tspan(path), name_span=self.tspan(path))

    @v_args(meta=True, inline=True)
    def override_decl(self, meta: Any, decl: n.Decl) -> n.OverrideDecl:
        return n.OverrideDecl(self.span(meta), decl.name, decl, name_span=decl.name_span)

    @v_args(meta=True, inline=True)
    def override_rows(self, meta: Any, name: Token, *rows: n.DataRow) -> n.OverrideRows:
        return n.OverrideRows(self.span(meta), str(name), tuple(rows), name_span=self.tspan(name))

    @v_args(meta=True, inline=True)
    def remove_decl(self, meta: Any, kind: Token, name: Token) -> n.RemoveDecl:
        return n.RemoveDecl(self.span(meta), str(name), str(kind), name_span=self.tspan(name))

    @v_args(meta=True, inline=True)
    def remove_row(self, meta: Any, thing: Token, key: Token) -> n.RemoveDecl:
        return n.RemoveDecl(self.span(meta), str(thing), "row", str(key), self.tspan(key), name_span=self.tspan(thing))

    @v_args(meta=True, inline=True)
    def remove_report_field(self, meta: Any, name: Token) -> n.RemoveDecl:
        return n.RemoveDecl(self.span(meta), str(name), "report field", name_span=self.tspan(name))

    @v_args(inline=True)
    def removable(self, tok: Token) -> Token:
        return tok

    @v_args(meta=True, inline=True)
    def ruleset_decl(self, meta: Any, title: Token, *settings: n.Setting) -> n.RulesetDecl:
        return n.RulesetDecl(self.span(meta), _unquote(str(title)), tuple(settings))

    @v_args(meta=True, inline=True)
    def setting(self, meta: Any, name: Token, value: Token) -> n.Setting:
        raw = str(value)
        # Settings are plain values: `game "CO-{number}"` keeps its braces for the engine.
        v: int | Fraction | str = _unquote(raw) if raw.startswith('"') else _number(raw) if raw[0].isdigit() else raw
        return n.Setting(self.span(meta), str(name), v)

    @v_args(meta=True, inline=True)
    def param_decl(self, meta: Any, name: Token, ty: n.TypeRef, default: n.Expr) -> n.ParamDecl:
        return n.ParamDecl(self.span(meta), str(name), ty, default, False, name_span=self.tspan(name))

    @v_args(meta=True, inline=True)
    def secret_param_decl(self, meta: Any, name: Token, ty: n.TypeRef, default: n.Expr) -> n.ParamDecl:
        return n.ParamDecl(self.span(meta), str(name), ty, default, True, name_span=self.tspan(name))

    @v_args(meta=True, inline=True)
    def thing_decl(self, meta: Any, name: Token, key: Token, *fields: n.FieldDecl) -> n.ThingDecl:
        return n.ThingDecl(self.span(meta), str(name), str(key), tuple(fields), name_span=self.tspan(name))

    @v_args(meta=True, inline=True)
    def grid_decl(self, meta: Any, name: Token, *items: Any) -> n.GridDecl:
        size: tuple[int | str, int | str, Span] | None = None
        numbered: tuple[str, Span] | None = None
        twice: list[tuple[str, Span]] = []
        wraps: list[tuple[str, str, Span]] = []
        draws: list[tuple[str, str, Span]] = []
        fields: list[n.FieldDecl] = []
        for kind, *rest in (i if isinstance(i, tuple) else ("field", i) for i in items):
            if kind == "size":
                if size is not None:
                    twice.append(("size", rest[2]))
                else:
                    size = (rest[0], rest[1], rest[2])
            elif kind == "numbered":
                if numbered is not None:
                    twice.append(("numbered", rest[1]))
                else:
                    numbered = (rest[0], rest[1])
            elif kind == "wrap":
                wraps.append((rest[0], rest[1], rest[2]))
            elif kind == "draw":
                draws.append((rest[0], rest[1], rest[2]))
            else:
                fields.append(rest[0])
        return n.GridDecl(self.span(meta), str(name), size[0] if size else None, size[1] if size else None,
                          size[2] if size else None, tuple(wraps), numbered[0] if numbered else None,
                          numbered[1] if numbered else None, tuple(draws), tuple(fields), tuple(twice),
                          name_span=self.tspan(name))

    @v_args(meta=True, inline=True)
    def grid_size(self, meta: Any, w: int | str, h: int | str) -> tuple[Any, ...]:
        return ("size", w, h, self.span(meta))

    @v_args(inline=True)
    def grid_dim(self, tok: Token) -> int | str:
        return int(str(tok)) if tok.type == "NUMBER" and str(tok).isdigit() else str(tok)

    @v_args(meta=True, inline=True)
    def grid_wrap(self, meta: Any, a: Token, b: Token) -> tuple[Any, ...]:
        return ("wrap", str(a), str(b), self.span(meta))

    @v_args(meta=True, inline=True)
    def grid_numbered(self, meta: Any, pattern: Token) -> tuple[Any, ...]:
        return ("numbered", _unquote(str(pattern)), self.span(meta))

    @v_args(meta=True, inline=True)
    def grid_draw(self, meta: Any, fld: Token, symbol: Token) -> tuple[Any, ...]:
        return ("draw", str(fld), str(symbol), self.span(meta))

    @v_args(meta=True, inline=True)
    def numbered_thing_decl(self, meta: Any, name: Token, per_owner: Any, *fields: n.FieldDecl) -> n.ThingDecl:
        return n.ThingDecl(self.span(meta), str(name), "", tuple(fields),
                           "owner" if per_owner is not None else "global", name_span=self.tspan(name),
                           ownerless=per_owner == "or none")

    def per_owner(self, children: list[Any]) -> str:
        return "or none" if children and children[0] is not None else "per owner"

    def or_none(self, _: list[Any]) -> bool:
        return True

    def indexed(self, _: list[Any]) -> bool:
        return True

    @v_args(meta=True, inline=True)
    def player_decl(self, meta: Any, *fields: n.FieldDecl) -> n.PlayerDecl:
        return n.PlayerDecl(self.span(meta), "Player", tuple(fields))

    @v_args(meta=True, inline=True)
    def world_decl(self, meta: Any, name: Token, *fields: n.FieldDecl) -> n.WorldDecl:
        if str(name) != "world":
            self.errors.append(Diagnostic(self.tspan(name), "E0103", f"unexpected `{name}`: {_DECL_START}",
                                          help=f"expected {_DECL_KEYWORDS}"))
        return n.WorldDecl(self.span(meta), "world", tuple(fields))

    @v_args(meta=True, inline=True)
    def field_decl(self, meta: Any, name: Token, ty: n.TypeRef, indexed: Any, scenario: Any,
                   default: n.Expr | None, where: n.Expr | None, reset: Any) -> n.FieldDecl:
        return n.FieldDecl(self.span(meta), str(name), ty, default, reset is not None,
                           from_scenario=scenario is not None, where=where, indexed=indexed is not None)

    @v_args(inline=True)
    def field_where(self, cond: n.Expr) -> n.Expr:
        return cond

    def reset(self, _: list[Any]) -> bool:
        return True

    def from_scenario(self, _: list[Any]) -> bool:
        return True

    # -- types
    @v_args(meta=True, inline=True)
    def base_type(self, meta: Any, name: Token) -> n.NamedType:
        return n.NamedType(self.span(meta), str(name))

    @v_args(meta=True, inline=True)
    def optional_type(self, meta: Any, inner: n.TypeRef) -> n.OptionalType:
        return n.OptionalType(self.span(meta), inner)

    @v_args(meta=True, inline=True)
    def list_type(self, meta: Any, item: n.TypeRef) -> n.ListType:
        return n.ListType(self.span(meta), item)

    @v_args(meta=True, inline=True)
    def set_type(self, meta: Any, item: n.TypeRef) -> n.SetType:
        return n.SetType(self.span(meta), item)

    @v_args(meta=True, inline=True)
    def map_type(self, meta: Any, key: n.TypeRef, value: n.TypeRef) -> n.MapType:
        return n.MapType(self.span(meta), key, value)

    # -- data
    def name_list(self, names: list[Token]) -> list[Token]:
        return names

    @v_args(meta=True, inline=True)
    def data_decl(self, meta: Any, name: Token, cols: list[Token], *rows: n.DataRow) -> n.DataDecl:
        first, last = cols[0], cols[-1]
        cspan = Span(self.source.name, first.line or 0, first.column or 0,
                     last.end_line or 0, last.end_column or 0)
        return n.DataDecl(self.span(meta), str(name), tuple(str(c) for c in cols), cspan, tuple(rows),
                          tuple(self.tspan(c) for c in cols))

    @v_args(meta=True, inline=True)
    def data_row(self, meta: Any, key: Token, *values: n.Expr) -> n.DataRow:
        return n.DataRow(self.span(meta), str(key), tuple(values))

    @v_args(meta=True, inline=True)
    def links_decl(self, meta: Any, thing: Token, fld: Token, *rows: n.LinkRow) -> n.LinksDecl:
        return n.LinksDecl(self.span(meta), str(thing), str(fld), self.tspan(fld), tuple(rows))

    @v_args(meta=True, inline=True)
    def link_row(self, meta: Any, key: Token, *targets: Token) -> n.LinkRow:
        return n.LinkRow(self.span(meta), str(key), tuple((str(t), self.tspan(t)) for t in targets))

    # -- tables
    @v_args(meta=True, inline=True)
    def table_decl(self, meta: Any, name: Token, params: list[n.Param], result: n.TypeRef,
                   weighted: Any, *rows: n.TableRow) -> n.TableDecl:
        return n.TableDecl(self.span(meta), str(name), tuple(params), result, weighted is not None,
                           tuple(rows), name_span=self.tspan(name))

    def weighted(self, _: list[Any]) -> bool:
        return True

    def table_params(self, params: list[n.Param]) -> list[n.Param]:
        return [p for p in params if p is not None]

    @v_args(meta=True)
    def table_row(self, meta: Any, items: list[Any]) -> n.TableRow:
        *keys, value = items
        return n.TableRow(self.span(meta), tuple(keys), value)

    @v_args(meta=True, inline=True)
    def key_exact(self, meta: Any, e: n.Expr) -> n.RowKey:
        return n.RowKey(self.span(meta), "exact", e, None)

    @v_args(meta=True, inline=True)
    def key_below(self, meta: Any, e: n.Expr) -> n.RowKey:
        return n.RowKey(self.span(meta), "below", None, e)

    @v_args(meta=True, inline=True)
    def key_from(self, meta: Any, e: n.Expr) -> n.RowKey:
        return n.RowKey(self.span(meta), "from", e, None)

    @v_args(meta=True, inline=True)
    def key_from_below(self, meta: Any, lo: n.Expr, hi: n.Expr) -> n.RowKey:
        return n.RowKey(self.span(meta), "from_below", lo, hi)

    @v_args(meta=True, inline=True)
    def key_to(self, meta: Any, lo: n.Expr, hi: n.Expr) -> n.RowKey:
        return n.RowKey(self.span(meta), "to", lo, hi)

    @v_args(inline=True)
    def key_weight(self, tok: Token) -> n.RowKey:
        return n.RowKey(self.tspan(tok), "weight", None, None, Fraction(str(tok)[:-1]))

    @v_args(inline=True)
    def key_param_weight(self, tok: Token) -> n.RowKey:
        span = self.tspan(tok)
        name = Span(span.file, span.line, span.col, span.end_line, span.end_col - 1)
        return n.RowKey(span, "weight", n.Name(name, str(tok)[:-1]), None, None)

    # -- functions
    @v_args(meta=True, inline=True)
    def param(self, meta: Any, name: Token, ty: n.TypeRef) -> n.Param:
        return n.Param(self.span(meta), str(name), ty)

    def params(self, ps: list[n.Param]) -> list[n.Param]:
        return ps

    @v_args(meta=True, inline=True)
    def define_decl(self, meta: Any, name: Token, params: list[n.Param] | None,
                    result: n.TypeRef | None, body: n.Expr) -> n.DefineDecl:
        return n.DefineDecl(self.span(meta), str(name), tuple(params or ()), result, body,
                            name_span=self.tspan(name))

    @v_args(meta=True, inline=True)
    def procedure_decl(self, meta: Any, name: Token, params: list[n.Param] | None, result: n.TypeRef | None,
                       body: tuple[n.Stmt, ...]) -> n.ProcedureDecl:
        return n.ProcedureDecl(self.span(meta), str(name), tuple(params or ()), body, result,
                               name_span=self.tspan(name))

    # -- orders
    @v_args(meta=True, inline=True)
    def orders_decl(self, meta: Any, *settings: n.OrdersSetting) -> n.OrdersDecl:
        return n.OrdersDecl(self.span(meta), "orders", tuple(settings))

    @v_args(meta=True, inline=True)
    def set_header(self, meta: Any, *lines: Token) -> n.OrdersSetting:
        return n.OrdersSetting(self.span(meta), "header", strings=tuple(_unquote(str(t)) for t in lines))

    @v_args(meta=True, inline=True)
    def set_budget(self, meta: Any, name: Token, start: n.Expr, plus: n.Expr) -> n.OrdersSetting:
        return n.OrdersSetting(self.span(meta), "budget", name=str(name), exprs=(start, plus))

    @v_args(meta=True, inline=True)
    def set_limit(self, meta: Any, e: n.Expr) -> n.OrdersSetting:
        return n.OrdersSetting(self.span(meta), "limit", exprs=(e,))

    @v_args(meta=True, inline=True)
    def set_new_limit(self, meta: Any, e: n.Expr) -> n.OrdersSetting:
        return n.OrdersSetting(self.span(meta), "new_limit", exprs=(e,))

    @v_args(meta=True, inline=True)
    def set_group_limit(self, meta: Any, e: n.Expr, group: Token, reason: Token) -> n.OrdersSetting:
        return n.OrdersSetting(self.span(meta), "group", name=str(group), exprs=(e,), reason=self.text(reason))

    @v_args(meta=True, inline=True)
    def set_later_mail(self, meta: Any, how: Token) -> n.OrdersSetting:
        return n.OrdersSetting(self.span(meta), "later_mail", name=str(how))

    @v_args(meta=True, inline=True)
    def set_pay(self, meta: Any, name: Token) -> n.OrdersSetting:
        return n.OrdersSetting(self.span(meta), "pay", name=str(name))

    def _order(self, meta: Any, kind: str, name: Token, pattern: Token, items: tuple[Any, ...],
               world: Token | None = None) -> n.OrderDecl:
        if world is not None and str(world) != "world":
            self.errors.append(Diagnostic(self.tspan(world), "E0103", f"unexpected `{world}`: {_DECL_START}",
                                          help=f"expected {_DECL_KEYWORDS}"))
            world = None
        args = tuple(i for i in items if isinstance(i, n.ArgDecl))
        valids = tuple(i[1] for i in items if isinstance(i, tuple) and i[0] == "valid")
        requires = tuple(i[1] for i in items if isinstance(i, tuple) and i[0] == "require")
        onces = [i[1] for i in items if isinstance(i, tuple) and i[0] == "once"]
        standings = [i[1] for i in items if isinstance(i, tuple) and i[0] == "standing"]
        costs = [i[1] for i in items if isinstance(i, tuple) and i[0] == "cost"]
        effects = [i[1] for i in items if isinstance(i, tuple) and i[0] == "effect"]
        counts = tuple(i[1] for i in items if isinstance(i, tuple) and i[0] == "counts")
        ends = [i[1] for i in items if isinstance(i, tuple) and i[0] == "ends"]
        for extra in costs[1:]:
            self.errors.append(Diagnostic(extra.span, "E0106", "an order has at most one `cost`",
                                          help="add the amounts up in one `cost` line"))
        for extra in effects[1:]:
            self.errors.append(Diagnostic(extra[0].span if extra else self.span(meta), "E0106",
                                          "an order has at most one `effect` block"))
        for extra in ends[1:]:
            self.errors.append(Diagnostic(extra.span, "E0106", "an order has at most one `ends turn`",
                                          help="join the conditions with `or` in one `ends turn when ...`"))
        for extra in standings[1:]:
            self.errors.append(Diagnostic(extra.span, "E0106", "an order has at most one `standing` line",
                                          help="join the conditions with `or` in one `standing ... until ...`"))
        return n.OrderDecl(self.span(meta), str(name), kind, _unquote(str(pattern)), self.tspan(pattern),
                           args, valids, requires, tuple(o[0] for o in onces), costs[0] if costs else None,
                           effects[0] if effects else None, counts, ends[0] if ends else None,
                           tuple(o[1] for o in onces), standings[0] if standings else None,
                           name_span=self.tspan(name),
                           only_in=tuple(k for i in items if isinstance(i, tuple) and i[0] == "only" for k in i[1]),
                           world_span=self.tspan(world) if world is not None else None,
                           defaults=tuple(i for i in items if isinstance(i, n.OrderDefault)))

    @v_args(meta=True, inline=True)
    def order_decl(self, meta: Any, name: Token, pattern: Token, *items: Any) -> n.OrderDecl:
        return self._order(meta, "game", name, pattern, items)

    @v_args(meta=True, inline=True)
    def personal_order_decl(self, meta: Any, name: Token, pattern: Token, *items: Any) -> n.OrderDecl:
        return self._order(meta, "personal", name, pattern, items)

    @v_args(meta=True, inline=True)
    def gm_order_decl(self, meta: Any, name: Token, pattern: Token, *items: Any) -> n.OrderDecl:
        return self._order(meta, "gm", name, pattern, items)

    @v_args(meta=True, inline=True)
    def gm_world_order_decl(self, meta: Any, world: Token, name: Token, pattern: Token, *items: Any) -> n.OrderDecl:
        return self._order(meta, "gm", name, pattern, items, world)

    @v_args(meta=True, inline=True)
    def order_default(self, meta: Any, kinds: Kinds | None, body: tuple[n.Stmt, ...]) -> n.OrderDefault:
        return n.OrderDefault(self.span(meta), kinds or (), body)

    @v_args(meta=True, inline=True)
    def stop_order_decl(self, meta: Any, name: Token, pattern: Token) -> n.OrderDecl:
        return self._order(meta, "stop", name, pattern, ())

    @v_args(meta=True, inline=True)
    def discard_order_decl(self, meta: Any, name: Token, pattern: Token) -> n.OrderDecl:
        return self._order(meta, "discard", name, pattern, ())

    @v_args(meta=True, inline=True)
    def order_arg(self, meta: Any, name: Token, ty: Any) -> n.ArgDecl:
        if isinstance(ty, n.ArgDecl):
            return n.ArgDecl(self.span(meta), str(name), ty.type, ty.low, ty.high, ty.digits, ty.spaced)
        return n.ArgDecl(self.span(meta), str(name), ty)

    @v_args(meta=True, inline=True)
    def spaced_arg(self, meta: Any, ty: n.TypeRef) -> n.ArgDecl:
        return n.ArgDecl(self.span(meta), "", ty, spaced=True)

    @v_args(meta=True, inline=True)
    def range_arg(self, meta: Any, lo: n.Expr, hi: n.Expr) -> n.ArgDecl:
        return n.ArgDecl(self.span(meta), "", None, lo, hi)

    @v_args(meta=True, inline=True)
    def min_arg(self, meta: Any, lo: n.Expr) -> n.ArgDecl:
        return n.ArgDecl(self.span(meta), "", None, lo, None)

    @v_args(meta=True, inline=True)
    def typed_min_arg(self, meta: Any, ty: n.TypeRef, lo: n.Expr) -> n.ArgDecl:
        return n.ArgDecl(self.span(meta), "", ty, lo, None)

    @v_args(meta=True, inline=True)
    def typed_range_arg(self, meta: Any, ty: n.TypeRef, lo: n.Expr, hi: n.Expr) -> n.ArgDecl:
        return n.ArgDecl(self.span(meta), "", ty, lo, hi)

    @v_args(meta=True, inline=True)
    def digits_arg(self, meta: Any, lo: n.Expr, hi: n.Expr) -> n.ArgDecl:
        return n.ArgDecl(self.span(meta), "", None, lo, hi, digits=True)

    @v_args(meta=True, inline=True)
    def order_valid(self, meta: Any, cond: n.Expr, msg: Token) -> tuple[str, n.Condition]:
        return ("valid", n.Condition(self.span(meta), cond, self.text(msg)))

    @v_args(meta=True, inline=True)
    def order_require(self, meta: Any, cond: n.Expr, msg: Token) -> tuple[str, n.Condition]:
        return ("require", n.Condition(self.span(meta), cond, self.text(msg)))

    @v_args(inline=True)
    def order_once(self, name: Token, shared: Token | None = None
                   ) -> tuple[str, tuple[tuple[str, Span], tuple[str, Span] | None]]:
        return ("once", ((str(name), self.tspan(name)), (str(shared), self.tspan(shared)) if shared else None))

    @v_args(meta=True, inline=True)
    def order_standing(self, meta: Any, per: Token | None, shared: Token | None,
                       until: n.Expr | None) -> tuple[str, n.Standing]:
        return ("standing", n.Standing(self.span(meta), (str(per), self.tspan(per)) if per else None, until,
                                       (str(shared), self.tspan(shared)) if shared else None))

    @v_args(inline=True)
    def order_counts(self, name: Token) -> tuple[str, tuple[str, Span]]:
        return ("counts", (str(name), self.tspan(name)))

    @v_args(meta=True, inline=True)
    def order_ends(self, meta: Any, when: n.Expr | None) -> tuple[str, n.EndsTurn]:
        return ("ends", n.EndsTurn(self.span(meta), when))

    @v_args(inline=True)
    def order_cost(self, e: n.Expr) -> tuple[str, n.Expr]:
        return ("cost", e)

    @v_args(inline=True)
    def order_effect(self, body: tuple[n.Stmt, ...]) -> tuple[str, tuple[n.Stmt, ...]]:
        return ("effect", body)

    # -- phases, reports, victory
    @v_args(meta=True, inline=True)
    def phase_run(self, meta: Any, name: Token, kinds: Kinds | None, when: n.Expr | None,
                  run: n.Run) -> n.PhaseDecl:
        return n.PhaseDecl(self.span(meta), str(name), when, (run,), kinds=kinds or ())

    @v_args(meta=True, inline=True)
    def phase_decl(self, meta: Any, name: Token, time: str | None, kinds: Kinds | None, when: n.Expr | None,
                   body: tuple[n.Stmt, ...]) -> n.PhaseDecl:
        return n.PhaseDecl(self.span(meta), str(name), when, body, time == "before", time == "start",
                           kinds=kinds or ())

    def turn_kinds(self, names: list[Token]) -> Kinds:
        return tuple((str(t), self.tspan(t)) for t in names)

    @v_args(inline=True)
    def order_only(self, kinds: Kinds) -> tuple[str, Kinds]:
        return ("only", kinds)

    @v_args(meta=True, inline=True)
    def calendar_decl(self, meta: Any, year: Token, start: Token | None, *rest: Any) -> n.CalendarDecl:
        kinds = tuple((str(t), self.tspan(t)) for t in rest if isinstance(t, Token))
        rows = tuple(r for r in rest if isinstance(r, n.CycleRow))
        return n.CalendarDecl(self.span(meta), "calendar", int(float(str(year))),
                              (str(start), self.tspan(start)) if start is not None else None, kinds, rows)

    @v_args(meta=True, inline=True)
    def cycle_row(self, meta: Any, first: Token, last: Token | None, *kinds: Token) -> n.CycleRow:
        return n.CycleRow(self.span(meta), (str(first), self.tspan(first)),
                          (str(last), self.tspan(last)) if last is not None else None,
                          tuple((str(k), self.tspan(k)) for k in kinds))

    def before_orders(self, _: list[Any]) -> str:
        return "before"

    def at_start(self, _: list[Any]) -> str:
        return "start"

    @v_args(meta=True, inline=True)
    def report_decl(self, meta: Any, *items: Any) -> n.ReportDecl:
        fields = tuple(i for i in items if isinstance(i, n.ReportField))
        templates = [i for i in items if isinstance(i, tuple) and i[0] == "template"]
        pages = [i for i in items if isinstance(i, tuple) and i[0] == "html"]
        tpl, tspan = (templates[0][1:] if templates else (None, None))
        html, hspan = (pages[0][1:] if pages else (None, None))
        for kind, extras in (("template", templates[1:]), ("html", pages[1:])):
            for extra in extras:
                self.errors.append(Diagnostic(extra[2], "E0106", f"a report has one `{kind}`"))
        return n.ReportDecl(self.span(meta), "report", fields, tpl, tspan, html, hspan)

    @v_args(inline=True)
    def report_name(self, tok: Token) -> Token:
        return tok

    @v_args(inline=True)
    def group_name(self, tok: Token) -> Token:
        return tok

    @v_args(meta=True, inline=True)
    def report_field(self, meta: Any, name: Token, value: n.Expr) -> n.ReportField:
        return n.ReportField(self.span(meta), str(name), value)

    @v_args(inline=True)
    def report_template(self, tok: Token) -> tuple[str, str, Span]:
        return ("template", _unquote(str(tok)), self.tspan(tok))

    @v_args(inline=True)
    def report_html(self, tok: Token) -> tuple[str, str, Span]:
        return ("html", _unquote(str(tok)), self.tspan(tok))

    @v_args(meta=True, inline=True)
    def victory_decl(self, meta: Any, name: Token, var: Token, when: n.Expr, held: n.Expr | None,
                     warn: n.Text | None) -> n.VictoryDecl:
        return n.VictoryDecl(self.span(meta), str(name), str(var), when, held, warn)

    @v_args(inline=True)
    def held(self, e: n.Expr) -> n.Expr:
        return e

    @v_args(inline=True)
    def warn(self, tok: Token) -> n.Text:
        return self.text(tok)

    # -- simulation
    @v_args(meta=True, inline=True)
    def simulation_decl(self, meta: Any, *items: n.SimItem) -> n.SimulationDecl:
        return n.SimulationDecl(self.span(meta), "simulation", tuple(items))

    @v_args(meta=True, inline=True)
    def sim_weight(self, meta: Any, order: Token, weight: tuple[int | Fraction, Span]) -> n.SimWeight:
        return n.SimWeight(self.span(meta), str(order), self.tspan(order), weight[0], weight[1])

    @v_args(meta=True)
    def sim_number(self, meta: Any, items: list[Token]) -> tuple[int | Fraction, Span]:
        value = _number(str(items[-1]))
        return (-value if len(items) > 1 else value), self.span(meta)

    @v_args(meta=True, inline=True)
    def sim_choose(self, meta: Any, order: Token, arg: Token, options: n.Expr) -> n.SimChoose:
        return n.SimChoose(self.span(meta), str(order), self.tspan(order), str(arg), self.tspan(arg), options)

    @v_args(meta=True, inline=True)
    def sim_invariant(self, meta: Any, name: Token, value: n.Expr, unchanged: bool | None) -> n.SimInvariant:
        return n.SimInvariant(self.span(meta), str(name), self.tspan(name), value, bool(unchanged))

    def sim_unchanged(self, _: list[Any]) -> bool:
        return True

    @v_args(inline=True)
    def sim_unless(self, cond: n.Expr) -> n.Expr:
        return cond

    @v_args(meta=True, inline=True)
    def sim_hidden(self, meta: Any, owner: Token, fld: Token, viewer: Token, unless: n.Expr | None) -> n.SimHidden:
        return n.SimHidden(self.span(meta), self._named(owner), self._named(fld), self._named(viewer), unless)

    @v_args(meta=True, inline=True)
    def sim_hidden_keyed(self, meta: Any, obj: Token, fld: Token, owner: Token, var: Token, thing: Token,
                         viewer: Token, unless: n.Expr | None) -> n.SimHidden:
        return n.SimHidden(self.span(meta), self._named(owner), self._named(fld), self._named(viewer), unless,
                           self._named(obj), self._named(var), self._named(thing))

    def _named(self, tok: Token) -> tuple[str, Span]:
        return str(tok), self.tspan(tok)

    # -- statements
    def block(self, stmts: list[n.Stmt]) -> tuple[n.Stmt, ...]:
        return tuple(stmts)

    @v_args(meta=True, inline=True)
    def let_stmt(self, meta: Any, name: Token, value: n.Expr) -> n.Let:
        return n.Let(self.span(meta), str(name), value, self.tspan(name))

    @v_args(meta=True, inline=True)
    def assign_stmt(self, meta: Any, target: n.Expr, value: n.Expr) -> n.Assign:
        return n.Assign(self.span(meta), target, "=", value)

    @v_args(meta=True, inline=True)
    def add_assign_stmt(self, meta: Any, target: n.Expr, value: n.Expr) -> n.Assign:
        return n.Assign(self.span(meta), target, "+=", value)

    @v_args(meta=True, inline=True)
    def sub_assign_stmt(self, meta: Any, target: n.Expr, value: n.Expr) -> n.Assign:
        return n.Assign(self.span(meta), target, "-=", value)

    @v_args(meta=True)
    def if_stmt(self, meta: Any, items: list[Any]) -> n.If:
        branches = []
        i = 0
        while i + 1 < len(items):
            branches.append((items[i], items[i + 1]))
            i += 2
        otherwise = items[i] if i < len(items) else None
        return n.If(self.span(meta), tuple(branches), otherwise)

    @v_args(meta=True, inline=True)
    def for_stmt(self, meta: Any, var: Token, source: n.Expr, where: n.Expr | None,
                 by: tuple[n.Expr, bool, Span] | None, body: tuple[n.Stmt, ...]) -> n.For:
        return n.For(self.span(meta), str(var), source, where, by[0] if by else None,
                     by[1] if by else False, body, by[2] if by else None)

    @v_args(meta=True, inline=True)
    def count_range(self, meta: Any, low: n.Expr, high: n.Expr) -> n.CountRange:
        return n.CountRange(self.span(meta), low, high)

    @v_args(meta=True, inline=True)
    def call_stmt(self, meta: Any, name: Token, args: list[n.Expr] | None) -> n.CallStmt:
        return n.CallStmt(self.span(meta), str(name), tuple(args or ()))

    @v_args(meta=True, inline=True)
    def run_stmt(self, meta: Any, run: n.Run) -> n.Run:
        return dataclasses.replace(run, span=self.span(meta))

    @v_args(meta=True)
    def run_list(self, meta: Any, items: list[Token | None]) -> n.Run:
        """The orders a `run` names; the span is the list's own (`phase x: run a` points at `a`)."""
        *names, together = items
        named = tuple((str(t), self.tspan(t)) for t in names if t is not None)
        return n.Run(self.span(meta), named[0][0], named, together is not None)

    @v_args(meta=True, inline=True)
    def halt_stmt(self, meta: Any, tok: Token) -> n.Halt:
        return n.Halt(self.span(meta), self.text(tok))

    @v_args(meta=True, inline=True)
    def news_stmt(self, meta: Any, tok: Token) -> n.News:
        return n.News(self.span(meta), self.text(tok))

    @v_args(meta=True, inline=True)
    def tell_stmt(self, meta: Any, who: n.Expr, tok: Token) -> n.Tell:
        return n.Tell(self.span(meta), who, self.text(tok))

    @v_args(meta=True, inline=True)
    def add_stmt(self, meta: Any, value: n.Expr, target: n.Expr) -> n.Add:
        return n.Add(self.span(meta), value, target)

    @v_args(meta=True, inline=True)
    def remove_stmt(self, meta: Any, value: n.Expr, target: n.Expr) -> n.Remove:
        return n.Remove(self.span(meta), value, target)

    @v_args(meta=True, inline=True)
    def clear_stmt(self, meta: Any, target: n.Expr) -> n.Clear:
        return n.Clear(self.span(meta), target)

    @v_args(meta=True, inline=True)
    def new_stmt(self, meta: Any, value: n.New) -> n.NewStmt:
        return n.NewStmt(self.span(meta), value)

    @v_args(meta=True, inline=True)
    def destroy_stmt(self, meta: Any, target: n.Expr) -> n.Destroy:
        return n.Destroy(self.span(meta), target)

    @v_args(meta=True, inline=True)
    def new_thing(self, meta: Any, name: Token, *items: tuple[str, Span, n.Expr] | None) -> n.New:
        return n.New(self.span(meta), str(name), self.tspan(name), tuple(i for i in items if i is not None))

    @v_args(inline=True)
    def new_item(self, name: Token, value: n.Expr) -> tuple[str, Span, n.Expr]:
        return (str(name), self.tspan(name), value)

    @v_args(meta=True, inline=True)
    def while_stmt(self, meta: Any, cond: n.Expr, body: tuple[n.Stmt, ...]) -> n.While:
        return n.While(self.span(meta), cond, body)

    @v_args(meta=True, inline=True)
    def return_stmt(self, meta: Any, value: n.Expr | None) -> n.Return:
        return n.Return(self.span(meta), value)

    @v_args(meta=True)
    def break_stmt(self, meta: Any, _: list[Any]) -> n.Break:
        return n.Break(self.span(meta))

    @v_args(meta=True)
    def skip_stmt(self, meta: Any, _: list[Any]) -> n.Skip:
        return n.Skip(self.span(meta))

    @v_args(meta=True, inline=True)
    def fail_stmt(self, meta: Any, tok: Token) -> n.Fail:
        return n.Fail(self.span(meta), self.text(tok))

    @v_args(meta=True, inline=True)
    def overrule_stmt(self, meta: Any, order: n.Expr, tok: Token) -> n.Overrule:
        return n.Overrule(self.span(meta), order, self.text(tok))

    @v_args(inline=True)
    def where(self, e: n.Expr) -> n.Expr:
        return e

    @v_args(meta=True, inline=True)
    def order_by(self, meta: Any, e: n.Expr, desc: Any = None) -> tuple[n.Expr, bool, Span]:
        return (e, desc is not None, self.span(meta))

    def descending(self, _: list[Any]) -> bool:
        return True

    # -- expressions
    @v_args(meta=True, inline=True)
    def cond_expr(self, meta: Any, c: n.Expr, a: n.Expr, b: n.Expr) -> n.CondExpr:
        return n.CondExpr(self.span(meta), c, a, b)

    def _bin(op: str) -> Any:  # type: ignore[misc]
        @v_args(meta=True, inline=True)
        def build(self: _Builder, meta: Any, left: n.Expr, right: n.Expr) -> n.BinOp:
            return n.BinOp(self.span(meta), op, left, right)
        return build

    or_op = _bin("or")
    and_op = _bin("and")
    eq = _bin("==")
    ne = _bin("!=")
    lt = _bin("<")
    le = _bin("<=")
    gt = _bin(">")
    ge = _bin(">=")
    in_op = _bin("in")
    not_in_op = _bin("not in")
    add = _bin("+")
    sub = _bin("-")
    mul = _bin("*")
    div = _bin("/")
    intdiv = _bin("div")
    mod = _bin("%")

    @v_args(meta=True, inline=True)
    def not_op(self, meta: Any, e: n.Expr) -> n.UnaryOp:
        return n.UnaryOp(self.span(meta), "not", e)

    @v_args(meta=True, inline=True)
    def neg(self, meta: Any, e: n.Expr) -> n.Expr:
        if isinstance(e, n.Number):
            return n.Number(self.span(meta), -e.value)
        return n.UnaryOp(self.span(meta), "-", e)

    @v_args(meta=True, inline=True)
    def attr(self, meta: Any, obj: n.Expr, name: Token) -> n.Attr:
        return n.Attr(self.span(meta), obj, str(name), self.tspan(name))

    @v_args(meta=True, inline=True)
    def index(self, meta: Any, obj: n.Expr, idx: n.Expr) -> n.Index:
        return n.Index(self.span(meta), obj, idx)

    @v_args(meta=True, inline=True)
    def call(self, meta: Any, name: Token, args: list[n.Expr] | None) -> n.Call:
        return n.Call(self.span(meta), str(name), self.tspan(name), tuple(args or ()))

    def args(self, items: list[n.Expr]) -> list[n.Expr]:
        return items

    @v_args(meta=True, inline=True)
    def comprehension(self, meta: Any, name: Token, body: n.Expr, var: Token, source: n.Expr,
                      where: n.Expr | None, by: tuple[n.Expr, bool, Span] | None) -> n.Comprehension:
        return n.Comprehension(self.span(meta), str(name), self.tspan(name), body, str(var), source,
                               where, by[0] if by else None, by[1] if by else False)

    @v_args(meta=True, inline=True)
    def route_expr(self, meta: Any, name: Token, cost: n.Expr, var: Token, start: n.Expr, goal: n.Expr,
                   bound: n.Expr | None) -> n.Route:
        return n.Route(self.span(meta), str(name), self.tspan(name), cost, str(var), start, goal, bound)

    @v_args(inline=True)
    def bound(self, e: n.Expr) -> n.Expr:
        return e

    @v_args(meta=True, inline=True)
    def reach_expr(self, meta: Any, name: Token, body: n.Expr, var: Token, seeds: n.Expr, via: n.Expr | None,
                   where: n.Expr | None) -> n.Reach:
        return n.Reach(self.span(meta), str(name), self.tspan(name), body, str(var), seeds, via, where)

    @v_args(inline=True)
    def via(self, e: n.Expr) -> n.Expr:
        return e

    @v_args(meta=True, inline=True)
    def list_comp(self, meta: Any, body: n.Expr, var: Token, source: n.Expr, where: n.Expr | None,
                  by: tuple[n.Expr, bool, Span] | None) -> n.Comprehension:
        span = self.span(meta)
        return n.Comprehension(span, "list", span, body, str(var), source, where,
                               by[0] if by else None, by[1] if by else False)

    @v_args(meta=True, inline=True)
    def number(self, meta: Any, tok: Token) -> n.Number:
        return n.Number(self.tspan(tok), _number(str(tok)))

    @v_args(inline=True)
    def string(self, tok: Token) -> n.Text:
        return self.text(tok)

    @v_args(meta=True)
    def true(self, meta: Any, _: list[Any]) -> n.Bool:
        return n.Bool(self.span(meta), True)

    @v_args(meta=True)
    def false(self, meta: Any, _: list[Any]) -> n.Bool:
        return n.Bool(self.span(meta), False)

    @v_args(meta=True)
    def none(self, meta: Any, _: list[Any]) -> n.NoneLit:
        return n.NoneLit(self.span(meta))

    @v_args(inline=True)
    def name(self, tok: Token) -> n.Name:
        return n.Name(self.tspan(tok), str(tok))

    @v_args(meta=True)
    def list_lit(self, meta: Any, items: list[n.Expr | None]) -> n.ListLit:
        return n.ListLit(self.span(meta), tuple(i for i in items if i is not None))

    @v_args(meta=True)
    def record_lit(self, meta: Any, items: list[tuple[str, n.Expr] | None]) -> n.RecordLit:
        return n.RecordLit(self.span(meta), tuple(i for i in items if i is not None))

    @v_args(inline=True)
    def record_item(self, name: Token, value: n.Expr) -> tuple[str, n.Expr]:
        return (str(name), value)


def _unquoted(text: str) -> str:
    """`text` without the quoted texts inside it."""
    return re.sub(r'"(?:[^"\\]|\\.)*"', "", text)


def _closing_brace(text: str, start: int) -> int:
    """Where the `}` that closes the `{` at `start` stands, past any quoted text inside; -1 if none."""
    i = start + 1
    while i < len(text):
        ch = text[i]
        if ch == "}":
            return i
        if ch == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        i += 1
    return -1


def _shift(node: Any, dl: int, dc: int, file: str) -> Any:
    """Moves the spans of an interpolated expression to where it stands in the file."""
    import dataclasses

    if isinstance(node, Span):
        return Span(file, node.line + dl, node.col + (dc if node.line == 1 else 0),
                    node.end_line + dl, node.end_col + (dc if node.end_line == 1 else 0))
    if isinstance(node, tuple):
        return tuple(_shift(x, dl, dc, file) for x in node)
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        changes = {f.name: _shift(getattr(node, f.name), dl, dc, file) for f in dataclasses.fields(node)}
        return dataclasses.replace(node, **changes)
    return node


# ---------------------------------------------------------------- syntax errors

_WORDS = {
    "NAME": "a name", "NUMBER": "a number", "STRING": 'a text in quotes like "..."',
    "PERCENT": "a chance like `50%`", "$END": "the end of the file",
    "LBRACE": "`{`", "RBRACE": "`}`", "LPAR": "`(`", "RPAR": "`)`", "LSQB": "`[`", "RSQB": "`]`",
    "COLON": "`:`", "COMMA": "`,`", "DOT": "`.`", "EQUAL": "`=`", "QMARK": "`?`",
}

_DECL_START = "a declaration starts with a keyword such as `thing`, `player`, `world`, `order` or `phase`"
_DECL_WORDS = ("data", "define", "discard", "grid", "links", "order", "orders", "param", "personal", "phase", "player",
               "procedure", "report", "ruleset", "secret", "simulation", "stop", "table", "thing", "victory", "world")
_DECL_KEYWORDS = ", ".join(f"`{w}`" for w in _DECL_WORDS)

# Labelled examples of common mistakes (Lark's match_examples): the message says what to write.
_EXAMPLES: dict[str, list[str]] = {
    "a table row is written `key: value`, like `3: 6`": [
        "table t(x: int) -> int { 1 2 }",
        "table t(x: int) -> int { 1: }",
        "table t(x: int) -> int { 1 = 2 }",
        "table t(x: int) -> int { from 2 2 }",
        "table t(x: int) -> int { below 2 2 }",
    ],
    "the values of a data row are separated by commas, like `GEN: \"Genoa\", 8, 5`": [
        "data Box(code, a, b) { A: 1 2 }",
        "data Box(code, a, b) { A: \"x\" 2 }",
    ],
    "a condition is followed by `else` and the reason the player reads, like "
    "`require units <= 9 else \"at most 9 units\"`": [
        "order o \"O\" { require true }",
        "order o \"O\" { valid true }",
    ],
    "an order's syntax comes in quotes after its name, like `order arms \"A,{country},{units}\" {`": [
        "order arms {",
        "order \"A,{c}\" {",
    ],
    "a field is written `name: type`, like `troops: int = 0`": [
        "thing Country keyed by code { troops int }",
        "player { cash = 3 }",
    ],
    "a statement is needed here: `let`, an assignment like `x.troops += 1`, `if`, `for each`, `news`, "
    "`tell`, `add`, `run`, or a procedure call": [
        "phase p { 1 }",
        "phase p { x }",
        "phase p { x.y }",
    ],
    "a phase is `phase NAME: run ORDER` or `phase NAME { ... }`": [
        "phase p run x",
        "phase p",
    ],
}


@cache
def _example_states() -> dict[int, str]:
    """The parser state each labelled mistake fails in; a user's error in the same state gets its label."""
    states: dict[int, str] = {}
    for label, snippets in _EXAMPLES.items():
        for snippet in snippets:
            try:
                _lark().parse(snippet, start="start")
            except UnexpectedToken as e:
                states.setdefault(e.state.position, label)
            except UnexpectedInput:
                continue
    return states


@cache
def _decl_name_state() -> int:
    """The parser state after a name where a declaration starts: only `world {` goes on from there."""
    try:
        _lark().parse("misspelt keyword", start="start")
    except UnexpectedToken as e:
        return int(e.state.position)
    raise AssertionError("a name alone parsed as a declaration")


def _misspelt_keyword(err: UnexpectedToken) -> Token | None:
    """A declaration whose first word is not a keyword: the grammar reads it as a `world` block and fails
    on the next word, but the mistake is the first one."""
    state = getattr(err, "state", None)
    if state is None or state.position != _decl_name_state() or err.interactive_parser is None:
        return None
    word = err.interactive_parser.parser_state.value_stack[-1]
    # After `world` itself the mistake is what follows it, and the usual message says so.
    return word if isinstance(word, Token) and word.type == "NAME" and str(word) != "world" else None


def _example_label(err: UnexpectedToken) -> str | None:
    # Lark's match_examples compares whole parser stacks, so a mistake after another declaration
    # would never match; the state at the top of the stack is what tells the mistakes apart.
    state = getattr(err, "state", None)
    return _example_states().get(state.position) if state is not None else None


def _describe(tok_names: set[str]) -> str:
    lark = _lark()
    words = []
    for name in sorted(tok_names):
        if name in _WORDS:
            words.append(_WORDS[name])
            continue
        try:
            term = lark.get_terminal(name)
            pat = term.pattern
            words.append(f"`{pat.value}`" if pat.type == "str" else name.lower())
        except KeyError:
            words.append(name.lower())
    words = sorted(set(words))
    if len(words) > 8:
        return ", ".join(words[:8]) + ", ..."
    return ", ".join(words)


_CHAR_HINTS = {
    "\u201c": 'a typographic quote: texts go in plain double quotes "..."',
    "\u201d": 'a typographic quote: texts go in plain double quotes "..."',
    "\u2018": 'a typographic quote: texts go in plain double quotes "..."',
    "\u2019": 'a typographic quote: texts go in plain double quotes "..."',
    "$": "amounts are plain numbers; money is a type, as in `cash: money = 10`",
    ";": "no `;` is needed: put each statement on its own line",
    "'": 'texts go in double quotes: "..."',
    "&": "write `and`", "|": "write `or`", "!": "write `not`, or `!=` for \"is not equal to\"",
}


# Words from other languages that designers write by habit, and what this language says instead.
_FOREIGN = {
    "elif": "write `else if`", "elsif": "write `else if`", "elseif": "write `else if`",
    "foreach": "write `for each`",
    "return": "a function's body is one expression after `=`", "def": "write `define NAME(...) -> TYPE = ...`",
    "function": "write `define NAME(...) -> TYPE = ...`", "var": "write `let`", "const": "write `param`",
    "True": "write `true`", "False": "write `false`", "None": "write `none`", "null": "write `none`",
    "&&": "write `and`", "||": "write `or`",
}

_COMPARISONS = {"<", "<=", ">", ">=", "==", "!="}


def _foreign(file: str, tokens: list[Token]) -> Diagnostic | None:
    """A word from another language among these tokens (the last ones read), said plainly."""
    for tok in reversed(tokens):
        if tok.type != "STRING" and str(tok) in _FOREIGN and tok.line is not None and tok.column is not None:
            span = Span(file, tok.line, tok.column, tok.end_line or tok.line, tok.end_column or tok.column + 1)
            # `return` is a statement of procedures, phases and effects, but no word of a function's `= ...`.
            said = "cannot stand here" if str(tok) in _keywords() else "is not a word of this language"
            return Diagnostic(span, "E0103", f"`{tok}` {said}", help=_FOREIGN[str(tok)])
    return None


def _tokens(text: str) -> list[Token]:
    """The file's tokens as far as they can be read: the lexer stops at the first character it refuses."""
    out: list[Token] = []
    with contextlib.suppress(UnexpectedInput):
        out.extend(_lark().lex(text))
    return out


def _open_brace(tokens: list[Token]) -> Token | None:
    """The innermost `{` that these tokens leave open."""
    stack: list[Token] = []
    for tok in tokens:
        if tok == "{":
            stack.append(tok)
        elif tok == "}" and stack:
            stack.pop()
    return stack[-1] if stack else None


def _after_bare_return(source: Source, before: list[Token]) -> Diagnostic | None:
    """A statement written on the line after a bare `return`, read as its value (`return` then `x += 1` fails at
    `=`): the mistake is the statement that can never run, said so."""
    for i in range(len(before) - 1, -1, -1):
        t = before[i]
        if str(t) in ("{", "}"):
            return None
        if str(t) == "return" and t.type != "NAME":
            if i + 1 >= len(before):
                return None
            value = before[i + 1]
            if (value.line or 0) <= (t.line or 0) or not value.line or not value.column:
                return None
            span = Span(source.name, value.line, value.column, value.end_line or value.line,
                        value.end_column or value.column + len(str(value)))
            return Diagnostic(span, "E0103", f"this line is read as the value of the bare `return` at line {t.line}",
                              help="a bare `return` is the last statement of its block, since nothing after it "
                                   "runs: remove this statement or move it above the `return`; to give a value, "
                                   "write it on the `return`'s line")
    return None


def _where(tok: Token) -> str:
    return f"line {tok.line}, column {tok.column}"


def _end_of_file(source: Source, err: UnexpectedInput) -> Diagnostic:
    # The real end is after the last token, not after trailing comments or blank lines.
    tokens = _tokens(source.text)
    if tokens and tokens[-1].end_line is not None and tokens[-1].end_column is not None:
        last = tokens[-1]
        span = Span(source.name, last.end_line or 0, last.end_column or 0, last.end_line or 0,
                    (last.end_column or 0) + 1)
    else:
        span = source.end_span()
    foreign = _foreign(source.name, tokens[-2:])
    if foreign is not None:
        return foreign
    expected: set[str] = set(getattr(err, "expected", set()) or set())
    opened = _open_brace(tokens)
    if opened is not None:
        return Diagnostic(span, "E0101", f"the file ends before the `{{` at {_where(opened)} is closed",
                          notes=(f"that `{{` opens: {source.line_text(opened.line or 0).strip()}",),
                          help="add the missing `}` where the block ends")
    hint = f"expected {_describe(expected)}" if expected else None
    return Diagnostic(span, "E0101", "the file ends in the middle of a declaration", help=hint)


def _unclosed_block(source: Source, err: UnexpectedToken, before: list[Token]) -> Diagnostic | None:
    """A declaration keyword where a `}` could still come: the block before it was never closed.

    Keywords are contextual, so inside statements `phase q {` reads as a name and the error comes one
    word later; a declaration word at the start of a line, where a block's lines are indented, is the tell.
    """
    tok = err.token
    prev = before[-1] if before else None
    closable = tok.column == 1 or "RBRACE" in (err.accepts or err.expected)
    if tok.type != "STRING" and str(tok) in _DECL_WORDS and closable:
        opened = _open_brace(before)
    elif prev is not None and prev.type != "STRING" and str(prev) in _DECL_WORDS and prev.column == 1:
        tok, opened = prev, _open_brace(before[:-1])
    else:
        return None
    if opened is None:
        return None
    line, col = tok.line or 0, tok.column or 0
    return Diagnostic(Span(source.name, line, col, line, col + len(str(tok))), "E0107",
                      f"`{tok}` starts a new declaration, but the `{{` at {_where(opened)} is not closed",
                      notes=(f"that `{{` opens: {source.line_text(opened.line or 0).strip()}",),
                      help="add the missing `}` before this line")


def _in_table(err: UnexpectedToken) -> bool:
    """Whether the innermost open block is a table's rows (where `1 = 2` means a row, not a comparison)."""
    stack = err.interactive_parser.parser_state.value_stack if err.interactive_parser else []
    words = [str(v) for v in stack if isinstance(v, Token)]
    opened = max((i for i, w in enumerate(words) if w == "{"), default=-1)
    before = words[:opened]
    start = max((i for i, w in enumerate(before) if w in "{}"), default=-1)
    return "table" in before[start + 1:]


def _literals(tok_names: set[str]) -> set[str]:
    """The fixed words and symbols among the terminals the parser would accept."""
    out = set()
    for name in tok_names:
        try:
            pat = _lark().get_terminal(name).pattern
        except KeyError:
            continue
        if pat.type == "str":
            out.add(str(pat.value))
    return out


def _syntax_error(source: Source, err: UnexpectedInput) -> Diagnostic:
    if isinstance(err, UnexpectedEOF) or (isinstance(err, UnexpectedToken) and err.token.type == "$END"):
        return _end_of_file(source, err)
    line, col = err.line, err.column
    if isinstance(err, UnexpectedCharacters):
        pos = err.pos_in_stream or 0
        ch = source.text[pos] if pos < len(source.text) else "?"
        span = Span(source.name, line, col, line, col + 1)
        if ch == '"':
            rest = source.line_text(line)[col - 1:]
            return Diagnostic(Span(source.name, line, col, line, col + len(rest)), "E0108",
                              "this text has no closing `\"` on its line",
                              help='close it with `"`; a text over several lines goes in triple quotes """..."""')
        return Diagnostic(span, "E0102", f"the character `{ch}` has no place here",
                          help=_CHAR_HINTS.get(ch, "text goes in double quotes; comments start with `#`"))
    assert isinstance(err, UnexpectedToken)
    word = _misspelt_keyword(err)
    if word is not None:
        span = Span(source.name, word.line or line, word.column or col, word.end_line or line,
                    word.end_column or col + len(word))
        close = difflib.get_close_matches(str(word), _DECL_WORDS, n=1)
        return Diagnostic(span, "E0103", f"unexpected `{word}`: {_DECL_START}",
                          help=f"did you mean `{close[0]}`?" if close else f"expected {_DECL_KEYWORDS}")
    tok = err.token
    # The tokens before the unexpected one, read once: several of the checks below look back at them.
    before = _tokens(source.text[:tok.start_pos or 0])
    unclosed = _unclosed_block(source, err, before)
    if unclosed is not None:
        return unclosed
    after_return = _after_bare_return(source, before)
    if after_return is not None:
        return after_return
    width = max(1, len(str(tok)))
    span = Span(source.name, line, col, line, col + width)
    label = _example_label(err)
    what = f"`{tok}`"
    accepts = set(err.accepts or err.expected)
    if {"..", "{"} <= _literals(accepts):
        # After `for each x in SOURCE` any source could still become `A..B`; a loop over a list is the
        # common case, and it misses its `{`, `where` or `by`, not a `..`.
        accepts -= {name for name in accepts if _literals({name}) == {".."}}
    if {"before", "at", "when"} <= _literals(accepts):
        # Right after `phase NAME`: `at start` is the rarest way on, said in the docs; the hint names the ones
        # a phase of the turn is written with, as it did before start phases existed; `in KIND turns` likewise
        # belongs to rulesets with a calendar.
        accepts -= {name for name in accepts if _literals({name}) in ({"at"}, {"in"})}
    message = f"unexpected {what}"
    hint: str | None = f"expected {_describe(accepts)}"
    prev = before[-1] if before else None
    # `world order` where a declaration starts, or `personal world order`: E0433, as the checker would say it.
    world = tok if prev is not None and str(prev) == "personal" and str(tok) == "world" else None
    if prev is not None and str(prev) == "world" and str(tok) == "order" and (len(before) < 2
                                                                              or str(before[-2]) == "}"):
        world = prev
    if world is not None:
        what = "a personal order" if world is tok else "a game order"
        return Diagnostic(Span(source.name, world.line or line, world.column or col, world.line or line,
                               (world.column or col) + len("world")), "E0433", f"`world` on {what}: only a GM "
                          "order is given for no position", help="write `gm world order`, or drop `world`")
    foreign = _foreign(source.name, [t for t in (prev, tok) if t is not None])
    if foreign is not None:
        return foreign
    if str(tok) in _COMPARISONS and not _COMPARISONS & _literals(accepts):
        message = f"unexpected `{tok}`: comparisons cannot be chained"
        hint = "join two comparisons with `and`, as in `1 <= n and n <= 9`"
    elif str(tok) == "=" and "==" in _literals(accepts) and not _in_table(err):
        message, hint = "unexpected `=`: `=` sets a value", "to compare two values, write `==`"
    elif str(tok) in ("+", "-") and f"{tok}=" in _literals(accepts):
        message = f"unexpected `{tok}`: a statement changes something, and `{tok}` alone changes nothing"
        hint = f"did you mean `{tok}=`?"
    elif str(tok) == "..":
        # `A..B` is an order argument's range or a counted loop's, never a list value.
        message = "unexpected `..`: `A..B` counts only in a loop, `for each i in A..B`"
        hint = "for a list of numbers, write them out (`[1, 2, 3]`), or add them in a counted loop"
    elif label:
        message = f"unexpected {what}: {label}"
        hint = hint if len(accepts) <= 5 else None
    elif len(accepts) == 1:
        message = f"expected {_describe(accepts)} before {what}"
        hint = "a range is written like `1..9`" if ".." in _literals(accepts) else None
    if len(accepts) == 1 and prev is not None and prev.end_line is not None and prev.end_column is not None \
            and prev.end_line < line:
        # What is missing belongs at the end of the previous line, not before the next one.
        span = Span(source.name, prev.end_line, prev.end_column, prev.end_line, prev.end_column + 1)
        message = f"expected {_describe(accepts)} at the end of this line" + (f": {label}" if label else "")
        hint = None if label else hint
    first_on_line = prev is not None and (len(before) < 2 or (before[-2].end_line or 0) < (prev.line or 0))
    if prev is not None and str(tok) == ":" and first_on_line and prev.type != "NAME" \
            and str(prev) in _keywords() and prev.line and prev.column:
        # `cost: 1..9` in an order: the word the designer meant as a name is read as the keyword it also is.
        span = Span(source.name, prev.line, prev.column, prev.end_line or prev.line,
                    prev.end_column or prev.column + len(str(prev)))
        starts = str(prev) in ("valid", "require", "once", "counts", "ends", "cost", "effect")
        why = f"here `{prev}` begins an order's `{prev} ...` line" if starts else \
            f"here `{prev}` is read as part of the line before (`n: int {prev} ...`)"
        return Diagnostic(span, "E0103", f"`{prev}` is a keyword here, so it cannot name an argument or a field",
                          help=f"rename it: {why}")
    if prev is not None and prev.type == "NAME" and first_on_line and not label:
        # `requires country...` reads as an argument named `requires`: the word before is the mistake.
        close = difflib.get_close_matches(str(prev), _keywords(), n=1, cutoff=0.8)
        if close and close[0] != str(prev) and prev.line and prev.column:
            span = Span(source.name, prev.line, prev.column, prev.end_line or prev.line,
                        prev.end_column or prev.column + len(str(prev)))
            message, hint = f"unexpected `{prev}`", f"did you mean `{close[0]}`?"
    return Diagnostic(span, "E0103", message, help=hint)


@cache
def _keywords() -> tuple[str, ...]:
    """Every word the grammar itself uses (`require`, `effect`, `each`, ...)."""
    words = {str(t.pattern.value) for t in _lark().terminals if t.pattern.type == "str"}
    return tuple(sorted(w for w in words if w.isalpha()))


def parse(source: Source) -> tuple[n.Module | None, list[Diagnostic]]:
    """Parses one file. Returns the module (None on a syntax error) and its diagnostics."""
    errors: list[Diagnostic] = []
    try:
        tree: Tree[Token] = _lark().parse(source.text, start="start")
    except UnexpectedInput as err:
        return None, [_syntax_error(source, err)]
    module = _Builder(source, errors).transform(tree)
    return module, errors
