"""One game value <-> its plain data in a state file or scenario, with the JSON path of any fault.

Shared by the state as a whole (state.py) and its grid and numbered-thing sections (gridstate.py,
unitstate.py), which is why it is a module of its own: each of those reads and writes values the same way.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from rulesdsl.runtime import unitstate
from rulesdsl.runtime.core import Thing, fmt_money, money_setting
from rulesdsl.runtime.spec import FieldSpec, TypeDesc

if TYPE_CHECKING:
    from rulesdsl.runtime.engine import Game

# Whole numbers of more than 18 digits are no sane count, amount or seed, and cost time to read; a decimal's
# numerator and denominator get more room, since exact arithmetic over many turns makes them long.
MAX_INT = 10 ** 18 - 1
MAX_DECIMAL_TEXT = 1000


class Amount(str):
    """An amount of money with places as a state file writes it (`7.4`, `12.0`): a number to YAML, exact as text."""


class StateError(Exception):
    """A scenario or state value that cannot be used; `path` is its JSON path."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        super().__init__(f"{path}: {message}")

    @property
    def errors(self) -> list[StateError]:
        """Every fault found, in the order met: this one alone, or those a StateErrors gathered."""
        return [self]


class StateErrors(StateError):
    """Several faults of one scenario, so that its writer fixes them all in one go; `path` is the first's."""

    def __init__(self, errors: list[StateError]) -> None:
        self._errors = [e for err in errors for e in err.errors]
        self.path = self._errors[0].path
        Exception.__init__(self, "\n".join(str(e) for e in self._errors))

    @property
    def errors(self) -> list[StateError]:
        return list(self._errors)


def encode(value: Any, ty: TypeDesc) -> Any:
    kind = ty[0]
    if value is None:
        return None
    if kind == "decimal":
        f = Fraction(value)
        return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"
    if kind == "money" and len(ty) > 1:
        return Amount(fmt_money(value, ty[1]))
    if kind == "thing":
        return value._key
    if kind == "opt":
        return encode(value, ty[1])
    if kind in ("list", "set"):
        return [encode(v, ty[1]) for v in value]
    if kind == "map":
        return {k: encode(v, ty[2]) for k, v in value.items()}
    return value


def decode(g: Game, value: Any, ty: TypeDesc, path: str) -> Any:
    kind = ty[0]
    if kind == "opt":
        return None if value is None else decode(g, value, ty[1], path)
    if value is None:
        raise StateError(path, "a value is needed here")
    if kind == "money" and len(ty) > 1:
        return decode_amount(value, ty[1], path)
    if kind in ("int", "money"):
        if isinstance(value, bool) or not isinstance(value, int):
            raise StateError(path, f"expected a whole number, not {shown(value)}")
        if abs(value) > MAX_INT:
            raise StateError(path, "a whole number of more than 18 digits is out of range")
        return value
    if kind == "decimal":
        if isinstance(value, Fraction):
            return value  # a data row's value, as the generated module holds it (0.5 is Fraction(1, 2))
        text = str(value) if isinstance(value, (int, float, str)) and not isinstance(value, bool) else ""
        if len(text) > MAX_DECIMAL_TEXT:
            raise StateError(path, f"a number of more than {MAX_DECIMAL_TEXT} characters is out of range")
        try:
            return Fraction(text)
        except (ValueError, ZeroDivisionError, OverflowError):
            raise StateError(path, f"expected a number, not {shown(value)}") from None
    if kind == "bool":
        if not isinstance(value, bool):
            raise StateError(path, f"expected true or false, not {shown(value)}")
        return value
    if kind == "text":
        return str(value)
    if kind == "thing":
        if ty[1] in g.units:
            return unitstate.find(g, ty[1], value, path, StateError)
        obj = g.lookup[ty[1]].get(str(value).upper())
        if obj is None:
            raise StateError(path, f"no {ty[1]} is keyed {shown(value)}")
        return obj
    if kind in ("list", "set"):
        if not isinstance(value, list):
            raise StateError(path, "expected a list")
        items = [decode(g, v, ty[1], f"{path}[{i}]") for i, v in enumerate(value)]
        if kind == "set" and items and isinstance(items[0], Thing):
            items = sorted(set(items), key=lambda t: t._ord)
        return items
    if kind == "map":
        if not isinstance(value, dict):
            raise StateError(path, "expected a mapping of keys to values")
        out = {}
        for k, v in value.items():
            key = decode(g, k, ("thing", ty[1]), f"{path}.{k}")
            out[key._key] = decode(g, v, ty[2], f"{path}.{k}")
        return canonical_map(g, ty[1], out)
    raise AssertionError(f"unknown type {ty}")


def decode_amount(value: Any, places: int, path: str) -> Fraction | int:
    """An amount under the header's `money "0.1"`: a number (or its text) with at most `places` places."""
    if isinstance(value, Fraction):
        f = value  # a data row's value, as the generated module holds it
    else:
        text = str(value) if isinstance(value, (int, float, str)) and not isinstance(value, bool) else ""
        if len(text) > MAX_DECIMAL_TEXT:
            raise StateError(path, f"a number of more than {MAX_DECIMAL_TEXT} characters is out of range")
        try:
            f = Fraction(text.strip())
        except (ValueError, ZeroDivisionError, OverflowError):
            raise StateError(path, f"expected an amount of money, not {shown(value)}") from None
    if (f * 10 ** places).denominator != 1:
        raise StateError(path, f"{value} has more places than the ruleset's money \"{money_setting(places)}\"")
    if abs(f) > MAX_INT:
        raise StateError(path, "an amount of more than 18 digits is out of range")
    return f.numerator if f.denominator == 1 else f


def shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def canonical_map(g: Game, key_thing: str, m: dict[str, Any]) -> dict[str, Any]:
    # By each key's own place (`_ord`, its place in the index), not a table of every key's place: a map keyed
    # by the 31,680 sectors of a grid would build that table for each map written.
    index = g.index[key_thing]
    return {k: m[k] for k in sorted(m, key=lambda k: index[k]._ord if k in index else len(index))}


def breaks(g: Game, f: FieldSpec, value: Any, ty: TypeDesc, path: str) -> StateError:
    return StateError(path, f"{shown(encode(value, ty))} is not allowed: `{f.name}: ... where {f.where_text}` "
                            f"({g.spec.source} line {f.line})")
