"""Parser: spans on every node (also inside `{...}` in texts), and syntax errors in the designer's words."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rulesdsl import nodes as n
from rulesdsl.cli import main
from rulesdsl.compiler import check_path
from rulesdsl.diagnostics import Diagnostic
from rulesdsl.parser import parse
from rulesdsl.source import Source, Span
from tests.unit.rulestools import BASE, COVERT, RULESETS


def parse_ok(text: str) -> n.Module:
    module, errors = parse(Source("t.rules", text))
    assert not errors, errors
    assert module is not None
    return module


def parse_error(text: str) -> Diagnostic:
    _, errors = parse(Source("t.rules", text))
    assert len(errors) == 1, errors
    return errors[0]


def at(span: Span) -> tuple[int, int]:
    return span.line, span.col


def news_text(text: str) -> n.Text:
    """The text of the only statement (a `news`) of the only phase of `text`."""
    module = parse_ok(text)
    phase = module.decls[0]
    assert isinstance(phase, n.PhaseDecl)
    stmt = phase.body[0]
    assert isinstance(stmt, n.News)
    return stmt.text


# ---------------------------------------------------------------- spans

SOURCE = '''ruleset "X" { version "1" turn "turn" }
param  alpha: int = 3
define f(x: int) -> int =
  x + alpha * 2
thing Box keyed by code {
  stones: int = 0
}
phase p {
  for each b in Box {
    b.stones += f(1)
  }
}
'''


def test_declarations_carry_their_line_and_column() -> None:
    module = parse_ok(SOURCE)
    spans = {type(d).__name__: d.span for d in module.decls}
    assert at(spans["RulesetDecl"]) == (1, 1)
    assert at(spans["ParamDecl"]) == (2, 1)
    assert at(spans["DefineDecl"]) == (3, 1)
    assert at(spans["ThingDecl"]) == (5, 1)
    assert at(spans["PhaseDecl"]) == (8, 1)
    assert (spans["ThingDecl"].end_line, spans["PhaseDecl"].end_line) == (7, 12)
    assert all(d.span.file == "t.rules" for d in module.decls)


def test_fields_carry_their_position() -> None:
    thing = parse_ok(SOURCE).decls[3]
    assert isinstance(thing, n.ThingDecl)
    assert at(thing.fields[0].span) == (6, 3)


def test_expressions_carry_their_line_and_column() -> None:
    define = parse_ok(SOURCE).decls[2]
    assert isinstance(define, n.DefineDecl)
    body = define.body  # x + alpha * 2, on line 4
    assert isinstance(body, n.BinOp) and body.op == "+"
    assert (body.span.line, body.span.col, body.span.end_col) == (4, 3, 16)
    assert isinstance(body.left, n.Name) and at(body.left.span) == (4, 3)
    right = body.right
    assert isinstance(right, n.BinOp) and at(right.span) == (4, 7)
    assert isinstance(right.left, n.Name) and (right.left.span.col, right.left.span.end_col) == (7, 12)
    assert isinstance(right.right, n.Number) and at(right.right.span) == (4, 15)


def test_statements_and_calls_carry_their_position() -> None:
    phase = parse_ok(SOURCE).decls[4]
    assert isinstance(phase, n.PhaseDecl)
    loop = phase.body[0]
    assert isinstance(loop, n.For) and at(loop.span) == (9, 3)
    assign = loop.body[0]
    assert isinstance(assign, n.Assign) and at(assign.span) == (10, 5)
    target, value = assign.target, assign.value
    assert isinstance(target, n.Attr) and at(target.name_span) == (10, 7)
    assert isinstance(value, n.Call) and at(value.func_span) == (10, 17) and at(value.args[0].span) == (10, 19)


def test_interpolation_spans_point_into_the_string() -> None:
    #                  col: 1234567890123456789012345678901234567
    text = news_text('phase p {\n  news "Hello {alpha + 1} and {f(2)}!"\n}\n')
    assert at(text.span) == (2, 8)
    first, second = (p for p in text.parts if not isinstance(p, str))
    assert isinstance(first, n.BinOp)
    assert (first.span.line, first.span.col, first.span.end_col) == (2, 16, 25)
    assert isinstance(first.left, n.Name) and at(first.left.span) == (2, 16)
    assert isinstance(first.right, n.Number) and at(first.right.span) == (2, 24)
    assert isinstance(second, n.Call) and at(second.func_span) == (2, 32)
    assert text.parts[0] == "Hello " and text.parts[-1] == "!"


def test_interpolation_after_doubled_braces() -> None:
    text = news_text('phase p {\n  news "{{x}} {alpha}"\n}\n')
    name = text.parts[-1]
    assert text.parts[0] == "{x} "
    assert isinstance(name, n.Name) and at(name.span) == (2, 16)


def test_interpolation_after_escaped_quotes() -> None:
    # `  news "say \"hi\" {alpha}"`: the `{` is column 20 of the file, so `alpha` starts at 21.
    text = news_text('phase p {\n  news "say \\"hi\\" {alpha}"\n}\n')
    name = text.parts[-1]
    assert text.parts[0] == 'say "hi" '
    assert isinstance(name, n.Name)
    assert at(name.span) == (2, 21)


def test_interpolation_in_triple_quoted_text_points_at_its_line() -> None:
    # `alpha` stands on line 4, column 11 of the file (its `{` at column 10).
    text = news_text('phase p {\n  news """\n    first\n    then {alpha}\n  """\n}\n')
    name = next(p for p in text.parts if not isinstance(p, str))
    assert isinstance(name, n.Name)
    assert at(name.span) == (4, 11)


def test_checker_errors_inside_texts_point_into_the_text(tmp_path: Path) -> None:
    rules = tmp_path / "t.rules"
    rules.write_text('ruleset "X" { version "1" turn "turn" }\nphase p {\n  news "count: {cuont}"\n}\n'
                     'report {\n  template "t.report.j2"\n}\n', encoding="utf-8")
    (tmp_path / "t.report.j2").write_text("x\n", encoding="utf-8")
    diags = [d for d in check_path(rules).diagnostics if d.code == "E0309"]
    assert [(d.span.line, d.span.col, d.span.end_col) for d in diags] == [(3, 17, 22)]


# ---------------------------------------------------------------- card-game constructs

CARDS = '''world {
  round: int = 0 reset each turn
  owner: Player?
}
orders {
  at most 3 new per turn
  at most 1 attack per turn else "one attack a {turn}"
  at most 4 per turn
}
order launch "LAUNCH {m} WITH {warheads}" {
  m: Card
  warheads: list of Card
  counts as attack
  ends turn when world.round == turn
}
order pass "PASS" { ends turn }
phase p {
  let world_count = 1
  world.owner = none
  remove Card.S12 from world.deck
}
report {
  world = world.round
}
'''


def test_world_block_orders_groups_and_remove_parse_into_nodes() -> None:
    world, orders, launch, pass_, phase, report = parse_ok(CARDS).decls
    assert isinstance(world, n.WorldDecl) and [f.name for f in world.fields] == ["round", "owner"]
    assert world.fields[0].reset_each_turn and at(world.span) == (1, 1)
    assert isinstance(orders, n.OrdersDecl)
    new_limit, group, limit = orders.settings
    assert (new_limit.kind, group.kind, limit.kind) == ("new_limit", "group", "limit")
    assert group.name == "attack" and isinstance(group.exprs[0], n.Number) and group.exprs[0].value == 1
    assert group.reason is not None and group.reason.parts[0] == "one attack a "
    assert isinstance(launch, n.OrderDecl) and [g for g, _ in launch.counts_as] == ["attack"]
    assert at(launch.counts_as[0][1]) == (13, 13)
    assert launch.ends_turn is not None and isinstance(launch.ends_turn.when, n.BinOp)
    assert isinstance(launch.args[1].type, n.ListType)
    assert isinstance(pass_, n.OrderDecl) and pass_.ends_turn is not None and pass_.ends_turn.when is None
    assert isinstance(phase, n.PhaseDecl)
    _, assign, remove = phase.body
    assert isinstance(assign, n.Assign) and isinstance(assign.target, n.Attr)
    assert isinstance(assign.target.obj, n.Name) and assign.target.obj.name == "world"
    assert isinstance(remove, n.Remove) and at(remove.span) == (20, 3)
    assert isinstance(remove.value, n.Attr) and remove.value.name == "S12"
    assert isinstance(remove.target, n.Attr) and remove.target.name == "deck"
    # `world` is no keyword: a report field, and a statement after an expression, may still use the name.
    assert isinstance(report, n.ReportDecl) and report.fields[0].name == "world"


# ---------------------------------------------------------------- syntax errors

@pytest.mark.parametrize(("source", "code", "pos", "words"), [
    ('param a: int = 3 @\n', "E0102", (1, 18), "the character `@` has no place here"),
    ('param a: int = 3\nparam b: int 4\n', "E0103", (2, 14), "unexpected `4`"),
    ('order arms {\n}\n', "E0103", (1, 12), "unexpected `{`"),
    # Texts point at the brace itself, inside the quotes.
    ('phase p { news "{x" }\n', "E0104", (1, 17), "unclosed `{`"),
    ('phase p { news "{1 +}" }\n', "E0105", (1, 17), "not an expression"),
    ('report { template "a" template "b" }\n', "E0106", (1, 32), "one `template`"),
    ('order o "O" { cost money(1)\n cost money(2) }\n', "E0106", (2, 7), "at most one `cost`"),
    ('order o "O" { effect { }\n effect { news "x" } }\n', "E0106", (2, 11), "at most one `effect`"),
    ('order o "O" { ends turn\n ends turn when true }\n', "E0106", (2, 2), "at most one `ends turn`"),
    ('order o "O" { standing\n standing until true }\n', "E0106", (2, 2), "at most one `standing`"),
    ('param a: int = 3\nthingg Box keyed by code { }\n', "E0103", (2, 1), "unexpected `thingg`: a declaration"),
    ('wrold { round: int }\n', "E0103", (1, 1), "unexpected `wrold`: a declaration"),
    ('world round { }\n', "E0103", (1, 7), "expected `{` before `round`"),
    # A block left open is found where the next declaration starts, and the open brace is named.
    ('phase p {\n  news "x"\nphase q { }\n', "E0107", (3, 1), "but the `{` at line 1, column 9 is not closed"),
    ('phase p { news "x\n}\n', "E0108", (1, 16), "no closing `\"`"),
    ('phase p { if 1 = 2 { } }\n', "E0103", (1, 16), "`=` sets a value"),
    ('order o "O"\n  effect { }\n', "E0103", (1, 12), "expected `{` at the end of this line"),
    ('phase p { news "{}" }\n', "E0105", (1, 17), "it is empty"),
    ('phase p { news "{a b}" }\n', "E0105", (1, 20), "unexpected `b`"),
    ('phase p { if 1 < 2 { } elif 2 < 3 { } }\n', "E0103", (1, 24), "`elif` is not a word of this language"),
    ('phase p { if 1 <= 2 <= 3 { } }\n', "E0103", (1, 21), "comparisons cannot be chained"),
    ('order o "O" {\n  requires 1 < 2 else "no"\n}\n', "E0103", (2, 3), "unexpected `requires`"),
    ('phase p { news \u201cx\u201d }\n', "E0102", (1, 16), "the character `\u201c` has no place here"),
    ('phase p { news "{a with {b}" }\n', "E0104", (1, 17), "not closed before the next `{`"),
    ('order o "O" {\n  require 1 < 2\n  effect { }\n}\n', "E0103", (2, 16), "expected `else` at the end of this line"),
], ids=["character", "token", "order-without-syntax", "unclosed-brace", "bad-interpolation", "two-templates",
        "two-costs", "two-effects", "two-ends-turn", "two-standing", "misspelt-keyword", "misspelt-world",
        "world-without-brace",
        "block-left-open", "unterminated-text", "assign-in-condition", "missing-brace-at-line-end",
        "empty-interpolation", "interpolation-token", "foreign-word", "chained-comparison",
        "misspelt-order-item", "typographic-quote", "brace-before-brace", "condition-without-reason"])
def test_syntax_error_code_message_and_position(source: str, code: str, pos: tuple[int, int], words: str) -> None:
    err = parse_error(source)
    assert (err.code, at(err.span)) == (code, pos), err
    assert words in err.message
    assert err.severity == "error"


@pytest.mark.parametrize(("source", "label"), [
    ("table t(x: int) -> int { 1 2 }", "a table row is written `key: value`"),
    ('order arms {\n}', "an order's syntax comes in quotes after its name"),
    ("thing Country keyed by code { troops int }", "a field is written `name: type`"),
    ("phase p { 1 }", "a statement is needed here"),
    ("phase p run x", "a phase is `phase NAME: run ORDER`"),
])
@pytest.mark.parametrize("after", ["", 'param x: int = 1\nparam y: int = 2\n'], ids=["first", "after-others"])
def test_common_mistakes_get_a_label(source: str, label: str, after: str) -> None:
    err = parse_error(after + source)
    assert err.code == "E0103"
    assert label in err.message


@pytest.mark.parametrize(("source", "end"), [
    ('ruleset "X" {\n  version "1"\n', (2, 14)),
    ('ruleset "X" {\n  version "1"\n\n\n   \n', (2, 14)),
    ('phase p {\n  news "x"', (2, 11)),
    ('param a: int =', (1, 15)),
    ('param a: int =\n\n\n', (1, 15)),
], ids=["newline", "trailing-blank-lines", "no-newline", "one-line", "one-line-blank-lines"])
def test_end_of_file_errors_point_at_the_real_end(source: str, end: tuple[int, int]) -> None:
    err = parse_error(source)
    assert err.code == "E0101"
    assert at(err.span) == end
    assert err.span.end_line == end[0] and err.span.end_col > end[1]


def test_end_of_file_error_names_the_missing_brace() -> None:
    err = parse_error('phase p {\n  news "x"\n')
    assert "`{`" in err.message and err.help == "add the missing `}` where the block ends"


def test_an_unexpected_token_is_underlined_whole() -> None:
    err = parse_error("param a: int = 3\nphase p run xyz\n")
    assert (err.span.line, err.span.col, err.span.end_col) == (2, 9, 12)
    assert err.help is not None and err.help.startswith("expected ")


def _no_traceback_sources() -> list[str]:
    text = COVERT.read_text(encoding="utf-8")
    rnd = random.Random(20240917)
    out = [text[:cut] for cut in sorted(rnd.sample(range(1, len(text)), 24))]
    # Single characters dropped into the orders section (syntax, expressions, texts).
    part = text[text.index("order arms "):text.index("order invest ")]
    for _ in range(40):
        a = rnd.randrange(len(part))
        out.append(part[:a] + rnd.choice(['{', '}', '"', '(', ')', ',', ':', '$', '\\', '"""', '{x', '.', '->',
                                           '100%', '\x00', 'é', '\t', '\r']) + part[a:])
    out += ["", " ", "\n\n", "#", "{", "}", '"', '"""', "\\", "\x00", "ruleset", 'ruleset "x"', "table t", "%",
            "1..2", "phase p { news \"{\" }", "phase p { news \"}\" }", 'phase p { news "{{{x}}}" }',
            "\ufeffruleset \"X\" { }", "phase p {\n news \"{a\nb}\"\n}"]
    return out


def test_no_input_makes_the_parser_raise() -> None:
    for source in _no_traceback_sources():
        module, errors = parse(Source("t.rules", source))
        assert module is not None or errors, repr(source[-60:])
        for d in errors:
            assert d.span.line >= 1 and d.span.col >= 1, (d, repr(source[-60:]))
            assert d.code.startswith("E01")


def test_no_broken_ruleset_makes_the_checker_raise(tmp_path: Path) -> None:
    text = COVERT.read_text(encoding="utf-8")
    (tmp_path / "covert.report.j2").write_bytes((RULESETS / "covert.report.j2").read_bytes())
    rnd = random.Random(7)
    lines = text.split("\n")
    for _ in range(12):
        cut = list(lines)
        a, b = rnd.randrange(len(cut)), rnd.randrange(len(cut))
        cut[a], cut[b] = cut[b], cut[a]  # two lines swapped: usually still parses, then fails to check
        del cut[rnd.randrange(len(cut))]
        (tmp_path / "covert.rules").write_text("\n".join(cut), encoding="utf-8")
        checked = check_path(tmp_path / "covert.rules")
        for d in checked.diagnostics:
            assert d.span.line >= 1, d


def test_check_command_survives_a_file_that_is_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "latin1.rules"
    bad.write_bytes('ruleset "Café" { version "1" turn "turn" }\n'.encode("latin-1"))
    assert main(["check", str(bad)]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    assert "latin1.rules" in captured.out + captured.err


def test_check_command_survives_a_template_that_is_not_utf8(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "t.rules").write_text(BASE, encoding="utf-8")
    (tmp_path / "t.report.j2").write_bytes("Café {{ cash }}\n".encode("latin-1"))
    assert main(["check", str(tmp_path / "t.rules")]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    assert "t.report.j2" in captured.out + captured.err


def test_check_command_survives_binary_garbage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "garbage.rules"
    bad.write_text("".join(chr(i) for i in range(1, 700)), encoding="utf-8")
    assert main(["check", str(bad)]) == 1
    captured = capsys.readouterr()
    assert "garbage.rules" in captured.out + captured.err


def test_the_end_of_the_file_is_after_the_last_word_and_names_the_open_block() -> None:
    err = parse_error('phase p {\n  if true {\n    news "x"\n  }\n\n# a comment after the last word\n\n')
    assert (err.code, at(err.span)) == ("E0101", (4, 4)), err
    assert "the `{` at line 1, column 9" in err.message
    assert err.notes == ("that `{` opens: phase p {",)


def test_a_misspelt_keyword_gets_a_did_you_mean() -> None:
    err = parse_error('param a: int = 3\npahse p { }\n')
    assert (err.code, at(err.span), err.help) == ("E0103", (2, 1), "did you mean `phase`?"), err


def test_a_text_inside_an_interpolation_may_hold_quotes() -> None:
    module = parse_ok('phase p { news "a {join(["x", "y"], ", ")} and {{b}} {if true then "c}" else "d"}" }\n')
    phase = module.decls[0]
    assert isinstance(phase, n.PhaseDecl)
    news = phase.body[0]
    assert isinstance(news, n.News)
    parts = news.text.parts
    assert parts[0] == "a " and parts[2] == " and {b} " and isinstance(parts[3], n.CondExpr)
    call = parts[1]
    assert isinstance(call, n.Call) and call.func == "join" and at(call.span) == (1, 20)


def test_an_unterminated_text_full_of_braces_fails_fast() -> None:
    # Each step of the text's pattern is atomic; without that this input takes exponential time.
    err = parse_error('phase p { news "' + "{a}" * 200 + '\n}\n')
    assert err.code == "E0108"


@pytest.mark.parametrize(("source", "hint"), [
    ('order o "O" {\n  requires 1 < 2 else "no"\n}\n', "did you mean `require`?"),
    ('phase p { news \u201cx\u201d }\n', 'a typographic quote: texts go in plain double quotes "..."'),
    ("define f(x: int) -> int = return x\n", "a function's body is one expression after `=`"),
    ('param a: money = $3\n', "amounts are plain numbers; money is a type, as in `cash: money = 10`"),
])
def test_habits_from_elsewhere_get_a_hint(source: str, hint: str) -> None:
    assert parse_error(source).help == hint


def test_a_report_field_may_be_named_like_a_statement_word() -> None:
    # After `me.cash` the lexer reads `news` as the statement keyword; the report still parses, so the
    # checker can say that `news` is a built-in report field.
    words = ["news", "run", "cost", "orders", "player", "turns", "held", "from", "data", "where"]
    module = parse_ok("report {\n  cash = me.cash\n" + "".join(f"  {w} = me.cash\n" for w in words) + "}\n")
    report = module.decls[0]
    assert isinstance(report, n.ReportDecl)
    assert [f.name for f in report.fields] == ["cash", *words]


# ---------------------------------------------------------------- counted loops


def test_a_counted_loop_reads_two_bounds_of_any_expression() -> None:
    module = parse_ok("phase q {\n  for each i in 1..size(me.hand) - 1 where i != 2 { news \"{i}\" }\n}\n")
    phase = module.decls[0]
    assert isinstance(phase, n.PhaseDecl)
    loop = phase.body[0]
    assert isinstance(loop, n.For) and loop.var == "i"
    assert isinstance(loop.source, n.CountRange)
    assert at(loop.source.span) == (2, 17)
    assert isinstance(loop.source.low, n.Number) and loop.source.low.value == 1
    high = loop.source.high
    assert isinstance(high, n.BinOp) and high.op == "-" and at(high.span) == (2, 20)
    assert isinstance(loop.where, n.BinOp) and loop.by is None


def test_a_counted_loop_keeps_its_by_for_the_checker_to_refuse() -> None:
    text = "phase q { for each i in 1..world.rounds by i descending { } }\n"
    module = parse_ok(text)
    phase = module.decls[0]
    assert isinstance(phase, n.PhaseDecl)
    loop = phase.body[0]
    assert isinstance(loop, n.For) and isinstance(loop.source, n.CountRange)
    assert isinstance(loop.source.high, n.Attr) and loop.source.high.name == "rounds"
    assert isinstance(loop.by, n.Name) and loop.descending
    by = text.index("by i descending")
    assert loop.by_span is not None and (at(loop.by_span), loop.by_span.end_col) == ((1, by + 1), by + 16)


@pytest.mark.parametrize("text, col", [
    ("phase q { let x = 1..3 }", 20),
    ("phase q { let x = [i for i in 1..3] }", 32),
    ("phase q { let x = sum(i for i in 1..3) }", 35),
])
def test_a_range_outside_a_counted_loop_says_where_it_belongs(text: str, col: int) -> None:
    d = parse_error(text)
    assert (d.code, at(d.span)) == ("E0103", (1, col))
    assert d.message == "unexpected `..`: `A..B` counts only in a loop, `for each i in A..B`"
    assert d.help is not None and "`[1, 2, 3]`" in d.help


def test_a_list_loop_without_its_block_is_not_offered_a_range() -> None:
    # Any source could still grow into `A..B`, but a loop over a list misses its `{`, `where` or `by`.
    d = parse_error('phase q { for each p in players news "x" }')
    assert (d.message, d.help) == ("unexpected `news`", "expected `by`, `where`, `{`")


@pytest.mark.parametrize("word", ["cost", "effect", "from", "where", "valid"])
def test_a_keyword_as_an_order_arguments_name_is_that_name(word: str) -> None:
    """Issue 10 §4: `from: 1..9` said only "unexpected `:`". A keyword followed by `:` is the name being
    declared: the docs promise that contextual keywords work as names, and now they do here too."""
    text = f'order raid "R,{{where}},{{{word}}}" {{\n  where: int\n  {word}: 1..9\n  effect {{ }}\n}}\n'
    module, errors = parse(Source("t.rules", text))
    assert errors == [] and module is not None
    order = module.decls[0]
    assert isinstance(order, n.OrderDecl)
    assert [a.name for a in order.args] == ["where", word]


@pytest.mark.parametrize("word", ["from", "where", "reset"])
def test_a_keyword_as_a_fields_name_after_a_field_without_default_is_that_name(word: str) -> None:
    # `where`, `from` and `reset` may go on a field's line: followed by `:`, the word starts the next field.
    module, errors = parse(Source("t.rules", f"player {{\n  rank: text\n  {word}: int where {word} > 0\n}}\n"))
    assert errors == [] and module is not None
    player = module.decls[0]
    assert isinstance(player, n.PlayerDecl)
    assert [(f.name, f.where is not None) for f in player.fields] == [("rank", False), (word, True)]


def test_every_keyword_may_name_a_field_or_argument_before_a_colon() -> None:
    # KEYWORD_NAME lists the grammar's words by hand: a keyword added later must be added there too.
    from rulesdsl.parser import _lark

    lark = _lark()
    words = {t.pattern.value for t in lark.terminals if t.pattern.type == "str" and t.pattern.value.isidentifier()}
    listed = set(lark.get_terminal("KEYWORD_NAME").pattern.value.split("(", 1)[1].split(")", 1)[0].split("|"))
    assert listed == words - {"true", "false", "none"}


def test_run_together_names_each_order_where_it_is_written() -> None:
    module = parse_ok("phase a: run put, take together\nphase b {\n  run keep\n  halt \"no {x}\"\n}\n")
    short, block = module.decls
    assert isinstance(short, n.PhaseDecl) and isinstance(block, n.PhaseDecl)
    [run] = short.body
    assert isinstance(run, n.Run) and run.together
    assert [(name, at(span)) for name, span in run.named()] == [("put", (1, 14)), ("take", (1, 19))]
    single, halt = block.body
    assert isinstance(single, n.Run) and not single.together and [name for name, _ in single.named()] == ["keep"]
    assert at(single.span) == (3, 3)
    assert isinstance(halt, n.Halt) and at(halt.span) == (4, 3)


# ---------------------------------------------------------------- control flow


def test_a_procedure_may_declare_a_result_and_return_values() -> None:
    module = parse_ok('procedure fight(s: int) -> text {\n  if s > 2 { return "won" }\n  return\n}\n')
    proc = module.decls[0]
    assert isinstance(proc, n.ProcedureDecl) and isinstance(proc.result, n.NamedType) and proc.result.name == "text"
    first, last = proc.body
    assert isinstance(first, n.If) and isinstance(first.branches[0][1][0], n.Return)
    assert isinstance(last, n.Return) and last.value is None and at(last.span) == (3, 3)


def test_while_break_and_skip_are_statements() -> None:
    module = parse_ok("phase p {\n  while x < 3 {\n    if x == 1 { skip }\n    break\n  }\n}\n")
    phase = module.decls[0]
    assert isinstance(phase, n.PhaseDecl)
    [loop] = phase.body
    assert isinstance(loop, n.While) and isinstance(loop.cond, n.BinOp)
    cond, body = loop.body
    assert isinstance(cond, n.If) and isinstance(cond.branches[0][1][0], n.Skip)
    assert isinstance(body, n.Break) and at(body.span) == (4, 5)


def test_the_statement_words_still_name_fields_arguments_and_report_fields() -> None:
    words = ["while", "return", "break", "skip"]
    module = parse_ok("thing T keyed by code {\n" + "".join(f"  {w}: int = 0\n" for w in words) + "}\n"
                      'order o "O {while}" {\n  while: int\n  effect { let skip = while }\n}\n'
                      "report {\n  cash = me.cash\n" + "".join(f"  {w} = me.cash\n" for w in words) + "}\n")
    thing, order, report = module.decls
    assert isinstance(thing, n.ThingDecl) and [f.name for f in thing.fields] == words
    assert isinstance(order, n.OrderDecl) and [a.name for a in order.args] == ["while"]
    assert isinstance(report, n.ReportDecl) and [f.name for f in report.fields] == ["cash", *words]


def test_return_in_a_function_body_is_a_syntax_error_that_says_so() -> None:
    err = parse_error("define f(x: int) -> int = return x\n")
    assert err.message == "`return` cannot stand here"


def test_a_line_after_a_bare_return_is_said_to_be_read_as_its_value() -> None:
    err = parse_error("phase p {\n  return\n  world.x += 1\n}\n")
    assert (err.code, at(err.span)) == ("E0103", (3, 3))
    assert err.message == "this line is read as the value of the bare `return` at line 2"
    # A value on the `return`'s own line is a value, and a later mistake is told as usual.
    err = parse_error('procedure f() -> text {\n  return "x"\n  let y = = 1\n}\n')
    assert err.message.startswith("unexpected `=`")
