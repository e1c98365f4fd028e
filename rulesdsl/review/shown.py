"""A report's data + its template -> the data paths each line of the rendered text shows.

The report is rendered again from its stored data, the data wrapped in proxies that note each read of a leaf
(a str, number, bool or None taken out of a record or a list) by its JSON path (`$.controlled[2].troops`).
Jinja yields the text in chunks, in order; the leaves read since the chunk before are the ones that made this
chunk (printed in it, or tested by the `if` that chose it), so they are shown by the line(s) it lands on.
That is a fact of this render, not a guess from the numbers and names in the text (as explain made before).
A top-level leaf (`cash`), which Jinja looks up once at the start, is noted where it is used (_recording).
"""

from __future__ import annotations

import types
from bisect import bisect_right
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, SupportsIndex

import jinja2
from jinja2.runtime import LoopContext, missing

from rulesdsl.runtime.report import normalise

__all__ = ["Shown", "line_sources"]


@dataclass(frozen=True)
class Shown:
    """A report's text, normalised as runtime.report.render writes it, and for each of its lines (index 0 =
    line 1) the data paths it shows, each once, in the order first read."""

    text: str
    lines: list[tuple[str, ...]]


class _Reads:
    """The leaf paths read since the last chunk of output."""

    __slots__ = ("paths",)

    def __init__(self) -> None:
        self.paths: list[str] = []

    def take(self) -> list[str]:
        out, self.paths = self.paths, []
        return out


def _wrap(value: Any, path: str, reads: _Reads) -> Any:
    # Exact types: the stored data is plain JSON, and a proxy must never be wrapped twice.
    kind = type(value)
    if kind is dict:
        return _Dict(value, path, reads)
    if kind is list:
        return _List(value, [f"{path}[{i}]" for i in range(len(value))], reads)
    return value


def _is_leaf(value: Any) -> bool:
    return not isinstance(value, (_Dict, _List))


class _Dict(dict[Any, Any]):
    """A record of the data. Its items are stored wrapped (records and lists as proxies, leaves as they are),
    so C code that reads the storage directly (`dict(d)`, `**d`) still sees proxies for the containers; every
    method that hands out a value is overridden to note the leaves it hands out."""

    __slots__ = ("_shown_path", "_shown_reads")

    def __init__(self, data: dict[Any, Any], path: str, reads: _Reads) -> None:
        super().__init__({k: _wrap(v, f"{path}.{k}", reads) for k, v in data.items()})
        self._shown_path = path
        self._shown_reads = reads

    def _out(self, key: Any, value: Any) -> Any:
        if _is_leaf(value):
            self._shown_reads.paths.append(f"{self._shown_path}.{key}")
        return value

    def __getitem__(self, key: Any) -> Any:
        return self._out(key, dict.__getitem__(self, key))

    def get(self, key: Any, default: Any = None) -> Any:
        return self[key] if dict.__contains__(self, key) else default

    def items(self) -> _View:  # type: ignore[override]
        return _View(self, lambda k, v: (k, self._out(k, v)))

    def values(self) -> _View:  # type: ignore[override]
        return _View(self, self._out)

    def copy(self) -> _Dict:
        twin = _Dict.__new__(_Dict)
        dict.update(twin, self)  # the stored (already wrapped) values, as they are
        twin._shown_path, twin._shown_reads = self._shown_path, self._shown_reads
        return twin

    def __repr__(self) -> str:
        # Printing a whole record shows each of its leaves (the nested proxies note their own).
        for k, v in dict.items(self):
            self._out(k, v)
        return dict.__repr__(self)

    __str__ = __repr__


class _View:
    """What `items()` and `values()` of a proxy return: like dict's views, read lazily, so a loop over a
    record's items notes each value when the loop reaches it, not all of them before the first line."""

    __slots__ = ("_d", "_f")

    def __init__(self, d: _Dict, f: Callable[[Any, Any], Any]) -> None:
        self._d, self._f = d, f

    def __iter__(self) -> Iterator[Any]:
        f = self._f
        for k, v in dict.items(self._d):
            yield f(k, v)

    def __reversed__(self) -> Iterator[Any]:
        f = self._f
        for k, v in reversed(dict.items(self._d)):
            yield f(k, v)

    def __len__(self) -> int:
        return len(self._d)

    def __contains__(self, x: object) -> bool:
        return any(x is y or x == y for y in self)

    def __repr__(self) -> str:
        return repr(list(self))


class _List(list[Any]):
    """A list of the data, its items stored wrapped as _Dict stores them. Each item has its own path, so a
    list joined from two (`orders.used + orders.refused`) keeps each item's."""

    __slots__ = ("_shown_paths", "_shown_reads")

    def __init__(self, items: Iterable[Any], paths: list[str | None], reads: _Reads) -> None:
        super().__init__(_wrap(v, p, reads) if p is not None else v for v, p in zip(items, paths, strict=True))
        self._shown_paths = paths
        self._shown_reads = reads

    @classmethod
    def _of(cls, items: list[Any], paths: list[str | None], reads: _Reads) -> _List:
        """A proxy of items already wrapped."""
        out = cls.__new__(cls)
        list.extend(out, items)
        out._shown_paths, out._shown_reads = paths, reads
        return out

    def _out(self, i: int, value: Any) -> Any:
        path = self._shown_paths[i]
        if path is not None and _is_leaf(value):
            self._shown_reads.paths.append(path)
        return value

    def __getitem__(self, i: SupportsIndex | slice) -> Any:
        if isinstance(i, slice):
            return _List._of(list.__getitem__(self, i), self._shown_paths[i], self._shown_reads)
        return self._out(i.__index__(), list.__getitem__(self, i))

    def __iter__(self) -> Iterator[Any]:
        for i, v in enumerate(list.__iter__(self)):
            yield self._out(i, v)

    def __reversed__(self) -> Iterator[Any]:
        n = len(self)
        for j, v in enumerate(list.__reversed__(self)):
            yield self._out(n - 1 - j, v)

    def __contains__(self, x: object) -> bool:
        return any(x is v or x == v for v in self)

    def index(self, x: Any, start: SupportsIndex = 0, stop: SupportsIndex | None = None) -> int:
        n = len(self)
        lo = start.__index__()
        hi = n if stop is None else stop.__index__()
        for i in range(*slice(lo, hi).indices(n)):
            v = self[i]
            if x is v or x == v:
                return i
        raise ValueError(f"{x!r} is not in list")

    def count(self, x: Any) -> int:
        return sum(1 for v in self if x is v or x == v)

    def _paths_of(self, other: Any) -> list[str | None]:
        return other._shown_paths if isinstance(other, _List) else [None] * len(other)

    def __add__(self, other: Any) -> Any:
        if not isinstance(other, list):
            return NotImplemented
        return _List._of(list.__add__(self, other), self._shown_paths + self._paths_of(other), self._shown_reads)

    def __radd__(self, other: Any) -> Any:
        if not isinstance(other, list):
            return NotImplemented
        return _List._of(list.__add__(other, self), self._paths_of(other) + self._shown_paths, self._shown_reads)

    def __mul__(self, n: SupportsIndex) -> _List:
        return _List._of(list.__mul__(self, n), self._shown_paths * n.__index__(), self._shown_reads)

    __rmul__ = __mul__

    def copy(self) -> _List:
        return _List._of(list(list.__iter__(self)), list(self._shown_paths), self._shown_reads)

    def __repr__(self) -> str:
        for i, v in enumerate(list.__iter__(self)):
            self._out(i, v)
        return list.__repr__(self)

    __str__ = __repr__


def _recording(template: jinja2.Template, tops: dict[str, Any], reads: _Reads) -> jinja2.Template:
    """A copy of `template` that notes when a top-level leaf of the data (`cash`) is read.

    Jinja resolves every top-level name once, at the start of the render, so a top-level leaf (a plain value
    no proxy can hold) would be read long before the line that shows it. Left out of the context, the name
    resolves to `missing`, and the compiled code calls `undefined(name=...)` at the very place it uses it:
    the copy's environment answers that call with the value, noting its path. Its code and everything else
    are the template's own."""
    env = template.environment
    strict = env.undefined

    def undefined(*args: Any, **kwargs: Any) -> Any:
        if not args and len(kwargs) == 1:
            name = kwargs.get("name")
            if isinstance(name, str) and name in tops:
                reads.paths.append(f"$.{name}")
                return tops[name]
        return strict(*args, **kwargs)

    overlay = env.overlay()
    overlay.undefined = undefined  # type: ignore[assignment]
    overlay.filters = dict(env.filters)
    for name in _REORDERING:
        if name in overlay.filters:
            overlay.filters[name] = _reordering(overlay.filters[name], name == "dictsort", reads)
    for name in _WHOLE:
        if name in overlay.filters:
            overlay.filters[name] = _whole(overlay.filters[name])

    def rebound(f: Callable[..., Any]) -> Callable[..., Any]:
        # The compiled functions take the environment as a default argument: the same code, bound to the copy,
        # its loops run by _looping's LoopContext.
        assert isinstance(f, types.FunctionType)
        defaults = tuple(overlay if d is env else d for d in f.__defaults__ or ())
        names = dict(f.__globals__, LoopContext=_looping(reads))
        g = types.FunctionType(f.__code__, names, f.__name__, defaults, f.__closure__)
        g.__kwdefaults__ = f.__kwdefaults__
        return g

    twin = object.__new__(type(template))  # Template.__new__ compiles a source: copy the attributes
    twin.__dict__.update(template.__dict__)
    twin.environment = overlay
    twin.root_render_func = rebound(template.root_render_func)
    twin.blocks = {name: rebound(f) for name, f in template.blocks.items()}
    return twin


def _looping(reads: _Reads) -> type[LoopContext]:
    """Jinja's LoopContext, but what it reads ahead (`loop.last` and `loop.nextitem` take the next item early)
    is noted when the loop reaches that item, on its own line, not on the line that asked."""

    class Loop(LoopContext):
        _ahead: list[str] = []

        def _peek_next(self) -> Any:
            if self._after is not missing:
                return self._after
            before = len(reads.paths)
            self._after = next(self._iterator, missing)
            self._ahead = reads.paths[before:]
            del reads.paths[before:]
            return self._after

        def __next__(self) -> tuple[Any, LoopContext]:
            if self._after is not missing:
                reads.paths += self._ahead
                self._ahead = []
            return super().__next__()

    return Loop


# Filters that read a whole list at once and give back its items in a new plain list: every item's leaves
# (or sort keys) would be noted before the first line, and none on the line that prints each.
_REORDERING = ("sort", "list", "dictsort")


def _reordering(f: Callable[..., Any], pairs: bool, reads: _Reads) -> Callable[..., Any]:
    """`f` (a filter in _REORDERING) made to forget what it reads, and to give a proxy back whose items keep
    their paths, so each row notes its own when the template reaches it. A sort key decides where a row goes,
    not what it shows."""
    env_first = getattr(f, "jinja_pass_arg", None) is not None

    def reorder(*args: Any, **kwargs: Any) -> Any:
        value = args[1] if env_first else args[0]
        if pairs and isinstance(value, _Dict):
            # dictsort's (key, value) pairs: each notes its value's path when reached, as items() does.
            before = len(reads.paths)
            out = f(*args, **kwargs)
            del reads.paths[before:]
            return _List._of(out, [f"{value._shown_path}.{k}" if _is_leaf(v) else None for k, v in out], reads)
        if not isinstance(value, _List):
            return f(*args, **kwargs)
        before = len(reads.paths)
        out = f(*args, **kwargs)
        # Each item back to its index: by identity, in order among the identical (sorted is stable).
        where: dict[int, deque[int]] = {}
        for i, v in enumerate(list.__iter__(value)):
            where.setdefault(id(v), deque()).append(i)
        try:
            paths = [value._shown_paths[where[id(v)].popleft()] for v in out]
        except (KeyError, IndexError):
            return out  # not the list's own items: what it read stays noted
        del reads.paths[before:]
        return _List._of(list(out), paths, reads)

    reorder.jinja_pass_arg = getattr(f, "jinja_pass_arg", None)  # type: ignore[attr-defined]
    return reorder


# Filters that show a value whole, and tell a proxy from the plain value by its type: pprint lays out a
# dict by dict's own repr only, sorted. They are given the plain value, all of its leaves noted.
_WHOLE = ("pprint",)


def _plain(value: Any) -> Any:
    """The data under a proxy as it is stored, each of its leaves noted."""
    if isinstance(value, _Dict):
        return {k: _plain(v) if not _is_leaf(v) else value._out(k, v) for k, v in dict.items(value)}
    if isinstance(value, _List):
        return [_plain(v) if not _is_leaf(v) else value._out(i, v) for i, v in enumerate(list.__iter__(value))]
    return value


def _whole(f: Callable[..., Any]) -> Callable[..., Any]:
    def whole(*args: Any, **kwargs: Any) -> Any:
        return f(*map(_plain, args), **kwargs)

    whole.jinja_pass_arg = getattr(f, "jinja_pass_arg", None)  # type: ignore[attr-defined]
    return whole


def line_sources(template: jinja2.Template, data: dict[str, Any]) -> Shown | None:
    """The report text `template` makes of `data` (a report as a game folder stores it), and for each of its
    lines the data paths it shows; None if the recording render fails or makes another text than the plain
    one (never for the shipped templates: a caller then falls back to its own means). A template that fails
    on the plain data raises as runtime.report.render would."""
    plain = normalise(template.render(**data))
    reads = _Reads()
    shared = template.globals
    tops = {k: v for k, v in data.items() if type(v) not in (dict, list) and k not in shared}
    context = {k: _wrap(v, f"$.{k}", reads) for k, v in data.items() if k not in tops}
    chunks: list[str] = []
    made: list[list[str]] = []
    try:
        for chunk in _recording(template, tops, reads).generate(**context):
            made.append(reads.take())
            chunks.append(chunk)
    except Exception:  # a proxy that behaves unlike the plain data: the caller falls back
        return None
    raw = "".join(chunks)
    text = normalise(raw)
    if text != plain:
        return None
    return Shown(text, _assign(raw, chunks, made, len(text.splitlines())))


def _assign(raw: str, chunks: list[str], made: list[list[str]], count: int) -> list[tuple[str, ...]]:
    """Each chunk's reads go to the lines its text lands on (a line's end to the line it ends), those that
    show something: a chunk that only ends or makes blank lines hands its reads on to the next chunk, so the
    test of an `{% if %}` goes to the heading it shows, not to the blank line above it."""
    pieces = raw.splitlines(keepends=True)
    starts: list[int] = []
    at = 0
    for piece in pieces:
        starts.append(at)
        at += len(piece)
    shows = [i < count and bool(piece.rstrip()) for i, piece in enumerate(pieces)]
    lines: list[dict[str, None]] = [{} for _ in range(count)]
    pending: list[str] = []
    at = 0
    for chunk, paths in zip(chunks, made, strict=True):
        pending += paths
        end = at + len(chunk)
        if pending and at < len(raw):
            first = bisect_right(starts, at) - 1
            last = bisect_right(starts, end - 1) - 1 if end > at else first
            hit = [i for i in range(first, last + 1) if shows[i]]
            if hit:
                for i in hit:
                    lines[i].update(dict.fromkeys(pending))
                pending = []
        at = end
    return [tuple(d) for d in lines]
