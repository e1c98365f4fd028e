"""Sectors (the Things of a game's grid) and numbers -> the grid builtins generated code calls: neighbours,
distances, ranges, windows and flood fills
(routes: runtime/routes.py).

Each function takes the game first and reads its `grid` (runtime/grid.py: sectors as ints) and its `sectors`
(the Thing of each int, `sectors[i]._ord == i`): the library works in ints, the rules in sectors.
"""

from __future__ import annotations

from typing import Any

from rulesdsl.runtime.grid import STEPS


def fill(g: Any, sectors: list[Any], f: Any) -> None:
    """Every sector's `f` at its default: worked out once, copied per sector only if it could change in place."""
    attr = f.attr
    if f.type[0] == "map":
        for s in sectors:
            setattr(s, attr, {})
        return
    value = f.default(g)
    if isinstance(value, list):
        for s in sectors:
            setattr(s, attr, list(value))
    else:
        for s in sectors:
            setattr(s, attr, value)


def reset(g: Any) -> None:
    """Fields `reset each turn` back at their defaults, one pass per such field."""
    spec = g.spec.grid
    if spec is None:
        return
    for f in spec.fields:
        if f.reset_each_turn:
            fill(g, g.sectors, f)


class SectorError(IndexError):
    """A grid function asked for something that is not there (direction 9): the turn stops with this message.
    An IndexError, so that the engine shows the message as it is, as for a list position that is not there."""


def neighbour(g: Any, s: Any, d: int) -> Any:
    if d.__class__ is not int or not 0 <= d <= 8:
        raise SectorError(f"neighbour({s._key}, {d}): there is no direction {d}; directions are 1 (north) "
                          "clockwise to 8 (north-west), and 0 is the sector itself")
    n = g.grid._step[s._ord][d]
    return None if n is None else g.sectors[n]


def neighbours(g: Any, s: Any) -> list[Any]:
    sectors = g.sectors
    return [sectors[n] for n in g.grid._adjacent[s._ord]]


def distance(g: Any, a: Any, b: Any) -> int:
    return int(g.grid.distance(a._ord, b._ord))


def _delta(x: int, size: int, wrap: bool) -> int:
    """The shorter signed way along one axis: across a wrapping edge where that is shorter (a tie goes the
    way it was measured, so the answer does not depend on anything but the two sectors)."""
    if wrap and abs(x) * 2 > size:
        x -= size if x > 0 else -size
    return x


def direction(g: Any, a: Any, b: Any) -> int:
    """The direction code of the first step of a straight line from a to b (0 if a is b): after k of n steps
    (n the distance) the line is at round(k * dr / n), round(k * dc / n), halves rounded away from a, so a
    line twice as long one way as the other starts on the diagonal."""
    grid = g.grid
    w = grid.width
    ra, ca = divmod(a._ord, w)
    rb, cb = divmod(b._ord, w)
    dr = _delta(rb - ra, grid.height, grid.wrap_y)
    dc = _delta(cb - ca, w, grid.wrap_x)
    n = max(abs(dr), abs(dc))
    if n == 0:
        return 0
    sr = (1 if dr > 0 else -1) if 2 * abs(dr) >= n else 0
    sc = (1 if dc > 0 else -1) if 2 * abs(dc) >= n else 0
    return STEPS.index((sr, sc))


def within(g: Any, s: Any, r: int) -> list[Any]:
    sectors = g.sectors
    return [sectors[n] for n in g.grid.within(s._ord, r)]


def window(g: Any, s: Any, r: int) -> list[list[Any]]:
    sectors = g.sectors
    if r < 0:
        return []
    return [[None if n is None else sectors[n] for n in row] for row in g.grid.window(s._ord, r)]


def column(g: Any, s: Any) -> int:
    return int(s._ord % g.grid.width)


def row(g: Any, s: Any) -> int:
    return int(s._ord // g.grid.width)


def sector_at(g: Any, col: int, row: int) -> Any:
    grid = g.grid
    if 0 <= col < grid.width and 0 <= row < grid.height:
        return g.sectors[row * grid.width + col]
    return None


def reach(g: Any, seeds: Any, cond: Any) -> list[Any]:
    """`reachable(x for x from SEEDS where COND)` on the map: the sectors for which `cond` holds that join a seed
    through neighbours for which it holds too (a seed it fails for reaches nothing), in map order. `cond` is
    asked once per sector the fill touches (the sectors reached and the ones around them), never of the rest
    of the map."""
    sectors = g.sectors
    adjacent = g.grid._adjacent
    # 0: not asked yet, 1: in, 2: out. One byte a sector: asking twice would run the rules' COND twice.
    seen = bytearray(len(sectors))
    todo: list[int] = []
    for s in seeds:
        i = s._ord
        if not seen[i]:
            if cond(s):
                seen[i] = 1
                todo.append(i)
            else:
                seen[i] = 2
    found = todo[:]
    while todo:
        for n in adjacent[todo.pop()]:
            if not seen[n]:
                if cond(sectors[n]):
                    seen[n] = 1
                    todo.append(n)
                    found.append(n)
                else:
                    seen[n] = 2
    found.sort()
    return [sectors[i] for i in found]


def reach_via(seeds: Any, cond: Any, step: Any) -> list[Any]:
    """`reachable(x for x from SEEDS via STEP where COND)`: as `reach`, but what joins an item to the next is
    `step(item)` (a list or set of items of the same type: a thing's `adjacent` field, or any expression of
    x), for things and for sectors alike; in declaration order (map order for sectors)."""
    # Things are compared by identity (one object per key), so their ids mark them; the order comes from _ord.
    state: dict[int, bool] = {}
    todo: list[Any] = []
    found: list[Any] = []
    for s in seeds:
        if id(s) not in state:
            ok = state[id(s)] = bool(cond(s))
            if ok:
                todo.append(s)
                found.append(s)
    while todo:
        for n in step(todo.pop()):
            if id(n) not in state:
                ok = state[id(n)] = bool(cond(n))
                if ok:
                    todo.append(n)
                    found.append(n)
    found.sort(key=_by_ord)
    return found


def _by_ord(t: Any) -> int:
    return int(t._ord)
