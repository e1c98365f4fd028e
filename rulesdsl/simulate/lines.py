"""A game, a player, a random.Random and the ruleset's SimulationSpec -> order lines that player could write this
turn, and the mail that carries them.

An order is picked by the `simulation` block's weights among the game and personal orders the player may give
this turn; each argument is drawn from the block's `choose` options or else from its whole type (a thing's
instances, the players, a number between its bounds, a word), and written into the order's syntax as
runtime/syntax.py splits it, so that the engine's reader reads it back as the values drawn. A line another
order's syntax would take first (`PLAY S4 AT ann` is `satellite`, never `steal` of card S4) is drawn again:
no player can write it either.
"""

from __future__ import annotations

import math
import random
import re
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rulesdsl.runtime.core import PlayerBase, Thing
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.spec import ArgSpec, ChoiceSpec, OrderSpec, SimulationSpec, TypeDesc, calendar_date
from rulesdsl.runtime.syntax import split

# The most lines one mail holds; fewer where the policy takes fewer a turn (`at most N per turn`).
MOST_LINES = 10
# A number argument with one bound is drawn within this much of it; one whose bounds are further apart than
# this, near its lower bound more often (see _spread): what players write, and sometimes more than they have.
SPREAD = 100
MOST_ITEMS = 3  # items of a list argument
TRIES = 3  # draws of one order before it is left out of this mail (its lines another syntax takes)
_WORD = string.ascii_uppercase + string.digits


class ChoiceFailed(Exception):
    """A `choose ... from EXPR` raised: a fault of the simulation block, named by its line."""

    def __init__(self, choice: ChoiceSpec, exc: BaseException) -> None:
        self.choice = choice
        super().__init__(f"choose {choice.order}.{choice.arg} (line {choice.line}) failed: "
                         f"{type(exc).__name__}: {exc}")


@dataclass(frozen=True)
class Line:
    """One order line: the order meant, the line as written, and each argument's value as the engine reads it
    (a thing or player object; a numbered thing's number; an int, an amount, a text, a list of them)."""

    order: str
    text: str
    values: dict[str, Any]


# ---------------------------------------------------------------- which orders


def turn_kind(g: Game) -> str:
    """The kind of the turn about to be played (`action`, `budget`): what `only in KIND turns` is judged by."""
    if g.spec.calendar is None:
        return ""
    return calendar_date(g.spec.calendar, g.turn + 1).kind


def writable(g: Game, sim: SimulationSpec) -> list[tuple[OrderSpec, int]]:
    """The orders a player may write this turn, each with its weight: game and personal orders, not GM, stop or
    discard ones, nor orders no phase runs; `only in KIND turns` only in such turns; weight 0 never."""
    weights = dict(sim.weights)
    kind = turn_kind(g)
    unrun = set(g.spec.unrun_orders)
    out = []
    for o in g.spec.orders:
        if o.kind not in ("game", "personal") or o.name in unrun or (o.only_in and kind not in o.only_in):
            continue
        weight = weights.get(o.name, 1)
        if weight > 0 and all(_supported(a) for a in o.args):
            out.append((o, weight))
    return out


def _supported(a: ArgSpec) -> bool:
    """Whether an argument's type is one a line can carry (runtime/orders.py's read_arg reads it)."""
    kind = a.type[0]
    if kind == "digits":
        return True
    item = a.type[1] if kind == "list" else a.type
    return item[0] in ("int", "money", "text", "thing")


# ---------------------------------------------------------------- drawing values


def _sorted(options: Iterable[Any]) -> list[Any]:
    """Options in a stable order: a set of things iterates by hash, which changes from run to run."""
    if isinstance(options, (set, frozenset)):
        return sorted(options, key=lambda v: (v._ord if isinstance(v, Thing) else 0, str(v)))
    return list(options)


def _numbered(g: Game, thing: str) -> Any:
    return g.units.get(thing)


def _candidates(g: Game, me: PlayerBase, item: TypeDesc) -> Sequence[Any] | None:
    """Every value of a thing type a player may name, as the engine reads it; None when it is no thing type."""
    if item[0] != "thing":
        return None
    name = item[1]
    if name == "Player":
        return g.all_players
    if g.spec.grid is not None and g.spec.grid.name == name:
        return g.sectors
    store = _numbered(g, name)
    if store is not None:
        # A per-owner number names the writer's own instance: only those are theirs to write.
        objs = list(store.by_owner.get(me, {}).values()) if store.per_owner else store.live()
        return sorted(o.number for o in objs)
    return g.all[name]


def _spread(rng: random.Random, most: int) -> int:
    """0 to `most`, small values far more often than large ones (log-uniform): a count or an amount a player
    writes is more often 3 than 30,000, even where the order allows 1..99999."""
    return min(int(10 ** rng.uniform(0, math.log10(most + 1))) - 1, most)


def _number(g: Game, a: ArgSpec, ty: TypeDesc, rng: random.Random) -> Any:
    """A number between the argument's bounds (in its money's places), a missing bound SPREAD beyond the other,
    near the lower bound more often; None when the bounds leave no number."""
    scale = 10 ** _places(ty)
    lo = a.low(g) if a.low is not None else None
    hi = a.high(g) if a.high is not None else None
    if lo is None and hi is None:
        lo = 0
    lo_u = math.ceil(Fraction(lo) * scale) if lo is not None else None
    hi_u = math.floor(Fraction(hi) * scale) if hi is not None else None
    if lo_u is None:
        assert hi_u is not None
        lo_u = hi_u - SPREAD * scale
    if hi_u is None:
        hi_u = lo_u + SPREAD * scale
    if lo_u > hi_u:
        return None
    if hi_u - lo_u <= SPREAD * scale:
        units = rng.randint(lo_u, hi_u)
    elif a.low is None:  # only an upper bound: near it
        units = hi_u - _spread(rng, hi_u - lo_u)
    else:
        units = lo_u + _spread(rng, hi_u - lo_u)
    value = Fraction(units, scale)
    return value.numerator if value.denominator == 1 else value


def _places(ty: TypeDesc) -> int:
    return int(ty[1]) if ty[0] == "money" and len(ty) > 1 else 0




def _word(rng: random.Random) -> str:
    return "".join(rng.choice(_WORD) for _ in range(rng.randint(3, 8)))


def _item(g: Game, me: PlayerBase, a: ArgSpec, ty: TypeDesc, rng: random.Random) -> Any:
    """One value of type `ty` (an argument's, or a list argument's item), or None when there is none."""
    things = _candidates(g, me, ty)
    if things is not None:
        return rng.choice(things) if things else None
    if ty[0] in ("int", "money"):
        return _number(g, a, ty, rng)
    if ty[0] == "text":
        return _word(rng)
    return None


def draw_values(g: Game, me: PlayerBase, order: OrderSpec, rng: random.Random,
                choices: dict[tuple[str, str], ChoiceSpec] | None = None) -> dict[str, Any] | None:
    """A value for each argument of `order`, or None when one has none to draw from (an empty `choose`, a player
    with no units): the order is not written."""
    values: dict[str, Any] = {}
    for a in order.args:
        choice = (choices or {}).get((order.name, a.name))
        if choice is not None:
            value = _chosen(g, me, a, choice, rng)
        elif a.type[0] == "digits":
            value = _digits(g, a, rng)
        elif a.type[0] == "list":
            first = _item(g, me, a, a.type[1], rng)
            value = None if first is None else [first] + [
                _item(g, me, a, a.type[1], rng) for _ in range(rng.randint(0, MOST_ITEMS - 1))]
        else:
            value = _item(g, me, a, a.type, rng)
        if value is None:
            return None
        values[a.name] = value
    return values


def _chosen(g: Game, me: PlayerBase, a: ArgSpec, choice: ChoiceSpec, rng: random.Random) -> Any:
    try:
        options = _sorted(choice.options(g, me))
    except Exception as exc:
        raise ChoiceFailed(choice, exc) from exc
    if not options:
        return None
    item = a.type[1] if a.type[0] in ("list", "digits") else a.type
    options = [_as_read(g, item, v) for v in options]
    if a.type[0] in ("list", "digits"):
        return [rng.choice(options) for _ in range(rng.randint(1, MOST_ITEMS))]
    return rng.choice(options)


def _as_read(g: Game, item: TypeDesc, value: Any) -> Any:
    """An option as the engine reads its line: an instance of a numbered thing is its number."""
    if isinstance(item, tuple) and item and item[0] == "thing" and _numbered(g, item[1]) is not None \
            and isinstance(value, Thing):
        return getattr(value, "number", value)
    return value


def _digits(g: Game, a: ArgSpec, rng: random.Random) -> list[int] | None:
    lo = max(a.low(g) if a.low is not None else 0, 0)
    hi = min(a.high(g) if a.high is not None else 9, 9)
    if lo > hi:
        return None
    return [rng.randint(lo, hi) for _ in range(rng.randint(1, 4))]


# ---------------------------------------------------------------- writing a line


def written(value: Any, places: int = 0) -> str:
    """A value as a player writes it: a player by account, a thing by key, an amount with its places."""
    if isinstance(value, PlayerBase):
        return value.account
    if isinstance(value, Thing):
        return value._key
    if isinstance(value, Fraction):
        sign = "-" if value < 0 else ""
        units = abs(value) * 10 ** places
        whole, part = divmod(int(units), 10 ** places)
        return f"{sign}{whole}." + str(part).rjust(places, "0").rstrip("0")
    return str(value)


def write(order: OrderSpec, values: dict[str, Any], rng: random.Random) -> str:
    """The line of `order` with `values` in its placeholders, its words and separators as the syntax has them."""
    args = {a.name: a for a in order.args}
    out = []
    for piece in split(order.pattern.strip(" \t")):
        if piece.kind != "slot":
            out.append(piece.text)
            continue
        a = args[piece.text]
        value = values[a.name]
        if a.type[0] == "digits":
            out.append("".join(str(d) for d in value))
        elif a.type[0] == "list":
            places = _places(a.type[1])
            # A spaced list may also be written with spaces between its items.
            joint = rng.choice([" ", "+"]) if a.spaced else "+"
            out.append(joint.join(written(v, places) for v in value))
        else:
            out.append(written(value, _places(a.type)))
    return "".join(out)


# ---------------------------------------------------------------- lines and mail


def order_lines(g: Game, me: PlayerBase, rng: random.Random, sim: SimulationSpec,
                count: int | None = None) -> list[Line]:
    """Up to `count` lines (a random number when None) of orders `me` could write this turn, picked by weight."""
    pool = writable(g, sim)
    if count is None:
        most = min(MOST_LINES, g.spec.policy.limit if g.spec.policy.limit is not None else MOST_LINES)
        count = rng.randint(0, max(most, 1))
    choices = {(c.order, c.arg): c for c in sim.choices}
    out: list[Line] = []
    while len(out) < count and pool:
        at = _pick(pool, rng)
        line = draw_line(g, me, pool[at][0], rng, choices)
        if line is None:
            del pool[at]  # nothing to write it with this turn
            continue
        out.append(line)
    return out


def _pick(pool: list[tuple[OrderSpec, int]], rng: random.Random) -> int:
    total = sum(w for _, w in pool)
    x = rng.randrange(total)
    for i, (_, w) in enumerate(pool):
        x -= w
        if x < 0:
            return i
    raise AssertionError("unreachable: x < total")


def draw_line(g: Game, me: PlayerBase, order: OrderSpec, rng: random.Random,
              choices: dict[tuple[str, str], ChoiceSpec] | None = None) -> Line | None:
    """One line of `order`, or None when it cannot be written now: nothing to draw an argument from, or only
    lines that another order's syntax, tried first, reads (the engine's own reader says which)."""
    for _ in range(TRIES):
        values = draw_values(g, me, order, rng, choices)
        if values is None:
            return None
        text = write(order, values, rng)
        parsed = g.reader.read(g, me, text, 0)
        if parsed.spec is not None and parsed.spec.name == order.name:
            return Line(order.name, text, values)
    return None


def header(g: Game, me: PlayerBase) -> list[str]:
    """The header lines the ruleset's `orders { header ... }` asks for, filled for `me` as runtime/mail.py reads
    them: the game's number, the account and the access code the player has now."""
    values = {"game": str(g.meta.get("number", "")), "account": me.account, "code": me.code}
    return [re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], form) for form in g.spec.policy.header]


def mail(g: Game, me: PlayerBase, rng: random.Random, sim: SimulationSpec) -> tuple[str, list[Line]]:
    """One mail of `me` for the coming turn: its text (header, then the order lines) and the lines in it."""
    lines = order_lines(g, me, rng, sim)
    return "\n".join([*header(g, me), *(ln.text for ln in lines)]) + "\n", lines


def label(me: PlayerBase) -> str:
    """The file name a player's mail arrives under."""
    return f"{me.account}.txt"

