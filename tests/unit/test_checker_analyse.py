"""Phase 3 (ANALYSE) passes run over the IR that phase 2 built: table coverage and secrets.

Each test runs phases 1 and 2 alone, shows that they leave the pass's diagnostics out, then runs the one
pass on that state and gets them.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from rulesdsl import checker, ir
from rulesdsl import types as T
from rulesdsl.checker import bodies, coverage, lookups, secrets
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


def test_a_missing_combination_of_things_is_found_in_phase_3() -> None:
    c = through_phase_2(BASE + "table t(b: Box, c: Box) -> int {\n  A, A: 1\n  A, B: 2\n  B, A: 3\n}\n"
                        "phase q { let v = t(Box.A, Box.B) }\n")
    assert found(c) == []
    coverage.check(c)
    assert [(line, code, message) for line, _, code, message in found(c)] == [
        (ROWS, "E0219", "table `t` has no row for B, B")]


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


# ---------------------------------------------------------------- secrets

SECRET = BASE.replace("player {", "secret param odds: int = 3\nplayer {", 1)


def test_secrets_are_found_in_phase_3_over_the_ir() -> None:
    text = SECRET.replace("  cash = me.cash\n", "  cash = me.cash\n  odds = odds + 1\n", 1) + \
        'define hint() -> int = odds * 2\nphase q { news "the odds are {hint()}" }\n'
    c = through_phase_2(text)
    assert [code for _, _, code, _ in found(c)] == []  # phase 2 types the bodies and says nothing of secrets
    secrets.check(c)
    got = found(c)
    assert [(code, message) for _, _, code, message in got] == [
        ("E0307", "secret parameter `odds` cannot be used in a report"),
        ("E0307", "this text shows secret parameter `odds` to players, through function `hint`"),
    ]
    assert secrets.check in checker.ANALYSE and checker.ANALYSE.index(secrets.check) < \
        checker.ANALYSE.index(lookups.check)


def _e0307(tmp_path: Path, text: str) -> list[tuple[int, int, str]]:
    got = check_text(tmp_path, text).diagnostics
    assert set(codes(got)) <= {"E0307"}, show(got)
    return [(d.span.line, d.span.col, d.message) for d in got]


SHOWN = "this text shows secret parameter `odds` to players"
FUNCTIONS = SECRET.count("\n") + 1  # the line of the first function below


def test_a_text_calling_a_function_declared_later_shows_its_secret(tmp_path: Path) -> None:
    # Phase 2 checked `f` on demand inside `g`'s text, and `f`'s own E0307 kept `g`'s from being said:
    # written in the other order, both were. Over the IR the order of the declarations does not matter.
    later = SECRET + 'define g() -> text = "y {f()}"\ndefine f() -> text = "x {odds}"\nphase q { news "{g()}" }\n'
    assert _e0307(tmp_path / "later", later) == [
        (FUNCTIONS, 26, f"{SHOWN}, through function `f`"),
        (FUNCTIONS + 1, 26, SHOWN),
        (FUNCTIONS + 2, 18, f"{SHOWN}, through function `g`"),
    ]
    earlier = SECRET + 'define f() -> text = "x {odds}"\ndefine g() -> text = "y {f()}"\nphase q { news "{g()}" }\n'
    assert [m for _, _, m in _e0307(tmp_path / "earlier", earlier)] == [
        SHOWN, f"{SHOWN}, through function `f`", f"{SHOWN}, through function `g`"]


def test_a_text_calling_a_function_of_its_own_cycle_shows_its_secret(tmp_path: Path) -> None:
    # `b`'s text was checked while `a`, which reads `odds`, was still being checked: nothing was known of
    # its secrets then, so the text passed. Phase 3 knows every function's secrets, recursion included.
    text = SECRET + 'define a(n: int) -> int = if n > 0 and b(n - 1) == "" then odds else 0\n' \
        'define b(n: int) -> text = if n > 0 then "{a(n - 1)}" else ""\nphase q { news "{b(2)}" }\n'
    assert _e0307(tmp_path, text) == [
        (FUNCTIONS + 1, 44, f"{SHOWN}, through function `a`"),
        (FUNCTIONS + 2, 18, f"{SHOWN}, through function `b`"),
    ]


# What phase 2 refuses and leaves out of the program has its own error; a secret shown in it is said too,
# as it was when phase 2 said it: the text reaches players once the first mistake is fixed.
REFUSED = {
    "a table row with a wrong key": (
        'table t(x: int) -> text {\n  1: "a"\n  2, 3: "b {odds}"\n}\nphase q { news "{t(1)}" }\n', 3, "E0217"),
    "a table with no keys": ('table t -> text {\n  1: "a"\n  2: "b {odds}"\n}\n', 3, "E0216"),
    "an unknown function's argument": ('phase q { let v = nosuch("{odds}") }\n', 1, "E0321"),
    "an unknown function inside a text": ('phase q { news "a {nosuch(odds)}" }\n', 1, "E0321"),
    "a function called as a statement": ('define f(t: text) -> int = 1\nphase q { f("{odds}") }\n', 2, "E0332"),
}


@pytest.mark.parametrize("case", REFUSED)
def test_a_secret_in_what_phase_2_refused_is_still_said(tmp_path: Path, case: str) -> None:
    text, line, code = REFUSED[case]
    got = check_text(tmp_path, SECRET + text).diagnostics
    assert sorted({(d.code, d.span.line - FUNCTIONS + 1) for d in got if d.severity == "error"}) == sorted(
        {(code, line if code != "E0216" else 1), ("E0307", line)}), show(got)


def test_a_secret_in_a_group_declared_twice_is_still_said(tmp_path: Path) -> None:
    text = SECRET.replace('  pay from cash\n', '  pay from cash\n  at most 1 G per turn else "one"\n'
                          '  at most 1 G per turn else "only one, {odds}"\n', 1)
    got = check_text(tmp_path, text).diagnostics
    assert [d.code for d in got if d.severity == "error"] == ["E0203", "E0307"], show(got)


def test_the_parts_of_a_refused_expression_are_not_children() -> None:
    # Only the secrets pass looks inside: a table read in an unknown function's arguments is no E0339.
    part = ir.TableGet(T.INT, 1, "t", (ir.Const(T.INT, 1, 5),))
    assert list(ir.walk(ir.Refused(T.ANY, 1, (part,)))) == [ir.Refused(T.ANY, 1, (part,))]


def test_a_field_default_is_judged_where_it_is_written_not_at_each_read(tmp_path: Path) -> None:
    # `owner[p]` carries the default in the IR; it reads `odds`, but the report reads only the field.
    text = SECRET.replace("  owner: Player -> int\n", "  owner: Player -> int = odds\n", 1).replace(
        "  cash = me.cash\n", "  cash = me.cash\n  owned = Box.A.owner[me]\n", 1)
    got = check_text(tmp_path, text).diagnostics
    assert got == [], show(got)
