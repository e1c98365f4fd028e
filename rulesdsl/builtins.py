"""Builtin function names -> one entry each: arities, signature, result typer, Python it is emitted as, doc.

The one home of the language's builtin functions: the checker types a call with `typer`
(rulesdsl/checker/exprs.py), the code generator writes it with `emit`, and a test checks that
docs/language.md §11 lists each `signature`. A typer needs only what `Checker` offers, so this module
does not import the checker.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from rulesdsl import ir
from rulesdsl import nodes as n
from rulesdsl import types as T
from rulesdsl.source import Span


class Checker(Protocol):
    """What a typer may ask of the expression checker."""

    def err(self, span: Span, code: str, msg: str, help: str | None = None) -> None: ...

    def expect(self, e: ir.Expr, want: T.Ty, span: Span, what: str) -> ir.Expr: ...

    def shown(self, node: n.Expr) -> str | None:
        """`node` as the designer wrote it, for a hint; None if it is too long to quote."""

    def grid(self) -> T.ThingT | None:
        """The type of the ruleset's sectors, or None if it declares no grid."""

    def money_places(self) -> int:
        """The decimal places money keeps (the header's `money "0.1"` is 1; 0 without the setting)."""


# The result type of a call whose arguments are checked already; it reports what is wrong with them.
Typer = Callable[[Checker, tuple[ir.Expr, ...], n.Call], T.Ty]


@dataclass(frozen=True)
class Builtin:
    name: str
    arities: frozenset[int]
    signature: str  # as docs/language.md writes it, and E0322's hint
    doc: str
    # A Python expression: `{0}`, `{1}` are the arguments' code, `{args}` all of them, `{rt}` the runtime
    # function `runtime`, `{extra}` the literal the checker keeps (a stream, an order name), and for
    # `draw` `{table}` and `{purpose}`.
    emit: str
    runtime: str | None = None
    # value: typed by `typer` from its arguments' values. chance: its last argument names a random stream.
    # orders: its argument names an order. The checker types the last two itself: they read names.
    kind: Literal["value", "chance", "orders"] = "value"
    typer: Typer | None = None


def _num_same(c: Checker, args: tuple[ir.Expr, ...], node: n.Call) -> T.Ty:
    ty: T.Ty = args[0].ty
    for a, an in zip(args, node.args, strict=True):
        if not T.is_num(a.ty):
            c.err(an.span, "E0317", f"`{node.func}` needs numbers, not {a.ty.show()}")
            return T.ANY
        if not T.comparable(ty, a.ty):
            c.err(an.span, "E0317", f"`{node.func}` cannot mix {T.Ty.show(ty)} and {a.ty.show()}")
            return T.ANY
        if isinstance(ty, T.Num) and ty.literal:
            ty = a.ty
    return ty


def _to_int(c: Checker, args: tuple[ir.Expr, ...], node: n.Call) -> T.Ty:
    t = args[0].ty
    if not T.is_num(t):
        c.err(node.args[0].span, "E0317", f"`{node.func}` needs a number, not {t.show()}")
        return T.ANY
    return T.Num(t.unit, False) if isinstance(t, T.Num) else T.ANY


def _size(c: Checker, args: tuple[ir.Expr, ...], node: n.Call) -> T.Ty:
    t = args[0].ty
    if not isinstance(t, (T.ListT, T.SetT)) and t not in (T.TEXT, T.ANY):
        c.err(node.args[0].span, "E0316", f"`size` needs a list, not {t.show()}")
    return T.INT


def _text_fn(result: T.Ty, *want: T.Ty) -> Typer:
    def typer(c: Checker, args: tuple[ir.Expr, ...], node: n.Call) -> T.Ty:
        for a, an, w in zip(args, node.args, want, strict=False):
            c.expect(a, w, an.span, f"the argument of `{node.func}`")
        return result
    return typer


def _text_of(c: Checker, args: tuple[ir.Expr, ...], node: n.Call) -> T.Ty:
    return T.TEXT


def _first(c: Checker, args: tuple[ir.Expr, ...], node: n.Call) -> T.Ty:
    t = args[0].ty
    if isinstance(t, (T.ListT, T.SetT)):
        return T.OptT(t.item)
    if t != T.ANY:
        c.err(node.args[0].span, "E0316", f"`{node.func}` needs a list, not {t.show()}")
    return T.ANY


def _join(c: Checker, args: tuple[ir.Expr, ...], node: n.Call) -> T.Ty:
    t = args[0].ty
    if isinstance(t, (T.ListT, T.SetT)):
        if t.item not in (T.TEXT, T.ANY):
            c.err(node.args[0].span, "E0301", f"`join` needs a list of texts, not {t.show()}",
                  help="make the texts first, like `join([c.code for c in cards], \", \")`")
    elif t != T.ANY:
        c.err(node.args[0].span, "E0316", f"`join` needs a list of texts, not {t.show()}")
    c.expect(args[1], T.TEXT, node.args[1].span, "the separator of `join`")
    return T.TEXT


def _money(c: Checker, args: tuple[ir.Expr, ...], node: n.Call) -> T.Ty:
    return _convert(c, args[0], node, T.INT, T.MONEY)


def _count_of(c: Checker, args: tuple[ir.Expr, ...], node: n.Call) -> T.Ty:
    places = c.money_places()
    if places:
        # An amount with places is no count: `amount(7.4)` would have to drop the .4 without saying so.
        x = c.shown(node.args[0]) or "m"
        setting = f"0.{'0' * (places - 1)}1"
        c.err(node.span, "E0317", f'`amount` takes whole money only, and this ruleset\'s money has places '
              f'(`money "{setting}"`)',
              help=f"for whole units as a count write `floor({x} / money(1))` (or `round`, `ceil`); for the "
                   f"amount as a decimal, `{x} / money(1)`")
        return T.INT
    return _convert(c, args[0], node, T.MONEY, T.INT)


def _convert(c: Checker, arg: ir.Expr, node: n.Call, have: T.Ty, result: T.Ty) -> T.Ty:
    """`money(n)` and `amount(m)`: a value already of the result's kind needs no conversion."""
    assert isinstance(result, T.Num)
    if isinstance(arg.ty, T.Num) and not arg.ty.literal and not arg.ty.decimal and arg.ty.unit == result.unit:
        x = c.shown(node.args[0])
        what = f"`{x}`" if x is not None else "this"
        kind = "money" if result == T.MONEY else "a count (int)"
        c.err(node.args[0].span, "E0301", f"the argument of `{node.func}` should be {have.show()}, but this is "
              f"{arg.ty.show()}", help=f"{what} is {kind} already: use it as it is, without `{node.func}(...)`")
        return result
    c.expect(arg, have, node.args[0].span, f"the argument of `{node.func}`")
    return result


def _on_grid(result: str, *want: str) -> Typer:
    """A grid function's typer: `want` says each argument, "S" a sector and "i" an int; `result` is "S?", "[S]",
    "[[S?]]" or "i". E0238 where the ruleset has no grid; E0344 for a literal direction outside 0..8."""
    def typer(c: Checker, args: tuple[ir.Expr, ...], node: n.Call) -> T.Ty:
        sector = c.grid()
        if sector is None:
            c.err(node.func_span, "E0238", f"`{node.func}` reads the map, and this ruleset declares no grid",
                  help='declare one: `grid Sector { size 20 by 10  numbered "CCRR" }`')
            return T.ANY
        for a, an, w in zip(args, node.args, want, strict=True):
            c.expect(a, sector if w == "S" else T.INT, an.span, f"the argument of `{node.func}`")
        if node.func == "neighbour":
            d = args[1]
            if isinstance(d, ir.Const) and isinstance(d.value, int) and not isinstance(d.value, bool) \
                    and not 0 <= d.value <= 8:
                c.err(node.args[1].span, "E0344", f"there is no direction {d.value}: directions are 1 (north) "
                      "clockwise to 8 (north-west), and 0 is the sector itself", help="write a number from 0 to 8")
        return {"S?": T.OptT(sector), "[S]": T.ListT(sector), "[[S?]]": T.ListT(T.ListT(T.OptT(sector))),
                "i": T.INT}[result]
    return typer


def _path_form(c: Checker, args: tuple[ir.Expr, ...], node: n.Call) -> T.Ty:
    """`path` is only ever the form `path(COST for x from A to B)` (checked as `nodes.Route`): a call is not."""
    c.err(node.span, "E0343", "`path` is written `path(COST for x from A to B)`",
          help="COST is the price of entering sector x (`none`: it cannot be entered), like "
               "`path(cost(x.terrain) for x from here to there)`")
    return T.ANY


def _sectors_arg(c: Checker, a: ir.Expr, an: n.Expr, func: str, sector: T.ThingT) -> None:
    """A list or set of the grid's sectors (E0301 for anything else)."""
    if not T.assignable(a.ty, T.SetT(sector)):
        c.err(an.span, "E0301", f"the argument of `{func}` should be a list of {sector.show()}, but this is "
              f"{a.ty.show()}",
              help=f"like `{sector.show()}` (every sector) or `[x for x in {sector.show()} where ...]`")


# The least a world generation function's whole-number argument may be ("%": a percent, 0..100), by its
# letter in `_generator`'s `want`; a literal below it is E0354, a value worked out at run time stops the turn.
_LEAST = {"%": 0, "n": 0, "c": 1}
_WHAT = {"%": "a percent", "n": "a number of sectors", "c": "a count or a size"}


def _generator(result: str, *want: str) -> Typer:
    """A world generation function's typer: `want` says each argument, "L" a list of sectors, "i" any int, "%" a
    percent, "n" an int of 0 or more, "c" one of 1 or more; `result` is "[S]", "[[S]]" or "i". For a chance
    function the stream, the last argument, is the checker's (it is not in `args`)."""
    def typer(c: Checker, args: tuple[ir.Expr, ...], node: n.Call) -> T.Ty:
        sector = c.grid()
        if sector is None:
            c.err(node.func_span, "E0238", f"`{node.func}` works on the map, and this ruleset declares no grid",
                  help='declare one: `grid Sector { size 20 by 10  numbered "CCRR" }`')
            return T.ANY
        for a, an, w in zip(args, node.args, want, strict=False):
            if w == "L":
                _sectors_arg(c, a, an, node.func, sector)
                continue
            c.expect(a, T.INT, an.span, f"the argument of `{node.func}`")
            if w in _LEAST and isinstance(a, ir.Const) and isinstance(a.value, int) \
                    and not isinstance(a.value, bool):
                low = _LEAST[w]
                if a.value < low or (w == "%" and a.value > 100):
                    c.err(an.span, "E0354", f"`{node.func}` cannot take {a.value} here: this argument is "
                          f"{_WHAT[w]}, {'from 0 to 100' if w == '%' else f'{low} or more'}",
                          help=f"it is called as `{BUILTINS[node.func].signature}`")
        return {"[S]": T.ListT(sector), "[[S]]": T.ListT(T.ListT(sector)), "i": T.INT}[result]
    return typer


def _reach_form(c: Checker, args: tuple[ir.Expr, ...], node: n.Call) -> T.Ty:
    """`reachable` is only ever the form `reachable(x for x from SEEDS where COND)` (`nodes.Reach`): a call is not."""
    c.err(node.span, "E0350", "`reachable` is written `reachable(x for x from SEEDS where COND)`",
          help="SEEDS is a sector or a list of them, COND what every sector on the way must be, like "
               "`reachable(x for x from home where x.owner == me)`")
    return T.ANY


def _one(*arities: int) -> frozenset[int]:
    return frozenset(arities)


_ALL = (
    Builtin("min", _one(2, 3), "min(a, b[, c])", "the smallest of numbers of one kind", "min({args})",
            typer=_num_same),
    Builtin("max", _one(2, 3), "max(a, b[, c])", "the largest of numbers of one kind", "max({args})",
            typer=_num_same),
    Builtin("clamp", _one(3), "clamp(x, lo, hi)", "`x` kept between `lo` and `hi`", "{rt}({args})", "clamp",
            typer=_num_same),
    Builtin("abs", _one(1), "abs(x)", "a number without its sign", "abs({args})", typer=_num_same),
    Builtin("round", _one(1), "round(x)", "the nearest whole number, halves away from zero", "{rt}({args})",
            "to_round", typer=_to_int),
    Builtin("floor", _one(1), "floor(x)", "the whole number at or below `x`", "{rt}({args})", "to_floor",
            typer=_to_int),
    Builtin("ceil", _one(1), "ceil(x)", "the whole number at or above `x`", "{rt}({args})", "to_ceil",
            typer=_to_int),
    Builtin("size", _one(1), "size(x)", "how many items a list or set has, or characters a text", "len({args})",
            typer=_size),
    Builtin("length", _one(1), "length(t)", "how many characters a text has", "len({args})",
            typer=_text_fn(T.INT, T.TEXT)),
    Builtin("upper", _one(1), "upper(t)", "a text in capitals", "{0}.upper()", typer=_text_fn(T.TEXT, T.TEXT)),
    Builtin("truncate", _one(2), "truncate(t, n)", "the first `n` characters of a text", "{rt}({args})",
            "truncate", typer=_text_fn(T.TEXT, T.TEXT, T.INT)),
    Builtin("replace", _one(3), "replace(t, old, new)", "`t` with every `old` in it made `new`", "{rt}({args})",
            "replace", typer=_text_fn(T.TEXT, T.TEXT, T.TEXT, T.TEXT)),
    Builtin("is_alnum", _one(1), "is_alnum(t)", "whether a text is not empty and all ASCII letters and digits",
            "{rt}({args})", "is_alnum", typer=_text_fn(T.BOOL, T.TEXT)),
    Builtin("join", _one(2), "join(L, sep)", "texts one after another, `sep` between two", "({1}).join({0})",
            typer=_join),
    Builtin("text", _one(1), "text(x)", "a value as text, as in interpolation", "{rt}({args})", "fmt",
            typer=_text_of),
    Builtin("first", _one(1), "first(L)", "the first item of a list or set, or `none`", "{rt}({args})", "first",
            typer=_first),
    Builtin("money", _one(1), "money(n)", "a count (`int`) as `money`", "{0}", typer=_money),
    Builtin("amount", _one(1), "amount(m)", "`money` as a count (`int`)", "{0}", typer=_count_of),
    Builtin("neighbour", _one(2), "neighbour(s, d)", "the sector one step from `s` in direction `d` (1 north, "
            "clockwise to 8 north-west; 0 is `s`), or `none` off the map", "{rt}(g, {args})", "neighbour",
            typer=_on_grid("S?", "S", "i")),
    Builtin("neighbours", _one(1), "neighbours(s)", "the sectors around `s` on the map, in direction order 1..8",
            "{rt}(g, {args})", "neighbours", typer=_on_grid("[S]", "S")),
    Builtin("distance", _one(2), "distance(a, b)", "how many steps (in any of the 8 directions) from `a` to `b`",
            "{rt}(g, {args})", "distance", typer=_on_grid("i", "S", "S")),
    Builtin("direction", _one(2), "direction(a, b)", "the direction (1..8) of the first step of a straight line "
            "from `a` to `b`; 0 when they are the same", "{rt}(g, {args})", "direction",
            typer=_on_grid("i", "S", "S")),
    Builtin("within", _one(2), "within(s, r)", "every sector at a distance of at most `r` from `s`, row by row",
            "{rt}(g, {args})", "within", typer=_on_grid("[S]", "S", "i")),
    Builtin("window", _one(2), "window(s, r)", "the square of sectors around `s`, `r` each way: rows north "
            "to south, each west to east, `none` off the map", "{rt}(g, {args})", "window",
            typer=_on_grid("[[S?]]", "S", "i")),
    Builtin("column", _one(1), "column(s)", "the column of a sector, from 0 at the west edge", "{rt}(g, {args})",
            "column",
            typer=_on_grid("i", "S")),
    Builtin("row", _one(1), "row(s)", "the row of a sector, from 0 at the north edge", "{rt}(g, {args})",
            "row",
            typer=_on_grid("i", "S")),
    Builtin("sector_at", _one(2), "sector_at(col, row)", "the sector at a column and a row, or `none` off the map",
            "{rt}(g, {args})", "sector_at", typer=_on_grid("S?", "i", "i")),
    Builtin("path", _one(1, 2, 3), "path(COST for x from A to B)", "the cheapest route from `A` to `B`: the "
            "sectors entered after `A`, ending with `B`; `[]` if `A` is `B` or `B` cannot be reached. COST is the "
            "price of entering sector `x`, `none` where it cannot be entered; `within R` keeps it to the sectors "
            "at most `R` from `A`", "{rt}(g, {args})", "route",
            typer=_path_form),
    Builtin("reachable", _one(1, 2, 3), "reachable(x for x from SEEDS where COND)", "the sectors (or things) "
            "joined to `SEEDS` through neighbours (or `via` a field) for which COND holds, each of them too, in "
            "map order", "{rt}(g, {args})", "reach", typer=_reach_form),
    Builtin("band", _one(2), "band(first_row, last_row)", "every sector of the rows from `first_row` to "
            "`last_row`, both included, in map order", "{rt}(g, {args})", "band", typer=_generator("[S]", "i", "i")),
    Builtin("coast", _one(1), "coast(L)", "the sectors of `L` next to a sector that is not in `L`, in map order",
            "{rt}(g, {args})", "coast", typer=_generator("[S]", "L")),
    Builtin("regions", _one(1), "regions(L)", "the sectors of `L` in groups joined through neighbours: the largest "
            "first, each in map order", "{rt}(g, {args})", "regions", typer=_generator("[[S]]", "L")),
    Builtin("away_from", _one(3), "away_from(L, AVOID, D)", "the sectors of `L` at a distance of at least `D` "
            "from every sector of `AVOID`, in map order", "{rt}(g, {args})", "away_from",
            typer=_generator("[S]", "L", "L", "i")),
    Builtin("least_distance", _one(1), "least_distance(L)", "the smallest distance between two sectors of `L`; "
            "0 when it has fewer than two", "{rt}(g, {args})", "least_distance", typer=_generator("i", "L")),
    Builtin("orders", _one(1), "orders(KIND)", "the orders of one kind given this turn", "g.orders_of({extra})",
            kind="orders"),
    Builtin("chance", _one(2, 3, 4, 5), 'chance(P, "stream"[, KEY...])', "true with a probability of `P` percent",
            "{rt}(g.rng({extra}), {0})", "chance", kind="chance"),
    Builtin("roll", _one(2, 3, 4, 5), 'roll(N, "stream"[, KEY...])', "a whole number from 1 to `N`",
            "{rt}(g.rng({extra}), {0})", "roll", kind="chance"),
    Builtin("draw", _one(2, 3, 4, 5), 'draw(TABLE, "stream"[, KEY...])',
            "a value of a weighted table, by its chances",
            "{table}(g, g.rng({purpose}))", kind="chance"),
    Builtin("pick", _one(2, 3, 4, 5), 'pick(L, "stream"[, KEY...])', "an item of a list, or `none` if it is empty",
            "{rt}(g.rng({extra}), {0})", "pick", kind="chance"),
    Builtin("shuffle", _one(2, 3, 4, 5), 'shuffle(L, "stream"[, KEY...])', "a list in random order",
            "{rt}(g.rng({extra}), {0})", "shuffle", kind="chance"),
    Builtin("continents", _one(4), 'continents(AREA, PERCENT, COUNT, "stream")', "the land of a world: "
            "`PERCENT`% of the sectors of `AREA`, in `COUNT` continents with sea between them, in map order",
            "{rt}(g, g.rng({extra}), {args})", "continents", kind="chance", typer=_generator("[S]", "L", "%", "c")),
    Builtin("patches", _one(4), 'patches(AREA, N, SIZE, "stream")', "`N` sectors of `AREA` in clumps of about "
            "`SIZE`, in map order", "{rt}(g, g.rng({extra}), {args})", "patches", kind="chance",
            typer=_generator("[S]", "L", "n", "c")),
    Builtin("ranges", _one(4), 'ranges(AREA, N, LENGTH, "stream")', "`N` sectors of `AREA` in winding chains "
            "about `LENGTH` long, in map order", "{rt}(g, g.rng({extra}), {args})", "ranges", kind="chance",
            typer=_generator("[S]", "L", "n", "c")),
    Builtin("spread", _one(4), 'spread(CANDIDATES, N, SPACING, "stream")', "`N` of the candidates as far apart "
            "as they fit, `SPACING` or more where they can be, in map order", "{rt}(g, g.rng({extra}), {args})",
            "spread", kind="chance", typer=_generator("[S]", "L", "n", "i")),
    Builtin("scatter", _one(4), 'scatter(CANDIDATES, N, SPACING, "stream")', "up to `N` of the candidates at "
            "random, each at least `SPACING` from the others, in map order", "{rt}(g, g.rng({extra}), {args})",
            "scatter", kind="chance", typer=_generator("[S]", "L", "n", "i")),
)
BUILTINS: dict[str, Builtin] = {b.name: b for b in _ALL}
CHANCE = frozenset(b.name for b in _ALL if b.kind == "chance")
# The chance functions that take keys after their stream (`roll(N, "stream", KEY...)`), at most KEYS_MOST.
KEYED = frozenset({"chance", "roll", "draw", "pick", "shuffle"})
KEYS_MOST = 3
