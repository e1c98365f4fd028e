"""Checked AST -> typed IR: the resolved, typed program that the code generator trusts.

Every node knows the `.rules` line it came from (`line`, which the code generator reads) and, when the
checker made it, its whole span (`span`: line and column). `children()` and `walk()` go through the
tree, so that a pass over the IR needs no walker of its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, TypeVar

from rulesdsl.source import Span
from rulesdsl.types import Ty


@dataclass(frozen=True)
class Node:
    # Keyword-only and last, so that nodes are still built positionally as `Const(ty, line, value)`;
    # left out of equality, so that two nodes that mean the same compare equal wherever they stand.
    span: Span | None = field(default=None, kw_only=True, compare=False, repr=False)

    def children(self) -> Iterator[Node]:
        """The nodes directly inside this one, in field order (inside tuples too: branches, rows, records)."""
        for name in _child_fields(type(self)):
            yield from _nodes_in(getattr(self, name))


def values(node: object) -> Iterator[object]:
    """Every IR node and value under `node` (tuples, lists and dataclass fields, spans included), itself first."""
    stack = [node]
    while stack:
        x = stack.pop()
        yield x
        if isinstance(x, (tuple, list)):
            stack.extend(x)
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x))


def walk(root: Node | tuple[Any, ...] | list[Any]) -> Iterator[Node]:
    """`root` and every node inside it, parents before children, in the order they were written."""
    stack: list[Node] = list(reversed(list(_nodes_in(root))))
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(list(node.children())))


def spanned(node: N, span: Span) -> N:
    """`node`, with `span` given to it and to every node inside it that has none yet.

    The checker builds a node from its parts and then gives it the span of the AST node it came from;
    a part the checker made up (a default value, a `not`) gets the span of what it stands for. This runs
    before anyone else sees the node, so setting a field of a frozen node here changes nothing seen.
    """
    if node.span is None:
        object.__setattr__(node, "span", span)
        for child in node.children():
            spanned(child, span)
    return node


N = TypeVar("N", bound="Node")
# Types, names and literal values never hold a node; `Refused.parts` are not children (see there).
_NOT_CHILDREN = frozenset({"span", "ty", "line", "name", "refused"})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(cls: type) -> tuple[str, ...]:
    names = _CHILD_FIELDS.get(cls)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(cls) if f.name not in _NOT_CHILDREN)
        _CHILD_FIELDS[cls] = names
    return names


def _nodes_in(value: object) -> Iterator[Node]:
    if isinstance(value, Node):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _nodes_in(item)


# ---------------------------------------------------------------- expressions
# Every expression knows its type and the `.rules` line it came from.


@dataclass(frozen=True)
class Expr(Node):
    ty: Ty
    line: int


@dataclass(frozen=True)
class Const(Expr):
    value: int | Fraction | str | bool | None


@dataclass(frozen=True)
class Interp(Expr):
    """Text with interpolations: literal strings and expressions, in order."""

    parts: tuple[str | Expr, ...]


@dataclass(frozen=True)
class Local(Expr):
    name: str


@dataclass(frozen=True)
class ParamRef(Expr):
    name: str


@dataclass(frozen=True)
class Special(Expr):
    """`me`, `turn`, `players` (active), `all_players`, `game_over`, `world`."""

    name: str


@dataclass(frozen=True)
class AllOf(Expr):
    """A thing type's name used as a value: every instance, in declaration order."""

    thing: str


@dataclass(frozen=True)
class InstanceRef(Expr):
    """`Card.S12`: one instance of a thing, named by its key as the ruleset writes it."""

    thing: str
    key: str


@dataclass(frozen=True)
class Field(Expr):
    obj: Expr
    name: str


@dataclass(frozen=True)
class MapGet(Expr):
    """`c.influence[p]`: a per-key value with its declared default."""

    obj: Expr
    key: Expr
    default: Expr | None


@dataclass(frozen=True)
class ListIndex(Expr):
    obj: Expr
    index: Expr


@dataclass(frozen=True)
class RecordGet(Expr):
    obj: Expr
    name: str


@dataclass(frozen=True)
class TableGet(Expr):
    table: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class CallFn(Expr):
    func: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class CallProcValue(Expr):
    """A procedure declared `-> TYPE`, called for its value: it may change the state and draw at random, so it
    stands only where statements could (see checker: E0368, E0369)."""

    proc: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class Builtin(Expr):
    func: str
    args: tuple[Expr, ...]
    extra: Any = None  # a literal stream purpose, a table name, an order name


@dataclass(frozen=True)
class Agg(Expr):
    func: str  # sum count max min any all best sorted list
    body: Expr
    var: str
    source: Expr
    where: Expr | None
    by: Expr | None
    descending: bool


@dataclass(frozen=True)
class Route(Expr):
    """`path(COST for VAR from START to GOAL)`: the cheapest route; COST (int or int?) prices entering VAR."""

    cost: Expr
    var: str
    start: Expr
    goal: Expr
    bound: Expr | None = None  # `within R`: only sectors at most R from START may be entered


@dataclass(frozen=True)
class New(Expr):
    """`new THING(field: value, ...)`: a new instance of a numbered thing, with the fields given (in the order
    written; the others take their defaults). Its value is the instance."""

    thing: str
    fields: tuple[tuple[str, Expr], ...]


@dataclass(frozen=True)
class Reach(Expr):
    """`reachable(x for VAR from SEEDS [via STEP] where COND)`: the items for which COND holds joined to a seed
    through items for which it holds, in declaration (map) order. SEEDS is a list of items (one item is made
    a list by the checker); STEP, of VAR, lists an item's neighbours, None for the grid's own."""

    var: str
    seeds: Expr
    step: Expr | None
    cond: Expr | None


@dataclass(frozen=True)
class CountRange(Expr):
    """The `low..high` a counted loop goes through: only ever the source of a `For`."""

    low: Expr
    high: Expr


@dataclass(frozen=True)
class BinOp(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class UnaryOp(Expr):
    op: str
    operand: Expr


@dataclass(frozen=True)
class Cond(Expr):
    cond: Expr
    then: Expr
    otherwise: Expr


@dataclass(frozen=True)
class MakeList(Expr):
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class MakeRecord(Expr):
    fields: tuple[tuple[str, Expr], ...]


@dataclass(frozen=True)
class Refused(Expr):
    """An expression the checker refused (an unknown function), standing where it was written: no code is
    made from it. `refused` holds its checked parts; they are not children, so that no pass judges what
    they would do, but a text among them reaches players once the mistake is fixed: secrets are judged."""

    refused: tuple[Expr, ...]


# ---------------------------------------------------------------- statements


@dataclass(frozen=True)
class Stmt(Node):
    line: int


@dataclass(frozen=True)
class Let(Stmt):
    name: str
    value: Expr


@dataclass(frozen=True)
class Assign(Stmt):
    target: Expr  # Local, Field, MapGet or ListIndex
    op: str
    value: Expr


@dataclass(frozen=True)
class If(Stmt):
    branches: tuple[tuple[Expr, tuple[Stmt, ...]], ...]
    otherwise: tuple[Stmt, ...] | None


@dataclass(frozen=True)
class For(Stmt):
    var: str
    source: Expr
    where: Expr | None
    by: Expr | None
    descending: bool
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class CallProc(Stmt):
    proc: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class Run(Stmt):
    # The kinds carried out, in the order named: one for `run a`; several for `run a, b together`, which
    # carries them out in one round robin, each player's orders in the order they were taken.
    orders: tuple[str, ...]
    # Where each order is named in `run a, b together` (for diagnostics); () for `run a`: the statement's span.
    spans: tuple[Span, ...] = field(default=(), compare=False, repr=False)


@dataclass(frozen=True)
class Halt(Stmt):
    """`halt "REASON"`: the game is not made, or the turn not processed; the GM reads the reason."""

    text: Expr


@dataclass(frozen=True)
class News(Stmt):
    text: Expr


@dataclass(frozen=True)
class Tell(Stmt):
    player: Expr
    text: Expr


@dataclass(frozen=True)
class Add(Stmt):
    value: Expr
    target: Expr


@dataclass(frozen=True)
class Remove(Stmt):
    value: Expr
    target: Expr


@dataclass(frozen=True)
class Clear(Stmt):
    target: Expr


@dataclass(frozen=True)
class Fail(Stmt):
    text: Expr


@dataclass(frozen=True)
class Overrule(Stmt):
    """An order of `orders(KIND)` marked failed after its effect, with a reason."""
    order: Expr
    text: Expr


@dataclass(frozen=True)
class NewStmt(Stmt):
    """`new THING(...)` as a statement: the instance is made and not named."""

    value: New


@dataclass(frozen=True)
class Destroy(Stmt):
    """`destroy x`: the instance of a numbered thing leaves the game, and every field that holds it lets go."""

    target: Expr


@dataclass(frozen=True)
class While(Stmt):
    """`while COND { ... }`: the condition asked before each round; at most MAX_ROUNDS rounds."""

    cond: Expr
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class Return(Stmt):
    """`return [VALUE]`: the procedure, effect or phase is done (an effect's order has succeeded)."""

    value: Expr | None


@dataclass(frozen=True)
class Break(Stmt):
    """`break`: leave the innermost loop."""


@dataclass(frozen=True)
class Skip(Stmt):
    """`skip`: the innermost loop goes on to its next round (a `while` asks its condition again)."""


# ---------------------------------------------------------------- declarations


@dataclass(frozen=True)
class Param(Node):
    name: str
    ty: Ty
    default: Any
    secret: bool
    line: int


@dataclass(frozen=True)
class FieldDef(Node):
    name: str
    ty: Ty
    default: Expr | None
    reset_each_turn: bool
    line: int
    from_scenario: bool = False  # no default: every scenario sets it (required in the state schema)
    where: Expr | None = None  # what every value must be; the field's name is a Local for the value
    where_text: str = ""  # the condition as the ruleset writes it, for the messages of a state that breaks it
    indexed: bool = False  # `indexed`: the runtime keeps each value's instances, read by loops comparing it


@dataclass(frozen=True)
class Thing(Node):
    name: str
    key: str  # "" for a numbered thing
    fields: tuple[FieldDef, ...]
    line: int
    numbered: str = ""  # "" (keyed by `key`), "global" (`numbered`) or "owner" (`numbered per owner`)
    ownerless: bool = False  # `numbered per owner or none`: an instance may have no owner


@dataclass(frozen=True)
class Grid(Node):
    """`grid NAME { ... }`: a width x height map whose sectors are the instances of the thing type NAME.

    A size is a whole number or the name of the int parameter that sets it (a scenario may change it)."""

    name: str
    fields: tuple[FieldDef, ...]
    width: int | str
    height: int | str
    wrap_x: bool
    wrap_y: bool
    pattern: str  # how a sector is written: C column digit, R row digit, from 0
    draws: tuple[tuple[str, str], ...]  # (field, the field of its thing that holds its one-character symbol)
    line: int


@dataclass(frozen=True)
class Instance(Node):
    """One row of static data: a thing's key and the values it starts with."""

    key: str
    values: dict[str, Any]
    line: int


@dataclass(frozen=True)
class RowSpan:
    """Where a table's row is written: the whole row, and each of its keys (a range row's bounds are one key)."""

    row: Span
    keys: tuple[Span, ...]


@dataclass(frozen=True)
class Table(Node):
    name: str
    kind: str  # exact, range, weighted
    param_types: tuple[Ty, ...]
    result: Ty
    # exact: ((key values...), value); range: ((low, low_open, high, high_open), value) per param;
    # weighted: (weight, value). A range bound or a weight is a number, or a ParamRef where a parameter sets it.
    # A range row whose range is empty is here too: it is phase 3 that says so (E0223), and then no code is made.
    rows: tuple[tuple[Any, Expr], ...]
    line: int
    # Parameters that set a bound or a chance: what the checker proves of literal rows (chances add up to
    # 100%, ranges neither overlap nor leave a gap) is checked again when the game starts.
    decided_by: tuple[str, ...] = ()
    # Where each of `rows` is written, in the same order: phase 3's messages point at a row or at a key.
    row_spans: tuple[RowSpan, ...] = field(default=(), compare=False, repr=False)
    # Every row's keys were read: without it, a key no row takes may be one a row left unread was meant for.
    all_read: bool = True
    keys: tuple[str, ...] = ()  # the keys' names as declared (`table arms_cost(units: int)`), for the rulebook


@dataclass(frozen=True)
class Function(Node):
    name: str
    params: tuple[tuple[str, Ty], ...]
    result: Ty
    body: Expr
    line: int


@dataclass(frozen=True)
class Procedure(Node):
    name: str
    params: tuple[tuple[str, Ty], ...]
    body: tuple[Stmt, ...]
    line: int
    result: Ty | None = None  # `-> TYPE`: every path ends in `return VALUE` (E0367)


@dataclass(frozen=True)
class Group(Node):
    """`at most N GROUP per turn else "REASON"`: orders that `count as` it share the limit."""

    name: str
    limit: int
    reason: Expr
    line: int


@dataclass(frozen=True)
class OrderPolicy(Node):
    header: tuple[str, ...] = ()
    budget_field: str | None = None
    budget_start: int = 0
    budget_plus: int = 0
    limit: int | None = None
    new_limit: int | None = None
    pay_field: str | None = None
    groups: tuple[Group, ...] = ()
    later_mail: str = "replaces"  # what a player's later mail of a turn does to the earlier: replaces, adds


@dataclass(frozen=True)
class Arg(Node):
    name: str
    ty: Ty
    low: Expr | None
    high: Expr | None
    digits: bool = False  # `digits A..B`: a run of digits, a list of int, each from low to high
    # For `digits`: for each bound (low, high), the parameters that alone decide it (() for a literal), or
    # None for a bound that reads the game's state. Checked when a game starts (RulesetSpec's ArgSpec).
    decided_by: tuple[tuple[str, ...] | None, ...] = ()
    spaced: bool = False  # `list of T spaced`: items separated by spaces as well as `+`; the syntax's last


@dataclass(frozen=True)
class Check(Node):
    cond: Expr
    message: Expr
    line: int


@dataclass(frozen=True)
class Order(Node):
    name: str
    kind: str  # game, personal, stop, discard
    pattern: str
    args: tuple[Arg, ...]
    valids: tuple[Check, ...]
    requires: tuple[Check, ...]
    once_per: tuple[str, ...]
    cost: Expr | None
    effect: tuple[Stmt, ...]
    line: int
    counts_as: tuple[str, ...] = ()
    ends_turn: Expr | None = None  # the condition of `ends turn when`; Const(True) for a bare `ends turn`
    once_as: tuple[str, ...] = ()  # beside once_per: the set shared by `once ... as NAME`, "" for the kind's own
    standing: bool = False
    standing_per: str | None = None  # the argument a standing order is kept by; None: one per player
    until: Expr | None = None  # which orders of the kind cancel the standing one
    standing_as: str = ""  # the set `standing ... as NAME` shares its keys with; "" for the kind's own
    only_in: tuple[str, ...] = ()  # `only in KIND turns`: the kinds of turn it may be given in; (): any
    world: bool = False  # `gm world order`: given for no position, so its functions have no `me`
    default: OrderDefault | None = None  # a GM order's `default { ... }`


@dataclass(frozen=True)
class OrderDefault(Node):
    """What happens after the turn's last phase when the GM gave no order of its kind: in turns of `kinds`
    (every turn when empty); for a positional GM order once per active position without one, as `me`."""

    body: tuple[Stmt, ...]
    line: int
    kinds: tuple[str, ...] = ()


@dataclass(frozen=True)
class Phase(Node):
    name: str
    when: Expr | None
    body: tuple[Stmt, ...]
    line: int
    before_orders: bool = False
    at_start: bool = False
    kinds: tuple[str, ...] = ()  # `in KIND turns`: the kinds of turn it runs in; (): every turn


@dataclass(frozen=True)
class Calendar:
    """`calendar { ... }` unrolled: the steps of one cycle, (period, kind) each, turn 1 being step `start`."""

    year: int
    start: int
    steps: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Report(Node):
    fields: tuple[tuple[str, Expr], ...]
    template: str
    template_name: str
    line: int
    html: str = ""  # the HTML template's text; "": the default page
    html_name: str = ""


@dataclass(frozen=True)
class Victory(Node):
    name: str
    var: str
    when: Expr
    held_for: int
    warn: Expr | None
    line: int


@dataclass(frozen=True)
class Choice(Node):
    """`choose ORDER.ARG from EXPR`: `options` is read for `me`, the player writing the order."""

    order: str
    arg: str
    options: Expr
    line: int


@dataclass(frozen=True)
class Invariant(Node):
    name: str
    value: Expr  # bool; for an `unchanged` one, the value watched (numbers, bools, texts, or lists or sets of them)
    unchanged: bool
    line: int


@dataclass(frozen=True)
class Hidden(Node):
    """`hidden p.FIELD from q [unless COND]` (thing ""), or `hidden c.FIELD[p] for c in THING from q [unless COND]`:
    `owner`, `viewer` and `var` are the names p, q and c as the condition reads them."""

    thing: str
    field: str
    ty: Ty  # the fact's type: the field's, or for a per-player field the value's
    owner: str
    viewer: str
    var: str  # "" for a player field
    unless: Expr | None
    line: int


@dataclass(frozen=True)
class Simulation(Node):
    """The `simulation { ... }` block, checked: only `rulesdsl simulate` reads it."""

    weights: tuple[tuple[str, int], ...]
    choices: tuple[Choice, ...]
    invariants: tuple[Invariant, ...]
    hidden: tuple[Hidden, ...]
    line: int


@dataclass
class Program:
    """A whole checked ruleset."""

    title: str
    settings: dict[str, Any]
    source_name: str
    source_hash: str
    params: list[Param] = field(default_factory=list)
    things: list[Thing] = field(default_factory=list)  # without the grid's sector type: that is `grid`
    grid: Grid | None = None
    player_fields: list[FieldDef] = field(default_factory=list)
    world_fields: list[FieldDef] = field(default_factory=list)
    world_line: int | None = None  # the `world { ... }` block; None when the ruleset has none
    instances: dict[str, list[Instance]] = field(default_factory=dict)
    tables: list[Table] = field(default_factory=list)
    functions: list[Function] = field(default_factory=list)
    procedures: list[Procedure] = field(default_factory=list)
    policy: OrderPolicy = field(default_factory=OrderPolicy)
    orders: list[Order] = field(default_factory=list)
    unrun_orders: tuple[str, ...] = ()  # game orders no phase runs: their lines are refused
    phases: list[Phase] = field(default_factory=list)
    report: Report | None = None
    victories: list[Victory] = field(default_factory=list)
    player_line: int = 0
    report_schema: dict[str, Any] = field(default_factory=dict)
    state_schema: dict[str, Any] = field(default_factory=dict)
    # The paths whose prices are kept for the game (checker/routes.py): the site number that keys them, and
    # the values fixed for the call that they also depend on, in the order first read.
    priced: dict[Route, tuple[int, tuple[Expr, ...]]] = field(default_factory=dict)
    calendar: Calendar | None = None
    # The tables players may not read, each with the secret parameters it would show (checker/secrets.py):
    # bounds or chances a secret parameter sets, or values that read one. Phase 3 fills it.
    secret_tables: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # The functions whose value would show a secret parameter or table, through calls too (checker/secrets.py).
    secret_functions: frozenset[str] = frozenset()
    # `simulation { ... }`: None when the ruleset has none. Not among `nodes()`: no turn runs it, so the passes
    # over what turns run (lookups that stop a turn, secrets shown, indexes) have nothing to say of it.
    simulation: Simulation | None = None

    def nodes(self) -> Iterator[Node]:
        """Every declaration of the program, in the order the checker makes them, each holding its bodies."""
        grid = (self.grid,) if self.grid is not None else ()
        yield from (*self.params, *self.things, *grid, *self.player_fields, *self.world_fields, *self.tables,
                    *self.functions, *self.procedures, self.policy, *self.orders, *self.phases)
        if self.report is not None:
            yield self.report
        yield from self.victories


def field_tests(var: str, where: Expr | None) -> list[tuple[str, Expr, Expr]]:
    """The top-level conjuncts of `where` that read `var.F == E` (or `E == var.F`) with E not mentioning `var`:
    (F, E, the conjunct) for each, in the order written. A loop or an aggregate over a thing with such a test
    on an indexed field reads the index instead of going through every instance."""
    out: list[tuple[str, Expr, Expr]] = []
    stack = [where] if where is not None else []
    while stack:
        e = stack.pop(0)
        if isinstance(e, BinOp) and e.op == "and":
            stack[:0] = [e.left, e.right]
            continue
        if not (isinstance(e, BinOp) and e.op == "=="):
            continue
        for side, other in ((e.left, e.right), (e.right, e.left)):
            if isinstance(side, Field) and isinstance(side.obj, Local) and side.obj.name == var \
                    and _settled(other, var):
                out.append((side.name, other, e))
                break
    return out


def _settled(e: Expr, var: str) -> bool:
    """Whether `e` has one value for the whole loop over `var`, so that it may be worked out once before the
    instances are read: it does not mention `var`, draws nothing, and makes nothing. (Functions draw nothing
    and change nothing; one that fails fails the turn either way, unless there was nothing to go through.)"""
    for node in walk(e):
        if isinstance(node, Local) and node.name == var:
            return False
        if isinstance(node, New) or (isinstance(node, Builtin) and node.func in _DRAWS):
            return False
    return True


# Builtins that draw from the game's random streams: a value that calls one is not worked out once for a loop.
_DRAWS = frozenset({"chance", "roll", "pick", "shuffle", "draw"})
