"""The order-syntax module (runtime/syntax.py) -> its pieces, its reading of lines, and its shadowing rule, as
the checker and the engine both use them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from rulesdsl.runtime.syntax import (
    Piece,
    Syntax,
    argument_after_keyword,
    header_syntax,
    keyword_of,
    placeholders,
    shadows,
    split,
    starts_with_keyword,
    touching_placeholders,
)
from tests.unit.rulestools import BASE, check_text, show

# ---------------------------------------------------------------- pieces


def test_a_syntax_splits_into_words_separators_and_slots() -> None:
    assert split("GO {a} TO {b}, {c}") == [
        Piece("word", "GO"), Piece("sep", " "), Piece("slot", "a"), Piece("sep", " "), Piece("word", "TO"),
        Piece("sep", " "), Piece("slot", "b"), Piece("sep", ", "), Piece("slot", "c")]
    # A tab is a space and a comma with spaces round it one separator, as a line is read.
    assert split("A\t{x} ,{y}") == [Piece("word", "A"), Piece("sep", "\t"), Piece("slot", "x"), Piece("sep", " ,"),
                                    Piece("slot", "y")]
    assert split("A{x}{y}B") == [Piece("word", "A"), Piece("slot", "x"), Piece("slot", "y"), Piece("word", "B")]


def test_placeholders_are_everything_between_braces_so_a_misspelt_one_can_be_named() -> None:
    assert placeholders("P,{b},{1x},{},{a b}") == ["b", "1x", "", "a b"]
    assert placeholders("{account}-{code}-{account}") == ["account", "code", "account"]
    assert placeholders("PASS") == []


def test_the_keyword_is_the_first_word() -> None:
    assert keyword_of("a,{country}") == "A"
    assert keyword_of("play {card} at {target}") == "PLAY"
    assert not argument_after_keyword("PLAY {card}")
    assert argument_after_keyword("A{x}")


# ---------------------------------------------------------------- reading a line


def test_each_argument_takes_the_shortest_text_that_lets_the_rest_match() -> None:
    assert Syntax("A,{country},{units}").match(" a , bri ,\t5 ") == {"country": "bri", "units": "5"}
    assert Syntax("GO {a} TO {b}").match("go x to y TO z") == {"a": "x", "b": "y TO z"}
    assert Syntax("A,{country},{units}").match("A bri,5") is None
    assert Syntax("PASS").match("  pass ") == {}
    assert Syntax("PASS").match("PASSED") is None


def test_words_are_read_in_ascii_case_only() -> None:
    assert Syntax("SPIN {x}").match("spin 1") == {"x": "1"}
    assert Syntax("SPIN {x}").match("sp\u0131n 1") is None  # a dotless i is not an i


def test_a_header_placeholder_holds_no_spaces() -> None:
    game = header_syntax("CO-{game}")
    assert game.match("co-12") == {"game": "12"}
    assert game.match("CO-1 2") is None
    both = header_syntax("G {game}, {account}")
    assert both.match("G 7 , A1") == {"game": "7", "account": "A1"}
    assert both.match("G 7 x, A1") is None
    # The first fit would give {game} "a"; only a longer text lets {account} hold no space.
    assert header_syntax("{game}-{account}").match("a-b-c") == {"game": "a", "account": "b-c"}
    assert header_syntax("{game}x{account}").match("axb xc") is None


# ---------------------------------------------------------------- shadowing


@dataclass(frozen=True)
class Args:
    """Argument types as the checker would answer for them: a thing (its keys), a range, or text."""

    a: dict[str, object]
    b: dict[str, object]

    def takes(self, a: str, b: str) -> bool:
        x, y = self.a[a], self.b[b]
        if x == "text":
            return True
        if isinstance(x, range) and isinstance(y, range):
            return x.start <= y.start and y.stop <= x.stop
        return x == y

    def reads(self, a: str, word: str) -> bool:
        x = self.a[a]
        if x == "text":
            return True
        if isinstance(x, range):
            return word.isdigit() and int(word) in x
        assert isinstance(x, frozenset)
        return word.upper() in x

    def one_word(self, b: str) -> bool:
        return self.b[b] != "text"


BOX = frozenset({"A", "B"})
PUT = {"box": BOX, "n": range(1, 10)}


@pytest.mark.parametrize(("a", "a_args", "b", "b_args"), [
    ("P,{box},{n}", PUT, "P,A,{n}", {"n": range(1, 6)}),  # a word that reads as the argument
    ("P,{box},{n}", PUT, "p,{b},{k}", {"b": BOX, "k": range(2, 4)}),  # the same syntax, a narrower range
    ("P,{box},{n}", PUT, "p, {b}, {k}", {"b": BOX, "k": range(2, 4)}),  # `,` takes `, `
    ("P {b},{n}", {"b": "text", "n": range(1, 10)}, "P {x},{k}", {"x": BOX, "k": range(1, 10)}),
    ("P,{box},{n} ", PUT, "P,{b},{k}", {"b": BOX, "k": range(1, 10)}),  # spaces round a syntax are the line's
    ("P\t{box}", {"box": BOX}, "P {b}", {"b": BOX}),  # a tab is a space
])
def test_a_syntax_that_reads_every_line_of_another_shadows_it(a: str, a_args: dict[str, object], b: str,
                                                              b_args: dict[str, object]) -> None:
    assert shadows(a, b, Args(a_args, b_args))


@pytest.mark.parametrize(("a", "a_args", "b", "b_args"), [
    ("P,{box},{n}", PUT, "P,C,{n}", {"n": range(1, 6)}),  # C is no Box
    ("P,{box},{n}", PUT, "P,A,{n}", {"n": range(1, 21)}),  # 12 is not 1..9
    ("P,{box},{n}", PUT, "P,{b},{n}", {"b": "text", "n": range(1, 10)}),  # any text, not only a Box
    ("P,{box},{n}", PUT, "P {b},{n}", {"b": BOX, "n": range(1, 10)}),  # a space is not a comma
    ("P, {box}", {"box": BOX}, "P,{b}", {"b": BOX}),  # `, ` does not take `,`
    ("P {t} {n}", {"t": "text", "n": range(1, 10)}, "P A {x} {k}", {"x": "text", "k": range(1, 10)}),
    ("P{box}", {"box": BOX}, "PA", {}),  # an argument glued to a word may take more than the word
    ("PLAY {c}", {"c": BOX}, "STOP", {}),
])
def test_a_syntax_that_misses_some_lines_of_another_does_not_shadow_it(a: str, a_args: dict[str, object], b: str,
                                                                       b_args: dict[str, object]) -> None:
    assert not shadows(a, b, Args(a_args, b_args))


# ---------------------------------------------------------------- the checker asks the same rule


@pytest.mark.parametrize("general", [
    'order any "Q {b} " { b: Box }\n',  # the engine strips the spaces round a syntax
    'order any "Q\t{b}" { b: Box }\n',  # and reads a tab as a space
])
def test_the_checker_sees_a_shadow_the_engine_reads_as_one(general: str, tmp_path: Path) -> None:
    text = BASE + general + 'order again "Q {x}" { x: Box }\nphase q {\n run any\n run again\n}\n'
    checked = check_text(tmp_path, text)
    assert [d.code for d in checked.diagnostics] == ["E0421"], show(checked.diagnostics)


@pytest.mark.parametrize(("word", "codes"), [
    ("5", ["E0421"]),  # every line "Q,5" is read as `any`
    ("\u0661", []),  # an Arabic-Indic one: Python's int() reads it, the engine does not, so `odd` gets it
    ("1234567890123456789", []),  # more digits than the engine reads as a number
])
def test_a_word_shadowed_by_a_number_argument_is_one_the_engine_reads_as_a_number(word: str, codes: list[str],
                                                                                  tmp_path: Path) -> None:
    text = BASE + f'order any "Q,{{n}}" {{ n: int }}\norder odd "Q,{word}" {{\n effect {{ me.moves += 1 }}\n}}\n' \
        "phase q {\n run any\n run odd\n}\n"
    checked = check_text(tmp_path, text)
    assert [d.code for d in checked.diagnostics] == codes, show(checked.diagnostics)


def test_the_rules_of_a_syntax_the_checker_words_as_e0409() -> None:
    assert starts_with_keyword("A,{country}")
    assert not starts_with_keyword("{country},A")
    assert not starts_with_keyword(" A")
    assert touching_placeholders("GO {a}{b} TO {c}{d}") == [5, 15]
    assert touching_placeholders("GO {a} {b}") == []
