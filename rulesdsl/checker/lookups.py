"""AST + checked tables and orders -> reads that would stop a turn whatever the game's state.

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

import dataclasses
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

from rulesdsl import ir
from rulesdsl import nodes as n
from rulesdsl import types as T
from rulesdsl.checker.env import Env
from rulesdsl.checker.exprs import literal_number
from rulesdsl.checker.ranges import number, row_keys
from rulesdsl.checker.state import Checking
from rulesdsl.source import Span

Key = tuple[Any, ...]
_MOST = 10_000  # an argument range wider than this is not gone through key by key


def check(c: Checking) -> None:
    env, module, tables, orders = c.env, c.module, c.program.tables, c.program.orders
    # A table with an error among its rows may be missing the very row a read wants: say nothing of it.
    has = {t.name: _membership(t) for t in tables if t.kind in ("exact", "range")
           and t.name in env.tables and not _already_wrong(env, env.tables[t.name].span)}
    ranges = {o.name: _literal_ranges(o) for o in orders}
    for d in module.decls:
        rebound = _locals(d)
        names = rebound | {x.name for x in _nodes(d) if isinstance(x, (n.Param, n.ArgDecl))}
        for node in _nodes(d):
            # `t(7)` always reads table `t`; `t[7]` does unless `t` is a local name there.
            if isinstance(node, n.Call) and node.func in has:
                _literal_key(env, node, node.func, node.args, has[node.func])
            elif isinstance(node, n.Index):
                if isinstance(node.obj, n.Name) and node.obj.name in env.tables and node.obj.name not in names:
                    if node.obj.name in has:
                        _literal_key(env, node, node.obj.name, (node.index,), has[node.obj.name])
                else:
                    _negative_position(env, node)
        if isinstance(d, n.OrderDecl) and d.name in ranges:
            _argument_keys(env, d, ranges[d.name], has, rebound)


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
        lo = literal_number(a.low) if a.low is not None else None
        hi = literal_number(a.high) if a.high is not None else None
        if lo is not None and hi is not None and isinstance(lo, int) and isinstance(hi, int):
            out[a.name] = (lo, hi)
    return out


def _children(node: object) -> Iterator[object]:
    if isinstance(node, (list, tuple)):
        yield from node
    elif dataclasses.is_dataclass(node) and not isinstance(node, type):
        for f in dataclasses.fields(node):
            if f.name != "span" and not f.name.endswith("_span"):
                yield getattr(node, f.name)


def _nodes(root: object) -> Iterator[object]:
    """Every AST node under `root`, itself included."""
    stack = [root]
    while stack:
        node = stack.pop()
        if dataclasses.is_dataclass(node) and not isinstance(node, type):
            yield node
        stack.extend(reversed(list(_children(node))))


def _locals(d: n.Decl) -> set[str]:
    """The names a declaration's statements and expressions bind anywhere (`let`, `for each`, `... for x in`)."""
    out: set[str] = {d.var} if isinstance(d, n.VictoryDecl) else set()
    for node in _nodes(d):
        if isinstance(node, n.Let):
            out.add(node.name)
        elif isinstance(node, (n.For, n.Comprehension)):
            out.add(node.var)
    return out


def _literal(e: n.Expr) -> Any:
    """A key written as a literal number or text, or None."""
    if isinstance(e, n.Number):
        return e.value
    if isinstance(e, n.UnaryOp) and e.op == "-" and isinstance(e.operand, n.Number):
        return -e.operand.value
    if isinstance(e, n.Text) and all(isinstance(p, str) for p in e.parts):
        return "".join(p for p in e.parts if isinstance(p, str))
    return None


def _shown(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else number(value)


def _already_wrong(env: Env, span: Span) -> bool:
    """An error already stands inside `span`: one mistake, one diagnostic."""
    return any(d.severity == "error" and d.span.file == span.file
               and (span.line, span.col) <= (d.span.line, d.span.col)
               and (d.span.end_line, d.span.end_col) <= (span.end_line, span.end_col)
               for d in env.diags.items)


def _literal_key(env: Env, node: n.Expr, table: str, args: tuple[n.Expr, ...],
                 has: Callable[[Key], bool] | None) -> None:
    key = tuple(_literal(a) for a in args)
    if has is None or not key or any(k is None for k in key) or _already_wrong(env, node.span):
        return
    if not has(key):
        shown = ", ".join(_shown(k) for k in key)
        env.diags.error(node.span, "E0339", f"table `{table}` has no row for {shown}: reading it stops the turn",
                        help=f"add a row for {shown} to `{table}`, or read a key it has")


def _negative_position(env: Env, node: n.Index) -> None:
    value = _literal(node.index)
    if not isinstance(value, (int, Fraction)) or value >= 0 or _already_wrong(env, node.span):
        return
    env.diags.error(node.index.span, "E0340", f"a list position counts from 0, so {number(value)} is never in "
                    "the list and reading it stops the turn",
                    help="for the last item, write `L[size(L) - 1]`")


def _argument_keys(env: Env, d: n.OrderDecl, ranges: dict[str, tuple[int, int]],
                   has: dict[str, Callable[[Key], bool] | None], rebound: set[str]) -> None:
    seen: set[tuple[str, str]] = set()
    for node in _nodes(d):
        if isinstance(node, n.Call) and len(node.args) == 1 and isinstance(node.args[0], n.Name):
            arg, table = node.args[0].name, node.func
        elif isinstance(node, n.Index) and isinstance(node.obj, n.Name) and isinstance(node.index, n.Name) \
                and node.obj.name not in rebound and node.obj.name not in ranges:
            arg, table = node.index.name, node.obj.name
        else:
            continue
        check = has.get(table)
        if arg not in ranges or arg in rebound or check is None or (arg, table) in seen:
            continue
        lo, hi = ranges[arg]
        if hi - lo > _MOST:
            continue
        seen.add((arg, table))
        missing = [v for v in range(lo, hi + 1) if not check((v,))]
        if missing:
            them = "it" if len(missing) == 1 else "them"
            env.diags.warning(node.span, "W0205", f"`{arg}` of order `{d.name}` may be {_runs(missing)}, and table "
                              f"`{table}` has no row for {them}: such an order would stop the turn",
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

