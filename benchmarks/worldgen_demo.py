"""A seed -> a Warlord-like world made with rulesdsl.runtime.worldgen, printed as text, one character a sector.

Run: python benchmarks/worldgen_demo.py                  (seed 1, the whole 320 x 99 map)
     python benchmarks/worldgen_demo.py --seed 7 --rows 30 40

Made the way a ruleset would make it, with the library's functions only: three polar rows at each edge
kept as ice, 32% of the rest land in 6 continents, a few islands over the open sea, mountain ranges over
8% of the land, seven other terrain kinds in patches over the rest (what is left open), 250 cities
scattered at least 4 apart of which 100 are player homes spread as far apart as they can be, and 60
ruins. The shares and sizes are this demo's guesses, not the rulebook's (it prints none). Legend:
  ~ sea   # polar ice   . open   " woods   , barren   - marsh   n hills   : desert   T forest   & swamp
  ^ mountains   o city   @ player home   * ruin
Below the map: counts per terrain, the continents' sizes, and the least distances between homes and cities.
"""

from __future__ import annotations

import argparse
import random

from rulesdsl.runtime import worldgen as wg
from rulesdsl.runtime.grid import Grid

# Kind symbol, share of the land in percent, typical patch size in sectors.
KINDS = [
    ('"', 10, 14),  # woods
    (",", 8, 20),  # barren
    ("-", 4, 8),  # marsh
    ("n", 10, 12),  # hills
    (":", 8, 40),  # desert
    ("T", 10, 18),  # forest
    ("&", 4, 8),  # swamp
]
MOUNTAINS = ("^", 8, 12)  # symbol, share of the land, typical length of a range


def make(seed: int, width: int, height: int) -> tuple[Grid, list[str], dict[str, object]]:
    g = Grid(width, height, wrap_x=True)
    rng = random.Random(seed)
    polar = 3
    area = wg.band(g, polar, height - 1 - polar)
    land = wg.continents(g, rng, area, 32, 6)
    # Islands: a little land in the open sea, at least two sectors off any coast.
    is_land = set(land)
    near_coast = {n for s in wg.coast(g, land) for n in g.within(s, 2)}
    open_sea = [s for s in area if s not in is_land and s not in near_coast]
    islands = wg.continents(g, rng, open_sea, 1, 25)
    land = sorted(is_land.union(islands))
    mountains = wg.ranges(g, rng, land, MOUNTAINS[1], MOUNTAINS[2])
    high = set(mountains)
    kinds = wg.patches(g, rng, [s for s in land if s not in high], [k[1] for k in KINDS], [k[2] for k in KINDS])
    cities = wg.scatter(g, rng, land, 250, 4)
    notes: list[str] = []
    homes = wg.spread(g, rng, cities, 100, 8, on_short=notes.append)
    taken = set(cities)
    ruins = wg.scatter(g, rng, [s for s in land if s not in taken], 60, 3)

    cells = ["~"] * g.size
    for s in range(g.size):
        if g.row(s) < polar or g.row(s) >= height - polar:
            cells[s] = "#"
    for s in land:
        cells[s] = "."
    for (sym, _, _), got in zip(KINDS, kinds, strict=True):
        for s in got:
            cells[s] = sym
    for s in mountains:
        cells[s] = MOUNTAINS[0]
    for s in ruins:
        cells[s] = "*"
    for s in cities:
        cells[s] = "o"
    for s in homes:
        cells[s] = "@"
    rows = ["".join(cells[r * width : (r + 1) * width]) for r in range(height)]
    info: dict[str, object] = {
        "land": len(land),
        "area": len(area),
        "continents": [len(r) for r in wg.regions(g, land)],
        "homes apart": wg.least_distance(g, homes),
        "cities apart": wg.least_distance(g, cities),
        "cities": len(cities),
        "ruins": len(ruins),
        "notes": notes,
    }
    return g, rows, info


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--width", type=int, default=320)
    ap.add_argument("--height", type=int, default=99)
    ap.add_argument("--rows", type=int, nargs=2, metavar=("FIRST", "LAST"), help="print only these rows")
    ap.add_argument("--cols", type=int, nargs=2, metavar=("FIRST", "LAST"), help="print only these columns")
    args = ap.parse_args()
    _, rows, info = make(args.seed, args.width, args.height)
    first, last = args.rows if args.rows else (0, len(rows) - 1)
    c0, c1 = args.cols if args.cols else (0, args.width - 1)
    for r in range(first, last + 1):
        print(f"{r:2d} {rows[r][c0 : c1 + 1]}")
    print()
    for key, value in info.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
