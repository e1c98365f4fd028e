"""runtime/worldgen.py: grids, seeds and shares -> worlds checked for exact shares, spacing, shape and
determinism (same seed, same world; candidates' order and the hash seed change nothing)."""

from __future__ import annotations

import hashlib
import itertools
import os
import random
import subprocess
import sys

import pytest

from rulesdsl.runtime import worldgen as wg
from rulesdsl.runtime.grid import Grid

WORLD = Grid(320, 99, wrap_x=True)
POLAR = 3


def world_area(g: Grid = WORLD) -> list[int]:
    return wg.band(g, POLAR, g.height - 1 - POLAR)


def regions_touch_within(g: Grid, regions: list[list[int]], r: int) -> bool:
    """Whether a sector of one region is within r of a sector of another."""
    label = {s: i for i, reg in enumerate(regions) for s in reg}
    return any(label.get(x, i) != i for i, reg in enumerate(regions) for s in wg.coast(g, reg) for x in g.within(s, r))


# -- helpers ----------------------------------------------------------------------------------------------


def test_band_is_whole_rows_clipped_to_the_map() -> None:
    g = Grid(4, 5)
    assert wg.band(g, 1, 2) == list(range(4, 12))
    assert wg.band(g, -3, 0) == [0, 1, 2, 3]
    assert wg.band(g, 4, 99) == [16, 17, 18, 19]
    assert wg.band(g, 3, 2) == []


def test_coast_is_the_members_next_to_a_non_member() -> None:
    g = Grid(5, 5)
    square = [s for s in range(25) if 1 <= g.col(s) <= 3 and 1 <= g.row(s) <= 3]
    assert wg.coast(g, square) == [s for s in square if s != 12]
    # A map edge is not sea: the whole map has no coast.
    assert wg.coast(g, range(25)) == []


def test_regions_join_diagonals_and_the_wrap_largest_first() -> None:
    g = Grid(6, 3, wrap_x=True)
    # 0 and 7 touch diagonally; 5 touches 0 across the east-west wrap; 3 stands alone; 15 and 16 a pair.
    got = wg.regions(g, [16, 7, 0, 5, 3, 15])
    assert got == [[0, 5, 7], [15, 16], [3]]
    assert wg.regions(Grid(6, 3), [0, 5]) == [[0], [5]]  # no wrap: two regions, the lower first


def test_least_distance_counts_each_sector_once() -> None:
    g = Grid(10, 10, wrap_x=True)
    assert wg.least_distance(g, [0, 0]) == 0
    assert wg.least_distance(g, []) == 0
    assert wg.least_distance(g, [0, 9]) == 1  # across the wrap
    assert wg.least_distance(g, [0, 55, 5]) == 5


def test_sectors_off_the_map_are_refused() -> None:
    g = Grid(4, 4)
    rng = random.Random(1)
    with pytest.raises(ValueError, match="16 is not a sector of the 4 x 4 map"):
        wg.continents(g, rng, [0, 16], 50, 1)
    with pytest.raises(ValueError, match="-1 is not a sector"):
        wg.spread(g, rng, [-1, 3], 1, 1)
    with pytest.raises(ValueError, match="99 is not a sector"):
        wg.coast(g, [99])


# -- noise ------------------------------------------------------------------------------------------------


def test_noise_is_even_deterministic_and_seamless_across_the_wrap() -> None:
    g = Grid(120, 40, wrap_x=True)
    a = wg.noise(g, random.Random(3), 20)
    assert a == wg.noise(g, random.Random(3), 20)
    assert a != wg.noise(g, random.Random(4), 20)
    assert len(a) == g.size and min(a) == 0 and max(a) == 999
    # Evenly spread: each tenth of the range holds a tenth of the sectors.
    for tenth in range(10):
        share = sum(1 for v in a if tenth * 100 <= v < tenth * 100 + 100) / g.size
        assert 0.09 < share < 0.11

    # Smooth, and no seam: the step from the last column to the first is like any other column step.
    def step(c1: int, c2: int) -> float:
        return sum(abs(a[r * g.width + c1] - a[r * g.width + c2]) for r in range(g.height)) / g.height

    inner = sum(step(c, c + 1) for c in range(g.width - 1)) / (g.width - 1)
    assert inner < 60  # neighbours differ by a few hundredths of the range, not at random (~333)
    assert step(g.width - 1, 0) < 3 * inner


def test_noise_refuses_a_scale_below_one() -> None:
    with pytest.raises(ValueError, match="scale must be at least 1"):
        wg.noise(Grid(4, 4), random.Random(1), 0)


# -- continents -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("seed", "percent", "count"), [(1, 32, 6), (2, 25, 4), (7, 40, 7)])
def test_continents_exact_share_count_apart_and_inside_the_area(seed: int, percent: int, count: int) -> None:
    area = world_area()
    land = wg.continents(WORLD, random.Random(seed), area, percent, count)
    assert land == sorted(set(land))
    assert len(land) == (percent * len(area) * 2 + 100) // 200
    assert set(land) <= set(area)
    regions = wg.regions(WORLD, land)
    assert len(regions) == count
    assert not regions_touch_within(WORLD, regions, 2)  # two sea sectors between continents
    # Land masses, not noise or slivers: no continent under a third of an even share, and coasts a small
    # part of the land (a speckled map would be nearly all coast).
    assert min(len(r) for r in regions) > len(land) / count / 3
    assert len(wg.coast(WORLD, land)) < 0.3 * len(land)


def test_continents_same_seed_same_land_whatever_the_order_of_the_area() -> None:
    area = world_area()
    a = wg.continents(WORLD, random.Random(5), area, 30, 5)
    assert wg.continents(WORLD, random.Random(5), area[::-1], 30, 5) == a
    assert wg.continents(WORLD, random.Random(6), area, 30, 5) != a


def test_continents_share_rounds_half_up_and_zero_is_no_land() -> None:
    g = Grid(10, 3)
    assert len(wg.continents(g, random.Random(1), range(30), 5, 1)) == 2  # 1.5 -> 2
    assert len(wg.continents(g, random.Random(1), range(30), 4, 1)) == 1  # 1.2 -> 1
    assert wg.continents(g, random.Random(1), range(30), 0, 3) == []
    assert wg.continents(g, random.Random(1), range(30), 100, 3) == list(range(30))


def test_continents_too_crowded_to_keep_apart_still_make_the_exact_share() -> None:
    g = Grid(40, 20)
    land = wg.continents(g, random.Random(2), range(g.size), 85, 6)
    assert len(land) == 680
    assert 1 <= len(wg.regions(g, land)) < 6


def test_continents_add_islands_over_the_open_sea() -> None:
    area = world_area()
    rng = random.Random(9)
    land = wg.continents(WORLD, rng, area, 30, 5)
    near = {x for s in wg.coast(WORLD, land) for x in WORLD.within(s, 2)}
    on_land = set(land)
    sea = [s for s in area if s not in near and s not in on_land]
    islands = wg.continents(WORLD, rng, sea, 1, 20)
    assert len(wg.regions(WORLD, islands)) == 20
    assert not set(islands) & near


def test_continents_refuse_bad_shares_and_counts() -> None:
    g = Grid(4, 4)
    with pytest.raises(ValueError, match=r"land_percent must be 0\.\.100"):
        wg.continents(g, random.Random(1), range(16), 101, 1)
    with pytest.raises(ValueError, match="count of at least 1"):
        wg.continents(g, random.Random(1), range(16), 50, 0)


# -- patches ----------------------------------------------------------------------------------------------


def test_patches_exact_disjoint_inside_the_area_and_clumped() -> None:
    area = world_area()
    land = wg.continents(WORLD, random.Random(1), area, 32, 6)
    shares = [10, 8, 4, 10, 8, 10, 4, 8]
    kinds = wg.patches(WORLD, random.Random(1), land, shares, [14, 20, 8, 12, 40, 18, 8, 10])
    n = len(land)
    # Cumulative shares rounded half up: each count is the difference of two rounded running totals.
    running = list(itertools.accumulate(shares))
    want = [
        (p * n * 2 + 100) // 200 - (q * n * 2 + 100) // 200 for p, q in zip(running, [0, *running[:-1]], strict=True)
    ]
    assert [len(k) for k in kinds] == want
    assert sum(want) == (sum(shares) * n * 2 + 100) // 200
    seen: set[int] = set()
    for k in kinds:
        assert k == sorted(k)
        assert not seen & set(k)
        seen |= set(k)
    assert seen <= set(land)
    # Clumped: a patch sector's neighbours on land are mostly of its own kind, where a random choice of
    # the same counts would give about its kind's share (10% or less).
    kind_of = {s: i for i, k in enumerate(kinds) for s in k}
    on_land = set(land)
    same = total = 0
    for s, i in kind_of.items():
        for nb in WORLD.neighbours(s):
            if nb in on_land:
                total += 1
                same += kind_of.get(nb) == i
    assert same / total > 0.5


def test_patches_same_seed_same_patches_and_all_of_a_small_area() -> None:
    g = Grid(12, 8)
    area = list(range(g.size))
    a = wg.patches(g, random.Random(4), area, [50, 30, 20], [6, 6, 6])
    assert a == wg.patches(g, random.Random(4), area[::-1], [50, 30, 20], [6, 6, 6])
    assert sorted(s for k in a for s in k) == area
    assert [len(k) for k in a] == [48, 29, 19]


def test_patches_refuse_shares_over_100_and_mismatched_sizes() -> None:
    g = Grid(4, 4)
    with pytest.raises(ValueError, match="add up to at most 100"):
        wg.patches(g, random.Random(1), range(16), [60, 50], [3, 3])
    with pytest.raises(ValueError, match="one size per share"):
        wg.patches(g, random.Random(1), range(16), [10], [3, 3])


def elongation(g: Grid, sectors: list[int]) -> float:
    """How drawn out the regions of `sectors` of 8 or more are: their widest distance over the square
    root of their size, on average (about 1 for a round blob, several for a line)."""
    shapes = [r for r in wg.regions(g, sectors) if len(r) >= 8]
    assert shapes
    return sum(max(g.distance(a, b) for a in r for b in r) / len(r) ** 0.5 for r in shapes) / len(shapes)


def test_ranges_exact_inside_the_area_and_drawn_out_unlike_patches() -> None:
    area = world_area()
    land = wg.continents(WORLD, random.Random(1), area, 32, 6)
    chains = wg.ranges(WORLD, random.Random(2), land, 8, 12)
    assert chains == sorted(set(chains))
    assert len(chains) == (8 * len(land) * 2 + 100) // 200
    assert set(chains) <= set(land)
    (blobs,) = wg.patches(WORLD, random.Random(2), land, [8], [12])
    assert elongation(WORLD, chains) > 1.3 * elongation(WORLD, blobs)  # about 1.5 here; blobs 1.0
    assert wg.ranges(WORLD, random.Random(2), land[::-1], 8, 12) == chains


def test_ranges_fill_a_small_area_and_refuse_bad_arguments() -> None:
    g = Grid(6, 4)
    assert wg.ranges(g, random.Random(1), range(g.size), 100, 5) == list(range(g.size))
    assert wg.ranges(g, random.Random(1), range(g.size), 0, 5) == []
    with pytest.raises(ValueError, match="length must be at least 1"):
        wg.ranges(g, random.Random(1), range(g.size), 10, 0)
    with pytest.raises(ValueError, match=r"percent must be 0\.\.100"):
        wg.ranges(g, random.Random(1), range(g.size), -1, 3)


# -- spread and scatter -----------------------------------------------------------------------------------


def test_spread_on_the_whole_world_reaches_the_lattice_spacing() -> None:
    # 100 sites 19 apart would need 16 columns x 6 rows = 96 places at most (320 // 19, 98 // 19 + 1): 18
    # is the best there is, and the row-by-row order finds it.
    notes: list[str] = []
    sites = wg.spread(WORLD, random.Random(1), range(WORLD.size), 100, 12, on_short=notes.append)
    assert len(sites) == 100 and sites == sorted(set(sites))
    assert wg.least_distance(WORLD, sites) == 18
    assert notes == []


def best_possible(g: Grid, cands: list[int], n: int) -> int:
    return max(wg.least_distance(g, c) for c in itertools.combinations(cands, n))


@pytest.mark.parametrize(("width", "height", "wrap", "n"), [(5, 5, False, 4), (10, 1, False, 4), (7, 3, True, 3)])
def test_spread_finds_the_best_spacing_on_small_maps(width: int, height: int, wrap: bool, n: int) -> None:
    g = Grid(width, height, wrap_x=wrap)
    cands = list(range(g.size))
    sites = wg.spread(g, random.Random(1), cands, n, 1)
    assert wg.least_distance(g, sites) == best_possible(g, cands, n)


def test_spread_falls_back_to_the_largest_spacing_and_says_so() -> None:
    g = Grid(10, 1)
    notes: list[str] = []
    sites = wg.spread(g, random.Random(2), range(10), 4, 5, on_short=notes.append)
    assert sites == [0, 3, 6, 9]
    assert notes == ["spread: 4 sites fit only 3 apart, not 5"]
    notes.clear()
    assert wg.spread(g, random.Random(2), [1, 4], 3, 2, on_short=notes.append) == [1, 4]
    assert notes == ["spread: only 2 candidates for 3 sites"]
    assert wg.spread(g, random.Random(2), range(10), 0, 2) == []


def test_spread_keeps_to_candidates_and_ignores_their_order() -> None:
    land = wg.continents(WORLD, random.Random(3), world_area(), 30, 6)
    cities = wg.scatter(WORLD, random.Random(3), land, 250, 4)
    homes = wg.spread(WORLD, random.Random(8), cities, 100, 6)
    assert set(homes) <= set(cities) and len(homes) == 100
    assert wg.least_distance(WORLD, homes) >= 6
    assert wg.spread(WORLD, random.Random(8), cities[::-1], 100, 6) == homes


def test_scatter_keeps_its_spacing_and_returns_fewer_when_they_do_not_fit() -> None:
    g = Grid(30, 30)
    sites = wg.scatter(g, random.Random(1), range(g.size), 20, 5)
    assert len(sites) == 20 and wg.least_distance(g, sites) >= 5
    crowded = wg.scatter(g, random.Random(1), range(g.size), 500, 5)
    assert len(crowded) < 500 and wg.least_distance(g, crowded) >= 5
    assert crowded == wg.scatter(g, random.Random(1), range(g.size - 1, -1, -1), 500, 5)
    assert len(wg.scatter(g, random.Random(1), range(g.size), 50, 1)) == 50


def test_small_maps_of_every_shape_keep_every_promise() -> None:
    # Random small grids, wraps, areas, shares and counts (one seeded stream, so the cases are fixed).
    cases = random.Random(0)
    for case in range(400):
        g = Grid(cases.randint(1, 12), cases.randint(1, 9), wrap_x=cases.random() < 0.5, wrap_y=cases.random() < 0.3)
        area = cases.sample(range(g.size), cases.randint(0, g.size))
        percent, count = cases.randint(0, 100), cases.randint(1, 6)
        rng = random.Random(case)
        land = wg.continents(g, rng, area, percent, count)
        assert len(land) == (percent * len(area) * 2 + 100) // 200
        assert set(land) <= set(area)
        shares = [cases.randint(0, 30) for _ in range(cases.randint(0, 3))]
        kinds = wg.patches(g, rng, land, shares, [cases.randint(1, 6) for _ in shares])
        assert sum(map(len, kinds)) == (sum(shares) * len(land) * 2 + 100) // 200
        percent = cases.randint(0, 100)
        chains = wg.ranges(g, rng, land, percent, cases.randint(1, 8))
        assert len(chains) == len(set(chains)) == (percent * len(land) * 2 + 100) // 200
        n, spacing = cases.randint(0, 8), cases.randint(0, 6)
        assert len(wg.spread(g, rng, area, n, spacing)) == min(n, len(area))
        sites = wg.scatter(g, rng, area, n, spacing)
        assert len(set(sites)) == len(sites) <= n
        assert len(sites) < 2 or wg.least_distance(g, sites) >= spacing


# -- determinism across processes ------------------------------------------------------------------------

WORLD_SCRIPT = """
import hashlib, random
from rulesdsl.runtime import worldgen as wg
from rulesdsl.runtime.grid import Grid
g = Grid(160, 50, wrap_x=True)
rng = random.Random(11)
land = wg.continents(g, rng, wg.band(g, 2, 47), 32, 5)
kinds = wg.patches(g, rng, land, [10, 10, 5], [10, 20, 6])
cities = wg.scatter(g, rng, land, 60, 3)
homes = wg.spread(g, rng, cities, 20, 5)
print(hashlib.sha256(repr((land, kinds, cities, homes)).encode()).hexdigest())
"""


def test_same_world_under_any_hash_seed() -> None:
    outs = set()
    for seed in ("0", "1", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        run = subprocess.run([sys.executable, "-c", WORLD_SCRIPT], env=env, capture_output=True, text=True, check=True)
        outs.add(run.stdout)
    assert len(outs) == 1
    assert len(outs.pop().strip()) == len(hashlib.sha256().hexdigest())
