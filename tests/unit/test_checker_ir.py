"""The checker's IR: every node carries the span it came from, and `walk` reaches every node."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulesdsl import ir
from rulesdsl import types as T
from rulesdsl.compiler import check_path
from rulesdsl.source import Span
from tests.unit.rulestools import BASE, RULESETS, check_text, show


@pytest.mark.parametrize("ruleset", ["covert", "nukecards"])
def test_every_node_of_a_shipped_ruleset_has_its_span(ruleset: str) -> None:
    program = check_path(RULESETS / f"{ruleset}.rules").program
    assert program is not None
    nodes = list(ir.walk(list(program.nodes())))
    assert len(nodes) > 1000
    assert [n for n in nodes if n.span is None] == []
    # `line` (which the code generator reads) is the first line of the span.
    assert [n for n in nodes if n.span is not None and getattr(n, "line", n.span.line) != n.span.line] == []


def test_a_span_has_the_column_of_what_it_came_from(tmp_path: Path) -> None:
    text = BASE + "phase q { let v = 1 + size([2, 3]) }\n"
    program = check_text(tmp_path, text).program
    assert program is not None
    phase = next(p for p in program.phases if p.name == "q")
    line = text.count("\n")
    spans = {type(x).__name__: (x.span.line, x.span.col, x.span.end_col) for x in ir.walk(phase)
             if x.span is not None and type(x) is not ir.Const}
    assert spans == {"Phase": (line, 1, 37), "Let": (line, 11, 35), "BinOp": (line, 19, 35),
                     "Builtin": (line, 23, 35), "MakeList": (line, 28, 34)}


def test_walk_goes_into_branches_records_and_rows_in_order() -> None:
    def c(v: int) -> ir.Const:
        return ir.Const(T.INT, 1, v)

    stmt = ir.If(1, ((c(1), (ir.Let(1, "a", c(2)),)), (c(3), ())),
                 (ir.Let(1, "b", ir.MakeRecord(T.ANY, 1, (("x", c(4)),))),))
    assert [x.value for x in ir.walk(stmt) if isinstance(x, ir.Const)] == [1, 2, 3, 4]
    table = ir.Table("t", "exact", (T.INT,), T.INT, (((1,), c(5)), ((2,), c(6))), 1)
    assert list(table.children()) == [c(5), c(6)]


def test_spanned_gives_a_made_up_part_the_span_of_what_it_stands_for() -> None:
    span = Span("t.rules", 3, 5, 3, 9)
    inner = ir.Const(T.INT, 3, 0, span=Span("t.rules", 3, 7, 3, 8))
    made = ir.UnaryOp(T.INT, 3, "-", ir.Const(T.INT, 3, 1))
    whole = ir.BinOp(T.INT, 3, "+", inner, made)
    assert ir.spanned(whole, span) is whole
    assert (whole.span, inner.span, made.span, made.operand.span) == (span, Span("t.rules", 3, 7, 3, 8), span, span)
    assert whole == ir.BinOp(T.INT, 3, "+", ir.Const(T.INT, 3, 0), made)  # a span does not change equality


def test_a_call_that_is_already_an_error_is_not_also_a_change_before_a_fail(tmp_path: Path) -> None:
    # E0418 looks at the checked effect: an unknown procedure changes nothing, so the one mistake is E0321.
    text = BASE.replace("  effect { box.stones += n }",
                        '  effect {\n    pay_out(n)\n    if n > 3 { fail "too many" }\n  }')
    got = check_text(tmp_path, text).diagnostics
    assert [(d.code, d.message) for d in got] == [("E0321", "unknown procedure `pay_out`")], show(got)
