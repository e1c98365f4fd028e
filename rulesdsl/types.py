"""Type names -> type values: the types of the rules language and the rules that combine them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Ty:
    def __str__(self) -> str:
        return self.show()

    def show(self) -> str:
        return type(self).__name__


@dataclass(frozen=True)
class Num(Ty):
    """A number: `unit` is "" for counts and "money" for cash; `literal` adapts to the other side."""

    unit: str = ""
    decimal: bool = False
    literal: bool = False

    def show(self) -> str:
        if self.literal:
            return "number"
        if self.unit == "money":
            return "money" if not self.decimal else "money (decimal)"
        return "decimal" if self.decimal else "int"


@dataclass(frozen=True)
class Simple(Ty):
    name: str  # bool, text, none, any

    def show(self) -> str:
        return self.name


@dataclass(frozen=True)
class ThingT(Ty):
    name: str  # a thing type, or "Player"

    def show(self) -> str:
        return self.name


@dataclass(frozen=True)
class WorldT(Ty):
    """The game-wide state of `world { ... }`; there is one, read and changed through its fields."""

    def show(self) -> str:
        return "world"


@dataclass(frozen=True)
class OptT(Ty):
    inner: Ty

    def show(self) -> str:
        return f"{self.inner.show()}?"


@dataclass(frozen=True)
class ListT(Ty):
    item: Ty

    def show(self) -> str:
        return f"list of {self.item.show()}"


@dataclass(frozen=True)
class SetT(Ty):
    item: Ty

    def show(self) -> str:
        return f"set of {self.item.show()}"


@dataclass(frozen=True)
class MapT(Ty):
    key: Ty
    value: Ty

    def show(self) -> str:
        return f"{self.key.show()} -> {self.value.show()}"


@dataclass(frozen=True)
class RecordT(Ty):
    fields: tuple[tuple[str, Ty], ...]

    def show(self) -> str:
        return "{" + ", ".join(f"{k}: {v.show()}" for k, v in self.fields) + "}"

    def get(self, name: str) -> Ty | None:
        for k, v in self.fields:
            if k == name:
                return v
        return None


@dataclass(frozen=True)
class OrderT(Ty):
    """One given order of a kind: its arguments and `player`."""

    order: str

    def show(self) -> str:
        return f"order {self.order}"


INT = Num()
MONEY = Num("money")
DECIMAL = Num("", True)
LITERAL = Num(literal=True)
LITERAL_DEC = Num("", True, True)
# Under the header's `money "0.1"`, a literal with no more places than money keeps (`7.4`): an amount where it
# meets money (`cash + 7.4`, `cash: money = 7.4`), a decimal anywhere else (`rate * 7.4`, `let x = 7.4`).
LITERAL_MONEY = Num("money", False, True)
BOOL = Simple("bool")
TEXT = Simple("text")
NONE = Simple("none")
ANY = Simple("any")  # after an error: accepted everywhere so one mistake is reported once
PLAYER = ThingT("Player")
WORLD = WorldT()

BASE_TYPES: dict[str, Ty] = {"int": INT, "money": MONEY, "decimal": DECIMAL, "bool": BOOL, "text": TEXT}


def strip_opt(t: Ty) -> Ty:
    return t.inner if isinstance(t, OptT) else t


def is_num(t: Ty) -> bool:
    return isinstance(t, Num) or t == ANY


def assignable(value: Ty, target: Ty) -> bool:
    """May a value of type `value` be stored where `target` is expected?"""
    if value in (ANY, target) or target == ANY:
        return True
    if isinstance(value, Num) and isinstance(target, Num):
        if value.literal:
            if value.unit == "money":
                return target.unit == "money" or target.decimal
            return target.decimal or not value.decimal
        return value.unit == target.unit and (target.decimal or not value.decimal)
    if isinstance(target, OptT):
        return value == NONE or assignable(strip_opt(value), target.inner)
    if isinstance(value, ListT) and isinstance(target, (ListT, SetT)):
        return value.item == NONE or assignable(value.item, target.item)
    if isinstance(value, SetT) and isinstance(target, SetT):
        return assignable(value.item, target.item)
    if isinstance(value, RecordT) and isinstance(target, RecordT):
        return len(value.fields) == len(target.fields) and all(
            a[0] == b[0] and assignable(a[1], b[1]) for a, b in zip(value.fields, target.fields, strict=True))
    return False


def unify(a: Ty, b: Ty) -> Ty | None:
    """The common type of two branches (if/else, list items), or None."""
    if a == ANY:
        return b
    if b == ANY:
        return a
    if assignable(a, b):
        return b
    if assignable(b, a):
        return a
    if a == NONE:
        return OptT(strip_opt(b))
    if b == NONE:
        return OptT(strip_opt(a))
    if isinstance(a, OptT) or isinstance(b, OptT):
        inner = unify(strip_opt(a), strip_opt(b))
        return OptT(inner) if inner is not None else None
    if isinstance(a, ListT) and isinstance(b, ListT):
        item = unify(a.item, b.item)
        return ListT(item) if item is not None else None
    if isinstance(a, RecordT) and isinstance(b, RecordT) and [k for k, _ in a.fields] == [k for k, _ in b.fields]:
        items = [unify(x, y) for (_, x), (_, y) in zip(a.fields, b.fields, strict=True)]
        if all(i is not None for i in items):
            return RecordT(tuple((k, i) for (k, _), i in zip(a.fields, items, strict=True)))  # type: ignore[misc]
    return None


def describe(t: Ty) -> str:
    """A type as a designer says it in a sentence: "a count (int)", "money", "a number", "text"."""
    if isinstance(t, Num):
        if t.literal:
            return "a number"
        if t.unit == "money":
            return t.show()
        return "a decimal" if t.decimal else "a count (int)"
    return t.show()


def mixes_money(a: Ty, b: Ty) -> bool:
    """Are `a` and `b` numbers of different kinds, one money and the other a count?"""
    return (isinstance(a, Num) and isinstance(b, Num) and not a.literal and not b.literal
            and a.unit != b.unit)


def arith(op: str, a: Ty, b: Ty) -> Ty | str:
    """Result type of `a op b`, or a message saying why the operands do not fit."""
    if a == ANY or b == ANY:
        return ANY
    if not isinstance(a, Num) or not isinstance(b, Num):
        return f"`{op}` needs numbers, not {a.show()} and {b.show()}"
    # `7.4` is an amount only beside money in a sum or a remainder; a factor or divisor is a plain decimal.
    if a == LITERAL_MONEY and (op not in ("+", "-", "%") or b.unit != "money" or b.literal):
        a = LITERAL_DEC
    if b == LITERAL_MONEY and (op not in ("+", "-", "%") or a.unit != "money" or a.literal):
        b = LITERAL_DEC
    decimal = a.decimal or b.decimal or op == "/"
    literal = a.literal and b.literal
    if op in ("+", "-", "%"):
        if a.literal or b.literal:
            unit = b.unit if a.literal else a.unit
        elif a.unit != b.unit:
            if op == "+":
                return f"cannot add {describe(b)} to {describe(a)}"
            if op == "-":
                return f"cannot subtract {describe(b)} from {describe(a)}"
            return f"cannot take the remainder of {describe(a)} divided by {describe(b)}"
        else:
            unit = a.unit
        return Num(unit, decimal, literal)
    if op == "*":
        if a.unit and b.unit:
            return f"cannot multiply {describe(a)} by {describe(b)}"
        return Num(a.unit or b.unit, decimal, literal)
    # "/" and "div"
    if b.literal:
        return Num(a.unit, decimal, literal)
    if a.literal:
        if b.unit:
            return f"cannot divide a number by {describe(b)}"
        return Num("", decimal)
    if a.unit == b.unit:
        return Num("", decimal)
    if b.unit:
        return f"cannot divide {describe(a)} by {describe(b)}"
    return Num(a.unit, decimal)


def comparable(a: Ty, b: Ty) -> bool:
    if a == ANY or b == ANY:
        return True
    if isinstance(a, Num) and isinstance(b, Num):
        return a.literal or b.literal or a.unit == b.unit
    return False


def equatable(a: Ty, b: Ty) -> bool:
    if a == ANY or b == ANY:
        return True
    if a == NONE or b == NONE:
        return isinstance(a, OptT) or isinstance(b, OptT) or a == b
    if isinstance(a, Num) and isinstance(b, Num):
        return comparable(a, b)
    return strip_opt(a) == strip_opt(b) or assignable(a, b) or assignable(b, a)


def concrete(t: Ty) -> Ty:
    """A literal number settles as int (or decimal) once nothing else decides its unit."""
    if t == LITERAL_MONEY:
        return DECIMAL
    if isinstance(t, Num) and t.literal:
        return Num(t.unit, t.decimal)
    if isinstance(t, ListT):
        return ListT(concrete(t.item))
    if isinstance(t, OptT):
        return OptT(concrete(t.inner))
    if isinstance(t, RecordT):
        return RecordT(tuple((k, concrete(v)) for k, v in t.fields))
    return t
