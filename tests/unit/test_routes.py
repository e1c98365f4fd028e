"""runtime/routes.py's search -> the same routes as grid.Grid.path on thousands of random maps, bounds and prices."""

from __future__ import annotations

import random

import pytest

from rulesdsl.runtime.grid import Grid
from rulesdsl.runtime.routes import Prices, Router


def _reference(grid: Grid, a: int, b: int, price: list[int | None], bound: int) -> list[int] | None:
    """What `path` gave before runtime/routes.py: grid.path with least 1, again with least 0 if a 0 is met;
    a bound as every sector further than it from a being impassable."""

    def cost(n: int) -> int | None:
        if bound >= 0 and grid.distance(a, n) > bound:
            return None
        return price[n]

    try:
        return grid.path(a, b, cost, 1)
    except ValueError:
        return grid.path(a, b, cost, 0)


def _asker(price: list[int | None], asked: list[int]) -> Prices:
    def ask(n: int) -> int:
        asked.append(n)
        p = price[n]
        return -1 if p is None else p

    return Prices(len(price), ask)


@pytest.mark.parametrize("seed", range(6))
def test_the_search_finds_grid_paths_route_on_random_maps(seed: int) -> None:
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
