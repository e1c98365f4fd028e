"""A `grid` declaration (AST) -> the checked grid on `Env.grid`: size, wraps, numbering, drawn fields.

A phase-1 (declare) pass: it reads parameters, field types and the `data` rows of the things a drawn field
holds, and no body. The grid's type is a thing (`decls.collect` made it one), so every expression over
sectors is checked as over any thing; what is the grid's own is judged here.
"""

from __future__ import annotations

from rulesdsl import types as T
from rulesdsl.checker.env import Env, GridInfo, suggest
from rulesdsl.checker.state import Checking
from rulesdsl.source import Span

_EDGES = {frozenset({"east", "west"}): "x", frozenset({"north", "south"}): "y"}


def declare(c: Checking) -> None:
    env = c.env
    gi = env.grid
    if gi is None:
        return
    d = gi.decl
    for what, span in d.items_twice:
        code = "E0232" if what == "size" else "E0234"
        env.diags.error(span, code, f"the grid's `{what}` is written twice", help="keep one of the two lines")
    _size(env, gi)
    _wraps(env, gi)
    _pattern(env, gi)
    _draws(c, gi)


def _size(env: Env, gi: GridInfo) -> None:
    d = gi.decl
    if d.width is None or d.height is None or d.size_span is None:
        env.diags.error(d.name_span or d.span, "E0232", f"grid `{d.name}` has no size",
                        help="say how many columns and rows it has: `size 320 by 99` (columns by rows)")
        return
    gi.width = _dim(env, d.width, d.size_span, "columns")
    gi.height = _dim(env, d.height, d.size_span, "rows")


def _dim(env: Env, value: int | str, span: Span, what: str) -> int | str:
    if isinstance(value, int):
        if value < 1:
            env.diags.error(span, "E0232", f"a grid has at least 1 of its {what}, not {value}",
                            help="write a whole number of 1 or more")
            return 1
        return value
    p = env.params.get(value)
    if p is None:
        if value[:1].isdigit():
            env.diags.error(span, "E0232", f"the grid's {what} must be a whole number, not {value}",
                            help="write a whole number of 1 or more")
        else:
            hint = suggest(value, env.params)
            env.diags.error(span, "E0232", f"the grid's {what} are a whole number or an int parameter: "
                            f"`{value}` is no parameter", help=hint or f"declare it: `param {value}: int = 10`")
        return 1
    env.used.add(value)
    if p.ty != T.INT:
        env.diags.error(span, "E0232", f"the grid's {what} are set by `{value}`, which is {p.ty.show()}: it must be "
                        "an int parameter", help=f"declare it `param {value}: int = ...`")
        return 1
    if isinstance(p.default, int) and p.default < 1:
        env.diags.error(span, "E0232", f"the grid's {what} are set by `{value}`, whose default is {p.default}: "
                        "a grid has at least one", help=f"give `{value}` a default of 1 or more")
    return value


def _wraps(env: Env, gi: GridInfo) -> None:
    seen: set[str] = set()
    for a, b, span in gi.decl.wraps:
        axis = _EDGES.get(frozenset({a, b}))
        if axis is None:
            env.diags.error(span, "E0233", f"`wrap {a} {b}` names no pair of opposite edges",
                            help="write `wrap east west` (a globe's east and west edges meet) or `wrap north south`")
            continue
        if axis in seen:
            env.diags.error(span, "E0233", f"`wrap {a} {b}` is written twice", help="remove this line")
            continue
        seen.add(axis)
        if axis == "x":
            gi.wrap_x = True
        else:
            gi.wrap_y = True


def pattern_problem(pattern: str) -> str | None:
    """Why a `numbered` pattern cannot name sectors, or None: the rules of runtime/grid.py's SectorNames."""
    if pattern.count("C") == 0 or pattern.count("R") == 0:
        return "it needs at least one `C` (a column digit) and one `R` (a row digit)"
    for ch in "CR":
        first = pattern.index(ch)
        if pattern[first:first + pattern.count(ch)] != ch * pattern.count(ch):
            return f"its `{ch}` digits must stand together"
    if any(ch.isdigit() or ch.isspace() for ch in pattern):
        return "any character besides `C` and `R` is written as it is, so it may not be a digit or a space"
    return None


def _pattern(env: Env, gi: GridInfo) -> None:
    d = gi.decl
    if d.numbered is None or d.numbered_span is None:
        env.diags.error(d.name_span or d.span, "E0234", f"grid `{d.name}` does not say how a sector is written",
                        help='add `numbered "CCCRR"`: C a column digit, R a row digit, both counted from 0')
        gi.pattern = "CCCRR"
        return
    problem = pattern_problem(d.numbered)
    if problem is not None:
        env.diags.error(d.numbered_span, "E0234", f'`numbered "{d.numbered}"` cannot write a sector: {problem}',
                        help='like `numbered "CCCRR"`: 22344 is column 223, row 44')
        gi.pattern = "CCCRR"
        return
    gi.pattern = d.numbered
    for size, digit, what in ((gi.width, "C", "columns"), (gi.height, "R", "rows")):
        room = 10 ** d.numbered.count(digit)
        if isinstance(size, int) and size > room:
            env.diags.error(d.numbered_span, "E0235", f'`numbered "{d.numbered}"` has {d.numbered.count(digit)} '
                            f"{digit} digit(s), room for {room} {what}, but the grid has {size}",
                            help=f"write one more `{digit}` for each power of ten: the last of the {what} "
                                 f"is number {size - 1}")
        elif isinstance(size, str) and size in env.params:
            default = env.params[size].default
            if isinstance(default, int) and default > room:
                env.diags.warning(env.param_spans[size], "W0206", f"`{size}` starts at {default}, but "
                                  f'`numbered "{d.numbered}"` has room for {room} {what}: every scenario must '
                                  f"set `{size}` to at most {room}", help=f"start it at {room} or less, or give "
                                  f"the pattern one more `{digit}`")


def _draws(c: Checking, gi: GridInfo) -> None:
    env = c.env
    d = gi.decl
    fields = env.things[d.name].fields
    draws: list[tuple[str, str]] = []
    for fname, sym, span in d.draws:
        fd = fields.get(fname)
        if fd is None:
            env.diags.error(span, "E0236", f"grid `{d.name}` has no field `{fname}` to draw",
                            help=suggest(fname, fields) or f"declare it in the grid: `{fname}: THING = THING.KEY`")
            continue
        if any(f == fname for f, _ in draws):
            env.diags.error(span, "E0236", f"field `{fname}` is drawn twice", help="remove this line")
            continue
        ty = fd.ty
        if not isinstance(ty, T.ThingT) or ty.name not in env.things or ty.name == d.name \
                or not env.things[ty.name].key:
            if ty != T.ANY:
                env.diags.error(span, "E0236", f"only a field that holds a keyed thing can be drawn, and "
                                f"`{fname}` is {ty.show()}",
                                help="draw a field like `terrain: Terrain`, whose thing has a one-character "
                                     "`symbol: text` field")
            continue
        info = env.things[ty.name]
        sfd = info.fields.get(sym)
        if sfd is None or sfd.ty != T.TEXT:
            what = "has no field" if sfd is None else f"has `{sym}` as {sfd.ty.show()}, not text, so no"
            env.diags.error(span, "E0236", f"{ty.name} {what} `{sym}` to draw with",
                            help=suggest(sym, info.fields) or f"declare `{sym}: text` in `thing {ty.name}`, and "
                                 "give each row a symbol of one character")
            continue
        draws.append((fname, sym))
        _symbols(c, ty.name, sym, span)
    gi.draws = tuple(draws)


def _symbols(c: Checking, thing: str, sym: str, span: Span) -> None:
    """Each row of a drawn thing has a symbol of its own: one visible character, as a map row reads it."""
    env = c.env
    seen: dict[str, str] = {}
    for inst in c.program.instances.get(thing, []):
        at = inst.span or span
        value = inst.values.get(sym)
        if value is None:
            env.diags.error(at, "E0237", f"{thing} `{inst.key}` has no `{sym}`, and a drawn map needs one for "
                            "every row", help=f"add a `{sym}` column to `data {thing}`")
            continue
        if len(value) != 1 or value.isspace():
            env.diags.error(at, "E0237", f'the `{sym}` of {thing} `{inst.key}` is "{value}": a map is drawn with '
                            "one visible character per sector", help='write one character, like "^"')
            continue
        if value in seen:
            env.diags.error(at, "E0237", f'{thing} `{inst.key}` has the symbol "{value}" of `{seen[value]}`: a '
                            "map could not tell them apart", help="give each its own character")
            continue
        seen[value] = inst.key


def is_grid(env: Env, ty: T.Ty) -> bool:
    return env.grid is not None and isinstance(ty, T.ThingT) and ty.name == env.grid.decl.name
