"""The language server's answers in-process (editor/analysis.py): names in every place the shipped rulesets
write them, and the text that does not parse."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from rulesdsl.editor.analysis import WORD, Analysis, analyse, completions, symbol_at
from rulesdsl.source import Source
from tests.unit.rulestools import ROOT


@cache
def _analysis(name: str) -> Analysis:
    path = ROOT / "rulesets" / f"{name}.rules"
    return analyse(path.read_text(encoding="utf-8"), path.name, path.parent)


def _at(name: str, line_text: str, word: str, nth: int = 0) -> tuple[str, str, str, int]:
    """(kind, name, type, line of the declaration) of the `nth` `word` on the first line holding `line_text`."""
    a = _analysis(name)
    for i, line in enumerate(a.source.text.splitlines(), 1):
        if line_text in line:
            col = -1
            for _ in range(nth + 1):
                col = line.index(word, col + 1)
            s = symbol_at(a, i, col + 1)
            assert s is not None, f"nothing at {word!r} in {line!r}"
            return s.kind, s.name, s.shown_type(), s.span.line if s.span else 0
    raise AssertionError(line_text)


def _line(name: str, text: str) -> int:
    return next(i for i, line in enumerate(_analysis(name).source.text.splitlines(), 1) if text in line)


def test_names_in_data_links_orders_and_loops() -> None:
    country = _line("covert", "thing Country keyed by code")
    assert _at("covert", "data Country(code, name, industry", "industry") == \
        ("field", "Country.industry", "int", _line("covert", "  industry: int = 0"))
    assert _at("covert", "  ARG: BRA, PER", "PER") == \
        ("instance", "Country.PER", "Country", _line("covert", '  PER: "'))
    assert _at("covert", "links Country.adjacent", "adjacent")[:2] == ("field", "Country.adjacent")
    assert _at("covert", "links Country.adjacent", "Country")[:2] == ("thing", "Country")
    assert _at("covert", "links Country.adjacent", "Country")[3] == country
    # An order's argument in its pattern, before it is declared; and a given order's argument (`o.cash`).
    bribe = _at("covert", 'order bribe "B,{country},{cash}"', "cash")
    assert bribe[:3] == ("argument", "cash", "money")
    assert _at("covert", "sum(o.cash for o in orders(revolution)", "cash")[:3] == ("argument", "cash", "money")
    assert _at("covert", "sum(o.cash for o in orders(revolution)", "sum")[0] == "aggregate"
    # A comprehension's variable is read before the `for` that names it.
    assert _at("covert", "sum(a.defending[c] for a in c.adjacent)", "a.")[:3] == ("loop variable", "a", "Country")
    assert _at("covert", "sum(a.defending[c] for a in c.adjacent)", "defending")[:2] == ("field", "Country.defending")


def test_world_fields_and_the_languages_own_names() -> None:
    assert _at("nukecards", "let doomsday = world.doomsday_by", "doomsday_by")[:3] == \
        ("field", "world.doomsday_by", "Player?")
    assert _at("nukecards", "let doomsday = world.doomsday_by", "world")[:3] == \
        ("the language's name", "world", "world")
    assert _at("nukecards", "let doomsday = world.doomsday_by", "doomsday")[:3] == ("local", "doomsday", "Player?")


def test_every_word_of_a_ruleset_is_answered_without_error() -> None:
    a = _analysis("covert")
    found = 0
    lines = a.source.text.splitlines()
    for i, line in enumerate(lines, 1):
        for m in WORD.finditer(line):
            s = symbol_at(a, i, m.start() + 1)
            found += s is not None
            if s is not None and s.span is not None:
                assert lines[s.span.line - 1][s.span.col - 1:s.span.end_col - 1] == s.name.split(".")[-1]
        completions(a, a.source, i, len(line) + 1)
    assert found > 1000


def test_a_text_that_does_not_parse_has_its_error_and_no_names() -> None:
    broken = analyse("param x: int = \n", "broken.rules", ROOT / "rulesets")
    assert not broken.ok
    assert [d.severity for d in broken.checked.diagnostics] == ["error"]
    assert symbol_at(broken, 1, 7) is None
    # Completing in a half-written line reads the last analysis that parsed.
    good = _analysis("covert")
    half = Source("covert.rules", good.source.text.replace("    me.superspy = country", "    me.", 1))
    line = next(i for i, t in enumerate(half.text.splitlines(), 1) if t == "    me.")
    assert {"superspy", "cash"} <= {s.name for s in completions(good, half, line, 8)}


def test_templates_are_read_from_the_folder_given(tmp_path: Path) -> None:
    text = (ROOT / "rulesets" / "covert.rules").read_text(encoding="utf-8")
    elsewhere = analyse(text, "covert.rules", tmp_path)
    assert {d.code for d in elsewhere.checked.diagnostics} == {"E0504"}  # its templates are not there


SMALL = '''ruleset "Small" {
  version "1"
  turn "day"
  game "S-{number}"
}

# How strong a new army is.
param start_strength: int = 3

thing Army numbered per owner {
  strength: int = 1   # men, in thousands
}

order raise "R,{n}" {
  n: 1..5
  effect {
    new Army(owner: me, strength: n + start_strength)
  }
}
'''


def test_a_file_with_errors_still_answers(tmp_path: Path) -> None:
    a = analyse(SMALL, "small.rules", tmp_path)
    assert "E0416" in [d.code for d in a.checked.diagnostics]  # no `orders { header ... }`: still answered
    line = SMALL.splitlines().index("    new Army(owner: me, strength: n + start_strength)") + 1

    def at(col: int) -> tuple[str, str, str, int, str]:
        s = symbol_at(a, line, col)
        assert s is not None and s.span is not None
        return s.kind, s.name, s.shown_type(), s.span.line, s.doc

    assert at(14) == ("field", "Army.owner", "Player", 10, "the player it belongs to")
    assert at(25) == ("field", "Army.strength", "int", 11, "men, in thousands")
    assert at(39) == ("param", "start_strength", "int", 8, "How strong a new army is.")
    assert at(35) == ("argument", "n", "int", 15, "")
    names = {s.name: s.kind for s in completions(a, a.source, line, 5)}
    assert names["n"] == "argument" and names["count"] == "aggregate" and names["effect"] == "keyword"
