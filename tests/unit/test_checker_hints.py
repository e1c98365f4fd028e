"""Checker hints: each mistake gets one diagnostic, underlined where it is, in the designer's words, with a hint."""

from __future__ import annotations

from pathlib import Path

from rulesdsl.compiler import check_path
from rulesdsl.diagnostics import Diagnostic
from tests.unit.rulestools import BASE, check_text, marked_line, show, write_ruleset


def only(tmp_path: Path, text: str, code: str) -> Diagnostic:
    """The one diagnostic of `text`, which must be `code` on the line marked `#!`."""
    got = check_text(tmp_path, text).diagnostics
    assert [(d.code, d.span.line) for d in got] == [(code, marked_line(text))], show(got)
    return got[0]


def report_field(line: str) -> str:
    """BASE with one more report field, `line`, marked `#!`."""
    return BASE.replace("  cash = me.cash\n", f"  cash = me.cash\n  {line}  #!\n")


def underlined(text: str, d: Diagnostic) -> str:
    """What the caret of `d` stands under, on one line of `text`."""
    assert d.span.line == d.span.end_line, show([d])
    return text.splitlines()[d.span.line - 1][d.span.col - 1:d.span.end_col - 1]


def test_an_interpolated_stream_name_is_underlined_with_a_fixed_name_to_write(tmp_path: Path) -> None:
    text = BASE + ('phase plague {\n  for each b in Box {\n'
                   '    if roll(6, "plague {b.code}") == 1 { b.stones -= 1 }  #!\n  }\n}\n')
    d = only(tmp_path, text, "E0325")
    assert underlined(text, d) == '"plague {b.code}"'
    assert d.message == "a stream name must be a plain text, without `{...}`"
    assert d.help is not None and '`roll(6, "plague")`' in d.help


def with_rate(arg: str) -> str:
    """BASE with a third argument `rate` of order `put`, declared as `arg` on the line marked `#!`."""
    return (BASE.replace('"P,{box},{n}"', '"P,{box},{n},{rate}"')
            .replace("  n: 1..9\n", f"  n: 1..9\n  {arg}  #!\n")
            .replace("box.stones += n", "box.stones += n + floor(rate)"))


def test_a_decimal_order_argument_is_refused_in_whole_numbers_with_a_range_to_write(tmp_path: Path) -> None:
    text = with_rate("rate: decimal")
    d = only(tmp_path, text, "E0405")
    assert underlined(text, d) == "decimal"
    assert d.message == "an order argument cannot be a decimal: orders take whole numbers (`int`) or `money`"
    assert d.help is not None and "`rate: 0..100`" in d.help


def test_a_decimal_range_argument_says_the_same(tmp_path: Path) -> None:
    text = with_rate("rate: decimal from 0 to 1")
    d = only(tmp_path, text, "E0405")
    assert underlined(text, d) == "decimal"
    assert d.help is not None and "`rate: 0..100`" in d.help


def test_an_order_name_in_quotes_is_underlined_with_the_name_to_write(tmp_path: Path) -> None:
    text = BASE + 'phase q {\n  let puts = count(o for o in orders("put"))  #!\n  news "{puts} puts"\n}\n'
    d = only(tmp_path, text, "E0319")
    assert underlined(text, d) == '"put"'
    assert d.help == "write the name without quotes: `orders(put)`"


def test_sorted_without_by_asks_for_an_order_in_the_comprehension_s_own_names(tmp_path: Path) -> None:
    text = report_field("boxes = sorted(b.name for b in Box)")
    d = only(tmp_path, text, "E0329")
    assert d.message == "`sorted` needs `by` to know the order"
    assert d.help == "add `by b.name` before the closing `)` for alphabetical order"


def test_sorted_without_by_is_offered_its_own_text_or_number_or_the_things_name(tmp_path: Path) -> None:
    def help_for(body: str) -> str | None:
        text = report_field(f"boxes = sorted({body} for b in Box)")
        return only(tmp_path, text, "E0329").help

    assert help_for("b.code") == "add `by b.code` before the closing `)` for alphabetical order"
    assert help_for("b.stones") == ("add `by b.stones` before the closing `)` for the lowest first "
                                    "(`by b.stones descending` for the highest)")
    assert help_for("b") == "add `by b.name` before the closing `)` for alphabetical order"


def test_best_without_by_is_offered_a_number_of_its_own_items(tmp_path: Path) -> None:
    text = report_field("top = best(b for b in Box)")
    d = only(tmp_path, text, "E0329")
    assert (d.message, d.help) == ("`best` needs `by`: what makes one better than another",
                                   "add `by b.stones` before the closing `)`: the highest wins")


def table_rows(key: str, rows: list[str]) -> str:
    """BASE with a range table `t` of these rows, the last marked `#!`, read by a phase."""
    body = "".join(f" {r}: {i}{'  #!' if i == len(rows) - 1 else ''}\n" for i, r in enumerate(rows))
    return BASE + f"table t(x: {key}) -> int {{\n{body}}}\nphase q {{ for each b in Box {{ let v = t(b.stones) }} }}\n"


def test_a_row_never_used_is_offered_the_narrowed_row_that_covers_it(tmp_path: Path) -> None:
    text = table_rows("int", ["below 0", "0 to 9", "from 10", "from 20"])
    d = only(tmp_path, text, "E0226")
    assert d.help == (f"remove it, or narrow the row at line {d.span.line - 1} to `10 to 19`, "
                      "which leaves this row its keys from 20")


def test_a_row_inside_another_is_offered_the_split_of_that_row(tmp_path: Path) -> None:
    text = table_rows("decimal", ["below 1", "from 1 below 4", "from 4", "from 2 below 3"])
    d = only(tmp_path, text, "E0226")
    assert d.help is not None and d.help.endswith(": `from 1 below 2` and `from 3 below 4`")


def test_minus_on_a_text_sort_key_suggests_descending(tmp_path: Path) -> None:
    text = report_field("boxes = sorted(b.name for b in Box by -b.name)")
    d = only(tmp_path, text, "E0302")
    assert underlined(text, d) == "-b.name"
    assert d.help == "to sort from Z to A, drop the `-` and write `by b.name descending`"


def test_minus_on_a_loop_s_sort_key_or_a_condition_has_a_hint_too(tmp_path: Path) -> None:
    text = BASE + 'phase q {\n  for each b in Box by -b.name { news "{b.name}" }  #!\n}\n'
    assert only(tmp_path, text, "E0302").help == "to sort from Z to A, drop the `-` and write `by b.name descending`"
    text = BASE + ("define empty(b: Box) -> bool = -(b.stones > 0)  #!\n"
                   "phase q { for each b in Box where empty(b) { } }\n")
    assert only(tmp_path, text, "E0302").help == "for the opposite of a condition, write `not b.stones > 0`"
    text = BASE.replace("  moves: int = 0\n", "  moves: int = 0\n  debt: int?\n") + (
        "phase q { for each p in players { p.moves = -p.debt } }  #!\n")
    assert only(tmp_path, text, "E0302").help == "this may be none: check it first with `if p.debt != none { ... }`"


def test_branches_of_a_thing_and_a_text_are_offered_the_thing_s_name(tmp_path: Path) -> None:
    text = BASE + 'phase q {\n  for each b in Box {\n    let v = if b.stones > 0 then b else "empty"  #!\n' \
        '    news "{v}"\n  }\n}\n'
    assert only(tmp_path, text, "E0303").help == "make both branches texts: write `b.name` after `then`"
    text = BASE + 'phase q {\n  for each b in Box { news "{size([b, b.name])}" }  #!\n}\n'
    assert only(tmp_path, text, "E0303").help == "make every item a text: write `b.name`"


def test_branches_of_a_number_and_a_text_or_of_money_and_a_count_are_offered_a_conversion(tmp_path: Path) -> None:
    text = BASE + 'phase q {\n  for each b in Box {\n    let v = if b.stones > 0 then b.stones else "none"  #!\n' \
        '    news "{v}"\n  }\n}\n'
    assert only(tmp_path, text, "E0303").help == "make both branches texts: write `text(b.stones)` after `then`"
    text = BASE + 'phase q {\n  for each p in players {\n    p.cash = if p.moves > 0 then p.cash else p.moves  #!\n' \
        '  }\n}\n'
    assert only(tmp_path, text, "E0303").help == ("money and counts do not mix: `money(p.moves)` turns a count "
                                                  "into money")


def test_a_function_called_as_a_statement_is_offered_a_statement_that_uses_its_value(tmp_path: Path) -> None:
    text = BASE + ("define upkeep(p: Player) -> money = money(p.moves)\n"
                   "phase q {\n  for each p in players {\n    upkeep(p)  #!\n  }\n}\n")
    assert only(tmp_path, text, "E0332").help == "store what it computes, like `p.cash -= upkeep(p)` (or `+=`)"
    text = BASE + "define full(b: Box) -> bool = b.stones > 3\nphase q {\n  for each b in Box { full(b) }  #!\n}\n"
    assert only(tmp_path, text, "E0332").help == "test what it computes, like `if full(b) { ... }`"


def test_a_function_called_as_a_statement_still_has_its_arguments_checked(tmp_path: Path) -> None:
    text = BASE + "define full(b: Box) -> bool = b.stones > 3\nphase q { full(nobody) }  #!\n"
    got = check_text(tmp_path, text).diagnostics
    assert [(d.code, d.span.line) for d in got] == [("E0332", marked_line(text)), ("E0309", marked_line(text))], \
        show(got)


def test_a_second_report_block_is_offered_the_first_one_s_line(tmp_path: Path) -> None:
    first = BASE.splitlines().index("report {") + 1
    text = BASE + "report {  #!\n  moves = me.moves\n}\n"
    assert only(tmp_path, text, "E0501").help == f"move its fields into the `report` block at line {first}"


def test_a_report_without_template_is_offered_one_named_after_the_ruleset(tmp_path: Path) -> None:
    text = BASE.replace("report {\n", "report {  #!\n").replace('  template "t.report.j2"\n', "")
    d = only(tmp_path, text, "E0503")
    assert d.help == 'add `template "t.report.j2"` to the block, naming a Jinja file next to the ruleset'
    # Read under a name that is not a `.rules` file, the hint stays general.
    got = check_path(write_ruleset(tmp_path, text), display="<ruleset>").diagnostics
    assert [d.help for d in got] == ['add `template "NAME.report.j2"` to the block, naming a Jinja file next to '
                                     'the ruleset']


def test_held_for_zero_turns_is_offered_leaving_it_out(tmp_path: Path) -> None:
    text = BASE + "victory v for p {\n  when p.cash > 100\n  held for 0 turns  #!\n}\n"
    d = only(tmp_path, text, "E0415")
    assert underlined(text, d) == "0"
    assert d.help == "to win at the end of the first turn the condition holds, leave out `held for`"


def test_a_record_field_the_template_misreads_lists_the_fields_when_none_is_close(tmp_path: Path) -> None:
    boxes = "  boxes = [{code: b.code, stones: b.stones} for b in Box]\n"
    text = BASE.replace("  cash = me.cash\n", "  cash = me.cash\n" + boxes)
    checked = check_text(tmp_path, text, "{{ cash }}\n{% for b in boxes %}{{ b.weight }}{% endfor %}\n")
    [d] = checked.diagnostics
    assert (d.code, d.span.line, d.help) == ("E0507", 2, "its fields are `code`, `stones`"), show(checked.diagnostics)


def test_a_secret_parameter_named_in_the_template_is_e0307_not_an_unknown_name(tmp_path: Path) -> None:
    text = BASE + "secret param odds: int = 3\nphase q { let o = odds }\n"
    checked = check_text(tmp_path, text, "{{ cash }}\nOdds: {{ odds }}\n")
    [d] = checked.diagnostics
    assert (d.span.file, d.code, d.span.line, d.span.col) == ("t.report.j2", "E0307", 2, 10), show(checked.diagnostics)
    assert d.message == "the template names secret parameter `odds`, which players must not see"


# A thing whose holder may be none, and tests of the holder that a condition around them already decided.
_CRATES = '''thing Crate keyed by code {
  label: text
  holder: Player?
}
data Crate(code, label) { X: "x" }
'''


def _ruled_out(tmp_path: Path, body: str) -> Diagnostic:
    text = BASE + _CRATES + "phase tidy {\n" + body + "}\n"
    checked = check_text(tmp_path, text)
    [d] = checked.diagnostics
    assert (d.code, d.span.line) == ("E0315", marked_line(text)), show(checked.diagnostics)
    return d


def test_a_none_test_the_loops_where_rules_out_says_so(tmp_path: Path) -> None:
    d = _ruled_out(tmp_path, "  for each c in Crate where c.holder != none {\n"
                             "    if c.holder != none { c.holder.moves += 1 }  #!\n  }\n")
    where = d.span.line - 1
    assert d.message == f"`c.holder` cannot be none here: the loop's `where` at line {where} already rules none out"
    assert d.help == "leave this test out: it is always true here"
    assert d.span.col == 8


def test_a_none_test_an_if_or_an_and_rules_out_says_which(tmp_path: Path) -> None:
    d = _ruled_out(tmp_path, "  for each c in Crate {\n    if c.holder != none {\n"
                             "      if c.holder == none { news \"never\" }  #!\n    }\n  }\n")
    assert d.message == (f"`c.holder` cannot be none here: the `if` at line {d.span.line - 1} already rules none "
                         "out")
    assert d.help == "leave this test out: it is always false here"
    d = _ruled_out(tmp_path, "  for each c in Crate where c.holder != none and c.holder != none {  #!\n  }\n")
    assert "the left side of this `and` already rules none out" in d.message
