"""A grid, one seeded random stream and plain numbers -> a generated world as lists of sector indices.

The pieces a ruleset puts together to make a world when `rulesdsl new` starts a game: land and sea
(`continents`), clumps of terrain over the land (`patches`) and chains of it (`ranges`, for mountains),
sites placed evenly (`spread`, for player homes) or at random with a least spacing (`scatter`, for
neutral cities and ruins), and a few helpers over lists of sectors (`band`, `coast`, `regions`,
`least_distance`, `noise`). Nothing here knows a game: each
function takes the grid, the random stream, whole numbers, percentages and lists of sector indices, and
returns lists of sector indices in ascending order (or one value per sector), so that a ruleset can call it
as a builtin.

Same inputs, same world, in every process: every choice is drawn from the stream passed in, in an order
that depends only on the inputs; candidates are read as a set (sorted first), so the order a caller lists
them in changes nothing; no set or dict is iterated where its order could matter; ties are broken by
sector number, as each docstring says. Distances are the grid's (king moves, across a wrapping edge).
"""

from __future__ import annotations

import heapq
import math
import random
from collections import deque
from collections.abc import Callable, Iterable

from rulesdsl.runtime.grid import Grid

__all__ = [
    "away_from",
    "band",
    "coast",
    "continents",
    "least_distance",
    "noise",
    "patch_counts",
    "patches",
    "range_count",
    "ranges",
    "regions",
    "scatter",
    "spread",
]

NOISE_TOP = 1000  # noise() values are 0 .. NOISE_TOP - 1

# How continents() shapes land, chosen by printing maps (benchmarks/worldgen_demo.py) and judging them:
# - six layers of noise, each keeping 0.6 of the weight of the one before, give coasts detail down to a
#   sector or two; with four layers at 0.5 the coasts were smooth ovals;
# - the pull toward a continent's seed is 0.3 of the noise's range per radius of the continent: more made
#   round blobs, less let continents run out in long arms to the edges of the map;
# - the distance that pull measures is warped by a smooth field of 0.8 x the continent's width, so where two
#   continents grow toward each other their coasts do not meet on a straight line halfway between seeds;
# - continents keep two sea sectors between them: with one, two continents that met showed a thin straight
#   channel that read as a glitch rather than a strait.
_OCTAVES = 6
_PERSIST = 0.6
_PULL = 0.3
_WARP = 0.8
_GAP = 2


# -- helpers over lists of sectors ------------------------------------------------------------------------


def band(grid: Grid, first_row: int, last_row: int) -> list[int]:
    """Every sector of rows first_row .. last_row (both included, clipped to the map), in ascending order;
    [] when last_row < first_row. The sectors outside a polar band are `band(g, k, g.height - 1 - k)`."""
    first = max(first_row, 0)
    last = min(last_row, grid.height - 1)
    if last < first:
        return []
    return list(range(first * grid.width, (last + 1) * grid.width))


def coast(grid: Grid, sectors: Iterable[int]) -> list[int]:
    """The sectors of `sectors` with at least one neighbour that is not in `sectors`, in ascending order.

    With the land as `sectors`, the coast (a sector at a non-wrapping map edge is not coastal for lacking
    neighbours there: the edge is not sea); with the sea, the sea next to land."""
    inside = _mask(grid, sectors)
    nbs = grid.neighbours
    return [s for s in range(grid.size) if inside[s] and any(not inside[n] for n in nbs(s))]


def regions(grid: Grid, sectors: Iterable[int]) -> list[list[int]]:
    """The sectors of `sectors` grouped into connected regions (neighbours in all eight directions, across
    wrapping edges): each region's sectors in ascending order, the largest region first, regions of the
    same size by their lowest sector. Over the land: its continents and islands."""
    inside = _mask(grid, sectors)
    seen = bytearray(grid.size)
    nbs = grid.neighbours
    found: list[list[int]] = []
    for s in range(grid.size):
        if not inside[s] or seen[s]:
            continue
        seen[s] = 1
        members = [s]
        stack = [s]
        while stack:
            for n in nbs(stack.pop()):
                if inside[n] and not seen[n]:
                    seen[n] = 1
                    members.append(n)
                    stack.append(n)
        members.sort()
        found.append(members)
    # Found in order of lowest sector, so a stable sort by size alone breaks ties by lowest sector.
    found.sort(key=len, reverse=True)
    return found


def away_from(grid: Grid, candidates: Iterable[int], avoid: Iterable[int], spacing: int) -> list[int]:
    """The sectors of `candidates` at a distance of at least `spacing` from every sector of `avoid`, in
    ascending order (spacing 1: all but the sectors of `avoid`; 0 or less: all of them). Neutral cities
    away from the player homes: a square of sectors blocked around each sector to avoid, a slice of a row at
    a time, so the cost is the candidates plus a few slices per sector avoided, not candidates x avoided."""
    cells = sorted(set(candidates))
    _check_sectors(grid, cells)
    if spacing <= 0:
        return cells
    near = sorted(set(avoid))
    _check_sectors(grid, near)
    squares = _Squares(grid, spacing)
    for s in near:
        squares.block(s)
    blocked = squares.blocked
    return [s for s in cells if not blocked[s]]


def least_distance(grid: Grid, sectors: Iterable[int]) -> int:
    """The smallest distance between two different sectors of `sectors` (0 when fewer than two): how far
    apart `spread` managed to place its sites. A sector listed twice counts once."""
    pts = sorted(set(sectors))
    if len(pts) < 2:
        return 0
    # Each pair once; distance is symmetric. Quadratic, which is meant for a few hundred sites.
    best = grid.width + grid.height
    dist = grid.distance
    for i, a in enumerate(pts):
        for b in pts[i + 1 :]:
            d = dist(a, b)
            if d < best:
                best = d
                if d == 1:
                    return 1
    return best


# -- noise ------------------------------------------------------------------------------------------------


def noise(grid: Grid, rng: random.Random, scale: int, octaves: int = 4) -> list[int]:
    """One value 0..999 per sector (index = sector), smooth over about `scale` sectors: value noise of
    `octaves` layers, each half the scale and half the weight of the one before, seamless across wrapping
    edges, for any smooth field a ruleset wants (height, rainfall, where deserts go). The values are
    ranks, spread evenly: a tenth of the sectors in each hundred, so `noise >= 700` picks the highest 30%
    (equal raw values ranked by sector number).

    Draws one number per lattice point, layer by layer, each layer row by row."""
    if scale < 1:
        raise ValueError(f"noise scale must be at least 1, not {scale}")
    if octaves < 1:
        raise ValueError(f"noise needs at least one octave, not {octaves}")
    return [int(v * NOISE_TOP) for v in _even(_noise(grid, rng, scale, octaves))]


def _noise(grid: Grid, rng: random.Random, scale: int, octaves: int, persist: float = 0.5) -> list[float]:
    w, h = grid.width, grid.height
    total = [0.0] * grid.size
    weight = 1.0
    weights = 0.0
    cell = float(scale)
    for _ in range(octaves):
        xs, nx = _axis(w, cell, grid.wrap_x)
        ys, ny = _axis(h, cell, grid.wrap_y)
        lattice = [[rng.random() for _ in range(nx)] for _ in range(ny)]
        for r, (j0, j1, ty) in enumerate(ys):
            a_row, b_row = lattice[j0], lattice[j1]
            # Interpolate between the two lattice rows once per lattice column, then along the row: one
            # multiply-add per sector and layer, which keeps a 320 x 99 field near 30 ms a layer.
            line = [a + (b - a) * ty for a, b in zip(a_row, b_row, strict=True)]
            base = r * w
            for c, (i0, i1, tx) in enumerate(xs):
                v0 = line[i0]
                total[base + c] += weight * (v0 + (line[i1] - v0) * tx)
        weights += weight
        weight *= persist
        cell = max(1.0, cell / 2)
    return [v / weights for v in total]


def _even(values: list[float]) -> list[float]:
    """values replaced by their ranks scaled to 0 <= v < 1 (equal values by sector number): the same
    contours, evenly spread, so a share of the sectors is a share of the range."""
    n = len(values)
    out = [0.0] * n
    for rank, s in enumerate(sorted(range(n), key=values.__getitem__)):
        out[s] = rank / n
    return out


def _axis(length: int, cell: float, wrap: bool) -> tuple[list[tuple[int, int, float]], int]:
    """For each position along one axis: the two lattice points around it and the smoothed weight of the
    second; and how many lattice points the axis has. A wrapping axis has a whole number of cells over its
    length, its last cell ending on the first point, so the field has no seam."""
    if wrap:
        cells = max(1, round(length / cell))
        step = cells / length
        points = cells
    else:
        cells = max(1, math.ceil((length - 1) / cell)) if length > 1 else 1
        step = cells / max(1, length - 1)
        points = cells + 1
    out: list[tuple[int, int, float]] = []
    for x in range(length):
        u = x * step
        i0 = min(int(u), points - 1)
        t = u - i0
        i1 = (i0 + 1) % points if wrap else min(i0 + 1, points - 1)
        out.append((i0, i1, t * t * (3 - 2 * t)))
    return out, points


# -- land and sea -----------------------------------------------------------------------------------------


def continents(grid: Grid, rng: random.Random, area: Iterable[int], land_percent: int, count: int) -> list[int]:
    """The land of a world, in ascending order: exactly round(land_percent% of the sectors of `area`) sectors
    of `area` (halves rounded up), in `count` continents with at least two sea sectors between any two
    (diagonals included); everything else is sea. Sectors outside `area` are never land: leave polar rows
    out of it (`band`) to keep them for ice; pass the open sea as `area`, with a small share and a large
    count, to add islands.

    Each continent grows from a seed (the seeds spread evenly over `area`, at least half a continent's width
    inside its edges) toward the highest ground of a smooth noise field, held back a little by its distance
    from the seed, so coasts follow the noise's contours: bays, capes, inland seas and peninsulas rather
    than speckle or circles. Continents differ in size (each aims at between one and two shares of the
    land). The continent furthest behind its aim grows next (the lower index on a tie), taking the sector
    of its coast with the highest priority (the lower sector number on a tie). When the continents can grow
    no further apart (a share too high for `count` continents to keep their distance), the rest of the
    land is added where it is highest next to the land already made, joining continents: the land share is
    always exact, the count of continents then smaller. `regions(grid, land)` lists the continents.
    """
    if not 0 <= land_percent <= 100:
        raise ValueError(f"land_percent must be 0..100, not {land_percent}")
    if count < 1:
        raise ValueError(f"continents need a count of at least 1, not {count}")
    cells = sorted(set(area))
    _check_sectors(grid, cells)
    total = (land_percent * len(cells) * 2 + 100) // 200
    if total == 0:
        return []
    count = min(count, total)
    size = grid.size
    inside = _mask(grid, cells)

    # The size of one continent sets the scale of the coasts' noise: bays a fraction of its width.
    side = max(2, round(math.sqrt(total / count)))
    height = _even(_noise(grid, rng, side, _OCTAVES, _PERSIST))
    amp = _WARP * side
    warp_r = [(v - 0.5) * amp for v in _even(_noise(grid, rng, side, 2))]
    warp_c = [(v - 0.5) * amp for v in _even(_noise(grid, rng, side, 2))]

    # Seeds away from the edge of the area, so a continent is not born against the ice.
    depth = _depth(grid, inside)
    keep = max(1, side // 2)
    deep = [s for s in cells if depth[s] > keep] or cells
    seeds = spread(grid, rng, deep, count, 1)
    count = len(seeds)
    weights = [1000 + rng.randrange(1001) for _ in range(count)]
    targets = _shares(total, weights)

    owner = [-1] * size
    near = [-1] * size  # the continent with land within _GAP of a sector; -2: more than one
    grown = [0] * count
    s_bits = size.bit_length()
    s_mask = (1 << s_bits) - 1
    heaps: list[list[int]] = [[] for _ in range(count)]
    queued = [bytearray(size) for _ in range(count)]
    # Priority: height less the pull back toward the seed (see _PULL and _WARP), by straight-line distance:
    # king moves pull toward a square, and the continents came out with long straight coasts.
    reach = [max(1.0, math.sqrt(t / math.pi)) for t in targets]
    nbs = grid.neighbours
    w, h = grid.width, grid.height
    seed_at = [divmod(s, w) for s in seeds]

    def push(i: int, s: int) -> None:
        queued[i][s] = 1
        r0, c0 = seed_at[i]
        dr = abs(s // w + warp_r[s] - r0)
        dc = abs(s % w + warp_c[s] - c0)
        if grid.wrap_y and h - dr < dr:
            dr = h - dr
        if grid.wrap_x and w - dc < dc:
            dc = w - dc
        pull = _PULL * math.sqrt(dr * dr + dc * dc) / reach[i]
        key = int((2.0 - height[s] + pull) * 1_000_000)
        heapq.heappush(heaps[i], (key << s_bits) | s)

    for i, s in enumerate(seeds):
        push(i, s)

    made = 0
    # The continents still growing, the one furthest behind its aim first: grown/target as a float, exact
    # enough here (two different fractions of numbers below 2**26 never round to the same float).
    turn = [(0.0, i) for i in range(count)]
    while made < total and turn:
        i = heapq.heappop(turn)[1]
        heap = heaps[i]
        placed = False
        while heap:
            s = heapq.heappop(heap) & s_mask
            if owner[s] != -1:
                continue
            if near[s] != -1 and near[s] != i:
                continue  # it would touch another continent: it stays sea between them
            owner[s] = i
            for x in grid.within(s, _GAP):
                if near[x] == -1:
                    near[x] = i
                elif near[x] != i:
                    near[x] = -2
            grown[i] += 1
            made += 1
            placed = True
            mine = queued[i]
            for n in nbs(s):
                if inside[n] and owner[n] == -1 and not mine[n]:
                    push(i, n)
            break
        if placed:
            heapq.heappush(turn, (grown[i] / max(1, targets[i]), i))

    if made < total:
        made = _fill(grid, inside, owner, height, total - made) + made
    return [s for s in range(size) if owner[s] != -1]


def _fill(grid: Grid, inside: bytearray, owner: list[int], height: list[float], more: int) -> int:
    """Adds `more` land sectors of the area, each the highest one next to land (lowest sector on a tie),
    or anywhere highest if no land can grow; returns how many it added."""
    nbs = grid.neighbours
    s_bits = grid.size.bit_length()
    s_mask = (1 << s_bits) - 1
    heap: list[int] = []
    queued = bytearray(grid.size)

    def push(s: int) -> None:
        queued[s] = 1
        heapq.heappush(heap, (int((2.0 - height[s]) * 1_000_000) << s_bits) | s)

    for s in range(grid.size):
        if owner[s] != -1:
            for n in nbs(s):
                if inside[n] and owner[n] == -1 and not queued[n]:
                    push(n)
    added = 0
    while added < more:
        if not heap:
            # Every sector next to land is land: the remaining area is cut off; start where it is highest.
            rest = [s for s in range(grid.size) if inside[s] and owner[s] == -1]
            if not rest:
                break
            push(min(rest, key=lambda s: (-height[s], s)))
        s = heapq.heappop(heap) & s_mask
        if owner[s] != -1:
            continue
        owner[s] = 0
        added += 1
        for n in nbs(s):
            if inside[n] and owner[n] == -1 and not queued[n]:
                push(n)
    return added


def _depth(grid: Grid, inside: bytearray) -> list[int]:
    """For each sector of the area: steps to the nearest sector outside it or to a non-wrapping map edge
    (1 next to it); 0 outside; a large number if the area has no edge at all (a whole wrapped map)."""
    far = grid.width + grid.height
    depth = [0 if not inside[s] else -1 for s in range(grid.size)]
    todo: deque[int] = deque()
    nbs = grid.neighbours
    for s in range(grid.size):
        if not inside[s]:
            todo.append(s)
        elif len(nbs(s)) < 8:
            depth[s] = 1
            todo.append(s)
    while todo:
        s = todo.popleft()
        d = depth[s] + 1
        for n in nbs(s):
            if depth[n] == -1:
                depth[n] = d
                todo.append(n)
    return [far if d == -1 else d for d in depth]


# -- terrain patches --------------------------------------------------------------------------------------


def patches(
    grid: Grid, rng: random.Random, area: Iterable[int], shares: list[int], sizes: list[int]
) -> list[list[int]]:
    """Clumps of terrain over `area`: one list of sectors per entry of `shares`, in ascending order, the i-th
    holding shares[i]% of the area's sectors (cumulative shares rounded half up, so the counts add up to
    round(sum of shares %) exactly); no sector is in two lists, and the sectors in none keep the area's
    base terrain. sizes[i] is the i-th kind's typical patch size in sectors (each patch drawn between half
    and one and a half times it).

    A patch starts at a free sector of the area (the area's sectors in one shuffled order) and grows to
    free neighbours chosen at random from its edge, so it is a compact, ragged blob; a patch boxed in
    before its size continues as a new patch elsewhere. The kinds take turns: the next patch is of the
    kind with the largest part of its count still to place (the lower index on a tie), so no kind gets
    only the scraps the others left.
    """
    if len(shares) != len(sizes):
        raise ValueError(f"patches needs one size per share: {len(shares)} shares, {len(sizes)} sizes")
    if any(p < 0 for p in shares) or sum(shares) > 100:
        raise ValueError(f"patch shares must be 0 or more and add up to at most 100, not {shares}")
    if any(z < 1 for z in sizes):
        raise ValueError(f"patch sizes must be at least 1, not {sizes}")
    cells = sorted(set(area))
    _check_sectors(grid, cells)
    counts: list[int] = []
    done_pct = 0
    for p in shares:
        before = (done_pct * len(cells) * 2 + 100) // 200
        done_pct += p
        counts.append((done_pct * len(cells) * 2 + 100) // 200 - before)
    return patch_counts(grid, rng, cells, counts, sizes)


def patch_counts(
    grid: Grid, rng: random.Random, area: Iterable[int], counts: list[int], sizes: list[int]
) -> list[list[int]]:
    """`patches` with each kind's number of sectors given, not its share: counts[i] sectors of the i-th kind
    (counts adding up to at most the area's size), grown and drawn exactly as `patches` grows them."""
    if len(counts) != len(sizes):
        raise ValueError(f"patches needs one size per count: {len(counts)} counts, {len(sizes)} sizes")
    if any(z < 1 for z in sizes):
        raise ValueError(f"patch sizes must be at least 1, not {sizes}")
    cells = sorted(set(area))
    _check_sectors(grid, cells)
    if any(k < 0 for k in counts) or sum(counts) > len(cells):
        raise ValueError(f"patch counts must be 0 or more and add up to at most {len(cells)}, not {counts}")
    free = _mask(grid, cells)
    order = cells[:]
    rng.shuffle(order)
    nbs = grid.neighbours
    out: list[list[int]] = [[] for _ in counts]
    left = counts[:]
    next_start = 0
    while True:
        # The kind with the largest fraction of its count still to place: left/count largest.
        k = -1
        for j, lj in enumerate(left):
            if lj and (k < 0 or lj * counts[k] > left[k] * counts[j]):
                k = j
        if k < 0:
            break
        while not free[order[next_start]]:
            next_start += 1
        want = min(left[k], max(1, round(sizes[k] * (0.5 + rng.random()))))
        edge = [order[next_start]]
        got = out[k]
        placed = 0
        while edge and placed < want:
            j = rng.randrange(len(edge))
            s = edge[j]
            edge[j] = edge[-1]
            edge.pop()
            if not free[s]:
                continue
            free[s] = 0
            got.append(s)
            placed += 1
            edge.extend(n for n in nbs(s) if free[n])
        left[k] -= placed
    for got in out:
        got.sort()
    return out


def ranges(grid: Grid, rng: random.Random, area: Iterable[int], percent: int, length: int) -> list[int]:
    """Chains of sectors over `area`, such as mountain ranges, in ascending order: exactly round(percent% of
    the area's sectors) of them (halves rounded up), in winding lines about `length` sectors long (each
    drawn between half and one and a half times it), one or two sectors wide.

    A chain starts at a free sector of the area (the area's sectors in one shuffled order) heading in a
    random direction; each step it turns one point left or right a third of the time, and half the time
    also takes a free neighbour of where it stands, chosen at random, to thicken it. A chain that meets the
    edge of the area or another chain turns to the first free direction clockwise from its heading, and
    ends where none is free; the rest of its length goes to the next chain.
    """
    if not 0 <= percent <= 100:
        raise ValueError(f"ranges' percent must be 0..100, not {percent}")
    if length < 1:
        raise ValueError(f"ranges' length must be at least 1, not {length}")
    cells = sorted(set(area))
    _check_sectors(grid, cells)
    return range_count(grid, rng, cells, (percent * len(cells) * 2 + 100) // 200, length)


def range_count(grid: Grid, rng: random.Random, area: Iterable[int], total: int, length: int) -> list[int]:
    """`ranges` with the number of sectors given (at most the area's size), not a share, drawn alike."""
    if length < 1:
        raise ValueError(f"ranges' length must be at least 1, not {length}")
    cells = sorted(set(area))
    _check_sectors(grid, cells)
    if not 0 <= total <= len(cells):
        raise ValueError(f"ranges' count must be 0..{len(cells)}, not {total}")
    free = _mask(grid, cells)
    order = cells[:]
    rng.shuffle(order)
    step = grid.neighbour
    nbs = grid.neighbours
    out: list[int] = []
    next_start = 0
    while len(out) < total:
        while not free[order[next_start]]:
            next_start += 1
        here = order[next_start]
        heading = rng.randint(1, 8)
        steps = max(1, round(length * (0.5 + rng.random())))
        free[here] = 0
        out.append(here)
        for _ in range(steps - 1):
            if len(out) >= total:
                break
            if rng.random() < 1 / 3:
                heading = (heading + (1 if rng.random() < 0.5 else -1) - 1) % 8 + 1
            if rng.random() < 0.5 and len(out) < total:
                side = [n for n in nbs(here) if free[n]]
                if side:
                    extra = side[rng.randrange(len(side))]
                    free[extra] = 0
                    out.append(extra)
            ahead = None
            for turn in range(8):
                d = (heading + turn - 1) % 8 + 1
                n = step(here, d)
                if n is not None and free[n]:
                    ahead, heading = n, d
                    break
            if ahead is None or len(out) >= total:
                break
            free[ahead] = 0
            out.append(ahead)
            here = ahead
    out.sort()
    return out


# -- sites ------------------------------------------------------------------------------------------------


def scatter(grid: Grid, rng: random.Random, candidates: Iterable[int], n: int, spacing: int) -> list[int]:
    """Up to n sectors of `candidates` at random, in ascending order, each at least `spacing` from every
    other (spacing 1 or less: any distinct sectors). The candidates are taken in one shuffled order and
    each is kept if it is far enough from those kept before, so fewer than n come back when they do not fit
    (the caller can compare the length). For ruins, neutral cities, anything that need not be fair."""
    cells = sorted(set(candidates))
    _check_sectors(grid, cells)
    order = cells[:]
    rng.shuffle(order)
    return sorted(_pack(grid, order, n, spacing))


def spread(
    grid: Grid,
    rng: random.Random,
    candidates: Iterable[int],
    n: int,
    spacing: int,
    on_short: Callable[[str], None] | None = None,
) -> list[int]:
    """n sectors of `candidates` (all of them if there are no more), in ascending order, as evenly spread as
    the search can make them: their least distance apart is the largest it finds, `spacing` or more when it
    finds a way. Fair starting places: nobody is crowded while others have room, and with spacing 2 or more
    no two are neighbours. When n cannot be placed `spacing` apart, the result falls back to the largest
    spacing found (1 at worst), and on_short, if given, is called with a sentence saying so; a ruleset can
    also compare least_distance(result) with what it asked for. To make places fair in what surrounds them
    too (land nearby, a coast), narrow the candidates first.

    A spacing is tried by going through the candidates in six orders, keeping each one at least that far
    from those kept before: row by row and column by column, each first from a random candidate on
    (wrapping round) and then from the first, which pack a region as tightly as a lattice, and two shuffled
    orders, which can do better among scattered candidates; the orders are drawn once, before the search.
    The spacing works if an order keeps n or more. The search halves the range between a spacing that
    worked and one that did not, starting at `spacing`. At the largest spacing that worked, the first order
    that kept n or more gives the result; if it kept more than n, n of them are drawn at random, so the
    room left over is scattered over the map rather than all where the order ended.
    """
    cells = sorted(set(candidates))
    _check_sectors(grid, cells)
    if n <= 0:
        return []
    if n >= len(cells):
        if on_short is not None and n > len(cells):
            on_short(f"spread: only {len(cells)} candidates for {n} sites")
        return cells
    w = grid.width
    by_col = sorted(cells, key=lambda s: (s % w, s // w))
    k = rng.randrange(len(cells))
    j = rng.randrange(len(cells))
    orders = [cells[k:] + cells[:k], by_col[j:] + by_col[:j], cells, by_col]
    for _ in range(2):
        o = cells[:]
        rng.shuffle(o)
        orders.append(o)

    def attempt(d: int) -> list[int] | None:
        for o in orders:
            got = _pack(grid, o, len(o), d)
            if len(got) >= n:
                return got
        return None

    # The largest distance on this map: no two sectors are further apart.
    top = max(
        grid.width // 2 if grid.wrap_x else grid.width - 1,
        grid.height // 2 if grid.wrap_y else grid.height - 1,
    )
    want = max(1, min(spacing, top))
    best = attempt(want)
    if best is not None:
        ok, bad = want, top + 1
    else:
        ok, bad = 1, want
        best = attempt(1)
        assert best is not None  # n distinct candidates exist, and spacing 1 asks only that
    while bad - ok > 1:
        mid = (ok + bad) // 2
        got = attempt(mid)
        if got is None:
            bad = mid
        else:
            ok, best = mid, got
    if ok < spacing and on_short is not None:
        on_short(f"spread: {n} sites fit only {ok} apart, not {spacing}")
    if len(best) > n:
        best = rng.sample(best, n)
    return sorted(best)


def _pack(grid: Grid, order: list[int], n: int, spacing: int) -> list[int]:
    """The sectors of `order`, in that order, that are at least `spacing` from every one kept before, up
    to n of them. Each kept sector blocks the square of sectors closer than `spacing` around it, a slice
    of a row at a time, so a try costs one look per candidate plus a few slices per kept sector."""
    kept: list[int] = []
    if n <= 0:
        return kept
    if spacing <= 1:
        return order[:n]
    squares = _Squares(grid, spacing)
    blocked = squares.blocked
    for s in order:
        if blocked[s]:
            continue
        kept.append(s)
        if len(kept) == n:
            break
        squares.block(s)
    return kept


class _Squares:
    """Sectors blocked by the squares of sectors closer than `spacing` around chosen ones, marked a slice of
    a row at a time (wrapped or clipped as the grid is), so blocking costs a few slices, not the square."""

    __slots__ = ("_cols_of", "_ones", "_rows_of", "_width", "blocked")

    def __init__(self, grid: Grid, spacing: int) -> None:
        self.blocked = bytearray(grid.size)
        self._width = grid.width
        self._ones = b"\x01" * grid.width
        self._rows_of = _spans(grid.height, spacing - 1, grid.wrap_y)
        self._cols_of = _spans(grid.width, spacing - 1, grid.wrap_x)

    def block(self, s: int) -> None:
        w, blocked, ones = self._width, self.blocked, self._ones
        r, c = divmod(s, w)
        col_runs = self._cols_of[c]
        for a, b in self._rows_of[r]:
            for row in range(a, b):
                base = row * w
                for x, y in col_runs:
                    blocked[base + x : base + y] = ones[: y - x]


def _spans(length: int, q: int, wrap: bool) -> list[list[tuple[int, int]]]:
    """For each position along an axis: the runs [a, b) of positions within q of it, wrapped or clipped."""
    out: list[list[tuple[int, int]]] = []
    for x in range(length):
        lo, hi = x - q, x + q + 1
        if wrap and hi - lo >= length:
            out.append([(0, length)])
        elif not wrap or (lo >= 0 and hi <= length):
            out.append([(max(lo, 0), min(hi, length))])
        elif lo < 0:
            out.append([(0, hi), (length + lo, length)])
        else:
            out.append([(lo, length), (0, hi - length)])
    return out


# -- shared -----------------------------------------------------------------------------------------------


def _shares(total: int, weights: list[int]) -> list[int]:
    """total split in proportion to weights, by cumulative rounding (halves up): the parts add up to total."""
    whole = sum(weights)
    out: list[int] = []
    acc = 0
    before = 0
    for wgt in weights:
        acc += wgt
        upto = (total * acc * 2 + whole) // (2 * whole)
        out.append(upto - before)
        before = upto
    return out


def _mask(grid: Grid, sectors: Iterable[int]) -> bytearray:
    inside = bytearray(grid.size)
    for s in sectors:
        if not 0 <= s < grid.size:
            raise ValueError(f"{s} is not a sector of the {grid.width} x {grid.height} map")
        inside[s] = 1
    return inside


def _check_sectors(grid: Grid, cells: list[int]) -> None:
    """cells sorted: only the ends can be off the map."""
    if cells and (cells[0] < 0 or cells[-1] >= grid.size):
        bad = cells[0] if cells[0] < 0 else cells[-1]
        raise ValueError(f"{bad} is not a sector of the {grid.width} x {grid.height} map")
