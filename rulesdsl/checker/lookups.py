"""Checked IR (tables, and every body reading them) -> reads that would stop a turn whatever the game's state.

Three mistakes that the engine would otherwise find only while a turn runs, with every player's
orders in:

- a table read with a literal key that no row has (`arms_cost(7)`): E0339;
- a list position written as a negative number (`hand[-1]`): positions count from 0, so it is never
  there: E0340;
- a table read with an order argument whose range lets a player write a key that no row has
  (`units: 1..6` and `arms_cost(units)` with rows 1 to 5): warning W0205, since a `valid` or `require`
  may keep such orders from the read.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from rulesdsl import ir
from rulesdsl import types as T
from rulesdsl.checker.env import Env
from rulesdsl.checker.exprs import literal_number
from rulesdsl.checker.ranges import number, row_keys
from rulesdsl.checker.state import Checking
from rulesdsl.source import Span

Key = tuple[Any, ...]
_MOST = 10_000  # an argument range wider than this is not gone through key by key


def check(c: Checking) -> None:
    env = c.env
    # A table with an error among its rows may be missing the very row a read wants: say nothing of it.
    # A table whose bounds a parameter sets has its rows known only when the game starts.
    has = {t.name: _membership(t) for t in c.program.tables if t.kind in ("exact", "range") and not t.decided_by
           and t.name in env.tables and not _already_wrong(env, env.tables[t.name].span)}
    for node in ir.walk(list(c.program.nodes())):
        if isinstance(node, ir.TableGet) and node.table in has:
            _literal_key(env, node, has[node.table])
        elif isinstance(node, ir.ListIndex):
            _negative_position(env, node)
    for order in c.program.orders:
        ranges = _literal_ranges(order)
        if ranges:
            _argument_keys(env, order, ranges, has)


def _membership(t: ir.Table) -> Callable[[Key], bool] | None:
    """Whether a key has a row; None when the table is keyed by things (their completeness is E0219's)."""
    if any(isinstance(pt, T.ThingT) for pt in t.param_types):
        return None
    if t.kind == "exact":
        keys = frozenset(k for k, _ in t.rows)
        return lambda key: key in keys
    whole = not (isinstance(t.param_types[0], T.Num) and t.param_types[0].decimal)
    spans = [row_keys(lo, lo_open, hi, hi_open, whole) for (lo, lo_open, hi, hi_open), _ in t.rows]

    def covered(key: Key) -> bool:
        cut = (Fraction(key[0]), 0)
        return any(s.start <= cut < s.end for s in spans)
    return covered


def _literal_ranges(o: ir.Order) -> dict[str, tuple[int, int]]:
    """The order's arguments whose bounds are both written as numbers."""
    out = {}
    for a in o.args:
        if a.digits:
            continue  # a list of digits, not a number a table could be read with
        lo = literal_number(a.low) if a.low is not None else None
        hi = literal_number(a.high) if a.high is not None else None
        if lo is not None and hi is not None and isinstance(lo, int) and isinstance(hi, int):
            out[a.name] = (lo, hi)
    return out


def _locals(root: ir.Node) -> set[str]:
    """The names a declaration's statements and expressions bind anywhere (`let`, `for each`, `... for x in`)."""
    out: set[str] = set()
    for node in ir.walk(root):
        if isinstance(node, ir.Let):
            out.add(node.name)
        elif isinstance(node, (ir.For, ir.Agg, ir.Reach)):
            out.add(node.var)
    return out


def _literal(e: ir.Expr) -> Any:
    """A key written as a literal number or text, or None."""
    if isinstance(e, ir.Const) and isinstance(e.value, str):
        return e.value
    return literal_number(e)


def _shown(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else number(value)


def _already_wrong(env: Env, span: Span) -> bool:
    """An error already stands inside `span`: one mistake, one diagnostic."""
    return any(d.severity == "error" and d.span.file == span.file
               and (span.line, span.col) <= (d.span.line, d.span.col)
               and (d.span.end_line, d.span.end_col) <= (span.end_line, span.end_col)
               for d in env.diags.items)


def _literal_key(env: Env, node: ir.TableGet, has: Callable[[Key], bool] | None) -> None:
    key = tuple(_literal(a) for a in node.args)
    assert node.span is not None
    if has is None or not key or any(k is None for k in key) or _already_wrong(env, node.span):
        return
    if not has(key):
        shown = ", ".join(_shown(k) for k in key)
        env.diags.error(node.span, "E0339", f"table `{node.table}` has no row for {shown}: reading it stops the turn",
                        help=f"add a row for {shown} to `{node.table}`, or read a key it has")


def _negative_position(env: Env, node: ir.ListIndex) -> None:
    value = literal_number(node.index)
    assert node.span is not None and node.index.span is not None
    if value is None or value >= 0 or _already_wrong(env, node.span):
        return
    env.diags.error(node.index.span, "E0340", f"a list position counts from 0, so {number(value)} is never in "
                    "the list and reading it stops the turn",
                    help="for the last item, write `L[size(L) - 1]`")


def _argument_keys(env: Env, order: ir.Order, ranges: dict[str, tuple[int, int]],
                   has: dict[str, Callable[[Key], bool] | None]) -> None:
    """W0205 where an argument read as a table's key may be one the table has no row for."""
    rebound = _locals(order)
    seen: set[tuple[str, str]] = set()
    for node in ir.walk(order):
        if not (isinstance(node, ir.TableGet) and len(node.args) == 1 and isinstance(node.args[0], ir.Local)):
            continue
        arg, table = node.args[0].name, node.table
        check = has.get(table)
        if arg not in ranges or arg in rebound or check is None or (arg, table) in seen:
            continue
        lo, hi = ranges[arg]
        if hi - lo > _MOST:
            continue
        seen.add((arg, table))
        missing = [v for v in range(lo, hi + 1) if not check((v,))]
        if missing:
            assert node.span is not None
            them = "it" if len(missing) == 1 else "them"
            env.diags.warning(node.span, "W0205", f"`{arg}` of order `{order.name}` may be {_runs(missing)}, and "
                              f"table `{table}` has no row for {them}: such an order would stop the turn",
                              help=f"limit `{arg}` to the keys `{table}` has, or add the rows")


def _runs(values: list[int]) -> str:
    """`6`, `6 and 8`, `6 to 9`, `0, 6 and 7`: whole numbers in order, three or more in a row as a run."""
    parts: list[str] = []
    start = prev = values[0]
    for v in [*values[1:], None]:
        if v is not None and v == prev + 1:
            prev = v
            continue
        parts += [f"{start} to {prev}"] if prev - start >= 2 else [str(x) for x in range(start, prev + 1)]
        if v is not None:
            start = prev = v
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + f" and {parts[-1]}"

