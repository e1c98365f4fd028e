"""A rectangular map's size and wrap -> its sectors' neighbours, distances, ranges, windows and names.

Sectors are plain ints, 0 .. width * height - 1, row-major (index = row * width + col), row 0 the north edge,
so that a game keeps per-sector data in flat lists and tuples indexed by sector. Directions are the codes a
player writes: 1 north, then clockwise, 2 north-east, 3 east, 4 south-east, 5 south, 6 south-west, 7 west,
8 north-west. An edge that does not wrap has nothing beyond it (None); wrap_x joins the east and west edges
(a globe's east-west wrap, as Warlord's Dexet), wrap_y the north and south ones.

Everything a hot path reads (each sector's neighbours) is worked out once, when the grid is built, and only
ints are compared, so every answer is the same in every process whatever the hash seed.

The cheapest route between two sectors is runtime/routes.py's (`find`, and `Router` for the game's `path`):
the runtime's one route search, which builds on this module, so this module does not import it.
"""

from __future__ import annotations

from collections.abc import Callable

# (row step, column step) for direction codes 1..8; index 0 stands for 0, "pause", which moves nowhere.
STEPS: tuple[tuple[int, int], ...] = (
    (0, 0),
    (-1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
)

Cost = Callable[[int], "int | None"]


class Grid:
    """A width x height map of sectors, wrapping east-west and/or north-south or not at all."""

    __slots__ = ("_adjacent", "_col_of", "_row_of", "_step", "height", "size", "width", "wrap_x", "wrap_y")

    def __init__(self, width: int, height: int, wrap_x: bool = False, wrap_y: bool = False) -> None:
        if width < 1 or height < 1:
            raise ValueError(f"a grid needs at least one column and one row, not {width} x {height}")
        self.width = width
        self.height = height
        self.wrap_x = wrap_x
        self.wrap_y = wrap_y
        self.size = width * height
        # One tuple of 9 per sector (index 0: the sector itself, for "pause"), so neighbour() is two
        # indexings; built a row and a column pattern at a time rather than per sector and direction,
        # which keeps a 320 x 99 grid well under 0.1 s.
        cols = range(width)
        col_of: list[list[int | None]] = []  # for each column step -1, 0, +1: the column reached, or None
        for dc in (-1, 0, 1):
            reached: list[int | None] = []
            for c in cols:
                c2 = c + dc
                if 0 <= c2 < width:
                    reached.append(c2)
                elif wrap_x:
                    reached.append(c2 % width)
                else:
                    reached.append(None)
            col_of.append(reached)
        step: list[tuple[int | None, ...]] = []
        for r in range(height):
            row_base: list[int | None] = []  # for each row step -1, 0, +1: the first sector of the row reached
            for dr in (-1, 0, 1):
                r2 = r + dr
                if 0 <= r2 < height:
                    row_base.append(r2 * width)
                elif wrap_y:
                    row_base.append((r2 % height) * width)
                else:
                    row_base.append(None)
            per_dir = [(row_base[dr + 1], col_of[dc + 1]) for dr, dc in STEPS]
            for c in cols:
                out: list[int | None] = []
                for base, reached in per_dir:
                    cn = reached[c]
                    out.append(None if base is None or cn is None else base + cn)
                step.append(tuple(out))
        self._step: tuple[tuple[int | None, ...], ...] = tuple(step)
        # neighbours(): in direction order, each sector once and never the sector itself, which only a
        # tiny wrapped grid (1 or 2 wide or high) would otherwise repeat: a count of neighbours owned
        # must not count one sector twice.
        adjacent: list[tuple[int, ...]] = []
        for s, row in enumerate(step):
            seen: list[int] = []
            for nb in row[1:]:
                if nb is not None and nb != s and nb not in seen:
                    seen.append(nb)
            adjacent.append(tuple(seen))
        self._adjacent: tuple[tuple[int, ...], ...] = tuple(adjacent)
        self._row_of: tuple[int, ...] = tuple(s // width for s in range(self.size))
        self._col_of: tuple[int, ...] = tuple(s % width for s in range(self.size))

    def __repr__(self) -> str:
        return f"Grid({self.width}, {self.height}, wrap_x={self.wrap_x}, wrap_y={self.wrap_y})"

    # -- sectors and coordinates -------------------------------------------------------------------------

    def sector(self, col: int, row: int) -> int:
        """The sector at (col, row); ValueError outside the map (no wrap applied: a position is exact)."""
        if not (0 <= col < self.width and 0 <= row < self.height):
            raise ValueError(f"({col}, {row}) is outside the {self.width} x {self.height} map")
        return row * self.width + col

    def col(self, s: int) -> int:
        return s % self.width

    def row(self, s: int) -> int:
        return s // self.width

    def contains(self, s: int) -> bool:
        return 0 <= s < self.size

    # -- adjacency -------------------------------------------------------------------------------------

    def neighbour(self, s: int, d: int) -> int | None:
        """The sector one step from s in direction d (1..8; 0 is s itself), or None off a non-wrapping edge.

        Neither s nor d is checked (the hot path of every move): a caller validates what a player wrote first.
        """
        return self._step[s][d]

    def neighbours(self, s: int) -> tuple[int, ...]:
        """The sectors adjacent to s in direction order, each once, never s itself."""
        return self._adjacent[s]

    def direction(self, a: int, b: int) -> int | None:
        """The direction code (1..8) of the step from a to an adjacent b, the lowest if several reach it; None
        if b is not adjacent to a (b == a included: staying is 0, which is no step)."""
        row = self._step[a]
        for d in range(1, 9):
            if row[d] == b:
                return d if b != a else None
        return None

    # -- distance and ranges -----------------------------------------------------------------------------

    def distance(self, a: int, b: int) -> int:
        """King moves from a to b (all eight directions cost one), across a wrapping edge where shorter."""
        w = self.width
        ra, ca = divmod(a, w)
        rb, cb = divmod(b, w)
        dr = abs(ra - rb)
        dc = abs(ca - cb)
        if self.wrap_y and self.height - dr < dr:
            dr = self.height - dr
        if self.wrap_x and w - dc < dc:
            dc = w - dc
        return dr if dr > dc else dc

    def _rows(self, r0: int, half: int) -> list[int | None]:
        """Rows r0-half .. r0+half, wrapped or None off the map."""
        return _span(r0, half, self.height, self.wrap_y)

    def _cols(self, c0: int, half: int) -> list[int | None]:
        return _span(c0, half, self.width, self.wrap_x)

    def within(self, s: int, r: int) -> list[int]:
        """Every sector at distance <= r from s, s included, row by row from the north-west corner of the
        (2r+1)-square around s, wrap applied; a sector the square reaches twice (a wrapped grid narrower
        or lower than the square) is listed where it is first reached."""
        if r < 0:
            return []
        r0, c0 = divmod(s, self.width)
        rows = [x for x in self._rows(r0, r) if x is not None]
        cols = [x for x in self._cols(c0, r) if x is not None]
        w = self.width
        if len(set(rows)) < len(rows) or len(set(cols)) < len(cols):
            seen: set[int] = set()
            out: list[int] = []
            for row in rows:
                for c in cols:
                    n = row * w + c
                    if n not in seen:
                        seen.add(n)
                        out.append(n)
            return out
        return [row * w + c for row in rows for c in cols]

    def window(self, s: int, half: int) -> list[list[int | None]]:
        """The (2*half+1)-square centred on s as rows north to south, each west to east, None off the map;
        a wrapped grid smaller than the window shows a sector more than once, as a printed map would."""
        r0, c0 = divmod(s, self.width)
        cols = self._cols(c0, half)
        w = self.width
        return [[None if row is None or c is None else row * w + c for c in cols] for row in self._rows(r0, half)]

    # -- routes (found by runtime/routes.py) -------------------------------------------------------------

    def route_cost(self, route: list[int], cost: Cost) -> int | None:
        """What a route (as routes.find returns it) costs to walk; None if it enters an impassable sector."""
        total = 0
        for s in route:
            p = cost(s)
            if p is None:
                return None
            total += p
        return total

    def directions(self, a: int, route: list[int]) -> list[int]:
        """A route from a (as routes.find returns it) as direction codes, such as the digits of Warlord's M order;
        ValueError if a step is not to an adjacent sector."""
        out: list[int] = []
        here = a
        for s in route:
            d = self.direction(here, s)
            if d is None:
                raise ValueError(f"sector {s} is not adjacent to {here}")
            out.append(d)
            here = s
        return out


class SectorNameError(ValueError):
    """A text that names no sector; the message says why (wrong length, not digits, outside the map)."""


class SectorNames:
    """A game's way of writing a sector: a pattern of C (column digit), R (row digit) and literal characters,
    such as Warlord's "CCCRR" (22344: column 223, row 44), numbered from `origin` (0 or 1 as the rulebook counts).
    """

    __slots__ = ("_col_at", "_grid", "_literals", "_row_at", "origin", "pattern")

    def __init__(self, grid: Grid, pattern: str, origin: int = 0) -> None:
        col_digits = pattern.count("C")
        row_digits = pattern.count("R")
        if col_digits == 0 or row_digits == 0:
            raise ValueError(f"sector pattern {pattern!r} needs at least one C and one R")
        if not _one_run(pattern, "C") or not _one_run(pattern, "R"):
            raise ValueError(f"sector pattern {pattern!r}: the C digits and the R digits must each be one run")
        if any(ch.isdigit() for ch in pattern):
            raise ValueError(f"sector pattern {pattern!r}: a literal character may not be a digit")
        if grid.width - 1 + origin >= 10**col_digits or grid.height - 1 + origin >= 10**row_digits:
            raise ValueError(
                f"sector pattern {pattern!r} cannot number a {grid.width} x {grid.height} map from {origin}"
            )
        self._grid = grid
        self.pattern = pattern
        self.origin = origin
        self._col_at = slice(pattern.index("C"), pattern.index("C") + col_digits)
        self._row_at = slice(pattern.index("R"), pattern.index("R") + row_digits)
        self._literals = tuple((i, ch) for i, ch in enumerate(pattern) if ch not in "CR")

    def name(self, s: int) -> str:
        """How the game writes sector s."""
        g = self._grid
        if not g.contains(s):
            raise ValueError(f"{s} is not a sector of the {g.width} x {g.height} map")
        row, col = divmod(s, g.width)
        out = list(self.pattern)
        cw = self._col_at.stop - self._col_at.start
        rw = self._row_at.stop - self._row_at.start
        out[self._col_at] = f"{col + self.origin:0{cw}d}"
        out[self._row_at] = f"{row + self.origin:0{rw}d}"
        return "".join(out)

    def parse(self, text: str) -> int:
        """The sector a text names; SectorNameError saying why when it names none."""
        if len(text) != len(self.pattern):
            raise SectorNameError(
                f"{text!r} is not a sector: a sector is written {self.pattern} ({len(self.pattern)} characters)"
            )
        for i, ch in self._literals:
            if text[i] != ch:
                raise SectorNameError(f"{text!r} is not a sector: expected {ch!r} at position {i + 1}")
        col_text = text[self._col_at]
        row_text = text[self._row_at]
        # Only ASCII digits: str.isdigit() would take "²" or Arabic-Indic digits.
        if not all(ch in "0123456789" for ch in col_text + row_text):
            raise SectorNameError(f"{text!r} is not a sector: a sector is written in digits ({self.pattern})")
        col = int(col_text) - self.origin
        row = int(row_text) - self.origin
        g = self._grid
        if not 0 <= col < g.width:
            raise SectorNameError(
                f"{text!r} is not a sector: column {col_text} is outside the map "
                f"({self.origin}..{g.width - 1 + self.origin})"
            )
        if not 0 <= row < g.height:
            raise SectorNameError(
                f"{text!r} is not a sector: row {row_text} is outside the map "
                f"({self.origin}..{g.height - 1 + self.origin})"
            )
        return row * g.width + col


def _one_run(pattern: str, ch: str) -> bool:
    first = pattern.index(ch)
    return pattern[first : first + pattern.count(ch)] == ch * pattern.count(ch)


def _span(x0: int, half: int, size: int, wrap: bool) -> list[int | None]:
    """Positions x0-half .. x0+half along one axis of `size`: wrapped, or None off the map."""
    return [x if 0 <= x < size else (x % size if wrap else None) for x in range(x0 - half, x0 + half + 1)]
