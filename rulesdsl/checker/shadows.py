"""Checked orders -> the orders whose syntax never gets a line, because an earlier order reads every one.

The engine tries the syntaxes in the order declared and takes the first that matches and whose arguments
all read (runtime/orders.py). Order A shadows a later order B when every line that B would read also
matches A and reads A's arguments. The check only reports what it can prove:

- A and B have the same syntax up to argument names, so both split every line alike; then A shadows B
  when each of A's arguments takes every value B's does (`text` takes anything, `list of Card` takes
  one `Card`, `1..9` takes `2..5`);
- or A has arguments where B has words (`PLAY {card} AT {target}` against `PLAY S4 AT {target}`), or
  separators that take more (`,` takes `, `); then each argument of A must stand between separators,
  every argument of B but the last must be one word (a thing, or a number), and each of B's words must
  read as A's argument (`S4` is a `Card`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from rulesdsl import ir
from rulesdsl import types as T
from rulesdsl.checker.env import Env
from rulesdsl.checker.exprs import literal_number
from rulesdsl.runtime.orders import SLOT


@dataclass(frozen=True)
class Token:
    kind: str  # sep (spaces and commas), word, slot
    text: str  # a separator as written, a word in capitals, an argument's name


_PIECE = re.compile(r"[ ,]+|[^ ,]+")


def tokens(pattern: str) -> list[Token]:
    out: list[Token] = []
    pos = 0
    for m in SLOT.finditer(pattern):
        out += _literal(pattern[pos:m.start()])
        out.append(Token("slot", m.group(1)))
        pos = m.end()
    return out + _literal(pattern[pos:])


def _literal(text: str) -> list[Token]:
    return [Token("sep", p) if p[0] in " ," else Token("word", p.upper()) for p in _PIECE.findall(text)]


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
    ta, tb = tokens(a.pattern), tokens(b.pattern)
    if len(ta) != len(tb):
        return False
    args_a = {x.name: x for x in a.args}
    args_b = {x.name: x for x in b.args}
    # The same syntax up to argument names is the same pattern: it splits every line as the other does.
    same_shape = all(x.kind == y.kind and (x.kind != "sep" or x.text == y.text) for x, y in zip(ta, tb, strict=True))
    last = len(tb) - 1
    for i, (x, y) in enumerate(zip(ta, tb, strict=True)):
        if x.kind == "sep":
            if y.kind != "sep" or not _sep_takes(x.text, y.text):
                return False
            continue
        if x.kind == "word":
            if x != y:
                return False
            continue
        arg = args_a.get(x.text)
        if arg is None:
            return False
        if not same_shape and not _bounded(ta, i):
            return False
        if y.kind == "slot":
            other = args_b.get(y.text)
            if other is None or not _takes(arg, other):
                return False
            if not same_shape and i != last and not _one_word(other.ty):
                return False
        elif y.kind != "word" or not _reads(env, arg.ty, arg, y.text):
            return False
    return True


def _sep_takes(a: str, b: str) -> bool:
    """Whether separator `a` matches all that `b` does: a comma may have spaces around it, a space is one or
    more, so `,` takes `, ` (but not the other way round) and ` ` takes `  `."""
    spaces_a, spaces_b = [len(s) for s in a.split(",")], [len(s) for s in b.split(",")]
    return len(spaces_a) == len(spaces_b) and all(x <= y for x, y in zip(spaces_a, spaces_b, strict=True))


def _bounded(ts: list[Token], i: int) -> bool:
    """An argument with separators on both sides (or the end of the line after it) takes whole words."""
    before = i > 0 and ts[i - 1].kind == "sep"
    after = i == len(ts) - 1 or ts[i + 1].kind == "sep"
    return before and after


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
    if isinstance(a.ty, T.ThingT):
        return b.ty == a.ty
    if isinstance(a.ty, T.ListT):
        return b.ty in (a.ty, a.ty.item)  # one item reads as a list of one
    if a.ty in (T.INT, T.MONEY) and b.ty in (T.INT, T.MONEY):
        known_a, lo_a, hi_a = _bounds(a)
        known_b, lo_b, hi_b = _bounds(b)
        if not (known_a and known_b):
            return False
        low_ok = lo_a is None or (lo_b is not None and lo_b >= lo_a)
        high_ok = hi_a is None or (hi_b is not None and hi_b <= hi_a)
        return low_ok and high_ok
    return False


def _reads(env: Env, ty: T.Ty, arg: ir.Arg | None, word: str) -> bool:
    """Whether a word the player writes reads as a value of type `ty` (within `arg`'s range, if any)."""
    if ty == T.TEXT:
        return True
    if isinstance(ty, T.ThingT):
        info = env.things.get(ty.name)
        return info is not None and word.upper() in {k.upper() for k in info.keys}
    if isinstance(ty, T.ListT):
        parts = [p.strip() for p in word.split("+")]
        return all(p and _reads(env, ty.item, None, p) for p in parts)
    if ty in (T.INT, T.MONEY):
        if not re.fullmatch(r"[+-]?\d+", word):
            return False
        if arg is None:
            return True
        known, lo, hi = _bounds(arg)
        value = int(word)
        return known and (lo is None or value >= lo) and (hi is None or value <= hi)
    return False
