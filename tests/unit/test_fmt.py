"""`rulesdsl fmt`: the layout it gives, that it never changes meaning, and its command line."""

from __future__ import annotations

import dataclasses
import itertools
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulesdsl.cli import main
from rulesdsl.fmt import Unformattable, _tokens, format_text
from rulesdsl.parser import parse
from rulesdsl.source import Source, Span

ROOT = Path(__file__).resolve().parents[2]
RULESETS = sorted((ROOT / "rulesets").glob("*.rules")) + sorted((ROOT / "rulesets" / "variants").glob("*.rules"))
# Every shipped ruleset is in the layout: formatting it changes nothing.
FORMATTED = ["covert.rules", "nukecards.rules", "warlord.rules", "wcg.rules", "covert-twice-weekly.rules",
             "nukecards-blitz.rules"]
CASES = sorted((ROOT / "tests" / "diagnostics" / "cases").glob("*.rules"))


def shape(node: Any) -> Any:
    """The AST without its spans: what the file means, wherever its parts stand."""
    if isinstance(node, Span):
        return None
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        return (type(node).__name__, *((f.name, shape(getattr(node, f.name))) for f in dataclasses.fields(node)))
    if isinstance(node, (tuple, list)):
        return tuple(shape(x) for x in node)
    return node


@cache
def meaning(text: str) -> Any:
    module, _ = parse(Source("x.rules", text))
    assert module is not None
    return shape(module)


def assert_safe(text: str) -> str:
    """Formats `text`, and asserts the result means the same and is its own layout."""
    laid_out = format_text(text)
    if laid_out == text:
        return laid_out  # the same text: the same meaning, and its own layout
    assert meaning(laid_out) == meaning(text)
    assert format_text(laid_out) == laid_out
    return laid_out


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: p.name)
def test_shipped_rulesets_are_in_the_layout_or_keep_their_meaning(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    laid_out = assert_safe(text)
    if path.name in FORMATTED:
        assert laid_out == text


def flattened(text: str) -> str:
    """The same tokens and line breaks with no indent and one space between tokens: every column lost."""
    out: list[str] = []
    end_line = 0
    for t in _tokens(text):
        out.append("\n" * (t.line - end_line) if out and t.line > end_line else " " if out else "")
        out.append(t.text)
        end_line = t.end_line
    return "".join(out) + "\n"


# Two rulesets that hold most constructs, for the suite's time (warlord and wcg take 4 s each; they pass).
@pytest.mark.parametrize("name", ["covert.rules", "nukecards.rules"])
def test_shipped_rulesets_flattened_keep_their_meaning(name: str) -> None:
    text = (ROOT / "rulesets" / name).read_text(encoding="utf-8")
    flat = flattened(text)
    assert flat != text
    laid_out = format_text(flat)
    assert meaning(laid_out) == meaning(text)
    assert format_text(laid_out) == laid_out


def test_every_diagnostics_case_that_parses_keeps_its_meaning() -> None:
    parsed = 0
    for path in CASES:
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            continue  # syntax-latin1-file: refused before any formatting (the command's test)
        try:
            laid_out = format_text(text)
        except Unformattable:
            assert parse(Source(path.name, text))[0] is None, path.name
            continue
        parsed += 1
        if laid_out != text:
            assert meaning(laid_out) == meaning(text), path.name
            assert format_text(laid_out) == laid_out, path.name
    assert parsed > 200  # the corpus is mostly checker cases, not syntax errors


MESSY = """\
ruleset "T"{version "1"}
param   a :int=5    # five
param bb: int =  -3 # minus three
thing Country keyed by code {
name:text
      adjacent : set of Country
  influence: Player->int
}


player { cash: money = a }
data Country(code,name){
 X:"x"   Y:"y"
 Z : "z"
}
table t(n:int)->int{1:1,2:3
  3:   4}
define f(p:Player,c:Country)->bool=c.influence[p]>-1 and not(a==2)
define g(c: Country) -> int =
      sum( c.influence[ p ]*2 for p in players where p.cash>=0)
    + a
define h(c: Country) -> int =
len(c.adjacent
)
phase main {
for each c in Country where f( players[0],c) {   # every country
  if c.name=="x"{ c.influence[players[0]]+=1 } else if c.name != "y" {
 news "hi {c.name}"
  }else{
  let r={name:c.name,n:[1,2 ,3]}
    # the last
    }
     }
}
"""

LAID_OUT = """\
ruleset "T" { version "1" }
param a: int = 5    # five
param bb: int = -3  # minus three
thing Country keyed by code {
  name: text
  adjacent: set of Country
  influence: Player -> int
}

player { cash: money = a }
data Country(code, name) {
  X: "x"   Y: "y"
  Z: "z"
}
table t(n: int) -> int { 1: 1, 2: 3
  3: 4 }
define f(p: Player, c: Country) -> bool = c.influence[p] > -1 and not (a == 2)
define g(c: Country) -> int =
      sum(c.influence[p] * 2 for p in players where p.cash >= 0)
    + a
define h(c: Country) -> int =
  len(c.adjacent
)
phase main {
  for each c in Country where f(players[0], c) {   # every country
    if c.name == "x" { c.influence[players[0]] += 1 } else if c.name != "y" {
      news "hi {c.name}"
    } else {
      let r = {name: c.name, n: [1, 2, 3]}
      # the last
    }
  }
}
"""


def test_the_layout() -> None:
    assert assert_safe(MESSY) == LAID_OUT


def test_aligned_comments_and_columns_stay_aligned_and_move_together() -> None:
    text = """\
param aa:int=1  # the code before grows:
param b: int=2  # both comments move right,
                # and the line that goes on with them
param c: int = 3     # a comment alone keeps its column

data D(code, x, y) {
A:1,     10
BB: 22,  3
}
"""
    assert assert_safe(text) == """\
param aa: int = 1 # the code before grows:
param b: int = 2  # both comments move right,
                  # and the line that goes on with them
param c: int = 3     # a comment alone keeps its column

data D(code, x, y) {
  A: 1,    10
  BB: 22,  3
}
"""


def test_columns_lined_up_with_tabs_stay_lined_up() -> None:
    text = "thing C keyed by code {\n\tname: text\t# the name\n\tsize: int = 0\t# its size\n}\n"
    assert assert_safe(text) == ("thing C keyed by code {\n  name: text      # the name\n"
                                 "  size: int = 0   # its size\n}\n")


def test_items_on_one_line_stay_apart() -> None:
    text = 'thing D keyed by code { x: int  y: int }\ndata D(code, x, y) { A: 1, 2   B: 3, 4 }\n'
    assert assert_safe(text) == text


def test_comments_are_kept_exactly_and_texts_untouched() -> None:
    text = 'param a: text = "  two  spaces  {1 +  2}  "   #   odd   comment   \n' \
           'param b: text = """\n     kept\n   as is  \n"""\n'
    out = assert_safe(text)
    assert '"  two  spaces  {1 +  2}  "' in out
    assert "#   odd   comment\n" in out
    assert '"""\n     kept\n   as is  \n"""' in out


def test_a_file_that_does_not_parse_is_refused_with_the_parsers_diagnostic() -> None:
    with pytest.raises(Unformattable) as refused:
        format_text("param x: int = \n", "bad.rules")
    [diagnostic] = refused.value.diagnostics
    assert (diagnostic.code, diagnostic.span.file, diagnostic.span.line) == ("E0101", "bad.rules", 1)


# ---------------------------------------------------------------- random layouts of one snippet
# Covert's parameters: comments of every kind, trailing, aligned and standing alone.
SNIPPET_TEXT = "# ---" + "\n# ---".join((ROOT / "rulesets" / "covert.rules").read_text(encoding="utf-8")
                               .split("\n# ---")[1:2]) + "\n"


def _pieces(text: str) -> list[str]:
    return [t.text for t in _tokens(text)]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_spacing_of_the_same_tokens_keeps_its_meaning(data: st.DataObject) -> None:
    pieces = _pieces(SNIPPET_TEXT)
    out = [pieces[0]]
    for before, piece in itertools.pairwise(pieces):
        # A comment runs to the line's end; a name before `:` must stay on its line (`where:` is a field).
        choices = ["\n", "\n\n\n", "\n      "] if before.startswith("#") else \
                  [" ", "   "] if piece == ":" else [" ", "  ", "\n", "\n   ", "\n\n"]
        out.append(data.draw(st.sampled_from(choices)))
        out.append(piece)
    text = "".join(out) + "\n"
    assert meaning(text) == meaning(SNIPPET_TEXT)
    assert_safe(text)


# ---------------------------------------------------------------- the command
def test_fmt_check_lists_and_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.rules"
    good.write_text(LAID_OUT)
    messy = tmp_path / "messy.rules"
    messy.write_text(MESSY)
    assert main(["fmt", "--check", str(good), str(messy)]) == 1
    assert capsys.readouterr().out == f"{messy}: would be formatted\n"
    assert messy.read_text() == MESSY
    assert main(["fmt", "--check", str(good)]) == 0


def test_fmt_rewrites_in_place_and_says_which(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.rules"
    good.write_text(LAID_OUT)
    messy = tmp_path / "messy.rules"
    messy.write_text(MESSY)
    assert main(["fmt", str(good), str(messy)]) == 0
    assert capsys.readouterr().out == f"{messy}: formatted\n"
    assert messy.read_text() == LAID_OUT


def test_fmt_diff_prints_a_unified_diff(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    messy = tmp_path / "messy.rules"
    messy.write_text(MESSY)
    assert main(["fmt", "--diff", str(messy)]) == 0
    out = capsys.readouterr().out
    assert f"--- {messy}\n+++ {messy} (formatted)\n" in out
    assert "\n-param   a :int=5    # five\n" in out
    assert "\n+param a: int = 5    # five\n" in out
    assert messy.read_text() == MESSY


def test_fmt_refuses_a_file_not_in_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "latin1.rules"
    bad.write_bytes('param x: text = "Müller"\n'.encode("latin-1"))
    assert main(["fmt", str(bad)]) == 2
    assert f"{bad}:1:19: error[E0001]" in capsys.readouterr().err
    assert bad.read_bytes() == 'param x: text = "Müller"\n'.encode("latin-1")


def test_fmt_refuses_a_file_that_does_not_parse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.rules"
    bad.write_text("param x: int = \n")
    assert main(["fmt", str(bad)]) == 2
    assert f"{bad}:1:15: error[E0101]" in capsys.readouterr().err
    assert bad.read_text() == "param x: int = \n"
