"""The checker never raises on broken input: the two real rulesets, mutated, always come back as diagnostics.

Each mutation of `rulesets/covert.rules` and `rulesets/nukecards.rules` is deterministic (no randomness:
positions are spread evenly over the file) and is written into the test's folder beside a copy of the
ruleset's report template. `check_path` must return, not raise; its diagnostics must point into the
file and render as text and JSON. A mutation that breaks the file for certain (a truncation, a lost `}`,
a text left open, a misspelt name, a declaration written twice, many lines gone) must give an error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from rulesdsl.compiler import check_path
from rulesdsl.diagnostics import render_json, render_text

ROOT = Path(__file__).resolve().parents[2]
RULESETS = ROOT / "rulesets"
SOURCES = ("covert", "nukecards")

# Words of the language that are not the designer's names: misspelling them is a syntax mistake, which
# other mutations already cover.
KEYWORDS = frozenset([
    "ruleset", "param", "secret", "thing", "keyed", "by", "player", "world", "data", "links", "table", "define",
    "procedure", "orders", "order", "personal", "stop", "discard", "phase", "report", "victory", "for", "each", "in",
    "where", "if", "then", "else", "let", "and", "or", "not", "run", "news", "tell", "add", "to", "remove", "from",
    "clear", "fail", "effect", "cost", "valid", "require", "once", "per", "turn", "counts", "as", "ends", "when",
    "header", "budget", "starts", "at", "plus", "most", "new", "pay", "weighted", "below", "held", "turns", "warn",
    "template", "before", "descending", "reset", "of", "list", "set", "int", "money", "decimal", "bool", "text",
    "true", "false", "none", "me", "players", "all_players", "game_over", "sum", "count", "max", "min", "any", "all",
    "best", "sorted", "draw", "chance", "roll", "pick", "shuffle", "size", "first", "length", "upper", "truncate",
    "join", "is_alnum", "amount", "abs", "round", "floor", "ceil", "clamp", "div",
])


@dataclass(frozen=True)
class Mutation:
    id: str
    source: str  # "covert" or "nukecards"
    text: str
    must_fail: bool  # the mutation breaks the ruleset for certain: an error is expected


def _scan(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(start, end) of the parts of `text` that are code, and of its texts in quotes (quotes included).

    Comments are neither.
    """
    code: list[tuple[int, int]] = []
    texts: list[tuple[int, int]] = []
    i, start, n = 0, 0, len(text)
    while i < n:
        c = text[i]
        if c == "#":
            code.append((start, i))
            i = text.find("\n", i)
            i = n if i < 0 else i
            start = i
        elif c == '"':
            code.append((start, i))
            close = '"""' if text.startswith('"""', i) else '"'
            j = i + len(close)
            while j < n and not text.startswith(close, j):
                j += 2 if text[j] == "\\" else 1
            texts.append((i, min(n, j + len(close))))
            i = start = min(n, j + len(close))
        else:
            i += 1
    code.append((start, n))
    return [(a, b) for a, b in code if b > a], texts


def _declared_names(text: str) -> set[str]:
    """Names the ruleset declares: parameters, things, tables, functions, procedures, fields, arguments,
    and the keys that start `links` rows."""
    names = set(re.findall(r"^\s*(?:secret\s+)?(?:param|thing|table|define|procedure)\s+(\w+)", text, re.M))
    names |= set(re.findall(r"^\s+(\w+)\s*:\s*[A-Za-z]", text, re.M))
    return names - KEYWORDS


def _misspell(word: str, taken: set[str]) -> str:
    """`word` with its second and third letters swapped (or a letter doubled), not another name."""
    candidate = word[0] + word[2] + word[1] + word[3:] if word[1] != word[2] else word + word[-1]
    while candidate in taken:
        candidate += "x"
    return candidate


def _spread(count: int, total: int) -> list[int]:
    """`count` positions spread evenly over range(total), never the very first or last."""
    return sorted({total * (k + 1) // (count + 1) for k in range(count)})


def _mutations(source: str) -> Iterator[Mutation]:
    text = (RULESETS / f"{source}.rules").read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    code_lines = [i for i, ln in enumerate(lines) if ln.strip() and not ln.lstrip().startswith("#")]

    # The file cut short, mid-line mostly, and once right after a line: the report block, last in
    # both rulesets, is always lost.
    for percent in (3, 10, 25, 40, 55, 70, 85):
        cut = len(text) * percent // 100
        yield Mutation(f"{source}-truncated-at-{percent}pct", source, text[:cut], True)
    end_of_line = text.index("\n", len(text) // 2) + 1
    yield Mutation(f"{source}-truncated-after-line-{text[:end_of_line].count(chr(10))}", source,
                   text[:end_of_line], True)

    # Many lines gone at once.
    for every in (5, 11, 23):
        kept = [ln for i, ln in enumerate(lines) if i % every != every - 1]
        yield Mutation(f"{source}-one-line-in-{every}-deleted", source, "".join(kept), True)

    # One line of code gone; a declaration (parameter, field, argument, data row) written twice.
    for i in _spread(6, len(code_lines)):
        line = code_lines[i]
        yield Mutation(f"{source}-line-{line + 1}-deleted", source, "".join(lines[:line] + lines[line + 1:]),
                       False)
    declarations = [i for i in code_lines
                    if re.match(r"\s*(?:secret\s+)?param\s|\s+[a-z_]\w*\s*:\s*[A-Za-z]|\s+\w+:\s*\"", lines[i])]
    for i in _spread(5, len(declarations)):
        line = declarations[i]
        yield Mutation(f"{source}-line-{line + 1}-twice", source, "".join(lines[:line + 1] + lines[line:]), True)

    # A closing brace lost.
    code, texts = _scan(text)
    braces = [m.start() for m in re.finditer(r"\}", text) if any(a <= m.start() < b for a, b in code)]
    for k in _spread(4, len(braces)):
        at = braces[k]
        yield Mutation(f"{source}-brace-{k + 1}-of-{len(braces)}-removed", source, text[:at] + text[at + 1:], True)

    # A text left open: its closing quote lost.
    quotes = [b - 1 for a, b in texts if not text.startswith('"""', a) and "\n" not in text[a:b]]
    for k in _spread(2, len(quotes)):
        at = quotes[k]
        yield Mutation(f"{source}-quote-{k + 1}-unclosed", source, text[:at] + text[at + 1:], True)

    # A name the ruleset declares, misspelt where it is used (in code, not in a comment or a text,
    # and not where it is declared: `name:`).
    names = _declared_names(text)
    uses: list[tuple[str, int]] = []
    for a, b in code:
        for m in re.finditer(r"\b[A-Za-z_]\w*\b", text[a:b]):
            before = text[max(a, a + m.start() - 12):a + m.start()]
            if (m.group() in names and len(m.group()) >= 3 and not re.match(r"\s*:", text[a + m.end():b])
                    and not re.search(r"(?:param|thing|table|define|procedure)\s+$", before)):
                uses.append((m.group(), a + m.start()))
    for k in _spread(8, len(uses)):
        word, at = uses[k]
        wrong = _misspell(word, names | KEYWORDS)
        line = text.count("\n", 0, at) + 1
        yield Mutation(f"{source}-{word}-misspelt-on-line-{line}", source,
                       text[:at] + wrong + text[at + len(word):], True)


MUTATIONS = [m for source in SOURCES for m in _mutations(source)]


def test_enough_mutations() -> None:
    assert 60 <= len(MUTATIONS) <= 100, len(MUTATIONS)
    assert len({m.id for m in MUTATIONS}) == len(MUTATIONS)
    assert len({m.text for m in MUTATIONS}) == len(MUTATIONS)


@pytest.mark.parametrize("mutation", MUTATIONS, ids=[m.id for m in MUTATIONS])
def test_checker_does_not_raise(mutation: Mutation, tmp_path: Path) -> None:
    for template in RULESETS.glob(f"{mutation.source}.*j2"):
        (tmp_path / template.name).write_bytes(template.read_bytes())
    path = tmp_path / f"{mutation.source}.rules"
    path.write_text(mutation.text, encoding="utf-8")

    checked = check_path(path)  # must not raise

    line_count = mutation.text.count("\n") + 1
    for d in checked.diagnostics:
        assert re.fullmatch(r"[EW]\d{4}", d.code), d
        assert d.message.strip(), d
        if d.span.file == path.name:
            assert 1 <= d.span.line <= line_count and d.span.col >= 1, d
    rendered = render_text(checked.diagnostics, checked.sources)
    assert "Traceback" not in rendered
    assert len(json.loads(render_json(checked.diagnostics))["diagnostics"]) == len(checked.diagnostics)
    if mutation.must_fail:
        assert not checked.ok, f"{mutation.id}: no error reported\n{rendered}"
