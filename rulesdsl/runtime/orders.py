"""Order lines as players write them -> OrderRec, or the reason they mean nothing to the game.

A line is read only as its order syntax declares it: ASCII letters in any case, ASCII digits, spaces and
tabs as spaces, by the syntaxes of runtime/syntax.py, in time linear in the line's length; a line that is too
long or holds a control character is refused before any syntax is tried.
"""

from __future__ import annotations

import re
import unicodedata
import weakref
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol

from rulesdsl.runtime.core import OrderRec, PlayerBase, Thing, fmt_money, money_setting
from rulesdsl.runtime.spec import OrderSpec, PolicySpec
from rulesdsl.runtime.syntax import (
    KEYWORD,
    SPACES,
    Syntax,
    argument_after_keyword,
    ascii_upper,
    header_syntax,
    keyword_of,
)
from rulesdsl.runtime.units import OWNER_SPAN

# The longest line of a submission that is read, as written (spaces included). Longer lines are refused:
# nobody writes an order that long, and it bounds what a line costs to read and to echo in a report.
MAX_LINE = 1000
# The most significant digits a number argument may have: money and counts fit easily, and Python's own
# limit on reading integers (4,300 digits) is never reached.
MAX_DIGITS = 18
SHOWN_LONG = 60  # how much of a line longer than MAX_LINE is echoed

_WHOLE = re.compile(r"[+-]?[0-9]+")
_AMOUNT = re.compile(r"([+-]?[0-9]+)(?:\.([0-9]+))?")
_WORD_END = re.compile(r"[, \t]")
# Between two items of a `spaced` list: a `+` with any spaces round it, or spaces alone.
_SPACED_ITEMS = re.compile(r"[ \t]*\+[ \t]*|[ \t]+")
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_C0_NAMES = ["NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF", "CR", "SO", "SI",
             "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US"]


class GameView(Protocol):
    """What reading an argument needs of the game: its players and the things keyed in capitals."""

    all_players: list[PlayerBase]
    lookup: dict[str, dict[str, Thing]]


_WRITTEN: weakref.WeakKeyDictionary[Any, tuple[list[PlayerBase], int, dict[str, PlayerBase]]] = \
    weakref.WeakKeyDictionary()


def players_written(g: GameView) -> dict[str, PlayerBase]:
    """Each player by account and by name in ASCII capitals, as a line may name one; where two players share
    a word, the first in order, as going through the players would find. Kept for the game while its list
    of players stays (accounts and names do not change while a game runs): reading an argument was a search
    of every player, quadratic in a big game."""
    kept = _WRITTEN.get(g)
    if kept is not None and kept[0] is g.all_players and kept[1] == len(g.all_players):
        return kept[2]
    table: dict[str, PlayerBase] = {}
    for p in g.all_players:
        table.setdefault(ascii_upper(p._key), p)
        table.setdefault(ascii_upper(p.name), p)
    _WRITTEN[g] = (g.all_players, len(g.all_players), table)
    return table


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
        self.patterns = [(o, Syntax(o.pattern)) for o in orders]
        # Each argument with its place among the syntax's placeholders, where a matched line has its text.
        self._places = {o.name: [(a, pat.names.index(a.name)) for a in o.args] for o, pat in self.patterns}
        self.by_keyword: dict[str, list[OrderSpec]] = {}
        for o in orders:
            self.by_keyword.setdefault(keyword_of(o.pattern), []).append(o)
        # Only a syntax whose keyword is the line's first word can match the line, so a line tries one or
        # two syntaxes, in the order declared. A syntax with an argument right after its keyword ("A{x}")
        # is tried on every line.
        anywhere = [i for i, o in enumerate(orders) if argument_after_keyword(o.pattern)]
        self._default = [self.patterns[i] for i in anywhere]
        self._tried = {word: [self.patterns[i] for i in sorted({*anywhere, *(orders.index(o) for o in specs)})]
                       for word, specs in self.by_keyword.items()}

    def _read_args(self, g: GameView, spec: OrderSpec, texts: tuple[str, ...], rec: OrderRec) -> str | None:
        """Reads each argument of a matched line into `rec`; the first argument's reason to refuse, or None."""
        for a, at in self._places[spec.name]:
            raw = texts[at].strip(SPACES)
            if a.type[0] == "digits":
                value, reason = read_digits(g, a, raw)
            elif a.spaced:
                value, reason = _read_list(g, a.type[1], raw, a.name, rec.player, spaced=True)
            else:
                value, reason = read_arg(g, a.type, raw, a.name, rec.player)
                if reason is None and (a.low is not None or a.high is not None):
                    reason = _check_range(g, a, value)
            if reason is not None:
                return reason
            rec.args[a.name] = value
        return None

    def read_as(self, g: GameView, player: PlayerBase, kind: str, text: str, line: int = 0) -> Parsed:
        """`text` read by the syntax of order `kind` alone: a standing order's line, read again each turn as
        the order it was given as, whatever syntax declared before it might now take the line."""
        spec, pat = next((o, p) for o, p in self.patterns if o.name == kind)
        stripped = text.strip(SPACES)
        fit = pat.fast.match(stripped)
        if fit is not None:
            texts = fit.groups()
        else:
            slow = pat.match_slowly(stripped)
            if slow is None:
                return Parsed(spec, None, f'not written as this order is: "{spec.pattern}"')
            texts = tuple(slow[name] for name in pat.names)
        rec = OrderRec(spec.name, player, stripped, line)
        reason = self._read_args(g, spec, texts, rec)
        return Parsed(spec, rec if reason is None else None, reason)

    def is_stop(self, text: str) -> bool:
        return any(spec.kind == "stop" and pat.match(text) is not None for spec, pat in self.patterns)

    def read(self, g: GameView, player: PlayerBase, text: str, line: int) -> Parsed:
        if len(text) > MAX_LINE or not text.isascii() or _ASCII_CONTROL.search(text):
            problem = line_problem(text)
            if problem is not None:
                return Parsed(None, None, problem)
        stripped = text.strip(SPACES)
        first = KEYWORD.match(stripped)  # as keyword_of reads a syntax's first word
        word = ascii_upper(first.group()) if first else ""
        best_reason: str | None = None
        best_spec: OrderSpec | None = None
        best_read = -1
        unrun: OrderSpec | None = None
        for spec, pat in self._tried.get(word, self._default):
            # The first fit inline, as it reads most lines; the texts it gives keep their spaces until read.
            fit = pat.fast.match(stripped)
            if fit is not None:
                texts = fit.groups()
            else:
                slow = pat.match_slowly(stripped)
                if slow is None:
                    continue
                texts = tuple(slow[name] for name in pat.names)
            if spec.name in self.unrun:
                unrun = unrun or spec
                continue
            rec = OrderRec(spec.name, player, stripped, line)
            reason = self._read_args(g, spec, texts, rec)
            if reason is None:
                return Parsed(spec, rec, None)
            # The syntax that read the most arguments before refusing is the one the player meant: with a
            # place's syntax before a unit's (Warlord's `M {place} ...`, `M {unit} ...`), `M 6 9` is told
            # that 9 is no route, not that 6 is no place. A tie keeps the syntax declared first.
            if len(rec.args) > best_read:
                best_reason, best_spec, best_read = reason, spec, len(rec.args)
        if best_reason is not None:
            return Parsed(best_spec, None, best_reason)
        if unrun is not None:
            return Parsed(unrun, None, "this order is not used in this game")
        candidates = self.by_keyword.get(ascii_upper(_WORD_END.split(stripped, maxsplit=1)[0]))
        if candidates:
            forms = " or ".join(f'"{o.pattern}"' for o in candidates)
            return Parsed(candidates[0], None, f"not written as this order is: {forms}")
        return Parsed(None, None, "not an order of this game")


def read_arg(g: GameView, ty: tuple[Any, ...], raw: str, name: str,
             player: PlayerBase | None = None) -> tuple[Any, str | None]:
    kind = ty[0]
    if kind == "list":
        return _read_list(g, ty[1], raw, name, player)
    if kind == "money" and len(ty) > 1:
        return read_amount(raw, name, ty[1])
    if kind in ("int", "money"):
        return read_whole(raw, name)
    if kind == "text":
        return raw, None
    if kind == "thing":
        thing = ty[1]
        key = ascii_upper(raw)
        if thing == "Player":
            player = players_written(g).get(key)
            return (player, None) if player is not None else (None, f"there is no player \"{raw}\"")
        grid = getattr(getattr(g, "spec", None), "grid", None)
        if grid is not None and grid.name == thing:
            return read_sector(g, raw)
        store = getattr(g, "units", {}).get(thing)
        if store is not None:
            return _read_numbered(store, raw, name, player)
        # The lookup's keys are in capitals as str.upper() makes them; the key must also be the same
        # in ASCII capitals, or "ß" would be read as a thing keyed "SS".
        obj = g.lookup[thing].get(key)
        if obj is None or (not obj._key.isascii() and ascii_upper(obj._key) != key):
            return None, f"\"{raw}\" is not a {thing.lower()} code"
        return obj, None
    return None, f"cannot read {name}"


def read_sector(g: Any, raw: str) -> tuple[Any, str | None]:
    """A sector as the grid's numbering writes it, exactly (`03454`; `3454` could be a unit's number, so it is
    no sector), or why not: how to write one, or that the map has no such sector."""
    names = g.sector_names
    pattern = names.pattern
    if len(raw) != len(pattern) or any(
            (ch not in "0123456789") if p in "CR" else ch != p for ch, p in zip(raw, pattern, strict=True)):
        first, second = ("column", "row") if pattern.index("C") < pattern.index("R") else ("row", "column")
        return None, (f"\"{raw}\" is not a sector: write it as {pattern}, {first} then {second} in "
                      f"{len(pattern)} characters, like {g.sectors[0]._key}")
    try:
        return g.sectors[names.parse(raw)], None
    except ValueError:
        grid = g.grid
        return None, f"there is no sector {raw}: the map is {grid.width} columns by {grid.height} rows"


def read_digits(g: GameView, a: Any, raw: str) -> tuple[list[int] | None, str | None]:
    """`digits A..B`: a run of ASCII digits, each one number from A to B (`0011` is [0, 0, 1, 1])."""
    # A parameter may set a bound past a single digit: the reason names only what a digit can be.
    lo = max(a.low(g) if a.low is not None else 0, 0)
    hi = min(a.high(g) if a.high is not None else 9, 9)
    if raw.isascii() and raw.isdigit():
        values = [ord(ch) - 48 for ch in raw]
        if lo <= min(values) and max(values) <= hi:
            return values, None
    shown_raw = raw if len(raw) <= SHOWN_LONG else raw[:SHOWN_LONG] + "..."
    return None, f'{a.name} must be digits from {lo} to {hi}, written together, not "{shown_raw}"'


def read_whole(raw: str, name: str) -> tuple[int | None, str | None]:
    """A whole number as a player writes it (ASCII digits, a sign), or why argument `name` refuses `raw`."""
    if not _WHOLE.fullmatch(raw):
        return None, f"{name} must be a whole number, not \"{raw}\""
    digits = raw.lstrip("+-").lstrip("0")
    if len(digits) > MAX_DIGITS:
        return None, f"{name} is too large a number"
    # Leading zeros are dropped first: int() refuses more than 4,300 digits, zeros included.
    return (-int(digits or "0") if raw[0] == "-" else int(digits or "0")), None


def read_amount(raw: str, name: str, places: int) -> tuple[Any, str | None]:
    """An amount as a player writes it under the header's `money "0.1"` (`12`, `12.5`, `-0.5`), or why not."""
    fit = _AMOUNT.fullmatch(raw)
    if fit is None:
        example = "12." + "5".rjust(places, "0")
        shown_raw = raw if len(raw) <= SHOWN_LONG else raw[:SHOWN_LONG] + "..."
        return None, f"{name} must be an amount, like {example}, not \"{shown_raw}\""
    whole, part = fit.group(1), fit.group(2) or ""
    if len(part) > places:
        return None, (f"{name} has more places than the game's money, which counts to "
                      f"{money_setting(places)}: \"{raw}\"")
    number, reason = read_whole(whole, name)
    if number is None:
        return None, reason
    f = Fraction(int(part.ljust(places, "0")), 10 ** places) if part else Fraction(0)
    value = (abs(number) + f) * (-1 if whole.startswith("-") else 1)
    return (value.numerator if value.denominator == 1 else value), None


def _read_numbered(store: Any, raw: str, name: str, player: PlayerBase | None) -> tuple[Any, str | None]:
    """The number of an instance of a numbered thing, as written: looked up only when the order is carried
    out (Game.resolve), so that an order may name an instance an earlier phase of the same turn makes. Only a
    number no instance can ever have is refused here."""
    number, reason = read_whole(raw, name)
    if number is None:
        return None, reason
    if not 1 <= number < OWNER_SPAN:
        return None, f"{name} must be the number of a {store.name.lower()}, counted from 1, not {number}"
    return number, None


def _read_list(g: GameView, item: tuple[Any, ...], raw: str, name: str,
               player: PlayerBase | None = None, spaced: bool = False) -> tuple[Any, str | None]:
    """Items joined by `+` (or, `spaced`, by `+` or runs of spaces), each read as one argument; duplicates and
    the order written are kept."""
    values = []
    parts = _SPACED_ITEMS.split(raw.strip(SPACES)) if spaced else raw.split("+")
    for part in parts:
        text = part.strip(SPACES)
        if not text:
            return None, f'{name} has an empty item in "{raw}": join the items with "+", like "A+B"'
        value, reason = read_arg(g, item, text, name, player)
        if reason is not None:
            return None, reason
        values.append(value)
    return values, None


def _check_range(g: GameView, a: Any, value: int) -> str | None:
    lo = a.low(g) if a.low is not None else None
    hi = a.high(g) if a.high is not None else None
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        places = a.type[1] if a.type[0] == "money" and len(a.type) > 1 else None
        lo_text, hi_text = (b if places is None or b is None else fmt_money(b, places) for b in (lo, hi))
        if lo is not None and value < lo:
            return f"{a.name} must be at least {lo_text}" + (f" and at most {hi_text}" if hi is not None else "")
        return f"{a.name} must be at most {hi_text}" + (f" and at least {lo_text}" if lo is not None else "")
    return None


def header_patterns(policy: PolicySpec) -> list[Syntax]:
    """The header lines' readers: like order syntaxes, but a placeholder holds no spaces."""
    return [header_syntax(line) for line in policy.header]
