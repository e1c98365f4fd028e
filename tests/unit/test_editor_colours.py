"""The words of the grammar and the builtins -> the TextMate grammar (checked in) and the Pygments lexer."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pygments.lexers
import pytest
from pygments.token import Error, Keyword, Name, Number, Operator, String, _TokenType

from rulesdsl.builtins import BUILTINS
from rulesdsl.checker.exprs import AGGREGATES
from rulesdsl.editor import textmate, words
from rulesdsl.editor.lexer import RulesLexer
from rulesdsl.parser import _keywords
from tests.unit.rulestools import ROOT

VSCODE = ROOT / "editors" / "vscode"
GRAMMAR = ROOT / textmate.TARGET
RULESETS = sorted((ROOT / "rulesets").glob("*.rules"))  # wcg.rules as it is on main, like every other


# ---------------------------------------------------------------- one home for the words


def test_the_words_are_the_grammars_and_the_builtins() -> None:
    # The parser's own list of the grammar's words (which its syntax errors use) is split, none lost.
    assert sorted([*words.keywords(), *words.word_operators(), *words.CONSTANTS]) == sorted(_keywords())
    assert set(words.word_operators()) == {"and", "or", "not", "in", "div"}
    assert words.builtin_functions() == tuple(sorted(set(BUILTINS) | AGGREGATES))
    assert {"==", "..", "->", "+="} <= set(words.operators())


def test_the_textmate_grammar_is_generated_from_them() -> None:
    # Stale when the grammar or the builtins changed: `python -m rulesdsl.editor.textmate` writes it anew.
    assert GRAMMAR.read_text(encoding="utf-8") == textmate.text()
    repo = json.loads(GRAMMAR.read_text(encoding="utf-8"))["repository"]

    def listed(key: str) -> list[str]:
        m = re.fullmatch(r"\\b\(\?:(.*)\)\\b(?:\(\?=.*\))?", repo[key]["match"])
        assert m is not None, repo[key]["match"]
        return m.group(1).split("|")

    assert listed("keyword") == list(words.keywords())
    assert listed("builtin") == list(words.builtin_functions())
    assert listed("word-operator") == list(words.word_operators())


def _patterns(node: object) -> list[str]:
    out: list[str] = []
    if isinstance(node, dict):
        out += [node[k] for k in ("match", "begin", "end") if k in node]
        for value in node.values():
            out += _patterns(value)
    elif isinstance(node, list):
        for value in node:
            out += _patterns(value)
    return out


def test_every_textmate_pattern_compiles() -> None:
    # VS Code reads them with Oniguruma; they use only what it and Python's `re` read alike (textmate.py says
    # which), so `re` compiling each one is a fair test of the syntax.
    patterns = _patterns(json.loads(GRAMMAR.read_text(encoding="utf-8")))
    assert len(patterns) > 15
    for p in patterns:
        re.compile(p)
    keyword = re.compile(json.loads(GRAMMAR.read_text(encoding="utf-8"))["repository"]["keyword"]["match"])
    assert keyword.search("  require controls(me, c)").group() == "require"  # type: ignore[union-attr]
    assert keyword.search("requirement") is None


def test_the_vscode_extension_names_the_grammar() -> None:
    package = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
    (language,) = package["contributes"]["languages"]
    (grammar,) = package["contributes"]["grammars"]
    assert language["extensions"] == [".rules"]
    assert (VSCODE / grammar["path"]).resolve() == GRAMMAR.resolve()
    assert grammar["scopeName"] == json.loads(GRAMMAR.read_text(encoding="utf-8"))["scopeName"]
    config = json.loads((VSCODE / language["configuration"]).read_text(encoding="utf-8"))
    assert config["comments"] == {"lineComment": "#"}
    assert ["{", "}"] in config["brackets"]


# ---------------------------------------------------------------- Pygments


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: p.name)
def test_every_shipped_ruleset_lexes_without_an_error_token(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    tokens = list(RulesLexer().get_tokens(text))
    assert [t for t in tokens if t[0] in Error] == []
    assert "".join(value for _, value in tokens) == (text if text.endswith("\n") else text + "\n")


def _kinds(text: str) -> list[tuple[_TokenType, str]]:
    return [(kind, value) for kind, value in RulesLexer().get_tokens(text) if value.strip()]


def test_tokens_have_the_kinds_they_should() -> None:
    got = _kinds('order spy "S,{country}" {\n  country: Country\n  cost 5 + min(x, 2)  # pay\n}\n')
    assert got[:3] == [(Keyword.Declaration, "order"), (Name.Class, "spy"), (String, '"')]
    assert (String.Interpol, "{") in got and (Name, "country") in got
    assert (Keyword, "cost") in got and (Number, "5") in got and (Operator, "+") in got
    assert (Name.Builtin, "min") in got
    assert any(kind in pygments.token.Comment for kind, _ in got)
    assert (Keyword.Type, "int") in _kinds("param n: int = 3")
    assert (Operator.Word, "and") in _kinds("let ok = a and not b")
    # A quoted text inside an interpolation is a text, and the outer one goes on after it.
    inner = _kinds('news "{join(names, ", ")} won"')
    assert (Name.Builtin, "join") in inner and (String, " won") in inner


def test_the_lexer_is_registered_as_a_pygments_entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # pyproject.toml declares it; Pygments finds it through the installed metadata. The metadata made here from
    # pyproject.toml is what an install writes, so the test holds before the package is installed again.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    entry = project["project"]["entry-points"]["pygments.lexers"]
    assert entry == {"rules": "rulesdsl.editor.lexer:RulesLexer"}
    info = tmp_path / "rulesdsl_lexer_probe-0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rulesdsl-lexer-probe\nVersion: 0\n")
    (info / "entry_points.txt").write_text("[pygments.lexers]\n" + "".join(f"{k} = {v}\n" for k, v in entry.items()))
    monkeypatch.syspath_prepend(str(tmp_path))
    for alias in ("rules", "rulesdsl"):
        assert isinstance(pygments.lexers.get_lexer_by_name(alias), RulesLexer)
    assert isinstance(pygments.lexers.get_lexer_for_filename("covert.rules"), RulesLexer)
