"""Order lines as players write them -> OrderRec, or the reason they mean nothing to the game.

A line is read only as its order syntax declares it: ASCII letters in any case, ASCII digits, spaces and
tabs as spaces. Matching takes time linear in the line's length (see `Syntax`), and a line that is too
long or holds a control character is refused before any syntax is tried.
"""

from __future__ import annotations

import re
import string
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rulesdsl.runtime.core import OrderRec, PlayerBase
from rulesdsl.runtime.spec import OrderSpec, PolicySpec

if TYPE_CHECKING:
    from rulesdsl.runtime.engine import Game

SLOT = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")

# The longest line of a submission that is read, as written (spaces included). Longer lines are refused:
# nobody writes an order that long, and it bounds what a line costs to read and to echo in a report.
MAX_LINE = 1000
# The most significant digits a number argument may have: money and counts fit easily, and Python's own
# limit on reading integers (4,300 digits) is never reached.
MAX_DIGITS = 18
SPACES = " \t"  # the only characters read as spaces
SHOWN_LONG = 60  # how much of a line longer than MAX_LINE is echoed

_ASCII_UPPER = str.maketrans(string.ascii_lowercase, string.ascii_uppercase)
_WHOLE = re.compile(r"[+-]?[0-9]+")
_SPACE_RUN = re.compile(r"[ \t]*")
_KEYWORD = re.compile(r"[^, \t{]+")  # a syntax's keyword, and a line's first word
_WORD_END = re.compile(r"[, \t]")
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_C0_NAMES = ["NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF", "CR", "SO", "SI",
             "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US"]


_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def ascii_lower(text: str) -> str:
    return text.lower() if text.isascii() else text.translate(_ASCII_LOWER)


def ascii_upper(text: str) -> str:
    """`text` with a-z in capitals and nothing else changed: str.upper() turns a dotless i (U+0131) into
    "I", this keeps it."""
    return text.upper() if text.isascii() else text.translate(_ASCII_UPPER)


def is_control(ch: str) -> bool:
    """Unicode category C (control, format, surrogate, private use, unassigned) or a line or paragraph
    separator; a tab is a space."""
    return ch != "\t" and (unicodedata.category(ch)[0] == "C" or ch in "\u2028\u2029")


def _first_control(text: str) -> str | None:
    if text.isascii():
        m = _ASCII_CONTROL.search(text)
        return m.group() if m else None
    return next((ch for ch in text if is_control(ch)), None)


def control_name(ch: str) -> str:
    """`ESC, U+001B`, `RIGHT-TO-LEFT OVERRIDE, U+202E`, or `U+0085` for a character without a name."""
    code = ord(ch)
    name = _C0_NAMES[code] if code < 32 else "DEL" if code == 0x7F else unicodedata.name(ch, "")
    return f"{name}, U+{code:04X}" if name else f"U+{code:04X}"


def line_problem(text: str) -> str | None:
    """Why a line, as written, is refused before any order syntax is tried; None when it may be read."""
    if len(text) > MAX_LINE:
        return f"the line is longer than {MAX_LINE} characters ({len(text)} characters)"
    ch = _first_control(text)
    if ch is not None:
        return f"the line holds a control character ({control_name(ch)})"
    if "\ufffd" in text:
        return "the line holds bytes that are not UTF-8 text"
    return None


def shown(text: str) -> str:
    """`text` as it may be echoed to a player or the GM: each control character written as `<U+001B>`,
    and a text longer than MAX_LINE cut short."""
    cut = "..." if len(text) > MAX_LINE else ""  # the reason says how long it is
    if cut:
        text = text[:SHOWN_LONG]
    if _first_control(text) is not None:
        text = "".join(f"<U+{ord(ch):04X}>" if is_control(ch) else ch for ch in text)
    return text + cut


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
        self.names = SLOT.findall(text)
        self.literals = [_Literal(t, first=i == 0) for i, t in enumerate(SLOT.split(text)[::2])]
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
        for i, name in enumerate(self.names, 1):
            lit, last = lits[i], i == len(self.names)
            lead = lit.lead or 0
            if self.spaced:  # the spaces before the literal are the argument's: they are dropped with it
                arg = f"(?P<{name}>.{{{lead + 1},}}?)" + (f"(?<=[ \\t]{{{lead}}})" if lead else "")
            else:
                arg = f"(?P<{name}>[^ \\t]+?)" + (f"[ \\t]{{{lead},}}+" if lit.lead is not None else "")
            body = "" if lit.empty else f"(?:{lit.core})" + _spaces_after(lit, last)
            parts.append(f"{arg}{body}\\Z" if last else f"(?>{arg}{body})")
        return re.compile("".join(parts), re.IGNORECASE | re.ASCII | re.DOTALL)

    def match(self, line: str) -> dict[str, str] | None:
        """The arguments (spaces around each dropped), or None when the line is not written this way."""
        t = line.strip(SPACES)
        fit = self.fast.match(t)
        if fit is not None:
            return {k: v.strip(SPACES) for k, v in fit.groupdict().items()}
        return self.match_slowly(t)

    def match_slowly(self, t: str) -> dict[str, str] | None:
        """`match` for a line (without spaces around it) that the first fit did not read."""
        if not self.spaced and len(self.names) > 1:
            return _match_unspaced(self.pattern, t)
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


def _match_unspaced(pattern: str, line: str) -> dict[str, str] | None:
    """A header line with two placeholders or more, each without spaces: the first fit an argument's text
    may need to be longer so that a later one holds no space, which the passes of `Syntax` do not see.
    Read as a table of (place in the syntax, place in the line) that may still match, in time linear in
    the line (times the syntax's length); header lines are short, and longer ones are refused first."""
    tokens: list[str] = []  # "*": spaces or none; "+": one space or more; "{name}": an argument; a letter
    text = pattern.strip(SPACES)
    for piece in re.split(r"(\{[A-Za-z_][A-Za-z0-9_]*\})", text):
        if SLOT.fullmatch(piece):
            tokens.append(piece)
            continue
        for ch in piece:
            tokens += ["*", ",", "*"] if ch == "," else ["+"] if ch in SPACES else [ascii_lower(ch)]
    t = line.strip(SPACES)
    low = ascii_lower(t)
    n = len(t)
    space = [ch in SPACES for ch in t] + [False]
    # ok[j][p]: tokens j... match t[p:] to its end.
    ok = [[False] * (n + 1) for _ in range(len(tokens) + 1)]
    ok[len(tokens)][n] = True
    for j in range(len(tokens) - 1, -1, -1):
        tok, nxt, row = tokens[j], ok[j + 1], ok[j]
        if tok in ("*", "+"):
            star = [False] * (n + 1)
            star[n] = nxt[n]
            for p in range(n - 1, -1, -1):
                star[p] = nxt[p] or (space[p] and star[p + 1])
            ok[j] = star if tok == "*" else [space[p] and star[p + 1] for p in range(n)] + [False]
        elif tok.startswith("{"):
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
    for j, tok in enumerate(tokens):
        nxt = ok[j + 1]
        if tok in ("*", "+"):
            q = p
            while q < n and space[q]:
                q += 1
            while not nxt[q]:  # the most spaces that let the rest match
                q -= 1
            p = q
        elif tok.startswith("{"):
            q = p + 1
            while not nxt[q]:  # the shortest text that lets the rest match
                q += 1
            out[tok[1:-1]] = t[p:q]
            p = q
        else:
            p += 1
    return out


def compile_pattern(pattern: str) -> Syntax:
    """`A,{country},{units}` -> its reader: commas may have spaces round them, a space is any run of spaces."""
    return Syntax(pattern)


def keyword_of(pattern: str) -> str:
    """The leading word of an order's syntax: `A` of `A,{country}`; says which order a line meant."""
    m = _KEYWORD.match(pattern)
    return ascii_upper(m.group(0)) if m else ""


def _argument_after_keyword(pattern: str) -> bool:
    """True when a line's first word need not be the syntax's keyword: `A{x}` reads `Abc`."""
    m = _KEYWORD.match(pattern)
    return m is None or pattern[m.end():m.end() + 1] == "{"


@dataclass
class Parsed:
    spec: OrderSpec | None
    rec: OrderRec | None
    reason: str | None


class OrderReader:
    """Matches lines against the ruleset's order syntaxes and reads their arguments."""

    def __init__(self, orders: tuple[OrderSpec, ...], unrun: frozenset[str] = frozenset()) -> None:
        self.orders = orders
        self.unrun = unrun  # orders no phase runs: they take no line from another order, and refuse their own
        self.patterns = [(o, compile_pattern(o.pattern)) for o in orders]
        self.by_keyword: dict[str, list[OrderSpec]] = {}
        for o in orders:
            self.by_keyword.setdefault(keyword_of(o.pattern), []).append(o)
        # Only a syntax whose keyword is the line's first word can match the line, so a line tries one or
        # two syntaxes, in the order declared. A syntax with an argument right after its keyword ("A{x}")
        # is tried on every line.
        anywhere = [i for i, o in enumerate(orders) if _argument_after_keyword(o.pattern)]
        self._default = [self.patterns[i] for i in anywhere]
        self._tried = {word: [self.patterns[i] for i in sorted({*anywhere, *(orders.index(o) for o in specs)})]
                       for word, specs in self.by_keyword.items()}

    def is_stop(self, text: str) -> bool:
        return any(spec.kind == "stop" and pat.match(text) is not None for spec, pat in self.patterns)

    def read(self, g: Game, player: PlayerBase, text: str, line: int) -> Parsed:
        if len(text) > MAX_LINE or not text.isascii() or _ASCII_CONTROL.search(text):
            problem = line_problem(text)
            if problem is not None:
                return Parsed(None, None, problem)
        stripped = text.strip(SPACES)
        first = _KEYWORD.match(stripped)
        word = ascii_upper(first.group()) if first else ""
        best_reason: str | None = None
        best_spec: OrderSpec | None = None
        unrun: OrderSpec | None = None
        for spec, pat in self._tried.get(word, self._default):
            # The first fit, as a regex match, for speed; the slow reading only for lines it did not read.
            m: re.Match[str] | dict[str, str] | None = pat.fast.match(stripped) or pat.match_slowly(stripped)
            if m is None:
                continue
            if spec.name in self.unrun:
                unrun = unrun or spec
                continue
            rec = OrderRec(spec.name, player, stripped, line)
            reason = None
            for a in spec.args:
                value, reason = read_arg(g, a.type, m[a.name].strip(SPACES), a.name)
                if reason is None and (a.low is not None or a.high is not None):
                    reason = _check_range(g, a, value)
                if reason is not None:
                    break
                rec.args[a.name] = value
            if reason is None:
                return Parsed(spec, rec, None)
            if best_reason is None:
                best_reason, best_spec = reason, spec
        if best_reason is not None:
            return Parsed(best_spec, None, best_reason)
        if unrun is not None:
            return Parsed(unrun, None, "this order is not used in this game")
        candidates = self.by_keyword.get(ascii_upper(_WORD_END.split(stripped, maxsplit=1)[0]))
        if candidates:
            forms = " or ".join(f'"{o.pattern}"' for o in candidates)
            return Parsed(candidates[0], None, f"not written as this order is: {forms}")
        return Parsed(None, None, "not an order of this game")


def read_arg(g: Game, ty: tuple[Any, ...], raw: str, name: str) -> tuple[Any, str | None]:
    kind = ty[0]
    if kind == "list":
        return _read_list(g, ty[1], raw, name)
    if kind in ("int", "money"):
        if not _WHOLE.fullmatch(raw):
            return None, f"{name} must be a whole number, not \"{raw}\""
        digits = raw.lstrip("+-").lstrip("0")
        if len(digits) > MAX_DIGITS:
            return None, f"{name} is too large a number"
        # Leading zeros are dropped first: int() refuses more than 4,300 digits, zeros included.
        return (-int(digits or "0") if raw[0] == "-" else int(digits or "0")), None
    if kind == "text":
        return raw, None
    if kind == "thing":
        thing = ty[1]
        key = ascii_upper(raw)
        if thing == "Player":
            for p in g.all_players:
                if ascii_upper(p._key) == key or ascii_upper(p.name) == key:
                    return p, None
            return None, f"there is no player \"{raw}\""
        # The lookup's keys are in capitals as str.upper() makes them; the key must also be the same
        # in ASCII capitals, or "ß" would be read as a thing keyed "SS".
        obj = g.lookup[thing].get(key)
        if obj is None or (not obj._key.isascii() and ascii_upper(obj._key) != key):
            return None, f"\"{raw}\" is not a {thing.lower()} code"
        return obj, None
    return None, f"cannot read {name}"


def _read_list(g: Game, item: tuple[Any, ...], raw: str, name: str) -> tuple[Any, str | None]:
    """Items joined by `+`, each read as one argument; duplicates and the order written are kept."""
    values = []
    for part in raw.split("+"):
        text = part.strip(SPACES)
        if not text:
            return None, f'{name} has an empty item in "{raw}": join the items with "+", like "A+B"'
        value, reason = read_arg(g, item, text, name)
        if reason is not None:
            return None, reason
        values.append(value)
    return values, None


def _check_range(g: Game, a: Any, value: int) -> str | None:
    lo = a.low(g) if a.low is not None else None
    hi = a.high(g) if a.high is not None else None
    if lo is not None and value < lo:
        return f"{a.name} must be at least {lo}" + (f" and at most {hi}" if hi is not None else "")
    if hi is not None and value > hi:
        return f"{a.name} must be at most {hi}" + (f" and at least {lo}" if lo is not None else "")
    return None


def header_patterns(policy: PolicySpec) -> list[Syntax]:
    """The header lines' readers: like order syntaxes, but a placeholder holds no spaces."""
    return [Syntax(line, spaced=False) for line in policy.header]
