"""Checker, orders and phases: one mistake gets one diagnostic, at its place, with a hint in the game's words."""

from __future__ import annotations

from pathlib import Path

from rulesdsl.diagnostics import Diagnostic
from tests.unit.rulestools import BASE, check_text, marked_line, show


def only(tmp_path: Path, text: str, code: str, template: str | None = None) -> Diagnostic:
    """The one diagnostic of `text`, which must be `code` on the line marked `#!`."""
    checked = check_text(tmp_path, text) if template is None else check_text(tmp_path, text, template)
    got = checked.diagnostics
    assert [(d.code, d.span.line) for d in got] == [(code, marked_line(text))], show(got)
    return got[0]


def test_a_misspelt_run_is_the_mistake_and_its_order_is_not_also_never_run(tmp_path: Path) -> None:
    text = BASE.replace("phase putting: run put", "phase putting: run ptu  #!")
    d = only(tmp_path, text, "E0320")
    assert d.help == "did you mean `put`?"


def test_an_order_nothing_runs_or_was_meant_to_run_is_still_w0102(tmp_path: Path) -> None:
    text = BASE.replace('order put "P,{box},{n}" {', 'order put "P,{box},{n}" {  #!').replace(
        "phase putting: run put", "phase putting { news \"nothing\" }")
    assert only(tmp_path, text, "W0102").message.startswith("order `put` is never run by a phase")


def test_a_placeholder_that_is_not_an_argument_is_underlined_alone(tmp_path: Path) -> None:
    text = BASE.replace('order put "P,{box},{n}" {', 'order put "P,{box},{m}" {  #!').replace(
        "  n: 1..9\n", "").replace("cost money(n)", "cost money(1)").replace("box.stones += n", "box.stones += 1")
    d = only(tmp_path, text, "E0407")
    line = text.splitlines()[d.span.line - 1]
    assert line[d.span.col - 1:d.span.end_col - 1] == "{m}"


def test_a_misspelt_header_placeholder_is_one_error_with_a_did_you_mean(tmp_path: Path) -> None:
    text = BASE.replace('  header "{account}", "{code}"\n', '  header "{acount}", "{code}"  #!\n')
    d = only(tmp_path, text, "E0402")
    assert (d.message, d.help) == ("`{acount}` is not a header placeholder, and the header needs `{account}`",
                                   "did you mean `{account}`?")


def test_a_header_placeholder_used_for_a_missing_one_is_one_error(tmp_path: Path) -> None:
    text = BASE.replace('  header "{account}", "{code}"\n', '  header "{name}", "{code}"  #!\n')
    d = only(tmp_path, text, "E0402")
    assert (d.message, d.help) == ("`{name}` is not a header placeholder, and the header needs `{account}`",
                                   "write `{account}` in its place")


def test_a_cost_without_pay_from_names_the_players_money_field(tmp_path: Path) -> None:
    text = BASE.replace("  pay from cash\n", "").replace("  cost money(n)\n", "  cost money(n)  #!\n")
    d = only(tmp_path, text, "E0411")
    assert d.help == "add `pay from cash` to the `orders { ... }` block"


def test_once_per_an_unknown_name_lists_the_arguments(tmp_path: Path) -> None:
    text = BASE.replace("  cost money(n)\n", "  cost money(n)\n  once per turn per zone  #!\n")
    d = only(tmp_path, text, "E0410")
    assert d.help is not None and "(`box`, `n`)" in d.help and "`once per turn` alone" in d.help


def test_a_ruleset_s_diagnostics_come_before_its_template_s(tmp_path: Path) -> None:
    text = BASE.replace("  cash = me.cash\n", "  cash = me.cash\n  lost = nobody  #!\n")
    checked = check_text(tmp_path, text, "{{ casj }}\n")
    assert [(d.span.file, d.code) for d in checked.diagnostics] == [("t.rules", "E0309"), ("t.report.j2", "E0506")]


def test_a_let_of_none_is_one_error_not_one_per_use(tmp_path: Path) -> None:
    text = BASE + 'phase q {\n  let best = none  #!\n  news "{best.name} {best.stones}"\n}\n'
    assert only(tmp_path, text, "E0331").help is not None


def test_a_run_outside_a_phase_is_one_error_with_the_phase_to_write(tmp_path: Path) -> None:
    text = BASE.replace("phase putting: run put", "procedure go() {\n  run put  #!\n}\nphase putting { go() }")
    d = only(tmp_path, text, "E0333")
    assert d.help is not None and "`phase put: run put`" in d.help


def test_a_second_orders_block_is_one_error_and_its_settings_still_count(tmp_path: Path) -> None:
    text = BASE.replace('  header "{account}", "{code}"\n  pay from cash\n}\n',
                        '  header "{account}", "{code}"\n}\norders {  #!\n  pay from cash\n}\n')
    d = only(tmp_path, text, "E0401")
    assert d.help == "move its lines into the first `orders` block (line 16)"


def test_never_used_and_never_run_underline_the_declared_name(tmp_path: Path) -> None:
    text = BASE.replace("phase putting: run put", 'param  spare: int = 1  #!\nphase putting { news "x" }')
    got = check_text(tmp_path, text).diagnostics
    spans = {d.code: (d.span.line, d.span.col, d.span.end_col) for d in got}
    assert spans["W0101"] == (marked_line(text), 8, 13), show(got)
    order_line = next(i for i, ln in enumerate(text.splitlines(), 1) if ln.startswith("order put"))
    assert spans["W0102"] == (order_line, 7, 10), show(got)


# ---------------------------------------------------------------- the game is named once (E0422)

def _with_game(game: str, header: str) -> str:
    text = BASE.replace('ruleset "T" { version "1" turn "turn" }',
                        f'ruleset "T" {{ version "1" turn "turn" {game} }}'.replace("  ", " "), 1)
    return text.replace('  header "{account}", "{code}"\n', f"  header {header}  #!\n", 1)


def test_a_header_that_writes_the_game_otherwise_than_its_name_writes_the_right_header(tmp_path: Path) -> None:
    text = _with_game('game "NC-{number}"', '"CO-{game}", "{account}", "{code}"')
    d = only(tmp_path, text, "E0422")
    assert d.message == ('the header writes the game as "CO-{game}", but the `game` setting names it '
                         '"NC-{number}": players who write the game as their reports name it would all be refused')
    assert d.help == ('write `header "NC-{game}", "{account}", "{code}"`, or, if the header is right, '
                      '`game "CO-{number}"`')
    assert d.notes and d.notes[0].startswith("the `game` setting is at ") and d.notes[0].endswith("t.rules:1:39")


def test_the_hint_changes_only_the_word_that_holds_the_game(tmp_path: Path) -> None:
    text = _with_game('game "NC-{number}"', '"Game: X{game}/2, {account}", "{code}"')
    d = only(tmp_path, text, "E0422")
    assert d.help is not None and d.help.startswith('write `header "Game: NC-{game}, {account}", "{code}"`')


def test_the_game_written_as_its_name_or_bare_is_clean(tmp_path: Path) -> None:
    for game, header in [('game "NC-{number}"', '"NC-{game}", "{account}", "{code}"'),
                         ('game "NC-{number}"', '"nc-{game}", "{account}", "{code}"'),  # read in either case
                         ('game "NC-{number}"', '"Game {game}", "{account}", "{code}"'),  # the number alone
                         ('game "NC-{number}"', '"{game},{account}", "{code}"'),
                         ('game "NC-{number}"', '"G NC-{game} {account}", "{code}"'),
                         ('game "[{number}]"', '"[{game}]", "{account}", "{code}"'),
                         ('', '"SL-{game}", "{account}", "{code}"'),  # no name: the header's is the only one
                         ('game "Covert"', '"{account}", "{code}"')]:
        text = _with_game(game, header).replace("  #!", "")
        checked = check_text(tmp_path, text)
        assert not checked.diagnostics, (game, header, show(checked.diagnostics))


def test_a_game_name_without_its_number_cannot_be_in_the_header(tmp_path: Path) -> None:
    d = only(tmp_path, _with_game('game "Covert"', '"CO-{game}", "{account}", "{code}"'), "E0422")
    assert "holds no `{number}`" in d.message
    assert d.help == 'write `game "CO-{number}"` in the `ruleset` header, or leave `{game}` out of the header'


def test_every_line_and_word_with_the_game_is_checked(tmp_path: Path) -> None:
    text = _with_game('game "NC-{number}"', '"NC-{game}", "{account} X{game}", "{code}"')
    d = only(tmp_path, text, "E0422")
    assert d.help is not None and d.help.startswith('write `header "NC-{game}", "{account} NC-{game}", "{code}"`')
