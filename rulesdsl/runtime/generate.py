"""Sectors, whole numbers and a random stream from generated code -> the world generation builtins' lists of sectors.

Each function is one builtin of rulesdsl/builtins.py (`continents`, `patches`, `ranges`, `spread`, `scatter`,
`band`, `coast`, `regions`, `least_distance`, `away_from`): it turns the sectors it is given into ints (`_ord`), calls
runtime/worldgen.py over the game's grid, and turns the ints back into sectors, in map order. Arguments the
library would refuse (a percent of 130) stop the turn with a sentence a designer can act on, at the rules
line, as a direction outside 0..8 does.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from rulesdsl.runtime import worldgen
from rulesdsl.runtime.forced import not_forceable
from rulesdsl.runtime.sectors import SectorError


def _ords(sectors: Iterable[Any]) -> list[int]:
    return [s._ord for s in sectors]


def _things(g: Any, found: list[int]) -> list[Any]:
    sectors = g.sectors
    return [sectors[i] for i in found]


def _at_least(func: str, what: str, value: int, low: int) -> None:
    if value < low:
        raise SectorError(f"{func}: {what} is {value}; it must be {low} or more")


def _percent(func: str, value: int) -> None:
    if not 0 <= value <= 100:
        raise SectorError(f"{func}: the percent is {value}; it must be from 0 to 100")


def continents(g: Any, rng: random.Random, area: Iterable[Any], percent: int, count: int) -> list[Any]:
    not_forceable("continents", rng)
    _percent("continents", percent)
    _at_least("continents", "the count of continents", count, 1)
    return _things(g, worldgen.continents(g.grid, rng, _ords(area), percent, count))


def patches(g: Any, rng: random.Random, area: Iterable[Any], n: int, size: int) -> list[Any]:
    """n sectors of the area (all of it if it has no more) in clumps of about `size`. The library shares
    out percents among several kinds at once; the language calls once per kind, over the sectors still free,
    with a count, which is exact: the count is made a share of the area here, for one kind."""
    not_forceable("patches", rng)
    _at_least("patches", "the number of sectors", n, 0)
    _at_least("patches", "the size of a patch", size, 1)
    cells = sorted(set(_ords(area)))
    return _things(g, worldgen.patch_counts(g.grid, rng, cells, [min(n, len(cells))], [size])[0])


def ranges(g: Any, rng: random.Random, area: Iterable[Any], n: int, length: int) -> list[Any]:
    not_forceable("ranges", rng)
    _at_least("ranges", "the number of sectors", n, 0)
    _at_least("ranges", "the length of a range", length, 1)
    cells = sorted(set(_ords(area)))
    return _things(g, worldgen.range_count(g.grid, rng, cells, min(n, len(cells)), length))


def spread(g: Any, rng: random.Random, candidates: Iterable[Any], n: int, spacing: int) -> list[Any]:
    not_forceable("spread", rng)
    _at_least("spread", "the number of sites", n, 0)
    return _things(g, worldgen.spread(g.grid, rng, _ords(candidates), n, spacing))


def scatter(g: Any, rng: random.Random, candidates: Iterable[Any], n: int, spacing: int) -> list[Any]:
    not_forceable("scatter", rng)
    _at_least("scatter", "the number of sites", n, 0)
    return _things(g, worldgen.scatter(g.grid, rng, _ords(candidates), n, spacing))


def band(g: Any, first_row: int, last_row: int) -> list[Any]:
    return _things(g, worldgen.band(g.grid, first_row, last_row))


def coast(g: Any, sectors: Iterable[Any]) -> list[Any]:
    return _things(g, worldgen.coast(g.grid, _ords(sectors)))


def regions(g: Any, sectors: Iterable[Any]) -> list[list[Any]]:
    return [_things(g, r) for r in worldgen.regions(g.grid, _ords(sectors))]


def least_distance(g: Any, sectors: Iterable[Any]) -> int:
    return worldgen.least_distance(g.grid, _ords(sectors))


def away_from(g: Any, candidates: Iterable[Any], avoid: Iterable[Any], spacing: int) -> list[Any]:
    return _things(g, worldgen.away_from(g.grid, _ords(candidates), _ords(avoid), spacing))
