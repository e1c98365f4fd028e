"""Table AST -> IR: key and result types (phase 1), then each table's rows, chances and ranges (phase 2).

Rows are checked for what a turn would stumble on: a key with two rows, a combination of things with
none, chances that do not add up to 100%, ranges that overlap, leave gaps or can never be used.
"""

from __future__ import annotations

import dataclasses
import itertools
from fractions import Fraction
from typing import Any

from rulesdsl import ir
from rulesdsl import nodes as n
from rulesdsl import types as T
from rulesdsl.checker import ranges
from rulesdsl.checker.decls import and_, const_value
from rulesdsl.checker.env import Context, Env, Scope
from rulesdsl.checker.ranges import HIGHEST, LOWEST, Keys, describe, row_keys, uncovered
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
    """Each table's rows: values, keys, chances and ranges, and the keys no row covers."""
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
            continue
        ranged = any(k.kind not in ("exact",) for r in d.rows for k in r.keys)
        if ranged:
            out.append(_ranged(env, d, ptypes, result, values))
            continue
        seen: dict[tuple[Any, ...], n.TableRow] = {}
        complete = True  # every row's keys could be read: only then is a missing combination worth saying
        for row, v in zip(d.rows, values, strict=True):
            if len(row.keys) != len(ptypes):
                env.diags.error(row.span, "E0217", f"`{name}` has {_keys_named(d)}; this row gives "
                                f"{len(row.keys)}", help=f"write each row as `{_row_example(env, d, ptypes)}`")
                complete = False
                continue
            mark = len(env.diags.items)
            key = tuple(const_value(env, k.low, pt, f"a key of `{name}`")  # type: ignore[arg-type]
                        for k, pt in zip(row.keys, ptypes, strict=True))
            if len(env.diags.items) > mark:
                complete = False
                continue
            first = seen.get(key)
            if first is not None:
                env.diags.error(row.span, "E0218", f"`{name}` has two rows for {_key_text(key, ptypes)}: the "
                                f"first is at line {first.span.line}", help="keep one of them")
                continue
            seen[key] = row
            rows.append((key, v))
        # Thing-keyed tables must cover every combination: a missing cell would fail mid-turn.
        thing_params = [pt.name for pt in ptypes if isinstance(pt, T.ThingT) and pt.name in env.things]
        if complete and ptypes and len(thing_params) == len(ptypes):
            for combo in itertools.product(*[env.things[t].keys for t in thing_params]):
                if combo not in seen:
                    env.diags.error(d.span, "E0219", f"table `{name}` has no row for {', '.join(combo)}",
                                    help="every combination needs a row")
                    break
        out.append(ir.Table(name, "exact", ptypes, result, tuple(rows), d.span.line, span=d.span))
    c.program.tables = out


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
    set_by: list[str] = []  # parameters that set a chance: the sum is theirs to make up, at the game's start
    readable = True  # a row not written `N%: value` has no chance to add: the sum would be wrong too
    for row, v in zip(d.rows, values, strict=True):
        k0 = row.keys[0] if len(row.keys) == 1 else None
        param = _parameter(env, k0.low, T.DECIMAL, f"a chance of `{d.name}`") \
            if k0 is not None and k0.kind == "weight" and k0.weight is None else None
        if param is not None:
            set_by.append(param.name)
            rows.append((param, v))
            continue
        if len(row.keys) != 1 or row.keys[0].kind != "weight":
            help = None
            k = row.keys[0] if len(row.keys) == 1 else None
            if k is not None and k.kind == "exact" and isinstance(k.low, n.Number):
                help = f"write `{ranges.number(k.low.value)}%`"
            env.diags.error(row.span, "E0220", "a weighted table's rows are `CHANCE%: value`, like `50%: 200`",
                            help=help)
            readable = False
            continue
        w = row.keys[0].weight or Fraction(0)
        if w <= 0:
            env.diags.error(row.span, "E0220", "a chance must be more than 0%")
        total += w
        rows.append((w, v))
    if readable and set_by and total >= 100:
        shown = f"{float(total):g}%"
        env.diags.error(d.span, "E0221", f"the chances of `{d.name}` written as numbers add up to {shown} already, "
                        f"leaving nothing for {and_(f'`{p}`' for p in set_by)}",
                        help="lower them, so that the parameters make up the rest of 100%")
    elif readable and not set_by and total != 100:
        shown = f"{float(total):g}%"
        env.diags.error(d.span, "E0221", f"the chances of `{d.name}` add up to {shown}, not 100%",
                        help=f"{'add' if total < 100 else 'remove'} {abs(float(100 - total)):g}% somewhere")
    return ir.Table(d.name, "weighted", (), result, tuple(rows), d.span.line, tuple(set_by), span=d.span)


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
        return ir.Table(d.name, "range", ptypes, result, (), d.span.line, span=d.span)
    pt = ptypes[0]
    integer = not pt.decimal
    intervals: list[tuple[Bound, bool, Bound, bool, n.TableRow, ir.Expr]] = []
    complete = True  # every row's keys are known: only then can a gap be told from a row left unread
    for row, v in zip(d.rows, values, strict=True):
        if len(row.keys) != 1:
            env.diags.error(row.span, "E0217", f"`{d.name}` has {_keys_named(d)}; this row gives {len(row.keys)}",
                            help="a row of a range table is like `1 to 3: value`, `below 1: value` or "
                                 "`from 4: value`")
            complete = False
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
            complete = False  # a bound that is not a number: which keys the row takes is unknown
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
            complete = False
            continue
        if isinstance(lo, Fraction) and isinstance(hi, Fraction) and (lo > hi or (lo == hi and k.kind == "from_below")):
            message, help = _backwards(k.kind, lo, hi)
            env.diags.error(k.span, "E0223", message, help=help)
            complete = False
            continue
        intervals.append((*iv, row, v))

    # Rows a parameter bounds take keys known only when the game starts: the literal rows are still proved
    # not to overlap each other, and the gaps (which such a row may fill) are checked at the start.
    fixed = [iv for iv in intervals if not isinstance(iv[0], ir.ParamRef) and not isinstance(iv[2], ir.ParamRef)]
    set_by = tuple(dict.fromkeys(b.name for iv in intervals for b in (iv[0], iv[2]) if isinstance(b, ir.ParamRef)))
    _check_coverage(env, d.name, [(row_keys(iv[0], iv[1], iv[2], iv[3], integer), iv[4])  # type: ignore[arg-type]
                                  for iv in fixed], integer, gaps=complete and not set_by)

    def lo_key(iv: tuple[Any, ...]) -> tuple[int, Fraction, int]:
        return (0, Fraction(0), 0) if iv[0] is None else (1, iv[0], 1 if iv[1] else 0)

    # In key order where every bound is known; in the order written where a parameter decides it.
    ordered = intervals if set_by else sorted(intervals, key=lo_key)
    rows = tuple(((iv[0], iv[1], iv[2], iv[3]), iv[5]) for iv in ordered)
    return ir.Table(d.name, "range", ptypes, result, rows, d.span.line, set_by, span=d.span)


def _backwards(kind: str, lo: Fraction, hi: Fraction) -> tuple[str, str]:
    """E0223's message and hint for a row whose range holds no key."""
    a, b = ranges.number(lo), ranges.number(hi)
    if lo == hi:
        return (f"this row's range is empty: `from {a} below {b}` stops before its first key",
                f"for the key {a} alone, write `{a}`")
    turned = f"from {b} below {a}" if kind == "from_below" else f"{b} to {a}"
    return ("this row's range is empty: its start is past its end", f"did you mean `{turned}`?")


def _lines(rows: list[tuple[Keys, n.TableRow]], whole: bool, crowded: set[int]) -> str:
    """`the row at line 18`, `the rows at lines 18 and 20`; rows that share a line with another row are named
    by their keys as well: `the row for keys 0 to 4 (line 5)`."""
    ordered = sorted(rows, key=lambda kr: (kr[1].span.line, kr[1].span.col))
    if any(r.span.line in crowded for _, r in ordered):
        named = [f"for {describe(k, whole)} (line {r.span.line})" for k, r in ordered]
        return ("the row " if len(named) == 1 else "the rows ") + and_(named)
    shown = [str(r.span.line) for _, r in ordered]
    return f"the row at line {shown[0]}" if len(shown) == 1 else f"the rows at lines {and_(shown)}"


def _narrowing_hint(keys: Keys, covering: list[tuple[Keys, n.TableRow]], whole: bool, crowded: set[int]) -> str:
    """E0226's hint: remove the row, or narrow (or split) the row that takes its keys, written as a row is."""
    rows = _lines(covering, whole, crowded)
    mine = describe(keys, whole)
    if len(covering) > 1:
        return f"remove it, or narrow {rows} so that they leave this row its {mine}"
    left = uncovered(covering[0][0], [keys])
    shown = [ranges.written(k, whole) for k in left]
    if not left:
        return f"remove it, or change its bounds: {rows} takes the same keys"
    if None in shown:
        return f"remove it, or narrow {rows} so that it leaves this row its {mine}"
    if len(shown) == 1:
        return f"remove it, or narrow {rows} to `{shown[0]}`, which leaves this row its {mine}"
    return f"remove it, or split {rows} in two around its {mine}: " + " and ".join(f"`{w}`" for w in shown)


def _check_coverage(env: Env, name: str, rows: list[tuple[Keys, n.TableRow]], whole: bool, gaps: bool = True) -> None:
    """Every key should match exactly one row: no row wholly covered by others, no overlap, no gap.

    Without `gaps`, some row could not be read: the keys it was meant to take are unknown, so a gap
    (or an open end) it might fill is not reported.
    """
    # A row whose keys the other rows all take can never be used. Later rows are judged first, so of two
    # equal rows the second is the one reported.
    alive = [(k, r) for k, r in rows if not k.empty]
    lines = [r.span.line for _, r in rows]
    crowded = {line for line in lines if lines.count(line) > 1}
    for keys, row in reversed(alive):
        others = [(k, r) for k, r in alive if r is not row]
        if uncovered(keys, [k for k, _ in others]):
            continue
        # Name the fewest rows that do it: leave out later ones while the rest still cover the keys.
        covering = [(k, r) for k, r in others if not k.meet(keys).empty]
        for pair in sorted(covering, key=lambda kr: kr[1].span.line, reverse=True):
            fewer = [kr for kr in covering if kr is not pair]
            if not uncovered(keys, [k for k, _ in fewer]):
                covering = fewer
        env.diags.error(row.span, "E0226", f"this row of `{name}` can never be used: "
                        f"{_lines(covering, whole, crowded)} already {'covers' if len(covering) == 1 else 'cover'} "
                        f"its {describe(keys, whole)}", help=_narrowing_hint(keys, covering, whole, crowded))
        alive = others
    for (a, arow), (b, brow) in itertools.combinations(alive, 2):
        both = a.meet(b)
        if not both.empty:
            env.diags.error(brow.span, "E0224", f"this row of `{name}` overlaps {_lines([(a, arow)], whole, crowded)}: "
                            f"{describe(both, whole)} would match both", help="each key may match one row only")
    if not alive or not gaps:
        return
    for gap in uncovered(Keys(LOWEST, HIGHEST), [k for k, _ in alive]):
        before = [(k, r) for k, r in alive if k.end == gap.start]
        after = [(k, r) for k, r in alive if k.start == gap.end]
        what = describe(gap, whole)
        if before and after:
            sides = _lines([before[0], after[0]], whole, crowded)
            env.diags.error(after[0][1].span, "E0225", f"`{name}` has no row for {what}, between {sides}",
                            help="add a row for the gap or widen one")
        elif after:
            env.diags.warning(after[0][1].span, "W0203", f"`{name}` has no row for {what}; such a key stops the turn",
                              help="start the first row with `below ...` if smaller keys can happen")
        elif before:
            env.diags.warning(before[0][1].span, "W0203", f"`{name}` has no row for {what}; such a key stops the turn",
                              help="end the last row with `from ...` if larger keys can happen")
