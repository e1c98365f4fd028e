"""Mail as strangers write it -> what the turn makes of it: no line stalls or breaks the turn, only what the
order syntax declares is read (ASCII case, digits, spaces), control characters are refused and never echoed,
and nothing a sender wrote reaches a report before the access code is checked."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from rulesdsl.compiler import load_module
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.orders import header_patterns, read_arg
from rulesdsl.runtime.report import render, report_data
from rulesdsl.runtime.spec import RulesetSpec
from rulesdsl.runtime.state import dump, new_game
from rulesdsl.runtime.syntax import PLACEHOLDER as SLOT
from rulesdsl.runtime.syntax import Syntax, compile_pattern
from tests.unit.rulestools import Loaded, load_text

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="module")
def specs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[RulesetSpec, str]]:
    cache = tmp_path_factory.mktemp("mail-cache")
    out = {}
    for name in ("covert", "nukecards"):
        module, spec = load_module(ROOT / "rulesets" / f"{name}.rules", cache)
        out[name] = (spec, str(module.__file__))
    return out


def game(specs: dict[str, tuple[RulesetSpec, str]], name: str) -> Game:
    spec, module_file = specs[name]
    scenario = yaml.safe_load((EXAMPLES / name / "scenario.yaml").read_text(encoding="utf-8"))
    g = new_game(spec, scenario)
    g.module_file = module_file
    return g


def mail(g: Game, *lines: str, player: int = 0, code: str | None = None, game_line: str | None = None) -> str:
    """A submission of the n-th player of the scenario, with the ruleset's header."""
    p = g.all_players[player]
    number = str(g.meta["number"])
    first = game_line if game_line is not None else g.spec.policy.header[0].replace("{game}", number)
    return "\n".join([first, p.account, code if code is not None else p.code, *lines]) + "\n"


def turn_of(g: Game, player: int = 0) -> Any:
    return g.turns[g.all_players[player]._key]


def refused(g: Game, player: int = 0) -> list[tuple[int, str, str]]:
    return [(r.line, r.text, r.reason) for r in turn_of(g, player).refused]


def accepted(g: Game, player: int = 0) -> list[str]:
    t = turn_of(g, player)
    used = {id(r) for r in t.used}
    return [r.text for r in t.used] + [rec.text for _, _, rec in t.new_lines if rec is not None and id(rec) not in used]


CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


# ---------------------------------------------------------------- a player cannot stall a turn

# Lines of 100,000 characters in the shapes that made the old order patterns backtrack.
def long_lines(keyword: str, size: int) -> list[str]:
    return [
        keyword + " " * size + "x",
        keyword + "," * size,
        (keyword + ",") * (size // (len(keyword) + 1)),
        keyword + ", , ," + " ," * (size // 2),
        keyword + " " * size,
        keyword + " AT" * (size // 3),
        keyword + " WITH AT" * (size // 8) + " x",
    ]


@pytest.mark.parametrize("name, keywords", [("covert", ["A", "C", "EMAIL", "CODE"]),
                                            ("nukecards", ["PLAY", "LAUNCH", "PLAY S19", "GIVE"])])
def test_a_line_of_100000_characters_is_refused_at_once(specs: Any, name: str, keywords: list[str]) -> None:
    for keyword in keywords:
        for line in long_lines(keyword, 100_000):
            g = game(specs, name)
            start = time.perf_counter()
            g.process_turn([("p.txt", mail(g, line))])
            took = time.perf_counter() - start
            assert took < 0.5, f"{keyword!r} line took {took:.2f} s"
            ((_, text, reason),) = refused(g)
            assert "1000 characters" in reason
            assert len(text) < 200


def shapes(pattern: str, size: int) -> list[str]:
    """Lines of about `size` characters built from the syntax's own words and separators."""
    words = [w for w in SLOT.split(pattern)[::2] if w]
    keyword = words[0] if words else "X"
    pieces = "".join(words) or ","
    reps = size // max(1, len(pieces))
    return [
        " " * size + "x",
        "," * size,
        keyword + " " * size,
        keyword + " " * size + "y",
        keyword + "," * size,
        (keyword + ",") * (size // (len(keyword) + 1)),
        keyword + ", , ," * (size // 5),
        keyword + pieces * reps,
        (pieces + "x") * reps,
        keyword + (" " + pieces + " ") * (reps // 2) + "z",
        words[0] + " " * size + "x" if words else "x",  # "A," and 4,000 spaces took the old patterns 300 s
        (words[0] if words else "") + " , " * (size // 3) + "x",
    ]


@pytest.mark.parametrize("name", ["covert", "nukecards"])
def test_matching_a_line_takes_time_linear_in_its_length(specs: Any, name: str) -> None:
    """Every order syntax and header line, on lines of 1k, 10k and 100k characters of several shapes
    (the limit on line length is not applied here: this is the matching itself)."""
    spec, _ = specs[name]
    matchers = [(o.pattern, compile_pattern(o.pattern)) for o in spec.orders]
    matchers += list(zip(spec.policy.header, header_patterns(spec.policy), strict=True))
    for pattern, pat in matchers:
        for shape in range(len(shapes(pattern, 10))):
            # Both ways of reading: the first fit that reads most lines, and the two passes it falls back on.
            for read in (pat.match, lambda line, pat=pat: pat.match_slowly(line.strip(" \t"))):
                took = []
                for size in (1_000, 10_000, 100_000):
                    line = shapes(pattern, size)[shape]
                    # The best of three: a busy machine (tests run beside others) stretches one run, never all.
                    best = float("inf")
                    for _ in range(3):
                        start = time.perf_counter()
                        read(line)
                        best = min(best, time.perf_counter() - start)
                    took.append(best)
                assert took[2] < 0.25, f"{pattern!r} shape {shape}: {took}"
                assert took[2] < 30 * took[1] + 0.02, f"{pattern!r} shape {shape} is not linear: {took}"


# ---------------------------------------------------------------- a player cannot refuse everyone's turn

BIG = "9" * 900  # a line of fewer than 1000 characters: the number itself is refused

NUMBERS_RULES = '''ruleset "Num" { version "1" turn "turn" }

player {
  cash: money = 10
  log: list of text reset each turn
}

orders {
  header "{account}", "{code}"
  pay from cash
}

order add "ADD {n}" {
  n: int
  effect { add text(n) to me.log }
}

order pick "PICK {r}" {
  r: 1..9
  effect { add text(r) to me.log }
}

order sum "SUM {ns}" {
  ns: list of int
  effect { add text(size(ns)) to me.log }
}

order pay "PAY {m}" {
  m: money from 1
  cost m
  effect { add "paid" to me.log }
}

phase adding: run add
phase picking: run pick
phase summing: run sum
phase paying: run pay

report {
  log = me.log
  template "num.report.j2"
}
'''


@pytest.fixture(scope="module")
def numbers(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    base = tmp_path_factory.mktemp("num")
    return load_text(base, NUMBERS_RULES, "{{ log }}\n", "num", base / "cache")


@pytest.mark.parametrize("line, reason", [
    (f"ADD {BIG}", "n is too large a number"),
    (f"ADD -{BIG}", "n is too large a number"),
    (f"PICK {BIG}", "r is too large a number"),
    (f"SUM 1+{BIG}+2", "ns is too large a number"),
    (f"PAY {BIG}", "m is too large a number"),
    ("ADD 1234567890123456789", "n is too large a number"),
], ids=["int", "negative", "range", "list", "money", "19-digits"])
def test_a_huge_number_is_that_lines_refusal(numbers: Loaded, line: str, reason: str) -> None:
    g = numbers.new_game()
    g.process_turn([("a.txt", f"1\nA\nADD 7\n{line}\nADD 8\n"), ("b.txt", "2\nB\nADD 5\n")])
    assert [(r.line, r.reason) for r in g.turns["1"].refused] == [(4, reason)]
    assert list(g.all_players[0].log) == ["7", "8"]  # type: ignore[attr-defined]
    assert list(g.all_players[1].log) == ["5"]  # type: ignore[attr-defined]


def test_a_number_with_5000_leading_zeros_reads(specs: Any) -> None:
    g = game(specs, "covert")
    assert read_arg(g, ("int",), "-" + "0" * 5000 + "12", "n") == (-12, None)
    assert read_arg(g, ("money",), "0" * 5000, "m") == (0, None)
    assert read_arg(g, ("list", ("int",)), "1+" + "9" * 5000, "ns") == (None, "ns is too large a number")


def test_numbers_with_leading_zeros_and_many_digits_still_read(numbers: Loaded) -> None:
    g = numbers.new_game()
    g.process_turn([("a.txt", "1\nA\nADD 000000000000000000000007\nADD 123456789012345678\nADD -3\nADD +4\n")])
    assert list(g.all_players[0].log) == ["7", "123456789012345678", "-3", "4"]  # type: ignore[attr-defined]


def test_a_huge_number_on_covert_and_nukecards(specs: Any) -> None:
    g = game(specs, "covert")
    g.process_turn([("p.txt", mail(g, f"A,IND,{BIG}", f"B,IND,{BIG}", "I,IND", f"B,IND,{'9' * 5000}")),
                    ("q.txt", mail(g, "I,SIB", player=1))])
    assert [r[2] for r in refused(g)][:2] == ["units is too large a number", "cash is too large a number"]
    assert [r[0] for r in refused(g)] == [4, 5, 7]
    assert accepted(g) == ["I,IND"] and accepted(g, 1) == ["I,SIB"] and refused(g, 1) == []
    g = game(specs, "nukecards")
    g.process_turn([("p.txt", mail(g, f"LAUNCH M200 WITH N200+{BIG} AT BORDURIA", f"PICK {'7' * 5000}"))])
    assert [r[0] for r in refused(g)] == [4, 5]
    assert refused(g)[0][2] == f'"{BIG}" is not a card code'


# ---------------------------------------------------------------- mail as players write it

def test_a_byte_order_mark_before_the_header_is_dropped(specs: Any) -> None:
    g = game(specs, "covert")
    g.process_turn([("p.txt", "\ufeff" + mail(g, "I,IND"))])
    assert turn_of(g).submitted and turn_of(g).notices == [] and g.unrouted == []
    assert accepted(g) == ["I,IND"]


def test_a_mail_with_no_header_says_so_and_names_no_account(specs: Any) -> None:
    """A stranger's "Hello, is there a free position?" has no header: the GM hears which lines are not the
    header, not that no player has the account "?" that nobody wrote."""
    g = game(specs, "covert")
    g.process_turn([("hello.txt", "Hello,\n\nIs there a free position?\nWhat is the access code?\nThanks\n")])
    assert 'line 1 "Hello," is not a header line like' in g.unrouted[0]
    assert not any("no player has account" in u for u in g.unrouted), g.unrouted


@pytest.mark.parametrize("line", [
    "\u0131,IND",  # dotless i for I
    "\u017f,IND,3",  # long s for S
    "\u212a,IND,3",  # Kelvin sign for K
    "I,\u0131ND",  # a country code with a dotless i
    "I,S\u0131B",
    "A,IND,\u0663",  # Arabic-Indic 3
    "A,IND,\uff13",  # fullwidth 3
    "A,\u2003IND,3",  # em space
    "A,IND,\u00a03",  # no-break space
    "I\u00a0,IND",
])
def test_look_alikes_are_not_read_as_ascii(specs: Any, line: str) -> None:
    g = game(specs, "covert")
    g.process_turn([("p.txt", mail(g, line))])
    assert accepted(g) == []
    assert [r[0] for r in refused(g)] == [4]


def test_look_alikes_of_a_player_name_and_an_access_code(specs: Any) -> None:
    g = game(specs, "nukecards")
    g.process_turn([("p.txt", mail(g, "PROPAGANDA P100 AT FREEDON\u0131A", "PROPAGANDA P100 AT freedonia"))])
    assert accepted(g) == ["PROPAGANDA P100 AT freedonia"]
    assert [r[2] for r in refused(g)] == ['there is no player "FREEDON\u0131A"']
    g = game(specs, "nukecards")
    g.process_turn([("p.txt", mail(g, "PICK M", player=2, code="CA\u017fTLE"))])
    assert not turn_of(g, 2).submitted
    assert "access code does not match" in turn_of(g, 2).notices[0]
    g = game(specs, "nukecards")
    g.process_turn([("p.txt", mail(g, "PICK M", player=2, code="castle"))])
    assert turn_of(g, 2).submitted


def test_ascii_case_and_spaces_still_read(specs: Any) -> None:
    g = game(specs, "covert")
    g.process_turn([("p.txt", "  co-175 \n\t20408\nalpha789\n a , ind ,\t3 \ni,ind\n")])
    assert accepted(g) == ["a , ind ,\t3", "i,ind"]


@pytest.mark.parametrize("char, name", [
    ("\x1b", "ESC, U+001B"), ("\x00", "NUL, U+0000"), ("\x0c", "FF, U+000C"), ("\x0b", "VT, U+000B"),
    ("\x1c", "FS, U+001C"), ("\x7f", "DEL, U+007F"), ("\x85", "U+0085"),
    ("\u202e", "RIGHT-TO-LEFT OVERRIDE, U+202E"), ("\u2028", "LINE SEPARATOR, U+2028"),
    ("\u2029", "PARAGRAPH SEPARATOR, U+2029"), ("\u200b", "ZERO WIDTH SPACE, U+200B"),
    ("\ufeff", "ZERO WIDTH NO-BREAK SPACE, U+FEFF"), ("\ue000", "U+E000"), ("\U000e0001", "LANGUAGE TAG, U+E0001"),
    ("\ud800", "U+D800"), ("\u0378", "U+0378"),
])
def test_a_line_holding_a_control_character_is_refused_and_not_echoed(specs: Any, char: str, name: str) -> None:
    g = game(specs, "covert")
    g.process_turn([("p.txt", mail(g, f"EMAIL,me{char}@example.org", f"I,IND{char}I,FRA", "I,SIB"))])
    assert accepted(g) == ["I,SIB"]
    reason = f"the line holds a control character ({name})"
    assert [(line, reason_) for line, _, reason_ in refused(g)] == [(4, reason), (5, reason)]
    for _, text, _ in refused(g):
        assert not CONTROL.search(text) and char not in text
        assert f"U+{ord(char):04X}" in text
    assert g.all_players[0].email == "spectre@example.org"


def test_bytes_that_were_not_utf8_are_refused(specs: Any) -> None:
    g = game(specs, "covert")
    g.process_turn([("p.txt", mail(g, "EMAIL,me\ufffd@example.org"))])
    assert [r[2] for r in refused(g)] == ["the line holds bytes that are not UTF-8 text"]


def test_lines_end_only_at_newlines(specs: Any) -> None:
    g = game(specs, "covert")
    g.process_turn([("p.txt", "CO-175\r\n20408\rALPHA789\r\nI,IND\rI,SIB\n\nI,FRA")])
    assert accepted(g) == ["I,IND", "I,SIB", "I,FRA"]
    assert [r.line for r in turn_of(g).used] == [4, 5, 7]


def test_control_characters_in_the_header_and_label_do_not_reach_the_gm(specs: Any) -> None:
    g = game(specs, "covert")
    g.process_turn([("evil\x1b[2J.txt", "CO-175\x1b[2J\n20408\nALPHA789\nI,IND\n"),
                    ("x\u202e.txt", "CO-175\n\x1b]0;pwn\x07\nALPHA789\n"),
                    ("y.txt", "CO-175\n99\x1b\n")])
    assert len(g.unrouted) >= 3
    for message in g.unrouted:
        assert not CONTROL.search(message), message
    notices = turn_of(g).notices
    assert len(notices) == 1 and "line 1 of the header" in notices[0] and not CONTROL.search(notices[0])


# ---------------------------------------------------------------- nothing before authentication reaches a report

MARK = "ZQXMARK"


def everything(g: Game) -> str:
    """Every report (data and text), the news, the state and the GM's notes of the turn, as one text."""
    parts = [repr(dump(g)), repr(g.news_items()), repr(g.unrouted), repr(g.warnings)]
    for p in g.all_players:
        data = report_data(g, p)
        parts += [repr(data), render(g.spec, data)]
    return "\n".join(parts)


@pytest.mark.parametrize("name", ["covert", "nukecards"])
def test_a_submission_with_a_wrong_code_writes_nothing_anywhere(specs: Any, name: str) -> None:
    g = game(specs, name)
    prefix = g.spec.policy.header[0].replace("{game}", "")
    lines = [f"EMAIL,{MARK}@x", f"CODE,{MARK}", f"PROPAGANDA P100 AT {MARK}", f"{MARK} {MARK}", f"I,{MARK}"]
    g.process_turn([("p.txt", mail(g, *lines, code="WRONG", game_line=prefix + MARK))])
    assert "access code does not match" in turn_of(g).notices[0]
    assert MARK not in everything(g)
    # The same game line with the right code is answered, so the test above can fail.
    g = game(specs, name)
    g.process_turn([("p.txt", mail(g, *lines, game_line=prefix + MARK))])
    assert MARK in everything(g)


# ---------------------------------------------------------------- the new matcher reads as the old one did

def old_pattern(pattern: str, group: str) -> re.Pattern[str]:
    """The regex the order syntaxes were read with before, for ASCII spaces and case only."""
    def lit(text: str) -> str:
        return "".join(r"[ \t]*,[ \t]*" if c == "," else r"[ \t]+" if c == " " else re.escape(c) for c in text)
    out, pos = [], 0
    for m in SLOT.finditer(pattern):
        out += [lit(pattern[pos:m.start()]), f"(?P<{m.group(1)}>{group})"]
        pos = m.end()
    out.append(lit(pattern[pos:]))
    return re.compile(r"^[ \t]*" + "".join(out) + r"[ \t]*$", re.IGNORECASE | re.ASCII)


EXTRA = ["A,{a},{b}", "A, {a} , {b}", "X {a} {b}", "A,{a}B,C{b}", "GO {a} TO {b}, {c}", "P{a}Q{b}R",
         "A,{a}", "{a},{b}", "AB,{a}AB,{b}AB", "A {a}{b} B", "{a} ", " {a},{b} ", "A.{x}*B", "Z({x})"]
HEADERS = ["G{game}-{account}", "{game} {account}", "G {game}, {account} X{code}", "{game}{account}", " {account} "]
ODD = ["\u0131", "\u212a", "\u00a0", "\u00e9", "{", "}", "\\", ".", "*", "(", ")", "+", "$", "^", "?"]


def random_line(rng: random.Random, pattern: str) -> str:
    """A short line: random pieces of the syntax, or the syntax with its arguments filled at random and its
    spaces and commas changed here and there."""
    words = [w for w in re.split(r"(\{[a-z_]+\}|[ ,])", pattern.lower()) if w and not w.startswith("{")]
    alphabet = [*words, " ", ",", "  ", "x", "\t", "a", "1", "-", " , "]
    if rng.random() < 0.1:
        return "".join(rng.choice(alphabet + ODD) for _ in range(rng.randint(0, 12)))
    if rng.random() < 0.4:
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
    out = []
    for piece in re.split(r"(\{[a-z_]+\}|[ ,])", pattern):
        if piece.startswith("{"):
            piece = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 3)))
        elif piece in (" ", ","):
            piece = rng.choice([piece, piece, " " + piece, piece + "\t ", "", ",", " "])
        out.append(piece.lower() if rng.random() < 0.3 else piece)
    return "".join(out)


def test_every_line_reads_as_the_old_patterns_read_it(specs: Any) -> None:
    rng = random.Random(5)
    cases: list[tuple[str, Callable[[str], Any], bool]] = []
    for name in ("covert", "nukecards"):
        spec, _ = specs[name]
        cases += [(o.pattern, compile_pattern(o.pattern).match, False) for o in spec.orders]
        cases += [(form, Syntax(form, spaced=False).match, True) for form in spec.policy.header]
    cases += [(p, compile_pattern(p).match, False) for p in EXTRA]
    cases += [(p, Syntax(p, spaced=False).match, True) for p in HEADERS]
    for pattern, match, header in cases:
        old = old_pattern(pattern.strip(" \t"), r"\S+?" if header else ".+?")
        hits = 0
        for _ in range(1500):
            line = random_line(rng, pattern).strip(" \t")
            before = old.match(line)
            want = None if before is None else {k: v.strip(" \t") for k, v in before.groupdict().items()}
            assert match(line) == want, (pattern, line)
            hits += before is not None
        assert hits > 50, pattern  # the lines do exercise the syntax
