"""Checker, declarations, data and tables: one mistake gets one diagnostic, at its place, in the designer's words."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulesdsl.diagnostics import Diagnostic
from tests.unit.rulestools import BASE, BASE_LINES, check_text, marked_line, show

# Phases that use the table `t` (keyed by a Box, or by a number) or the weighted table `w`, so that no case
# also warns that the table is never used.
USE_T = "phase q { for each b in Box { let v = t(b) } }\n"
USE_TN = "phase q { let v = t(1) }\n"
USE_W = 'phase q { let v = draw(w, "w") }\n'


def diagnostics(tmp_path: Path, text: str) -> list[Diagnostic]:
    return check_text(tmp_path, text).diagnostics


def only(tmp_path: Path, text: str, code: str) -> Diagnostic:
    """The one diagnostic of `text`, which must be `code` on the line marked `#!`."""
    got = diagnostics(tmp_path, text)
    assert [(d.code, d.span.line) for d in got] == [(code, marked_line(text))], show(got)
    return got[0]


# ---------------------------------------------------------------- data

def test_keys_that_differ_only_in_case_are_the_same_key(tmp_path: Path) -> None:
    text = BASE.replace('  B: "Beta"\n', '  B: "Beta"\n  a: "Again"  #!\n', 1)
    d = only(tmp_path, text, "E0212")
    assert d.message == "`a` is the same key as `A` (line 9): keys are matched without regard to case"
    assert (d.span.col, d.span.end_col) == (3, 4)  # the key, not the whole row


def test_a_key_written_twice_names_its_first_row(tmp_path: Path) -> None:
    text = BASE.replace('  B: "Beta"\n', '  B: "Beta"\n  A: "Again"  #!\n', 1)
    d = only(tmp_path, text, "E0212")
    assert d.message == "Box `A` appears twice: its first row is at line 9"


def test_data_for_a_misspelt_thing_does_not_also_say_the_thing_has_no_data(tmp_path: Path) -> None:
    text = BASE + 'thing Crate keyed by code { name: text }\ndata Crates(code, name) { X: "x" }  #!\n'
    d = only(tmp_path, text, "E0209")
    assert d.help == "did you mean `Crate`?"


def test_data_for_an_unknown_thing_leaves_other_things_without_data_warned(tmp_path: Path) -> None:
    text = BASE + 'thing Crate keyed by code { name: text }\ndata Zebra(code, name) { X: "x" }\n'
    got = [(d.code, d.span.line) for d in diagnostics(tmp_path, text)]
    assert got == [("W0202", BASE_LINES + 1), ("E0209", BASE_LINES + 2)]


def test_a_wrong_first_column_is_one_error_that_says_how_to_fix_it(tmp_path: Path) -> None:
    text = BASE + 'thing Crate keyed by code { name: text }\ndata Crate(name, code) { X: "x" }  #!\n'
    d = only(tmp_path, text, "E0210")
    assert d.help == "put the key first: `data Crate(code, name)`"
    assert (d.span.col, d.span.end_col) == (12, 16)  # `name`


def test_a_column_that_is_not_a_field_is_underlined_alone_and_the_fields_are_listed(tmp_path: Path) -> None:
    text = BASE + 'thing Crate keyed by code { name: text\n size: int = 0 }\n' \
        'data Crate(code, name, szie) { X: "x", 1 }  #!\n'
    d = only(tmp_path, text, "E0211")
    assert d.message == "Crate has no field `szie`"
    assert (d.span.col, d.span.end_col) == (24, 28)
    assert d.help == "did you mean `size`? The fields of Crate are `name` and `size`"


def test_a_column_in_a_list_written_on_several_lines_is_underlined_alone(tmp_path: Path) -> None:
    text = BASE + 'thing Crate keyed by code { name: text }\ndata Crate(code,\n name, army) { X: "x", 1 }  #!\n'
    d = only(tmp_path, text, "E0211")
    assert (d.span.line, d.span.col, d.span.end_line, d.span.end_col) == (BASE_LINES + 3, 8, BASE_LINES + 3, 12)
    assert d.help == "the fields of Crate are `name`"


def test_a_column_named_twice_is_e0203(tmp_path: Path) -> None:
    text = BASE + 'thing Crate keyed by code { name: text }\ndata Crate(code, name, name) { X: "x", "y" }  #!\n'
    d = only(tmp_path, text, "E0203")
    assert (d.span.col, d.span.end_col) == (24, 28)
    assert d.message == "column `name` of `data Crate` is named twice"


def test_a_column_in_a_list_with_wider_separators_is_underlined_alone(tmp_path: Path) -> None:
    text = BASE + 'thing Crate keyed by code { name: text }\ndata Crate(code ,  army ,  name) { X: 1, "x" }  #!\n'
    d = only(tmp_path, text, "E0211")
    assert (d.span.col, d.span.end_col) == (20, 24)


@pytest.mark.parametrize(("value", "message", "hint"), [
    ("3 + 1", "`stones` of C must be written as a plain value like `4`, not calculated", "write `4`"),
    ("-2 * 3", "`stones` of C must be written as a plain value like `4`, not calculated", "write `-6`"),
    ("size(Box)", "`stones` of C must be written as a plain value like `4`, not calculated", None),
    ("starting", "`stones` of C must be a plain value like `4`, not the name `starting`", None),
    ('"4"', "`stones` of C should be a number, not a text", "remove the quotes: `4`"),
    ("true", "`stones` of C should be a number, not `true` or `false`", None),
])
def test_a_data_value_must_be_written_out(value: str, message: str, hint: str | None, tmp_path: Path) -> None:
    text = BASE.replace('  B: "Beta"\n', f'  B: "Beta"\n  C: "Gamma", {value}  #!\n', 1) \
        .replace("data Box(code, name)", "data Box(code, name, stones)", 1) \
        .replace('  A: "Alpha"\n  B: "Beta"\n', '  A: "Alpha", 0\n  B: "Beta", 0\n', 1)
    d = only(tmp_path, text, "E0206")
    assert (d.message, d.help) == (message, hint)


def test_a_calculated_parameter_default_points_to_a_function(tmp_path: Path) -> None:
    # `base_fee` is used by the calculation, though the calculation is refused: no W0101 for it.
    text = BASE + 'param fee: money = base_fee * 2  #!\nparam base_fee: money = 2\nphase q { news "{fee}" }\n'
    d = only(tmp_path, text, "E0206")
    assert d.message == "the default of `fee` must be written as a plain value like `4`, not calculated"
    assert d.help == "to calculate it, use a function: `define fee() -> money = ...`"


@pytest.mark.parametrize(("value", "message", "hint"), [
    ("money(5)", "the default of `p` is money already: write the plain number, without `money(...)`", "write `5`"),
    ("yes", "the default of `p` should be true or false", "write `true`"),
    ("Hello", "the default of `p` should be a text in quotes", 'write `"Hello"`'),
])
def test_a_parameter_default_says_what_to_write(value: str, message: str, hint: str, tmp_path: Path) -> None:
    ty = {"money(5)": "money", "yes": "bool", "Hello": "text"}[value]
    text = BASE + f'param p: {ty} = {value}  #!\nphase q {{ news "{{p}}" }}\n'
    d = only(tmp_path, text, "E0206")
    assert (d.message, d.help) == (message, hint)


# ---------------------------------------------------------------- names and declarations

def test_a_function_with_a_reserved_name_is_still_the_function_its_calls_mean(tmp_path: Path) -> None:
    text = BASE + "define turn(b: Box) -> int = b.stones  #!\nphase q { for each b in Box { let v = turn(b) } }\n"
    d = only(tmp_path, text, "E0202")
    assert d.message == "`turn` is a reserved word and cannot name a function"


@pytest.mark.parametrize("decl", ["table world(b: Box) -> int { A: 1, B: 2 }", "procedure me(b: Box) { b.stones = 1 }"])
def test_a_table_or_procedure_with_a_reserved_name_gets_only_its_e0202(decl: str, tmp_path: Path) -> None:
    name = decl.split()[1].split("(")[0]
    use = f"let v = {name}(b)" if decl.startswith("table") else f"{name}(b)"
    text = BASE + f"{decl}  #!\nphase q {{ for each b in Box {{ {use} }} }}\n"
    only(tmp_path, text, "E0202")


def test_data_for_a_thing_with_a_reserved_name_gets_only_its_e0202(tmp_path: Path) -> None:
    text = BASE + 'thing world keyed by code { name: text }  #!\ndata world(code, name) { X: "x" }\n'
    only(tmp_path, text, "E0202")


def test_a_missing_header_is_said_at_the_first_declaration(tmp_path: Path) -> None:
    text = BASE.replace('ruleset "T" { version "1" turn "turn" }\n', "# A game.\n\n", 1) \
        .replace("thing Box keyed by code {\n", "thing Box keyed by code {  #!\n", 1)
    d = only(tmp_path, text, "E0204")
    assert d.message == 'this file has no `ruleset "..." { }` header'
    assert d.span.col == 1
    assert d.help == 'start the file with `ruleset "Name" { version "1" turn "day" }`'


def test_a_per_key_value_hint_names_a_thing_of_the_ruleset(tmp_path: Path) -> None:
    text = BASE.replace("  owner: Player -> int\n", "  owner: Player -> int\n  tally: text -> money  #!\n", 1)
    d = only(tmp_path, text, "E0227")
    assert d.help == "write `Player -> money` or `Box -> money`"


@pytest.mark.parametrize(("old", "new", "first"), [
    ("  moves: int = 0\n", "  moves: int = 0\n  moves: int = 1  #!\n", "t.rules:14:3"),
    ("  stones: int = 0\n", "  stones: int = 0\n  stones: int = 1  #!\n", "t.rules:4:3"),
])
def test_a_field_declared_twice_says_where_it_was_first(old: str, new: str, first: str, tmp_path: Path) -> None:
    d = only(tmp_path, BASE.replace(old, new, 1), "E0203")
    assert d.notes == (f"first declared at {first}",)


def test_a_world_field_declared_twice_says_where_it_was_first(tmp_path: Path) -> None:
    text = BASE + "world {\n round: int = 0\n round: int = 1  #!\n}\nphase q { world.round += 1 }\n"
    d = only(tmp_path, text, "E0203")
    assert d.notes == (f"first declared at t.rules:{BASE_LINES + 2}:2",)


@pytest.mark.parametrize("second", ["param p: int = 2", "define p() -> int = 2", "table p(x: int) -> int { 1: 2 }"])
def test_a_parameter_declared_twice_says_where_it_was_first(second: str, tmp_path: Path) -> None:
    text = BASE + f'param p: int = 1\n{second}  #!\nphase q {{ news "{{p}}" }}\n'
    d = only(tmp_path, text, "E0203")
    assert d.notes == (f"first declared at t.rules:{BASE_LINES + 1}:1",)


def test_a_name_taken_by_a_later_parameter_is_reported_at_the_later_one(tmp_path: Path) -> None:
    text = BASE + 'define p() -> int = 2\nparam p: int = 1  #!\nphase q { let v = p() }\n'
    d = only(tmp_path, text, "E0203")
    assert d.notes == (f"first declared at t.rules:{BASE_LINES + 1}:1",)


@pytest.mark.parametrize(("block", "note"), [
    ("player { more: int }", "the first is at t.rules:12:1"),
    ('ruleset "U" { version "1" }', "the first is at t.rules:1:1"),
])
def test_a_second_block_says_where_the_first_is(block: str, note: str, tmp_path: Path) -> None:
    d = only(tmp_path, BASE + f"{block}  #!\n", "E0203")
    assert d.notes == (note,)


def test_the_key_declared_as_a_field_says_it_is_the_key(tmp_path: Path) -> None:
    text = BASE.replace("  name: text\n", "  code: text  #!\n  name: text\n", 1)
    d = only(tmp_path, text, "E0203")
    assert d.message == "`code` is the key of `Box` (`keyed by code`): every Box has it already"


def test_a_thing_declared_twice_is_one_error_not_one_per_field(tmp_path: Path) -> None:
    text = BASE + "thing Box keyed by code {  #!\n  name: text\n  stones: int = 0\n}\n"
    only(tmp_path, text, "E0203")


# ---------------------------------------------------------------- tables

def test_a_backwards_range_is_one_error_with_the_row_turned_around(tmp_path: Path) -> None:
    text = BASE + "table t(x: int) -> int {\n below 1: 0\n from 2 below 1: 1  #!\n from 2: 2\n}\n" + USE_TN
    d = only(tmp_path, text, "E0223")
    assert d.help == "did you mean `from 1 below 2`?"
    text = BASE + "table t(x: decimal) -> int {\n below 1: 0\n 2.5 to 1: 1  #!\n from 2.5: 2\n}\n" + USE_TN
    d = only(tmp_path, text, "E0223")
    assert d.help == "did you mean `1 to 2.5`?"


def test_a_range_that_starts_where_it_stops_says_so(tmp_path: Path) -> None:
    text = BASE + "table t(x: int) -> int {\n below 2: 0\n from 2 below 2: 1  #!\n from 3: 2\n}\n" + USE_TN
    d = only(tmp_path, text, "E0223")
    assert d.message == "this row's range is empty: `from 2 below 2` stops before its first key"
    assert d.help == "for the key 2 alone, write `2`"


def test_a_bound_that_is_not_a_number_leaves_no_gap_behind(tmp_path: Path) -> None:
    text = BASE + "table t(x: int) -> int {\n below 1: 0\n 1 to three: 1  #!\n from 5: 2\n}\n" + USE_TN
    only(tmp_path, text, "E0206")


def test_a_range_row_with_two_keys_leaves_no_gap_behind(tmp_path: Path) -> None:
    text = BASE + "table t(x: int) -> int {\n below 1: 0\n 1, 2: 1  #!\n from 5: 2\n}\n" + USE_TN
    d = only(tmp_path, text, "E0217")
    assert d.message == "`t` has 1 key (`x`); this row gives 2"


def test_overlaps_are_still_found_beside_a_row_that_cannot_be_read(tmp_path: Path) -> None:
    text = BASE + "table t(x: int) -> int {\n below 1: 0\n 5 to 3: 1\n from 0: 2\n}\n" + USE_TN
    got = [(d.code, d.span.line - BASE_LINES) for d in diagnostics(tmp_path, text)]
    assert got == [("E0223", 3), ("E0224", 4)]


def test_a_row_with_too_few_keys_is_not_also_a_missing_combination(tmp_path: Path) -> None:
    text = BASE + "table t(a: Box, b: Box) -> int {\n A, A: 1\n A, B: 1\n B, A: 1\n B: 2  #!\n}\n" \
        "phase q { for each b in Box { let v = t(b, b) } }\n"
    d = only(tmp_path, text, "E0217")
    assert d.message == "`t` has 2 keys (`a`, `b`); this row gives 1"
    assert d.help == "write each row as `A, B: value`"


def test_an_unknown_key_is_not_also_a_missing_combination(tmp_path: Path) -> None:
    text = BASE + "table t(b: Box) -> int {\n AA: 1  #!\n B: 2\n}\n" + USE_T
    d = only(tmp_path, text, "E0207")
    assert d.help == "did you mean `A`?"


def test_keys_in_tables_and_links_match_without_regard_to_case(tmp_path: Path) -> None:
    text = BASE + "table t(b: Box) -> int {\n a: 1\n B: 2\n}\n" + USE_T + "links Box.near { b: A }\n"
    checked = check_text(tmp_path, text)
    assert checked.ok and not checked.diagnostics, show(checked.diagnostics)
    assert checked.program is not None
    [table] = [t for t in checked.program.tables if t.name == "t"]
    assert [key for key, _ in table.rows] == [("A",), ("B",)]
    near = {i.key: i.values.get("near") for i in checked.program.instances["Box"]}
    assert near == {"A": ["B"], "B": ["A"]}


def test_a_key_linked_to_itself_in_another_case_is_still_linked_to_itself(tmp_path: Path) -> None:
    only(tmp_path, BASE + "links Box.near { A: a }  #!\n", "E0215")


def test_a_key_twice_is_named_with_the_line_of_its_first_row(tmp_path: Path) -> None:
    text = BASE + "table t(x: int) -> int {\n 1: 1, 2: 2\n 2: 5  #!\n}\n" + USE_TN
    d = only(tmp_path, text, "E0218")
    assert d.message == f"`t` has two rows for key 2: the first is at line {BASE_LINES + 2}"
    text = BASE + "table t(a: Box, b: text) -> int {\n A, \"x\": 1\n A, \"x\": 5  #!\n}\n" \
        "phase q { for each b in Box { let v = t(b, \"x\") } }\n"
    d = only(tmp_path, text, "E0218")
    assert d.message == f'`t` has two rows for keys A, "x": the first is at line {BASE_LINES + 2}'


def test_a_weighted_table_with_a_row_that_is_not_a_chance_does_not_also_add_them_up(tmp_path: Path) -> None:
    text = BASE + "table w -> int weighted {\n 60: 0  #!\n 40%: 1\n}\n" + USE_W
    d = only(tmp_path, text, "E0220")
    assert d.help == "write `60%`"


def test_chances_in_a_table_that_is_not_weighted_are_one_error_at_the_table(tmp_path: Path) -> None:
    text = BASE + "table w -> int {  #!\n 60%: 0\n 40%: 1\n}\n" + USE_W
    d = only(tmp_path, text, "E0216")
    assert d.message == "`w` has chances (`60%`) but is not `weighted`"
    assert d.help == "write `table w -> int weighted {`"


def test_a_table_without_keys_or_chances_still_needs_its_keys(tmp_path: Path) -> None:
    [d] = [d for d in diagnostics(tmp_path, BASE + "table t -> int { 1: 2 }\n") if d.code == "E0216"]
    assert d.message == "table `t` needs its keys: `table t(x: int) -> ...`"


def test_a_range_table_with_a_key_that_is_not_a_number_points_at_the_key_type(tmp_path: Path) -> None:
    text = BASE + 'table t(x: text) -> int {  #!\n below "M": 1\n from "M": 2\n}\nphase q { let v = t("A") }\n'
    d = only(tmp_path, text, "E0222")
    assert d.message == "`t` has rows with ranges, so its key must be a number; `x` is text"
    assert (d.span.col, d.span.end_col) == (12, 16)
    text = BASE + "table t(x: int, y: int) -> int {  #!\n below 1, 2: 1\n}\nphase q { let v = t(1, 2) }\n"
    d = only(tmp_path, text, "E0222")
    assert d.message == "`t` has rows with ranges, so it takes one number key, not 2"


def test_an_unknown_key_with_no_close_one_lists_the_keys(tmp_path: Path) -> None:
    text = BASE + "table t(b: Box) -> int {\n A: 1\n B: 2\n Q: 3  #!\n}\n" + USE_T
    d = only(tmp_path, text, "E0207")
    assert d.help == "the Box keys are `A` and `B`"
    d = only(tmp_path, BASE + "links Box.near { A: Q }  #!\n", "E0207")
    assert d.help == "the Box keys are `A` and `B`"


def test_a_weighted_table_with_keys_shows_the_header_to_write(tmp_path: Path) -> None:
    text = BASE + "table w(x: int) -> int weighted {  #!\n 50%: 1\n 50%: 2\n}\n" + USE_W
    d = only(tmp_path, text, "E0220")
    assert d.help == "write `table w -> int weighted { ... }`"


# ---------------------------------------------------------------- fields `from scenario`

def _player_field(line: str) -> str:
    """BASE with one more player field, marked `#!`."""
    return BASE.replace("  moves: int = 0\n", f"  moves: int = 0\n  {line}  #!\n", 1)


@pytest.mark.parametrize("line", ["home: Box from scenario", "rival: Player from scenario",
                                  "banner: text from scenario", "seen: set of Box from scenario"])
def test_a_player_field_from_the_scenario_needs_no_default(line: str, tmp_path: Path) -> None:
    # A lone Box or Player without a default is E0228 unless the scenario gives it.
    assert diagnostics(tmp_path, _player_field(line).replace("  #!", "")) == []


def test_a_world_field_from_the_scenario_needs_no_default(tmp_path: Path) -> None:
    assert diagnostics(tmp_path, BASE + "world {\n capital: Box from scenario\n}\n") == []


def test_a_field_from_the_scenario_with_a_default_too_points_at_the_default(tmp_path: Path) -> None:
    d = only(tmp_path, _player_field("home: Box from scenario = Box.A"), "E0229")
    assert d.message == "field `home` comes from the scenario, so it has no default"
    assert (d.span.line, d.span.col, d.span.end_col) == (15, 29, 34)
    assert d.help == "remove `from scenario` to start every one at this value, or remove the default"


def test_a_field_from_the_scenario_cannot_be_reset_each_turn(tmp_path: Path) -> None:
    d = only(tmp_path, _player_field("seen: int from scenario reset each turn"), "E0229")
    assert d.message == ("field `seen` comes from the scenario, so it cannot be `reset each turn`: "
                         "it has no default to go back to")
    assert (d.span.line, d.span.col) == (15, 3)


def test_a_things_field_cannot_come_from_the_scenario(tmp_path: Path) -> None:
    text = BASE.replace("  stones: int = 0\n", "  stones: int = 0\n  rank: int from scenario  #!\n", 1)
    d = only(tmp_path, text, "E0229")
    assert d.message == ("a thing's field cannot come `from scenario`: `rank` would need every instance in "
                         "every scenario")
    assert (d.span.line, d.span.col) == (5, 3)


def test_a_field_named_from_after_a_field_without_default_is_a_field(tmp_path: Path) -> None:
    # It was E0103 ("`from` is a keyword here"): a keyword followed by `:` now names the field.
    text = BASE.replace("  moves: int = 0\n", "  moves: int\n  from: int\n", 1)
    assert diagnostics(tmp_path, text) == []
