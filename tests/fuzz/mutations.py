"""A source of choices + real order lines -> hostile lines: random text, runs, huge numbers, mutated orders.

The choices come from a Picker: hypothesis draws in the suite (so failures shrink to a small input),
random.Random in the long benchmark. Every length is capped by `cap` (world.MAX_LINE).
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

T = TypeVar("T")


class Picker(Protocol):
    def integer(self, lo: int, hi: int) -> int: ...

    def choice(self, items: Sequence[T]) -> T: ...


class RandomPicker:
    """Choices from a seeded random.Random: the benchmark's source."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def integer(self, lo: int, hi: int) -> int:
        # Mostly small values, as hypothesis draws them, with the whole range still reached.
        if hi - lo > 64 and self.rng.random() < 0.9:
            return lo + min(hi - lo, int(self.rng.expovariate(1 / 24)))
        return self.rng.randint(lo, hi)

    def choice(self, items: Sequence[T]) -> T:
        return items[self.rng.randrange(len(items))]


# Characters a player's mail can bring that the engine must neither crash on, nor pass into a report, nor
# take for the ASCII it looks like.
NASTY = [
    "\x00", "\x07", "\x08", "\x0b", "\x0c", "\x1b", "\x1c", "\x1d", "\x1e", "\x1f", "\x7f", "\x85", "\x9b",
    "\u2028", "\u2029", "\ufeff", "\u200b", "\u200d", "\u200e", "\u202e", "\u202d", "\u2066", "\u2069",
    "\u00ad", "\ufffd", "\ue000", "\u0378", "\U0001f4a3",
    "\u0663", "\u0661", "\u06f5", "\u096b", "\uff11",  # digits, not ASCII: Arabic-Indic, Persian, Devanagari, fullwidth
    "\u0131", "\u017f", "\u212a", "\u0130", "\ufb01", "\u00df",  # dotless i, long s, Kelvin...: upper() makes ASCII
    "\u0391", "\u0421", "\u041e", "\uff0c", "\u201a", "\u00a0", "\u3000", "\u2003",
    "\x1b[2J", "\x1b]0;title\x07", "{{ player.code }}", "{%", "%s", "\\", "'", '"', "+", "++", "-", "#",
]
PRINTABLE = string.ascii_letters + string.digits + string.punctuation + " "
RUN_UNITS = [" ", ",", ", ", " ,", "  ,", "\t", "9", "0", "A", "+", "x", "-", "\u00a0", "\x00", ",A"]
SEPARATORS = [",", " ", ", ", " ,", ";", "\t", "  ", ",,", "", ":", ".", "\uff0c", "\u00a0", "\u201a"]
LOOKALIKES = {
    "i": "\u0131", "I": "\u0130", "s": "\u017f", "S": "\u017f", "k": "\u212a", "K": "\u212a",
    "A": "\u0391", "a": "\u0430", "C": "\u0421", "c": "\u0441", "O": "\u041e", "o": "\u043e",
    "E": "\u0415", "P": "\u0420", "T": "\u0422", ",": "\uff0c", " ": "\u00a0", "-": "\u2010", "+": "\uff0b",
}
for _d in range(10):
    LOOKALIKES.setdefault(str(_d), chr(0x660 + _d))
DIGIT_FORMS = [0x660, 0x6F0, 0x966, 0xFF10]  # Arabic-Indic, Persian, Devanagari, fullwidth


def nasty_char(pick: Picker) -> str:
    return pick.choice(NASTY)


def random_text(pick: Picker, cap: int) -> str:
    n = pick.integer(0, min(cap, 40))
    return "".join(pick.choice(NASTY) if pick.integer(0, 3) == 0 else pick.choice(PRINTABLE) for _ in range(n))


def run(pick: Picker, cap: int) -> str:
    unit = pick.choice(RUN_UNITS)
    return unit * pick.integer(1, max(1, cap // len(unit)))


def huge_number(pick: Picker, cap: int) -> str:
    """Digits past int()'s 4,300-digit limit, or just big; now and then signed or not ASCII."""
    n = pick.integer(1, max(1, min(cap, 6000)))
    digits = "9" * n if pick.integer(0, 1) else "1" + "0" * (n - 1)
    form = pick.integer(0, 5)
    if form == 1:
        return "-" + digits
    if form == 2:
        return "+" + digits
    if form == 3:
        base = pick.choice(DIGIT_FORMS)
        return "".join(chr(base + int(d)) for d in digits[:50])
    return digits


def piece(pick: Picker, cap: int, corpus: Sequence[str]) -> str:
    """Something to put into a line: a character, some text, a run, a number or a real line's field."""
    kind = pick.integer(0, 5)
    if kind == 0:
        return nasty_char(pick)
    if kind == 1:
        return random_text(pick, cap)
    if kind == 2:
        return run(pick, cap)
    if kind == 3:
        return huge_number(pick, cap)
    if kind == 4:
        fields = re.split(r"[, ]+", pick.choice(corpus))
        return pick.choice(fields)
    return pick.choice(PRINTABLE)


# ---------------------------------------------------------------- mutations of a real line
def _span(pick: Picker, line: str) -> tuple[int, int]:
    a = pick.integer(0, len(line))
    b = pick.integer(a, min(len(line), a + 8))
    return a, b


def m_insert(pick: Picker, line: str, cap: int, corpus: Sequence[str]) -> str:
    at = pick.integer(0, len(line))
    return line[:at] + piece(pick, cap, corpus) + line[at:]


def m_delete(pick: Picker, line: str, cap: int, corpus: Sequence[str]) -> str:
    a, b = _span(pick, line)
    return line[:a] + line[b:]


def m_duplicate(pick: Picker, line: str, cap: int, corpus: Sequence[str]) -> str:
    a, b = _span(pick, line)
    return line[:b] + line[a:b] + line[b:]


def m_swap_chars(pick: Picker, line: str, cap: int, corpus: Sequence[str]) -> str:
    if len(line) < 2:
        return line
    i = pick.integer(0, len(line) - 2)
    j = pick.integer(i + 1, len(line) - 1)
    chars = list(line)
    chars[i], chars[j] = chars[j], chars[i]
    return "".join(chars)


def m_swap_fields(pick: Picker, line: str, cap: int, corpus: Sequence[str]) -> str:
    parts = re.split(r"([, ]+)", line)
    fields = list(range(0, len(parts), 2))
    if len(fields) < 2:
        return line
    i = pick.choice(fields)
    j = pick.choice(fields)
    parts[i], parts[j] = parts[j], parts[i]
    return "".join(parts)


def m_drop_field(pick: Picker, line: str, cap: int, corpus: Sequence[str]) -> str:
    parts = re.split(r"([, ]+)", line)
    i = pick.integer(0, len(parts) - 1)
    return "".join(parts[:i] + parts[i + 1:])


def m_replace_field(pick: Picker, line: str, cap: int, corpus: Sequence[str]) -> str:
    parts = re.split(r"([, ]+)", line)
    i = pick.choice(list(range(0, len(parts), 2)))
    parts[i] = pick.choice([huge_number(pick, cap), piece(pick, cap, corpus), "0", "-1", "+5", "1e9", "0x10",
                            "1_000", "", "٣", "\u212a\u212a", "1.5", "Infinity", "None"])
    return "".join(parts)


def m_case(pick: Picker, line: str, cap: int, corpus: Sequence[str]) -> str:
    how = pick.integer(0, 3)
    return [line.lower(), line.upper(), line.swapcase(), line.title()][how]


def m_separators(pick: Picker, line: str, cap: int, corpus: Sequence[str]) -> str:
    old = pick.choice([",", " "])
    new = pick.choice(SEPARATORS)
    if pick.integer(0, 1):
        return line.replace(old, new)
    at = line.find(old)
    return line if at < 0 else line[:at] + new + line[at + 1:]


def m_lookalike(pick: Picker, line: str, cap: int, corpus: Sequence[str]) -> str:
    spots = [i for i, ch in enumerate(line) if ch in LOOKALIKES]
    if not spots:
        return line
    i = pick.choice(spots)
    twin = LOOKALIKES[line[i]]
    if line[i].isdigit() and pick.integer(0, 1):
        twin = chr(pick.choice(DIGIT_FORMS) + int(line[i]))
    return line[:i] + twin + line[i + 1:]


def m_pad(pick: Picker, line: str, cap: int, corpus: Sequence[str]) -> str:
    pad = run(pick, cap)
    where = pick.integer(0, 2)
    return [pad + line, line + pad, pad + line + pad][where]


MUTATIONS: list[Callable[[Picker, str, int, Sequence[str]], str]] = [
    m_insert, m_delete, m_duplicate, m_swap_chars, m_swap_fields, m_drop_field, m_replace_field, m_case,
    m_separators, m_lookalike, m_pad,
]


def mutate(pick: Picker, line: str, cap: int, corpus: Sequence[str], most: int = 4) -> str:
    for _ in range(pick.integer(1, most)):
        line = pick.choice(MUTATIONS)(pick, line, cap, corpus)
    return line


def fuzz_line(pick: Picker, corpus: Sequence[str], cap: int) -> str:
    """One line of a hostile submission: a real order, a mutated one, random text, or pieces joined."""
    kind = pick.integer(0, 3)
    if kind == 0:
        line = mutate(pick, pick.choice(corpus), cap, corpus)
    elif kind == 1:
        line = random_text(pick, cap)
    elif kind == 2:
        line = "".join(piece(pick, cap, corpus) for _ in range(pick.integer(1, 4)))
    else:
        line = pick.choice(corpus)
    # Lines are what is between newlines: a line break inside one would make two lines.
    return line.replace("\r", "").replace("\n", "")[:cap]


def long_line(pick: Picker, corpus: Sequence[str], cap: int) -> str:
    """A line made to be slow: a real order's opening, then a long run, then an end that does not fit."""
    real = pick.choice(corpus)
    cut = pick.integer(0, len(real))
    end = pick.choice(["", "x", ",", ", x", "9", real[cut:], "\x00"])
    body = run(pick, cap)
    return (real[:cut] + body + end)[:cap]
