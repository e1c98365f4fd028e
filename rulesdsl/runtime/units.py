"""Numbered things and indexed fields -> the live instances of one game: new numbers, destroy with the
references cleaned, and each indexed field's value -> instances.

A numbered thing's instances are made while the game runs (`new`) and by the scenario; each has a number,
the lowest unused one (of its owner, for a thing `numbered per owner`). A `Store` keeps them for one game:
by owner and number, the numbers free below the highest (a heap of free ranges, so that the lowest unused
is found in O(log n) even after a scenario that numbers its units 1, 5 and 900), and the indexes.

An index is `g.ix[THING][FIELD]`: value -> the instances holding it, an insertion-ordered dict used as a
set, so that adding and removing one is O(1). A loop reads a bucket in the order a scan would give (by
`_ord`: declaration order for a keyed thing, owner then number for a numbered one), sorting the few
instances in it. The generated class gives an indexed field a property whose setter moves the instance
between buckets; `_ix` is None until the instance is in a game's indexes (while a state is read, values
are set before any index exists).
"""

from __future__ import annotations

import functools
import heapq
import operator
from collections.abc import Callable, Iterable
from typing import Any

# A per-owner instance's `_ord` is its owner's place in the game's order, times this, plus its number: the
# order of `Division` as a list (by owner, then number) is the order of `_ord`, so sets and index buckets
# sort as a scan would. Numbers stay below it (new numbers are the lowest unused).
OWNER_SPAN = 1 << 32
# The `_ord` of an instance with no owner (`numbered per owner or none`) is this plus its number: after every
# player's, so `Division` as a list gives the ownerless last, by number.
NO_OWNER_ORD = 1 << 62
_UNBOUNDED = 1 << 62
_ordinal = operator.attrgetter("_ord")


def indexed_field(name: str, slot: str) -> property:
    """The property of indexed field `name`, stored in `slot`: read as fast as a slot (a C getter), and set
    through a setter that moves the instance from its old value's bucket to the new one's."""
    get = operator.attrgetter(slot)

    def put(obj: Any, value: Any) -> None:
        try:
            ix = obj._ix
        except AttributeError:  # a keyed thing being built: no index yet
            ix = None
        if ix is not None:
            old = get(obj)
            if old is not value:
                index = ix[name]
                bucket = index[old]
                del bucket[obj]
                if not bucket:
                    del index[old]
                found = index.get(value)
                if found is None:
                    index[value] = {obj: None}
                else:
                    found[obj] = None
        setattr(obj, slot, value)

    return property(get, put)


def bucket(index: dict[Any, dict[Any, None]], value: Any) -> list[Any]:
    """The instances whose indexed field holds `value`, in the order a scan of them all would give."""
    found = index.get(value)
    if not found:
        return []
    out = list(found)
    if len(out) > 1:
        out.sort(key=_ordinal)
    return out


def bucket_size(index: dict[Any, dict[Any, None]], value: Any) -> int:
    """How many instances hold `value`: `count(x for x in T where x.F == value)`, with no list made."""
    found = index.get(value)
    return len(found) if found else 0


def enter(ix: dict[str, dict[Any, dict[Any, None]]], obj: Any, fields: Iterable[tuple[str, str]]) -> None:
    """Puts `obj` into the indexes `ix` of each (field, attribute), under its current value."""
    for name, attr in fields:
        index = ix[name]
        value = getattr(obj, attr)
        found = index.get(value)
        if found is None:
            index[value] = {obj: None}
        else:
            found[obj] = None
    obj._ix = ix


def leave(ix: dict[str, dict[Any, dict[Any, None]]], obj: Any, fields: Iterable[tuple[str, str]]) -> None:
    for name, attr in fields:
        index = ix[name]
        value = getattr(obj, attr)
        found = index.get(value)
        if found is not None:
            found.pop(obj, None)
            if not found:
                del index[value]
    obj._ix = None


class Store:
    """The live instances of one numbered thing in one game."""

    def __init__(self, g: Any, name: str, cls: type, per_owner: bool, fields: tuple[Any, ...],
                 indexed: tuple[tuple[str, str], ...], ix: dict[str, dict[Any, dict[Any, None]]]) -> None:
        self.g = g  # the game: a default is worked out in it
        self.name, self.cls, self.per_owner, self.fields = name, cls, per_owner, fields
        self.ownerless = False  # `numbered per owner or none`: instances of no player, numbered on their own
        self.indexed = indexed  # (field, attribute) of each index kept, the built-in `owner` among them
        self.required: frozenset[str] = frozenset()  # fields a scenario's row must give (ThingSpec.required)
        self.ix = ix
        self.by_owner: dict[Any, dict[int, Any]] = {}  # owner (None for a global numbering) -> number -> instance
        self.free: dict[Any, list[tuple[int, int]]] = {}  # owner -> heap of [start, end) ranges of unused numbers
        self._live: list[Any] | None = []
        # (owner, number) of each instance destroyed this turn (the engine empties it as a turn begins): an
        # order naming one says that it no longer exists, not that it never did.
        self.destroyed: set[tuple[Any, int]] = set()
        # Called with the instances just destroyed, to let go of them wherever a field holds one (`_cleaners`).
        self.cleaners: list[Callable[[tuple[Any, ...]], None]] = []

    # ------------------------------------------------------------ reading
    def live(self) -> list[Any]:
        """Every live instance, by owner (game order) then number: `THING` as a list. Kept until the next new or
        destroy; callers only read it."""
        out = self._live
        if out is None:
            out = [obj for numbers in self.by_owner.values() for obj in numbers.values()]
            out.sort(key=_ordinal)
            self._live = out
        return out

    def find(self, owner: Any, number: int) -> Any:
        return self.by_owner.get(owner if self.per_owner else None, {}).get(number)

    def was_destroyed(self, owner: Any, number: int) -> bool:
        return (owner if self.per_owner else None, number) in self.destroyed

    # ------------------------------------------------------------ changing
    def new(self, _owner: Any, /, **values: Any) -> Any:
        """`new THING(owner: ..., field: value, ...)`: the lowest unused number, the defaults, then `values`."""
        owner = _owner if self.per_owner else None
        obj = self.make(owner, self.take_lowest(owner))
        for f in self.fields:
            if f.attr not in values:
                setattr(obj, f.attr, {} if f.type[0] == "map" else f.default(self.g))
        for attr, value in values.items():
            setattr(obj, attr, value)
        self.add(obj)
        return obj

    def take_lowest(self, owner: Any) -> int:
        """The lowest unused number (of `owner`), taken out of the free ranges."""
        heap = self.free.get(owner)
        if heap is None:
            heap = self.free[owner] = [(1, _UNBOUNDED)]
        start, end = heap[0]
        if start + 1 < end:
            heapq.heapreplace(heap, (start + 1, end))
        else:
            heapq.heappop(heap)
        return start

    def make(self, owner: Any, number: int) -> Any:
        """A bare instance of `number` (of `owner`): its fields are set next, and then it is `add`ed."""
        if self.per_owner and owner is None:
            # Only a thing `numbered per owner or none` is given none (the checker types its owner Player?).
            obj = self.cls(str(number), NO_OWNER_ORD + number, number)
            obj.owner = None
        elif self.per_owner:
            obj = self.cls(f"{owner._key}/{number}", owner._ord * OWNER_SPAN + number, number)
            obj.owner = owner
        else:
            obj = self.cls(str(number), number, number)
        return obj

    def add(self, obj: Any) -> None:
        self.place(obj)
        enter(self.ix, obj, self.indexed)

    def place(self, obj: Any) -> None:
        """Puts `obj` among the live instances under its number, not yet in the indexes: while a state is read,
        its values are set after every instance has its number (a field may name another instance)."""
        owner = obj.owner if self.per_owner else None
        self.by_owner.setdefault(owner, {})[obj.number] = obj
        self._live = None

    def destroy(self, obj: Any) -> None:
        """`destroy x`: it leaves the game and its indexes, its number is free again, and every field that holds
        it lets go (`cleaners`). Destroying it again does nothing."""
        if self._leave(obj):
            for clean in self.cleaners:
                clean((obj,))

    def destroy_all(self, objs: Iterable[Any]) -> None:
        """`for each x in ... { destroy x }`: each destroyed as by `destroy`, and the fields that hold them read
        once for all of them, not once for each."""
        gone = tuple(obj for obj in objs if self._leave(obj))
        if gone:
            for clean in self.cleaners:
                clean(gone)

    def _leave(self, obj: Any) -> bool:
        if not obj._live:
            return False
        obj._live = False
        owner = obj.owner if self.per_owner else None
        del self.by_owner[owner][obj.number]
        heapq.heappush(self.free.setdefault(owner, [(1, _UNBOUNDED)]), (obj.number, obj.number + 1))
        self.destroyed.add((owner, obj.number))
        leave(self.ix, obj, self.indexed)
        self._live = None
        return True

    def settle(self) -> None:
        """After a state or a scenario has put its instances in with numbers of their own: the free numbers are
        the gaps below each owner's highest, and everything above it."""
        for owner, numbers in self.by_owner.items():
            heap: list[tuple[int, int]] = []
            last = 0
            for number in sorted(numbers):
                if number > last + 1:
                    heap.append((last + 1, number))
                last = number
            heap.append((last + 1, _UNBOUNDED))
            heapq.heapify(heap)
            self.free[owner] = heap



def with_grid(spec: Any) -> list[Any]:
    """The ruleset's things, and its grid if it has one: both are kept in indexes and may hold instances."""
    return [*spec.things, *([spec.grid] if getattr(spec, "grid", None) is not None else [])]


def open_units(g: Any, things: Iterable[Any]) -> None:
    """Gives game `g` its stores and indexes: `g.units[NAME]` for each numbered thing, `g.ix[NAME][FIELD]` for
    each thing with an indexed field (keyed things' instances are put in by `index_keyed` once their values
    are set), and each store the cleaners that let go of a destroyed instance."""
    g.units = {}
    g.ix = {}
    specs = list(things)
    for t in specs:
        indexed = indexed_fields(t)
        if indexed:
            g.ix[t.name] = {name: {} for name, _ in indexed}
        if t.numbered:
            store = Store(g, t.name, t.cls, t.numbered == "owner", t.fields, indexed, g.ix.setdefault(t.name, {}))
            store.required = frozenset(t.required)
            store.ownerless = getattr(t, "ownerless", False)
            g.units[t.name] = store
            g.all[t.name] = []
    for store in g.units.values():
        store.cleaners = _cleaners(g, specs, store.name)


def indexed_fields(t: Any) -> tuple[tuple[str, str], ...]:
    """(field, attribute) of each index a thing's instances are kept in."""
    out = [("owner", "owner")] if t.numbered == "owner" else []
    out += [(f.name, f.attr) for f in t.fields if f.name in getattr(t, "indexed", ())]
    return tuple(out)


def index_keyed(g: Any, things: Iterable[Any]) -> None:
    """Puts every instance of each keyed thing with an indexed field into its indexes, as its values stand."""
    for t in things:
        if not t.numbered and t.name in g.ix:
            fields = indexed_fields(t)
            ix = g.ix[t.name]
            for index in ix.values():
                index.clear()
            for obj in g.all.get(t.name, ()):
                enter(ix, obj, fields)


def _cleaners(g: Any, things: list[Any], target: str) -> list[Callable[[tuple[Any, ...]], None]]:
    """What lets go of destroyed `target` instances: one function per field that can hold one. A field that is
    indexed (every optional one of a thing is: see the code generator) finds its holders in its index; any
    other is read on each holder (players, the world, and things whose lists or sets could hold one), once for
    all the instances destroyed together."""
    spec = g.spec
    holders: list[tuple[Callable[[], Iterable[Any]], Any, dict[str, dict[Any, dict[Any, None]]] | None]] = []
    holders += [((lambda: g.all_players), f, None) for f in spec.player_fields]
    if spec.world_cls is not None:
        holders += [((lambda: (g.world,)), f, None) for f in spec.world_fields]
    for t in things:
        names = {name for name, _ in indexed_fields(t)}
        for f in t.fields:
            holders.append((functools.partial(g.instances, t.name), f, g.ix.get(t.name) if f.name in names else None))
    return [_cleaner(objects, f, ix) for objects, f, ix in holders if _holds(f.type, target)]


def _holds(ty: tuple[Any, ...], target: str) -> bool:
    kind = ty[0]
    if kind == "thing":
        return bool(ty[1] == target)
    if kind in ("opt", "list", "set"):
        return _holds(ty[1], target)
    if kind == "map":
        return _holds(ty[2], target)
    return False


def _cleaner(objects: Callable[[], Iterable[Any]], f: Any,
             ix: dict[str, Any] | None) -> Callable[[tuple[Any, ...]], None]:
    attr, kind = f.attr, f.type[0]
    if ix is not None:
        index = ix[f.name]

        def by_index(gone: tuple[Any, ...]) -> None:
            for dead in gone:
                for holder in list(index.get(dead, ())):
                    setattr(holder, attr, None)
        return by_index

    def by_reading(gone: tuple[Any, ...]) -> None:
        dead = set(gone)  # things hash by identity
        for holder in objects():
            value = getattr(holder, attr)
            if kind == "map":
                for key in [k for k, v in value.items() if v in dead]:
                    del value[key]
                for v in value.values():
                    if isinstance(v, list) and not dead.isdisjoint(v):
                        v[:] = [x for x in v if x not in dead]
            elif kind in ("list", "set"):
                if not dead.isdisjoint(value):
                    value[:] = [x for x in value if x not in dead]
            elif value in dead:
                setattr(holder, attr, None)
    return by_reading
