"""The grammar (rules.lark) and the builtins (builtins.py, the aggregates) -> the words editors colour, in one place.

The Pygments lexer and the TextMate grammar both read these lists, so a keyword added to the grammar or a
builtin added to builtins.py is coloured everywhere without being written down a second time.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from rulesdsl.builtins import BUILTINS
from rulesdsl.checker.env import RESERVED
from rulesdsl.checker.exprs import AGGREGATES
from rulesdsl.types import BASE_TYPES

# The values among the grammar's words: coloured as constants, not keywords.
CONSTANTS = ("false", "none", "true")
# Rules of the grammar whose words are operators (`a and b`, `x in s`, `n div 2`), not statements' keywords.
_OPERATOR_RULES = frozenset({"or_expr", "and_expr", "not_expr", "comparison", "product"})


@cache
def _terminals() -> tuple[tuple[str, str], ...]:
    """(the rule a literal word or symbol appears in, the literal) for every literal of the grammar.

    Lark's grammar loader gives the rules without building the parser's tables: a fifth of the time."""
    from lark.load_grammar import load_grammar

    text = resources.files("rulesdsl").joinpath("grammar/rules.lark").read_text(encoding="utf-8")
    grammar, _ = load_grammar(text, "rules.lark", [], False)
    terminals, rules, _ignore = grammar.compile(["start", "expr"], set())
    literal = {t.name: str(t.pattern.value) for t in terminals if t.pattern.type == "str"}
    out: set[tuple[str, str]] = set()
    for rule in rules:
        origin = str(rule.origin.name)
        for sym in rule.expansion:
            if sym.is_term and sym.name in literal:
                out.add((origin, literal[sym.name]))
    return tuple(sorted(out))


@cache
def keywords() -> tuple[str, ...]:
    """Every word the grammar spells out (`order`, `require`, `each`), less the operators and constants."""
    words = {w for _, w in _terminals() if w.isalpha()}
    return tuple(sorted(words - set(CONSTANTS) - set(word_operators())))


@cache
def word_operators() -> tuple[str, ...]:
    """The words that join expressions: `and`, `or`, `not`, `in`, `div`."""
    return tuple(sorted({w for rule, w in _terminals() if w.isalpha() and rule.lstrip("_?") in _OPERATOR_RULES}))


@cache
def operators() -> tuple[str, ...]:
    """The grammar's symbols that are operators (not brackets or separators), longest first so a regex takes
    `..` before `.` and `<=` before `<`."""
    symbols = {w for _, w in _terminals() if not w.isalnum()} - set("()[]{},:")
    return tuple(sorted(symbols, key=lambda s: (-len(s), s)))


def builtin_functions() -> tuple[str, ...]:
    """builtins.py's functions and the checker's aggregates (`sum(x for x in xs)`)."""
    return tuple(sorted(set(BUILTINS) | AGGREGATES))


def types() -> tuple[str, ...]:
    """The types every ruleset has: the base types and `Player` (things are the ruleset's own)."""
    return tuple(sorted([*BASE_TYPES, "Player"]))


def specials() -> tuple[str, ...]:
    """The names the language gives a meaning (`me`, `turn`, `world`), less the constants."""
    return tuple(sorted(RESERVED - set(CONSTANTS)))
