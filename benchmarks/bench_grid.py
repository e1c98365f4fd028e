"""Warlord's full 320 x 99 map (east-west wrap) -> times of runtime/grid.py's build, reads and ranges, and of
runtime/routes.py's find.

Run: python benchmarks/bench_grid.py
     python benchmarks/bench_grid.py --runs 5 --seed 3

Timed (CPU time of this process, time.process_time, median of --runs):
- build: Grid(320, 99, wrap_x=True), the neighbour tables included;
- neighbour: 1,000,000 reads of grid.neighbour(s, d), sectors and directions drawn beforehand;
- within: 10,000 calls of grid.within(s, 3) (49 sectors each away from the polar rows);
- path: 1,000 routes.find(grid, a, b, cost) between sectors 45..55 king moves apart, on a map where a seeded
  30% of sectors are impassable and the rest cost 1..3 (as a terrain table would), the cost a dict's get.
Pairs with no route still count (a failed search explores everything it can reach, as the A order's would).

Figures on this machine (2 cores, Python 3.11, --runs 3, seed 1), at the commit adding this script:
  build 0.039 s; neighbour x 1,000,000 0.058 s (58 ns a read); within(s, 3) x 10,000 0.029 s (2.9 us a call);
  path x 1,000 1.45 s (1.45 ms a path; 999 found, 55.0 steps on average, 1 with no route).
When routes.find took the place of Grid.path (routes.py's search the runtime's only one), path x 1,000 was
1.55 s before and 1.53 / 1.55 s after on this machine, the same routes (a fresh Router's scratch lists per
call cost what Grid.path's fresh lists did).
A path costs most where prices vary (1..3 here): the estimate counts every step at the cheapest price, so
A* widens its search toward Dijkstra's; on uniform prices it walks nearly straight.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from rulesdsl.runtime.grid import Grid
from rulesdsl.runtime.routes import find

WIDTH, HEIGHT = 320, 99


def timed(fn: Callable[[], object], runs: int) -> float:
    times: list[float] = []
    for _ in range(runs):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)

    build = timed(lambda: Grid(WIDTH, HEIGHT, wrap_x=True), args.runs)
    g = Grid(WIDTH, HEIGHT, wrap_x=True)

    reads = [(rng.randrange(g.size), rng.randint(1, 8)) for _ in range(1_000_000)]

    def read_all() -> None:
        nb = g.neighbour
        for s, d in reads:
            nb(s, d)

    neighbour = timed(read_all, args.runs)

    centres = [rng.randrange(g.size) for _ in range(10_000)]

    def ranges() -> None:
        w = g.within
        for s in centres:
            w(s, 3)

    within = timed(ranges, args.runs)

    cost: dict[int, int | None] = {s: None if rng.random() < 0.3 else rng.randint(1, 3) for s in range(g.size)}
    pairs: list[tuple[int, int]] = []
    while len(pairs) < 1000:
        a = rng.randrange(g.size)
        if cost[a] is None:
            continue
        b = g.sector((g.col(a) + rng.randint(45, 55) * rng.choice((-1, 1))) % WIDTH, rng.randrange(HEIGHT))
        if cost[b] is None or not 45 <= g.distance(a, b) <= 55:
            continue
        pairs.append((a, b))
    found: list[int] = []

    def paths() -> None:
        found.clear()
        get = cost.get
        for a, b in pairs:
            route = find(g, a, b, get)
            if route is not None:
                found.append(len(route))

    path = timed(paths, args.runs)

    print(f"grid {WIDTH} x {HEIGHT}, wrap_x; CPU seconds, median of {args.runs}")
    print(f"  build                       {build:8.4f} s")
    print(f"  neighbour x 1,000,000       {neighbour:8.4f} s  ({neighbour * 1e3:.0f} ns a read)")
    print(f"  within(s, 3) x 10,000       {within:8.4f} s  ({within * 1e2:.1f} us a call)")
    mean = statistics.mean(found) if found else 0
    print(
        f"  path x 1,000                {path:8.4f} s  ({path:.2f} ms a path; {len(found)} found, "
        f"{mean:.1f} steps on average, {1000 - len(found)} with no route)"
    )


if __name__ == "__main__":
    main()
