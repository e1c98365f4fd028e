"""A scenario's or state file's sections of numbered things <-> their instances in a game.

A section is named after the thing. A scenario lists its instances as rows of fields:

    Division:
    - {owner: ann, number: 3, place: A, size: 14}
    - {owner: ann, place: B}           # no number: the lowest unused (after the rows that give one)

The state file writes the columns once and each instance as one flow row, so 5,000 units are 5,000 short
lines (either form is read in both):

    Division:
      columns: [owner, number, place, size]
      rows:
      - [ann, 3, A, 14]

A field that names an instance of a numbered thing writes its number (`"3"`), or for a thing numbered per
owner its owner's account and number (`"ann/3"`). runtime/state.py calls `read` (every instance, numbered and
placed, before any value is set, since a value may name another instance), then `fill` (the values, then the
indexes and the free numbers), and `dump`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from rulesdsl.runtime.units import OWNER_SPAN, Store, enter


class Row(list[Any]):
    """One instance's values in the state file: a list the YAML writer puts on one line."""

    __slots__ = ()


# (store, instance, its values still to set, the JSON path of its row)
Pending = list[tuple[Store, Any, dict[str, Any], str]]
SetFields = Callable[[Any, Any, dict[str, Any], str], None]  # (store, instance, values, path)
Check = Callable[[Callable[[], None]], None]  # runs a step, gathering its StateError where faults are gathered


def read(g: Any, data: dict[str, Any], check: Check, error: type[Exception]) -> Pending:
    """Every instance the sections of `data` give, numbered and placed in its store, with the values still to
    set. Rows that give a number come first, so that a row without one takes the lowest number no row took."""
    pending: Pending = []
    # Players are named after their instances are read (a player's field may name one): their names here.
    named = {str(p.get("account", "")).upper(): str(p.get("name", "")) for p in data.get("players", [])
             if isinstance(p, dict)}
    for store in g.units.values():
        section = data.get(store.name)
        if section is None:
            continue
        rows: list[tuple[dict[str, Any], str]] = []

        def take(section: Any = section, store: Store = store, rows: list[tuple[dict[str, Any], str]] = rows) -> None:
            rows.extend(_rows(section, f"$.{store.name}", error))

        check(take)
        later: list[tuple[Any, dict[str, Any], str]] = []
        for values, path in rows:
            def one(values: dict[str, Any] = values, path: str = path, store: Store = store,
                    later: list[tuple[Any, dict[str, Any], str]] = later) -> None:
                owner = _owner(g, store, values, path, error)
                number = values.get("number")
                if number is None:
                    later.append((owner, values, path))
                    return
                if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number < OWNER_SPAN:
                    raise error(f"{path}.number", f"a number is a whole number from 1 to {OWNER_SPAN - 1}, "
                                                  f"not {number!r}")
                if store.find(owner, number) is not None:
                    whose = f"{named.get(owner._key.upper()) or owner._key} already has" if owner is not None \
                        else "there is already an ownerless" if store.per_owner else "there is already"
                    raise error(f"{path}.number", f"{whose} {store.name.lower()} {number}")
                obj = store.make(owner, number)
                store.place(obj)
                pending.append((store, obj, values, path))

            check(one)
        store.settle()
        for owner, values, path in later:
            obj = store.make(owner, store.take_lowest(owner))
            store.place(obj)
            pending.append((store, obj, values, path))
    return pending


def _rows(section: Any, path: str, error: type[Exception]) -> list[tuple[dict[str, Any], str]]:
    if isinstance(section, list):
        out = []
        for i, row in enumerate(section):
            if not isinstance(row, dict):
                raise error(f"{path}[{i}]", "expected a mapping of fields to values")
            out.append((row, f"{path}[{i}]"))
        return out
    if isinstance(section, dict) and set(section) <= {"columns", "rows"}:
        columns, rows = section.get("columns", []), section.get("rows", [])
        if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
            raise error(f"{path}.columns", "expected a list of field names")
        if not isinstance(rows, list):
            raise error(f"{path}.rows", "expected a list of rows")
        out = []
        for i, row in enumerate(rows):
            if not isinstance(row, list) or len(row) != len(columns):
                raise error(f"{path}.rows[{i}]", f"expected a list of {len(columns)} values, one per column")
            out.append((dict(zip(columns, row, strict=True)), f"{path}.rows[{i}]"))
        return out
    raise error(path, "expected a list of rows, each a mapping of fields to values")


def _owner(g: Any, store: Store, values: dict[str, Any], path: str, error: type[Exception]) -> Any:
    if not store.per_owner:
        return None
    raw = values.get("owner")
    if raw is None and store.ownerless:
        return None  # `numbered per owner or none`: no owner given (or null) is none
    if raw is None:
        raise error(f"{path}.owner", f"missing: every {store.name} has an owner (`numbered per owner`)")
    owner = g.lookup["Player"].get(str(raw).upper())
    if owner is None:
        raise error(f"{path}.owner", f"no player has the account {raw!r}")
    return owner


def fill(g: Any, pending: Pending, set_fields: SetFields, check: Check, error: type[Exception]) -> None:
    """Sets each pending instance's values (its defaults first), refuses a row that leaves out a field that
    has no value to start at, then puts every instance into its indexes."""
    for store, obj, values, path in pending:
        for f in store.fields:
            setattr(obj, f.attr, {} if f.type[0] == "map" else f.default(g))
        given = {k: v for k, v in values.items() if k not in ("owner", "number") or
                 (k == "owner" and not store.per_owner)}
        check(functools.partial(set_fields, store, obj, given, path))
        required = store.required
        for f in store.fields:
            if f.name in required and f.name not in given:
                def missing(f: Any = f, path: str = path, store: Store = store) -> None:
                    raise error(f"{path}.{f.name}", f"missing: every {store.name} needs its {f.name}")
                check(missing)
    for store, obj, _, _ in pending:
        enter(store.ix, obj, store.indexed)


def find(g: Any, thing: str, raw: Any, path: str, error: type[Exception]) -> Any:
    """The instance a field's value names: `3`, or `ann/3` for a thing numbered per owner."""
    store: Store = g.units[thing]
    text = str(raw)
    owner = None
    if store.per_owner:
        account, _, text = text.rpartition("/")
        owner = g.lookup["Player"].get(account.upper())
        if owner is None and not (store.ownerless and not account):  # a number alone: one of no owner
            alone = ", or the number alone for one of no owner" if store.ownerless else ""
            raise error(path, f"{raw!r} names no {thing}: write the owner's account and the number, like "
                              f"\"ann/3\"{alone}")
    obj = store.find(owner, int(text)) if text.isdigit() and len(text) <= 18 else None
    if obj is None:
        raise error(path, f"there is no {thing.lower()} {raw}")
    return obj


def dump(g: Any, encode: Callable[[Any, Any], Any]) -> dict[str, Any]:
    """Each numbered thing's section of the state file: its columns, then one row per live instance
    (`encode(instance, field)` is a field's value as the state file writes it)."""
    out: dict[str, Any] = {}
    for store in g.units.values():
        live = store.live()
        # A field reset each turn that every instance holds at its default is left out (read back, it takes
        # its default): 5,000 units' flags that no turn set are not written 5,000 times.
        fields = [f for f in store.fields if not (f.reset_each_turn and _all_default(g, live, f))]
        columns = (["owner"] if store.per_owner else []) + ["number"] + [f.name for f in fields]
        rows = []
        for obj in live:
            row = Row([obj.owner._key if obj.owner is not None else None] if store.per_owner else [])
            row.append(obj.number)
            row.extend(encode(obj, f) for f in fields)
            rows.append(row)
        out[store.name] = {"columns": Row(columns), "rows": rows}
    return out


def _all_default(g: Any, live: list[Any], f: Any) -> bool:
    default = {} if f.type[0] == "map" else f.default(g)
    attr = f.attr
    return all(getattr(obj, attr) == default for obj in live)
