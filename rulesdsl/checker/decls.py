"""Declaration AST -> symbol tables and IR: settings, parameters, things, fields, data, links, signatures, tables.

These are phase 1 (declare) passes: names, signatures and field types are resolved, no body is checked.
`const_value` reads the literals that data, bounds and keys are written in.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator
from fractions import Fraction
from typing import Any

from rulesdsl import ir
from rulesdsl import nodes as n
from rulesdsl import types as T
from rulesdsl.checker import exprs, ranges
from rulesdsl.checker.env import (
    PLAYER_BUILTINS,
    RESERVED,
    Env,
    FuncInfo,
    GridInfo,
    ProcInfo,
    ThingInfo,
    and_,
    closest,
    suggest,
    suggest_key,
)
from rulesdsl.checker.state import Checking
from rulesdsl.source import Span

KNOWN_SETTINGS = {"version": str, "turn": str, "game": str, "money": str}
# `money "0.1"`: the smallest amount of money, as written -> the number of decimal places money keeps
MONEY_SETTINGS = {"1": 0, "0.1": 1, "0.01": 2, "0.001": 3}


def collect(c: Checking) -> None:
    """First pass: every global name, so that later passes may refer forward.

    A name refused for being reserved still stands for its declaration (a function named `turn` is
    still the function its calls mean), so that its E0202 is the only diagnostic. Of a name declared
    twice, the first declaration in the file is the one kept.
    """
    env, module = c.env, c.module
    seen: dict[str, Span] = {}

    def claim(name: str, span: Span, what: str) -> bool:
        if name in seen:
            env.diags.error(span, "E0203", f"`{name}` is declared twice",
                            notes=[f"first declared at {seen[name]}"],
                            help="rename one of them; to change a declaration, edit it in place")
            return False
        seen[name] = span
        if name in RESERVED:
            env.diags.error(span, "E0202", f"`{name}` is a reserved word and cannot name a {what}")
        elif name.startswith("_"):
            env.diags.error(span, "E0202", f"`{name}` cannot name a {what}: names starting with `_` are kept for the "
                            "runtime", help=f"rename it, e.g. `{name.lstrip('_') or 'x'}`")
        else:
            return True
        # Things and parameters with a reserved name are left out: `turn` or `world` already mean
        # something where a type or a value is read. A call names a function, table or procedure only.
        return what in ("table", "function", "procedure")

    for d in module.decls:
        if isinstance(d, n.ThingDecl) and d.name == "Player":
            # Players are the built-in thing `Player`: a second one would share its type, its index and
            # its place in the state file.
            env.diags.error(d.name_span or d.span, "E0202", "`Player` is the built-in thing of the players "
                            "and cannot name another thing", help="rename the thing, e.g. `Person`")
            claim(d.name, d.span, "thing")
        elif isinstance(d, n.ThingDecl) and claim(d.name, d.span, "thing"):
            env.things[d.name] = ThingInfo(d.name, d.key, d.span, numbered=d.numbered, ownerless=d.ownerless)
        elif isinstance(d, n.GridDecl):
            if env.grid is not None:
                first = env.grid.decl
                env.diags.error(d.name_span or d.span, "E0230", f"a ruleset has one grid: `{first.name}` is "
                                f"declared at line {first.span.line}",
                                help="put every per-sector field in the first grid")
                continue
            if d.name == "Player":
                env.diags.error(d.name_span or d.span, "E0202", "`Player` is the built-in thing of the players "
                                "and cannot name a grid", help="rename the grid, e.g. `Sector`")
            if claim(d.name, d.span, "grid") and d.name != "Player":
                # Its sectors are things with no key field: `s.terrain` reads as any thing's field does.
                env.things[d.name] = ThingInfo(d.name, "", d.span)
                env.grid = GridInfo(d)
        elif isinstance(d, n.ParamDecl) and claim(d.name, d.span, "parameter"):
            env.param_spans[d.name] = d.span
        elif isinstance(d, n.TableDecl) and claim(d.name, d.span, "table"):
            env.tables[d.name] = d
        elif isinstance(d, n.DefineDecl) and claim(d.name, d.span, "function"):
            env.functions[d.name] = FuncInfo(d)
        elif isinstance(d, n.ProcedureDecl) and claim(d.name, d.span, "procedure"):
            env.procedures[d.name] = ProcInfo(d)
        elif isinstance(d, n.OrderDecl):
            if d.name in env.orders:
                env.diags.error(d.span, "E0203", f"order `{d.name}` is declared twice",
                                notes=[f"first declared at {env.orders[d.name].span}"])
            else:
                env.orders[d.name] = d
    inner_names(env, module)


# What each name inside a declaration names, in E0202's words.
_BINDS = {n.Let: "a local", n.For: "a loop variable", n.Comprehension: "a variable", n.Route: "a variable",
          n.Reach: "a variable", n.Param: "a parameter",
          n.ArgDecl: "an order argument", n.FieldDecl: "a field", n.ReportField: "a report field",
          n.OrderDecl: "an order", n.PhaseDecl: "a phase"}
# Names read as a bare word, where a reserved word already means something (`turn`, `me`): such a name
# would hide it. Fields, report fields, orders, phases, victories and groups are never read bare.
_READ_BARE = {"a local", "a loop variable", "a variable", "a parameter", "an order argument",
              "the variable of a victory"}


def _name_at(span: Span, name: str) -> Span:
    """The span of `name` where it starts `span` (a field, a parameter, an argument, a report field)."""
    return Span(span.file, span.line, span.col, span.line, span.col + len(name))


def inner_names(env: Env, module: n.Module) -> None:
    """E0202 for every name a ruleset gives besides its global declarations (those are in `collect`).

    A name that starts with `_` is the runtime's (`_key`, `_ord` of every thing) or Python's (`__init__`,
    `__slots__`, `__class__`): the code generator cannot make it safe. A name that is read bare may not be a
    reserved word: `let turn = 1` would hide the turn number. A local named `world` is E0330 already.

    This walks the AST, not the IR, on purpose: it runs in phase 1, before any body is checked, and many of
    the names it judges never reach the IR (a second phase of the same name, a group declared twice).
    """
    found: list[tuple[str, Span, str]] = []

    def visit(node: object) -> None:
        if isinstance(node, (tuple, list)):
            for item in node:
                visit(item)
            return
        if not dataclasses.is_dataclass(node) or isinstance(node, (Span, type)):
            return
        what = _BINDS.get(type(node))
        if isinstance(node, (n.Let, n.OrderDecl)):
            found.append((node.name, node.name_span or node.span, what or ""))
        elif isinstance(node, (n.For, n.Comprehension, n.Route, n.Reach)):
            found.append((node.var, node.span, what or ""))
        elif isinstance(node, n.PhaseDecl):
            found.append((node.name, node.span, "a phase"))
        elif isinstance(node, (n.Param, n.ArgDecl, n.FieldDecl, n.ReportField)) and node.name:
            found.append((node.name, _name_at(node.span, node.name), what or ""))
        elif isinstance(node, n.VictoryDecl):
            found.append((node.name, node.span, "a victory"))
            found.append((node.var, node.span, "the variable of a victory"))
        elif isinstance(node, n.OrdersSetting) and node.kind == "group":
            found.append((node.name, node.span, "an order group"))
        for f in dataclasses.fields(node):
            visit(getattr(node, f.name))

    for d in module.decls:
        if isinstance(d, (n.ThingDecl, n.GridDecl, n.ParamDecl, n.TableDecl, n.DefineDecl, n.ProcedureDecl)):
            # Their own names are `collect`'s; their fields, parameters and bodies are not.
            for f in dataclasses.fields(d):
                if f.name not in ("span", "name", "name_span"):
                    visit(getattr(d, f.name))
        else:
            visit(d)
    for name, span, what in found:
        if name.startswith("_"):
            env.diags.error(span, "E0202", f"`{name}` cannot name {what}: names starting with `_` are kept "
                            "for the runtime", help=f"rename it, e.g. `{name.lstrip('_') or 'x'}`")
        elif name in RESERVED and what in _READ_BARE and not (what == "a local" and name == "world"):
            env.diags.error(span, "E0202", f"`{name}` is a reserved word and cannot name {what}",
                            help=f"rename it, e.g. `{name}_`")


def settings(c: Checking) -> None:
    """The `ruleset "Title" { ... }` header: the program's title and settings."""
    c.program.title, c.program.settings = _settings(c.env, c.module)


def _settings(env: Env, module: n.Module) -> tuple[str, dict[str, Any]]:
    decls = [d for d in module.decls if isinstance(d, n.RulesetDecl)]
    if not decls:
        # Point at the first declaration: comments and blank lines before it are not the mistake.
        first = module.decls[0].span if module.decls else Span(module.file, 1, 1, 1, 2)
        env.diags.error(first, "E0204", 'this file has no `ruleset "..." { }` header',
                        help='start the file with `ruleset "Name" { version "1" turn "day" }`')
        return "", {}
    for extra in decls[1:]:
        env.diags.error(extra.span, "E0203", "only one `ruleset` header per file",
                        notes=[f"the first is at {decls[0].span}"],
                        help="put every setting in the first header")
    out: dict[str, Any] = {"version": "", "turn": "turn", "game": "{number}"}
    for s in decls[0].settings:
        if s.name not in KNOWN_SETTINGS:
            env.diags.warning(s.span, "W0201", f"unknown setting `{s.name}`", help=suggest(s.name, KNOWN_SETTINGS))
            continue
        if not isinstance(s.value, str):
            env.diags.error(s.span, "E0205", f"`{s.name}` is a text in quotes")
            continue
        if s.name == "money":
            if s.value not in MONEY_SETTINGS:
                env.diags.error(s.span, "E0255", f'`money "{s.value}"`: the smallest amount of money is "1", '
                                '"0.1", "0.01" or "0.001"',
                                help='money is a whole number of the smallest amount: for cents write `money "0.01"`; '
                                     'leave the setting out for whole amounts')
                continue
            env.money_places = MONEY_SETTINGS[s.value]
        out[s.name] = s.value
    return decls[0].name, out


def const_value(env: Env, e: n.Expr, ty: T.Ty, what: str, calculated: str | None = None) -> Any:
    """The value of a literal in static data, a table key or a default; reports what is not literal.

    `calculated` is the hint for a value that is calculated (`3 + 1`, `starting_cash * 2`) where
    only a plain value may stand, when no plain value can be worked out to suggest instead.
    """
    if ty == T.ANY:
        return None
    if isinstance(ty, T.OptT):
        if isinstance(e, n.NoneLit):
            return None
        return const_value(env, e, ty.inner, what, calculated)
    # A bare word where a thing, a bool or a text belongs is a key, `yes` or a text without quotes:
    # their own branches below say so better.
    bare_word = isinstance(e, n.Name) and (ty in (T.BOOL, T.TEXT) or isinstance(ty, T.ThingT))
    if _calculated(e) and not bare_word and not (isinstance(ty, T.ThingT) and isinstance(e, n.Attr)):
        _not_plain(env, e, ty, what, calculated)
        return _placeholder(ty)
    if isinstance(ty, T.Num):
        if isinstance(e, n.Number):
            if isinstance(e.value, Fraction) and ty == T.MONEY and env.money_places:
                if not exprs.fits_money(e.value, env.money_places):
                    env.diags.error(e.span, "E0374", exprs.money_places_message(e.value, env.money_places),
                                    help=exprs.money_places_hint(env.money_places))
                return e.value
            if isinstance(e.value, Fraction) and not ty.decimal:
                env.diags.error(e.span, "E0206", f"{what} should be a whole number")
                return 0
            return e.value
        help = None
        if isinstance(e, n.Text) and len(e.parts) == 1 and isinstance(e.parts[0], str) \
                and re.fullmatch(r"-?\d+(\.\d+)?", e.parts[0].strip()):
            help = f"remove the quotes: `{e.parts[0].strip()}`"
        env.diags.error(e.span, "E0206", f"{what} should be a number, not {_literal_kind(e)}", help=help)
        return 0
    if ty == T.BOOL:
        if isinstance(e, n.Bool):
            return e.value
        word = e.name.lower() if isinstance(e, n.Name) else ""
        help = ("write `true`" if word in _TRUE_WORDS else "write `false`" if word in _FALSE_WORDS
                else "write `true` or `false`")
        env.diags.error(e.span, "E0206", f"{what} should be true or false", help=help)
        return False
    if ty == T.TEXT:
        if isinstance(e, n.Text) and all(isinstance(p, str) for p in e.parts):
            return "".join(p for p in e.parts if isinstance(p, str))
        if isinstance(e, n.Text):
            env.diags.error(e.span, "E0206", f"{what} should be a plain text: `{{...}}` is filled in during "
                            "a turn, and this value is set before the game starts",
                            help="write `{{` for a brace that is part of the text")
            return ""
        shown = e.name if isinstance(e, n.Name) else ranges.number(e.value) if isinstance(e, n.Number) else None
        env.diags.error(e.span, "E0206", f"{what} should be a text in quotes",
                        help=f'write `"{shown}"`' if shown is not None else None)
        return ""
    if isinstance(ty, T.ThingT) and env.grid is not None and ty.name == env.grid.decl.name:
        return _sector_literal(env, e, ty.name, what)
    if isinstance(ty, T.ThingT):
        if isinstance(e, n.Attr) and isinstance(e.obj, n.Name) and e.obj.name == ty.name:
            # `Card.S12` names the same instance as `S12` where a key is expected.
            info = env.things.get(ty.name)
            keys = info.keys if info is not None else []
            key = next((k for k in keys if k.upper() == e.name.upper()), None)
            if key is None:
                env.diags.error(e.name_span, "E0207", f"no {ty.name} is keyed `{e.name}`",
                                help=_key_hint(ty.name, e.name, keys))
            return key
        if isinstance(e, n.Name):
            # Keys match without regard to case, here as everywhere; the value is the key as `data` writes it.
            info = env.things.get(ty.name)
            if info is None:
                return e.name
            key = next((k for k in info.keys if k.upper() == e.name.upper()), None)
            if key is None:
                env.diags.error(e.span, "E0207", f"no {ty.name} is keyed `{e.name}`",
                                help=_key_hint(ty.name, e.name, info.keys))
            return key or e.name
        env.diags.error(e.span, "E0206", f"{what} should be the key of a {ty.name}, like `{_example_key(env, ty)}`")
        return None
    if isinstance(ty, (T.ListT, T.SetT)):
        if isinstance(e, n.ListLit):
            return [const_value(env, i, ty.item, what, calculated) for i in e.items]
        env.diags.error(e.span, "E0206", f"{what} should be a list like `[A, B]`")
        return []
    env.diags.error(e.span, "E0206", f"{what} cannot be given in data ({ty.show()})")
    return None


def _sector_literal(env: Env, e: n.Expr, grid: str, what: str) -> str | None:
    """A sector in `data`: its number in quotes, as the grid's numbering writes it (checked against the map
    when the game starts, where a parameter may set the size)."""
    assert env.grid is not None
    pattern = env.grid.decl.numbered or "CCCRR"
    text = "".join(p for p in e.parts if isinstance(p, str)) if isinstance(e, n.Text) else None
    if text is not None and len(text) == len(pattern) and all(
            ch in "0123456789" if p in "CR" else ch == p for ch, p in zip(text, pattern, strict=True)):
        return text
    example = "".join("0" if p in "CR" else p for p in pattern)
    env.diags.error(e.span, "E0206", f"{what} should be a {grid}, written in quotes as its number: "
                    f'`numbered "{pattern}"` writes one like "{example}"')
    return None


_TRUE_WORDS = {"yes", "y", "on", "true"}
_FALSE_WORDS = {"no", "n", "off", "false"}


def _calculated(e: n.Expr) -> bool:
    """Whether `e` is worked out from other values rather than written down: `3 + 1`, `cash * 2`, `f(x)`."""
    return isinstance(e, (n.BinOp, n.UnaryOp, n.Call, n.CondExpr, n.Comprehension, n.Index, n.Name, n.Attr))


def _literal_kind(e: n.Expr) -> str:
    if isinstance(e, n.Text):
        return "a text"
    if isinstance(e, n.Bool):
        return "`true` or `false`"
    if isinstance(e, n.NoneLit):
        return "`none`"
    if isinstance(e, n.ListLit):
        return "a list"
    if isinstance(e, n.RecordLit):
        return "a record"
    return "this"


def _fold(e: n.Expr) -> Fraction | None:
    """The value of arithmetic on plain numbers (`3 + 1`, `money(5)`), or None if it reads anything else."""
    if isinstance(e, n.Number):
        return Fraction(e.value)
    if isinstance(e, n.UnaryOp) and e.op == "-":
        v = _fold(e.operand)
        return None if v is None else -v
    if isinstance(e, n.Call) and e.func in ("money", "decimal") and len(e.args) == 1:
        return _fold(e.args[0])
    if isinstance(e, n.BinOp) and e.op in ("+", "-", "*", "/"):
        a, b = _fold(e.left), _fold(e.right)
        if a is None or b is None:
            return None
        if e.op == "/":
            return None if b == 0 else a / b
        return a + b if e.op == "+" else a - b if e.op == "-" else a * b
    return None


def _placeholder(ty: T.Ty) -> Any:
    if isinstance(ty, T.Num):
        return 0
    if ty == T.BOOL:
        return False
    if ty == T.TEXT:
        return ""
    if isinstance(ty, (T.ListT, T.SetT)):
        return []
    return None


def _not_plain(env: Env, e: n.Expr, ty: T.Ty, what: str, calculated: str | None) -> None:
    """E0206 for a calculated value where a plain one must be written: say so, and what to write."""
    if isinstance(ty, T.Num):
        example = "1.5" if ty.decimal else "4"
    elif isinstance(ty, (T.ListT, T.SetT)):
        example = "[A, B]"
    else:
        example = "true" if ty == T.BOOL else '"..."' if ty == T.TEXT else "KEY"
    if isinstance(e, n.Name):
        message = f"{what} must be a plain value like `{example}`, not the name `{e.name}`"
    elif isinstance(e, n.Call) and e.func in ("money", "decimal") and isinstance(ty, T.Num):
        message = f"{what} is {ty.show()} already: write the plain number, without `{e.func}(...)`"
    else:
        message = f"{what} must be written as a plain value like `{example}`, not calculated"
    help = calculated
    value = _fold(e) if isinstance(ty, T.Num) else None
    if isinstance(ty, T.Num) and value is not None and (ty.decimal or value.denominator == 1) \
            and _finite_decimal(value):
        help = f"write `{ranges.number(value)}`"
    env.diags.error(e.span, "E0206", message, help=help)
    # What the calculation names is used all the same: this error is the one thing to say about it.
    env.used.update(name for name in _names_in(e) if name in env.param_spans or name in env.tables
                    or name in env.functions)


def _names_in(node: object) -> Iterator[str]:
    """Every name and called name inside an expression.

    An AST walk, on purpose: the expression is one E0206 refuses (a calculation where a plain value must be
    written), so it is never checked and has no IR.
    """
    if isinstance(node, n.Name):
        yield node.name
    elif isinstance(node, n.Call):
        yield node.func
    if dataclasses.is_dataclass(node):
        for f in dataclasses.fields(node):
            yield from _names_in(getattr(node, f.name))
    elif isinstance(node, tuple):
        for item in node:
            yield from _names_in(item)


def _finite_decimal(v: Fraction) -> bool:
    d = v.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


def _key_hint(thing: str, key: str, keys: Iterable[str]) -> str | None:
    """The closest key, or else the keys themselves when there are few enough to read."""
    shown = list(dict.fromkeys(keys))
    hint = suggest_key(key, shown)
    if hint is None and 0 < len(shown) <= 12:
        hint = (f"the only {thing} is `{shown[0]}`" if len(shown) == 1
                else f"the {thing} keys are " + and_(f"`{k}`" for k in shown))
    return hint


def _example_key(env: Env, ty: T.ThingT) -> str:
    info = env.things.get(ty.name)
    return info.keys[0] if info and info.keys else "KEY"


def params(c: Checking) -> None:
    env = c.env
    for d in c.module.decls:
        if not isinstance(d, n.ParamDecl):
            continue
        if env.param_spans.get(d.name) != d.span:
            continue  # `collect` refused the name (reserved, or declared twice) and said why
        ty = env.resolve_type(d.type)
        if not (isinstance(ty, T.Num) or ty in (T.BOOL, T.TEXT, T.ANY)):
            env.diags.error(d.type.span, "E0208", f"a parameter is a number, a bool or a text, not {ty.show()}")
        value = const_value(env, d.default, ty, f"the default of `{d.name}`",
                            calculated=f"to calculate it, use a function: `define {d.name}() -> "
                                       f"{ty.show()} = ...`")
        env.params[d.name] = ir.Param(d.name, ty, value, d.secret, d.span.line, span=d.span)


def field_types(c: Checking) -> None:
    """Every field of the things, the players and the world, with its type; its default waits for phase 2."""
    env, module = c.env, c.module
    players = [d for d in module.decls if isinstance(d, n.PlayerDecl)]
    for extra in players[1:]:
        env.diags.error(extra.span, "E0203", "only one `player` block per file",
                        notes=[f"the first is at {players[0].span}"], help="put every player field in one block")
    worlds = [d for d in module.decls if isinstance(d, n.WorldDecl)]
    for again in worlds[1:]:
        env.diags.error(again.span, "E0203", "only one `world` block per file",
                        notes=[f"the first is at {worlds[0].span}"],
                        help="put every field of the world in one block")
    if worlds:
        env.world_line = worlds[0].span.line
    # Keys first: a default (phase 2) may name keys of any thing.
    for info in env.things.values():
        for row in (r for dd in module.decls if isinstance(dd, n.DataDecl) and dd.name == info.name
                    for r in dd.rows):
            info.keys.append(row.key)
    player_spans: dict[str, Span] = {}
    world_spans: dict[str, Span] = {}
    for d in module.decls:
        if isinstance(d, n.ThingDecl) and d.name in env.things and env.things[d.name].decl_span == d.span:
            target = env.things[d.name].fields
            spans = env.things[d.name].field_spans
            owner = d.name
            builtin = {d.key: f"`{d.key}` is the key of `{d.name}` (`keyed by {d.key}`): every {d.name} has it "
                              "already"} if not d.numbered else numbered_builtins(d.name, d.numbered)
        elif isinstance(d, n.GridDecl) and env.grid is not None and env.grid.decl is d:
            target = env.things[d.name].fields
            spans = env.things[d.name].field_spans
            owner = d.name
            builtin = {}
        elif isinstance(d, n.PlayerDecl):
            target = env.player_fields
            spans = player_spans
            owner = "Player"
            builtin = {b: f"`{b}` is a built-in field of every player: it is there already" for b in PLAYER_BUILTINS}
        elif isinstance(d, n.WorldDecl) and d is worlds[0]:
            target = env.world_fields
            spans = world_spans
            owner = "world"
            builtin = {}
        else:
            continue
        for f in d.fields:
            if f.name in builtin:
                env.diags.error(f.span, "E0203", builtin[f.name], help="remove this line")
                continue
            if f.name in target:
                env.diags.error(f.span, "E0203", f"field `{f.name}` is declared twice",
                                notes=[f"first declared at {spans[f.name]}"],
                                help="remove one of them, or rename it")
                continue
            ty = env.resolve_type(f.type)
            if f.from_scenario:
                _check_from_scenario(env, f, isinstance(d, (n.ThingDecl, n.GridDecl)))
            elif isinstance(ty, T.ThingT) and f.default is None and not (isinstance(d, n.ThingDecl) and d.numbered) \
                    and not env.numbered(ty):
                # (A numbered thing's field without a default is given by every `new`; a field holding a
                # numbered thing is judged by checker/units.py.)
                keys = env.things[ty.name].keys if ty.name in env.things else []
                start = f", or start it at one: `{f.name}: {ty.name} = {ty.name}.{keys[0]}`" if keys else ""
                env.diags.error(f.type.span, "E0228", f"field `{f.name}` holds a {ty.name} but starts with none",
                                help=f"make it optional: `{f.name}: {ty.name}?`{start}")
            if f.default is not None:
                env.defaults[(owner, f.name)] = f.default
            if f.where is not None:
                env.wheres[(owner, f.name)] = f.where
            target[f.name] = ir.FieldDef(f.name, ty, None, f.reset_each_turn, f.span.line,
                                         from_scenario=f.from_scenario and not isinstance(d, (n.ThingDecl,
                                                                                              n.GridDecl)),
                                         span=f.span, indexed=f.indexed)
            spans[f.name] = f.span


def numbered_builtins(thing: str, numbered: str) -> dict[str, str]:
    """The built-in fields of a numbered thing, each with what E0203 says of a field that declares it again."""
    out = {"number": f"`number` is built in: every {thing} has its number already"}
    if numbered == "owner":
        out["owner"] = f"`owner` is built in (`numbered per owner`): every {thing} has its owner already"
    return out


def _check_from_scenario(env: Env, f: n.FieldDecl, of_thing: bool) -> None:
    """E0229: a field `from scenario` has no default to start from or to go back to, and belongs to a player
    or the world (a thing's instances, and so their values, are the ruleset's own `data`)."""
    if of_thing:
        env.diags.error(f.span, "E0229", f"a thing's field cannot come `from scenario`: `{f.name}` would need "
                                         "every instance in every scenario",
                        help="give it a default, or set it in the thing's `data` rows")
    if f.default is not None:
        env.diags.error(f.default.span, "E0229", f"field `{f.name}` comes from the scenario, so it has no default",
                        help="remove `from scenario` to start every one at this value, or remove the default")
    if f.reset_each_turn:
        env.diags.error(f.span, "E0229", f"field `{f.name}` comes from the scenario, so it cannot be "
                                         "`reset each turn`: it has no default to go back to",
                        help="remove `reset each turn`, or give it a default instead of `from scenario`")


def data(c: Checking) -> None:
    """Each thing's instances, from its `data` rows."""
    c.program.instances = _data(c.env, c.module)


def _data(env: Env, module: n.Module) -> dict[str, list[ir.Instance]]:
    out: dict[str, list[ir.Instance]] = {}
    given: set[str] = set()  # things with a `data` block, whether or not its rows could be read
    declared = {d.name for d in module.decls if isinstance(d, n.ThingDecl)}
    for d in module.decls:
        if not isinstance(d, n.DataDecl):
            continue
        if d.name not in env.things:
            if d.name in declared:
                continue  # a thing refused for its name (E0202): that is the one mistake
            meant = closest(d.name, env.things)
            env.diags.error(d.span, "E0209", f"data for unknown thing `{d.name}`",
                            help=f"did you mean `{meant}`?" if meant else _things_hint(env))
            if meant is not None:
                given.add(meant)  # so `meant` is not also said to have no data
            continue
        given.add(d.name)
        info = env.things[d.name]
        if env.grid is not None and d.name == env.grid.decl.name:
            env.diags.error(d.span, "E0231", f"`{d.name}` is a grid: its sectors are made from its size, so it has "
                            "no `data` rows", help=f"give every sector a field's value with the field's default, "
                            f"and set single sectors in the scenario's `{d.name}:` section")
            continue
        if info.numbered:
            env.diags.error(d.name_span or d.span, "E0240", f"`{d.name}` is numbered: its instances are made while "
                            "the game runs, not listed in `data`",
                            help=f"make them with `new {d.name}(...)` in a phase, or list them in the scenario's "
                                 f"`{d.name}:` section; or declare `thing {d.name} keyed by code` to list them here")
            continue
        if d.columns[0] != info.key:
            help = None
            if info.key in d.columns:
                order = [info.key, *(c for c in d.columns if c != info.key)]
                help = f"put the key first: `data {d.name}({', '.join(order)})`"
            env.diags.error(_column_span(d, 0), "E0210",
                            f"the first column of `data {d.name}` is its key `{info.key}`, not `{d.columns[0]}`",
                            help=help or f"write `data {d.name}({info.key}, ...)`")
            continue
        cols = d.columns[1:]
        for i, c in enumerate(cols, 1):
            if c == info.key:
                env.diags.error(_column_span(d, i), "E0211", f"`{c}` is the key of {d.name}: it is the first "
                                "column only", help="remove this column")
            elif c in cols[:i - 1]:
                env.diags.error(_column_span(d, i), "E0203", f"column `{c}` of `data {d.name}` is named twice",
                                notes=[f"the first is column {cols.index(c) + 2}"],
                                help="each field gets one column; remove this one")
            elif c not in info.fields:
                env.diags.error(_column_span(d, i), "E0211", f"{d.name} has no field `{c}`",
                                help=_fields_hint(info, c))
        rows = out.setdefault(d.name, [])
        seen: dict[str, ir.Instance] = {r.key.upper(): r for r in rows}
        for row in d.rows:
            key_span = Span(row.span.file, row.span.line, row.span.col, row.span.line, row.span.col + len(row.key))
            first = seen.get(row.key.upper())
            if first is not None:
                if first.key == row.key:
                    env.diags.error(key_span, "E0212", f"{d.name} `{row.key}` appears twice: its first row is at "
                                    f"line {first.line}", help="keep one of the two rows")
                else:
                    env.diags.error(key_span, "E0212", f"`{row.key}` is the same key as `{first.key}` (line "
                                    f"{first.line}): keys are matched without regard to case",
                                    help="give it a key that differs in more than case")
                continue
            if len(row.values) != len(cols):
                env.diags.error(row.span, "E0213",
                                f"this row has {len(row.values)} value(s) but the columns name {len(cols)}",
                                help="columns: " + ", ".join(cols))
            values: dict[str, Any] = {}
            for c, v in zip(cols, row.values, strict=False):
                if c in info.fields:
                    values[c] = const_value(env, v, info.fields[c].ty, f"`{c}` of {row.key}")
            inst = ir.Instance(row.key, values, row.span.line, span=row.span)
            seen[row.key.upper()] = inst
            rows.append(inst)
    for name, info in env.things.items():
        if name not in given and not info.numbered and not (env.grid is not None and name == env.grid.decl.name):
            env.diags.warning(info.decl_span, "W0202", f"thing `{name}` has no `data` rows, so the game has none")
    return out



def _things_hint(env: Env) -> str:
    if not env.things:
        return "declare it first: `thing NAME keyed by code { ... }`"
    return "the things are " + and_(f"`{t}`" for t in env.things)


def _fields_hint(info: ThingInfo, column: str) -> str:
    if not info.fields:
        return f"{info.name} has no fields yet: declare them in `thing {info.name} keyed by {info.key} {{ ... }}`"
    listed = f"the fields of {info.name} are " + and_(f"`{f}`" for f in info.fields)
    meant = closest(column, info.fields)
    return f"did you mean `{meant}`? {listed[0].upper()}{listed[1:]}" if meant else listed



def _column_span(d: n.DataDecl, i: int) -> Span:
    """Where column `i` of `data THING(...)` is written."""
    return d.column_spans[i] if i < len(d.column_spans) else d.columns_span


def links(c: Checking) -> None:
    """`links THING.FIELD { ... }`: both ends of each link, in the instances' values."""
    env, module, instances = c.env, c.module, c.program.instances
    for d in module.decls:
        if not isinstance(d, n.LinksDecl):
            continue
        info = env.things.get(d.name)
        if info is None:
            if not any(isinstance(t, n.ThingDecl) and t.name == d.name for t in module.decls):
                env.diags.error(d.span, "E0209", f"links for unknown thing `{d.name}`",
                                help=suggest(d.name, env.things) or _things_hint(env))
            continue
        if env.grid is not None and d.name == env.grid.decl.name:
            env.diags.error(d.span, "E0231", f"`{d.name}` is a grid: its sectors are neighbours by the map, so it "
                            "has no `links` rows", help="read a sector's neighbours with `neighbours(s)`")
            continue
        if info.numbered:
            env.diags.error(d.span, "E0240", f"`{d.name}` is numbered: its instances are made while the game runs, "
                            "so `links` cannot name them", help="link keyed things only")
            continue
        fd = info.fields.get(d.field)
        want = T.SetT(T.ThingT(d.name))
        if fd is None or fd.ty not in (want, T.ListT(T.ThingT(d.name))):
            env.diags.error(d.field_span, "E0214", f"`links {d.name}.{d.field}` needs a field "
                            f"`{d.field}: set of {d.name}`", help=suggest(d.field, info.fields))
            continue
        by_key = {i.key: i for i in instances.get(d.name, [])}
        # Keys match without regard to case; a link is kept under the key as `data` writes it.
        written = {k.upper(): k for k in by_key}
        for row in d.rows:
            if row.key.upper() not in written:
                key_span = Span(row.span.file, row.span.line, row.span.col, row.span.line,
                                row.span.col + len(row.key))
                env.diags.error(key_span, "E0207", f"no {d.name} is keyed `{row.key}`",
                                help=_key_hint(d.name, row.key, by_key))
                continue
            here = written[row.key.upper()]
            for target, span in row.targets:
                if target.upper() not in written:
                    env.diags.error(span, "E0207", f"no {d.name} is keyed `{target}`",
                                    help=_key_hint(d.name, target, by_key))
                    continue
                there = written[target.upper()]
                if there == here:
                    env.diags.error(span, "E0215", f"`{row.key}` cannot be linked to itself")
                    continue
                for a, b in ((here, there), (there, here)):
                    lst = by_key[a].values.setdefault(d.field, [])
                    if b not in lst:
                        lst.append(b)
        order = {k: i for i, k in enumerate(by_key)}
        for inst in by_key.values():
            if d.field in inst.values:
                inst.values[d.field] = sorted(inst.values[d.field], key=lambda k: order[k])


# ---------------------------------------------------------------- functions and procedures

def signatures(c: Checking) -> None:
    """The parameter types and declared result of every function and procedure."""
    env = c.env
    for info in env.functions.values():
        info.params = tuple((p.name, env.resolve_type(p.type)) for p in info.decl.params)
        if info.decl.result is not None:
            info.result = env.resolve_type(info.decl.result)
    for pinfo in env.procedures.values():
        pinfo.params = tuple((p.name, env.resolve_type(p.type)) for p in pinfo.decl.params)
        if pinfo.decl.result is not None:
            pinfo.result = env.resolve_type(pinfo.decl.result)
