"""AST expressions and statements -> typed IR, with every type and name error reported."""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
from fractions import Fraction
from typing import Protocol

from rulesdsl import ir
from rulesdsl import nodes as n
from rulesdsl import types as T
from rulesdsl.builtins import BUILTINS, CHANCE, KEYED, KEYS_MOST
from rulesdsl.checker import flow, making, ranges
from rulesdsl.checker.env import (
    PLAYER_BUILTINS,
    PLAYER_WRITABLE,
    Context,
    Env,
    FuncInfo,
    Scope,
    suggest,
    suggest_key,
)
from rulesdsl.runtime.core import money_setting
from rulesdsl.source import Span

AGGREGATES = {"sum", "count", "max", "min", "any", "all", "best", "sorted", "list", "distinct"}


def keeps_identity(t: T.Ty) -> bool:
    """Whether a value of type `t` is the same value wherever it is found, and reads as one stable text: a whole
    number, a text, a yes/no, a player, a thing or sector or numbered thing, or one of them or none. `distinct`
    keeps such values once, and a random stream is keyed by them."""
    t = T.strip_opt(t)
    if isinstance(t, T.Num):
        return t.unit == "" and not t.decimal
    return isinstance(t, T.ThingT) or t in (T.TEXT, T.BOOL, T.NONE, T.ANY)


def _path(e: n.Expr) -> str | None:
    """A narrowable path: `x`, `x.f`, `x.f.g`."""
    if isinstance(e, n.Name):
        return e.name
    if isinstance(e, n.Attr):
        base = _path(e.obj)
        return f"{base}.{e.name}" if base else None
    return None


_PREC = {"or": 1, "and": 2, "not": 3, "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4, "in": 4, "not in": 4,
         "+": 5, "-": 5, "*": 6, "/": 6, "div": 6, "%": 6}


def show_expr(e: n.Expr) -> str | None:
    """The expression as the designer wrote it (give or take spaces and brackets), for hints; None if too big."""
    out = _show(e)
    return out if out is not None and len(out) <= 60 else None


def _show(e: n.Expr) -> str | None:
    if isinstance(e, n.Name):
        return e.name
    if isinstance(e, n.Number):
        v = e.value
        return str(v) if isinstance(v, int) else str(float(v))
    if isinstance(e, n.Bool):
        return "true" if e.value else "false"
    if isinstance(e, n.NoneLit):
        return "none"
    if isinstance(e, n.Text):
        return '"' + "".join(p for p in e.parts if isinstance(p, str)) + '"' if all(
            isinstance(p, str) for p in e.parts) else None
    if isinstance(e, n.Attr):
        obj = _show(e.obj)
        return f"{_wrap(obj, e.obj, 9)}.{e.name}" if obj is not None else None
    if isinstance(e, n.Index):
        obj, idx = _show(e.obj), _show(e.index)
        return f"{_wrap(obj, e.obj, 9)}[{idx}]" if obj is not None and idx is not None else None
    if isinstance(e, n.Call):
        args = [_show(a) for a in e.args]
        return f"{e.func}({', '.join(a for a in args if a is not None)})" if None not in args else None
    if isinstance(e, n.UnaryOp):
        inner = _show(e.operand)
        if inner is None:
            return None
        return f"not {_wrap(inner, e.operand, 3)}" if e.op == "not" else f"-{_wrap(inner, e.operand, 7)}"
    if isinstance(e, n.ListLit):
        items = [_show(i) for i in e.items]
        return f"[{', '.join(i for i in items if i is not None)}]" if None not in items else None
    if isinstance(e, n.Comprehension):
        body, source = _show(e.body), _show(e.source)
        where = _show(e.where) if e.where is not None else ""
        by = _show(e.by) if e.by is not None else ""
        if body is None or source is None or where is None or by is None:
            return None
        inner = (f"{body} for {e.var} in {source}" + (f" where {where}" if where else "")
                 + (f" by {by}" if by else "") + (" descending" if e.descending else ""))
        return f"[{inner}]" if e.func == "list" else f"{e.func}({inner})"
    if isinstance(e, n.Route):
        cost, start, goal = _show(e.cost), _show(e.start), _show(e.goal)
        if cost is None or start is None or goal is None:
            return None
        return f"{e.func}({cost} for {e.var} from {start} to {goal})"
    if isinstance(e, n.Reach):
        body, seeds = _show(e.body), _show(e.seeds)
        via = _show(e.via) if e.via is not None else ""
        where = _show(e.where) if e.where is not None else ""
        if body is None or seeds is None or via is None or where is None:
            return None
        return (f"{e.func}({body} for {e.var} from {seeds}" + (f" via {via}" if via else "")
                + (f" where {where}" if where else "") + ")")
    if isinstance(e, n.BinOp):
        left, right = _show(e.left), _show(e.right)
        if left is None or right is None:
            return None
        prec = _PREC.get(e.op, 0)
        return f"{_wrap(left, e.left, prec)} {e.op} {_wrap(right, e.right, prec + 1)}"
    return None


def _mentions(e: object, name: str) -> bool:
    """Does the AST `e` read the bare name `name` anywhere (a name an inner form binds again counts too)?"""
    if isinstance(e, n.Name):
        return e.name == name
    if isinstance(e, (tuple, list)):
        return any(_mentions(x, name) for x in e)
    if dataclasses.is_dataclass(e) and not isinstance(e, (Span, type)):
        return any(_mentions(getattr(e, f.name), name) for f in dataclasses.fields(e))
    return False


def _wrap(text: str, e: n.Expr, prec: int) -> str:
    """`text` in brackets if `e` binds less tightly than an operand of precedence `prec` needs."""
    if isinstance(e, n.BinOp):
        mine = _PREC.get(e.op, 0)
    elif isinstance(e, n.UnaryOp):
        mine = 3 if e.op == "not" else 7
    else:
        return text
    return f"({text})" if mine < prec else text


def _joined(a: Span, b: Span) -> Span:
    """From the start of `a` to the end of `b`."""
    return Span(a.file, a.line, a.col, b.end_line, b.end_col)


def convert_hint(value: T.Ty, want: T.Ty, node: n.Expr | None) -> str | None:
    """How to turn a number of one kind into the other (`money(n)`, `amount(m)`), or None if they are not."""
    if not T.mixes_money(value, want):
        return None
    assert isinstance(value, T.Num) and isinstance(want, T.Num)
    x = (show_expr(node) if node is not None else None) or ("n" if want.unit == "money" else "m")
    if value.decimal and not want.decimal:
        x = f"round({x})"
    if want.unit == "money":
        return f"money and counts do not mix: `money({x})` turns a count into money"
    return f"money and counts do not mix: `amount({x})` turns money into a count"


def fits_money(value: int | Fraction, places: int) -> bool:
    """Is `value` a whole number of the smallest amount of money (`7.4` under `money "0.1"`)?"""
    return places > 0 and (Fraction(value) * 10 ** places).denominator == 1


def money_places_message(value: int | Fraction | None, places: int) -> str:
    shown = ranges.number(value) if value is not None else "this amount"
    return f'{shown} has more places than the ruleset\'s money "{money_setting(places)}"'


def money_places_hint(places: int) -> str:
    return (f"money keeps {places} decimal place{'s' if places > 1 else ''} (`money \"{money_setting(places)}\"` "
            "in the header): write the amount with no more, or make the header's smallest amount smaller")


def literal_number(e: ir.Expr) -> int | Fraction | None:
    """The value of a number written as a literal (`3`, `-2`, `1.5`), or None for anything else."""
    if isinstance(e, ir.UnaryOp) and e.op == "-":
        inner = literal_number(e.operand)
        return -inner if inner is not None else None
    if isinstance(e, ir.Const) and isinstance(e.value, (int, Fraction)) and not isinstance(e.value, bool):
        return e.value
    return None


def _is_zero(e: ir.Expr) -> bool:
    """A literal 0 (or 0.0, or -0): a divisor that always stops the turn."""
    return literal_number(e) == 0


def _default_for(ty: T.Ty, line: int) -> ir.Expr:
    if isinstance(ty, T.Num):
        return ir.Const(ty, line, 0)
    if ty == T.BOOL:
        return ir.Const(ty, line, False)
    if ty == T.TEXT:
        return ir.Const(ty, line, "")
    if isinstance(ty, (T.ListT, T.SetT)):
        return ir.MakeList(ty, line, ())
    return ir.Const(ty, line, None)


# `me` where no player gives an order: what to write instead, by where it stands.
_ME_HINTS = {
    "phase": "a phase acts for every player at once: go through them, `for each p in players { ... }`, "
             "and write `p` for `me`",
    "procedure": "pass the player as a parameter, like `procedure pay(p: Player)`, or go through them: "
                 "`for each p in players { ... }`",
    "function": "pass the player as a parameter, like `define f(p: Player) = ...`",
    "victory": "a victory rule names its own player, as in `victory v for p { when p.cash > 100 }`: write `p`",
    "static": "a default or a table value is the same for every player; change it in an order's effect",
    "invariant": "an invariant holds for the whole game: go through the players, as in "
                 "`all(p.cash >= 0 for p in all_players)`",
    "hidden fact": "a hidden fact names its players itself, as in `hidden p.cash from q`: write `p` or `q`",
}
# Names other languages use for true, false and none.
_FOREIGN_LITERALS = {"true": "write `true`", "false": "write `false`", "none": "write `none`",
                     "null": "write `none`", "nil": "write `none`"}


# Where chance is refused, by context kind, and what to do instead.
_CHANCE_PLACES = {
    "function": "a function",
    "order": "an order's `valid`, `require`, `cost` or `ends turn`",
    "report": "a report",
    "victory": "a victory rule",
    "static": "a default, a table or a bound, which are fixed before play",
    "stream key": "a random stream's key, which names the stream before it draws",
    "simulation": "a `choose`, whose options the simulator draws from with its own dice",
    "invariant": "an invariant, which is read between turns and must not change the game",
    "hidden fact": "a hidden fact's `unless`, which is read between turns and must not change the game",
}
_CHANCE_HINTS = {
    "function": "draw in the phase or the order's effect that calls it, and pass the result as a parameter",
    "order": "draw in the order's `effect`, and `fail` there if the draw goes against it",
    "stream key": "key the stream by what the draw is about (a player, a sector, a unit), not by another draw",
    "simulation": "give every value the argument may take: the simulator draws one of them itself",
    "invariant": "state what must hold of every outcome the dice could give",
    "hidden fact": "state what lets the player know, from the game's state",
}


# How each chance function is called, as the language reference writes it.
_CHANCE_USAGE = {"chance": 'chance(30, "kill")', "roll": 'roll(100, "kill")', "draw": 'draw(missile_yield, "cards")',
                 "pick": 'pick(players, "fallout")', "shuffle": 'shuffle(players, "move order")'}


def _params(params: tuple[tuple[str, T.Ty], ...]) -> str:
    return ", ".join(f"{p}: {ty.show()}" for p, ty in params)


def _writable(ty: T.Ty) -> bool:
    """Can the designer write this type after `->`?"""
    if isinstance(ty, T.Num):
        return not ty.literal
    if isinstance(ty, (T.OptT, T.ListT, T.SetT)):
        inner = ty.inner if isinstance(ty, T.OptT) else ty.item
        return _writable(inner) and not isinstance(inner, T.OptT)
    if isinstance(ty, T.MapT):
        return _writable(ty.key) and _writable(ty.value)
    return isinstance(ty, T.ThingT) or ty in (T.BOOL, T.TEXT)


def _header_span(decl: n.DefineDecl) -> Span:
    """`define NAME(PARAMS`: where a result type is written, after the parameters."""
    s = decl.span
    end = decl.params[-1].span.end_col + 1 if decl.params and decl.params[-1].span.line == s.line \
        else s.col + len(f"define {decl.name}()")
    return Span(s.file, s.line, s.col, s.line, end)


class Resolver(Protocol):
    """Phase 2's memo of bodies: what a call or a read asks for, checked on demand and once."""

    def function(self, info: FuncInfo) -> ir.Function | None:
        """The function's checked body (None while it is being checked: the call is recursive)."""

    def field_default(self, owner: str, name: str) -> ir.Expr | None:
        """The checked default of field `name` of `owner` (a thing, `Player` or `world`), if it has one."""


class ExprChecker:
    def __init__(self, env: Env, resolver: Resolver) -> None:
        self.env = env
        self.diags = env.diags
        self.resolver = resolver
        # Every expression checked, by its span: a hint can then quote what the designer wrote even
        # when a caller (a cost, a default) hands `expect` only a span.
        self._nodes: dict[Span, n.Expr] = {}
        self._sort_keys: dict[int, str] = {}  # id of a `by` expression -> what it sorts (`sorted`, `best`, `for`)

    # ------------------------------------------------------------ helpers
    def err(self, span: Span, code: str, msg: str, help: str | None = None) -> None:
        self.diags.error(span, code, msg, help=help)

    def shown(self, node: n.Expr) -> str | None:
        return show_expr(node)

    def grid(self) -> T.ThingT | None:
        return T.ThingT(self.env.grid.decl.name) if self.env.grid is not None else None

    def money_places(self) -> int:
        return self.env.money_places

    def expect(self, e: ir.Expr, want: T.Ty, span: Span, what: str) -> ir.Expr:
        places = self.env.money_places
        if places and e.ty == T.LITERAL_DEC and T.strip_opt(want) == T.MONEY and literal_number(e) is not None:
            self.err(span, "E0374", money_places_message(literal_number(e), places),
                     money_places_hint(places))
            return e
        if not T.assignable(e.ty, want):
            self.err(span, "E0301", f"{what} should be {want.show()}, but this is {e.ty.show()}",
                     self.type_hint(e.ty, want, self._nodes.get(span)))
        return e

    def type_hint(self, have: T.Ty, want: T.Ty, node: n.Expr | None) -> str | None:
        """How to turn a value of type `have` into one of type `want`, in the words of the expression."""
        x = show_expr(node) if node is not None else None
        if isinstance(have, T.OptT) and T.assignable(have.inner, want):
            return f"this may be none: check it first with `if {x or 'x'} != none {{ ... }}`"
        if T.mixes_money(have, want):
            return convert_hint(have, want, node)
        if isinstance(have, T.Num) and isinstance(want, T.Num) and have.decimal and not want.decimal:
            if isinstance(node, n.BinOp) and node.op == "/":
                left, right = show_expr(node.left), show_expr(node.right)
                if left is not None and right is not None:
                    whole = f"{_wrap(left, node.left, 6)} div {_wrap(right, node.right, 7)}"
                    return (f"`/` always gives a decimal: divide with `div` for a whole number (`{whole}`), "
                            "or round with `round(...)`, `floor(...)` or `ceil(...)`")
            x = x or "x"
            return f"a decimal does not fit a whole number: round it with `round({x})`, `floor({x})` or `ceil({x})`"
        return None

    def cond(self, node: n.Expr, scope: Scope, ctx: Context) -> ir.Expr:
        e = self.expr(node, scope, ctx)
        return self.expect(e, T.BOOL, node.span, "a condition")

    def narrowing(self, node: n.Expr, scope: Scope, ctx: Context, positive: bool = True) -> dict[str, T.Ty]:
        """Paths that the condition `node` proves not none when it holds (or fails)."""
        out: dict[str, T.Ty] = {}
        if isinstance(node, n.BinOp) and node.op == ("and" if positive else "or"):
            out.update(self.narrowing(node.left, scope, ctx, positive))
            out.update(self.narrowing(node.right, scope, ctx, positive))
        elif isinstance(node, n.UnaryOp) and node.op == "not":
            out.update(self.narrowing(node.operand, scope, ctx, not positive))
        elif isinstance(node, n.BinOp) and node.op in ("!=", "==") and (node.op == "!=") == positive:
            for side, other in ((node.left, node.right), (node.right, node.left)):
                path = _path(side)
                if path and isinstance(other, n.NoneLit):
                    ty = self._quiet_type(side, scope, ctx)
                    if isinstance(ty, T.OptT):
                        out[path] = ty.inner
        return out

    @staticmethod
    def _none_ruled_out(node: n.BinOp, scope: Scope) -> tuple[str, str] | None:
        """`x.f != none` where a test around it (a loop's `where`, an `if`) has proved `x.f` not none: the
        path and what proved it."""
        for side, other in ((node.left, node.right), (node.right, node.left)):
            path = _path(side)
            if path and isinstance(other, n.NoneLit) and scope.narrowed(path) is not None:
                why = scope.narrowed_by(path)
                if why:
                    return path, why
        return None

    def _quiet_type(self, node: n.Expr, scope: Scope, ctx: Context) -> T.Ty:
        mark = len(self.diags.items)
        ty = self.expr(node, scope, ctx).ty
        del self.diags.items[mark:]
        return ty

    # ------------------------------------------------------------ expressions
    def expr(self, node: n.Expr, scope: Scope, ctx: Context) -> ir.Expr:
        """The typed IR of `node`; it and every part made for it carry `node`'s span."""
        return ir.spanned(self._expr(node, scope, ctx), node.span)

    def _expr(self, node: n.Expr, scope: Scope, ctx: Context) -> ir.Expr:
        line = node.span.line
        self._nodes[node.span] = node
        if isinstance(node, n.Number):
            lit = T.LITERAL_DEC if not isinstance(node.value, int) else T.LITERAL
            if lit == T.LITERAL_DEC and fits_money(node.value, self.env.money_places):
                lit = T.LITERAL_MONEY
            return ir.Const(lit, line, node.value)
        if isinstance(node, n.Text):
            return self.text(node, scope, ctx)
        if isinstance(node, n.Bool):
            return ir.Const(T.BOOL, line, node.value)
        if isinstance(node, n.NoneLit):
            return ir.Const(T.NONE, line, None)
        if isinstance(node, n.Name):
            return self.name(node, scope, ctx)
        if isinstance(node, n.Attr):
            return self.attr(node, scope, ctx)
        if isinstance(node, n.Index):
            return self.index(node, scope, ctx)
        if isinstance(node, n.Call):
            return self.call(node, scope, ctx)
        if isinstance(node, n.Comprehension):
            return self.comprehension(node, scope, ctx)
        if isinstance(node, n.Route):
            return self.route(node, scope, ctx)
        if isinstance(node, n.New):
            return making.new(self, node, scope, ctx)
        if isinstance(node, n.Reach):
            return self.reach(node, scope, ctx)
        if isinstance(node, n.BinOp):
            return self.binop(node, scope, ctx)
        if isinstance(node, n.UnaryOp):
            operand = self.expr(node.operand, scope, ctx)
            if node.op == "not":
                self.expect(operand, T.BOOL, node.operand.span, "`not` needs a condition; this")
                return ir.UnaryOp(T.BOOL, line, "not", operand)
            if not T.is_num(operand.ty):
                self.err(node.span, "E0302", f"`-` needs a number, not {operand.ty.show()}",
                         help=self._minus_hint(node, operand.ty))
                return ir.UnaryOp(T.ANY, line, "-", operand)
            return ir.UnaryOp(operand.ty, line, "-", operand)
        if isinstance(node, n.CondExpr):
            c = self.cond(node.cond, scope, ctx)
            with scope.push(self.narrowing(node.cond, scope, ctx), "the `if` of this expression"):
                a = self.expr(node.then, scope, ctx)
            with scope.push(self.narrowing(node.cond, scope, ctx, positive=False), "the `if` of this expression"):
                b = self.expr(node.otherwise, scope, ctx)
            both = T.unify(a.ty, b.ty)
            if both is None:
                self.err(node.span, "E0303", f"the two branches differ: {a.ty.show()} and {b.ty.show()}",
                         help=self._common_hint(node.then, a.ty, node.otherwise, b.ty, ("then", "else")))
                both = T.ANY
            return ir.Cond(both, line, c, a, b)
        if isinstance(node, n.ListLit):
            items = tuple(self.expr(i, scope, ctx) for i in node.items)
            item_ty: T.Ty = T.NONE
            for i, item in zip(node.items, items, strict=True):
                joined = T.unify(item_ty, item.ty) if item_ty != T.NONE else item.ty
                if joined is None:
                    self.err(i.span, "E0303", f"list items differ in type: {item_ty} and {item.ty.show()}",
                             help=self._common_hint(node.items[0], items[0].ty, i, item.ty, None))
                    joined = T.ANY
                item_ty = joined
            return ir.MakeList(T.ListT(item_ty), line, items)
        if isinstance(node, n.RecordLit):
            seen: set[str] = set()
            fields = []
            for fname, fexpr in node.fields:
                if fname in seen:
                    self.err(fexpr.span, "E0304", f"`{fname}` appears twice in this record")
                seen.add(fname)
                fields.append((fname, self.expr(fexpr, scope, ctx)))
            rty = T.RecordT(tuple((k, T.concrete(v.ty)) for k, v in fields))
            return ir.MakeRecord(rty, line, tuple(fields))
        raise AssertionError(f"unhandled expression {node!r}")

    def text(self, node: n.Text, scope: Scope, ctx: Context) -> ir.Expr:
        """A text: each `{...}` a value that reads as text. Whether one shows a secret parameter is phase 3's
        to say (checker/secrets.py), once every function's secrets are known."""
        return ir.spanned(self._text(node, scope, ctx), node.span)

    def _text(self, node: n.Text, scope: Scope, ctx: Context) -> ir.Expr:
        parts: list[str | ir.Expr] = []
        for p in node.parts:
            if isinstance(p, str):
                parts.append(p)
                continue
            e = self.expr(p, scope, ctx)
            if isinstance(e.ty, (T.ListT, T.SetT, T.RecordT, T.MapT)):
                self.err(p.span, "E0305", f"cannot put {e.ty.show()} into text", help=self._text_hint(p, e.ty))
            parts.append(e)
        if all(isinstance(p, str) for p in parts):
            return ir.Const(T.TEXT, node.span.line, "".join(p for p in parts if isinstance(p, str)))
        return ir.Interp(T.TEXT, node.span.line, tuple(parts))

    def _common_hint(self, a: n.Expr, a_ty: T.Ty, b: n.Expr, b_ty: T.Ty,
                     branches: tuple[str, str] | None) -> str | None:
        """E0303's hint: how to make two values (`then` and `else` branches, or two list items) one type:
        a thing's name or a number as text, money from a count."""
        if T.mixes_money(a_ty, b_ty):
            count, money = (a, b_ty) if isinstance(a_ty, T.Num) and a_ty.unit != "money" else (b, a_ty)
            return convert_hint(T.INT, money, count)
        for x, x_ty, other, word in ((a, a_ty, b_ty, 0), (b, b_ty, a_ty, 1)):
            shown = show_expr(x)
            if other != T.TEXT or shown is None:
                continue
            fix = None
            if isinstance(x_ty, T.ThingT):
                field = self._label_field(x_ty) or (self.env.things[x_ty.name].key if x_ty.name in self.env.things
                                                    else None)
                fix = f"{_wrap(shown, x, 9)}.{field}" if field is not None else None
            elif isinstance(x_ty, T.Num) or x_ty == T.BOOL:
                fix = f"text({shown})"
            if fix is not None:
                return (f"make both branches texts: write `{fix}` after `{branches[word]}`" if branches is not None
                        else f"make every item a text: write `{fix}`")
        return None

    def sort_key(self, node: n.Expr, sorts: str, scope: Scope, ctx: Context) -> ir.Expr:
        """The `by` of an aggregate or a loop: `sorts` says which, for the hints of a `-` in front of it."""
        self._sort_keys[id(node)] = sorts
        try:
            return self.expr(node, scope, ctx)
        finally:
            del self._sort_keys[id(node)]

    def _minus_hint(self, node: n.UnaryOp, ty: T.Ty) -> str | None:
        """E0302's hint: `descending` for a sort key, `not` for a condition, a test for a value that may be none."""
        x = show_expr(node.operand)
        sorts = self._sort_keys.get(id(node))
        if sorts is not None and sorts != "best" and ty in (T.TEXT, T.ANY):
            return f"to sort from Z to A, drop the `-` and write `by {x or 'KEY'} descending`"
        if ty == T.BOOL:
            return f"for the opposite of a condition, write `not {_wrap(x, node.operand, 3) if x else 'COND'}`"
        if isinstance(ty, T.OptT) and isinstance(ty.inner, T.Num):
            return self.type_hint(ty, ty.inner, node.operand)
        return None

    def _text_hint(self, part: n.Expr, ty: T.Ty) -> str:
        """How to put a list, a record or a per-key value into a text: one value, joined texts, a count."""
        x = show_expr(part) or "..."
        if isinstance(ty, T.MapT):
            return f"put in one value, like `{{{x}[KEY]}}`"
        if isinstance(ty, T.RecordT):
            return f"put in one field at a time, like `{{{x}.{ty.fields[0][0] if ty.fields else 'FIELD'}}}`"
        assert isinstance(ty, (T.ListT, T.SetT))
        count = f"or count them: `{{size({x})}}`"
        if ty.item == T.TEXT:
            return f'join the texts: `{{join({x}, ", ")}}`, {count}'
        item = ty.item
        if isinstance(item, T.ThingT):
            var = item.name[0].lower()
            info = self.env.things.get(item.name)
            fields = self.env.fields_of(item.name)
            label = "name" if item.name == "Player" or (
                "name" in fields and fields["name"].ty == T.TEXT) else info.key if info else "name"
            return f'join their names: `{{join([{var}.{label} for {var} in {x}], ", ")}}`, {count}'
        if isinstance(item, T.Num):
            return f'join them as texts: `{{join([text(v) for v in {x}], ", ")}}`, {count}'
        return f"count them: `{{size({x})}}`"

    def name(self, node: n.Name, scope: Scope, ctx: Context) -> ir.Expr:
        line = node.span.line
        narrowed = scope.narrowed(node.name)
        local = scope.lookup(node.name)
        if local is not None:
            return ir.Local(narrowed or local, line, node.name)
        env = self.env
        if node.name == "me":
            if not ctx.me:
                self.err(node.span, "E0306", "`me` is only known in orders and reports", help=ctx.me_hint or
                         _ME_HINTS.get(ctx.kind, "`me` is the player giving an order or reading a report; name the "
                                       "player instead"))
                return ir.Special(T.ANY, line, "me")
            return ir.Special(T.PLAYER, line, "me")
        if ctx.default_of and node.name in env.order_args.get(ctx.default_of, {}):
            self.err(node.span, "E0434", f"`{node.name}` is an argument of `{ctx.default_of}`, and its `default` "
                     "runs when no such order was given: there is no argument to read",
                     help="decide from the game's state (a field, a loop over things) what the GM would have given")
            return ir.Const(T.ANY, line, None)
        if node.name == "turn":
            return ir.Special(T.INT, line, "turn")
        if node.name == "game_over":
            return ir.Special(T.BOOL, line, "game_over")
        if node.name == "world":
            example = next(iter(env.world_fields), "round")
            self.err(node.span, "E0337", "`world` is read and changed through its fields",
                     help=f"write `world.{example}`")
            return ir.Const(T.ANY, line, None)
        if node.name in ("players", "all_players"):
            return ir.Special(T.ListT(T.PLAYER), line, node.name)
        if node.name in env.params:
            p = env.params[node.name]
            env.used.add(node.name)
            return ir.ParamRef(p.ty, line, node.name)
        if node.name in env.things or node.name == "Player":
            if node.name == "Player":
                return ir.Special(T.ListT(T.PLAYER), line, "all_players")
            return ir.AllOf(T.ListT(T.ThingT(node.name)), line, node.name)
        if node.name in env.tables:
            env.used.add(node.name)
            self.err(node.span, "E0308", f"table `{node.name}` needs its key", help=f"write `{node.name}(...)`")
            return ir.Const(T.ANY, line, None)
        hint = _FOREIGN_LITERALS.get(node.name.lower()) or suggest(
            node.name, [*scope.names(), *env.params, *env.things, "me", "turn", "players"])
        self.err(node.span, "E0309", f"unknown name `{node.name}`", hint)
        return ir.Const(T.ANY, line, None)

    def attr(self, node: n.Attr, scope: Scope, ctx: Context) -> ir.Expr:
        line = node.span.line
        if isinstance(node.obj, n.Name) and scope.lookup(node.obj.name) is None:
            if node.obj.name == "world":
                return self.world_field(node, scope)
            if node.obj.name == "calendar":
                return self.calendar_field(node)
            if node.obj.name in self.env.things:
                return self.instance(node.obj.name, node)
        obj = self.expr(node.obj, scope, ctx)
        path = _path(node)
        narrowed = scope.narrowed(path) if path else None
        base = obj.ty
        if base == T.ANY:
            return ir.Field(T.ANY, line, obj, node.name)
        if isinstance(base, T.OptT):
            x = show_expr(node.obj)
            what = f"`{x}`" if x is not None else "this"
            self.err(node.obj.span, "E0310", f"{what} may be none, so `.{node.name}` cannot be read",
                     help=f"check it first: `if {x or 'x'} != none {{ ... }}`")
            return ir.Field(T.ANY, line, obj, node.name)
        if isinstance(base, T.ThingT):
            fields = self.env.fields_of(base.name)
            if base.name == "Player" and node.name in PLAYER_BUILTINS:
                return ir.Field(narrowed or PLAYER_BUILTINS[node.name], line, obj, node.name)
            if base.name in self.env.things and node.name == self.env.things[base.name].key:
                return ir.Field(T.TEXT, line, obj, node.name)
            numbered = self.env.numbered(base)
            if numbered and node.name == "number":
                return ir.Field(T.INT, line, obj, node.name)
            if numbered == "owner" and node.name == "owner":
                return ir.Field(narrowed or self.env.things[base.name].owner_ty, line, obj, node.name)
            if node.name in fields:
                return ir.Field(narrowed or fields[node.name].ty, line, obj, node.name)
            names = list(fields) + (list(PLAYER_BUILTINS) if base.name == "Player" else
                                    [self.env.things[base.name].key] if base.name in self.env.things else [])
            self.err(node.name_span, "E0311", f"{base.name} has no field `{node.name}`",
                     suggest(node.name, names) or self._fields_hint(base.name, list(fields)))
            return ir.Field(T.ANY, line, obj, node.name)
        if isinstance(base, T.OrderT):
            args = self.env.order_args.get(base.order, {})
            if node.name == "player":
                return ir.Field(T.PLAYER, line, obj, "player")
            if node.name in args:
                return ir.Field(args[node.name], line, obj, node.name)
            self.err(node.name_span, "E0311", f"order `{base.order}` has no argument `{node.name}`",
                     suggest(node.name, [*args, "player"]))
            return ir.Field(T.ANY, line, obj, node.name)
        if isinstance(base, T.RecordT):
            ft = base.get(node.name)
            if ft is None:
                self.err(node.name_span, "E0311", f"this record has no field `{node.name}`",
                         suggest(node.name, [k for k, _ in base.fields]))
                return ir.RecordGet(T.ANY, line, obj, node.name)
            return ir.RecordGet(ft, line, obj, node.name)
        self.err(node.name_span, "E0311", f"{base.show()} has no fields")
        return ir.Field(T.ANY, line, obj, node.name)

    def _fields_hint(self, thing: str, declared: list[str]) -> str:
        """The fields a thing or a player does have, for a field that is not even close to one of them."""
        if thing == "Player":
            builtin = ", ".join(f"`{k}`" for k in PLAYER_BUILTINS if k not in declared)
            mine = ", ".join(f"`{k}`" for k in declared)
            return (f"a Player has {mine}, and the built-in {builtin}" if declared
                    else f"a Player has only the built-in {builtin}; declare more in `player {{ ... }}`")
        info = self.env.things.get(thing)
        names = ([info.key] if info is not None else []) + declared
        return f"a {thing} has {', '.join(f'`{k}`' for k in names)}" if names else f"a {thing} has no fields"

    def calendar_field(self, node: n.Attr) -> ir.Expr:
        """`calendar.year`, `.month`, `.period`, `.kind`, `.date`: the date of this turn."""
        line = node.span.line
        if self.env.calendar_kinds is None:
            self.err(node.span, "E0253", "`calendar` is read in a ruleset without a calendar",
                     help="declare one: `calendar { starts YEAR  kinds ...  cycle { ... } }`")
            return ir.Const(T.ANY, line, None)
        fields = {"year": T.INT, "period": T.TEXT, "kind": T.TEXT, "date": T.TEXT}
        if self.env.calendar_months:
            fields["month"] = T.INT
        if node.name not in fields:
            self.err(node.name_span, "E0311", f"the calendar has no field `{node.name}`",
                     suggest(node.name, fields) or f"it has {', '.join(f'`{k}`' for k in fields)}"
                     + ("" if self.env.calendar_months else "; `month` only in a cycle of months"))
            return ir.Const(T.ANY, line, None)
        return ir.Special(fields[node.name], line, f"calendar.{node.name}")

    def world_field(self, node: n.Attr, scope: Scope) -> ir.Expr:
        line = node.span.line
        obj = ir.Special(T.WORLD, line, "world")
        fd = self.env.world_fields.get(node.name)
        if fd is None:
            if self.env.world_line is None:
                hint = f"declare it: `world {{ {node.name}: TYPE }}`"
            else:
                hint = (suggest(node.name, self.env.world_fields)
                        or f"declare it in the `world` block at line {self.env.world_line}")
            self.err(node.name_span, "E0311", f"the world has no field `{node.name}`", hint)
            return ir.Field(T.ANY, line, obj, node.name)
        path = _path(node)
        narrowed = scope.narrowed(path) if path else None
        return ir.Field(narrowed or fd.ty, line, obj, node.name)

    def instance(self, thing: str, node: n.Attr) -> ir.Expr:
        """`Card.S12`: the instance with that key; keys match without regard to case, as players write them."""
        info = self.env.things[thing]
        if self.env.grid is not None and thing == self.env.grid.decl.name:
            self.err(node.name_span, "E0239", f"a {thing} has no name to write after `{thing}.`: sectors are "
                     "found by where they are", help=f"write `sector_at(COLUMN, ROW)`, or a {thing} an order "
                     "names")
            return ir.Const(T.ANY, node.span.line, None)
        key = next((k for k in info.keys if k.upper() == node.name.upper()), None)
        if key is None and info.numbered:
            self.err(node.name_span, "E0207", f"{thing} is numbered: its instances have no keys to name them by",
                     help=f"find one by its number, like `first([x for x in {thing} where x.number == 1])`")
            return ir.Const(T.ANY, node.span.line, None)
        if key is None:
            self.err(node.name_span, "E0207", f"no {thing} is keyed `{node.name}`", suggest_key(node.name, info.keys))
            return ir.Const(T.ANY, node.span.line, None)
        return ir.InstanceRef(T.ThingT(thing), node.span.line, thing, key)

    def index(self, node: n.Index, scope: Scope, ctx: Context) -> ir.Expr:
        line = node.span.line
        if isinstance(node.obj, n.Name) and node.obj.name in self.env.tables and scope.lookup(node.obj.name) is None:
            return self.table_call(node.obj.name, node.obj.span, (node.index,), node.span, scope, ctx)
        obj = self.expr(node.obj, scope, ctx)
        idx = self.expr(node.index, scope, ctx)
        if obj.ty == T.ANY:
            return ir.ListIndex(T.ANY, line, obj, idx)
        if isinstance(obj.ty, T.MapT):
            self.expect(idx, obj.ty.key, node.index.span, "the key")
            default = None
            if isinstance(obj, ir.Field):
                owner = self._owner(obj.obj.ty)
                default = self.resolver.field_default(owner, obj.name) if owner is not None else None
            return ir.MapGet(obj.ty.value, line, obj, idx, default or _default_for(obj.ty.value, line))
        if isinstance(obj.ty, T.ListT):
            self.expect(idx, T.INT, node.index.span, "a list position")
            return ir.ListIndex(obj.ty.item, line, obj, idx)
        x = show_expr(node.obj)
        what = f"`{x}`" if x is not None else "this"
        kind = f"a number ({obj.ty.show()})" if isinstance(obj.ty, T.Num) else T.describe(obj.ty)
        hint = None
        if isinstance(obj, ir.Field) and isinstance(idx.ty, T.ThingT) and isinstance(obj.obj.ty, (T.ThingT, T.WorldT)):
            hint = (f"for one value per {idx.ty.name}, declare the field as "
                    f"`{obj.name}: {idx.ty.name} -> {T.concrete(obj.ty).show()}`")
        self.err(node.span, "E0312", f"{what} is {kind}; only lists, tables and per-key values take `[...]`",
                 help=hint)
        return ir.ListIndex(T.ANY, line, obj, idx)

    @staticmethod
    def _owner(ty: T.Ty) -> str | None:
        """Whose fields a value of type `ty` has, as `Env.defaults` names the owner."""
        if isinstance(ty, T.WorldT):
            return "world"
        return ty.name if isinstance(ty, T.ThingT) else None

    def table_call(self, name: str, name_span: Span, args: tuple[n.Expr, ...], span: Span, scope: Scope,
                   ctx: Context) -> ir.Expr:
        self.env.used.add(name)
        params, result = self.env.table_types.get(name, ((), T.ANY))
        decl = self.env.tables[name]
        if decl.weighted:
            self.err(span, "E0313", f"`{name}` is a weighted table: draw from it",
                     help=f'write `draw({name}, "purpose")`')
            return ir.Const(T.ANY, span.line, None)
        ir_args = tuple(self.expr(a, scope, ctx) for a in args)
        if len(ir_args) != len(params):
            self.err(span, "E0314", f"table `{name}` takes {len(params)} key(s), not {len(ir_args)}")
            return ir.TableGet(result, span.line, name, ir_args)  # the keys' types would only say it again
        for a, node, p in zip(ir_args, args, params, strict=True):
            self.expect(a, p, node.span, f"the key of `{name}`")
        return ir.TableGet(result, span.line, name, ir_args)

    def binop(self, node: n.BinOp, scope: Scope, ctx: Context) -> ir.Expr:
        line = node.span.line
        op = node.op
        left = self.expr(node.left, scope, ctx)
        if op in ("and", "or"):
            with scope.push(self.narrowing(node.left, scope, ctx, positive=(op == "and")),
                            f"the left side of this `{op}`"):
                right = self.expr(node.right, scope, ctx)
            self.expect(left, T.BOOL, node.left.span, f"`{op}` needs conditions; this")
            self.expect(right, T.BOOL, node.right.span, f"`{op}` needs conditions; this")
            return ir.BinOp(T.BOOL, line, op, left, right)
        right = self.expr(node.right, scope, ctx)
        if op in ("==", "!=", "<", "<=", ">", ">="):
            ok = T.equatable(left.ty, right.ty) if op in ("==", "!=") else T.comparable(left.ty, right.ty)
            ruled_out = self._none_ruled_out(node, scope) if not ok and op in ("==", "!=") else None
            if ruled_out is not None:
                path, why = ruled_out
                always = "true" if op == "!=" else "false"
                self.err(node.span, "E0315", f"`{path}` cannot be none here: {why} already rules none out",
                         help=f"leave this test out: it is always {always} here")
            elif not ok:
                hint = self._mix_hint(node, left.ty, right.ty)
                if hint is None and op not in ("==", "!="):
                    hint = f"`{op}` compares numbers of the same kind"
                self.err(node.span, "E0315", f"cannot compare {T.describe(left.ty)} with {T.describe(right.ty)}",
                         help=hint)
            return ir.BinOp(T.BOOL, line, op, left, right)
        if op in ("in", "not in"):
            coll = right.ty
            if coll != T.ANY:
                if isinstance(coll, (T.ListT, T.SetT)):
                    if not T.equatable(left.ty, coll.item):
                        self.err(node.span, "E0315", f"{left.ty.show()} is never in {coll.show()}")
                else:
                    self.err(node.right.span, "E0316", f"`{op}` needs a list or set, not {coll.show()}")
            return ir.BinOp(T.BOOL, line, op, left, right)
        if op == "+" and left.ty == T.TEXT and right.ty == T.TEXT:
            return ir.BinOp(T.TEXT, line, op, left, right)
        if op == "+" and isinstance(left.ty, T.ListT) and isinstance(right.ty, T.ListT):
            joined = T.unify(left.ty, right.ty)
            if joined is None:
                self.err(node.span, "E0317", f"cannot join {left.ty.show()} and {right.ty.show()}")
                joined = T.ANY
            return ir.BinOp(joined, line, op, left, right)
        if op in ("/", "div", "%") and _is_zero(right):
            self.err(node.right.span, "E0338", "this divides by 0, which stops the turn",
                     help="divide by something that cannot be 0, or test it first with `if`")
        if self.env.money_places and op in ("+", "-", "%"):
            # `cash + 0.05` under `money "0.1"`: the literal was meant as an amount, and is not one.
            for lit, other, lit_node in ((left, right, node.left), (right, left, node.right)):
                if lit.ty == T.LITERAL_DEC and other.ty == T.MONEY and literal_number(lit) is not None:
                    self.err(lit_node.span, "E0374", money_places_message(literal_number(lit),
                                                                          self.env.money_places),
                             help=money_places_hint(self.env.money_places))
                    return ir.BinOp(T.MONEY, line, op, left, right)
        res = T.arith(op, left.ty, right.ty)
        if isinstance(res, str):
            self.err(node.span, "E0317", res, help=self._mix_hint(node, left.ty, right.ty))
            return ir.BinOp(T.ANY, line, op, left, right)
        if op == "div":
            res = T.Num(res.unit, False, res.literal) if isinstance(res, T.Num) else res
        return ir.BinOp(res, line, op, left, right)

    @staticmethod
    def _mix_hint(node: n.BinOp, a: T.Ty, b: T.Ty) -> str | None:
        """For `a OP b` mixing money and a count: the two ways to make both the same kind."""
        if not T.mixes_money(a, b):
            return None
        a_is_money = isinstance(a, T.Num) and a.unit == "money"
        money_side, count_side = (node.left, node.right) if a_is_money else (node.right, node.left)
        m, c = show_expr(money_side) or "m", show_expr(count_side) or "n"
        return (f"money and counts do not mix: `amount({m})` turns money into a count, "
                f"`money({c})` turns a count into money")

    # ------------------------------------------------------------ calls
    def call(self, node: n.Call, scope: Scope, ctx: Context) -> ir.Expr:
        line = node.span.line
        env = self.env
        name = node.func
        if name in env.tables:
            return self.table_call(name, node.func_span, node.args, node.span, scope, ctx)
        if name in env.functions:
            return self.call_function(node, scope, ctx)
        if name in env.procedures and env.procedures[name].result is not None:
            return flow.call_value(self, node, scope, ctx)
        if name in env.procedures:
            env.used.add(name)
            self.err(node.func_span, "E0318", f"`{name}` is a procedure: it does things and has no value",
                     help="call it as a statement on its own line")
            return ir.Const(T.ANY, line, None)
        if name in CHANCE:
            return self.chance(node, scope, ctx)
        if name == "orders":
            if len(node.args) != 1 or not isinstance(node.args[0], n.Name):
                self._orders_argument(node)
                return ir.Const(T.ANY, line, None)
            oname = node.args[0].name
            if oname not in env.orders or env.orders[oname].kind != "game":
                self.err(node.args[0].span, "E0320", f"unknown order `{oname}`",
                         suggest(oname, [k for k, o in env.orders.items() if o.kind == "game"]))
                return ir.Const(T.ANY, line, None)
            return ir.Builtin(T.ListT(T.OrderT(oname)), line, "orders", (), oname)
        args = tuple(self.expr(a, scope, ctx) for a in node.args)
        builtin = BUILTINS.get(name)
        if builtin is None or builtin.typer is None:
            hint = suggest(name, [*env.functions, *env.tables, *BUILTINS])
            self.err(node.func_span, "E0321", f"unknown function `{name}`", hint)
            return ir.Refused(T.ANY, line, args)
        arity = builtin.arities
        if len(args) not in arity:
            want = " or ".join(str(a) for a in sorted(arity))
            self.err(node.span, "E0322", f"`{name}` takes {want} argument{'s' if max(arity) > 1 else ''}, "
                     f"not {len(args)}", help=f"it is called as `{builtin.signature}`")
            return ir.Builtin(T.ANY, line, name, args)
        return ir.Builtin(builtin.typer(self, args, node), line, name, args)

    def _orders_argument(self, node: n.Call) -> None:
        """E0319 for `orders(...)` without one bare order name: under the argument, if there is one."""
        games = [k for k, o in self.env.orders.items() if o.kind == "game"]
        arg = node.args[0] if len(node.args) == 1 else None
        if isinstance(arg, n.Text) and all(isinstance(p, str) for p in arg.parts):
            name = "".join(p for p in arg.parts if isinstance(p, str)).strip()
            if name.isidentifier():
                self.err(arg.span, "E0319", "`orders(...)` takes the name of an order, not a text",
                         help=f"write the name without quotes: `orders({name})`")
                return
        example = f"`orders({games[0]})`" if games else "`orders(NAME)`"
        self.err(arg.span if arg is not None else node.span, "E0319", "`orders(...)` takes the name of an order",
                 help=f"write the name of one game order, like {example}")

    def call_function(self, node: n.Call, scope: Scope, ctx: Context) -> ir.Expr:
        info = self.env.functions[node.func]
        self.env.used.add(node.func)
        self.resolver.function(info)  # a result left to inference is known once the body is checked
        args = tuple(self.expr(a, scope, ctx) for a in node.args)
        self.arguments(node.func, args, node.args, info.params, node.span)
        result = info.result
        if result is None:
            # Only a recursive call meets an unknown result: E0323 once the body's other branches are known.
            info.calls_itself.append(node.span)
            result = T.ANY
        return ir.CallFn(result, node.span.line, node.func, args)

    def arguments(self, func: str, args: tuple[ir.Expr, ...], nodes: tuple[n.Expr, ...],
                  params: tuple[tuple[str, T.Ty], ...], span: Span) -> None:
        """The arguments of a call of a function or procedure: their number (E0322), then their types (E0301)."""
        if len(args) != len(params):
            # One mistake: the types of arguments that may be shifted or missing would only say it again.
            self.err(span, "E0322", f"`{func}` takes {len(params)} argument{'' if len(params) == 1 else 's'}, "
                     f"not {len(args)}", help=f"it is declared `{func}({_params(params)})`")
            return
        wrong = [i for i, (a, (_, pty)) in enumerate(zip(args, params, strict=True)) if not T.assignable(a.ty, pty)]
        if len(wrong) == 2:
            i, j = wrong
            if T.assignable(args[i].ty, params[j][1]) and T.assignable(args[j].ty, params[i][1]):
                shown = [show_expr(x) for x in nodes]
                shown[i], shown[j] = shown[j], shown[i]
                fix = (f"write `{func}({', '.join(x for x in shown if x is not None)})`" if None not in shown
                       else f"it is declared `{func}({_params(params)})`")
                self.err(_joined(nodes[i].span, nodes[j].span), "E0301",
                         f"the arguments `{params[i][0]}` and `{params[j][0]}` of `{func}` are the wrong way round: "
                         f"`{params[i][0]}` should be {params[i][1].show()}, but this is {args[i].ty.show()}",
                         help=fix)
                return
        for a, an, (pname, pty) in zip(args, nodes, params, strict=True):
            self.expect(a, pty, an.span, f"argument `{pname}` of `{func}`")

    def calls_itself(self, info: FuncInfo, body: T.Ty) -> None:
        """E0323 for a function whose body calls it while its result type is left to inference.

        The hint's type is the body's, its recursive calls typed `any`: what the other branches give.
        """
        if not info.calls_itself:
            return
        name = info.decl.name
        guess = T.concrete(body)
        self.err(_header_span(info.decl), "E0323", f"`{name}` calls itself, so its result type must be written",
                 help=f"write it after the parameters: `define {name}({_params(info.params)}) -> "
                      f"{guess.show() if _writable(guess) else 'TYPE'} = ...`")

    def chance(self, node: n.Call, scope: Scope, ctx: Context) -> ir.Expr:
        line = node.span.line
        name = node.func
        if not ctx.allow_chance:
            self.err(node.func_span, "E0324", f"`{name}` draws at random and cannot be used in "
                     f"{_CHANCE_PLACES.get(ctx.kind, 'this place')}", help=_CHANCE_HINTS.get(
                         ctx.kind, "draw in a phase or an order effect and store the result"))
        if name in KEYED:
            if len(node.args) > 2 + KEYS_MOST:
                self.err(node.span, "E0322", f"`{name}` takes a value, its stream and at most {KEYS_MOST} keys, "
                         f"not {len(node.args) - 2} keys", help=f"it is called as `{BUILTINS[name].signature}`; "
                         "for more, key by fewer values that still tell the draws apart")
                return ir.Const(T.ANY, line, None)
            stream = node.args[1] if len(node.args) >= 2 else None
        else:
            stream = node.args[-1] if len(node.args) in BUILTINS[name].arities else None
        if isinstance(stream, n.Text) and any(not isinstance(p, str) for p in stream.parts):
            self.err(stream.span, "E0325", "a stream name must be a plain text, without `{...}`",
                     help=self._fixed_stream_hint(node, stream))
            return ir.Const(T.ANY, line, None)
        if not isinstance(stream, n.Text):
            if name in _CHANCE_USAGE:
                self.err(node.span, "E0325", f"`{name}` takes a value and the name of its random stream",
                         help=f"like `{_CHANCE_USAGE[name]}`: the stream name keeps other draws from shifting")
            else:
                self.err(node.span, "E0325", f"`{name}` takes its values and, last, the name of its random stream",
                         help=f"it is called as `{BUILTINS[name].signature}`: the stream name keeps other draws "
                              "from shifting")
            return ir.Const(T.ANY, line, None)
        purpose = "".join(p for p in stream.parts if isinstance(p, str))
        builtin = BUILTINS[name]
        if builtin.typer is not None:
            # A world generation function: its values are typed by its entry, the stream by the lines above.
            args = tuple(self.expr(a, scope, ctx) for a in node.args[:-1])
            return ir.Builtin(builtin.typer(self, args, node), line, name, args, purpose)
        if name == "draw":
            tnode = node.args[0]
            if not isinstance(tnode, n.Name) or tnode.name not in self.env.tables:
                self.err(tnode.span, "E0326", "`draw` needs a weighted table")
                return ir.Const(T.ANY, line, None)
            self.env.used.add(tnode.name)
            if not self.env.tables[tnode.name].weighted:
                self.err(tnode.span, "E0326", f"`{tnode.name}` is not a weighted table",
                         help="declare it `table NAME -> TYPE weighted { 50%: ... }`")
            _, result = self.env.table_types.get(tnode.name, ((), T.ANY))
            return ir.Builtin(result, line, "draw", self.stream_keys(node, scope, ctx), (tnode.name, purpose))
        arg = self.expr(node.args[0], scope, ctx)
        keys = self.stream_keys(node, scope, ctx)
        if name in ("chance", "roll"):
            self.expect(arg, T.INT, node.args[0].span, f"the first argument of `{name}`")
            return ir.Builtin(T.BOOL if name == "chance" else T.INT, line, name, (arg, *keys), purpose)
        if not isinstance(arg.ty, (T.ListT, T.SetT)) and arg.ty != T.ANY:
            self.err(node.args[0].span, "E0316", f"`{name}` needs a list, not {arg.ty.show()}")
            return ir.Builtin(T.ANY, line, name, (arg, *keys), purpose)
        item = arg.ty.item if isinstance(arg.ty, (T.ListT, T.SetT)) else T.ANY
        return ir.Builtin(T.OptT(item) if name == "pick" else T.ListT(item), line, name, (arg, *keys), purpose)

    def stream_keys(self, node: n.Call, scope: Scope, ctx: Context) -> tuple[ir.Expr, ...]:
        """The keys after a chance function's stream (`roll(100, "air", x)`): each a value that reads as one
        stable text (E0373), worked out without drawing (E0324), since the key picks the stream to draw from."""
        ctx = dataclasses.replace(ctx, kind="stream key", allow_chance=False)
        keys: list[ir.Expr] = []
        for kn in node.args[2:]:
            k = self.expr(kn, scope, ctx)
            if not keeps_identity(k.ty):
                holder = show_expr(kn.obj) if isinstance(kn, n.Attr) else None
                self.err(kn.span, "E0373", f"a random stream's key is one value, such as a player, a thing, a sector "
                         f"or a whole number, not {T.describe(k.ty)}",
                         help=f"key by what the draw is about, like `{holder}` itself" if holder is not None
                         else "key by what the draw is about: a player, a thing, a sector or a number")
            keys.append(k)
        return tuple(keys)

    @staticmethod
    def _fixed_stream_hint(node: n.Call, stream: n.Text) -> str:
        """For `roll(6, "plague {c.code}")`: the same call with the stream's fixed words alone."""
        words = " ".join("".join(p for p in stream.parts if isinstance(p, str)).split())
        values = [show_expr(a) for a in node.args[:-1]]
        value = ", ".join(v for v in values if v is not None) if values and None not in values else None
        usage = _CHANCE_USAGE.get(node.func, BUILTINS[node.func].signature)
        fixed = f'{node.func}({value}, "{words}")' if words and value is not None else usage
        return f"write a fixed name, like `{fixed}`: each draw from a stream still gets its own result"

    def comprehension(self, node: n.Comprehension, scope: Scope, ctx: Context) -> ir.Expr:
        line = node.span.line
        ctx = flow.no_calls(ctx, "an aggregate or a `[... for ...]`")
        if node.func not in AGGREGATES:
            self.err(node.func_span, "E0327", f"`{node.func}(... for ...)` is not an aggregate",
                     help="aggregates are sum, count, max, min, any, all, best, sorted, list")
            return ir.Const(T.ANY, line, None)
        source = self.expr(node.source, scope, ctx)
        if isinstance(source.ty, (T.ListT, T.SetT)):
            item: T.Ty = source.ty.item
        else:
            if source.ty != T.ANY:
                self.err(node.source.span, "E0316", f"cannot go through {source.ty.show()}: it is not a list")
            item = T.ANY
        with scope.push():
            scope.declare(node.var, item)
            where = self.cond(node.where, scope, ctx) if node.where is not None else None
            narrow = self.narrowing(node.where, scope, ctx) if node.where is not None else {}
            with scope.push(narrow, "the `where` of this comprehension"):
                body = self.expr(node.body, scope, ctx)
                by = self.sort_key(node.by, node.func, scope, ctx) if node.by is not None else None
        if by is not None and not isinstance(by.ty, T.Num) and by.ty not in (T.ANY, T.TEXT):
            self.err(node.by.span if node.by else node.span, "E0328", f"cannot sort by {by.ty.show()}",
                     help="sort by a number or a text")
        f = node.func
        if f == "best" and node.descending:
            self.err(node.span, "E0329", "`best` takes the highest; `descending` does not apply",
                     help="for the lowest, take the best of the negated key: `by -x`")
        if f == "sorted" and by is None:
            self.err(node.span, "E0329", "`sorted` needs `by` to know the order",
                     help=self._sort_key_hint(node, item, body.ty))
        elif f == "best" and by is None:
            number = self._number_field(node.var, item)
            self.err(node.span, "E0329", "`best` needs `by`: what makes one better than another",
                     help=f"add `by {number}` before the closing `)`: the highest wins" if number is not None
                     else "like `best(p for p in players by p.cash)`")
        if f in ("sum", "max", "min"):
            if not T.is_num(body.ty):
                self.err(node.body.span, "E0317", f"`{f}` adds up numbers, not {body.ty.show()}")
                ty: T.Ty = T.ANY
            else:
                ty = body.ty
        elif f == "count":
            ty = T.INT
        elif f in ("any", "all"):
            self.expect(body, T.BOOL, node.body.span, f"the body of `{f}`")
            ty = T.BOOL
        elif f == "best":
            ty = T.OptT(body.ty)
        elif f == "distinct" and not keeps_identity(body.ty):
            self.err(node.body.span, "E0372", f"`distinct` keeps each value once, so it compares them, and "
                     f"{T.describe(body.ty)} cannot be compared",
                     help="keep a value that names each one, like its key, its owner or a number")
            ty = T.ANY
        else:  # sorted, list, distinct
            ty = T.ListT(T.concrete(body.ty))
        return ir.Agg(ty, line, f, body, node.var, source, where, by, node.descending)

    def route(self, node: n.Route, scope: Scope, ctx: Context) -> ir.Expr:
        """`path(COST for x from A to B)`: A and B sectors, COST the price (int, or none: impassable) of entering x."""
        line = node.span.line
        ctx = flow.no_calls(ctx, "a `path(...)`")
        sector = self.grid()
        if node.func == "reachable":
            self.err(node.func_span, "E0350", "`reachable` goes from its seeds as far as its condition holds, with no "
                     "`to`", help="write `reachable(x for x from SEEDS where COND)`; for the way from A to B, "
                     "`path(COST for x from A to B)`")
            return ir.Const(T.ANY, line, None)
        if node.func != "path":
            self.err(node.func_span, "E0342", f"`{node.func}(... for x from A to B)` is no form of the language: "
                     "only `path` is written so", help="for a route write `path(COST for x from A to B)`; for an "
                     "aggregate, `for x in LIST`")
            return ir.Const(T.ANY, line, None)
        if sector is None:
            self.err(node.func_span, "E0238", "`path` finds a route over the map, and this ruleset declares no grid",
                     help='declare one: `grid Sector { size 20 by 10  numbered "CCRR" }`')
            sector_ty: T.Ty = T.ANY
        else:
            sector_ty = sector
        start = self.expect(self.expr(node.start, scope, ctx), sector_ty, node.start.span, "where a path starts")
        goal = self.expect(self.expr(node.goal, scope, ctx), sector_ty, node.goal.span, "where a path ends")
        bound = self.route_bound(node, scope, ctx)
        with scope.push():
            scope.declare(node.var, sector_ty)
            cost = self.expr(node.cost, scope, ctx)
        if not T.assignable(cost.ty, T.OptT(T.INT)):
            self.err(node.cost.span, "E0342", f"the cost of entering a sector is a whole number (int), or none where "
                     f"it cannot be entered, not {cost.ty.show()}",
                     help=self.type_hint(cost.ty, T.INT, node.cost) or "like `move_cost(x.terrain)`, a table of "
                     "`int?`")
        elif not _mentions(node.cost, node.var) and literal_number(cost) is None:
            # A literal price is meant (every step the same: the straight way, as a flight); a value read
            # elsewhere (`here.terrain.cost`) is most likely the price of the wrong sector.
            self.diags.warning(node.cost.span, "W0211", f"this cost does not depend on `{node.var}`: every sector "
                               "costs the same, so the route ignores what it crosses",
                               help=f"price the sector entered, like `move_cost({node.var}.terrain)`, `none` where "
                               f"{node.var} cannot be entered")
        return ir.Route(T.ListT(sector_ty), line, cost, node.var, start, goal, bound)

    def route_bound(self, node: n.Route, scope: Scope, ctx: Context) -> ir.Expr | None:
        """`within R` of a path: a whole number (E0360), at least 1 when written as a literal (E0361)."""
        if node.bound is None:
            return None
        bound = self.expr(node.bound, scope, ctx)
        if bound.ty != T.ANY and not T.assignable(bound.ty, T.INT):
            what = "an optional number" if isinstance(bound.ty, T.OptT) else bound.ty.show()
            self.err(node.bound.span, "E0360", f"`within` bounds a route by a distance from where it starts, a whole "
                     f"number of steps (int), not {what}",
                     help=self.type_hint(bound.ty, T.INT, node.bound) or "like `within 20`, or `within "
                     "distance(a, b) + 10`")
            return None
        value = literal_number(bound)
        if value is not None and value < 1:
            self.err(node.bound.span, "E0361", f"a route within {value} of its start can never leave it: every "
                     "route would be `[]`", help="bound it by 1 or more steps, or leave `within` out to search "
                     "the whole map")
        return bound

    def reach(self, node: n.Reach, scope: Scope, ctx: Context) -> ir.Expr:
        """`reachable(x for x from SEEDS [via STEP] [where COND])`: SEEDS one item or a list or set of items (the
        grid's sectors unless `via` says what joins an item to the next), COND a condition on x."""
        line = node.span.line
        ctx = flow.no_calls(ctx, "a `reachable(...)`")
        if node.func != "reachable":
            self.err(node.func_span, "E0350", f"`{node.func}(... for x from SEEDS)` is no form of the language: only "
                     "`reachable` is written so",
                     help="for the sectors joined to SEEDS write `reachable(x for x from SEEDS where COND)`; for an "
                     "aggregate, `for x in LIST`; for a route, `path(COST for x from A to B)`")
            return ir.Const(T.ANY, line, None)
        sector = self.grid()
        seeds = self.expr(node.seeds, scope, ctx)
        st = seeds.ty
        item: T.Ty = T.ANY
        if isinstance(st, T.ThingT):
            item = st
            seeds = ir.spanned(ir.MakeList(T.ListT(st), line, (seeds,)), node.seeds.span)
        elif isinstance(st, (T.ListT, T.SetT)) and isinstance(st.item, T.ThingT):
            item = st.item
        elif st != T.ANY and not (isinstance(st, (T.ListT, T.SetT)) and st.item in (T.ANY, T.NONE)):
            hint = self.type_hint(st, sector, node.seeds) if sector is not None else None
            self.err(node.seeds.span, "E0352", f"`reachable` starts from a sector or a list of sectors (or of things), "
                     f"not {st.show()}", help=hint or "like `reachable(x for x from home where ...)` or `from "
                     "[a, b]`")
        if node.via is None and item != T.ANY and item != sector:
            if sector is None:
                why = "this ruleset declares no grid"
            else:
                why = f"{item.show()} is not the grid's {sector.show()}"
            start = "start from sectors, or " if sector is not None else ""
            self.err(node.seeds.span, "E0352", f"without `via`, `reachable` goes from sector to neighbouring sector, "
                     f"and {why}", help=f"{start}say what joins one {item.show()} to the next: `reachable({node.var} "
                     f"for {node.var} from ... via {node.var}.adjacent where ...)`, with `adjacent` a `set of "
                     f"{item.show()}` field")
            # The condition is then read as over sectors, what the designer most likely meant: one mistake, once.
            item = sector if sector is not None else T.ANY
        if not (isinstance(node.body, n.Name) and node.body.name == node.var):
            self.err(node.body.span, "E0351", f"`reachable` lists the items it reaches, so what comes before `for` is "
                     f"its variable `{node.var}` alone", help=f"write `reachable({node.var} for {node.var} from ...)`, "
                     f"and for a value of each, `[BODY for y in reachable(...)]`")
        with scope.push():
            scope.declare(node.var, item)
            step = None
            if node.via is not None:
                step = self.expr(node.via, scope, ctx)
                if not T.assignable(step.ty, T.SetT(item)):
                    self.err(node.via.span, "E0353", f"`via` lists the items one step from `{node.var}`: a list or set "
                             f"of {item.show()}, not {step.ty.show()}", help=f"like `via {node.var}.adjacent`, a "
                             f"`set of {item.show()}` field, or `via neighbours({node.var})` on the map")
            cond = self.cond(node.where, scope, ctx) if node.where is not None else None
        if node.where is not None and not _mentions(node.where, node.var):
            self.diags.warning(node.where.span, "W0209", f"this condition does not depend on `{node.var}`: "
                               "`reachable` gives every item joined to the seeds, or none",
                               help=f"say what each item on the way must be, like `{node.var}.owner == me`")
        return ir.Reach(T.ListT(item), line, node.var, seeds, step, cond)

    def _sort_key_hint(self, node: n.Comprehension, item: T.Ty, body: T.Ty) -> str:
        """A `by` for `sorted(...)` in the comprehension's own names: a text for alphabetical order, or a number."""
        shown = show_expr(node.body)
        label = self._label_field(item)
        if body == T.TEXT and shown is not None:
            key, order = shown, "alphabetical order"
        elif isinstance(body, T.Num) and shown is not None:
            key, order = shown, f"the lowest first (`by {shown} descending` for the highest)"
        elif label is not None:
            key, order = f"{node.var}.{label}", "alphabetical order"
        else:
            number = self._number_field(node.var, item)
            if number is None:
                return f"add `by {node.var}.FIELD` before the closing `)`, with a number or a text field"
            key, order = number, f"the lowest first (`by {number} descending` for the highest)"
        return f"add `by {key}` before the closing `)` for {order}"

    def _label_field(self, item: T.Ty) -> str | None:
        """The text a player or a thing is known by: `name`, if it has one."""
        if not isinstance(item, T.ThingT):
            return None
        if item.name == "Player":
            return "name"
        fd = self.env.fields_of(item.name).get("name")
        return "name" if fd is not None and fd.ty == T.TEXT else None

    def _number_field(self, var: str, item: T.Ty) -> str | None:
        """`var` itself if the items are numbers, else `var.FIELD` for the first number field of their thing."""
        if isinstance(item, T.Num):
            return var
        if not isinstance(item, T.ThingT):
            return None
        field = next((k for k, fd in self.env.fields_of(item.name).items() if isinstance(fd.ty, T.Num)), None)
        return f"{var}.{field}" if field is not None else None

    # ------------------------------------------------------------ statements
    def count_range(self, node: n.CountRange, scope: Scope, ctx: Context) -> ir.CountRange:
        return ir.spanned(self._count_range(node, scope, ctx), node.span)

    def _count_range(self, node: n.CountRange, scope: Scope, ctx: Context) -> ir.CountRange:
        """`A..B` of a counted loop: two whole numbers, read once before the first round."""
        low = self.expect(self.expr(node.low, scope, ctx), T.INT, node.low.span, "the first number of `A..B`")
        high = self.expect(self.expr(node.high, scope, ctx), T.INT, node.high.span, "the last number of `A..B`")
        return ir.CountRange(T.ListT(T.INT), node.span.line, low, high)

    @staticmethod
    def _count_down_hint(source: n.CountRange, var: str) -> str:
        """How to count `source` down with its own bounds: `for each i in 1..12` goes 12 to 1 as `13 - i`."""
        low, high = source.low, source.high
        if isinstance(low, n.Number) and isinstance(high, n.Number) \
                and isinstance(low.value, int) and isinstance(high.value, int):
            down = f"{low.value + high.value} - {var}"
        else:
            down = f"{_wrap(show_expr(high) or 'LAST', high, 5)} + {_wrap(show_expr(low) or 'FIRST', low, 6)} - {var}"
        return f"to count down, use `{down}` in the body: it goes from the last number to the first"

    def stmts(self, nodes: tuple[n.Stmt, ...], scope: Scope, ctx: Context) -> tuple[ir.Stmt, ...]:
        """A block. A statement after one that ends the block never runs (W0212, said once). Past an `if`
        without `else` whose every branch ends (`if d.goal == none { return }`), what its tests ruled out
        stays ruled out to the end of the block, as in an `else`."""
        out: list[ir.Stmt] = []
        ended: ir.Stmt | None = None
        warned = False
        with contextlib.ExitStack() as past:
            for x in nodes:
                if ended is not None and not warned:
                    # One warning for the statements cut off, at the first of them.
                    self.env.diags.warning(x.span, "W0212", f"this never runs: {flow.what_ends(ended, ctx)}",
                                           help="remove it, or move it before what ends the block")
                    warned = True
                s: ir.Stmt | None
                if isinstance(x, n.If):
                    s, negatives = self._if(x, scope, ctx)
                    if s.otherwise is None and negatives and all(
                            any(flow.ends(b) is not None for b in body) for _, body in s.branches):
                        past.enter_context(scope.push(negatives, f"the `if` at line {x.span.line}, whose every "
                                                      "branch ends the block"))
                else:
                    s = self.stmt(x, scope, ctx)
                if s is None:
                    continue
                out.append(s)
                if ended is None:
                    ended = flow.ends(s)
        return tuple(out)

    def stmt(self, node: n.Stmt, scope: Scope, ctx: Context) -> ir.Stmt | None:
        s = self._stmt(node, scope, ctx)
        return ir.spanned(s, node.span) if s is not None else None

    def _stmt(self, node: n.Stmt, scope: Scope, ctx: Context) -> ir.Stmt | None:
        line = node.span.line
        if isinstance(node, n.Let):
            taken = ("the name of a parameter" if node.name in self.env.params
                     else "the name of a thing" if node.name in self.env.things
                     else "the name of the game's `world`" if node.name == "world" else None)
            if taken is not None:
                self.err(node.name_span or node.span, "E0330",
                         f"a local cannot be named `{node.name}`: that is already {taken}",
                         help="give the local a name of its own, and use that name after it")
            value = self.expr(node.value, scope, ctx)
            if value.ty == T.NONE:
                self.err(node.value.span, "E0331", "cannot tell the type of a bare `none`",
                         help="a local takes its type from its value, so start it with a real one; to find one "
                              "thing among many, use `best(...)` or `first(...)`")
                # Its uses are not also reported: the mistake is here.
                scope.declare(node.name, T.ANY)
                return ir.Let(line, node.name, value)
            scope.declare(node.name, T.concrete(value.ty))
            return ir.Let(line, node.name, value)
        if isinstance(node, n.Assign):
            target = self.target(node.target, scope, ctx)
            value = self.expr(node.value, scope, ctx)
            if node.op == "=":
                self.expect(value, target.ty, node.value.span, "the new value")
                path = _path(node.target)
                if path is not None and (isinstance(value.ty, T.OptT) or value.ty in (T.NONE, T.ANY)):
                    scope.forget(path)
            elif not T.is_num(target.ty):
                self.err(node.target.span, "E0317", f"`{node.op}` needs a number here, not {target.ty.show()}")
            elif T.mixes_money(value.ty, T.strip_opt(target.ty)):
                x = show_expr(node.target)
                place = f"`{x}`, {T.describe(target.ty)}" if x is not None else T.describe(target.ty)
                verb = "add" if node.op == "+=" else "take"
                self.err(node.value.span, "E0317", f"cannot {verb} {T.describe(value.ty)} "
                         f"{'to' if node.op == '+=' else 'from'} {place}",
                         help=convert_hint(value.ty, T.strip_opt(target.ty), node.value))
            else:
                self.expect(value, T.strip_opt(target.ty), node.value.span, f"the amount of `{node.op}`")
            return ir.Assign(line, target, node.op, value)
        if isinstance(node, n.If):
            return self._if(node, scope, ctx)[0]
        if isinstance(node, n.For):
            item: T.Ty
            source: ir.Expr
            if isinstance(node.source, n.CountRange):
                source = self.count_range(node.source, scope, ctx)
                item = T.INT
                if node.by is not None:
                    self.err(node.by_span or node.by.span, "E0341",
                             "a counted loop cannot be sorted: it counts up from the first number to the last",
                             help=self._count_down_hint(node.source, node.var) if node.descending
                             else "leave out `by`: the numbers already come smallest first")
            else:
                source = self.expr(node.source, scope, ctx)
                item = source.ty.item if isinstance(source.ty, (T.ListT, T.SetT)) else T.ANY
                if not isinstance(source.ty, (T.ListT, T.SetT)) and source.ty != T.ANY:
                    self.err(node.source.span, "E0316", f"cannot go through {source.ty.show()}: it is not a list")
            with scope.push():
                scope.declare(node.var, item)
                wctx = flow.no_calls(ctx, "a loop's `where`")
                where = self.cond(node.where, scope, wctx) if node.where else None
                narrow = self.narrowing(node.where, scope, wctx) if node.where else {}
                with scope.push(narrow, f"the loop's `where` at line {node.where.span.line}" if node.where else ""):
                    # A counted loop's `by` is E0341 already: its key is not also checked.
                    sorted_by = node.by if not isinstance(node.source, n.CountRange) else None
                    by = self.sort_key(sorted_by, "for", scope, flow.no_calls(ctx, "a loop's `by`")) \
                        if sorted_by else None
                    if by is not None and node.by is not None and not isinstance(by.ty, T.Num) \
                            and by.ty not in (T.ANY, T.TEXT):
                        self.err(node.by.span, "E0328", f"cannot sort by {by.ty.show()}",
                                 help="sort by a number or a text")
                    loop_body = self.loop_body(node.body, scope, ctx)
            return ir.For(line, node.var, source, where, by, node.descending, loop_body)
        if isinstance(node, n.CallStmt):
            if node.func not in self.env.procedures:
                known = self.env.procedures
                if node.func in self.env.functions:
                    s = node.span
                    call = n.Call(s, node.func, Span(s.file, s.line, s.col, s.line, s.col + len(node.func)), node.args)
                    value = self.call_function(call, scope, ctx)
                    self.err(node.span, "E0332", f"`{node.func}` computes a value; use it in an expression",
                             help=self._use_value_hint(call, value))
                    self.env.refused.append((value, ctx))
                else:
                    self.err(node.span, "E0321", f"unknown procedure `{node.func}`", suggest(node.func, known))
                return None
            proc = self.env.procedures[node.func]
            self.env.used.add(node.func)
            args = tuple(self.expr(a, scope, ctx) for a in node.args)
            self.arguments(node.func, args, node.args, proc.params, node.span)
            return ir.CallProc(line, node.func, args)
        if isinstance(node, n.Run):
            return self.run(node, ctx, line)
        if isinstance(node, n.Halt):
            if ctx.kind == "order":
                self.err(node.span, "E0430", "`halt` in an order's effect: one player's order would stop "
                         "every player's turn", help="end the order with `fail \"...\"`, or check the state in "
                         "a phase and `halt` there")
            return ir.Halt(line, self.text(node.text, scope, ctx))
        if isinstance(node, n.News):
            return ir.News(line, self.text(node.text, scope, ctx))
        if isinstance(node, n.Overrule):
            order = self.expr(node.order, scope, ctx)
            if not isinstance(order.ty, T.OrderT) and order.ty != T.ANY:
                self.err(node.order.span, "E0375", "`overrule` takes an order given this turn, an item of "
                         f"`orders(KIND)`, not {order.ty.show()}",
                         help="go through `orders(KIND)`: `for each o in orders(pay) where o.player == p { "
                              "overrule o \"...\" }`")
            return ir.Overrule(line, order, self.text(node.text, scope, ctx))
        if isinstance(node, n.Tell):
            who = self.expr(node.player, scope, ctx)
            self.expect(who, T.PLAYER, node.player.span, "the one told")
            return ir.Tell(line, who, self.text(node.text, scope, ctx))
        if isinstance(node, (n.Add, n.Remove)):
            adding = isinstance(node, n.Add)
            target = self.target(node.target, scope, ctx)
            value = self.expr(node.value, scope, ctx)
            if isinstance(target.ty, (T.ListT, T.SetT)):
                self.expect(value, target.ty.item, node.value.span, "the item added" if adding else "the item removed")
            elif target.ty != T.ANY:
                self.err(node.target.span, "E0316",
                         f"cannot {'add to' if adding else 'remove from'} {target.ty.show()}: it is not a list or set",
                         help=f"for numbers write `x {'+' if adding else '-'}= 1`")
            return ir.Add(line, value, target) if adding else ir.Remove(line, value, target)
        if isinstance(node, n.Clear):
            target = self.target(node.target, scope, ctx)
            if not isinstance(target.ty, (T.ListT, T.SetT, T.MapT)) and target.ty != T.ANY:
                self.err(node.target.span, "E0316", f"cannot clear {target.ty.show()}",
                         help="`clear` empties a list, a set or a per-key value")
            return ir.Clear(line, target)
        if isinstance(node, n.NewStmt):
            made = self.expr(node.value, scope, ctx)
            return ir.NewStmt(line, made) if isinstance(made, ir.New) else None
        if isinstance(node, n.Destroy):
            return making.destroy(self, node, scope, ctx)
        if isinstance(node, n.While):
            return flow.while_(self, node, scope, ctx)
        if isinstance(node, n.Return):
            return flow.return_(self, node, scope, ctx)
        if isinstance(node, (n.Break, n.Skip)):
            return flow.loop_exit(self, node, ctx)
        if isinstance(node, n.Fail):
            if not ctx.allow_fail:
                self.err(node.span, "E0334", "`fail` belongs in an order's effect",
                         help="to refuse an order, write `fail` in its `effect` or `require ... else \"...\"` "
                              "in the order; to give a player news, write `tell p \"...\"`")
            return ir.Fail(line, self.text(node.text, scope, ctx))
        raise AssertionError(f"unhandled statement {node!r}")

    def run(self, node: n.Run, ctx: Context, line: int) -> ir.Run | None:
        """`run a` or `run a, b together`: the game orders it carries out, each named once."""
        named = node.named()
        together = node.together
        if not together and named[-1][0] == "together" and "together" not in self.env.orders:
            # `run a, b, together` or `run together`: after a comma, or alone, the word reads as an order's name.
            named, together = named[:-1], True
            listed = ", ".join(name for name, _ in named)
            if not named:
                self.err(node.span, "E0431", "`run together` names no order",
                         help="name the orders it carries out: `run a, b together`")
                return None
            self.err(node.named()[-1][1], "E0431", "`together` comes after the last order, with no comma before it",
                     help=f"write `run {listed} together`" if len(named) > 1 else
                     f"write `run {listed}`, or name the orders it runs with: `run {listed}, OTHER together`")
            if len(named) == 1:
                together = False  # said once is enough: not also "together after one order"
        several = len(named) > 1
        shown = f"run {', '.join(name for name, _ in named)}"
        if several and not together:
            self.err(node.span, "E0431", f"`{shown}` names several orders without saying `together`",
                     help=f"write `{shown} together` to carry them out in one round robin, each player's in "
                          "the order written; or run each in its own `run`, one kind after the other")
        elif together and not several:
            self.err(node.span, "E0431", f"`{shown} together` names one order: there is nothing to run it with",
                     help=f"write `{shown}`, or name the other orders it runs with: `{shown}, OTHER together`")
        if ctx.default_of:
            self.err(node.span, "E0434", f"the `default` of `{ctx.default_of}` cannot run orders: it runs after "
                     "the turn's last phase, when every order has been carried out",
                     help=f"run `{shown.removeprefix('run ')}` in a phase of the turn")
            self.env.meant_runs.update(name for name, _ in named)
        elif not ctx.allow_run:
            self.err(node.span, "E0333", "`run` belongs in a phase",
                     help=f"run it from a phase: `phase {node.order}: run {node.order}`, or `{shown}` "
                          "inside a `phase NAME { ... }`")
            # The misplaced `run` is the mistake; its orders are not also "never run" (W0102).
            self.env.meant_runs.update(name for name, _ in named)
        games = [k for k, o in self.env.orders.items() if o.kind == "game"]
        out: list[str] = []
        spans: list[Span] = []
        for name, span in named:
            order = self.env.orders.get(name)
            where = span if several else node.span
            if order is None or order.kind != "game":
                self.err(where, "E0320", f"unknown order `{name}`", suggest(name, games))
                # The misspelt `run` is the mistake; its order is not also "never run" (W0102).
                self.env.meant_runs.update(difflib.get_close_matches(name, games, n=1))
            elif name in out:
                self.err(where, "E0429", f"`{shown} together` names order `{name}` twice",
                         help=f"name `{name}` once: its orders are carried out once, in the round robin")
            else:
                out.append(name)
                spans.append(span)
        return ir.Run(line, tuple(out), tuple(spans) if several else ()) if out else None

    def loop_body(self, nodes: tuple[n.Stmt, ...], scope: Scope, ctx: Context) -> tuple[ir.Stmt, ...]:
        """A loop's body, its own test's narrowing the innermost frame of `scope`. A path narrowed outside the
        loop that the body gives a value that may be none is not narrowed at the top of the next round either:
        the body is checked again without it (the first check's diagnostics dropped)."""
        inner = dataclasses.replace(ctx, loop=True)
        outer = {k for frame in scope.narrow[:-1] for k in frame}
        own = dict(scope.narrow[-1])
        mark = len(self.diags.items)
        body = self.stmts(nodes, scope, inner)
        if any(all(k not in frame for frame in scope.narrow[:-1]) for k in outer):
            del self.diags.items[mark:]
            # The loop's own test is asked again each round: what it proves holds at the top of every one.
            scope.narrow[-1].clear()
            scope.narrow[-1].update(own)
            body = self.stmts(nodes, scope, inner)
        return body

    def _if(self, node: n.If, scope: Scope, ctx: Context) -> tuple[ir.If, dict[str, T.Ty]]:
        """An `if`, and what its tests rule out when none holds (what an `else` would know)."""
        branches = []
        negatives: dict[str, T.Ty] = {}
        for cnode, body in node.branches:
            with scope.push(negatives, f"an earlier test of the `if` at line {node.span.line}"):
                c = self.cond(cnode, scope, ctx)
                with scope.push(self.narrowing(cnode, scope, ctx), f"the `if` at line {cnode.span.line}"):
                    branches.append((c, self.stmts(body, scope, ctx)))
                negatives = {**negatives, **self.narrowing(cnode, scope, ctx, positive=False)}
        otherwise = None
        if node.otherwise is not None:
            with scope.push(negatives, f"an earlier test of the `if` at line {node.span.line}"):
                otherwise = self.stmts(node.otherwise, scope, ctx)
        return ir.spanned(ir.If(node.span.line, tuple(branches), otherwise), node.span), negatives

    def _use_value_hint(self, call: n.Call, value: ir.Expr) -> str:
        """E0332's hint: the call in a statement that uses its value, in the ruleset's names where it can."""
        shown = show_expr(call) or f"{call.func}(...)"
        if value.ty == T.BOOL:
            return f"test what it computes, like `if {shown} {{ ... }}`"
        if isinstance(value, ir.CallFn) and isinstance(value.ty, T.Num):
            # A field of the same kind on a thing or player it is given: `p.cash -= upkeep(p)`.
            for arg, arg_node in zip(value.args, call.args, strict=True):
                x = show_expr(arg_node)
                if not isinstance(arg.ty, T.ThingT) or x is None:
                    continue
                field = next((k for k, fd in self.env.fields_of(arg.ty.name).items() if fd.ty == value.ty), None)
                if field is not None:
                    return f"store what it computes, like `{_wrap(x, arg_node, 9)}.{field} -= {shown}` (or `+=`)"
        return f"keep what it computes, like `let v = {shown}`"

    def target(self, node: n.Expr, scope: Scope, ctx: Context) -> ir.Expr:
        return ir.spanned(self._target(node, scope, ctx), node.span)

    def _target(self, node: n.Expr, scope: Scope, ctx: Context) -> ir.Expr:
        """An assignable place: a let name, a field, a per-key value."""
        if isinstance(node, n.Name):
            ty = scope.lookup(node.name)
            if ty is not None and ctx.order is not None and node.name in self.env.order_args.get(ctx.order, {}) \
                    and all(node.name not in f for f in scope.frames[1:]):
                # The outermost names of an order's scope are its arguments; a `let` or a loop inside may hide one.
                self.err(node.span, "E0336", f"`{node.name}` is an argument of order `{ctx.order}`, "
                         "and an order's arguments cannot change",
                         help=f"copy it into a local first, like `let left = {node.name}`, and change that")
                return ir.Local(ty, node.span.line, node.name)
            if ty is None and node.name in self.env.params:
                param = self.env.params[node.name]
                self.env.used.add(node.name)  # one mistake: not also "never used"
                self.err(node.span, "E0335", f"`{node.name}` is a parameter, and parameters do not change during "
                         "the game", help=f"keep a value that changes in a field, like "
                         f"`world {{ {node.name}: {param.ty.show()} }}`, and write `world.{node.name}`")
                return ir.Local(T.ANY, node.span.line, node.name)
            if ty is None:
                self.err(node.span, "E0335", f"`{node.name}` is not a local name that can change",
                         help=suggest(node.name, scope.names()) or f"declare it first: `let {node.name} = ...`")
                return ir.Local(T.ANY, node.span.line, node.name)
            return ir.Local(ty, node.span.line, node.name)
        if isinstance(node, n.Attr):
            e = self.attr(node, scope, ctx)
            if isinstance(e, ir.Field) and isinstance(e.obj.ty, T.WorldT):
                fd = self.env.world_fields.get(node.name)
                return ir.Field(fd.ty, e.line, e.obj, e.name) if fd is not None else e
            if isinstance(e, ir.InstanceRef):
                self.err(node.span, "E0335", f"`{e.thing}.{e.key}` is an instance and cannot be replaced",
                         help=f"change one of its fields, like `{e.thing}.{e.key}.FIELD = ...`")
                return e
            if isinstance(e, ir.Field) and isinstance(e.obj.ty, T.ThingT):
                thing = e.obj.ty.name
                key = self.env.things[thing].key if thing in self.env.things else None
                if node.name == key or (thing == "Player" and node.name in PLAYER_BUILTINS
                                        and node.name not in PLAYER_WRITABLE):
                    self.err(node.name_span, "E0336", f"`{node.name}` of a {thing} cannot change")
                elif self.env.numbered(e.obj.ty) and (node.name == "number" or (
                        node.name == "owner" and self.env.numbered(e.obj.ty) == "owner")):
                    self.err(node.name_span, "E0336", f"the `{node.name}` of a {thing} cannot change",
                             help=f"make a new {thing} and destroy this one" if node.name == "owner" else
                             f"a {thing} keeps its number until it is destroyed")
                # A narrowed read type must not become the type of the store.
                fd = self.env.fields_of(thing).get(node.name)
                if fd is not None:
                    return ir.Field(fd.ty, e.line, e.obj, e.name)
            elif isinstance(e, ir.Field) and isinstance(e.obj.ty, T.OrderT):
                self.err(node.span, "E0336", "an order's arguments cannot change",
                         help="keep what changes in a field or a local name")
            elif isinstance(e, ir.RecordGet):
                self.err(node.span, "E0336", "records are values and cannot change")
            return e
        if isinstance(node, n.Index):
            e = self.index(node, scope, ctx)
            if isinstance(e, ir.TableGet):
                self.err(node.span, "E0336", "tables are fixed and cannot change")
            return e
        self.err(node.span, "E0335", "this cannot be assigned to")
        return ir.Const(T.ANY, node.span.line, None)
