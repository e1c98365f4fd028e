"""A ruleset's `calendar { ... }` and the kinds its phases and orders name -> the unrolled `ir.Calendar` and
diagnostics (E0246-E0253).

A calendar is read before any body, so that `calendar.kind` and `in KIND turns` are known everywhere.
"""

from __future__ import annotations

from rulesdsl import ir
from rulesdsl import nodes as n
from rulesdsl.checker.env import suggest
from rulesdsl.checker.state import Checking
from rulesdsl.source import Span

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def declare(c: Checking) -> None:
    """The one calendar: its kinds, its cycle unrolled into steps, and the step turn 1 is."""
    env = c.env
    cals = [d for d in c.module.decls if isinstance(d, n.CalendarDecl)]
    for extra in cals[1:]:
        env.diags.error(extra.span, "E0246", "a second `calendar`: a game has one calendar",
                        help=f"join its cycle with the calendar at line {cals[0].span.line}")
    if not cals:
        return
    d = cals[0]
    kinds: dict[str, bool] = {}
    for kind, span in d.kinds:
        if kind in kinds:
            env.diags.error(span, "E0203", f"turn kind `{kind}` is declared twice")
        kinds[kind] = False
    months = any(r.first[0] in MONTHS for r in d.rows)
    steps: list[tuple[str, str]] = []
    seen: dict[str, Span] = {}
    for row in d.rows:
        periods = _periods(c, row, months)
        for period, span in periods:
            if period in seen:
                env.diags.error(span, "E0248", f"{period} is in the cycle twice",
                                help=f"it is already at line {seen[period].line}: give each period one row")
                continue
            seen[period] = span
            for kind, kspan in row.kinds:
                if kind not in kinds:
                    _unknown(c, kind, kspan, kinds)
                    continue
                kinds[kind] = True
                steps.append((period, kind))
    if not d.rows:
        env.diags.error(d.span, "E0252", "a calendar whose cycle has no rows has no turns",
                        help="write a row for each period: `January: action, reaction`")
    if months and d.rows:
        order = [p for p in seen if p in MONTHS]
        if order != [m for m in MONTHS if m in seen] or len(order) != 12:
            missing = [m for m in MONTHS if m not in seen]
            env.diags.error(d.rows[0].span, "E0249", "a cycle of months has every month once, from January "
                            "to December", help=(f"add {', '.join(missing)}" if missing
                                                 else "write the rows in the order of the months"))
    for (kind, span) in d.kinds:
        if d.rows and kinds.get(kind) is False and sum(1 for k, _ in d.kinds if k == kind) == 1:
            env.diags.error(span, "E0251", f"no turn of the cycle is a `{kind}` turn",
                            help=f"name `{kind}` in a row of the cycle, or leave it out of `kinds`")
    start = 0
    if d.start is not None:
        names = [p for p, _ in steps]
        if d.start[0] not in names:
            env.diags.error(d.start[1], "E0250", f"the cycle has no {d.start[0]}",
                            help=suggest(d.start[0], list(seen)) or f"start in one of {', '.join(seen)}")
        else:
            start = names.index(d.start[0])
    env.calendar_kinds = kinds
    env.calendar_months = months
    c.program.calendar = ir.Calendar(d.year, start, tuple(steps))


def _periods(c: Checking, row: n.CycleRow, months: bool) -> list[tuple[str, Span]]:
    """The periods one row of the cycle names: one, or the months of `FIRST..LAST`."""
    (first, fspan), last = row.first, row.last
    if last is None:
        if months and first not in MONTHS:
            c.env.diags.error(fspan, "E0249", f"`{first}` is not a month, and this cycle is of months",
                              help=suggest(first, list(MONTHS)) or "name every row by a month, or none")
            return []
        return [(first, fspan)]
    if first not in MONTHS or last[0] not in MONTHS or MONTHS.index(first) > MONTHS.index(last[0]):
        c.env.diags.error(row.span, "E0249", f"`{first}..{last[0]}` is not a range of months",
                          help="a range runs from an earlier month to a later one: `February..December`")
        return []
    return [(m, row.span) for m in MONTHS[MONTHS.index(first):MONTHS.index(last[0]) + 1]]


def _unknown(c: Checking, kind: str, span: Span, kinds: dict[str, bool]) -> None:
    c.env.diags.error(span, "E0247", f"unknown kind of turn `{kind}`",
                      help=suggest(kind, list(kinds)) or f"the calendar's kinds are {', '.join(kinds)}")


def kinds_of(c: Checking, written: tuple[tuple[str, Span], ...], what: str) -> tuple[str, ...]:
    """The kinds a phase (`in K turns`) or an order (`only in K turns`) names, each checked."""
    if not written:
        return ()
    kinds = c.env.calendar_kinds
    if kinds is None:
        c.env.diags.error(written[0][1], "E0253", f"{what} names a kind of turn, and the ruleset has no calendar",
                          help="declare the kinds in `calendar { ... kinds ... }`")
        return ()
    out = []
    for kind, span in written:
        if kind not in kinds:
            _unknown(c, kind, span, kinds)
        elif not kinds[kind]:
            c.env.diags.error(span, "E0251", f"no turn of the cycle is a `{kind}` turn: {what} would never be "
                              "used", help=f"name `{kind}` in a row of the cycle")
        else:
            out.append(kind)
    return tuple(out)
