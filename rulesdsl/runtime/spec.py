"""Generated module -> engine: the descriptions a compiled ruleset hands to the turn engine."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# A value type as the state codec sees it: ("int",), ("decimal",), ("money",), ("bool",), ("text",),
# ("thing", NAME), ("opt", T), ("list", T), ("set", T), ("map", KEY_THING, T).
TypeDesc = tuple[Any, ...]
Fn = Callable[..., Any]


@dataclass(frozen=True)
class FieldSpec:
    name: str
    attr: str  # the Python attribute (a keyword gets a trailing underscore)
    type: TypeDesc
    default: Fn  # default(g) -> value; for a per-key value, the default of each key
    reset_each_turn: bool = False
    # Last and defaulted: modules compiled before it pass the fields above by position.
    from_scenario: bool = False  # no default: the scenario must set it; `default` only fills the slot
    # `where`: where(g, value) holds for every value (each value of a map; a none is not checked). A state
    # read or made that breaks it is refused with its JSON path; a turn that would break it is not committed.
    where: Callable[[Any, Any], bool] | None = None
    where_text: str = ""
    line: int = 0  # the field's `.rules` line, named when a turn breaks its `where`


@dataclass(frozen=True)
class ThingSpec:
    name: str
    cls: type
    key: str  # "" for a numbered thing
    fields: tuple[FieldSpec, ...]
    instances: tuple[tuple[str, dict[str, Any]], ...]
    numbered: str = ""  # "" (keyed), "global" (`numbered`) or "owner" (`numbered per owner`)
    ownerless: bool = False  # `numbered per owner or none`: an instance's owner may be none
    # The fields the runtime keeps an index of (runtime/units.py): those marked `indexed`, and every optional
    # field holding a numbered thing (so that `destroy` finds who holds it in its index).
    indexed: tuple[str, ...] = ()
    # A numbered thing's fields that every new instance must be given (no default, and not optional, a list, a
    # set or a map): `new` is checked for them; a scenario's row is refused without them.
    required: tuple[str, ...] = ()


@dataclass(frozen=True)
class GridSpec:
    """`grid NAME { ... }`: its sectors are `cls` objects, one per sector, made when a game is made or loaded."""

    name: str
    cls: type
    fields: tuple[FieldSpec, ...]
    width: int | str  # a whole number, or the name of the int parameter that sets it
    height: int | str
    wrap_x: bool
    wrap_y: bool
    pattern: str  # how a sector is written (runtime/grid.py's SectorNames), numbered from 0
    draws: tuple[tuple[str, str], ...] = ()  # (field, the attribute of its thing's one-character symbol)
    indexed: tuple[str, ...] = ()  # the fields the runtime keeps an index of (runtime/units.py), as ThingSpec's
    numbered: str = ""  # never numbered: read where things and the grid are read alike


@dataclass(frozen=True)
class ParamSpec:
    name: str
    type: TypeDesc
    default: Any
    secret: bool


@dataclass(frozen=True)
class ArgSpec:
    name: str
    type: TypeDesc
    low: Fn | None = None  # low(g) -> bound
    high: Fn | None = None
    # `digits` only, and only where a parameter sets a bound: for each bound (low, high), the parameters that
    # alone decide it (() for a literal), or None for a bound that reads the game's state. A game's start
    # checks the bounds that parameters decide (runtime/state.py).
    decided_by: tuple[tuple[str, ...] | None, ...] = ()
    spaced: bool = False  # a list whose items may be separated by spaces as well as `+` (the syntax's last)


@dataclass(frozen=True)
class OrderSpec:
    name: str
    kind: str  # game, personal, gm, stop, discard
    pattern: str
    args: tuple[ArgSpec, ...] = ()
    valid: Fn | None = None  # valid(g, me, o) -> reason or None
    require: Fn | None = None  # require(g, me, o) -> reason or None
    cost: Fn | None = None  # cost(g, me, o) -> money
    effect: Fn | None = None  # effect(g, me, o)
    once_per: tuple[str, ...] = ()
    line: int = 0
    counts_as: tuple[str, ...] = ()  # the groups of the policy whose limits it counts against
    ends_turn: Fn | None = None  # ends_turn(g, me, o) -> bool: no later order of the player is taken
    # Beside once_per, one for each: the set `once per turn per ARG as NAME` shares with other kinds, "" for
    # the kind's own (empty: every one is the kind's own).
    once_as: tuple[str, ...] = ()
    # A standing order, once taken, runs again every turn until an order of its kind (of its set
    # `standing_as`, when not "") with the same value of `standing_per` (None: any) replaces it, or cancels
    # it: one for which until(g, me, o) holds.
    standing: bool = False
    standing_per: str | None = None
    until: Fn | None = None
    standing_as: str = ""
    only_in: tuple[str, ...] = ()  # `only in KIND turns`: refused in turns of other kinds; (): any turn
    world: bool = False  # `gm world order`: given for no position; its functions get `me` None
    # A GM order's `default`: default(g, me), run after the turn's last phase in turns of `default_kinds` (any
    # when empty) when no order of the kind was carried out; per active position without one, unless `world`.
    default: Callable[[Any, Any], None] | None = None
    default_kinds: tuple[str, ...] = ()


@dataclass(frozen=True)
class GroupSpec:
    """`at most N GROUP per turn else "REASON"`."""

    name: str
    limit: int
    reason: Fn  # reason(g, me) -> text


@dataclass(frozen=True)
class PolicySpec:
    # budget_field and pay_field are player fields by their names in the rules (shown to players);
    # RulesetSpec.player_attr gives their Python attributes.
    header: tuple[str, ...] = ()
    budget_field: str | None = None
    budget_start: int = 0
    budget_plus: int = 0
    limit: int | None = None
    new_limit: int | None = None
    pay_field: str | None = None
    groups: tuple[GroupSpec, ...] = ()
    # `later mail replaces|adds`: at intake, whether a player's later mail for a turn takes the place of the
    # earlier ones filed for it, or is given to the turn after them.
    later_mail: str = "replaces"


@dataclass(frozen=True)
class PhaseSpec:
    name: str
    run: Fn  # run(g)
    when: Fn | None = None  # when(g) -> bool
    line: int = 0
    before_orders: bool = False  # runs at the start of the turn, before the mail is read
    at_start: bool = False  # runs once, when the game is made from its scenario, and in no turn
    kinds: tuple[str, ...] = ()  # `in KIND turns`: runs only in turns of these kinds; (): in every turn


@dataclass(frozen=True)
class CalendarDate:
    """The date of one turn: `calendar.year`, `.month` (1-12, 0 in a cycle of seasons), `.period`, `.kind`, `.date`."""

    year: int
    month: int
    period: str
    kind: str
    date: str  # "March 1960, reaction"


MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def calendar_date(calendar: tuple[int, int, tuple[tuple[str, str], ...]], turn: int) -> CalendarDate:
    """The date of turn `turn` (1, 2, ...; the starting position, turn 0, reads as turn 1's): the state keeps only
    the turn number, and the date follows from it and the ruleset."""
    year, start, steps = calendar
    step = start + max(turn, 1) - 1
    period, kind = steps[step % len(steps)]
    # The year turns over where the cycle starts again, at its first row, wherever the game started in it.
    y = year + step // len(steps)
    month = MONTHS.index(period) + 1 if period in MONTHS else 0
    return CalendarDate(y, month, period, kind, f"{period} {y}, {kind}")


@dataclass(frozen=True)
class TableCheckSpec:
    """A table whose range bounds or chances parameters set: checked when a game starts, as the checker checks
    literal rows. `rows(g)` gives the weights (weighted) or (low, low_open, high, high_open) (range)."""

    table: str
    kind: str  # "weighted" or "range"
    params: tuple[str, ...]
    rows: Fn
    whole: bool = True  # a range table's key is int or money: only whole keys count for a gap


@dataclass(frozen=True)
class VictorySpec:
    name: str
    when: Fn  # when(g, p) -> bool
    held_for: int
    warn: Fn | None  # warn(g, p) -> text
    line: int = 0


@dataclass(frozen=True)
class InvariantSpec:
    """`invariant NAME: EXPR` (holds after every turn) or `invariant NAME: EXPR unchanged` (the value is the one
    the game started with), in a `simulation { ... }` block: `rulesdsl simulate` checks it after every turn."""

    name: str
    value: Fn  # value(g) -> bool for a plain invariant; the watched value for an `unchanged` one
    unchanged: bool = False
    line: int = 0


@dataclass(frozen=True)
class ChoiceSpec:
    """`choose ORDER.ARG from EXPR`: the simulator draws the argument from options(g, me), not from its whole type."""

    order: str
    arg: str
    options: Fn  # options(g, me) -> list or set of candidates (a list argument's items)
    line: int = 0


@dataclass(frozen=True)
class HiddenSpec:
    """`hidden p.FIELD from q [unless COND]` (a player's field) or `hidden c.FIELD[p] for c in THING from q
    [unless COND]` (a thing's per-player field): a fact of player p that no other player q may learn from a
    report, unless COND. `rulesdsl simulate` changes such facts and checks that q's report does not move."""

    thing: str  # "" for a player field
    field: str  # the field's name in the rules
    attr: str  # its Python attribute
    keyed: bool  # True: the field is a map keyed by the owning player (c.spy[p])
    type: TypeDesc  # the fact's value type (for a keyed field, the map's value type)
    unless: Fn | None = None  # unless(g, instance, owner, viewer) -> bool: the viewer may know; instance None
    line: int = 0  # for a player field


@dataclass(frozen=True)
class SimulationSpec:
    """A ruleset's `simulation { ... }` block: guidance and checks for `rulesdsl simulate`; no turn reads it."""

    weights: tuple[tuple[str, int], ...] = ()  # `weight ORDER N`: relative odds of writing an order (default 1)
    choices: tuple[ChoiceSpec, ...] = ()
    invariants: tuple[InvariantSpec, ...] = ()
    hidden: tuple[HiddenSpec, ...] = ()


@dataclass(frozen=True, eq=False)
class RulesetSpec:
    """Everything the engine needs from a compiled ruleset."""

    title: str
    version: str
    turn_unit: str
    game_id: str  # the game's name pattern, like "CO-{number}"
    source: str
    source_hash: str
    player_cls: type
    player_fields: tuple[FieldSpec, ...]
    things: tuple[ThingSpec, ...]
    params: tuple[ParamSpec, ...]
    policy: PolicySpec
    orders: tuple[OrderSpec, ...]
    phases: tuple[PhaseSpec, ...]
    victories: tuple[VictorySpec, ...]
    report: Fn  # report(g, me) -> dict of the ruleset's own report fields
    template: str
    template_name: str
    report_schema: dict[str, Any]
    state_schema: dict[str, Any]
    line_map: tuple[tuple[int, int], ...] = field(default=())  # (first generated line, .rules line)
    # (first generated line, the rule it belongs to: "function tax", "phase boom"; "" for none)
    rule_map: tuple[tuple[int, str], ...] = field(default=())
    # (first generated line, the file its `.rules` lines are in from there on), for a variant, whose program
    # holds its bases' declarations; before the first entry, and for () (one file), `source`.
    file_map: tuple[tuple[int, str], ...] = field(default=())
    world_cls: type | None = None  # None: the ruleset has no `world { ... }` block
    world_fields: tuple[FieldSpec, ...] = ()
    unrun_orders: tuple[str, ...] = ()  # game orders that no phase runs: the game refuses their lines
    table_checks: tuple[TableCheckSpec, ...] = ()
    html: str = ""  # the report's HTML template; "": the default page (rulesdsl.runtime.html)
    html_name: str = ""  # tables parameters decide, checked when a game starts
    grid: GridSpec | None = None  # the ruleset's map, if it declares one
    # `calendar { ... }`: (the year turn 1 is in, the step of the cycle turn 1 is, the cycle's steps as
    # (period, kind)); None: turns are only numbered
    calendar: tuple[int, int, tuple[tuple[str, str], ...]] | None = None
    # Each random stream the rules draw from, with the chance builtins that draw from it, by name: what a
    # scenario's forced draws may name (runtime/draws.py). None: a module compiled before they were listed.
    streams: tuple[tuple[str, tuple[str, ...]], ...] | None = None
    simulation: SimulationSpec = field(default_factory=SimulationSpec)  # the `simulation { ... }` block

    def player_attr(self, name: str | None) -> str | None:
        """The Python attribute of the player field `name` (a field named `class` is `class_`)."""
        if name is None:
            return None
        return next((f.attr for f in self.player_fields if f.name == name), name)
