"""runtime/grid.py: grids of several shapes and wraps -> neighbours, distance, within, window and names checked
against plain coordinate arithmetic and brute-force searches (routes: test_routes.py)."""

from __future__ import annotations

import itertools

import pytest

from rulesdsl.runtime.grid import Grid, SectorNameError, SectorNames

SHAPES = [(1, 1), (1, 3), (2, 2), (3, 1), (3, 4), (5, 3), (7, 6)]
WRAPS = list(itertools.product((False, True), repeat=2))

# Direction code -> (column step, row step), written out here independently of the module's table.
COMPASS = {1: (0, -1), 2: (1, -1), 3: (1, 0), 4: (1, 1), 5: (0, 1), 6: (-1, 1), 7: (-1, 0), 8: (-1, -1)}


def expected_neighbour(g: Grid, s: int, d: int) -> int | None:
    col, row = s % g.width, s // g.width
    dc, dr = COMPASS[d]
    col, row = col + dc, row + dr
    if not 0 <= col < g.width:
        if not g.wrap_x:
            return None
        col %= g.width
    if not 0 <= row < g.height:
        if not g.wrap_y:
            return None
        row %= g.height
    return row * g.width + col


@pytest.mark.parametrize(("wrap_x", "wrap_y"), WRAPS)
@pytest.mark.parametrize(("width", "height"), SHAPES)
def test_neighbour_every_sector_and_direction(width: int, height: int, wrap_x: bool, wrap_y: bool) -> None:
    g = Grid(width, height, wrap_x=wrap_x, wrap_y=wrap_y)
    for s in range(g.size):
        assert g.neighbour(s, 0) == s
        row = [expected_neighbour(g, s, d) for d in range(1, 9)]
        assert [g.neighbour(s, d) for d in range(1, 9)] == row
        distinct: list[int] = []
        for n in row:
            if n is not None and n != s and n not in distinct:
                distinct.append(n)
        assert list(g.neighbours(s)) == distinct


def test_edges_and_corners_named() -> None:
    g = Grid(5, 4)
    nw, ne, sw, se = 0, 4, 15, 19
    assert [g.neighbour(nw, d) for d in range(1, 9)] == [None, None, 1, 6, 5, None, None, None]
    assert [g.neighbour(ne, d) for d in range(1, 9)] == [None, None, None, None, 9, 8, 3, None]
    assert [g.neighbour(sw, d) for d in range(1, 9)] == [10, 11, 16, None, None, None, None, None]
    assert [g.neighbour(se, d) for d in range(1, 9)] == [14, None, None, None, None, None, 18, 13]
    assert g.neighbours(7) == (2, 3, 8, 13, 12, 11, 6, 1)


def test_wrap_x_joins_east_and_west_only() -> None:
    g = Grid(5, 4, wrap_x=True)
    assert g.neighbour(4, 3) == 0  # east off the east edge
    assert g.neighbour(0, 7) == 4  # west off the west edge
    assert g.neighbour(5, 8) == 4  # north-west across the wrap
    assert g.neighbour(9, 2) == 0  # north-east across the wrap
    assert g.neighbour(0, 1) is None  # polar rows do not wrap
    assert g.neighbour(17, 5) is None


def test_wrap_y_joins_north_and_south() -> None:
    g = Grid(5, 4, wrap_y=True)
    assert g.neighbour(2, 1) == 17
    assert g.neighbour(17, 5) == 2
    assert g.neighbour(0, 7) is None
    g2 = Grid(5, 4, wrap_x=True, wrap_y=True)
    assert g2.neighbour(0, 8) == 19
    assert g2.neighbour(19, 4) == 0


def test_tiny_wrapped_grid_lists_each_neighbour_once() -> None:
    g = Grid(2, 1, wrap_x=True)
    assert g.neighbour(0, 3) == 1 and g.neighbour(0, 7) == 1
    assert g.neighbours(0) == (1,)
    assert Grid(1, 1, wrap_x=True, wrap_y=True).neighbours(0) == ()


def bfs_steps(g: Grid, a: int) -> dict[int, int]:
    seen = {a: 0}
    frontier = [a]
    while frontier:
        nxt: list[int] = []
        for s in frontier:
            for n in g.neighbours(s):
                if n not in seen:
                    seen[n] = seen[s] + 1
                    nxt.append(n)
        frontier = nxt
    return seen


@pytest.mark.parametrize(("wrap_x", "wrap_y"), WRAPS)
@pytest.mark.parametrize(("width", "height"), [(1, 1), (2, 3), (5, 3), (7, 6), (8, 2)])
def test_distance_and_within_match_breadth_first(width: int, height: int, wrap_x: bool, wrap_y: bool) -> None:
    g = Grid(width, height, wrap_x=wrap_x, wrap_y=wrap_y)
    for a in range(g.size):
        steps = bfs_steps(g, a)
        for b in range(g.size):
            assert g.distance(a, b) == steps[b], (a, b)
        for r in range(0, 5):
            got = g.within(a, r)
            assert len(got) == len(set(got))
            assert set(got) == {b for b, k in steps.items() if k <= r}


def test_distance_across_the_wrap() -> None:
    g = Grid(320, 99, wrap_x=True)
    assert g.distance(g.sector(0, 10), g.sector(319, 10)) == 1
    assert g.distance(g.sector(2, 10), g.sector(317, 12)) == 5
    assert g.distance(g.sector(0, 0), g.sector(0, 98)) == 98  # no polar crossing
    assert Grid(320, 99).distance(g.sector(0, 10), g.sector(319, 10)) == 319


def test_within_order_row_major_from_north_west() -> None:
    g = Grid(6, 5, wrap_x=True)
    # around (0, 0): the north row is off the map; columns 5, 0, 1 (5 is west of 0 across the wrap)
    assert g.within(g.sector(0, 0), 1) == [5, 0, 1, 11, 6, 7]
    assert g.within(14, 0) == [14]
    assert g.within(14, -1) == []
    # a wrapped 3-wide grid and a 7-wide square: each sector once, where the scan first reaches it
    small = Grid(3, 2, wrap_x=True)
    assert small.within(1, 3) == [1, 2, 0, 4, 5, 3]  # columns -2..4 wrap to 1, 2, 0, 1, ...
    assert small.within(1, 1) == [0, 1, 2, 3, 4, 5]


def test_window_at_an_edge_and_on_a_tiny_wrapped_grid() -> None:
    g = Grid(10, 8, wrap_x=True)
    w = g.window(g.sector(0, 1), 3)
    assert len(w) == 7 and all(len(row) == 7 for row in w)
    assert w[0] == [None] * 7 and w[1] == [None] * 7  # rows -2 and -1 off the map
    assert w[2] == [7, 8, 9, 0, 1, 2, 3]
    assert w[3][3] == g.sector(0, 1)
    assert w[6] == [47, 48, 49, 40, 41, 42, 43]
    flat = Grid(10, 8).window(g.sector(0, 1), 3)
    assert flat[3] == [None, None, None, 10, 11, 12, 13]
    tiny = Grid(2, 2, wrap_x=True, wrap_y=True).window(0, 1)
    assert tiny == [[3, 2, 3], [1, 0, 1], [3, 2, 3]]


def test_direction_and_directions() -> None:
    g = Grid(5, 4, wrap_x=True)
    for s in range(g.size):
        for d in range(1, 9):
            n = g.neighbour(s, d)
            if n is not None:
                assert g.direction(s, n) == d
    assert g.direction(0, 12) is None
    assert g.direction(6, 6) is None
    assert Grid(1, 1, wrap_x=True).direction(0, 0) is None  # east of the only sector is itself: no step
    assert g.directions(6, [1, 2, 3]) == [1, 3, 3]
    with pytest.raises(ValueError, match="not adjacent"):
        g.directions(6, [8])


def test_names_warlord_pattern_round_trip() -> None:
    g = Grid(320, 99, wrap_x=True)
    names = SectorNames(g, "CCCRR")
    s = names.parse("22344")
    assert (g.col(s), g.row(s)) == (223, 44)
    assert names.parse("03454") == g.sector(34, 54)
    assert names.name(g.sector(34, 54)) == "03454"
    for s in range(0, g.size, 97):
        assert names.parse(names.name(s)) == s
    assert names.name(g.size - 1) == "31998"


def test_names_other_patterns_and_origin() -> None:
    g = Grid(12, 30)
    rc = SectorNames(g, "RR-CC", origin=1)
    assert rc.name(0) == "01-01"
    assert rc.parse("30-12") == g.size - 1
    with pytest.raises(SectorNameError, match="expected '-'"):
        rc.parse("30.12")
    with pytest.raises(SectorNameError, match="row 00"):
        rc.parse("00-01")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("2234", "5 characters"),
        ("223445", "5 characters"),
        ("", "5 characters"),
        ("22a44", "digits"),
        (" 2344", "digits"),
        ("2234\u00b2", "digits"),
        ("-2344", "digits"),
        ("32044", "column 320 is outside"),
        ("00099", "row 99 is outside"),
    ],
)
def test_names_refuse_with_a_reason(text: str, reason: str) -> None:
    names = SectorNames(Grid(320, 99, wrap_x=True), "CCCRR")
    with pytest.raises(SectorNameError, match=reason):
        names.parse(text)


def test_bad_patterns_and_grids_refused() -> None:
    g = Grid(320, 99)
    with pytest.raises(ValueError, match="one run"):
        SectorNames(g, "CCRCR")
    with pytest.raises(ValueError, match="cannot number"):
        SectorNames(g, "CCRR")
    with pytest.raises(ValueError, match="cannot number"):
        SectorNames(Grid(320, 100), "CCCRR", origin=1)
    with pytest.raises(ValueError, match="at least one C"):
        SectorNames(g, "RRR")
    with pytest.raises(ValueError, match="at least one column"):
        Grid(0, 5)
    with pytest.raises(ValueError, match="outside"):
        g.sector(320, 0)
    with pytest.raises(ValueError, match="not a sector"):
        SectorNames(g, "CCCRR").name(g.size)


def test_full_map_builds_fast() -> None:
    import time

    t = time.perf_counter()
    g = Grid(320, 99, wrap_x=True)
    took = time.perf_counter() - t
    assert g.size == 31680
    assert took < 0.5  # 0.04 s here; the bound is loose for a busy CI machine
