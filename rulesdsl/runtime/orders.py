"""Order lines as players write them -> OrderRec, or the reason they mean nothing to the game."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rulesdsl.runtime.core import OrderRec, PlayerBase
from rulesdsl.runtime.spec import OrderSpec, PolicySpec

if TYPE_CHECKING:
    from rulesdsl.runtime.engine import Game

SLOT = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """`A,{country},{units}` -> a regex: commas may have spaces round them, spaces are any run of spaces."""
    out = []
    pos = 0
    for m in SLOT.finditer(pattern):
        out.append(_literal(pattern[pos:m.start()]))
        out.append(f"(?P<{m.group(1)}>.+?)")
        pos = m.end()
    out.append(_literal(pattern[pos:]))
    return re.compile(r"^\s*" + "".join(out) + r"\s*$", re.IGNORECASE)


def _literal(text: str) -> str:
    parts = []
    for ch in text:
        if ch == ",":
            parts.append(r"\s*,\s*")
        elif ch == " ":
            parts.append(r"\s+")
        else:
            parts.append(re.escape(ch))
    return "".join(parts)


def keyword_of(pattern: str) -> str:
    """The leading word of an order's syntax: `A` of `A,{country}`; says which order a line meant."""
    m = re.match(r"[^,\s{]+", pattern)
    return m.group(0).upper() if m else ""


@dataclass
class Parsed:
    spec: OrderSpec | None
    rec: OrderRec | None
    reason: str | None


class OrderReader:
    """Matches lines against the ruleset's order syntaxes and reads their arguments."""

    def __init__(self, orders: tuple[OrderSpec, ...], unrun: frozenset[str] = frozenset()) -> None:
        self.orders = orders
        self.unrun = unrun  # orders no phase runs: they take no line from another order, and refuse their own
        self.patterns = [(o, compile_pattern(o.pattern)) for o in orders]
        self.by_keyword: dict[str, list[OrderSpec]] = {}
        for o in orders:
            self.by_keyword.setdefault(keyword_of(o.pattern), []).append(o)

    def read(self, g: Game, player: PlayerBase, text: str, line: int) -> Parsed:
        stripped = text.strip()
        best_reason: str | None = None
        best_spec: OrderSpec | None = None
        unrun: OrderSpec | None = None
        for spec, pat in self.patterns:
            m = pat.match(stripped)
            if not m:
                continue
            if spec.name in self.unrun:
                unrun = unrun or spec
                continue
            rec = OrderRec(spec.name, player, stripped, line)
            reason = None
            for a in spec.args:
                value, reason = read_arg(g, a.type, m.group(a.name).strip(), a.name)
                if reason is None and (a.low is not None or a.high is not None):
                    reason = _check_range(g, a, value)
                if reason is not None:
                    break
                rec.args[a.name] = value
            if reason is None:
                return Parsed(spec, rec, None)
            if best_reason is None:
                best_reason, best_spec = reason, spec
        if best_reason is not None:
            return Parsed(best_spec, None, best_reason)
        if unrun is not None:
            return Parsed(unrun, None, "this order is not used in this game")
        word = re.split(r"[,\s]", stripped, maxsplit=1)[0].upper()
        candidates = self.by_keyword.get(word)
        if candidates:
            forms = " or ".join(f'"{o.pattern}"' for o in candidates)
            return Parsed(candidates[0], None, f"not written as this order is: {forms}")
        return Parsed(None, None, "not an order of this game")


def read_arg(g: Game, ty: tuple[Any, ...], raw: str, name: str) -> tuple[Any, str | None]:
    kind = ty[0]
    if kind == "list":
        return _read_list(g, ty[1], raw, name)
    if kind in ("int", "money"):
        if not re.fullmatch(r"[+-]?\d+", raw):
            return None, f"{name} must be a whole number, not \"{raw}\""
        return int(raw), None
    if kind == "text":
        return raw, None
    if kind == "thing":
        thing = ty[1]
        if thing == "Player":
            for p in g.all_players:
                if p._key.upper() == raw.upper() or p.name.upper() == raw.upper():
                    return p, None
            return None, f"there is no player \"{raw}\""
        obj = g.lookup[thing].get(raw.upper())
        if obj is None:
            return None, f"\"{raw}\" is not a {thing.lower()} code"
        return obj, None
    return None, f"cannot read {name}"


def _read_list(g: Game, item: tuple[Any, ...], raw: str, name: str) -> tuple[Any, str | None]:
    """Items joined by `+`, each read as one argument; duplicates and the order written are kept."""
    values = []
    for part in raw.split("+"):
        text = part.strip()
        if not text:
            return None, f'{name} has an empty item in "{raw}": join the items with "+", like "A+B"'
        value, reason = read_arg(g, item, text, name)
        if reason is not None:
            return None, reason
        values.append(value)
    return values, None


def _check_range(g: Game, a: Any, value: int) -> str | None:
    lo = a.low(g) if a.low is not None else None
    hi = a.high(g) if a.high is not None else None
    if lo is not None and value < lo:
        return f"{a.name} must be at least {lo}" + (f" and at most {hi}" if hi is not None else "")
    if hi is not None and value > hi:
        return f"{a.name} must be at most {hi}" + (f" and at least {lo}" if lo is not None else "")
    return None


def header_patterns(policy: PolicySpec) -> list[re.Pattern[str]]:
    out = []
    for line in policy.header:
        pos = 0
        parts = []
        for m in SLOT.finditer(line):
            parts.append(_literal(line[pos:m.start()]))
            parts.append(f"(?P<{m.group(1)}>\\S+?)")
            pos = m.end()
        parts.append(_literal(line[pos:]))
        out.append(re.compile(r"^\s*" + "".join(parts) + r"\s*$", re.IGNORECASE))
    return out
