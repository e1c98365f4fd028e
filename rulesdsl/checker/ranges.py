"""Rows of a range table -> the keys each covers, what is left uncovered, and how to say it to a designer.

A set of keys is a half-open span `[start, end)` between two cuts of the number line. A cut is
`(value, 0)`, just before `value`, or `(value, 1)`, just after it; the ends are minus and plus infinity.
For an `int` or `money` key only whole numbers count, so a row is first narrowed to the whole numbers it
holds, and its end is the cut before the next whole number: `1 to 3` and `4 to 6` then meet with no gap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

Cut = tuple[Fraction | float, int]
LOWEST: Cut = (-math.inf, 0)
HIGHEST: Cut = (math.inf, 0)


@dataclass(frozen=True)
class Keys:
    """The keys from cut `start` (included) to cut `end` (left out)."""

    start: Cut
    end: Cut

    @property
    def empty(self) -> bool:
        return self.start >= self.end

    def meet(self, other: Keys) -> Keys:
        return Keys(max(self.start, other.start), min(self.end, other.end))


def row_keys(low: Fraction | None, low_open: bool, high: Fraction | None, high_open: bool, whole: bool) -> Keys:
    """The keys of a row written with these bounds (None: unbounded; open: the bound itself left out)."""
    if whole:
        start: Cut = LOWEST if low is None else (Fraction(math.floor(low) + 1 if low_open else math.ceil(low)), 0)
        end: Cut = HIGHEST if high is None else (Fraction(math.ceil(high) if high_open else math.floor(high) + 1), 0)
        return Keys(start, end)
    start = LOWEST if low is None else (low, 1 if low_open else 0)
    end = HIGHEST if high is None else (high, 0 if high_open else 1)
    return Keys(start, end)


def uncovered(keys: Keys, by: list[Keys]) -> list[Keys]:
    """The parts of `keys` that none of `by` covers, lowest first."""
    left = [keys] if not keys.empty else []
    for b in by:
        out: list[Keys] = []
        for part in left:
            if part.meet(b).empty:
                out.append(part)
                continue
            for rest in (Keys(part.start, b.start), Keys(b.end, part.end)):
                if not rest.empty:
                    out.append(rest)
        left = out
    return sorted(left, key=lambda k: k.start)


def number(value: Fraction | float) -> str:
    """A bound as the designer writes it: `4`, `1.5`, `-0.25`."""
    f = Fraction(value)
    if f.denominator == 1:
        return str(f.numerator)
    return str(Decimal(f.numerator) / Decimal(f.denominator))


def describe(keys: Keys, whole: bool) -> str:
    """`key 4`, `keys 4 to 6`, `keys below 1`, `keys from 1.5 below 2`: the keys in the language's own words."""
    (lo, lo_side), (hi, hi_side) = keys.start, keys.end
    low_unbounded, high_unbounded = keys.start == LOWEST, keys.end == HIGHEST
    if low_unbounded and high_unbounded:
        return "every key"
    if whole:
        if low_unbounded:
            return f"keys below {number(hi)}"
        if high_unbounded:
            return f"keys from {number(lo)}"
        last = Fraction(hi) - 1
        return f"key {number(lo)}" if lo == last else f"keys {number(lo)} to {number(last)}"
    if not low_unbounded and not high_unbounded and lo == hi:
        return f"key {number(lo)}"  # from (v, 0) to (v, 1): v alone
    if low_unbounded:
        return f"keys below {number(hi)}" if hi_side == 0 else f"keys {number(hi)} or less"
    if high_unbounded:
        return f"keys above {number(lo)}" if lo_side else f"keys from {number(lo)}"
    a, b = number(lo), number(hi)
    if lo_side == 0:
        return f"keys from {a} below {b}" if hi_side == 0 else f"keys {a} to {b}"
    return f"keys above {a} and below {b}" if hi_side == 0 else f"keys above {a} and up to {b}"


def written(keys: Keys, whole: bool) -> str | None:
    """The keys as a row of a range table writes them (`10 to 19`, `below 0`, `from 20`), or None if no row can."""
    if keys.empty or (keys.start == LOWEST and keys.end == HIGHEST):
        return None
    (lo, lo_side), (hi, hi_side) = keys.start, keys.end
    if keys.start == LOWEST:
        return f"below {number(hi)}" if whole or hi_side == 0 else None
    if lo_side == 1:
        return None  # keys just above a bound: no row starts there
    if keys.end == HIGHEST:
        return f"from {number(lo)}"
    if whole:
        last = Fraction(hi) - 1
        return number(lo) if lo == last else f"{number(lo)} to {number(last)}"
    if lo == hi:
        return number(lo)  # from (v, 0) to (v, 1): v alone
    return f"from {number(lo)} below {number(hi)}" if hi_side == 0 else f"{number(lo)} to {number(hi)}"
