"""Generated modules from hostile rulesets: no text of a ruleset runs as code, and no two names collide.

A GM compiles and runs rulesets written by others. These tests write rulesets whose texts hold Python
that would set an environment variable if it ever ran, and rulesets whose names are Python's keywords,
builtins and the runtime's own names, then compile them, import the module and play a turn.
"""

from __future__ import annotations

import ast
import io
import os
import tokenize
from pathlib import Path
from typing import Any

import pytest

from rulesdsl.codegen import names
from rulesdsl.compiler import check_path, compile_path
from rulesdsl.runtime import exported
from rulesdsl.runtime.report import render, report_data, validate_report
from rulesdsl.runtime.state import new_game
from tests.unit.rulestools import (
    BASE,
    BASE_TEMPLATE,
    RULESETS,
    Loaded,
    check_text,
    load_text,
    marked_line,
    show,
)

FLAG = "RULESDSL_INJECTED"


def payload(where: str, short: bool = False) -> str:
    """A text that, pasted into the module as it is, ends a docstring, a string or a comment and runs
    code that sets FLAG; with `{...}`, quotes of every kind, a backslash and every line break. `short`
    fits a file name (255 bytes)."""
    code = f"__import__('os').environ.update({FLAG}='{where}')"
    if short:
        return f'"""\n{code}\n"""\u2028{code}\r{code}\n#\\{{x}}\''
    return (f'"""\n{code}\n""" \'\'\'\n{code}\n\'\'\' "\n{code}\n" \'\n{code}\n\' \\ {{x}} '
            f"\r{code}\r\x0c{code}\x0b\x1c\x1d\x1e\x85\u2028\u2029{code}\n#")


def rules_text(text: str, braces: bool = True) -> str:
    """`text` written as a one-line rules text in double quotes: its `"`, `\\` and newline escaped, and its
    braces doubled where `{...}` would insert a value."""
    quoted = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + (quoted.replace("{", "{{").replace("}", "}}") if braces else quoted) + '"'


@pytest.fixture(autouse=True)
def _no_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(FLAG, raising=False)


def test_a_comment_never_ends_before_its_line_does() -> None:
    from rulesdsl.codegen.writer import comment_text

    text = "a\nb\rc\r\nd\x0ce\x0bf\x1cg\x1dh\x1ei\x85j\u2028k\u2029l\x00m\udc80n\t#o"
    safe = comment_text(text)
    assert safe.isprintable() and len(safe.splitlines()) == 1
    tokens = list(tokenize.generate_tokens(io.StringIO(f"# {safe}\nx = 1\n").readline))
    assert [t.type for t in tokens[:2]] == [tokenize.COMMENT, tokenize.NL]
    # On the first two lines a comment could name the module's encoding (PEP 263).
    assert "coding:" not in comment_text("-*- coding: utf-7 -*-") and "coding=" not in comment_text("coding=utf-7")


def _hostile_ruleset(template_name: str) -> tuple[str, dict[str, str]]:
    """A ruleset with a payload in every text the generated module holds, and the texts it should show."""
    shown = {k: payload(k) for k in ("title", "version", "unit", "reason", "news", "tell", "report", "data",
                                     "table", "group", "require", "fail", "warn", "param", "default")}
    # An order's syntax is matched against a mail line: no line break in it, and no `{` (placeholders).
    syntax = "Q'''\"\"\"\\,#"
    text = f'''ruleset {rules_text(shown["title"], braces=False)} {{
  version {rules_text(shown["version"], braces=False)}
  turn {rules_text(shown["unit"], braces=False)}
}}
param motto: text = {rules_text(shown["param"])}
thing Box keyed by code {{
  name: text
}}
data Box(code, name) {{
  A: {rules_text(shown["data"])}
}}
player {{
  cash: money = 10
  slogan: text = {rules_text(shown["default"])}
}}
orders {{
  header "{{account}}", "{{code}}"
  at most 1 heavy per turn else {rules_text(shown["group"])}
}}
table said(n: int) -> text {{
  1: {rules_text(shown["table"])}
  2: "two"
}}
order put {rules_text(syntax + ",{box}", braces=False)} {{
  box: Box
  valid box.name == "" else {rules_text(shown["reason"])}
  counts as heavy
  effect {{ me.cash += 1 }}
}}
order get {rules_text(syntax + ",X", braces=False)} {{
  counts as heavy
  effect {{ me.cash += 2 }}
}}
order try {rules_text(syntax + ",T", braces=False)} {{
  require me.cash < 0 else {rules_text(shown["require"])}
  effect {{ me.cash += 1 }}
}}
order boom {rules_text(syntax + ",B", braces=False)} {{
  effect {{ fail {rules_text(shown["fail"])} }}
}}
phase putting: run put
phase getting: run get
phase trying: run try
phase booming: run boom
phase speaking {{
  news {rules_text(shown["news"])}
  for each p in players {{ tell p {rules_text(shown["tell"])} }}
}}
victory rich for p {{
  when p.cash > 0
  held for 2 turns
  warn {rules_text(shown["warn"])}
}}
report {{
  motto = motto
  slogan = me.slogan
  said = {rules_text(shown["report"])}
  table = said(1)
  box = Box.A.name
  template {rules_text(template_name, braces=False)}
}}
'''
    return text, {**shown, "syntax": syntax}


def test_no_text_of_a_ruleset_runs_as_code(tmp_path: Path) -> None:
    name = payload("file", short=True)  # the .rules file's name; its template's name follows from it
    assert "/" not in name
    text, shown = _hostile_ruleset(f"{name}.report.j2")
    template = "{{ said }}|{{ table }}|{{ box }}|" + payload("template").replace("{", "{{ '{' }}") + "\n"
    loaded = load_text(tmp_path, text, template, name, tmp_path / "cache")
    assert FLAG not in os.environ, f"the module ran {os.environ[FLAG]!r} on import"
    source = Path(str(loaded.module.__file__)).read_text(encoding="utf-8")
    ast.parse(source)
    assert all(line.isprintable() for line in source.splitlines()), "a line break other than \\n"

    spec = loaded.spec
    assert (spec.title, spec.version, spec.turn_unit) == (shown["title"], shown["version"], shown["unit"])
    assert loaded.module.__doc__ == f"{shown['title']}, compiled from {name}.rules."
    assert spec.source == f"{name}.rules" and spec.template_name == f"{name}.report.j2"
    assert [o.pattern for o in spec.orders] == [shown["syntax"] + s for s in (",{box}", ",X", ",T", ",B")]

    g = loaded.new_game()
    syntax = shown["syntax"]
    g.process_turn([("p1.txt", f"1\nA\n{syntax},A\n{syntax},X\n{syntax},X\n{syntax},T\n{syntax},B\n")])
    assert FLAG not in os.environ, f"the module ran {os.environ[FLAG]!r} in a turn"
    assert g.news_items() == [shown["news"]]
    ann = g.all_players[0]
    turn = g.turns[ann._key]
    assert turn.messages == [shown["tell"]]
    assert [(r.text, r.status, r.reason) for r in turn.used] == [
        (f"{syntax},X", "done", None), (f"{syntax},T", "failed", shown["require"]),
        (f"{syntax},B", "failed", shown["fail"])]
    assert g.warnings == [shown["warn"]] * 2  # Ann and Bob both have cash
    assert [(r.text, r.reason) for r in turn.refused] == [(f"{syntax},A", shown["reason"]),
                                                          (f"{syntax},X", shown["group"])]
    data: dict[str, Any] = report_data(g, ann)
    assert (data["said"], data["table"], data["box"]) == (shown["report"], shown["table"], shown["data"])
    assert (data["motto"], data["slogan"]) == (shown["param"], shown["default"])
    validate_report(loaded.spec, data)
    shown_text = f"{shown['report']}|{shown['table']}|{shown['data']}|{payload('template')}\n"
    assert render(loaded.spec, data) == "\n".join(ln.rstrip() for ln in shown_text.splitlines()) + "\n"
    assert data["game"]["title"] == shown["title"] and data["game"]["unit"] == shown["unit"]
    assert FLAG not in os.environ


def test_a_hostile_file_name_only_reaches_comments_and_string_literals(tmp_path: Path) -> None:
    name = "x\"\"\"\n__import__('os').environ.update(RULESDSL_INJECTED='name')\n#"
    text = '''ruleset "T" { version "1" turn "turn" }
player { cash: money = 10 }
orders { header "{account}", "{code}" }
phase nothing { news "quiet" }
report {
  cash = me.cash
  template "''' + name.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '''.report.j2"
}
'''
    loaded = load_text(tmp_path, text, "{{ cash }}\n", name, tmp_path / "cache")
    assert FLAG not in os.environ
    source = Path(str(loaded.module.__file__)).read_text(encoding="utf-8")
    comments = [t.string for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type == tokenize.COMMENT]
    assert comments[0].startswith("# @generated by rulesdsl") and "\\n" in comments[0]
    assert loaded.spec.source == f"{name}.rules"


# ---------------------------------------------------------------- names

PYTHON_WORDS = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "import", "in", "is", "lambda", "nonlocal",
    "or", "pass", "raise", "return", "try", "while", "with", "yield", "match", "case", "type",
}
# Names the generated module or the runtime uses of its own, and names one mangling step away from another.
MODULE_WORDS = {
    "len", "list", "sum", "min", "max", "abs", "any", "all", "id", "object", "g", "o", "rng", "k0", "out",
    "report_data", "line_map", "rule_map", "LINE_MAP", "RULE_MAP", "RULESET", "World", "TYPE", "ord", "key_",
    "a", "a_when", "x", "x_", "x__", "n", "n_cost", "n_valid", "n_ends_turn", "v", "v_when", "v_warn", "v_x",
    "fn_x", "proc_x", "tbl_x", "order_n_cost", "phase_a", "phase_a_when", "victory_v_when", "group_x",
    "thing_x", "None_", "Thing_",
}
# Words that go on an expression (`x and y`, `a div b`, `... for x in`, `from 1 to 2`): after a field's
# default or a `let`, the grammar reads them so, never as the next declaration's name.
AFTER_EXPRESSION = {"and", "div", "else", "for", "from", "in", "or"}
# Python words that start a statement of the language too (`while`, `return`, `break`): where a statement may
# start, which is also after any expression (a group's `at most 5 NAME per turn`, a local changed on a line of its
# own), the keyword wins, as for `news` or `if`. Elsewhere they are names: test_flow.py names fields,
# arguments and a thing with them.
STATEMENT_WORDS = {"break", "return", "while"}
# A global name may name one declaration only: things, parameters, tables, functions and procedures share them.
GLOBAL_KINDS = ("thing", "function", "procedure", "table", "param")


def adversarial_names() -> list[str]:
    import rulesdsl.runtime as runtime

    return sorted((PYTHON_WORDS | MODULE_WORDS | set(runtime.__all__)) - AFTER_EXPRESSION - STATEMENT_WORDS)


def _deal(words: list[str]) -> dict[str, list[str]]:
    """The global names dealt out to the global kinds: every capitalised one to things, and the others
    in turn, so that `x`, `fn_x` and `tbl_x` meet in one module."""
    out: dict[str, list[str]] = {k: [] for k in GLOBAL_KINDS}
    lower = [w for w in words if not w[0].isupper()]
    out["thing"] += [w for w in words if w[0].isupper()]
    for i, w in enumerate(lower):
        out[GLOBAL_KINDS[i % len(GLOBAL_KINDS)]].append(w)
    return out


def adversarial_ruleset(words: list[str]) -> str:
    """Every name in `words` names a field of a thing, of the players and of the world, an order and an
    argument, a phase, a victory and its variable, an order group, a local, a loop variable, a function's
    parameter and a report field; and one global declaration each."""
    glob = _deal(words)
    rot = words[1:] + words[:1]  # a second name for each, for the declarations that take two
    pf = [w for w in words if w not in ("name", "account", "code", "email", "active", "key", "cash")]
    out = ['ruleset "T" { version "1" turn "turn" }']
    out.append("thing Box keyed by key {\n  s: set of Box\n  label: text\n"
               + "".join(f"  {w}: int = 0\n" for w in words) + "}")
    out.append('data Box(key, label) {\n  B1: "1"\n  B2: "2"\n  B3: "3"\n}')
    for t in glob["thing"]:
        out.append(f"thing {t} keyed by key {{ {t}: int = 0 }}\ndata {t}(key, {t}) {{ K: 1 }}")
    out.append("player {\n  cash: money = 100\n" + "".join(f"  {w}: int = 0\n" for w in pf) + "}")
    out.append("world {\n" + "".join(f"  {w}: int = 0\n" for w in words) + "}")
    out.append("orders {\n  header \"{account}\", \"{code}\"\n  pay from cash\n"
               + "".join(f'  at most 5 {w} per turn else "too many {w}"\n' for w in words) + "}")
    for i, (w, a) in enumerate(zip(words, rot, strict=True)):
        out.append(f'order {w} "O{i},{{{a}}}" {{\n  {a}: 1..9\n  valid {a} > 0 else "no"\n'
                   f'  require {a} < 10 else "no"\n  cost money({a})\n  counts as {w}\n'
                   f"  effect {{ me.cash += money({a}) }}\n}}")
        out.append(f"phase run_{i}: run {w}")
    for w in words:
        when = "" if w.endswith("_when") else " when turn > 0"
        out.append(f"phase {w}{when} {{ world.{w} += 1 }}")
    for i, w in enumerate(glob["function"]):
        a = rot[i]
        out.append(f"define {w}({a}: int) -> int = {a} + 1")
    for i, w in enumerate(glob["procedure"]):
        a = rot[-1 - i]
        out.append(f"procedure {w}({a}: Box) {{ {a}.s = {a}.s }}")
    for w in glob["table"]:
        out.append(f"table {w}(n: int) -> int {{\n  1: 10\n  2: 20\n}}")
    for w in glob["param"]:
        out.append(f"param {w}: int = 3")
    calls = [f"{f}(1)" for f in glob["function"]] + [f"{t}(1)" for t in glob["table"]] + glob["param"] \
        + [f"{t}.K.{t}" for t in glob["thing"]]
    # A `let` may not reuse a thing's or a parameter's name (E0330).
    lets = [w for w in words if w not in glob["thing"] and w not in glob["param"]]
    body = "".join(f"  let {w} = {i}\n" for i, w in enumerate(lets))
    body += f"  let total = {' + '.join(lets)}\n"
    body += "".join(f"  for each {w} in Box {{ {w}.{w} += total }}\n" for w in words)
    body += "".join(f"  {p}(Box.B1)\n" for p in glob["procedure"])
    body += "  for each b in Box by b.key descending { add b to Box.B1.s }\n"
    out.append("phase everything {\n" + body + "}")
    for w, a in zip(words, rot, strict=True):
        out.append(f'victory {w} for {a} {{\n  when {a}.cash > 100000\n  warn "{w}"\n}}')
    out.append("report {\n" + "".join(f"  {w} = me.{w}\n" for w in pf)
               + "".join(f"  {w} = world.{w}\n" for w in words if w not in pf)
               + f"  calls = {' + '.join(calls)}\n"
               + '  template "t.report.j2"\n}')
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def adversarial(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Loaded]:
    """The adversarial ruleset, checked clean and loaded: its .rules path and its module."""
    folder = tmp_path_factory.mktemp("adversarial")
    text = adversarial_ruleset(adversarial_names())
    checked = check_text(folder / "check", text, "{{ calls }}\n")
    assert checked.ok and not checked.diagnostics, show(checked.diagnostics)
    return folder / "t.rules", load_text(folder, text, "{{ calls }}\n", "t", folder / "cache")


def test_adversarial_names_compile_and_every_phase_runs_once(adversarial: tuple[Path, Loaded]) -> None:
    words = adversarial_names()
    _, loaded = adversarial
    source = Path(str(loaded.module.__file__)).read_text(encoding="utf-8")
    tree = ast.parse(source)
    defined = [node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
    assert len(defined) == len(set(defined)), sorted({d for d in defined if defined.count(d) > 1})
    assert not set(defined) & set(exported)

    g = loaded.new_game()
    g.process_turn([("p1.txt", "1\nA\n" + "".join(f"O{i},{i % 9 + 1}\n" for i in range(len(words))))])
    world = g.world
    for w in words:
        assert getattr(world, names.attr(w)) == 1, f"phase {w} ran {getattr(world, names.attr(w))} times"
    assert [p.name for p in loaded.spec.phases if p.name in words] == words
    box = g.index["Box"]
    held = box["B1"].s  # type: ignore[attr-defined]
    assert [b._key for b in held] == ["B1", "B2", "B3"]
    ann = g.all_players[0]
    turn = g.turns[ann._key]
    assert [r.status for r in turn.used] == ["done"] * len(words), [(r.text, r.reason) for r in turn.used]
    assert not turn.refused
    data = report_data(g, ann)
    glob = _deal(words)
    player_fields = [w for w in words if w not in ("name", "account", "code", "email", "active", "key", "cash")]
    assert {w: data[w] for w in words} == {w: 0 if w in player_fields else 1 for w in words}
    assert data["calls"] == 2 * len(glob["function"]) + 10 * len(glob["table"]) + 3 * len(glob["param"]) \
        + len(glob["thing"])


def _identifiers(tree: ast.Module) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, ast.alias):
            out.add(node.name)
    return out


@pytest.mark.parametrize("ruleset", ["covert", "nukecards", "adversarial"])
def test_every_identifier_of_a_generated_module_is_fixed_or_in_one_family(
        ruleset: str, request: pytest.FixtureRequest) -> None:
    # The injectivity argument of codegen/names.py holds only if the emitter writes no other name.
    if ruleset == "adversarial":
        path, loaded = request.getfixturevalue("adversarial")
        things = [t.name for t in loaded.spec.things]
        source = Path(str(loaded.module.__file__)).read_text(encoding="utf-8")
    else:
        path = RULESETS / f"{ruleset}.rules"
        checked = check_path(path)
        assert checked.program is not None
        things = [t.name for t in checked.program.things]
        source = compile_path(path)
    classes = {names.thing(t) for t in things}
    stray = {i for i in _identifiers(ast.parse(source))
             if i not in names.FIXED and i not in classes and not i.startswith(names.PREFIXES)}
    assert stray == set()


def test_a_phase_named_like_another_phase_s_when_runs_once(tmp_path: Path) -> None:
    text = BASE + ("world {\n  a: int = 0\n  a_when: int = 0\n}\n"
                   "phase a when turn > 0 { world.a += 1 }\nphase a_when { world.a_when += 1 }\n")
    loaded = load_text(tmp_path, text, BASE_TEMPLATE, "t", tmp_path / "cache")
    g = loaded.new_game()
    g.process_turn([])
    assert (g.world.a, g.world.a_when) == (1, 1)  # type: ignore[attr-defined]


# ---------------------------------------------------------------- names the checker refuses

# Each places NAME in one kind of declaration, on the line marked `#!`.
PLACES = {
    "thing field": 'thing Crate keyed by code {\n  label: text\n  NAME: int = 0  #!\n}\n'
                   'data Crate(code, label) {\n  C: "c"\n}\n',
    "player field": "player {\n  NAME: int = 0  #!\n}\n",
    "world field": "world {\n  NAME: int = 0  #!\n}\n",
    "function parameter": "define f(NAME: int) -> int = NAME  #!\nphase q { news \"{f(1)}\" }\n",
    "procedure parameter": "procedure pr(NAME: Box) { NAME.stones = 1 }  #!\nphase q { pr(Box.A) }\n",
    "table parameter": "table tb(NAME: int) -> int { 1: 2 }  #!\nphase q { news \"{tb(1)}\" }\n",
    "order": 'order NAME "N" { effect { me.moves += 1 } }  #!\nphase q: run NAME\n',
    "order argument": 'order o2 "N,{NAME}" {\n  NAME: 1..9  #!\n  effect { me.moves += NAME }\n}\nphase q: run o2\n',
    "phase": 'phase NAME { news "x" }  #!\n',
    "victory": "victory NAME for p { when p.moves > 3 }  #!\n",
    "victory variable": "victory v for NAME { when NAME.moves > 3 }  #!\n",
    "order group": 'orders {\n  at most 1 NAME per turn else "no"  #!\n}\n',
    "local": "phase q {\n  let NAME = 1  #!\n  news \"{NAME}\"\n}\n",
    "loop variable": "phase q {\n  for each NAME in Box { NAME.stones = 1 }  #!\n}\n",
    "comprehension variable": 'phase q { news "{sum(NAME.stones for NAME in Box)}" }  #!\n',
    "report field": "report {\n  NAME = 1  #!\n}\n",
}
# Where a second block of its kind is refused, the place replaces the first.
REPLACES = {"player field": "player {\n  cash: money = 10\n  moves: int = 0\n}\n",
            "order group": 'orders {\n  header "{account}", "{code}"\n  pay from cash\n}\n',
            "report field": 'report {\n  cash = me.cash\n  template "t.report.j2"\n}\n'}


def _placed(kind: str, name: str) -> str:
    snippet = PLACES[kind].replace("NAME", name)
    if kind in REPLACES:
        old = REPLACES[kind]
        inner = snippet.split("{", 1)[1].rsplit("}", 1)[0]
        return BASE.replace(old, old.rsplit("}", 1)[0] + inner + "}\n")
    return BASE + snippet


@pytest.mark.parametrize("kind", sorted(PLACES))
def test_a_name_starting_with_underscore_is_refused_in_every_place(kind: str, tmp_path: Path) -> None:
    text = _placed(kind, "_ord")
    checked = check_text(tmp_path, text)
    errors = [d for d in checked.diagnostics if d.severity == "error"]
    assert [(d.code, d.span.line) for d in errors] == [("E0202", marked_line(text))], show(checked.diagnostics)
    assert errors[0].message.startswith("`_ord` cannot name ") and "kept for the runtime" in errors[0].message
    assert errors[0].help == "rename it, e.g. `ord`"
    line = text.splitlines()[errors[0].span.line - 1]
    if kind not in ("phase", "victory", "victory variable", "order group", "comprehension variable",
                    "loop variable"):
        assert line[errors[0].span.col - 1:errors[0].span.end_col - 1] == "_ord", "underlines the name"


@pytest.mark.parametrize("kind", ["function parameter", "procedure parameter", "table parameter", "order argument",
                                  "victory variable", "local", "loop variable", "comprehension variable"])
def test_a_reserved_word_is_refused_where_it_would_hide_its_meaning(kind: str, tmp_path: Path) -> None:
    text = _placed(kind, "turn")
    checked = check_text(tmp_path, text)
    errors = [d for d in checked.diagnostics if d.severity == "error"]
    assert [(d.code, d.span.line) for d in errors] == [("E0202", marked_line(text))], show(checked.diagnostics)
    assert errors[0].message.startswith("`turn` is a reserved word and cannot name ")


@pytest.mark.parametrize("kind", ["thing field", "world field", "order", "phase", "victory", "order group",
                                  "report field"])
def test_a_reserved_word_names_what_is_never_read_bare(kind: str, tmp_path: Path) -> None:
    # `p.turn`, `run turn`, a phase or report field `turn`: nothing there can be mistaken for the turn.
    checked = check_text(tmp_path, _placed(kind, "turn"))
    assert not [d for d in checked.diagnostics if d.severity == "error"], show(checked.diagnostics)


def test_a_thing_named_player_is_refused(tmp_path: Path) -> None:
    text = BASE + "thing Player keyed by handle {  #!\n  rank: int = 0\n}\n"
    checked = check_text(tmp_path, text)
    assert [(d.code, d.span.line) for d in checked.diagnostics] == [("E0202", marked_line(text))], \
        show(checked.diagnostics)


def test_orders_pay_from_and_count_down_fields_named_like_python_keywords(tmp_path: Path) -> None:
    # The runtime reads and sets these fields by their Python attribute: `class` is `class_` there.
    text = BASE.replace("  cash: money = 10\n  moves: int = 0\n", "  class: money = 10\n  yield: int = 0\n") \
        .replace("  pay from cash\n", "  pay from class\n  budget yield starts at 3 plus 1 each turn\n") \
        .replace("  cash = me.cash\n", "  cash = me.class\n  left = me.yield\n")
    loaded = load_text(tmp_path, text, "{{ cash }} {{ left }}\n", "t", tmp_path / "cache")
    g = loaded.new_game()
    g.process_turn([("p1.txt", "1\nA\nP,A,4\nP,B,9\n")])
    ann = g.all_players[0]
    assert [(r.text, r.status) for r in g.turns[ann._key].used] == [("P,A,4", "done"), ("P,B,9", "failed")]
    data = report_data(g, ann)
    assert (data["cash"], data["left"]) == (6, 3)  # 10 - 4; 3 orders - 1 taken + 1 for the next turn
    # The player reads the field's own name, not its Python attribute.
    assert g.turns[ann._key].used[1].reason == "not enough class: it costs 9 and you have 6"
    # A scenario that sets the budget field keeps its value: it is found by the field's name.
    players = [{"name": "Ann", "account": "1", "code": "A", "yield": 7}]
    assert new_game(loaded.spec, {"players": players}).all_players[0].yield_ == 7
