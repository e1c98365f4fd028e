"""Checker phases: names and signatures are declared before any body is checked, and each body is checked once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rulesdsl import checker, ir
from rulesdsl import nodes as n
from rulesdsl.checker.exprs import ExprChecker
from rulesdsl.diagnostics import DiagnosticBag
from tests.unit.rulestools import BASE, check_text, show

# `twice` and `bonus` are declared after the player block whose defaults use them.
LATER = """define twice(x: int) -> int = x * 2
table bonus(x: int) -> int {
  1: 5
  2: 6
}
"""


def _with_player_field(field: str, after: str = LATER) -> str:
    return BASE.replace("  moves: int = 0\n", f"  moves: int = 0\n  {field}\n", 1) + after


def test_a_default_may_call_a_function_declared_later(tmp_path: Path) -> None:
    text = _with_player_field("stones: int = twice(3)", "define twice(x: int) -> int = x * 2\n")
    checked = check_text(tmp_path, text)
    assert checked.diagnostics == [], show(checked.diagnostics)


def test_a_default_may_read_a_table_declared_later(tmp_path: Path) -> None:
    text = _with_player_field("stones: int = bonus(1)", LATER.replace("define twice(x: int) -> int = x * 2\n", ""))
    checked = check_text(tmp_path, text)
    assert checked.diagnostics == [], show(checked.diagnostics)


def test_a_default_with_the_wrong_number_of_arguments_is_told_the_declared_ones(tmp_path: Path) -> None:
    text = _with_player_field("stones: int = twice(3, 4)  #!", "define twice(x: int) -> int = x * 2\n")
    got = check_text(tmp_path, text).diagnostics
    assert [(d.code, d.message) for d in got] == [("E0322", "`twice` takes 1 argument, not 2")], show(got)


def test_a_default_reading_a_table_with_the_wrong_key_count_says_so(tmp_path: Path) -> None:
    text = _with_player_field("stones: int = bonus(1, 2)", LATER.replace("define twice(x: int) -> int = x * 2\n", ""))
    got = check_text(tmp_path, text).diagnostics
    assert [(d.code, d.message) for d in got] == [("E0314", "table `bonus` takes 1 key(s), not 2")], show(got)


# A function with one mistake in its body, called from a default, a table value and a phase, all
# written before the function itself.
ONCE = BASE.replace("  moves: int = 0\n", "  moves: int = 0\n  stones: int = odd(1)\n", 1) + """\
table extra(x: int) -> int {
  1: odd(2)
}
phase q { let v = odd(extra(1)) }
define odd(x: int) -> int = x + "a"
"""


def _raw_check(text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DiagnosticBag:
    """Every diagnostic the checker reported, repeats included (`check_path` merges repeats)."""
    bags: list[DiagnosticBag] = []
    real = checker.check

    def keeping(*args: Any) -> Any:
        program, bag = real(*args)
        bags.append(bag)
        return program, bag

    monkeypatch.setattr(checker, "check", keeping)
    check_text(tmp_path, text)
    return bags[0]


def test_a_function_body_is_checked_once_however_often_it_is_called(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[n.Expr] = []
    real = ExprChecker.expr

    def counting(self: ExprChecker, node: n.Expr, *args: object) -> object:
        if isinstance(node, n.BinOp) and isinstance(node.right, n.Text):  # the body of `odd`
            seen.append(node)
        return real(self, node, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(ExprChecker, "expr", counting)
    bag = _raw_check(ONCE, tmp_path, monkeypatch)
    assert len(seen) == 1
    errors = [d for d in bag.items if d.severity == "error"]
    assert [(d.code, d.span.line) for d in errors] == [("E0317", ONCE.count("\n"))], show(errors)


def test_a_function_checked_before_the_defaults_reads_a_per_key_default_as_declared(tmp_path: Path) -> None:
    # Functions are checked before the defaults pass: the default of `owner` is checked when first read.
    text = BASE.replace("  owner: Player -> int\n", "  owner: Player -> int = twice(2)\n", 1) + \
        "define twice(x: int) -> int = x * 2\ndefine held(b: Box, p: Player) -> int = b.owner[p]\n" + \
        "phase q { for each b in Box { for each p in players { let v = held(b, p) } } }\n"
    checked = check_text(tmp_path, text)
    assert checked.diagnostics == [], show(checked.diagnostics)
    assert checked.program is not None
    held = next(f for f in checked.program.functions if f.name == "held")
    assert isinstance(held.body, ir.MapGet)
    assert isinstance(held.body.default, ir.CallFn) and held.body.default.func == "twice"
    box = next(t for t in checked.program.things if t.name == "Box")
    assert next(f for f in box.fields if f.name == "owner").default is held.body.default


def test_e0323_hints_the_type_the_one_check_of_the_body_found(tmp_path: Path) -> None:
    # `f` gives `g`'s money or 0: money. A second, quiet check of `f` that left `g` unchecked guessed int.
    text = BASE + "define f(x: int) = if x > 0 then g(x - 1) else 0\n" + \
        "define g(x: int) = if x > 1 then f(x) else money(1)\nphase q { let v = f(3) }\n"
    got = check_text(tmp_path, text).diagnostics
    assert [(d.code, d.help) for d in got] == [
        ("E0323", "write it after the parameters: `define f(x: int) -> money = ...`")], show(got)
