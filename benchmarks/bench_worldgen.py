"""A seed -> times of each step of making Warlord's full 320 x 99 world with rulesdsl.runtime.worldgen.

Run: python benchmarks/bench_worldgen.py
     python benchmarks/bench_worldgen.py --runs 5 --seed 3

Timed (CPU time of this process, time.process_time, median of --runs, each run a fresh stream), the steps
benchmarks/worldgen_demo.py takes, on Grid(320, 99, wrap_x=True) with three polar rows at each edge:
- continents: 32% of the 29,760 sectors outside the polar rows as land, in 6 continents;
- islands: 1% of the open sea (two sectors off any coast) in 25 islands, the open sea worked out included;
- ranges: mountain ranges over 8% of the land, about 12 sectors long;
- patches: seven other terrain kinds over the rest of the land, 54% of it in all, patches of 8 to 40;
- cities: 250 sites scattered over the land at least 4 apart;
- homes: 100 of the cities spread as far apart as they go (asked for 8);
- ruins: 60 sites over the land that is not a city, at least 3 apart;
- world: all of the above in one go, as `rulesdsl new` would run them.
Also printed: the least distance between homes, and between homes over all the land rather than the cities.

Figures on this machine (2 cores, Python 3.11, --runs 5, seed 1):
  continents 0.134 s; islands 0.112 s; ranges 0.002 s; patches 0.006 s; cities 0.002 s; homes 0.013 s;
  ruins 0.002 s; world 0.272 s (target: under 1 s; 0.36 s while other work ran beside it). Homes 8 apart
  among the cities (as asked); 100 homes spread over all the land instead: 12 apart (9,694 land sectors).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from rulesdsl.runtime import worldgen as wg
from rulesdsl.runtime.grid import Grid

WIDTH, HEIGHT, POLAR = 320, 99, 3
SHARES = [10, 8, 4, 10, 8, 10, 4]
SIZES = [14, 20, 8, 12, 40, 18, 8]


def timed(make: Callable[[random.Random], object], seed: int, runs: int) -> float:
    times: list[float] = []
    for _ in range(runs):
        rng = random.Random(seed)
        t = time.process_time()
        make(rng)
        times.append(time.process_time() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    g = Grid(WIDTH, HEIGHT, wrap_x=True)
    area = wg.band(g, POLAR, HEIGHT - 1 - POLAR)

    # Each step's inputs made once beforehand, so a step's time is its own.
    rng = random.Random(args.seed)
    land = wg.continents(g, rng, area, 32, 6)

    def open_sea(land: list[int]) -> list[int]:
        on_land = set(land)
        near = {x for s in wg.coast(g, land) for x in g.within(s, 2)}
        return [s for s in area if s not in on_land and s not in near]

    islands = wg.continents(g, rng, open_sea(land), 1, 25)
    land = sorted(set(land).union(islands))
    high = set(wg.ranges(g, rng, land, 8, 12))
    low = [s for s in land if s not in high]
    cities = wg.scatter(g, rng, land, 250, 4)
    taken = set(cities)
    not_city = [s for s in land if s not in taken]

    def world(r: random.Random) -> None:
        base = wg.continents(g, r, area, 32, 6)
        isl = wg.continents(g, r, open_sea(base), 1, 25)
        all_land = sorted(set(base).union(isl))
        mountains = set(wg.ranges(g, r, all_land, 8, 12))
        wg.patches(g, r, [s for s in all_land if s not in mountains], SHARES, SIZES)
        cs = wg.scatter(g, r, all_land, 250, 4)
        wg.spread(g, r, cs, 100, 8)
        in_city = set(cs)
        wg.scatter(g, r, [s for s in all_land if s not in in_city], 60, 3)

    steps: list[tuple[str, Callable[[random.Random], object]]] = [
        ("continents", lambda r: wg.continents(g, r, area, 32, 6)),
        ("islands", lambda r: wg.continents(g, r, open_sea(land), 1, 25)),
        ("ranges", lambda r: wg.ranges(g, r, land, 8, 12)),
        ("patches", lambda r: wg.patches(g, r, low, SHARES, SIZES)),
        ("cities", lambda r: wg.scatter(g, r, land, 250, 4)),
        ("homes", lambda r: wg.spread(g, r, cities, 100, 8)),
        ("ruins", lambda r: wg.scatter(g, r, not_city, 60, 3)),
        ("world", world),
    ]
    for name, make in steps:
        print(f"{name:<11} {timed(make, args.seed, args.runs):.3f} s")
    homes = wg.spread(g, random.Random(args.seed), cities, 100, 8)
    anywhere = wg.spread(g, random.Random(args.seed), land, 100, 8)
    print(
        f"homes among the cities {wg.least_distance(g, homes)} apart; over all the land "
        f"{wg.least_distance(g, anywhere)} apart ({len(land)} land sectors, {len(cities)} cities)"
    )


if __name__ == "__main__":
    main()
