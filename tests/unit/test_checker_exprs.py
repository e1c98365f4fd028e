"""Checker, expressions and statements: one diagnostic per mistake, at the mistake, in the designer's words."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulesdsl.diagnostics import Diagnostic
from tests.unit.rulestools import BASE, BASE_LINES, check_text, show

FIRST = BASE_LINES + 1  # the line of the first line added after BASE


def diagnostics(tmp_path: Path, text: str) -> list[Diagnostic]:
    return check_text(tmp_path, text).diagnostics


def only(tmp_path: Path, text: str, code: str) -> Diagnostic:
    """The one diagnostic of `text`, which must have `code`: a mistake gets one diagnostic, not a cascade."""
    got = diagnostics(tmp_path, text)
    assert [d.code for d in got] == [code], show(got)
    return got[0]


def effect(stmts: str) -> str:
    """BASE with the effect of order `put` (arguments `box: Box`, `n: 1..9`) replaced."""
    old = "  effect { box.stones += n }\n"
    assert old in BASE
    return BASE.replace(old, f"  effect {{\n{stmts}\n  }}\n", 1)


# ---------------------------------------------------------------- assignment


def test_assigning_an_order_argument_is_refused(tmp_path: Path) -> None:
    d = only(tmp_path, effect("    if n > box.stones {\n      n = box.stones\n    }"), "E0336")
    assert (d.span.line, d.span.col) == (BASE.count("\n", 0, BASE.index("  effect")) + 3, 7)
    assert "argument of order `put`" in d.message and "cannot change" in d.message
    assert d.help is not None and "`let left = n`" in d.help


def test_adding_to_an_order_argument_is_refused(tmp_path: Path) -> None:
    only(tmp_path, effect("    n += 1"), "E0336")


def test_a_local_copy_of_an_argument_and_a_loop_variable_may_change(tmp_path: Path) -> None:
    text = effect("    let left = n\n    left -= 1\n    for each n in [1, 2] { n = 3 }\n    box.stones += left")
    assert diagnostics(tmp_path, text) == []


def test_assigning_a_parameter_says_parameters_do_not_change(tmp_path: Path) -> None:
    d = only(tmp_path, BASE + "param wage: money = 3\nphase pay { wage = money(4) }\n", "E0335")
    assert d.span.line == FIRST + 1
    assert "parameter" in d.message
    assert d.help is not None and "world" in d.help


def test_assigning_a_misspelt_local_suggests_the_local(tmp_path: Path) -> None:
    d = only(tmp_path, BASE + "phase q {\n  let total = 1\n  totl = 2\n}\n", "E0335")
    assert d.help == "did you mean `total`?"


def test_let_names_what_the_name_already_is(tmp_path: Path) -> None:
    d = only(tmp_path, BASE + "param wage: money = 3\nphase q { let wage = wage * 2 }\n", "E0330")
    assert "already the name of a parameter" in d.message
    d = only(tmp_path, BASE + "phase q { let Box = 1 }\n", "E0330")
    assert "already the name of a thing" in d.message
    assert "global" not in d.message


# ---------------------------------------------------------------- money and counts


def test_money_added_to_a_count_is_E0317_with_amount(tmp_path: Path) -> None:
    d = only(tmp_path, effect("    box.stones += me.cash"), "E0317")
    assert d.message == "cannot add money to `box.stones`, a count (int)"
    assert d.help is not None and "`amount(me.cash)` turns money into a count" in d.help


def test_a_count_taken_from_money_is_E0317_with_money(tmp_path: Path) -> None:
    d = only(tmp_path, effect("    me.cash -= n"), "E0317")
    assert d.message == "cannot take a count (int) from `me.cash`, money"
    assert d.help is not None and "`money(n)` turns a count into money" in d.help


def test_a_decimal_added_to_a_count_stays_E0301_and_says_how_to_round(tmp_path: Path) -> None:
    d = only(tmp_path, effect("    box.stones += n * 1.5"), "E0301")
    assert d.help is not None and "`round(n * 1.5)`" in d.help


def test_a_cost_in_counts_names_money_of_the_expression(tmp_path: Path) -> None:
    d = only(tmp_path, BASE.replace("  cost money(n)\n", "  cost n * 2\n", 1), "E0301")
    assert d.help is not None and "`money(n * 2)` turns a count into money" in d.help


def test_money_of_money_says_it_is_money_already(tmp_path: Path) -> None:
    d = only(tmp_path, effect("    me.cash += money(me.cash)"), "E0301")
    assert d.help is not None and "`me.cash` is money already" in d.help


def test_amount_of_a_count_says_it_is_a_count_already(tmp_path: Path) -> None:
    d = only(tmp_path, effect("    box.stones += amount(n)"), "E0301")
    assert d.help is not None and "`n` is a count (int) already" in d.help


def test_money_compared_with_a_count_says_so_and_how_to_convert(tmp_path: Path) -> None:
    text = BASE.replace("  cost money(n)\n", '  require me.cash > box.stones else "too poor"\n  cost money(n)\n', 1)
    d = only(tmp_path, text, "E0315")
    assert d.message == "cannot compare money with a count (int)"
    assert d.help is not None and "`amount(me.cash)`" in d.help and "`money(box.stones)`" in d.help


def test_money_plus_a_count_says_how_to_convert(tmp_path: Path) -> None:
    d = only(tmp_path, BASE + "phase q { for each b in Box { let v = b.stones + money(1) } }\n", "E0317")
    assert d.message == "cannot add money to a count (int)"
    assert d.help is not None and "`money(b.stones)`" in d.help and "`amount(money(1))`" in d.help


def test_a_decimal_stored_in_a_count_suggests_div(tmp_path: Path) -> None:
    d = only(tmp_path, BASE + "phase q { for each b in Box { b.stones = b.stones * 3 / 2 } }\n", "E0301")
    assert d.message == "the new value should be int, but this is decimal"
    assert d.help is not None and "`b.stones * 3 div 2`" in d.help and "`round(...)`" in d.help


def test_a_decimal_stored_in_a_count_suggests_the_rounding_builtins(tmp_path: Path) -> None:
    d = only(tmp_path, BASE + "phase q { for each b in Box { b.stones = b.stones * 1.5 } }\n", "E0301")
    assert d.help is not None and "`round(b.stones * 1.5)`, `floor(b.stones * 1.5)` or `ceil(b.stones * 1.5)`" in d.help


def test_a_text_compared_with_a_number_is_said_in_words(tmp_path: Path) -> None:
    d = only(tmp_path, BASE + 'phase q { for each b in Box { if b.name >= 3 { news "x" } } }\n', "E0315")
    assert d.message == "cannot compare text with a number"


# ---------------------------------------------------------------- calls


CONTROLS = "define holds(p: Player, b: Box) -> bool = b.owner[p] > 0\n"


def test_a_missing_argument_is_one_E0322_with_the_signature(tmp_path: Path) -> None:
    text = BASE.replace("  cost money(n)\n", '  require holds(box) else "no"\n  cost money(n)\n', 1) + CONTROLS
    d = only(tmp_path, text, "E0322")
    assert d.message == "`holds` takes 2 arguments, not 1"
    assert d.help == "it is declared `holds(p: Player, b: Box)`"


def test_a_procedure_with_a_missing_argument_is_one_E0322(tmp_path: Path) -> None:
    text = BASE + "procedure fill(b: Box, k: int) { b.stones += k }\nphase q { for each b in Box { fill(b) } }\n"
    d = only(tmp_path, text, "E0322")
    assert d.help == "it is declared `fill(b: Box, k: int)`"


def test_a_builtin_with_a_missing_argument_shows_how_it_is_called(tmp_path: Path) -> None:
    d = only(tmp_path, effect("    box.stones = clamp(box.stones + n, 5)"), "E0322")
    assert d.message == "`clamp` takes 3 arguments, not 2"
    assert d.help == "it is called as `clamp(x, lo, hi)`"


def test_swapped_arguments_are_one_diagnostic(tmp_path: Path) -> None:
    text = BASE.replace("  cost money(n)\n", '  require holds(box, me) else "no"\n  cost money(n)\n', 1) + CONTROLS
    d = only(tmp_path, text, "E0301")
    assert "wrong way round" in d.message
    assert d.help == "write `holds(me, box)`"


def test_a_table_with_a_missing_key_is_one_E0314(tmp_path: Path) -> None:
    text = BASE + "table t(b: Box, k: int) -> int { A, 1: 1\n A, 2: 2 }\nphase q { let v = t(3) }\n"
    codes = [d.code for d in diagnostics(tmp_path, text) if d.severity == "error"]
    assert codes == ["E0314"]


def test_recursion_without_a_result_type_points_at_the_header_and_guesses_the_type(tmp_path: Path) -> None:
    text = BASE + ("define depth(b: Box, k: int) =\n  if k > 0 then depth(b, k - 1) + depth(b, k - 2) else 0\n"
                   "phase q { for each b in Box { b.stones = depth(b, 3) } }\n")
    d = only(tmp_path, text, "E0323")
    assert (d.span.line, d.span.col, d.span.end_col) == (FIRST, 1, len("define depth(b: Box, k: int)") + 1)
    assert d.help == "write it after the parameters: `define depth(b: Box, k: int) -> int = ...`"


def test_recursion_with_no_other_branch_suggests_TYPE(tmp_path: Path) -> None:
    d = only(tmp_path, BASE + "define f(x: int) = f(x)\nphase q { let v = f(1) }\n", "E0323")
    assert d.span.line == FIRST
    assert d.help is not None and "-> TYPE" in d.help


def test_recursion_checks_the_functions_it_calls_once_with_their_diagnostics(tmp_path: Path) -> None:
    # `helper` is first reached while `f` is being checked; its own mistake must still be reported.
    text = BASE + ("define f(x: int) = if x > 0 then f(x - 1) else helper(x)\n"
                   "define helper(x: int) -> int = x + nope\nphase q { let v = f(1) }\n")
    got = sorted((d.code, d.span.line) for d in diagnostics(tmp_path, text))
    assert got == [("E0309", FIRST + 1), ("E0323", FIRST)], got


def test_chance_in_a_requirement_says_an_order(tmp_path: Path) -> None:
    text = BASE.replace("  cost money(n)\n", '  require chance(50, "x") else "no"\n  cost money(n)\n', 1)
    d = only(tmp_path, text, "E0324")
    assert "in an order's `valid`, `require`, `cost` or `ends turn`" in d.message
    assert d.help is not None and "`effect`" in d.help


# ---------------------------------------------------------------- texts


SECRET = "secret param hidden: int = 3\n"


def test_a_secret_in_a_text_underlines_its_part(tmp_path: Path) -> None:
    line = 'phase q { for each b in Box { news "{b.name} has {hidden} more" } }'
    d = only(tmp_path, BASE + SECRET + line + "\n", "E0307")
    assert (d.span.line, d.span.col, d.span.end_col) == (FIRST + 1, line.index("hidden") + 1,
                                                          line.index("hidden") + 1 + len("hidden"))
    assert d.message == "this text shows secret parameter `hidden` to players"


def test_a_secret_through_a_function_names_the_function(tmp_path: Path) -> None:
    line = 'phase q { for each b in Box { news "{b.name}: {shown(b)}" } }'
    text = BASE + SECRET + "define shown(b: Box) -> int = b.stones + hidden\n" + line + "\n"
    d = only(tmp_path, text, "E0307")
    assert d.span.col == line.index("shown") + 1
    assert d.message.endswith(", through function `shown`")


def test_a_secret_in_a_text_inside_a_text_is_reported_once(tmp_path: Path) -> None:
    line = 'phase q { for each b in Box { news "{if b.stones > 0 then "{hidden}" else "none"} left" } }'
    d = only(tmp_path, BASE + SECRET + line + "\n", "E0307")
    assert d.span.col == line.index("hidden") + 1


def test_a_list_of_texts_in_a_text_suggests_join(tmp_path: Path) -> None:
    text = BASE + 'phase q { news "boxes: {[b.name for b in Box]}" }\n'
    d = only(tmp_path, text, "E0305")
    assert d.help is not None and 'join([b.name for b in Box], ", ")' in d.help and "size(" in d.help
    assert "country" not in d.help


def test_a_set_of_things_in_a_text_suggests_joining_their_names(tmp_path: Path) -> None:
    d = only(tmp_path, BASE + 'phase q { for each b in Box { news "{b.near}" } }\n', "E0305")
    assert d.help is not None and '`{join([b.name for b in b.near], ", ")}`' in d.help
    assert "`{size(b.near)}`" in d.help


# ---------------------------------------------------------------- names and fields


def test_me_in_a_phase_suggests_going_through_the_players(tmp_path: Path) -> None:
    d = only(tmp_path, BASE + "phase q { me.moves += 1 }\n", "E0306")
    assert d.help is not None and "for each p in players" in d.help and "victory" not in d.help


def test_me_in_a_victory_keeps_the_victory_hint(tmp_path: Path) -> None:
    d = only(tmp_path, BASE + "victory v for p { when me.active }\n", "E0306")
    assert d.help is not None and "victory v for p" in d.help


def test_another_languages_literals_get_ours(tmp_path: Path) -> None:
    for written, ours in (("True", "true"), ("False", "false"), ("None", "none"), ("null", "none")):
        d = only(tmp_path, BASE + f"phase q {{ let v = {written} }}\n", "E0309")
        assert d.help == f"write `{ours}`", written


def test_a_field_read_through_an_optional_names_the_expression(tmp_path: Path) -> None:
    text = BASE + ("thing Pad keyed by code { boss: Player? }\ndata Pad(code, boss) { X: none }\n"
                   "phase q { for each c in Pad { c.boss.moves += 1 } }\n")
    d = only(tmp_path, text, "E0310")
    assert d.message == "`c.boss` may be none, so `.moves` cannot be read"
    assert d.help == "check it first: `if c.boss != none { ... }`"


def test_indexing_a_count_names_the_field_and_the_per_key_type(tmp_path: Path) -> None:
    d = only(tmp_path, effect("    box.stones[me] += 1"), "E0312")
    assert d.message == "`box.stones` is a number (int); only lists, tables and per-key values take `[...]`"
    assert d.help == "for one value per Player, declare the field as `stones: Player -> int`"


def test_a_field_far_from_any_lists_the_fields(tmp_path: Path) -> None:
    d = only(tmp_path, effect("    box.troops += 1"), "E0311")
    assert d.help == "a Box has `code`, `name`, `stones`, `near`, `owner`"


def test_fail_outside_an_effect_says_where_it_belongs(tmp_path: Path) -> None:
    d = only(tmp_path, BASE + 'phase q { fail "no" }\n', "E0334")
    assert d.help is not None and "`require" in d.help and "tell p" in d.help


# ---------------------------------------------------------------- counted loops

ROUNDS = "world {\n  rounds: int = 3\n  leader: Player?\n  cash_left: money = 0\n}\n"


def test_a_counted_loop_takes_int_bounds_of_any_expression(tmp_path: Path) -> None:
    text = effect("    for each i in 1..size(me.code) where i != n {\n      box.stones += i\n"
                  '      news "round {i}"\n    }') + ROUNDS + (
        "phase q {\n  for each r in world.rounds - 2..world.rounds * 2 {\n"
        "    for each k in r..12 where world.leader != none { world.leader.moves += k - r }\n"
        '    if chance(50, "luck") { news "{r}" }\n  }\n}\n')
    assert diagnostics(tmp_path, text) == []


@pytest.mark.parametrize("loop, underlined, message", [
    ("for each i in 1..world.cash_left { }", "world.cash_left",
     "the last number of `A..B` should be int, but this is money"),
    ("for each i in 1.5..3 { }", "1.5", "the first number of `A..B` should be int, but this is number"),
    ('for each i in "a"..3 { }', '"a"', "the first number of `A..B` should be int, but this is text"),
    ("for each i in 1..size(Box) / 2 { }", "size(Box) / 2",
     "the last number of `A..B` should be int, but this is decimal"),
    ("for each i in 1..world.leader { }", "world.leader",
     "the last number of `A..B` should be int, but this is Player?"),
    ("for each i in 1..3 where i { }", "i {", "a condition should be bool, but this is int"),
    ("for each i in 1..3 { world.leader = i }", "i }", "the new value should be Player?, but this is int"),
])
def test_a_counted_loop_with_a_wrong_type_is_E0301_where_it_is(tmp_path: Path, loop: str, underlined: str,
                                                                 message: str) -> None:
    line = f"phase q {{ {loop} }}"
    d = only(tmp_path, BASE + ROUNDS + line + "\n", "E0301")
    col = line.index(underlined) + 1
    width = len(underlined.removesuffix(" {").removesuffix(" }"))
    assert (d.span.line, d.span.col, d.span.end_col) == (FIRST + 5, col, col + width), d
    assert d.message == message


def test_a_counted_loop_bound_that_may_be_none_says_to_check_it(tmp_path: Path) -> None:
    text = BASE + "thing Bag keyed by code { size: int? }\ndata Bag(code, size) { X: 2 }\n" \
        "phase q { for each b in Bag { for each i in 1..b.size { b.size = i } } }\n"
    d = only(tmp_path, text, "E0301")
    assert (d.span.line, d.span.col) == (FIRST + 2, text.splitlines()[FIRST + 1].index("b.size {") + 1)
    assert d.help == "this may be none: check it first with `if b.size != none { ... }`"


def test_the_variable_of_a_counted_loop_is_a_local_of_its_body(tmp_path: Path) -> None:
    d = only(tmp_path, BASE + 'phase q {\n  for each i in 1..3 { }\n  news "{i}"\n}\n', "E0309")
    assert (d.span.line, d.span.col) == (FIRST + 2, 10)


@pytest.mark.parametrize("loop, hint", [
    ("for each i in 1..12 by i descending { }", "to count down, use `13 - i` in the body"),
    ("for each i in 2..size(Box) - 1 by i descending { }", "to count down, use `size(Box) - 1 + 2 - i` in the body"),
    ("for each i in 1..12 by i { }", "leave out `by`: the numbers already come smallest first"),
    # The key is not also checked: one mistake, one diagnostic.
    ("for each i in 1..12 by nonsense descending { }", "to count down, use `13 - i` in the body"),
])
def test_a_counted_loop_cannot_be_sorted(tmp_path: Path, loop: str, hint: str) -> None:
    line = f"phase q {{ {loop} }}"
    d = only(tmp_path, BASE + line + "\n", "E0341")
    # The whole `by KEY [descending]` is underlined: that is what to take out.
    start, end = line.index(" by ") + 2, line.index(" { }") + 1
    assert (d.span.line, d.span.col, d.span.end_col) == (FIRST, start, end)
    assert d.message == "a counted loop cannot be sorted: it counts up from the first number to the last"
    assert d.help is not None and d.help.startswith(hint), d.help


def test_run_inside_a_counted_loop_is_refused_as_in_any_loop(tmp_path: Path) -> None:
    loop = "phase putting {\n  for each i in 1..2 {\n    run put\n  }\n}\n"
    text = BASE.replace("phase putting: run put\n", loop, 1)
    d = only(tmp_path, text, "E0417")
    assert (d.span.line, d.span.col) == (BASE.count("\n", 0, BASE.index("phase putting")) + 3, 5)


def test_a_counted_loop_draws_at_random_where_its_statements_may(tmp_path: Path) -> None:
    # Statements stand in phases, procedures and effects, which all may draw: so may a counted loop,
    # in its bounds and its body.
    text = effect('    for each i in 1..n {\n      if chance(10 * i, "luck") { box.stones += 1 }\n    }') + (
        'procedure p() {\n  for each i in 1..roll(6, "dice") { news "{i}" }\n}\nphase q { p() }\n')
    assert diagnostics(tmp_path, text) == []
