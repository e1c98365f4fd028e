"""Parse tree -> AST: the node classes of a `.rules` file, each carrying its source span first."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from rulesdsl.source import Span

# ---------------------------------------------------------------- types as written


@dataclass(frozen=True)
class TypeRef:
    span: Span


@dataclass(frozen=True)
class NamedType(TypeRef):
    name: str


@dataclass(frozen=True)
class OptionalType(TypeRef):
    inner: TypeRef


@dataclass(frozen=True)
class ListType(TypeRef):
    item: TypeRef


@dataclass(frozen=True)
class SetType(TypeRef):
    item: TypeRef


@dataclass(frozen=True)
class MapType(TypeRef):
    key: TypeRef
    value: TypeRef


# ---------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Expr:
    span: Span


@dataclass(frozen=True)
class Number(Expr):
    value: int | Fraction


@dataclass(frozen=True)
class Text(Expr):
    """A string literal; `parts` alternates literal text and `{expr}` interpolations."""

    parts: tuple[str | Expr, ...]


@dataclass(frozen=True)
class Bool(Expr):
    value: bool


@dataclass(frozen=True)
class NoneLit(Expr):
    pass


@dataclass(frozen=True)
class Name(Expr):
    name: str


@dataclass(frozen=True)
class Attr(Expr):
    obj: Expr
    name: str
    name_span: Span


@dataclass(frozen=True)
class Index(Expr):
    obj: Expr
    index: Expr


@dataclass(frozen=True)
class Call(Expr):
    func: str
    func_span: Span
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class CountRange(Expr):
    """`low..high` after `for each VAR in`: the whole numbers from `low` to `high`, both included."""

    low: Expr
    high: Expr


@dataclass(frozen=True)
class Comprehension(Expr):
    """`func(expr for var in source where cond by key [descending])`; func "list" for `[...]`."""

    func: str
    func_span: Span
    body: Expr
    var: str
    source: Expr
    where: Expr | None
    by: Expr | None
    descending: bool


@dataclass(frozen=True)
class Route(Expr):
    """`path(COST for VAR from START to GOAL)`: the cheapest route, COST the price of entering VAR."""

    func: str
    func_span: Span
    cost: Expr
    var: str
    start: Expr
    goal: Expr
    bound: Expr | None = None  # `within R`


@dataclass(frozen=True)
class New(Expr):
    """`new THING(field: value, ...)`: a new instance of a numbered thing; `fields` in the order written."""

    thing: str
    thing_span: Span
    fields: tuple[tuple[str, Span, Expr], ...]


@dataclass(frozen=True)
class Reach(Expr):
    """`reachable(BODY for VAR from SEEDS [via STEP] [where COND])`: a flood fill; BODY is VAR itself."""

    func: str
    func_span: Span
    body: Expr
    var: str
    seeds: Expr
    via: Expr | None
    where: Expr | None


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
class CondExpr(Expr):
    cond: Expr
    then: Expr
    otherwise: Expr


@dataclass(frozen=True)
class ListLit(Expr):
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class RecordLit(Expr):
    fields: tuple[tuple[str, Expr], ...]


# ---------------------------------------------------------------- statements


@dataclass(frozen=True)
class Stmt:
    span: Span


@dataclass(frozen=True)
class Let(Stmt):
    name: str
    value: Expr
    name_span: Span | None = None


@dataclass(frozen=True)
class Assign(Stmt):
    target: Expr
    op: str  # "=", "+=", "-="
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
    by_span: Span | None = None  # `by KEY [descending]`, keywords included


@dataclass(frozen=True)
class CallStmt(Stmt):
    func: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class Run(Stmt):
    order: str  # the first order named
    # Every order named, the first included, each with where it is written: `run ally, link together` names
    # two. Empty when built from one name alone (then `order` at the statement's span).
    names: tuple[tuple[str, Span], ...] = ()
    together: bool = False  # the word `together` was written

    def named(self) -> tuple[tuple[str, Span], ...]:
        return self.names or ((self.order, self.span),)


@dataclass(frozen=True)
class Halt(Stmt):
    text: Text


@dataclass(frozen=True)
class News(Stmt):
    text: Text


@dataclass(frozen=True)
class Tell(Stmt):
    player: Expr
    text: Text


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
    text: Text


@dataclass(frozen=True)
class Overrule(Stmt):
    """`overrule o "REASON"`: an order carried out earlier in the turn shown as failed, for that reason."""
    order: Expr
    text: Text


@dataclass(frozen=True)
class NewStmt(Stmt):
    """`new THING(...)` as a statement: the instance is made and not named."""

    value: New


@dataclass(frozen=True)
class Destroy(Stmt):
    target: Expr


@dataclass(frozen=True)
class While(Stmt):
    cond: Expr
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class Return(Stmt):
    value: Expr | None


@dataclass(frozen=True)
class Break(Stmt):
    """`break`: leave the innermost loop."""


@dataclass(frozen=True)
class Skip(Stmt):
    """`skip`: go on to the innermost loop's next round."""


# ---------------------------------------------------------------- declarations


@dataclass(frozen=True)
class Decl:
    span: Span
    name: str
    # Where the declared name is written, for diagnostics about the declaration as a whole (never used...).
    name_span: Span | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class Setting:
    span: Span
    name: str
    value: int | Fraction | str


@dataclass(frozen=True)
class RulesetDecl(Decl):
    settings: tuple[Setting, ...]


@dataclass(frozen=True)
class ParamDecl(Decl):
    type: TypeRef
    default: Expr
    secret: bool


@dataclass(frozen=True)
class FieldDecl:
    span: Span
    name: str
    type: TypeRef
    default: Expr | None
    reset_each_turn: bool
    from_scenario: bool = False  # `from scenario`: every scenario must set it; no default
    where: Expr | None = None  # `where COND`: what every value must be, the field's name standing for it
    indexed: bool = False  # `indexed`: the runtime keeps value -> instances, for loops that compare it


@dataclass(frozen=True)
class ThingDecl(Decl):
    key: str  # "" for a numbered thing
    fields: tuple[FieldDecl, ...]
    numbered: str = ""  # "" (keyed), "global" (`numbered`) or "owner" (`numbered per owner`)
    ownerless: bool = False  # `numbered per owner or none`: its built-in owner is `Player?`


@dataclass(frozen=True)
class PlayerDecl(Decl):
    fields: tuple[FieldDecl, ...]


@dataclass(frozen=True)
class WorldDecl(Decl):
    """`world { ... }`: the fields the game as a whole has, beside those of players and things."""

    fields: tuple[FieldDecl, ...]


@dataclass(frozen=True)
class GridDecl(Decl):
    """`grid NAME { size W by H  wrap ...  numbered "CCCRR"  draw FIELD with FIELD  fields... }`.

    `width` and `height` are a whole number or a parameter's name as written (None when the line is missing);
    `wraps` the pairs of edge words as written (`east west`), each with its span.
    """

    width: int | str | None
    height: int | str | None
    size_span: Span | None
    wraps: tuple[tuple[str, str, Span], ...]
    numbered: str | None
    numbered_span: Span | None
    draws: tuple[tuple[str, str, Span], ...]  # (field, symbol field, span of the line)
    fields: tuple[FieldDecl, ...]
    items_twice: tuple[tuple[str, Span], ...] = ()  # `size` or `numbered` written a second time


@dataclass(frozen=True)
class DataRow:
    span: Span
    key: str
    values: tuple[Expr, ...]


@dataclass(frozen=True)
class DataDecl(Decl):
    columns: tuple[str, ...]
    columns_span: Span
    rows: tuple[DataRow, ...]
    column_spans: tuple[Span, ...] = ()


@dataclass(frozen=True)
class LinkRow:
    span: Span
    key: str
    targets: tuple[tuple[str, Span], ...]


@dataclass(frozen=True)
class LinksDecl(Decl):
    field: str
    field_span: Span
    rows: tuple[LinkRow, ...]


@dataclass(frozen=True)
class Param:
    span: Span
    name: str
    type: TypeRef


@dataclass(frozen=True)
class RowKey:
    """One key of a table row: kind is exact, below, from, from_below, to, or weight."""

    span: Span
    kind: str
    low: Expr | None
    high: Expr | None
    weight: Fraction | None = None


@dataclass(frozen=True)
class TableRow:
    span: Span
    keys: tuple[RowKey, ...]
    value: Expr


@dataclass(frozen=True)
class TableDecl(Decl):
    params: tuple[Param, ...]
    result: TypeRef
    weighted: bool
    rows: tuple[TableRow, ...]


@dataclass(frozen=True)
class DefineDecl(Decl):
    params: tuple[Param, ...]
    result: TypeRef | None
    body: Expr


@dataclass(frozen=True)
class ProcedureDecl(Decl):
    params: tuple[Param, ...]
    body: tuple[Stmt, ...]
    result: TypeRef | None = None  # `-> TYPE`: what its `return VALUE` gives


@dataclass(frozen=True)
class OrdersSetting:
    span: Span
    kind: str  # header, budget, limit, new_limit, group, pay, later_mail
    strings: tuple[str, ...] = ()
    name: str = ""
    exprs: tuple[Expr, ...] = ()
    reason: Text | None = None  # a group's refusal


@dataclass(frozen=True)
class OrdersDecl(Decl):
    settings: tuple[OrdersSetting, ...]


@dataclass(frozen=True)
class ArgDecl:
    span: Span
    name: str
    type: TypeRef | None  # None: an int range
    low: Expr | None = None
    high: Expr | None = None
    digits: bool = False  # `digits A..B`: a run of digits, each one number from A to B, as a list of int
    spaced: bool = False  # `list of T spaced`: items separated by spaces as well as `+`


@dataclass(frozen=True)
class Standing:
    """`standing [per ARG] [as NAME] [until COND]`: the order, once taken, runs again every turn until replaced
    or cancelled; `per` keys it (one standing order of the kind per value), `as` shares the keys with the
    other kinds of the set NAME, `until` says which orders cancel."""

    span: Span
    per: tuple[str, Span] | None
    until: Expr | None
    shared: tuple[str, Span] | None = None


@dataclass(frozen=True)
class Condition:
    span: Span
    cond: Expr
    message: Text


@dataclass(frozen=True)
class EndsTurn:
    """`ends turn [when COND]`: no order of the player after this one is taken this turn."""

    span: Span
    when: Expr | None


@dataclass(frozen=True)
class OrderDecl(Decl):
    kind: str  # game, personal, stop, discard
    pattern: str
    pattern_span: Span
    args: tuple[ArgDecl, ...] = ()
    valids: tuple[Condition, ...] = ()
    requires: tuple[Condition, ...] = ()
    once_per: tuple[tuple[str, Span], ...] = ()
    cost: Expr | None = None
    effect: tuple[Stmt, ...] | None = None
    counts_as: tuple[tuple[str, Span], ...] = ()
    ends_turn: EndsTurn | None = None
    # Beside once_per, one for each: the set `once per turn per ARG as NAME` shares, or None for the kind's own.
    once_as: tuple[tuple[str, Span] | None, ...] = ()
    standing: Standing | None = None
    # `only in KIND, ... turns`: the kinds of turn the order may be given in, each with its span (empty: any).
    only_in: tuple[tuple[str, Span], ...] = ()
    # `gm world order`: a GM order for no position (no `me`); world_span is where `world` was written.
    world_span: Span | None = None
    defaults: tuple[OrderDefault, ...] = ()  # `default [in KIND turns] { ... }`: more than one is E0433


@dataclass(frozen=True)
class OrderDefault:
    """`default [in KIND, ... turns] { ... }` in a GM order: what happens in a turn when the GM gives none."""

    span: Span
    kinds: tuple[tuple[str, Span], ...]
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class PhaseDecl(Decl):
    when: Expr | None
    body: tuple[Stmt, ...]
    before_orders: bool = False
    at_start: bool = False  # `phase NAME at start`: once, when `rulesdsl new` makes the game
    kinds: tuple[tuple[str, Span], ...] = ()  # `in KIND, ... turns`: the kinds of turn it runs in (empty: all)


@dataclass(frozen=True)
class CycleRow:
    """`January: yearly, action` or `February..December: action, reaction` in a calendar's cycle."""

    span: Span
    first: tuple[str, Span]
    last: tuple[str, Span] | None  # `FIRST..LAST`: the months from FIRST to LAST
    kinds: tuple[tuple[str, Span], ...]


@dataclass(frozen=True)
class CalendarDecl(Decl):
    """`calendar { starts YEAR [PERIOD]  kinds K, ...  cycle { ROW ... } }`: each processed turn is one step."""

    year: int
    start: tuple[str, Span] | None
    kinds: tuple[tuple[str, Span], ...]
    rows: tuple[CycleRow, ...]


@dataclass(frozen=True)
class ReportField:
    span: Span
    name: str
    value: Expr


@dataclass(frozen=True)
class ReportDecl(Decl):
    fields: tuple[ReportField, ...]
    template: str | None
    template_span: Span | None
    html: str | None = None  # the HTML page's template; None: the default page
    html_span: Span | None = None


@dataclass(frozen=True)
class VictoryDecl(Decl):
    var: str
    when: Expr
    held_for: Expr | None
    warn: Text | None


@dataclass(frozen=True)
class SimWeight:
    """`weight ORDER N`: the relative odds that a random player writes an order of that kind."""

    span: Span
    order: str
    order_span: Span
    weight: int | Fraction  # as written, sign included: the checker wants a whole number, 0 or more
    weight_span: Span


@dataclass(frozen=True)
class SimChoose:
    """`choose ORDER.ARG from EXPR`: the values a random player draws the argument from."""

    span: Span
    order: str
    order_span: Span
    arg: str
    arg_span: Span
    options: Expr


@dataclass(frozen=True)
class SimInvariant:
    """`invariant NAME: EXPR [unchanged]`: true after every turn, or (`unchanged`) the value the game started with."""

    span: Span
    name: str
    name_span: Span
    value: Expr
    unchanged: bool


@dataclass(frozen=True)
class SimHidden:
    """`hidden p.FIELD from q [unless COND]`, or `hidden c.FIELD[p] for c in THING from q [unless COND]`: p's fact
    that q may not read in a report unless COND."""

    span: Span
    owner: tuple[str, Span]  # p
    field: tuple[str, Span]
    viewer: tuple[str, Span]  # q
    unless: Expr | None = None
    # The keyed form: `obj` is the name before the dot (which must be the loop's `var`), `thing` the thing.
    obj: tuple[str, Span] | None = None
    var: tuple[str, Span] | None = None
    thing: tuple[str, Span] | None = None


SimItem = SimWeight | SimChoose | SimInvariant | SimHidden


@dataclass(frozen=True)
class SimulationDecl(Decl):
    """`simulation { ... }`: guidance and checks for `rulesdsl simulate`, in the order written; no turn reads it."""

    items: tuple[SimItem, ...]


# -- variants: rulesdsl/variants.py merges these away before the checker, which never sees them.
@dataclass(frozen=True)
class ExtendsDecl(Decl):
    """`extends "PATH"`: this file is a variant of the ruleset at PATH (`name`), relative to this file."""

    path_span: Span


@dataclass(frozen=True)
class OverrideDecl(Decl):
    """`override DECL`: replaces (or, per kind, merges into) the base's declaration of DECL's kind and name."""

    decl: Decl


@dataclass(frozen=True)
class OverrideRows(Decl):
    """`override data THING { KEY: ... }`: these rows replace the base's rows of the same keys, or are added."""

    rows: tuple[DataRow, ...]


@dataclass(frozen=True)
class RemoveDecl(Decl):
    """`remove KIND NAME`, `remove data THING KEY`, `remove report field NAME`: drops the base's declaration,
    data row or report field."""

    kind: str  # param, thing, table, define, procedure, order, phase, victory, row, report field
    key: str = ""  # a row's key (kind "row"); `name` is then the thing's
    key_span: Span | None = None


@dataclass(frozen=True)
class Module:
    """One parsed `.rules` file."""

    span: Span
    file: str
    decls: tuple[Decl, ...] = field(default=())
