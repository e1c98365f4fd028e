"""Values and helpers that generated modules call: things, per-key values, aggregates, tables, text."""

from __future__ import annotations

import bisect
import functools
import hashlib
import itertools
import math
import operator
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from rulesdsl.runtime.forced import ForcedStream, weighted_row


class Thing:
    """Base of every generated thing class (and of Player): a key and a declaration order."""

    __slots__ = ("_key", "_ord")
    TYPE = "Thing"

    def __init__(self, key: str, ordinal: int) -> None:
        self._key = key
        self._ord = ordinal

    def __repr__(self) -> str:
        return f"<{self.TYPE} {self._key}>"


class Numbered(Thing):
    """Base of a generated numbered thing: its number, whether it is still in the game, and its indexes."""

    __slots__ = ("_ix", "_live", "number")

    def __init__(self, key: str, ordinal: int, number: int) -> None:
        super().__init__(key, ordinal)
        self.number = number
        self._live = True
        self._ix: dict[str, dict[Any, dict[Any, None]]] | None = None


class PlayerBase(Thing):
    """Base of the generated Player class: the built-in fields every game has."""

    __slots__ = ("_active", "account", "code", "email", "name")
    TYPE = "Player"
    # How many times a player's `active` has changed in this process. Generated code sets `p.active` itself,
    # so this is how Game.players() knows that its list of the active players still holds.
    active_changes = 0

    def __init__(self, key: str, ordinal: int) -> None:
        super().__init__(key, ordinal)
        self.name = ""
        self.account = key
        self.code = ""
        self.email = ""
        self._active = True

    @property
    def active(self) -> bool:
        return self._active

    @active.setter
    def active(self, value: bool) -> None:
        if value != self._active:
            PlayerBase.active_changes += 1
        self._active = value


class WorldBase:
    """Base of the generated World class: the fields of `world { ... }`, one object per game."""

    __slots__ = ()
    TYPE = "World"

    def __repr__(self) -> str:
        return "<World>"


class OrderFailed(Exception):
    """Raised by `fail "..."` in an order's effect: the order fails with that reason."""


class Halt(Exception):
    """Raised by `halt "..."` in a phase or a procedure: the rules refuse to go on. The game is not made, or
    the turn not processed; the reason is for the GM (engine.locate words it as `halted: REASON`)."""


class RulesError(Exception):
    """A failure inside a generated module, pointed at the `.rules` line it came from, the rule that holds
    that line (`function tax`), and what the engine was doing (`order "T,3" of Ann`)."""

    def __init__(self, message: str, file: str = "", line: int = 0, doing: str = "", rule: str = "") -> None:
        self.message, self.file, self.line, self.doing, self.rule = message, file, line, doing, rule
        where = f"{file}:{line}: " if file else ""
        parts = [f"in {rule}"] if rule else []
        if doing and doing != rule:
            parts.append(f"while {doing}")
        tail = f" ({', '.join(parts)})" if parts else ""
        super().__init__(f"{where}{message}{tail}")


class Plain(dict[str, Any]):
    """A report's own fields as a generated module made them when it could show that every value is plain data
    (text, whole numbers, yes/no, none, and lists and records of them) made for this report alone, sharing no
    list with the state: `report.to_data` takes it as it is, with nothing to convert or copy."""

    __slots__ = ()


@dataclass(slots=True)
class OrderRec:
    """One order a player gave, once its arguments are read. Slotted: the generated code reads its fields
    for every order, and in loops over orders(kind)."""

    kind: str
    player: Any
    text: str
    line: int
    args: dict[str, Any] = field(default_factory=dict)
    status: str = "pending"
    reason: str | None = None
    repeat: bool = False  # a standing order run again in a later turn: outside the turn's limits and budget


# ---------------------------------------------------------------- per-key values

def mget(m: dict[str, Any], key: Thing, default: Any) -> Any:
    return m.get(key._key, default)


def mset(m: dict[str, Any], key: Thing, value: Any, default: Any) -> None:
    # Defaults are not stored, so a state file shows only what differs.
    if value == default:
        m.pop(key._key, None)
    else:
        m[key._key] = value


_ordinal = operator.attrgetter("_ord")


def stored(index: dict[str, Any], m: dict[str, Any]) -> list[Any]:
    """The things whose keys the per-key value `m` stores (`index` maps keys to things), in declaration order:
    what a loop goes through instead of every thing when only a stored key can pass its condition."""
    things = [index[k] for k in m]
    if len(things) > 1:
        things.sort(key=_ordinal)
    return things


def stored_items(index: dict[str, Any], m: dict[str, Any]) -> list[tuple[Any, Any]]:
    """(thing, value) for each key the per-key value `m` stores, in the order `m` stores them: what an
    aggregate whose value does not depend on the order (a sum, a count, the best) goes through, with no sort
    and no second look-up of each value."""
    return [(index[k], v) for k, v in m.items()]


def best_stored(index: dict[str, Any], m: dict[str, Any], low: Any, strict: bool, active: bool) -> Any:
    """`best(x for x in S where m[x] > low by m[x])` (`>= low` where not `strict`): the thing whose value in the
    per-key value `m` is the one highest above `low`, or None when none is or the top is tied. `index` maps
    keys to things; `active`: S is `players`, and only active players count. Only what `m` stores is read,
    in one loop, in the order it is stored: the best of a set does not depend on its order."""
    top: Any = None
    winner: Any = None
    tied = False
    for k, v in m.items():
        if v > low if strict else v >= low:
            # A player's `_active` itself, not through the property that counts its changes: read per key.
            if top is None or v > top:
                thing = index[k]
                if active and not thing._active:
                    continue
                top, winner, tied = v, thing, False
            elif v == top and (not active or index[k]._active):
                tied = True
    return None if tied else winner


# ---------------------------------------------------------------- pure functions, remembered while nothing changes

class Window:
    """One open `unchanging` window of a game (its `window` attribute while it is open): the caches of the `pure`
    functions called in it, emptied when it closes so that they hold no value of the game after it."""

    __slots__ = ("caches",)

    def __init__(self) -> None:
        self.caches: list[dict[Any, Any]] = []


@contextmanager
def unchanging(g: Any) -> Iterator[None]:
    """A window in which the state of game `g` does not change: what a `pure` function returns is remembered
    for the rest of the window and not computed again.

    Why this is correct: a `pure` function's result depends only on its arguments and the state (it draws no
    chance, and expressions write nothing), so while the state stays as it is, the same call returns the same
    value. Whoever opens the window promises that nothing writes the state until it closes; the generated
    module opens one for each report (report expressions write nothing), the engine one around judging
    victory, and a game folder may hold one around all reports of a turn, so that each country's controller
    is found once for all players. A window inside another one is the same window. Results are remembered only
    of functions whose value cannot be changed by its caller (numbers, text, things, none), so no caller sees
    another's changes.

    The window is kept on the game itself (`g.window`), so that a `pure` call outside any window costs one
    attribute read."""
    if getattr(g, "window", None) is not None:
        yield
        return
    window = g.window = Window()
    try:
        yield
    finally:
        g.window = None
        for cache in window.caches:
            cache.clear()


def pure(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorates a generated function `fn(g, *args)` that draws no chance, takes hashable arguments and returns
    a value nobody can change: inside an `unchanging` window of `g`, each call is computed once.

    Each function keeps its own cache, keyed by its arguments (by the argument itself when it takes one) and
    belonging to one window at a time: a call in another window (of another game, or a later one) empties it
    first, so that a value is never read outside the window that computed it. A function of one or two
    arguments gets a wrapper of as many: a call through `*args` costs more, and these are most calls. A value
    not found yet is told by `get` (the cache itself standing for none), not by a KeyError: a function that
    each report calls with its own player is missed as often as it is called."""
    cache: dict[Any, Any] = {}
    owner: list[Window | None] = [None]  # the window the cache belongs to

    def own(window: Window) -> None:
        cache.clear()
        owner[0] = window
        window.caches.append(cache)

    def remembered1(g: Any, a: Any) -> Any:
        try:
            window = g.window
        except AttributeError:  # not a Game: never in a window
            window = None
        if window is None:
            return fn(g, a)
        if owner[0] is not window:
            own(window)
        value = cache.get(a, cache)
        if value is cache:
            value = cache[a] = fn(g, a)
        return value

    def remembered2(g: Any, a: Any, b: Any) -> Any:
        try:
            window = g.window
        except AttributeError:
            window = None
        if window is None:
            return fn(g, a, b)
        if owner[0] is not window:
            own(window)
        key = (a, b)
        value = cache.get(key, cache)
        if value is cache:
            value = cache[key] = fn(g, a, b)
        return value

    def remembered(g: Any, *args: Any) -> Any:
        try:
            window = g.window
        except AttributeError:
            window = None
        if window is None:
            return fn(g, *args)
        if owner[0] is not window:
            own(window)
        value = cache.get(args, cache)
        if value is cache:
            value = cache[args] = fn(g, *args)
        return value

    code = fn.__code__
    fixed = -1 if code.co_flags & _CO_VARARGS or fn.__defaults__ else code.co_argcount - 1
    wrapper: Callable[..., Any] = remembered1 if fixed == 1 else remembered2 if fixed == 2 else remembered
    return functools.wraps(fn)(wrapper)


_CO_VARARGS = 0x04  # inspect.CO_VARARGS: `inspect` is not imported for one constant (a turn's imports count)


# ---------------------------------------------------------------- collections

def ordered(items: Iterable[Any], key: Callable[[Any], Any] | None, descending: bool) -> list[Any]:
    out = list(items)
    if key is not None:
        out.sort(key=key, reverse=descending)  # stable: ties keep their order
    return out


def best(pairs: Iterable[tuple[Any, Any]]) -> Any:
    """The item with the highest score, or None when nothing qualifies or the top is tied."""
    top: Any = None
    winner: Any = None
    tied = False
    for score, item in pairs:
        if top is None or score > top:
            top, winner, tied = score, item, False
        elif score == top:
            tied = True
    return None if tied else winner


def agg_max(values: Iterable[Any]) -> Any:
    return max(values, default=0)


def agg_min(values: Iterable[Any]) -> Any:
    return min(values, default=0)


def set_add(items: list[Any], value: Any) -> None:
    """`add X to S` for a set: nothing if X is there. A set of things is kept in declaration order (by `_ord`,
    one value per `_ord`), so its place is found by bisection: the membership test and the sort per add were
    each a pass over the whole set, and a player's set of thousands of sectors grew quadratically."""
    if not isinstance(value, Thing):
        if value not in items:
            items.append(value)
        return
    n = len(items)
    if not n or items[-1]._ord < value._ord:  # the common case when sectors or units are added in order
        items.append(value)
        return
    at = bisect.bisect_left(items, value._ord, key=_ordinal)
    if at < n and items[at] is value:
        return
    items.insert(at, value)


def as_set(items: Iterable[Any]) -> list[Any]:
    """A list given where a set is kept (`s.known = [...]`): each value once, things in declaration order."""
    items = list(items)
    try:
        out = list(dict.fromkeys(items))  # things hash by identity; numbers and texts by value
    except TypeError:  # records: compared by value, as `add` does
        out = []
        for x in items:
            if x not in out:
                out.append(x)
    if out and isinstance(out[0], Thing):
        out.sort(key=_ordinal)
    return out


def remove_item(items: list[Any], value: Any) -> None:
    """`remove X from L`: the first X of a list (a set has one), and nothing when X is not there."""
    if value in items:
        items.remove(value)


def index(items: Sequence[Any], i: int) -> Any:
    if not 0 <= i < len(items):
        raise IndexError(f"position {i} is outside a list of {len(items)}")
    return items[i]


def first(items: Iterable[Any]) -> Any:
    for x in items:
        return x
    return None


# The most rounds one counted loop may have when its bounds are not literals. A bound can come from what a
# player wrote (an order argument, or state it set): without a limit, one line could hold the turn for hours.
MAX_ROUNDS = 100_000


class TooManyRounds(OrderFailed):
    """A counted loop past MAX_ROUNDS, or a `while` loop whose condition still holds after them. In an order
    (its checks, cost or effect) the order fails with this reason, like `fail`; anywhere else the turn stops,
    pointed at the loop's line."""


def rounds(low: int, high: int) -> range:
    """`for each i in low..high`: both bounds read once, at most MAX_ROUNDS rounds."""
    if high - low >= MAX_ROUNDS:
        raise TooManyRounds(f"a counted loop from {low} to {high} would run {high - low + 1} rounds; "
                            f"at most {MAX_ROUNDS:,} are allowed")
    return range(low, high + 1)


def rounds_while(holds: Callable[[], Any]) -> Iterator[int]:
    """`while COND { ... }`: a round for as long as `holds()` (COND, asked before each round, so after `skip`
    too), at most MAX_ROUNDS of them: a condition may wait on state a player's order set."""
    for n in range(1, MAX_ROUNDS + 1):
        if not holds():
            return
        yield n
    if holds():
        raise TooManyRounds(f"a `while` loop would run more than {MAX_ROUNDS:,} rounds; at most {MAX_ROUNDS:,} "
                            "are allowed")


# ---------------------------------------------------------------- numbers and text

def clamp(x: Any, lo: Any, hi: Any) -> Any:
    return max(lo, min(hi, x))


def div(a: Any, b: Any) -> Fraction:
    if type(a) is int and type(b) is int:
        return Fraction(a, b)  # the same fraction, made once
    return Fraction(a) / Fraction(b)


def whole_ratio(a: int, b: int) -> tuple[int, int]:
    """`a / b` of two whole numbers as (numerator, denominator) with a denominator above 0, for a table that
    compares its key in whole numbers: no Fraction is made. Raises ZeroDivisionError as `a / b` would, here,
    so that the error is located at the line that divides."""
    if b > 0:
        return a, b
    if b < 0:
        return -a, -b
    raise ZeroDivisionError(f"{a} / 0")


def intdiv(a: Any, b: Any) -> int:
    return int(a // b)


def to_round(x: Any) -> int:
    # Half away from zero: what a designer expects of "round", unlike Python's banker's rounding.
    f = Fraction(x)
    return math.floor(f + Fraction(1, 2)) if f >= 0 else -math.floor(-f + Fraction(1, 2))


def to_floor(x: Any) -> int:
    return math.floor(x)


def to_ceil(x: Any) -> int:
    return math.ceil(x)


# ---- money with places (the header's `money "0.1"`): amounts are exact Fractions, whole multiples of the
# smallest amount; `places` is how many decimal places that is (1 for "0.1"). A ruleset without the setting
# never calls these: its money stays int.

def money_round(x: Any, places: int) -> Any:
    """`round` of an amount: to the nearest smallest amount, halves away from zero."""
    scale = 10 ** places
    return Fraction(to_round(Fraction(x) * scale), scale)


def money_floor(x: Any, places: int) -> Any:
    scale = 10 ** places
    return Fraction(math.floor(Fraction(x) * scale), scale)


def money_ceil(x: Any, places: int) -> Any:
    scale = 10 ** places
    return Fraction(math.ceil(Fraction(x) * scale), scale)


def money_div(a: Any, b: Any, places: int) -> Any:
    """`money div int`: rounded down to the smallest amount, as `div` rounds a whole amount down to a unit."""
    return money_floor(Fraction(a) / Fraction(b), places)


def money_setting(places: int) -> str:
    """The header's setting that keeps `places` decimal places, as a designer writes it: 1 place is "0.1"."""
    return "1" if places == 0 else f"0.{'0' * (places - 1)}1"


def fmt_money(x: Any, places: int) -> str:
    """An amount with exactly `places` decimal places, as a designer writes it: `7.4`, `12.0`, `-0.5`; an
    optional amount that is none reads "none", as `fmt` writes it."""
    if x is None:
        return "none"
    f = Fraction(x) * 10 ** places
    n = f.numerator // f.denominator if f.denominator == 1 else to_round(f)
    sign, n = ("-", -n) if n < 0 else ("", n)
    whole, part = divmod(n, 10 ** places)
    return f"{sign}{whole}.{part:0{places}d}"


def show_money(value: Any, shape: Any, places: int) -> Any:
    """A report value whose type holds money, with each amount as `fmt_money` writes it; `shape` says where the
    amounts are: "m" an amount, "d" a decimal, ("list", S), ("opt", S), ("map", S), ("rec", ((name, S), ...)),
    None none. A decimal is shown as `fmt_decimal` writes it, a whole one held as an int too."""
    if value is None or shape is None:
        return value
    if shape == "m":
        return fmt_money(value, places)
    if shape == "d":
        return fmt_decimal(Fraction(value))
    kind = shape[0]
    if kind == "opt":
        return show_money(value, shape[1], places)
    if kind == "list":
        return [show_money(v, shape[1], places) for v in value]
    if kind == "map":
        return {k: show_money(v, shape[1], places) for k, v in value.items()}
    parts = dict(shape[1])
    return {k: show_money(v, parts.get(k), places) for k, v in value.items()}


def truncate(s: str, n: int) -> str:
    return s[: max(0, n)]


def replace(s: str, old: str, new: str) -> str:
    """`replace(t, old, new)`: every `old` in `t` becomes `new`. An empty `old` would be found between every two
    characters, which no designer means, so it stops the turn at the call."""
    if not old:
        raise ValueError(f"replace: the text to replace is empty (in {s!r})")
    return s.replace(old, new)


def is_alnum(s: str) -> bool:
    return s.isascii() and s.isalnum()


class KeyedStream(random.Random):
    """The draws of one (purpose, keys) in a turn, counted: the j-th asks blake2b of its name and j for its bits,
    so a stream costs nothing to start (most keys draw once or twice) and none shares state with another.
    `random.Random`'s own randint, randrange and shuffle work from `getrandbits`, as for the unkeyed streams."""

    def seed(self, a: Any = None, version: int = 2) -> None:  # called once, by Random.__init__
        self._name = str(a).encode()
        self._drawn = 0

    def getrandbits(self, k: int) -> int:
        bits, value = 0, 0
        while bits < k:
            self._drawn += 1
            chunk = hashlib.blake2b(self._name + b"/%d" % self._drawn, digest_size=8).digest()
            value, bits = (value << 64) | int.from_bytes(chunk, "big"), bits + 64
        return value >> (bits - k)

    def random(self) -> float:
        return self.getrandbits(53) * 2.0 ** -53

    def getstate(self) -> Any:
        return self._name, self._drawn

    def setstate(self, state: Any) -> None:
        self._name, self._drawn = state


def key_text(value: Any) -> str:
    """A random stream's key as the text it has in state files (a player's account, a thing's or sector's key, a
    numbered thing's owner and number), so the same key draws the same numbers in every run of a turn. The
    kind comes first, so keys of different kinds never share a stream (division 7 without an owner, the
    number 7 and the text "7")."""
    if isinstance(value, Thing):
        return f"{value.TYPE}:{value._key}"
    if isinstance(value, bool):
        return "bool:yes" if value else "bool:no"
    if value is None:
        return "none"
    return f"{'int' if isinstance(value, int) else 'text'}:{value}"


def fmt(value: Any) -> str:
    """How a value reads in a message or a report."""
    if isinstance(value, PlayerBase):
        return value.name
    if isinstance(value, Numbered):
        return str(value.number)  # its key is also its owner's, for the state file: a player writes the number
    if isinstance(value, Thing):
        return value._key
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Fraction):
        return fmt_decimal(value)
    if value is None:
        return "none"
    return str(value)


def fmt_decimal(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):.2f}".rstrip("0").rstrip(".")


def interp(*parts: Any) -> str:
    return "".join(p if isinstance(p, str) else fmt(p) for p in parts)


# ---------------------------------------------------------------- tables and chance

class TableMiss(Exception):
    def __init__(self, table: str, key: Any) -> None:
        shown = ", ".join(fmt(k) for k in key) if isinstance(key, tuple) else fmt(key)
        super().__init__(f"table `{table}` has no row for {shown}")


def lookup(table: str, rows: dict[Any, Any], key: Any) -> Any:
    try:
        return rows[key]
    except KeyError:
        raise TableMiss(table, key) from None


def weighted_pick(rng: random.Random, rows: Sequence[tuple[Fraction, Any]]) -> Any:
    scale = math.lcm(*(Fraction(w).denominator for w, _ in rows))
    weights = [int(Fraction(w) * scale) for w, _ in rows]
    if type(rng) is ForcedStream:  # a scenario's forced draw (runtime/draws.py) names a row, not a number
        return rows[weighted_row(rng, weights)][1]
    r = rng.randrange(sum(weights))
    for w, (_, value) in zip(weights, rows, strict=True):
        if r < w:
            return value
        r -= w
    raise AssertionError("weights exhausted")


def roll(rng: random.Random, sides: int) -> int:
    return rng.randint(1, max(1, sides))


def chance(rng: random.Random, percent: int) -> bool:
    return rng.randint(1, 100) <= percent


def pick(rng: random.Random, items: Sequence[Any]) -> Any:
    items = list(items)
    if not items:
        return None
    if type(rng) is ForcedStream:  # a scenario's forced draw (runtime/draws.py) names the item's place
        return items[rng.forced_pick(len(items))]
    return items[rng.randrange(len(items))]


def shuffle(rng: random.Random, items: Iterable[Any]) -> list[Any]:
    out = list(items)
    rng.shuffle(out)  # a ForcedStream's shuffle takes a scenario's forced order (runtime/forced.py)
    return out


def madd(m: dict[str, Any], key: Thing, value: Any, is_set: bool) -> None:
    items = m.setdefault(key._key, [])
    if is_set:
        set_add(items, value)
    else:
        items.append(value)


def mremove(m: dict[str, Any], key: Thing, value: Any, default: Any) -> None:
    # A key not stored holds the default: remove from a copy of it, and store only what differs.
    items = list(m.get(key._key, default))
    remove_item(items, value)
    mset(m, key, items, default)


def table_problem(table: str, kind: str, rows: Sequence[Any], whole: bool = True) -> str | None:
    """What is wrong with a table's rows once its parameters are known, in the checker's words; None if nothing.

    Chances must each be above 0 and add up to 100; ranges must hold a key each, not overlap, and leave
    no gap between them (for a whole-number key, 0 to 4 then 5 to 9 leaves none).
    """
    if kind == "weighted":
        weights = [Fraction(w) for w in rows]
        if any(w <= 0 for w in weights):
            return f"a chance of `{table}` is not above 0%"
        total = sum(weights, Fraction(0))
        return None if total == 100 else f"the chances of `{table}` add up to {float(total):g}%, not 100%"
    # Each row as (low, low_open, high, high_open); a whole-number key makes it closed, on whole numbers.
    spans = []
    for lo, lo_open, hi, hi_open in rows:
        lo = None if lo is None else Fraction(lo)
        hi = None if hi is None else Fraction(hi)
        if whole:
            lo = None if lo is None else Fraction(math.floor(lo) + 1 if lo_open or lo.denominator != 1 else lo)
            hi = None if hi is None else Fraction(math.ceil(hi) - 1 if hi_open or hi.denominator != 1 else hi)
            lo_open = hi_open = False
        if lo is not None and hi is not None and (lo > hi or (lo == hi and (lo_open or hi_open))):
            return f"a row of `{table}` takes no key"
        spans.append((lo, lo_open, hi, hi_open))
    spans.sort(key=lambda s: (s[0] is not None, s[0] or 0, s[1]))
    for (_, _, hi, hi_open), (lo, lo_open, _, _) in itertools.pairwise(spans):
        if hi is None or lo is None or lo < hi or (lo == hi and not lo_open and not hi_open):
            return f"two rows of `{table}` take the same key"
        if (lo - hi > 1) if whole else (lo > hi or (lo_open and hi_open)):
            return f"`{table}` has no row for the keys above {float(hi):g} and below {float(lo):g}"
    return None
