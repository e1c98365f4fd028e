"""A grid, two sectors and a cost callable -> the cheapest route, by the A* that was Grid.path until
runtime/routes.py's search became the runtime's only one: kept here, unchanged, as the oracle that
tests/unit/test_routes.py holds that search to (same route, ties included, on thousands of random maps), so
a change to the search that changes a route fails a test rather than a game.

`least` is the old contract's: every price is at least `least` (the estimate is distance * least); the
runtime's search takes 1, and 0 once it meets a free sector, which is `path(..., 1)` falling back to
`path(..., 0)` on the ValueError here.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

from rulesdsl.runtime.grid import Grid


def path(grid: Grid, a: int, b: int, cost: Callable[[int], int | None], least: int = 1) -> list[int] | None:
    """The cheapest route from a to b: the sectors entered after a, ending with b ([] when a == b), or None
    when b cannot be reached. cost(s) is the price of entering s, None when s is impassable; a's own price
    is never asked for. `least` must be at most every price (0 allows free sectors; a price below it
    raises ValueError, since the estimate would no longer be a lower bound).

    A* with the estimate distance * least, which never overstates (each step closes the king distance by
    at most one and costs at least `least`) and is consistent, so a sector's first expansion is final.
    Ties are broken so that the same inputs give the same route in every process: the open sector with
    the lowest (cost so far + estimate, estimate, sector number) is expanded first, its neighbours are
    tried in direction order 1..8, and a route to a sector is replaced only by a strictly cheaper one.
    cost(s) is called at most once per sector per search.
    """
    if a == b:
        return []
    if least < 0:
        raise ValueError(f"least={least}: a price is never below 0")
    # Each heap entry is one int ordered as the (estimate total, estimate, sector) triple it packs, as in
    # routes.py: the same packing is what gives the two the same order, and so the same ties.
    size = grid.size
    width = grid.width
    height = grid.height
    wrap_x = grid.wrap_x
    wrap_y = grid.wrap_y
    row_of = grid._row_of
    col_of = grid._col_of
    adjacent = grid._adjacent
    rb = row_of[b]
    cb = col_of[b]
    s_bits = size.bit_length()
    s_mask = (1 << s_bits) - 1
    h_bits = (max(width, height) * least).bit_length()
    hs_bits = h_bits + s_bits
    price = [-2] * size  # -2: not asked yet, -1: impassable
    best = [-1] * size  # cheapest cost so far; -1: none yet
    came = [-1] * size
    done = bytearray(size)
    best[a] = 0
    h0 = grid.distance(a, b) * least
    heap = [(h0 << hs_bits) | (h0 << s_bits) | a]
    pop = heapq.heappop
    push = heapq.heappush
    while heap:
        s = pop(heap) & s_mask
        if done[s]:
            continue
        if s == b:
            route = [b]
            s = came[b]
            while s != a:
                route.append(s)
                s = came[s]
            route.reverse()
            return route
        done[s] = 1
        g = best[s]
        for n in adjacent[s]:
            if done[n]:
                continue
            p = price[n]
            if p == -2:
                asked = cost(n)
                if asked is None:
                    price[n] = -1
                    continue
                if asked < least:
                    raise ValueError(f"cost({n}) is {asked}, below least={least}")
                price[n] = p = asked
            elif p == -1:
                continue
            g2 = g + p
            old = best[n]
            if old < 0 or g2 < old:
                best[n] = g2
                came[n] = s
                dr = row_of[n] - rb
                if dr < 0:
                    dr = -dr
                if wrap_y and height - dr < dr:
                    dr = height - dr
                dc = col_of[n] - cb
                if dc < 0:
                    dc = -dc
                if wrap_x and width - dc < dc:
                    dc = width - dc
                hn = (dr if dr > dc else dc) * least
                push(heap, ((g2 + hn) << hs_bits) | (hn << s_bits) | n)
    return None
