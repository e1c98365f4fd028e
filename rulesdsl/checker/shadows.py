"""Checked orders -> the orders whose syntax never gets a line, because an earlier order reads every one.

The engine tries the syntaxes in the order declared and takes the first that matches and whose arguments
all read (runtime/orders.py). Order A shadows a later order B when every line that B would read also
matches A and reads A's arguments. When that holds is the syntax's rule, `shadows` of runtime/syntax.py;
this module answers what it asks of the arguments' types: `text` takes anything, `list of Card` takes
one `Card`, `1..9` takes `2..5`, and `S4` written in B's syntax reads as A's `Card`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from rulesdsl import ir
from rulesdsl import types as T
from rulesdsl.checker.env import Env
from rulesdsl.checker.exprs import literal_number
from rulesdsl.runtime.orders import read_whole
from rulesdsl.runtime.syntax import shadows


def shadowed(env: Env, orders: list[ir.Order], skip: tuple[str, ...]) -> None:
    """E0421 on each order whose every line an earlier order reads first."""
    live = [o for o in orders if o.name not in skip]
    for i, b in enumerate(live):
        winner = next((a for a in live[:i] if _shadows(env, a, b)), None)
        if winner is None:
            continue
        a_decl, b_decl = env.orders[winner.name], env.orders[b.name]
        both = _shadows(env, b, winner)
        env.diags.error(b_decl.pattern_span, "E0421", f"order `{b.name}` can never be given: every line written "
                        f"as \"{b.pattern}\" is read as order `{winner.name}` (line {a_decl.span.line}), whose "
                        "syntax is tried first",
                        help="the two syntaxes read the same lines: make them differ" if both else
                        f"declare `{b.name}` before `{winner.name}`: syntaxes are tried in the order written")


def _shadows(env: Env, a: ir.Order, b: ir.Order) -> bool:
    return shadows(a.pattern, b.pattern, _Arguments(env, {x.name: x for x in a.args}, {x.name: x for x in b.args}))


@dataclass(frozen=True)
class _Arguments:
    """The arguments of order A (tried first) and order B, as the syntax's shadowing rule asks of them."""

    env: Env
    a: dict[str, ir.Arg]
    b: dict[str, ir.Arg]

    def takes(self, a: str, b: str) -> bool:
        arg, other = self.a.get(a), self.b.get(b)
        return arg is not None and other is not None and _takes(arg, other)

    def reads(self, a: str, word: str) -> bool:
        arg = self.a.get(a)
        return arg is not None and _reads(self.env, arg.ty, arg, word)

    def one_word(self, b: str) -> bool:
        other = self.b.get(b)
        return other is not None and (other.digits or _one_word(other.ty))


def _one_word(ty: T.Ty) -> bool:
    """Values that hold no space and no comma: a thing's key, a number. A player's name may have spaces."""
    return (isinstance(ty, T.ThingT) and ty.name != "Player") or ty in (T.INT, T.MONEY)


def _bounds(arg: ir.Arg) -> tuple[bool, int | Fraction | None, int | Fraction | None]:
    """Whether the bounds are known, and each (None: no bound)."""
    lo = literal_number(arg.low) if arg.low is not None else None
    hi = literal_number(arg.high) if arg.high is not None else None
    known = (arg.low is None or lo is not None) and (arg.high is None or hi is not None)
    return known, lo, hi


def _takes(a: ir.Arg, b: ir.Arg) -> bool:
    """Whether argument `a` reads every value that argument `b` reads."""
    if a.ty == T.TEXT:
        return True
    if a.digits or b.digits:
        # A run of digits takes another within its bounds. A number or a list of numbers is left out: a
        # run of digits may be too long to read as one number, so neither takes every run.
        if not a.digits:
            return False
        known_a, lo_a, hi_a = _bounds(a)
        known_b, lo_b, hi_b = _bounds(b)
        return b.digits and known_a and known_b and lo_a is not None and lo_b is not None \
            and hi_a is not None and hi_b is not None and lo_a <= lo_b and hi_b <= hi_a
    if isinstance(a.ty, T.ThingT):
        return b.ty == a.ty
    if isinstance(a.ty, T.ListT):
        # One item reads as a list of one. Items joined by `+` only do not read a `spaced` list's `1 2`.
        return b.ty in (a.ty, a.ty.item) and (a.spaced or not b.spaced)
    if a.ty in (T.INT, T.MONEY) and b.ty in (T.INT, T.MONEY):
        known_a, lo_a, hi_a = _bounds(a)
        known_b, lo_b, hi_b = _bounds(b)
        if not (known_a and known_b):
            return False
        low_ok = lo_a is None or (lo_b is not None and lo_b >= lo_a)
        high_ok = hi_a is None or (hi_b is not None and hi_b <= hi_a)
        return low_ok and high_ok
    return False


def _sector_word(env: Env, word: str) -> bool:
    """Whether a word surely reads as a sector: written as the numbering says, inside a map whose size is
    written as numbers (a parameter's size is the scenario's to set, so a word is not known to read then)."""
    grid = env.grid
    assert grid is not None
    pattern = grid.pattern
    if not isinstance(grid.width, int) or not isinstance(grid.height, int) or len(word) != len(pattern):
        return False
    col, row = "", ""
    for ch, p in zip(word, pattern, strict=True):
        if p in "CR":
            if ch not in "0123456789":
                return False
            col, row = (col + ch, row) if p == "C" else (col, row + ch)
        elif ch != p:
            return False
    return int(col) < grid.width and int(row) < grid.height


def _reads(env: Env, ty: T.Ty, arg: ir.Arg | None, word: str) -> bool:
    """Whether a word the player writes reads as a value of type `ty` (within `arg`'s range, if any)."""
    if ty == T.TEXT:
        return True
    if isinstance(ty, T.ThingT) and env.grid is not None and ty.name == env.grid.decl.name:
        return _sector_word(env, word)
    if arg is not None and arg.digits:
        known, lo, hi = _bounds(arg)
        return known and lo is not None and hi is not None and word.isascii() and word.isdigit() \
            and all(lo <= int(ch) <= hi for ch in word)
    if isinstance(ty, T.ThingT):
        # A numbered thing has no keys: whether a number reads depends on the instances of the moment, so
        # no word surely reads as one, and an order is never said to hide another by one.
        info = env.things.get(ty.name)
        return info is not None and word.upper() in {k.upper() for k in info.keys}
    if isinstance(ty, T.ListT):
        parts = [p.strip() for p in (word.replace("+", " ").split() if arg is not None and arg.spaced
                                     else word.split("+"))]
        return all(p and _reads(env, ty.item, None, p) for p in parts)
    if ty in (T.INT, T.MONEY):
        value, _ = read_whole(word, "")  # as the engine reads it: ASCII digits, 18 at most
        if value is None:
            return False
        if arg is None:
            return True
        known, lo, hi = _bounds(arg)
        return known and (lo is None or value >= lo) and (hi is None or value <= hi)
    return False
