"""Range bounds and chances a parameter sets (issue 10 §4): checked where literal, left for the game's start."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from rulesdsl import checker, ir
from rulesdsl import nodes as n
from rulesdsl.checker import tables
from rulesdsl.diagnostics import Diagnostic
from tests.unit.rulestools import BASE, check_text, show

USE = "phase q { let v = t(3) }\n"


@pytest.fixture(autouse=True)
def parameter_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checker's side, on: the code generator's side is still to come (see PARAMETER_ROWS)."""
    monkeypatch.setattr(tables, "PARAMETER_ROWS", True)


def test_until_the_code_generator_writes_them_a_parameter_bound_is_still_e0206(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tables, "PARAMETER_ROWS", False)
    got = check_text(tmp_path, _table("  below edge: 1\n  from edge: 2\n")).diagnostics
    assert [d.code for d in got] == ["E0206", "E0206"], show(got)


def _table(rows: str, params: str = "param edge: int = 5\n") -> str:
    return BASE + params + f"table t(x: int) -> int {{\n{rows}}}\n" + USE


def test_a_range_bound_may_be_a_parameter(tmp_path: Path) -> None:
    checked = check_text(tmp_path, _table("  below edge: 1\n  from edge: 2\n"))
    assert checked.diagnostics == [], show(checked.diagnostics)
    assert checked.program is not None
    t = next(t for t in checked.program.tables if t.name == "t")
    assert t.decided_by == ("edge",)
    (lo0, _, hi0, _), _ = t.rows[0]
    (lo1, _, hi1, _), _ = t.rows[1]
    assert (lo0, hi1) == (None, None)
    assert all(isinstance(b, ir.ParamRef) and b.name == "edge" for b in (hi0, lo1))


def test_a_parameter_bound_of_another_kind_of_number_is_refused(tmp_path: Path) -> None:
    got = check_text(tmp_path, _table("  below edge: 1\n  from edge: 2\n", "param edge: money = 5\n")).diagnostics
    assert {(d.code, d.message) for d in got} == {
        ("E0206", "a bound of `t` should be int, but parameter `edge` is money")}, show(got)


def test_literal_rows_are_still_proved_not_to_overlap_and_gaps_wait_for_the_start(tmp_path: Path) -> None:
    rows = "  below edge: 1\n  10 to 20: 2\n  15 to 30: 3\n  from 40: 4\n"
    got = check_text(tmp_path, _table(rows)).diagnostics
    # 10 to 20 and 15 to 30 overlap whatever `edge` is; 31 to 39 may be taken by no row, but that is the
    # start's to say, with `edge` known.
    assert [d.code for d in got] == ["E0224"], show(got)


def test_a_table_a_secret_parameter_bounds_is_a_secret_too(tmp_path: Path) -> None:
    text = (BASE.replace("  cash = me.cash\n", "  cash = me.cash\n  level = t(me.moves)\n")
            + "secret param edge: int = 5\ntable t(x: int) -> int {\n  below edge: 1\n  from edge: 2\n}\n"
            + 'phase q { news "level {t(3)}" }\n')
    got = check_text(tmp_path, text).diagnostics
    assert sorted((d.code, d.message) for d in got) == [
        ("E0307", "table `t` has rows set by secret parameter `edge`, so a report cannot use it"),
        ("E0307", "this text shows secret parameter `edge` to players, through table `t`"),
    ], show(got)


# The grammar writes chances as numbers (`30%`); a chance a parameter sets reaches the checker as a row
# key `weight` with no number and the parameter's name as its `low`.
WEIGHTED = BASE + "param rare: int = 10\ntable w -> int weighted { 60%: 1, 30%: 2, 10%: 3 }\n" + \
    'phase q { let v = draw(w, "w") }\n'


def _check_with_parameter_chance(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> tuple[
        ir.Program, list[Diagnostic]]:
    real = checker.check

    def with_parameter(module: n.Module, *args: Any) -> Any:
        decls = []
        for d in module.decls:
            if isinstance(d, n.TableDecl) and d.name == "w":
                last = d.rows[-1]
                key = n.RowKey(last.keys[0].span, "weight", n.Name(last.keys[0].span, "rare"), None, None)
                d = dataclasses.replace(d, rows=(*d.rows[:-1], dataclasses.replace(last, keys=(key,))))
            decls.append(d)
        return real(dataclasses.replace(module, decls=tuple(decls)), *args)

    monkeypatch.setattr(checker, "check", with_parameter)
    checked = check_text(tmp_path, text)
    assert checked.program is not None
    return checked.program, checked.diagnostics


def test_a_chance_may_be_a_parameter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    program, got = _check_with_parameter_chance(tmp_path, monkeypatch, WEIGHTED)
    assert got == [], show(got)
    w = next(t for t in program.tables if t.name == "w")
    assert w.decided_by == ("rare",)
    assert isinstance(w.rows[-1][0], ir.ParamRef) and w.rows[-1][0].name == "rare"


def test_literal_chances_that_leave_nothing_for_the_parameter_are_refused(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    text = WEIGHTED.replace("60%: 1, 30%: 2", "70%: 1, 30%: 2")
    _, got = _check_with_parameter_chance(tmp_path, monkeypatch, text)
    assert [(d.code, d.message) for d in got] == [
        ("E0221", "the chances of `w` written as numbers add up to 100% already, leaving nothing for `rare`")], \
        show(got)
