"""Table AST -> IR: key and result types (phase 1), then each table's rows, chances and ranges (phase 2).

Rows are checked for what a turn would stumble on: a key with two rows, chances that do not add up to
100%. Each row goes into the IR with where it is written (`ir.RowSpan`), so that phase 3
(checker/coverage.py) proves that every combination of things has a row, and that ranges are not empty,
do not overlap, leave no gap and can all be used.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

from rulesdsl import ir
from rulesdsl import nodes as n
from rulesdsl import types as T
from rulesdsl.checker import ranges
from rulesdsl.checker.decls import const_value
from rulesdsl.checker.env import Context, Env, Scope, and_
from rulesdsl.checker.state import Checking

# A bound of a range row: a number, a parameter (known when the game starts), or None for no bound.
Bound = Fraction | ir.ParamRef | None
# Whether a parameter may set a range bound or a chance. Off until the code generator writes such a row
# (`g.params[...]`) and the game's start checks it; off, a parameter there is E0206, as a name always was.
PARAMETER_ROWS = True


def table_types(c: Checking) -> None:
    """Each table's key types and result type, and whether it is drawn from; its rows wait for phase 2."""
    env = c.env
    for name, d in list(env.tables.items()):
        ptypes = tuple(env.resolve_type(p.type) for p in d.params)
        result = env.resolve_type(d.result)
        env.table_types[name] = (ptypes, result)
        chances = [k for r in d.rows for k in r.keys if k.kind == "weight"]
        if not d.weighted and not d.params and chances:
            # A table of chances without the word `weighted`: say that once, here, and let `draw` use it.
            env.diags.error(d.span, "E0216", f"`{name}` has chances (`{ranges.number(chances[0].weight or 0)}%`) "
                            "but is not `weighted`", help=f"write `table {name} -> {_type_text(d.result)} weighted {{`")
            env.tables[name] = dataclasses.replace(d, weighted=True)
            d = env.tables[name]
        env.table_params[name] = _deciding(env, d)


def _deciding(env: Env, d: n.TableDecl) -> tuple[str, ...]:
    """The parameters that set a range table's bounds or a weighted table's chances, in the order written.

    They are known before any body is checked, so that a read of the table knows which (secret) parameters
    its result depends on. A chance set by a parameter is a row key `weight` with no number and the
    parameter's name as its `low`.
    """
    if not PARAMETER_ROWS:
        return ()
    if d.weighted:
        bounds = [k.low for r in d.rows for k in r.keys if k.kind == "weight" and k.weight is None]
    elif d.params and any(k.kind != "exact" for r in d.rows for k in r.keys):
        bounds = [e for r in d.rows for k in r.keys for e in (k.low, k.high)]
    else:
        return ()
    return tuple(dict.fromkeys(e.name for e in bounds if isinstance(e, n.Name) and e.name in env.params))


def _parameter(env: Env, e: n.Expr | None, want: T.Ty, what: str) -> ir.ParamRef | None:
    """A bound or a chance that a parameter sets, as its IR; None if `e` does not name a parameter.

    The parameter is read when the game starts (a scenario may set it), so what the checker proves of
    literal rows is left for that moment (`ir.Table.decided_by`).
    """
    if not PARAMETER_ROWS or not isinstance(e, n.Name) or e.name not in env.params:
        return None
    p = env.params[e.name]
    env.used.add(e.name)
    if not T.assignable(p.ty, want):
        env.diags.error(e.span, "E0206", f"{what} should be {want.show()}, but parameter `{e.name}` is {p.ty.show()}")
    return ir.ParamRef(p.ty, e.span.line, e.name, span=e.span)


def tables(c: Checking) -> None:
    """Each table's rows: values, keys and chances; which keys the rows cover waits for phase 3."""
    env, checker = c.env, c.exprs
    out = []
    for name, d in list(env.tables.items()):
        ptypes, result = env.table_types[name]
        scope, ctx = Scope(), Context("static", allow_chance=False)
        rows: list[tuple[Any, ir.Expr]] = []
        values = []
        for row in d.rows:
            v = checker.expr(row.value, scope, ctx)
            checker.expect(v, result, row.value.span, f"a value of `{name}`")
            values.append(v)
        if d.weighted:
            out.append(_weighted(env, d, result, values))
            continue
        if not d.params:
            env.diags.error(d.span, "E0216", f"table `{name}` needs its keys: `table {name}(x: int) -> ...`",
                            help="or make it `weighted` to draw from it")
            _refuse(env, values)
            continue
        ranged = any(k.kind not in ("exact",) for r in d.rows for k in r.keys)
        if ranged:
            out.append(_ranged(env, d, ptypes, result, values))
            continue
        seen: dict[tuple[Any, ...], n.TableRow] = {}
        spans: list[ir.RowSpan] = []
        complete = True  # every row's keys could be read: only then is a missing combination worth saying
        for row, v in zip(d.rows, values, strict=True):
            if len(row.keys) != len(ptypes):
                env.diags.error(row.span, "E0217", f"`{name}` has {_keys_named(d)}; this row gives "
                                f"{len(row.keys)}", help=f"write each row as `{_row_example(env, d, ptypes)}`")
                complete = False
                _refuse(env, [v])
                continue
            mark = len(env.diags.items)
            key = tuple(const_value(env, k.low, pt, f"a key of `{name}`")  # type: ignore[arg-type]
                        for k, pt in zip(row.keys, ptypes, strict=True))
            if len(env.diags.items) > mark:
                complete = False
                _refuse(env, [v])
                continue
            first = seen.get(key)
            if first is not None:
                env.diags.error(row.span, "E0218", f"`{name}` has two rows for {_key_text(key, ptypes)}: the "
                                f"first is at line {first.span.line}", help="keep one of them")
                _refuse(env, [v])
                continue
            seen[key] = row
            rows.append((key, v))
            spans.append(_where(row))
        out.append(ir.Table(name, "exact", ptypes, result, tuple(rows), d.span.line, span=d.span, keys=_keys(d),
                            row_spans=tuple(spans), all_read=complete))
    c.program.tables = out


def _keys(d: n.TableDecl) -> tuple[str, ...]:
    return tuple(p.name for p in d.params)


def _where(row: n.TableRow) -> ir.RowSpan:
    return ir.RowSpan(row.span, tuple(k.span for k in row.keys))


def _refuse(env: Env, values: list[ir.Expr]) -> None:
    """Values of rows that are in no table (each row has its error): phase 3 still judges their secrets."""
    env.refused.extend((v, Context("static", allow_chance=False)) for v in values)


def _type_text(ref: n.TypeRef) -> str:
    """A type as the designer wrote it."""
    if isinstance(ref, n.NamedType):
        return ref.name
    if isinstance(ref, n.OptionalType):
        return _type_text(ref.inner) + "?"
    if isinstance(ref, n.ListType):
        return "list of " + _type_text(ref.item)
    if isinstance(ref, n.SetType):
        return "set of " + _type_text(ref.item)
    if isinstance(ref, n.MapType):
        return f"{_type_text(ref.key)} -> {_type_text(ref.value)}"
    return "TYPE"


def _keys_named(d: n.TableDecl) -> str:
    names = ", ".join(f"`{p.name}`" for p in d.params)
    return f"1 key ({names})" if len(d.params) == 1 else f"{len(d.params)} keys ({names})"


def _row_example(env: Env, d: n.TableDecl, ptypes: tuple[T.Ty, ...]) -> str:
    keys = []
    for i, pt in enumerate(ptypes):
        info = env.things.get(pt.name) if isinstance(pt, T.ThingT) else None
        if info and info.keys:
            keys.append(info.keys[i % len(info.keys)])
        else:
            keys.append("true" if pt == T.BOOL else '"a"' if pt == T.TEXT else "KEY" if isinstance(pt, T.ThingT)
                        else "1")
    return f"{', '.join(keys)}: value"


def _key_text(key: tuple[Any, ...], ptypes: tuple[T.Ty, ...]) -> str:
    """A row's key as the designer wrote it: `key 3`, `keys HILL, FORD`."""
    shown = []
    for v, pt in zip(key, ptypes, strict=True):
        if isinstance(v, bool):
            shown.append("true" if v else "false")
        elif isinstance(v, (int, Fraction)):
            shown.append(ranges.number(v))
        elif pt == T.TEXT:
            shown.append(f'"{v}"')
        else:
            shown.append(str(v))
    return ("key " if len(shown) == 1 else "keys ") + ", ".join(shown)


def _weighted(env: Env, d: n.TableDecl, result: T.Ty, values: list[ir.Expr]) -> ir.Table:
    if d.params:
        env.diags.error(d.params[0].span, "E0220", f"weighted table `{d.name}` has no keys: it is drawn from",
                        help=f"write `table {d.name} -> {_type_text(d.result)} weighted {{ ... }}`")
    total = Fraction(0)
    rows: list[tuple[Any, ir.Expr]] = []
    spans: list[ir.RowSpan] = []
    set_by: list[str] = []  # parameters that set a chance: the sum is theirs to make up, at the game's start
    readable = True  # a row not written `N%: value` has no chance to add: the sum would be wrong too
    for row, v in zip(d.rows, values, strict=True):
        k0 = row.keys[0] if len(row.keys) == 1 else None
        param = _parameter(env, k0.low, T.DECIMAL, f"a chance of `{d.name}`") \
            if k0 is not None and k0.kind == "weight" and k0.weight is None else None
        if param is not None:
            set_by.append(param.name)
            rows.append((param, v))
            spans.append(_where(row))
            continue
        if len(row.keys) != 1 or row.keys[0].kind != "weight":
            help = None
            k = row.keys[0] if len(row.keys) == 1 else None
            if k is not None and k.kind == "exact" and isinstance(k.low, n.Number):
                help = f"write `{ranges.number(k.low.value)}%`"
            env.diags.error(row.span, "E0220", "a weighted table's rows are `CHANCE%: value`, like `50%: 200`",
                            help=help)
            readable = False
            _refuse(env, [v])
            continue
        w = row.keys[0].weight or Fraction(0)
        if w <= 0:
            env.diags.error(row.span, "E0220", "a chance must be more than 0%")
        total += w
        rows.append((w, v))
        spans.append(_where(row))
    if readable and set_by and total >= 100:
        shown = f"{float(total):g}%"
        env.diags.error(d.span, "E0221", f"the chances of `{d.name}` written as numbers add up to {shown} already, "
                        f"leaving nothing for {and_(f'`{p}`' for p in set_by)}",
                        help="lower them, so that the parameters make up the rest of 100%")
    elif readable and not set_by and total != 100:
        shown = f"{float(total):g}%"
        env.diags.error(d.span, "E0221", f"the chances of `{d.name}` add up to {shown}, not 100%",
                        help=f"{'add' if total < 100 else 'remove'} {abs(float(100 - total)):g}% somewhere")
    return ir.Table(d.name, "weighted", (), result, tuple(rows), d.span.line, tuple(set_by), span=d.span,
                    row_spans=tuple(spans), all_read=readable)


def _ranged(env: Env, d: n.TableDecl, ptypes: tuple[T.Ty, ...], result: T.Ty, values: list[ir.Expr]) -> ir.Table:
    if len(ptypes) != 1 or not isinstance(ptypes[0], T.Num):
        if len(ptypes) == 1:
            p = d.params[0]
            env.diags.error(p.type.span, "E0222", f"`{d.name}` has rows with ranges, so its key must be a number; "
                            f"`{p.name}` is {ptypes[0].show()}",
                            help="`below`, `from` and `to` compare numbers; for other keys, write each key itself")
        else:
            env.diags.error(d.span, "E0222", f"`{d.name}` has rows with ranges, so it takes one number key, "
                            f"not {len(ptypes)}", help="`below`, `from` and `to` compare one number")
        _refuse(env, values)
        return ir.Table(d.name, "range", ptypes, result, (), d.span.line, span=d.span, all_read=False, keys=_keys(d))
    pt = ptypes[0]
    # Money with places (`money "0.1"`) is not whole: 3.5 falls between `1 to 3` and `4 to 6`, so its rows are
    # checked for gaps as a decimal key's are.
    integer = not pt.decimal and not (pt.unit == "money" and env.money_places)
    intervals: list[tuple[Bound, bool, Bound, bool, ir.RowSpan, ir.Expr]] = []
    all_read = True  # a row whose keys are unknown may be meant for a gap: phase 3 then says none
    for row, v in zip(d.rows, values, strict=True):
        if len(row.keys) != 1:
            env.diags.error(row.span, "E0217", f"`{d.name}` has {_keys_named(d)}; this row gives {len(row.keys)}",
                            help="a row of a range table is like `1 to 3: value`, `below 1: value` or "
                                 "`from 4: value`")
            all_read = False
            _refuse(env, [v])
            continue
        k = row.keys[0]
        mark = len(env.diags.items)

        def num(e: n.Expr | None) -> Bound:
            if e is None:
                return None
            param = _parameter(env, e, pt, f"a bound of `{d.name}`")
            if param is not None:
                return param
            val = const_value(env, e, T.DECIMAL if not integer else pt, f"a bound of `{d.name}`")
            return Fraction(val) if val is not None else None

        lo, hi = num(k.low), num(k.high)
        if len(env.diags.items) > mark:
            all_read = False  # a bound that is not a number: which keys the row takes is unknown
            _refuse(env, [v])
            continue
        # (low, low_open, high, high_open); None is unbounded.
        if k.kind == "exact":
            iv = (lo, False, lo, False)
        elif k.kind == "below":
            iv = (None, True, hi, True)
        elif k.kind == "from":
            iv = (lo, False, None, True)
        elif k.kind == "from_below":
            iv = (lo, False, hi, True)
        elif k.kind == "to":
            iv = (lo, False, hi, False)
        else:
            env.diags.error(row.span, "E0220", "a chance row belongs in a weighted table")
            all_read = False
            _refuse(env, [v])
            continue
        # A row whose range is empty (`5 to 3`) stays: phase 3 says so, with every other row's coverage.
        intervals.append((*iv, _where(row), v))

    set_by = tuple(dict.fromkeys(b.name for iv in intervals for b in (iv[0], iv[2]) if isinstance(b, ir.ParamRef)))

    def lo_key(iv: tuple[Any, ...]) -> tuple[int, Fraction, int]:
        return (0, Fraction(0), 0) if iv[0] is None else (1, iv[0], 1 if iv[1] else 0)

    # In key order where every bound is known; in the order written where a parameter decides it.
    ordered = intervals if set_by else sorted(intervals, key=lo_key)
    rows = tuple(((iv[0], iv[1], iv[2], iv[3]), iv[5]) for iv in ordered)
    return ir.Table(d.name, "range", ptypes, result, rows, d.span.line, set_by, span=d.span, keys=_keys(d),
                    row_spans=tuple(iv[4] for iv in ordered), all_read=all_read)
