"""An order syntax or header line as the ruleset writes it (`A,{country},{units}`) -> its pieces, a reader
of the lines written that way, and whether one syntax reads every line another reads.

The one home of the syntax rules: the checker asks it which placeholders a syntax has and which order
shadows another; the engine reads mail with it. It imports nothing of the checker or of Lark, since the
engine and generated modules import it.

The rules: a `{name}` is a placeholder (an argument, or a header's game, account or code); between
placeholders stand words and separators. A separator is a run of spaces, tabs and commas: a comma may
have spaces round it, a space is one or more spaces. Words are read in ASCII capitals or small letters
alike, and only ASCII: a dotless i is not `i`. Spaces around the whole syntax are those a line may have round it.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from typing import Any, Literal, Protocol

# Everything between braces is a placeholder, so that the checker can name a misspelt one (`{1x}`, `{}`);
# a checked syntax holds only argument names and header names there.
PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
SPACES = " \t"  # the only characters read as spaces
_PIECE = re.compile(r"[ \t,]+|[^ \t,]+")
KEYWORD = re.compile(r"[^, \t{]+")  # a syntax's keyword, and a line's first word
_SPACE_RUN = re.compile(r"[ \t]*")

_ASCII_UPPER = str.maketrans(string.ascii_lowercase, string.ascii_uppercase)
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def ascii_lower(text: str) -> str:
    return text.lower() if text.isascii() else text.translate(_ASCII_LOWER)


def ascii_upper(text: str) -> str:
    """`text` with a-z in capitals and nothing else changed: str.upper() turns a dotless i (U+0131) into
    "I", this keeps it."""
    return text.upper() if text.isascii() else text.translate(_ASCII_UPPER)


# ---------------------------------------------------------------- pieces


@dataclass(frozen=True)
class Piece:
    kind: Literal["sep", "word", "slot"]
    text: str  # a separator or a word as written; a placeholder's name


def placeholders(pattern: str) -> list[str]:
    """The names between braces, in the order written, repeats included."""
    return PLACEHOLDER.findall(pattern)


def split(pattern: str) -> list[Piece]:
    """`GO {a} TO {b}, {c}` -> word GO, sep, slot a, sep, word TO, sep, slot b, sep `, `, slot c."""
    out: list[Piece] = []
    pos = 0
    for m in PLACEHOLDER.finditer(pattern):
        out += _literal_pieces(pattern[pos:m.start()])
        out.append(Piece("slot", m.group(1)))
        pos = m.end()
    return out + _literal_pieces(pattern[pos:])


def _literal_pieces(text: str) -> list[Piece]:
    return [Piece("sep" if p[0] in " \t," else "word", p) for p in _PIECE.findall(text)]


def _between_slots(pieces: list[Piece]) -> list[str]:
    """The literal text before the first placeholder, between each two, and after the last ("" if none)."""
    out = [""]
    for p in pieces:
        if p.kind == "slot":
            out.append("")
        else:
            out[-1] += p.text
    return out


def keyword_of(pattern: str) -> str:
    """The leading word of an order's syntax: `A` of `A,{country}`; says which order a line meant."""
    m = KEYWORD.match(pattern)
    return ascii_upper(m.group(0)) if m else ""


def starts_with_keyword(pattern: str) -> bool:
    """An order's syntax starts with a word (`A,{country}`): what tells the reader which order a line is."""
    return re.match(r"[^{}\s]", pattern) is not None


def touching_placeholders(pattern: str) -> list[int]:
    """Where two placeholders touch (`{a}{b}`), by the offset of the `}{`: nothing could tell where the
    first argument ends."""
    return [i for i in range(len(pattern) - 1) if pattern[i:i + 2] == "}{"]


def argument_after_keyword(pattern: str) -> bool:
    """True when a line's first word need not be the syntax's keyword: `A{x}` reads `Abc`."""
    m = KEYWORD.match(pattern)
    return m is None or pattern[m.end():m.end() + 1] == "{"


# ---------------------------------------------------------------- reading a line

class _Literal:
    """The words and separators between two arguments of a syntax, as regexes that cannot backtrack far.

    A comma may have spaces round it and a space is one or more spaces, so a literal is: spaces (at
    least `lead`), a core that starts and ends with a non-space (its inner spaces are all taken, as the
    next character is not a space), then spaces (at least `trail`). A literal of spaces only has the
    core "exactly k spaces" and takes any further spaces after it. `lead`/`trail` None: no spaces there.
    """

    def __init__(self, text: str, first: bool = False) -> None:
        items: list[tuple[str, Any]] = []  # ("s", least spaces) or ("w", characters)

        def add(kind: str, value: Any) -> None:
            if items and items[-1][0] == kind:
                items[-1] = (kind, items[-1][1] + value)
            else:
                items.append((kind, value))

        for ch in text:
            if ch == ",":
                add("s", 0)
                add("w", ",")
                add("s", 0)
            elif ch in SPACES:
                add("s", 1)
            else:
                add("w", ch)
        self.empty = not items
        self.lead: int | None = None
        self.trail: int | None = None
        if items and not any(kind == "w" for kind, _ in items):
            core = f"[ \\t]{{{items[0][1]}}}"
            self.trail = 0
        else:
            if items and items[0][0] == "s":
                spaces = items.pop(0)[1]
                self.lead = None if first else spaces  # a line has no spaces left at its start
            if items and items[-1][0] == "s":
                self.trail = items.pop()[1]
            core = "".join(re.escape(v) if kind == "w" else f"[ \\t]{{{v},}}+" for kind, v in items)
        self.core = core
        body = (f"(?<=[ \\t]{{{self.lead}}})" if self.lead else "") + f"(?:{core})"
        body += f"[ \\t]{{{self.trail}}}" if self.trail else ""
        flags = re.IGNORECASE | re.ASCII
        self.at = re.compile(body, flags)  # search: the leftmost occurrence; match: one at a given place
        self.at_end = re.compile(body + r"\Z", flags)
        # `.*` backtracks from the end one character at a time: the rightmost occurrence, in linear time.
        self.last = re.compile(f"(?s:.*)({body})", flags)
        self.last_at_end = re.compile(f"(?s:.*)({body})\\Z", flags)

    def end_after(self, line: str, end: int, limit: int) -> int:
        """Where the next argument starts: the literal takes as many of the spaces after it as it may."""
        if self.trail is None:
            return end
        return min(_SPACE_RUN.match(line, end).end(), limit)  # type: ignore[union-attr]


def _spaces_after(lit: _Literal, last: bool) -> str:
    """A literal takes all the spaces after it it may: the regex for them, or for none."""
    return "" if lit.trail is None or last else f"[ \\t]{{{lit.trail},}}+"


class Syntax:
    """An order syntax (`A,{country},{units}`) or header line (`CO-{game}`) -> the arguments of a line.

    Reads a line as the regex `^\\s*A\\s*,\\s*(?P<country>.+?)\\s*,\\s*(?P<units>.+?)\\s*$` would (ASCII
    case and spaces only): each argument takes the shortest text that lets the rest of the line match.
    That regex backtracks cubically. Here most lines are read by one first-fit regex (`_first_fit`);
    the others by two passes: one from the right finds for each literal the rightmost place it may start
    and still let the rest match (so an argument may run up to just before it), one from the left takes
    for each argument the leftmost place its literal may follow. Each step is one regex that cannot
    backtrack more than a literal's length, so the time is linear in the line. A header placeholder
    holds no spaces (`spaced` False), as `\\S+?` would.
    """

    def __init__(self, pattern: str, spaced: bool = True) -> None:
        # Spaces around the whole syntax are the spaces a line may have around it.
        text = pattern.strip(SPACES)
        self.pattern = pattern
        self.spaced = spaced  # an argument may hold spaces (orders); a header placeholder may not
        self.pieces = split(text)
        self.names = [p.text for p in self.pieces if p.kind == "slot"]
        self.literals = [_Literal(t, first=i == 0) for i, t in enumerate(_between_slots(self.pieces))]
        self.fast = self._first_fit()

    def _first_fit(self) -> re.Pattern[str]:
        """One regex that gives each argument the text up to the first place its literal follows, and
        never reconsiders (each argument with its literal is an atomic group): linear, and when it
        matches, its reading is the shortest-first one, as no argument could have been shorter. When it
        does not match, `match` asks the two passes, which also see a longer first fit."""
        lits = self.literals
        first = lits[0]
        parts = ["" if first.empty else f"(?:{first.core})" + _spaces_after(first, last=not self.names)]
        if not self.names:
            parts.append("\\Z")
        for i in range(1, len(self.names) + 1):
            lit, last = lits[i], i == len(self.names)
            lead = lit.lead or 0
            if self.spaced:  # the spaces before the literal are the argument's: they are dropped with it
                arg = f"(.{{{lead + 1},}}?)" + (f"(?<=[ \\t]{{{lead}}})" if lead else "")
            else:
                arg = "([^ \\t]+?)" + (f"[ \\t]{{{lead},}}+" if lit.lead is not None else "")
            body = "" if lit.empty else f"(?:{lit.core})" + _spaces_after(lit, last)
            parts.append(f"{arg}{body}\\Z" if last else f"(?>{arg}{body})")
        return re.compile("".join(parts), re.IGNORECASE | re.ASCII | re.DOTALL)

    def match(self, line: str) -> dict[str, str] | None:
        """The arguments (spaces around each dropped), or None when the line is not written this way."""
        return self.match_stripped(line.strip(SPACES))

    def match_stripped(self, t: str) -> dict[str, str] | None:
        """`match` for a line without spaces around it."""
        fit = self.fast.match(t)
        if fit is not None:
            return {k: v.strip(SPACES) for k, v in zip(self.names, fit.groups(), strict=True)}
        return self.match_slowly(t)

    def match_slowly(self, t: str) -> dict[str, str] | None:
        """`match` for a line (without spaces around it) that the first fit did not read."""
        if not self.spaced and len(self.names) > 1:
            return _match_unspaced(self.pieces, t)
        n = len(t)
        lits = self.literals
        k = len(self.names)
        first = lits[0]
        if k == 0:
            return {} if first.at.fullmatch(t) else None
        if not first.empty and first.at.match(t) is None:
            return None  # the keyword: most syntaxes stop here
        # From the right: starts[i] is the rightmost place literal i may start (its argument ends there).
        starts = [0] * (k + 1)
        last = lits[k]
        if last.empty:
            starts[k] = n
        else:
            m = last.last_at_end.match(t)
            if m is None:
                return None
            starts[k] = m.start(1) - (last.lead or 0)
        for i in range(k - 1, 0, -1):
            lit, limit = lits[i], starts[i + 1] - 1  # the argument after it holds one character at least
            if lit.empty:
                starts[i] = limit
                continue
            m = lit.last.match(t, 0, limit) if limit >= 0 else None
            if m is None:
                return None
            starts[i] = m.start(1) - (lit.lead or 0)
        # From the left: each argument ends at the leftmost place its literal may start.
        if first.empty:
            pos = 0
            if starts[1] < 1:
                return None  # the first argument holds one character at least
        else:
            m = first.at.match(t, 0, starts[1] - 1) if starts[1] >= 1 else None
            if m is None:
                return None
            pos = first.end_after(t, m.end(), starts[1] - 1)
        out: dict[str, str] = {}
        for i, name in enumerate(self.names, 1):
            lit = lits[i]
            lead = lit.lead or 0
            if lit.empty and i < k:
                end = nxt = pos + 1
            elif lit.empty:
                end = nxt = n
            else:
                found = (lit.at if i < k else lit.at_end).search(t, pos + 1 + lead, starts[i + 1] - 1 if i < k else n)
                if found is None:
                    return None  # cannot happen: the pass from the right found a place
                end = found.start() - lead
                nxt = lit.end_after(t, found.end(), starts[i + 1] - 1) if i < k else n
            value = t[pos:end]
            if not self.spaced:
                # The argument's own text: spaces before a literal that starts with spaces are the literal's.
                if lit.lead is not None:
                    value = value.rstrip(SPACES)
                if not value or " " in value or "\t" in value:
                    return None
            out[name] = value.strip(SPACES)
            pos = nxt
        return out


def _match_unspaced(pieces: list[Piece], line: str) -> dict[str, str] | None:
    """A header line with two placeholders or more, each without spaces: the first fit an argument's text
    may need to be longer so that a later one holds no space, which the passes of `Syntax` do not see.
    Read as a table of (place in the syntax, place in the line) that may still match, in time linear in
    the line (times the syntax's length); header lines are short, and longer ones are refused first."""
    # ("*", ""): spaces or none; ("+", ""): one space or more; ("slot", name); ("ch", a small letter)
    tokens: list[tuple[str, str]] = []
    for piece in pieces:
        if piece.kind == "slot":
            tokens.append(("slot", piece.text))
            continue
        for ch in piece.text:
            tokens += [("*", ""), ("ch", ","), ("*", "")] if ch == "," else [("+", "")] if ch in SPACES \
                else [("ch", ascii_lower(ch))]
    t = line.strip(SPACES)
    low = ascii_lower(t)
    n = len(t)
    space = [ch in SPACES for ch in t] + [False]
    # ok[j][p]: tokens j... match t[p:] to its end.
    ok = [[False] * (n + 1) for _ in range(len(tokens) + 1)]
    ok[len(tokens)][n] = True
    for j in range(len(tokens) - 1, -1, -1):
        (kind, tok), nxt, row = tokens[j], ok[j + 1], ok[j]
        if kind in ("*", "+"):
            star = [False] * (n + 1)
            star[n] = nxt[n]
            for p in range(n - 1, -1, -1):
                star[p] = nxt[p] or (space[p] and star[p + 1])
            ok[j] = star if kind == "*" else [space[p] and star[p + 1] for p in range(n)] + [False]
        elif kind == "slot":
            more = False
            for p in range(n - 1, -1, -1):
                more = not space[p] and (nxt[p + 1] or more)
                row[p] = more
        else:
            for p in range(n):
                row[p] = low[p] == tok and nxt[p + 1]
    if not ok[0][0]:
        return None
    out: dict[str, str] = {}
    p = 0
    for j, (kind, tok) in enumerate(tokens):
        nxt = ok[j + 1]
        if kind in ("*", "+"):
            q = p
            while q < n and space[q]:
                q += 1
            while not nxt[q]:  # the most spaces that let the rest match
                q -= 1
            p = q
        elif kind == "slot":
            q = p + 1
            while not nxt[q]:  # the shortest text that lets the rest match
                q += 1
            out[tok] = t[p:q]
            p = q
        else:
            p += 1
    return out


def compile_pattern(pattern: str) -> Syntax:
    """`A,{country},{units}` -> its reader: commas may have spaces round them, a space is any run of spaces."""
    return Syntax(pattern)


def header_syntax(line: str) -> Syntax:
    """A header line's reader (`CO-{game}`): like an order syntax, but a placeholder holds no spaces."""
    return Syntax(line, spaced=False)


# ---------------------------------------------------------------- one syntax shadowing another


class Arguments(Protocol):
    """What the shadowing relation asks about the arguments of two syntaxes: their types are the checker's."""

    def takes(self, a: str, b: str) -> bool:
        """Whether the first syntax's argument `a` reads every value the second's argument `b` reads."""
        ...

    def reads(self, a: str, word: str) -> bool:
        """Whether `word`, written where the first syntax has argument `a`, reads as a value of `a`."""
        ...

    def one_word(self, b: str) -> bool:
        """Whether every value of the second syntax's argument `b` is written without a space or a comma."""
        ...


def shadows(a: str, b: str, args: Arguments) -> bool:
    """Whether syntax `a`, tried first, reads every line that syntax `b` reads (so that no line reaches `b`).

    Only what can be proved: either the two split every line alike (the same syntax up to argument names)
    and each argument of `a` takes every value of `b`'s; or `a` has arguments where `b` has words, or
    separators that take more (`,` takes `, `), and then each argument of `a` stands between separators,
    every argument of `b` but the last is one word, and each of `b`'s words reads as `a`'s argument.
    """
    ta, tb = split(a.strip(SPACES)), split(b.strip(SPACES))
    if len(ta) != len(tb):
        return False
    same_shape = all(x.kind == y.kind and (x.kind != "sep" or x.text == y.text) for x, y in zip(ta, tb, strict=True))
    last = len(tb) - 1
    for i, (x, y) in enumerate(zip(ta, tb, strict=True)):
        if x.kind == "sep":
            if y.kind != "sep" or not _sep_takes(x.text, y.text):
                return False
        elif x.kind == "word":
            if y.kind != "word" or ascii_upper(x.text) != ascii_upper(y.text):
                return False
        elif not same_shape and not _bounded(ta, i):
            return False
        elif y.kind == "slot":
            if not args.takes(x.text, y.text):
                return False
            if not same_shape and i != last and not args.one_word(y.text):
                return False
        elif y.kind != "word" or not args.reads(x.text, y.text):
            return False
    return True


def _sep_takes(a: str, b: str) -> bool:
    """Whether separator `a` matches all that `b` does: a comma may have spaces around it, a space is one or
    more, so `,` takes `, ` (but not the other way round) and ` ` takes `  `."""
    spaces_a, spaces_b = [len(s) for s in a.split(",")], [len(s) for s in b.split(",")]
    return len(spaces_a) == len(spaces_b) and all(x <= y for x, y in zip(spaces_a, spaces_b, strict=True))


def _bounded(pieces: list[Piece], i: int) -> bool:
    """An argument with separators on both sides (or the end of the line after it) takes whole words."""
    before = i > 0 and pieces[i - 1].kind == "sep"
    after = i == len(pieces) - 1 or pieces[i + 1].kind == "sep"
    return before and after
