"""A map, a price per sector and two sectors -> the cheapest route: the runtime's one route search.

`path(COST for x from A to B [within R])` in generated code calls `route` or, when the checker has shown that
COST depends only on what no rule changes once the game has started and on values fixed for the call (see
docs/language.md, "Routes"), `route_priced`, which keeps the prices one COST gives (keyed by the path's
site and those values) for the life of the game object, and the routes found with them: a turn's 2,000
searches then call the generated COST at most once per sector between them, and the search reads a list.
Python that wants a route over a plain cost callable (tests, benchmarks, world generation) calls `find`.

The search (`Router.path`) is A* over a price list, with per-game scratch lists marked by a search number
instead of fresh lists per search, and an optional window (only sectors at most R from A may be entered).
Its estimate is the king distance to the goal times the least price, taken to be 1 until a sector of price
0 is met, when the search starts again with 0 (Dijkstra's order): never an overstatement, and consistent,
so a sector's first expansion is final. Ties are broken so that the same map and prices give the same
route in every process: the open sector with the lowest (cost so far + estimate, estimate, sector number)
is expanded first, its neighbours are tried in direction order 1..8, and a route to a sector is replaced
only by a strictly cheaper one. tests/unit/test_routes.py holds it to the A* that was Grid.path
(tests/unit/path_oracle.py) on thousands of random maps, ties included.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from contextlib import suppress
from heapq import heappop, heappush
from typing import Any

from rulesdsl.runtime.grid import Grid
from rulesdsl.runtime.sectors import SectorError

# Prices kept at once, over every path of a ruleset. A COST keyed by a value with many values (a unit) would
# otherwise keep a list of the whole map per value; the oldest is let go first, which changes no route, only
# how often COST is asked again.
KEPT_PRICES = 64

_UNASKED = -2
_IMPASSABLE = -1


class _Free(Exception):
    """A price of 0 met by a search that assumed every price is at least 1: it starts again with no estimate."""


class Prices:
    """One COST's prices over the map: -2 not asked yet, -1 impassable, else the price; and, when the prices
    are kept between calls, the routes found with them, by (start, goal, bound)."""

    __slots__ = ("ask", "parts", "routes", "values")

    def __init__(self, size: int, ask: Callable[[int], int]) -> None:
        self.values: list[int] = [_UNASKED] * size
        self.ask = ask  # sector -> its price, -1 for impassable; raises for a negative price
        self.routes: dict[tuple[int, int, int], tuple[int, ...] | None] = {}
        # Once a search has found no route: each sector's part of the map (sectors joined through sectors that
        # may be entered), 0 for those that cannot be entered; see `settle`.
        self.parts: list[int] | None = None

    def settle(self, grid: Grid) -> list[int]:
        """Every sector priced, and the map cut into parts, so that a goal in another part than every way out
        of the start is known to be out of reach at once: a search that finds no route explores all it can
        reach, a continent for a goal over the sea. A sector whose price stops the turn when asked is left
        to be asked by the search that enters it, as it would be without parts, and counts as one that may
        be entered."""
        values = self.values
        ask = self.ask
        for n in range(grid.size):
            if values[n] == _UNASKED:
                # A price that stops the turn stays unasked: the search that reaches it asks again, and stops then.
                with suppress(Exception):
                    values[n] = ask(n)
        adjacent = grid._adjacent
        parts = [0] * grid.size
        label = 0
        for s in range(grid.size):
            if parts[s] or values[s] == _IMPASSABLE:
                continue
            label += 1
            parts[s] = label
            todo = [s]
            while todo:
                for n in adjacent[todo.pop()]:
                    if not parts[n] and values[n] != _IMPASSABLE:
                        parts[n] = label
                        todo.append(n)
        self.parts = parts
        return parts

    def joined(self, grid: Grid, a: int, b: int) -> bool:
        """Whether b may be reached from a, by the parts (`settle` first): b in the part of a way out of a."""
        parts = self.parts
        assert parts is not None
        pb = parts[b]
        return pb != 0 and any(parts[n] == pb for n in grid._adjacent[a])


class Router:
    """The searches of one game: its map, the scratch lists every search reuses, and the prices kept."""

    __slots__ = ("_best", "_came", "_cols", "_mark", "_rows", "_search", "grid", "kept")

    def __init__(self, grid: Grid) -> None:
        self.grid = grid
        size = grid.size
        self._best = [0] * size
        self._came = [0] * size
        # _mark[s] == 2 * n: s is open in search n (its _best and _came hold); 2 * n + 1: s is done.
        self._mark = [0] * size
        self._search = 0
        self._rows: dict[int, list[int]] = {}
        self._cols: dict[int, list[int]] = {}
        self.kept: dict[Hashable, Prices] = {}

    @staticmethod
    def _axis(cache: dict[int, list[int]], x0: int, size: int, wrap: bool) -> list[int]:
        """Distances along one axis from x0, worked out once per row or column of the map (at most 99 + 320
        short lists for Warlord's), since a search would otherwise spend more on them than on a short route."""
        found = cache.get(x0)
        if found is None:
            found = cache[x0] = _axis_from(x0, size, wrap)
        return found

    def path(self, a: int, b: int, prices: Prices, bound: int = -1) -> list[int] | None:
        """The cheapest route from a to b over the prices (see the module's docstring): the sectors entered
        after a, ending with b ([] when a == b), or None when b cannot be reached; only sectors at distance
        <= bound from a are entered when bound >= 0. Each price is asked at most once, a's never."""
        if a == b:
            return []
        grid = self.grid
        if bound >= 0 and grid.distance(a, b) > bound:
            return None
        try:
            return self._search_from(a, b, prices, bound, 1)
        except _Free:
            return self._search_from(a, b, prices, bound, 0)

    def _search_from(self, a: int, b: int, prices: Prices, bound: int, least: int) -> list[int] | None:
        grid = self.grid
        width = grid.width
        height = grid.height
        row_of = grid._row_of
        col_of = grid._col_of
        adjacent = grid._adjacent
        size = grid.size
        # The estimate's two axes as lists for this goal (wrap-aware), so a sector's estimate is two reads.
        if least:
            h_row = self._axis(self._rows, row_of[b], height, grid.wrap_y)
            h_col = self._axis(self._cols, col_of[b], width, grid.wrap_x)
        else:
            h_row = [0] * height
            h_col = [0] * width
        # Outside the window a sector counts as impassable: its distance from a along an axis is over the bound.
        a_row = self._axis(self._rows, row_of[a], height, grid.wrap_y)
        a_col = self._axis(self._cols, col_of[a], width, grid.wrap_x)
        windowed = bound >= 0
        # Each heap entry is one int ordered as the (estimate total, estimate, sector) triple it packs: ints
        # compare much faster than tuples, and the order is the documented tie-breaking.
        s_bits = size.bit_length()
        s_mask = (1 << s_bits) - 1
        h_bits = (max(width, height) * least).bit_length()
        hs_bits = h_bits + s_bits
        values = prices.values
        ask = prices.ask
        best = self._best
        came = self._came
        mark = self._mark
        self._search += 1
        open_ = 2 * self._search
        done = open_ + 1
        best[a] = 0
        mark[a] = open_
        h0 = max(h_row[row_of[a]], h_col[col_of[a]])
        heap = [(h0 << hs_bits) | (h0 << s_bits) | a]
        pop = heappop
        push = heappush
        while heap:
            s = pop(heap) & s_mask
            if mark[s] == done:
                continue
            if s == b:
                route = [b]
                s = came[b]
                while s != a:
                    route.append(s)
                    s = came[s]
                route.reverse()
                return route
            mark[s] = done
            g = best[s]
            for n in adjacent[s]:
                m = mark[n]
                if m == done:
                    continue
                if windowed and (a_row[row_of[n]] > bound or a_col[col_of[n]] > bound):
                    continue
                p = values[n]
                if p < least:
                    # -2 (_UNASKED) and -1 (_IMPASSABLE) written as literals: a global's lookup per sector shows.
                    if p == -2:
                        p = values[n] = ask(n)
                        if p < least:
                            if p == -1:
                                continue
                            raise _Free
                    elif p == -1:
                        continue
                    else:
                        raise _Free
                g2 = g + p
                if m != open_ or g2 < best[n]:
                    best[n] = g2
                    came[n] = s
                    mark[n] = open_
                    hr = h_row[row_of[n]]
                    hc = h_col[col_of[n]]
                    hn = hr if hr > hc else hc
                    push(heap, ((g2 + hn) << hs_bits) | (hn << s_bits) | n)
        return None


def _axis_from(x0: int, size: int, wrap: bool) -> list[int]:
    """The distance of each position along one axis from x0, across a wrapping edge where shorter."""
    if wrap:
        return [min(abs(x - x0), size - abs(x - x0)) for x in range(size)]
    return [abs(x - x0) for x in range(size)]


def find(grid: Grid, a: int, b: int, cost: Callable[[int], int | None]) -> list[int] | None:
    """The cheapest route from a to b over a cost callable: the sectors entered after a, ending with b ([] when
    a == b), or None when b cannot be reached. cost(s) is the price of entering s, None when s is impassable,
    asked at most once per sector and never for a; a negative price raises ValueError. Ties as `Router.path`.

    Grid.path's contract until this search became the runtime's only one, less its `least` (the least price,
    for the estimate): the search takes 1, and 0 once it meets a free sector, which is what the rules' `path`
    always did; nothing in the runtime gave more, which only narrows the search and may pick another of
    equally cheap routes, never a cheaper one.
    """

    def ask(n: int) -> int:
        p = cost(n)
        if p is None:
            return _IMPASSABLE
        if p < 0:
            raise ValueError(f"cost({n}) is {p}: a price is 0 or more, or None where a sector cannot be entered")
        return p

    return Router(grid).path(a, b, Prices(grid.size, ask))


def _asker(g: Any, cost: Callable[[Any], int | None]) -> Callable[[int], int]:
    sectors = g.sectors

    def ask(n: int) -> int:
        p = cost(sectors[n])
        if p is None:
            return _IMPASSABLE
        if p < 0:
            raise SectorError(f"the cost of entering sector {sectors[n]._key} is {p}: a cost is 0 or more, "
                            "or none where a sector cannot be entered")
        return int(p)

    return ask


def _router(g: Any) -> Router:
    r: Router | None = g.routes
    if r is None:
        r = g.routes = Router(g.grid)
    return r


def route(g: Any, a: Any, b: Any, cost: Callable[[Any], int | None], bound: int | None = None) -> list[Any]:
    """`path(COST for x from a to b [within bound])`, COST asked afresh: the sectors entered after a, ending with
    b; [] when a is b or b cannot be reached (within `bound` of a, when given)."""
    if bound is not None and bound < 0:
        return []
    r = _router(g)
    found = r.path(a._ord, b._ord, Prices(r.grid.size, _asker(g, cost)), -1 if bound is None else bound)
    sectors = g.sectors
    return [] if found is None else [sectors[n] for n in found]


def route_priced(g: Any, site: int, key: tuple[Any, ...], a: Any, b: Any, cost: Callable[[Any], int | None],
                 bound: int | None = None) -> list[Any]:
    """`route`, where COST's prices depend only on `key` (the values the path reads that are fixed for the call)
    and on fields no rule changes once the game has started: the prices and the routes found are kept."""
    if g.starting:
        # A phase at start may still be changing what the prices read.
        return route(g, a, b, cost, bound)
    r = _router(g)
    kept = r.kept
    k = (site, key)
    prices = kept.get(k)
    if prices is None:
        if len(kept) >= KEPT_PRICES:
            del kept[next(iter(kept))]
        prices = kept[k] = Prices(r.grid.size, _asker(g, cost))
    else:
        # The lambda of this call reads the same values as the one that made the prices; asking through the
        # newest keeps no older frame alive.
        prices.ask = _asker(g, cost)
    if bound is not None and bound < 0:
        return []
    limit = -1 if bound is None else bound
    ia, ib = a._ord, b._ord
    wanted = (ia, ib, limit)
    if wanted in prices.routes:
        found: tuple[int, ...] | list[int] | None = prices.routes[wanted]
    else:
        if prices.parts is not None and ia != ib and not prices.joined(r.grid, ia, ib):
            found = None
        else:
            found = r.path(ia, ib, prices, limit)
            # (A goal outside the window was refused without a search: no reason to price the map.)
            if found is None and prices.parts is None and (limit < 0 or r.grid.distance(ia, ib) <= limit):
                prices.settle(r.grid)
        prices.routes[wanted] = None if found is None else tuple(found)
    sectors = g.sectors
    return [] if found is None else [sectors[n] for n in found]
