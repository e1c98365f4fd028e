"""Game after a turn -> each player's report as data (checked by the report schema on demand) and as text."""

from __future__ import annotations

import os
from fractions import Fraction
from functools import cache
from typing import TYPE_CHECKING, Any

import jinja2
from jinja2 import sandbox

from rulesdsl.runtime.core import Numbered, Plain, PlayerBase, Thing, fmt_decimal
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.spec import RulesetSpec

if TYPE_CHECKING:
    import jsonschema

CHECK_REPORTS = "RULESDSL_CHECK_REPORTS"


def template_env() -> jinja2.Environment:
    """The one Jinja2 environment used to check templates at compile time and to render them.

    A sandbox: a GM runs templates written by others, so a template reaches only the report's data and
    Jinja's own filters, never Python's internals (`__class__`, `__globals__`); it cannot change the data
    either (immutable), so one part of a report cannot alter what the next part shows."""
    env = sandbox.ImmutableSandboxedEnvironment(undefined=jinja2.StrictUndefined, autoescape=False,
                                                keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True)
    env.filters["ljust"] = lambda s, w: str(s).ljust(int(w))
    env.filters["rjust"] = lambda s, w: str(s).rjust(int(w))
    return env


# What the sandbox refuses whatever the value: private names, and the internals of functions, methods,
# generators and types. The checker refuses the same names in a template, so a designer hears it at check.
_INTERNALS = frozenset({"mro"}) | sandbox.UNSAFE_FUNCTION_ATTRIBUTES | sandbox.UNSAFE_METHOD_ATTRIBUTES \
    | sandbox.UNSAFE_GENERATOR_ATTRIBUTES | sandbox.UNSAFE_COROUTINE_ATTRIBUTES \
    | sandbox.UNSAFE_ASYNC_GENERATOR_ATTRIBUTES


def unsafe_attribute(name: str) -> bool:
    """Whether a template may never read `.name`, of any value."""
    return name.startswith("_") or name in _INTERNALS


# Values that are data as they are. Looked up by exact type first: most of a report is text and numbers, and
# `isinstance(x, Fraction)` asks the numbers ABCs, slowly, for each of them.
_AS_IS = frozenset({str, int, bool, float, type(None)})


def to_data(value: Any) -> Any:
    """A report value as plain data: a player by name, a thing by key, a decimal as text, lists and records
    copied (the report never shares a list with the state)."""
    kind = type(value)
    if kind is Plain:
        return value
    if kind is dict:
        return {k: v if type(v) in _AS_IS else to_data(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _AS_IS else to_data(v) for v in value]
    if kind in _AS_IS:
        return value
    if isinstance(value, PlayerBase):
        return value.name
    if isinstance(value, Numbered):
        return str(value.number)
    if isinstance(value, Thing):
        return value._key
    if isinstance(value, Fraction):
        return fmt_decimal(value)
    if isinstance(value, dict):
        return {k: to_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_data(v) for v in value]
    return value


# The fields the engine puts in every report beside the ruleset's own: their one definition. The checker
# reads the types (templates, the report schema, names a report field cannot take), report_data fills
# them, and docs/language.md's table is this list (a test compares them). A dotted name is a field of a
# record (`orders.used`). Types: "int", "text", "bool", ("list", T), ("opt", T), ("record", ((name, T), ...)).
ReportType = Any
_ORDER_LINE = ("record", (("line", "int"), ("text", "text"), ("status", "text"), ("reason", ("opt", "text"))))
_REFUSED = ("record", (("line", "int"), ("text", "text"), ("reason", "text")))
BUILTIN_FIELDS: tuple[tuple[str, ReportType, str], ...] = (
    ("game", ("record", (("id", "text"), ("title", "text"), ("turn", "int"), ("unit", "text"), ("start", "bool"),
                          ("date", "text"))),
     "`{id, title, turn, unit, start, date}`: the game's id (`CO-175`), its name (the scenario's `game.name`, "
     "else the ruleset's title), the turn number, the `turn` setting, whether this is the starting report "
     "(written by `rulesdsl new`, before any order), and the turn's date by the calendar (`March 1960, "
     "reaction`; \"\" without one)"),
    ("player", ("record", (("name", "text"), ("account", "text"), ("code", "text"), ("email", "text"),
                           ("active", "bool"))),
     "`{name, account, code, email, active}`"),
    ("orders.used", ("list", _ORDER_LINE),
     "the orders taken into the turn and the personal orders: `{line, text, status, reason}`; `status` is `done` "
     "or `failed`; `line` is 0 for orders from file"),
    ("orders.refused", ("list", _REFUSED), "the orders not accepted: `{line, text, reason}`"),
    ("orders.on_file", ("list", "text"), "the texts of the orders kept on file for the next turn"),
    ("orders.notices", ("list", "text"), "notices about the submissions (not processed, discarded orders)"),
    ("orders.standing", ("list", "text"),
     "the texts of the player's standing orders, which run again next turn, in the order first given"),
    ("news", ("list", "text"), "the turn's news"),
    ("messages", ("list", "text"), "this player's private messages (`tell`)"),
    ("warnings", ("list", "text"), "the victory warnings of the turn"),
    ("game_over", "bool", "true if the game ended this turn"),
    ("winners", ("list", "text"), "the names of the winners"),
)


def report_data(g: Game, p: PlayerBase) -> dict[str, Any]:
    """The report of `p` as data: the BUILTIN_FIELDS, then the ruleset's own fields."""
    turn = g.turns.get(p._key)
    used = turn.used if turn else []
    data: dict[str, Any] = {
        "game": {"id": str(g.meta.get("id", "")), "title": str(g.meta.get("name", g.spec.title)), "turn": g.turn,
                 "unit": g.spec.turn_unit, "start": g.turn == int(g.meta.get("first_turn", 0)),
                 "date": g.date().date if g.spec.calendar is not None else ""},
        "player": {"name": p.name, "account": p.account, "code": p.code, "email": p.email, "active": p.active},
        "orders": {
            "used": [{"line": r.line, "text": r.text, "status": r.status, "reason": r.reason} for r in used],
            "refused": [{"line": r.line, "text": r.text, "reason": r.reason}
                        for r in sorted(turn.refused if turn else [], key=lambda r: r.line)],
            "on_file": list(g.on_file.get(p._key, [])),
            "notices": list(turn.notices if turn else []),
            "standing": g.standing_texts(p),
        },
        "news": g.news_items(),
        "messages": list(turn.messages if turn else []),
        "warnings": list(g.warnings),
        "game_over": g.game_over,
        "winners": list(g.winners),
    }
    with g.doing(f"writing the report of {p.name}"):
        try:
            own = g.own_report(p)
        except Exception as exc:  # a failing report names its .rules line like a phase
            raise g.locate(exc) from exc
    data.update(to_data(own))
    return data


def checking_reports() -> bool:
    """Whether a turn checks each report's data against the report schema: on demand (RULESDSL_CHECK_REPORTS=1)
    and in the tests, not every turn. The checker has already typed what a report holds; jsonschema costed
    a seventh of a turn, and its import more."""
    return os.environ.get(CHECK_REPORTS, "") not in ("", "0")


@cache
def _validator(spec: RulesetSpec) -> jsonschema.protocols.Validator:
    import jsonschema

    cls = jsonschema.validators.validator_for(spec.report_schema)
    return cls(spec.report_schema)


def validate_report(spec: RulesetSpec, data: dict[str, Any]) -> None:
    import jsonschema

    err = jsonschema.exceptions.best_match(_validator(spec).iter_errors(data))
    if err is not None:
        path = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path)
        raise ValueError(f"report data does not fit its schema at {path}: {err.message}")


@cache
def _template(spec: RulesetSpec) -> jinja2.Template:
    return template_env().from_string(spec.template)


def render(spec: RulesetSpec, data: dict[str, Any], template: jinja2.Template | None = None) -> str:
    """The report's text. `template` is the ruleset's template already compiled (the compiler caches it:
    rulesdsl.compiler.load_template); without it, the template is compiled here."""
    return normalise((template or _template(spec)).render(**data))


def normalise(text: str) -> str:
    """A rendered report's text as it is written: no trailing blanks, one newline at the end (reviewers diff
    these)."""
    return "\n".join(line.rstrip() for line in text.splitlines()).rstrip("\n") + "\n"
