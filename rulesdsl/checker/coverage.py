"""Checked IR tables (`ir.Table` rows and where each is written) -> E0219, E0223-E0226 and W0203: combinations of
things with no row, ranges that hold no key, rows other rows wholly take, overlaps and gaps.

Phase 3: phase 2 (checker/tables.py) only reads each row's bounds; whether every key then matches exactly
one row is proved here, over the IR. Rows whose bounds a parameter sets are known only when the game
starts (`ir.Table.decided_by`): the literal rows are still proved not to overlap each other, and the gaps,
which such a row may fill, are left to the start.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

from rulesdsl import ir
from rulesdsl import types as T
from rulesdsl.checker import ranges
from rulesdsl.checker.env import Env, and_
from rulesdsl.checker.ranges import HIGHEST, LOWEST, Keys, describe, row_keys, uncovered
from rulesdsl.checker.state import Checking
from rulesdsl.source import Span


def check(c: Checking) -> None:
    """Every table keyed by things has a row for each combination of them; in every range table, each row's
    range holds a key, and each key matches exactly one row."""
    for t in c.program.tables:
        if t.kind == "range" and t.rows:
            _range_table(c.env, t)
        elif t.kind == "exact":
            _thing_table(c.env, t)


def _thing_table(env: Env, t: ir.Table) -> None:
    """E0219 for the first combination of things with no row: a missing cell would fail mid-turn."""
    things = [pt.name for pt in t.param_types if isinstance(pt, T.ThingT) and pt.name in env.things]
    # A row whose keys could not be read may be the missing one: only a table read whole is judged.
    if not (t.all_read and t.param_types and len(things) == len(t.param_types)):
        return
    keys = {key for key, _ in t.rows}
    for combo in itertools.product(*[env.things[name].keys for name in things]):
        if combo not in keys:
            assert t.span is not None
            env.diags.error(t.span, "E0219", f"table `{t.name}` has no row for {', '.join(combo)}",
                            help="every combination needs a row")
            return


def _range_table(env: Env, t: ir.Table) -> None:
    pt = t.param_types[0]
    # Money with places (`money "0.1"`) is not whole: 3.5 falls between `1 to 3` and `4 to 6`.
    whole = not (isinstance(pt, T.Num) and (pt.decimal or (pt.unit == "money" and env.money_places > 0)))
    complete = t.all_read  # only then can a gap be told from a row left unread
    fixed: list[tuple[Keys, Span]] = []
    # In the order written, which the messages follow (of two equal rows, the second is the one reported).
    for ((lo, lo_open, hi, hi_open), _), where in sorted(zip(t.rows, t.row_spans, strict=True),
                                                          key=lambda rw: (rw[1].row.line, rw[1].row.col)):
        if isinstance(lo, Fraction) and isinstance(hi, Fraction) and (lo > hi or (lo == hi and hi_open)):
            message, help = _backwards("from_below" if hi_open else "to", lo, hi)
            env.diags.error(where.keys[0], "E0223", message, help=help)
            complete = False
            continue
        if isinstance(lo, ir.ParamRef) or isinstance(hi, ir.ParamRef):
            continue
        fixed.append((row_keys(lo, lo_open, hi, hi_open, whole), where.row))
    _check_coverage(env, t.name, fixed, whole, gaps=complete and not t.decided_by)


def _backwards(kind: str, lo: Fraction, hi: Fraction) -> tuple[str, str]:
    """E0223's message and hint for a row whose range holds no key."""
    a, b = ranges.number(lo), ranges.number(hi)
    if lo == hi:
        return (f"this row's range is empty: `from {a} below {b}` stops before its first key",
                f"for the key {a} alone, write `{a}`")
    turned = f"from {b} below {a}" if kind == "from_below" else f"{b} to {a}"
    return ("this row's range is empty: its start is past its end", f"did you mean `{turned}`?")


def _lines(rows: list[tuple[Keys, Span]], whole: bool, crowded: set[int]) -> str:
    """`the row at line 18`, `the rows at lines 18 and 20`; rows that share a line with another row are named
    by their keys as well: `the row for keys 0 to 4 (line 5)`."""
    ordered = sorted(rows, key=lambda kr: (kr[1].line, kr[1].col))
    if any(r.line in crowded for _, r in ordered):
        named = [f"for {describe(k, whole)} (line {r.line})" for k, r in ordered]
        return ("the row " if len(named) == 1 else "the rows ") + and_(named)
    shown = [str(r.line) for _, r in ordered]
    return f"the row at line {shown[0]}" if len(shown) == 1 else f"the rows at lines {and_(shown)}"


def _narrowing_hint(keys: Keys, covering: list[tuple[Keys, Span]], whole: bool, crowded: set[int]) -> str:
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


def _check_coverage(env: Env, name: str, rows: list[tuple[Keys, Span]], whole: bool, gaps: bool = True) -> None:
    """Every key should match exactly one row: no row wholly covered by others, no overlap, no gap.

    Without `gaps`, some row could not be read: the keys it was meant to take are unknown, so a gap
    (or an open end) it might fill is not reported.
    """
    # A row whose keys the other rows all take can never be used. Later rows are judged first, so of two
    # equal rows the second is the one reported.
    alive = [(k, r) for k, r in rows if not k.empty]
    lines = [r.line for _, r in rows]
    crowded = {line for line in lines if lines.count(line) > 1}
    for keys, row in reversed(alive):
        others = [(k, r) for k, r in alive if r != row]
        if uncovered(keys, [k for k, _ in others]):
            continue
        # Name the fewest rows that do it: leave out later ones while the rest still cover the keys.
        covering = [(k, r) for k, r in others if not k.meet(keys).empty]
        for pair in sorted(covering, key=lambda kr: kr[1].line, reverse=True):
            fewer = [kr for kr in covering if kr is not pair]
            if not uncovered(keys, [k for k, _ in fewer]):
                covering = fewer
        env.diags.error(row, "E0226", f"this row of `{name}` can never be used: "
                        f"{_lines(covering, whole, crowded)} already {'covers' if len(covering) == 1 else 'cover'} "
                        f"its {describe(keys, whole)}", help=_narrowing_hint(keys, covering, whole, crowded))
        alive = others
    for (a, arow), (b, brow) in itertools.combinations(alive, 2):
        both = a.meet(b)
        if not both.empty:
            env.diags.error(brow, "E0224", f"this row of `{name}` overlaps {_lines([(a, arow)], whole, crowded)}: "
                            f"{describe(both, whole)} would match both", help="each key may match one row only")
    if not alive or not gaps:
        return
    for gap in uncovered(Keys(LOWEST, HIGHEST), [k for k, _ in alive]):
        before = [(k, r) for k, r in alive if k.end == gap.start]
        after = [(k, r) for k, r in alive if k.start == gap.end]
        what = describe(gap, whole)
        if before and after:
            sides = _lines([before[0], after[0]], whole, crowded)
            env.diags.error(after[0][1], "E0225", f"`{name}` has no row for {what}, between {sides}",
                            help="add a row for the gap or widen one")
        elif after:
            env.diags.warning(after[0][1], "W0203", f"`{name}` has no row for {what}; such a key stops the turn",
                              help="start the first row with `below ...` if smaller keys can happen")
        elif before:
            env.diags.warning(before[0][1], "W0203", f"`{name}` has no row for {what}; such a key stops the turn",
                              help="end the last row with `from ...` if larger keys can happen")
