"""A turn's forced values by stream (runtime/draws.py reads them from a scenario) -> the draws that return them.

Each draw of a ForcedStream draws from the seeded stream as it always would, so that every later draw is what it
would have been, and then returns the forced value. Kept apart from runtime/draws.py, which reads scenarios,
because runtime/core.py's chance functions need ForcedStream and nothing of the state codec.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


class ForcedDrawError(Exception):
    """A forced value the draw cannot take, or values no draw took: the turn stops, naming the entry."""


@dataclass(frozen=True)
class Forced:
    """One entry of `draws:`, its keys as key_text writes them; `at` is its place in the list, for paths."""

    at: int
    turn: int
    stream: str
    keys: tuple[str, ...]
    values: tuple[Any, ...]

    @property
    def name(self) -> str:
        """The engine's name for the stream of these keys (Game.keyed)."""
        return self.stream + "".join("\x1f" + k for k in self.keys)

    def data(self) -> dict[str, Any]:
        out: dict[str, Any] = {"turn": self.turn, "stream": self.stream}
        if self.keys:
            out["keys"] = list(self.keys)
        out["values"] = [list(v) if isinstance(v, tuple) else v for v in self.values]
        return out


def shown(value: Any) -> str:
    text = repr(list(value) if isinstance(value, tuple) else value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def this_turn(entries: Sequence[Forced], turn: int) -> dict[str, deque[tuple[Forced, int]]]:
    """The values to force in `turn`, by the engine's stream name, in the order given: each with its entry and
    its place among the entry's values, for the path of a fault."""
    out: dict[str, deque[tuple[Forced, int]]] = {}
    for e in entries:
        if e.turn == turn:
            out.setdefault(e.name, deque()).extend((e, j) for j in range(len(e.values)))
    return out


def where(entry: Forced, j: int) -> str:
    return f"$.draws[{entry.at}].values[{j}]"


def undrawn(queues: dict[str, deque[tuple[Forced, int]]]) -> str | None:
    """Why a turn whose forced values were not all drawn stops, or None when every one was."""
    left = [(e, j) for q in queues.values() for e, j in q]
    if not left:
        return None
    left.sort(key=lambda x: (x[0].at, x[1]))
    named = ", ".join(f"{where(e, j)} ({shown(e.values[j])})" for e, j in left[:5])
    more = f" and {len(left) - 5} more" if len(left) > 5 else ""
    first = left[0][0]
    keys = f" with keys {', '.join(first.keys)}" if first.keys else " with no keys"
    return (f"forced draws were never drawn this turn: {named}{more}; nothing drew from stream "
            f"{shown(first.stream)}{keys} that often (a forced draw nothing takes would make the game say "
            "what did not happen: remove it, or move it to the turn that draws it)")


class ForcedStream(random.Random):
    """A turn's stream of one (purpose, keys) with forced values: each draw advances `inner`, the seeded stream,
    exactly as an unforced draw would (so the draws after it are unmoved), then returns the next forced value
    while there is one. `randint` serves chance and roll; pick, shuffle and a weighted table's draw ask for
    their own (runtime/core.py), to take an item's place, an order or a row."""

    def __init__(self, inner: random.Random, queue: deque[tuple[Forced, int]]) -> None:
        self.inner = inner
        self.queue = queue
        self._last = 0  # an unforced weighted draw's number, for weighted_row
        super().__init__()

    def seed(self, a: Any = None, version: int = 2) -> None:  # Random.__init__'s: the inner stream is seeded
        pass

    def getrandbits(self, k: int) -> int:
        return self.inner.getrandbits(k)

    def random(self) -> float:
        return self.inner.random()

    def _next(self) -> tuple[Forced, int, Any] | None:
        if not self.queue:
            return None
        e, j = self.queue.popleft()
        return e, j, e.values[j]

    def randint(self, a: int, b: int) -> int:
        drawn = self.inner.randint(a, b)
        got = self._next()
        if got is None:
            return drawn
        e, j, v = got
        if not isinstance(v, int) or not a <= v <= b:
            raise ForcedDrawError(f"{where(e, j)}: {shown(v)} is not a roll of {a}..{b}")
        return v

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        raise ForcedDrawError("this draw cannot be forced")  # every forceable builtin asks by its own method

    def shuffle(self, x: list[Any]) -> None:  # type: ignore[override]
        self.forced_shuffle(x)

    def forced_pick(self, n: int) -> int:
        """The index of a pick among `n` items (the forced value is the item's place, 1..n)."""
        drawn = self.inner.randrange(n)
        got = self._next()
        if got is None:
            return drawn
        e, j, v = got
        if not isinstance(v, int) or not 1 <= v <= n:
            raise ForcedDrawError(f"{where(e, j)}: {shown(v)} is not the place of an item of a list of {n} (1..{n})")
        return v - 1

    def forced_row(self, total: int, rows: int) -> int | None:
        """A weighted table's row, 0-based, when forced (the value is the row's place as written, 1..rows); None
        to walk the weights with the draw as usual (the draw is then taken from `total`)."""
        drawn = self.inner.randrange(total)
        got = self._next()
        if got is None:
            self._last = drawn
            return None
        e, j, v = got
        if not isinstance(v, int) or not 1 <= v <= rows:
            raise ForcedDrawError(f"{where(e, j)}: {shown(v)} is not a row of a weighted table of {rows} rows "
                                  f"(1..{rows})")
        return v - 1

    def forced_shuffle(self, x: list[Any]) -> None:
        """A shuffle: the forced value is the new order as the items' places before it (`[3, 1, 2]`)."""
        before = list(x)
        self.inner.shuffle(x)
        got = self._next()
        if got is None:
            return
        e, j, v = got
        n = len(before)
        if not isinstance(v, tuple) or sorted(v) != list(range(1, n + 1)):
            backwards = ", ".join(map(str, range(n, 0, -1)))
            raise ForcedDrawError(f"{where(e, j)}: {shown(v)} is not an order of a list of {n}: each place 1..{n} "
                                  f"once, as [{backwards}]")
        x[:] = [before[i - 1] for i in v]


def weighted_row(rng: ForcedStream, weights: list[int]) -> int:
    """The row a forced weighted draw takes, 0-based."""
    total = sum(weights)
    row = rng.forced_row(total, len(weights))
    if row is not None:
        return row
    r = rng._last
    for i, w in enumerate(weights):
        if r < w:
            return i
        r -= w
    raise AssertionError("weights exhausted")


def not_forceable(what: str, rng: random.Random) -> None:
    """The world generation builtins draw many numbers for one result: a forced stream is refused there."""
    if isinstance(rng, ForcedStream):
        e, j = rng.queue[0] if rng.queue else (None, 0)
        at = f"{where(e, j)}: " if e is not None else ""
        raise ForcedDrawError(f"{at}{what} draws from this stream, and its draws cannot be forced")


