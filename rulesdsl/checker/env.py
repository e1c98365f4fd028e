"""Declarations -> symbol tables: what every name of a ruleset means, shared by the checker passes."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Protocol

from rulesdsl import ir
from rulesdsl import nodes as n
from rulesdsl import types as T
from rulesdsl.diagnostics import DiagnosticBag
from rulesdsl.source import Span

PLAYER_BUILTINS: dict[str, T.Ty] = {
    "key": T.TEXT, "name": T.TEXT, "account": T.TEXT, "code": T.TEXT, "email": T.TEXT, "active": T.BOOL,
}
# Builtin player fields an effect may change: the personal orders need them.
PLAYER_WRITABLE = {"code", "email", "active"}

RESERVED = {"me", "turn", "players", "all_players", "true", "false", "none", "game", "game_over", "world", "calendar"}


def suggest(name: str, candidates: Iterable[str]) -> str | None:
    """A "did you mean" hint for a misspelt name."""
    close = difflib.get_close_matches(name, sorted(set(candidates) - {name}), n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else None


def suggest_key(key: str, keys: Iterable[str]) -> str | None:
    """A "did you mean" hint for a misspelt instance key; keys are matched without regard to case."""
    canonical = {k.upper(): k for k in keys}
    close = difflib.get_close_matches(key.upper(), sorted(set(canonical) - {key.upper()}), n=1, cutoff=0.6)
    return f"did you mean `{canonical[close[0]]}`?" if close else None


@dataclass
class ThingInfo:
    name: str
    key: str
    decl_span: Span
    fields: dict[str, ir.FieldDef] = field(default_factory=dict)
    field_spans: dict[str, Span] = field(default_factory=dict)
    keys: list[str] = field(default_factory=list)
    numbered: str = ""  # "" (keyed), "global" (`numbered`) or "owner" (`numbered per owner`)
    ownerless: bool = False  # `numbered per owner or none`: its built-in owner is `Player?`

    @property
    def owner_ty(self) -> T.Ty:
        """The type of the built-in `owner` of a thing numbered per owner."""
        return T.OptT(T.PLAYER) if self.ownerless else T.PLAYER


@dataclass
class GridInfo:
    """The ruleset's grid, as phase 1 reads it: its type is a thing (`ThingInfo`) with no key and no data rows."""

    decl: n.GridDecl
    width: int | str = 1  # a whole number, or the int parameter that sets it
    height: int | str = 1
    wrap_x: bool = False
    wrap_y: bool = False
    pattern: str = ""
    draws: tuple[tuple[str, str], ...] = ()  # (field, the drawn thing's field holding its symbol)


@dataclass
class FuncInfo:
    """A function: its signature from phase 1, its body's IR once phase 2 has checked it (exactly once)."""

    decl: n.DefineDecl
    params: tuple[tuple[str, T.Ty], ...] = ()
    result: T.Ty | None = None
    checking: bool = False  # its body is being checked: a call now is a recursive one
    checked: ir.Function | None = None
    calls_itself: list[Span] = field(default_factory=list)  # recursive calls met while its result was unknown


@dataclass
class ProcInfo:
    decl: n.ProcedureDecl
    params: tuple[tuple[str, T.Ty], ...] = ()
    result: T.Ty | None = None  # `-> TYPE`: it gives a value, and may be called for it


@dataclass
class Env:
    """Every global name of the ruleset; filled by the declaration passes."""

    diags: DiagnosticBag
    things: dict[str, ThingInfo] = field(default_factory=dict)
    grid: GridInfo | None = None  # the one grid; its type is also in `things`
    player_fields: dict[str, ir.FieldDef] = field(default_factory=dict)
    world_fields: dict[str, ir.FieldDef] = field(default_factory=dict)
    # `calendar { ... }`: its kinds of turn and the kinds some step of the cycle has; None without a calendar
    calendar_kinds: dict[str, bool] | None = None
    calendar_months: bool = False  # its cycle is of months (`calendar.month` is known)
    world_line: int | None = None  # the `world { ... }` block, if the ruleset has one
    money_places: int = 0  # the header's `money "0.1"` is 1: money keeps that many decimal places
    groups: dict[str, Span] = field(default_factory=dict)  # order groups of `at most N GROUP per turn`
    params: dict[str, ir.Param] = field(default_factory=dict)
    param_spans: dict[str, Span] = field(default_factory=dict)
    tables: dict[str, n.TableDecl] = field(default_factory=dict)
    table_types: dict[str, tuple[tuple[T.Ty, ...], T.Ty]] = field(default_factory=dict)
    table_params: dict[str, tuple[str, ...]] = field(default_factory=dict)  # parameters setting bounds, chances
    functions: dict[str, FuncInfo] = field(default_factory=dict)
    procedures: dict[str, ProcInfo] = field(default_factory=dict)
    orders: dict[str, n.OrderDecl] = field(default_factory=dict)
    # Field defaults waiting for phase 2, by owner (a thing, `Player` or `world`) and field name.
    defaults: dict[tuple[str, str], n.Expr] = field(default_factory=dict)
    # Fields' `where` conditions waiting for phase 2, keyed as `defaults`.
    wheres: dict[tuple[str, str], n.Expr] = field(default_factory=dict)
    order_args: dict[str, dict[str, T.Ty]] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)  # params, tables, functions referred to
    runs: dict[str, Span] = field(default_factory=dict)  # game orders, and the `run` that runs each
    meant_runs: set[str] = field(default_factory=set)  # orders an unknown `run NAME` was probably meant for
    # Values phase 2 checked and then left out of the program, each with its error and the context it was
    # checked in (a table row whose keys could not be read, a function called as a statement, a group
    # declared twice): no code is made from them, but a text in one reaches players once the mistake is
    # fixed, so phase 3 still judges its secrets (checker/secrets.py). An expression refused where it
    # stands is an `ir.Refused` in its place instead.
    refused: list[tuple[ir.Expr, Context]] = field(default_factory=list)

    def resolve_type(self, ref: n.TypeRef) -> T.Ty:
        if isinstance(ref, n.NamedType):
            if ref.name in T.BASE_TYPES:
                return T.BASE_TYPES[ref.name]
            if ref.name == "Player" or ref.name in self.things:
                return T.ThingT(ref.name)
            hint = suggest(ref.name, [*T.BASE_TYPES, *self.things, "Player"])
            self.diags.error(ref.span, "E0201", f"unknown type `{ref.name}`",
                             help=hint or "types are int, money, decimal, bool, text, Player, or a thing")
            return T.ANY
        if isinstance(ref, n.OptionalType):
            return T.OptT(self.resolve_type(ref.inner))
        if isinstance(ref, n.ListType):
            return T.ListT(self.resolve_type(ref.item))
        if isinstance(ref, n.SetType):
            return T.SetT(self.resolve_type(ref.item))
        if isinstance(ref, n.MapType):
            key = self.resolve_type(ref.key)
            value = self.resolve_type(ref.value)
            if not isinstance(key, T.ThingT) and key != T.ANY:
                keys = ["Player", *list(self.things)[:1]]
                self.diags.error(ref.key.span, "E0227", f"a per-key value needs a thing or Player as its key, "
                                 f"not {key.show()}", help="write " + " or ".join(
                                     f"`{k} -> {value.show()}`" for k in keys))
            return T.MapT(key, value)
        raise AssertionError(f"unknown type node {ref!r}")

    def numbered(self, ty: T.Ty) -> str:
        """How instances of `ty` are numbered: "global", "owner", or "" for any type that is not a numbered thing."""
        if isinstance(ty, T.ThingT) and ty.name in self.things:
            return self.things[ty.name].numbered
        return ""

    def holds_numbered(self, ty: T.Ty) -> bool:
        """Whether a value of `ty` can hold an instance of a numbered thing, at any depth: what `destroy` may
        have to let go of."""
        if isinstance(ty, T.OptT):
            return self.holds_numbered(ty.inner)
        if isinstance(ty, (T.ListT, T.SetT)):
            return self.holds_numbered(ty.item)
        if isinstance(ty, T.MapT):
            return self.holds_numbered(ty.key) or self.holds_numbered(ty.value)
        if isinstance(ty, T.RecordT):
            return any(self.holds_numbered(v) for _, v in ty.fields)
        return bool(self.numbered(ty))

    def fields_of(self, thing: str) -> dict[str, ir.FieldDef]:
        if thing == "Player":
            return self.player_fields
        return self.things[thing].fields if thing in self.things else {}

    def owned_fields(self, owner: str) -> dict[str, ir.FieldDef]:
        """The fields of `owner` as `defaults` keys it: a thing, `Player` or `world`."""
        return self.world_fields if owner == "world" else self.fields_of(owner)

    def declared_fields(self, ty: T.Ty) -> dict[str, ir.FieldDef]:
        """The declared fields of a value that has them: a player, a thing, or the world."""
        if isinstance(ty, T.WorldT):
            return self.world_fields
        if isinstance(ty, T.ThingT):
            return self.fields_of(ty.name)
        return {}


@dataclass
class Context:
    """Where an expression stands: decides which names and statements are allowed."""

    kind: str  # function, procedure, order, phase, report, victory, static
    me: bool = False
    order: str | None = None
    allow_chance: bool = True
    allow_fail: bool = False
    allow_run: bool = False
    proc: str = ""  # the procedure whose body this is
    result: T.Ty | None = None  # what its `return VALUE` must be: a procedure declared `-> TYPE`
    loop: bool = False  # inside a loop's body, where `break` and `skip` belong
    # Where a procedure's value may not be asked although chance may be drawn ("an aggregate", "a loop's
    # `where`"): these may ask an item's condition in another order, through an index, or stop early.
    no_calls: str = ""
    # The GM order whose `default` this is: its arguments are not known there, and it runs no orders (E0434).
    default_of: str = ""
    me_hint: str = ""  # the E0306 hint, where the kind's own would mislead (a world GM order)


class Scope:
    """Local names, innermost last; narrowing records which optional paths are known not none."""

    def __init__(self) -> None:
        self.frames: list[dict[str, T.Ty]] = [{}]
        self.narrow: list[dict[str, T.Ty]] = [{}]
        self.why: list[str] = [""]  # what proved each frame's paths not none, in the designer's words

    def lookup(self, name: str) -> T.Ty | None:
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        return None

    def declare(self, name: str, ty: T.Ty) -> None:
        self.frames[-1][name] = ty

    def names(self) -> list[str]:
        return [k for f in self.frames for k in f]

    def narrowed(self, path: str) -> T.Ty | None:
        for frame in reversed(self.narrow):
            if path in frame:
                return frame[path]
        return None

    def forget(self, path: str) -> None:
        """`path` (and every path through it) was given a value that may be none: no test before that
        assignment proves anything about it for the rest of any block around it."""
        for frame in self.narrow:
            for key in [k for k in frame if k == path or k.startswith(path + ".")]:
                del frame[key]

    def narrowed_by(self, path: str) -> str | None:
        """What proved `path` not none here ("the loop's `where` at line 7"), or None if nothing did."""
        for frame, why in zip(reversed(self.narrow), reversed(self.why), strict=True):
            if path in frame:
                return why
        return None

    @contextmanager
    def push(self, narrow: dict[str, T.Ty] | None = None, why: str = "a test around it") -> Iterator[None]:
        self.frames.append({})
        self.narrow.append(dict(narrow or {}))
        self.why.append(why)
        try:
            yield
        finally:
            self.frames.pop()
            self.narrow.pop()
            self.why.pop()

class ExprChecks(Protocol):
    """The expression checker as the modules it hands a construct to (flow.py, making.py) call it back: only
    this much of it, so that they need not import exprs.py, which imports them."""

    env: Env

    def err(self, span: Span, code: str, msg: str, help: str | None = None) -> None: ...

    def shown(self, node: n.Expr) -> str | None: ...

    def expect(self, e: ir.Expr, want: T.Ty, span: Span, what: str) -> ir.Expr: ...

    def expr(self, node: n.Expr, scope: Scope, ctx: Context) -> ir.Expr: ...

    def cond(self, node: n.Expr, scope: Scope, ctx: Context) -> ir.Expr: ...

    def narrowing(self, node: n.Expr, scope: Scope, ctx: Context, positive: bool = True) -> dict[str, T.Ty]: ...

    def loop_body(self, nodes: tuple[n.Stmt, ...], scope: Scope, ctx: Context) -> tuple[ir.Stmt, ...]: ...

    def arguments(self, func: str, args: tuple[ir.Expr, ...], nodes: tuple[n.Expr, ...],
                  params: tuple[tuple[str, T.Ty], ...], span: Span) -> None: ...



# ---------------------------------------------------------------- words in messages
def closest(name: str, candidates: Iterable[str]) -> str | None:
    """The candidate `name` is probably a misspelling of, as `suggest` would name it."""
    close = difflib.get_close_matches(name, sorted(set(candidates) - {name}), n=1, cutoff=0.6)
    return close[0] if close else None


def and_(items: Iterable[str]) -> str:
    shown = list(items)
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + f" and {shown[-1]}"
