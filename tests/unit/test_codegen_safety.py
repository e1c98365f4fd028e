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

from rulesdsl.runtime.report import report_data
from tests.unit.rulestools import load_text

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
                                     "table", "group")}
    # An order's syntax is matched against a mail line: no line break in it, and no `{` (placeholders).
    syntax = "Q'''\"\"\"\\,#"
    text = f'''ruleset {rules_text(shown["title"], braces=False)} {{
  version {rules_text(shown["version"], braces=False)}
  turn {rules_text(shown["unit"], braces=False)}
}}
thing Box keyed by code {{
  name: text
}}
data Box(code, name) {{
  A: {rules_text(shown["data"])}
}}
player {{ cash: money = 10 }}
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
phase putting: run put
phase getting: run get
phase speaking {{
  news {rules_text(shown["news"])}
  for each p in players {{ tell p {rules_text(shown["tell"])} }}
}}
report {{
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
    assert [o.pattern for o in spec.orders] == [shown["syntax"] + ",{box}", shown["syntax"] + ",X"]

    g = loaded.new_game()
    syntax = shown["syntax"]
    g.process_turn([("p1.txt", f"1\nA\n{syntax},A\n{syntax},X\n{syntax},X\n")])
    assert FLAG not in os.environ, f"the module ran {os.environ[FLAG]!r} in a turn"
    assert g.news_items() == [shown["news"]]
    ann = g.all_players[0]
    turn = g.turns[ann._key]
    assert turn.messages == [shown["tell"]]
    assert [(r.text, r.status) for r in turn.used] == [(f"{syntax},X", "done")]
    assert [(r.text, r.reason) for r in turn.refused] == [(f"{syntax},A", shown["reason"]),
                                                          (f"{syntax},X", shown["group"])]
    data: dict[str, Any] = report_data(g, ann)
    assert (data["said"], data["table"], data["box"]) == (shown["report"], shown["table"], shown["data"])
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
