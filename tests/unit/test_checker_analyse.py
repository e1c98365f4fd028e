"""Phase 3 (ANALYSE) passes run over the IR that phase 2 built: table coverage.

Each test runs phases 1 and 2 alone, shows that they leave the pass's diagnostics out, then runs the one
pass on that state and gets them.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from rulesdsl import checker, ir
from rulesdsl import types as T
from rulesdsl.checker import bodies, coverage, lookups
from rulesdsl.checker.env import Env
from rulesdsl.checker.state import Checking
from rulesdsl.diagnostics import Diagnostic, DiagnosticBag
from rulesdsl.parser import parse
from rulesdsl.source import Source, Span
from tests.unit.rulestools import BASE, BASE_TEMPLATE, check_text, show


def through_phase_2(text: str) -> Checking:
    """The checker's state after DECLARE and CHECK_BODIES: the IR is built, phase 3 has not run."""
    module, problems = parse(Source("t.rules", text))
    assert module is not None and problems == [], show(problems)
    env = Env(DiagnosticBag())
    c = Checking(module, env, bodies.Bodies(env).exprs, ir.Program("", {}, module.file, "x"),
                 lambda name: ("t.report.j2", BASE_TEMPLATE))
    for run in (*checker.DECLARE, *checker.CHECK_BODIES):
        run(c)
    return c


def found(c: Checking) -> list[tuple[int, int, str, str]]:
    return [(d.span.line, d.span.col, d.code, d.message) for d in c.env.diags.sorted()]


def codes(diags: list[Diagnostic]) -> list[str]:
    return [d.code for d in diags]


# ---------------------------------------------------------------- table coverage

RANGES = BASE + """table t(x: int) -> int {
  below 1: 0
  1 to 3: 1
  3 to 5: 2
  9 to 7: 3
  from 12: 4
}
phase q { let v = t(1) }
"""
ROWS = BASE.count("\n") + 1  # the line of `table t`


def test_coverage_is_proved_in_phase_3_over_the_rows_phase_2_read() -> None:
    c = through_phase_2(RANGES)
    assert found(c) == []  # phase 2 reads each row's bounds and says nothing of how they cover the keys
    table = next(t for t in c.program.tables if t.name == "t")
    # Every row is in the IR, the empty one too, each with where it and its key are written.
    assert [r.row.line for r in table.row_spans] == [ROWS + 1, ROWS + 2, ROWS + 3, ROWS + 4, ROWS + 5]
    assert [(r.keys[0].line, r.keys[0].col) for r in table.row_spans][3] == (ROWS + 4, 3)
    coverage.check(c)
    # No gap is said beside the empty row (6 to 11 may be the keys it was meant for).
    assert [(line, code) for line, _, code, _ in found(c)] == [(ROWS + 3, "E0224"), (ROWS + 4, "E0223")]
    assert found(c)[0][3] == f"this row of `t` overlaps the row at line {ROWS + 2}: key 3 would match both"


def test_coverage_needs_only_the_ir() -> None:
    """A table made by hand, with no AST behind it, is judged the same: the pass reads `ir.Table` alone."""
    c = through_phase_2(BASE)

    def at(line: int) -> ir.RowSpan:
        where = Span("t.rules", line, 3, line, 12)
        return ir.RowSpan(where, (where,))

    one = ir.Const(T.INT, 1, 1)
    rows = (((None, True, Fraction(5), True), one), ((Fraction(3), False, Fraction(8), False), one))
    c.program.tables = [ir.Table("h", "range", (T.INT,), T.INT, rows, 1, row_spans=(at(7), at(9)))]
    coverage.check(c)
    assert [(line, code, message) for line, _, code, message in found(c)] == [
        (9, "E0224", "this row of `h` overlaps the row at line 7: keys 3 to 4 would match both"),
        (9, "W0203", "`h` has no row for keys from 9; such a key stops the turn"),
    ]


def test_coverage_runs_in_analyse_before_the_reads_it_keeps_quiet() -> None:
    # lookups says nothing of a table with an error inside it: coverage's errors must be there first.
    assert coverage.check in checker.ANALYSE and coverage.check not in checker.CHECK_BODIES
    assert checker.ANALYSE.index(coverage.check) < checker.ANALYSE.index(lookups.check)


def test_a_table_with_an_overlap_is_not_also_read_as_missing_a_key(tmp_path: Path) -> None:
    text = BASE + "table t(x: int) -> int {\n  1 to 3: 1\n  2 to 4: 2\n}\nphase q { let v = t(9) }\n"
    got = check_text(tmp_path, text).diagnostics
    assert codes(got) == ["W0203", "E0224", "W0203"], show(got)  # t(9) is no E0339: the table is wrong already
