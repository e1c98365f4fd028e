"""A game's grid section (scenario or state data, by field) <-> its sectors: the map built, read and written.

The section holds one entry per field (a layer), never one per sector: a drawn field is rows of symbols (one
text line per row, one character per sector), any other field a mapping of sector numbers to the values that
differ from the field's default, in sector order. So a 320 x 99 map's terrain is 99 short lines, and a field
most sectors leave at its default costs nothing.

A set of players (or of a keyed thing's instances) is written by member instead: under `by member`, each
player's sectors as runs in sector order (`"02200..02800"`: every sector from the first to the last). What a
player sees is squares round its cities and units, a few runs a row, where the by-sector form wrote three
lines per sector: Warlord's `seen_by` and `explored_by` were half the state file's bytes and 60% of its lines.

Sectors are built in one pass per field: a field's default is worked out once (a static default cannot
depend on the sector), and only a value that can be changed in place (a list, a map) is copied per sector.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from rulesdsl.runtime import codec
from rulesdsl.runtime.codec import StateError
from rulesdsl.runtime.grid import Grid, SectorNames
from rulesdsl.runtime.sectors import fill
from rulesdsl.runtime.spec import FieldSpec, GridSpec


class Rows(str):
    """A drawn layer as the state writes it: whole lines, one per row (the YAML writer keeps them as lines)."""

    __slots__ = ()


class Runs(list[str]):
    """One member's runs of sectors in a by-member layer: the YAML writer puts them in one flow list."""

    __slots__ = ()


BY_MEMBER = "by member"
RUN = ".."


def by_member(g: Any, f: FieldSpec) -> bool:
    """Whether the state writes `f` by member: a set of players or of a keyed thing's instances, whose members
    are few and named by a key (a numbered thing's instances come and go; a set of sectors is not a layer)."""
    if f.type[0] != "set" or f.type[1][0] != "thing":
        return False
    thing = f.type[1][1]
    return thing not in g.units and thing != g.spec.grid.name


def _size(g: Any, value: int | str) -> int:
    return value if isinstance(value, int) else int(g.params[value])


def build(g: Any) -> None:
    """The grid of a game whose parameters are set: its Grid, its names and one Thing per sector, each field
    at its default. A size set by parameters that the numbering cannot write is refused at that parameter."""
    spec: GridSpec | None = g.spec.grid
    if spec is None:
        return
    width = _size(g, spec.width)
    height = _size(g, spec.height)
    for value, n, digit, what in ((spec.width, width, "C", "columns"), (spec.height, height, "R", "rows")):
        path = f"$.parameters.{value}" if isinstance(value, str) else f"$.{spec.name}"
        if n < 1:
            raise StateError(path, f"the grid `{spec.name}` needs at least 1 of its {what}, not {n}")
        room = 10 ** spec.pattern.count(digit)
        if n > room:
            raise StateError(path, f"{n} {what} do not fit the numbering \"{spec.pattern}\", which has room "
                                      f"for {room}")
    grid = Grid(width, height, spec.wrap_x, spec.wrap_y)
    g.grid = grid
    g.sector_names = SectorNames(grid, spec.pattern)
    cls = spec.cls
    sectors = [cls(key, i) for i, key in enumerate(_names(spec.pattern, width, height))]
    g.sectors = sectors
    g.all[spec.name] = list(sectors)  # a list of its own: `sectors[i]` must stay sector i whatever else happens
    index = {s._key: s for s in sectors}
    g.index[spec.name] = index
    g.lookup[spec.name] = index  # numbers have no case: the same dict serves both
    for f in spec.fields:
        fill(g, sectors, f)


def _names(pattern: str, width: int, height: int) -> list[str]:
    """Every sector's number, row-major: each column's and row's digits are written once, not per sector."""
    c0 = pattern.index("C")
    r0 = pattern.index("R")
    cw = pattern.count("C")
    rw = pattern.count("R")
    cols = [f"{c:0{cw}d}" for c in range(width)]
    rows = [f"{r:0{rw}d}" for r in range(height)]
    if c0 < r0:
        a, b, c = pattern[:c0], pattern[c0 + cw:r0], pattern[r0 + rw:]
        return [f"{a}{col}{b}{row}{c}" for row in rows for col in cols]
    a, b, c = pattern[:r0], pattern[r0 + rw:c0], pattern[c0 + cw:]
    return [f"{a}{row}{b}{col}{c}" for row in rows for col in cols]


# ---------------------------------------------------------------- reading a section

def read(g: Any, data: dict[str, Any], check: Callable[[Callable[[], None]], None]) -> None:
    """The grid's section of a scenario or state file (`data` is the whole file), layer by layer; `check` runs
    each layer so that a scenario's faults are gathered and a state file's first one stops the read."""
    spec: GridSpec | None = g.spec.grid
    if spec is None or spec.name not in data:
        return
    section = data[spec.name]
    path = f"$.{spec.name}"
    if section is None:
        return
    if not isinstance(section, dict):
        raise StateError(path, "expected a mapping of the grid's fields to their layers")
    by_name = {f.name: f for f in spec.fields}
    draws = dict(spec.draws)
    for name, layer in section.items():
        f = by_name.get(str(name))
        if f is None:
            def unknown(name: Any = name) -> None:
                raise StateError(f"{path}.{name}", f"the grid `{spec.name}` has no field `{name}` (its fields are "
                                                      f"{', '.join(by_name)})")
            check(unknown)
            continue
        if isinstance(layer, str) and f.name in draws:
            check(functools.partial(_read_drawn, g, f, draws[f.name], layer, f"{path}.{f.name}"))
        elif isinstance(layer, dict) and BY_MEMBER in layer and by_member(g, f):
            check(functools.partial(_read_members, g, f, layer, f"{path}.{f.name}"))
        elif isinstance(layer, dict):
            check(functools.partial(_read_sparse, g, f, layer, f"{path}.{f.name}"))
        else:
            def wrong(f: FieldSpec = f) -> None:
                drawn = "rows of symbols, or " if f.name in draws else ""
                raise StateError(f"{path}.{f.name}", f"expected {drawn}a mapping of sector numbers to values")
            check(wrong)


def _read_drawn(g: Any, f: FieldSpec, symbol_attr: str, text: str, path: str) -> None:
    grid = g.grid
    thing = f.type[1]
    by_symbol = {getattr(obj, symbol_attr): obj for obj in g.all[thing]}
    rows = text.split("\n")
    if rows and rows[-1] == "":
        rows.pop()  # the newline that ends the last row
    if len(rows) != grid.height:
        raise StateError(path, f"{len(rows)} rows, not {grid.height}: one line of symbols per row of the map")
    sectors = g.sectors
    attr = f.attr
    w = grid.width
    for r, line in enumerate(rows):
        if len(line) != w:
            raise StateError(path, f"row {r} has {len(line)} symbols, not {w}")
        try:
            values = [by_symbol[ch] for ch in line]
        except KeyError:
            col = next(i for i, ch in enumerate(line) if ch not in by_symbol)
            known = ", ".join(f"{sym!r} {obj._key}" for sym, obj in by_symbol.items())
            raise StateError(path, f"row {r}, column {col}: {line[col]!r} is no {thing}'s symbol ({known})") \
                from None
        base = r * w
        for c, value in enumerate(values):
            setattr(sectors[base + c], attr, value)


def _read_sparse(g: Any, f: FieldSpec, layer: dict[Any, Any], path: str) -> None:
    names = g.sector_names
    sectors = g.sectors
    for key, raw in layer.items():
        where = f"{path}.{key}"
        if isinstance(key, int):
            # YAML reads 0101 unquoted as a number (65, in octal): the digits the writer meant are gone.
            raise StateError(where, f"a number, not a sector: write sectors in quotes, like \"{sectors[0]._key}\", "
                                       "or YAML reads them as numbers")
        try:
            s = sectors[names.parse(str(key))]
        except ValueError as e:
            raise StateError(where, str(e)) from None
        value = codec.decode(g, raw, f.type, where)
        if f.type[0] == "map":
            value = {k: v for k, v in value.items() if v != f.default(g)}
        setattr(s, f.attr, value)


def _read_members(g: Any, f: FieldSpec, layer: dict[Any, Any], path: str) -> None:
    extra = [str(k) for k in layer if k != BY_MEMBER]
    if extra:
        raise StateError(f"{path}.{extra[0]}", f"a layer written `{BY_MEMBER}` has nothing else beside it")
    members = layer[BY_MEMBER]
    path = f"{path}.{BY_MEMBER}"
    if not isinstance(members, dict):
        raise StateError(path, "expected a mapping of members to their sectors")
    names = g.sector_names
    held: dict[int, list[Any]] = {}
    given: dict[Any, Any] = {}
    for key, runs in members.items():
        member = codec.decode(g, key, f.type[1], f"{path}.{key}")
        if member in given:
            raise StateError(f"{path}.{key}", f"the same as {given[member]}, given before it")
        given[member] = key
        if not isinstance(runs, list):
            raise StateError(f"{path}.{key}", "expected a list of sectors and runs of sectors (\"02200..02800\")")
        # Runs in map order and apart, as the state writes them: a member's runs then cost no more than the map,
        # however many a file gives (overlapping runs would let a short file name every sector many times).
        after = -1
        for i, run in enumerate(runs):
            where = f"{path}.{key}[{i}]"
            if not isinstance(run, str):
                raise StateError(where, f"a sector or a run of sectors in quotes, like \"{g.sectors[0]._key}\", "
                                        "not a number")
            first, sep, last = run.partition(RUN)
            try:
                a = names.parse(first)
                b = names.parse(last) if sep else a
            except ValueError as e:
                raise StateError(where, str(e)) from None
            if b < a:
                raise StateError(where, f"a run goes forward in map order, from a sector to a later one, not back "
                                        f"to {last}")
            if a <= after:
                raise StateError(where, f"{first} is not after the sectors before it: write a member's sectors and "
                                        "runs in map order, each once")
            after = b
            for index in range(a, b + 1):
                held.setdefault(index, []).append(member)
    sectors = g.sectors
    attr = f.attr
    for index, values in held.items():
        setattr(sectors[index], attr, sorted(values, key=lambda t: t._ord))


def _dump_members(g: Any, f: FieldSpec) -> dict[str, Any]:
    """A by-member layer: each member's sectors, consecutive ones joined in a run; {} when no sector holds any."""
    attr = f.attr
    runs: dict[Any, list[tuple[int, int]]] = {}
    for i, s in enumerate(g.sectors):
        for member in getattr(s, attr):
            spans = runs.get(member)
            if spans is None:
                runs[member] = [(i, i)]
            elif spans[-1][1] == i - 1:
                spans[-1] = (spans[-1][0], i)
            else:
                spans.append((i, i))
    if not runs:
        return {}
    keys = [s._key for s in g.sectors]
    return {BY_MEMBER: {m._key: Runs(keys[a] if a == b else f"{keys[a]}{RUN}{keys[b]}" for a, b in runs[m])
                        for m in sorted(runs, key=lambda t: t._ord)}}


# ---------------------------------------------------------------- writing a section

def dump(g: Any) -> dict[str, Any]:
    """The grid's section: drawn fields as rows of symbols, the others sparse (only sectors off the default)."""
    spec: GridSpec = g.spec.grid
    draws = dict(spec.draws)
    sectors = g.sectors
    w = g.grid.width
    out: dict[str, Any] = {}
    for f in spec.fields:
        attr = f.attr
        if f.name in draws:
            sym = draws[f.name]
            cells = [getattr(getattr(s, attr), sym) for s in sectors]
            out[f.name] = Rows("".join("".join(cells[i:i + w]) + "\n" for i in range(0, len(cells), w)))
            continue
        if by_member(g, f):
            out[f.name] = _dump_members(g, f)
            continue
        layer: dict[str, Any] = {}
        if f.type[0] == "map":
            for s in sectors:
                m = getattr(s, attr)
                if m:
                    layer[s._key] = codec.encode(codec.canonical_map(g, f.type[1], m), f.type)
        else:
            default = f.default(g)
            ty = f.type
            for s in sectors:
                v = getattr(s, attr)
                if v is not default and v != default:
                    layer[s._key] = codec.encode(v, ty)
        out[f.name] = layer
    return out


# ---------------------------------------------------------------- each turn

def broken(g: Any, found: list[Any]) -> None:
    """Values that break their field's `where`, each at its JSON path in the grid's section."""
    spec: GridSpec | None = g.spec.grid
    if spec is None:
        return
    fields = tuple(f for f in spec.fields if f.where is not None)
    if not fields:
        return
    path = f"$.{spec.name}"
    for f in fields:
        where = f.where
        assert where is not None
        for s in g.sectors:
            value = getattr(s, f.attr)
            if f.type[0] == "map":
                for key, v in codec.canonical_map(g, f.type[1], value).items():
                    if v is not None and not where(g, v):
                        found.append(codec.breaks(g, f, v, f.type[2], f"{path}.{f.name}.{s._key}.{key}"))
            elif value is not None and not where(g, value):
                found.append(codec.breaks(g, f, value, f.type, f"{path}.{f.name}.{s._key}"))
