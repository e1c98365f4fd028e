"""runtime/routes.py's search -> the same routes as the A* that was Grid.path (tests/unit/path_oracle.py) on
thousands of random maps, bounds and prices; `find`'s contract (cheapest against brute force, walls, wrap,
prices asked once, ties, determinism across hash seeds)."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest

from rulesdsl.runtime.grid import Grid
from rulesdsl.runtime.routes import Prices, Router, find
from tests.unit import path_oracle


def _reference(grid: Grid, a: int, b: int, price: list[int | None], bound: int) -> list[int] | None:
    """What `path` gave before runtime/routes.py: the oracle with least 1, again with least 0 if a 0 is met;
    a bound as every sector further than it from a being impassable."""

    def cost(n: int) -> int | None:
        if bound >= 0 and grid.distance(a, n) > bound:
            return None
        return price[n]

    try:
        return path_oracle.path(grid, a, b, cost, 1)
    except ValueError:
        return path_oracle.path(grid, a, b, cost, 0)


def _asker(price: list[int | None], asked: list[int]) -> Prices:
    def ask(n: int) -> int:
        asked.append(n)
        p = price[n]
        return -1 if p is None else p

    return Prices(len(price), ask)


@pytest.mark.parametrize("seed", range(6))
def test_the_search_finds_the_oracles_route_on_random_maps(seed: int) -> None:
    rng = random.Random(seed)
    cases = 0
    while cases < 1500:
        w, h = rng.randint(1, 14), rng.randint(1, 11)
        grid = Grid(w, h, wrap_x=rng.random() < 0.5, wrap_y=rng.random() < 0.3)
        walls = rng.choice((0.0, 0.15, 0.3, 0.5))
        top = rng.choice((1, 2, 3, 9))
        zero = rng.random() < 0.2
        price: list[int | None] = [None if rng.random() < walls else rng.randint(0 if zero else 1, top)
                                   for _ in range(grid.size)]
        router = Router(grid)
        shared = _asker(price, [])  # one price list for every search on this map, as route_priced keeps it
        for _ in range(8):
            a, b = rng.randrange(grid.size), rng.randrange(grid.size)
            bound = rng.choice((-1, -1, 0, 1, 2, 4, 7))
            want = _reference(grid, a, b, price, bound)
            asked: list[int] = []
            assert router.path(a, b, _asker(price, asked), bound) == want, (grid, a, b, bound, price)
            assert len(asked) == len(set(asked))  # each price asked at most once per search
            assert router.path(a, b, shared, bound) == want
            if bound < 0:
                assert find(grid, a, b, price.__getitem__) == want
            cases += 1


def test_the_search_asks_only_the_sectors_it_looks_at_and_none_outside_its_window() -> None:
    grid = Grid(60, 40, wrap_x=True)
    router = Router(grid)
    asked: list[int] = []
    price: list[int | None] = [1] * grid.size
    a = grid.sector(10, 20)
    far = grid.sector(50, 20)  # 20 steps west across the seam
    assert router.path(a, far, _asker(price, asked), 5) is None
    assert asked == []  # the goal is outside the window: nothing to look at
    # a wall all the way down column 12: the goal cannot be reached
    for row in range(grid.height):
        price[grid.sector(12, row)] = None
    behind = grid.sector(14, 20)
    assert router.path(a, behind, _asker(price, asked), 6) is None
    assert asked and all(grid.distance(a, n) <= 6 for n in asked)
    assert len(asked) <= 13 * 13


def cheapest(g: Grid, a: int, cost: dict[int, int | None]) -> dict[int, int]:
    """Bellman-Ford: relax every edge until nothing changes (no priority queue, nothing shared with A*)."""
    best = {a: 0}
    changed = True
    while changed:
        changed = False
        for s in range(g.size):
            if s not in best:
                continue
            for n in g.neighbours(s):
                p = cost[n]
                if p is None:
                    continue
                if n not in best or best[s] + p < best[n]:
                    best[n] = best[s] + p
                    changed = True
    return best


@pytest.mark.parametrize("seed", range(40))
def test_find_is_cheapest_against_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    g = Grid(rng.randint(1, 8), rng.randint(1, 7), wrap_x=rng.random() < 0.5, wrap_y=rng.random() < 0.3)
    least = rng.choice((0, 1))  # 0: free sectors, which restart the search without an estimate
    cost = {s: None if rng.random() < 0.3 else rng.randint(least, 4) for s in range(g.size)}
    for _ in range(6):
        a = rng.randrange(g.size)
        b = rng.randrange(g.size)
        truth = cheapest(g, a, cost)
        route = find(g, a, b, cost.get)
        if a == b:
            assert route == []
        elif b not in truth:
            assert route is None
        else:
            assert route is not None and route[-1] == b
            g.directions(a, route)  # every step adjacent
            assert g.route_cost(route, cost.get) == truth[b]
            assert find(g, a, b, cost.get) == route


def test_find_steers_around_a_wall_and_reports_unreachable() -> None:
    g = Grid(5, 5)
    wall = {g.sector(2, r) for r in range(4)}

    def cost(s: int) -> int | None:
        return None if s in wall else 1

    route = find(g, g.sector(0, 0), g.sector(4, 0), cost)
    assert route is not None and g.sector(2, 4) in route and len(route) == 8
    wall.add(g.sector(2, 4))
    assert find(g, g.sector(0, 0), g.sector(4, 0), cost) is None
    # the wall is no wall when the grid wraps east-west
    assert find(Grid(5, 5, wrap_x=True), g.sector(0, 0), g.sector(4, 0), cost) == [g.sector(4, 0)]


def test_find_asks_each_price_once_never_the_start_and_refuses_a_negative_price() -> None:
    g = Grid(6, 6)
    asked: list[int] = []

    def cost(s: int) -> int | None:
        asked.append(s)
        return 0 if s == 7 else 2  # a free sector: the search starts again, and still asks nothing twice

    assert find(g, 0, 35, cost) is not None
    assert 7 in asked and 0 not in asked
    assert len(asked) == len(set(asked))
    with pytest.raises(ValueError, match=r"cost\(1\) is -1: a price is 0 or more"):
        find(g, 0, 35, lambda s: -1)


def test_find_ties_are_broken_by_the_documented_order() -> None:
    # an open 3 x 3 map at price 1: from the north-west corner (0) the diagonal to the south-east corner (8) is
    # the one cheapest route; to the east edge's middle (5) two routes tie (through 1 or through 4), and the
    # documented order (lowest total, then lowest estimate, then lowest sector) expands 1 first, whose route
    # a later equal one does not replace.
    g = Grid(3, 3)
    assert find(g, 0, 8, lambda s: 1) == [4, 8]
    assert find(g, 0, 5, lambda s: 1) == [1, 5]


DETERMINISM = """
import random
from rulesdsl.runtime.grid import Grid
from rulesdsl.runtime.routes import find
rng = random.Random(7)
g = Grid(40, 30, wrap_x=True)
cost = {s: None if rng.random() < 0.35 else rng.randint(1, 3) for s in range(g.size)}
out = []
for _ in range(30):
    out.append(find(g, rng.randrange(g.size), rng.randrange(g.size), cost.get))
print(out)
"""


def test_routes_identical_under_other_hash_seeds() -> None:
    outs = set()
    for seed in ("0", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        run = subprocess.run([sys.executable, "-c", DETERMINISM], env=env, capture_output=True, text=True, check=True)
        outs.add(run.stdout)
    assert len(outs) == 1
    assert "[" in outs.pop()
