"""Game <-> plain data: the state file's contents, and a new game from a scenario."""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable
from typing import Any

from rulesdsl.runtime import draws, gridstate, unitstate
from rulesdsl.runtime.codec import (
    StateError,
    StateErrors,
    breaks,
    canonical_map,
    decode,
    encode,
    shown,
)
from rulesdsl.runtime.core import PlayerBase, table_problem
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.spec import ArgSpec, FieldSpec, OrderSpec, RulesetSpec, TableCheckSpec
from rulesdsl.runtime.units import index_keyed, open_units, with_grid

STATE_FORMAT = 1


class _Faults:
    """Gathers StateErrors where a scenario is read (each field on its own); a state file, which rulesdsl
    wrote, stops at its first (errors=None there)."""

    def __init__(self, gather: bool) -> None:
        self.found: list[StateError] | None = [] if gather else None

    def check(self, run: Callable[[], None]) -> None:
        if self.found is None:
            run()
            return
        try:
            run()
        except StateError as e:
            self.found.append(e)

    def raise_any(self) -> None:
        if self.found:
            raise StateErrors(self.found)


def _init_fields(g: Game, obj: Any, fields: tuple[FieldSpec, ...]) -> None:
    for f in fields:
        # A field `from scenario` gets its zero only to fill the slot: the scenario (or state) sets it next,
        # and _missing refuses a scenario that does not.
        setattr(obj, f.attr, {} if f.type[0] == "map" else f.default(g))


def _missing(f: FieldSpec, given: Any, path: str) -> None:
    """Refuses a field `from scenario` that `given` (the scenario's values for one player, or its world)
    leaves out. `rulesdsl new` has refused it already by the schema; this guards other callers."""
    if f.from_scenario and not (isinstance(given, dict) and f.name in given):
        raise StateError(f"{path}.{f.name}", "missing: every scenario must set it (`from scenario`)")


def _set_fields(g: Game, obj: Any, fields: tuple[FieldSpec, ...], values: dict[str, Any], path: str,
                builtin: tuple[str, ...] = (), faults: _Faults | None = None) -> None:
    by_name = {f.name: f for f in fields}
    faults = faults or _Faults(False)
    for name, raw in values.items():
        if name in builtin:
            continue

        def set_one(name: str = name, raw: Any = raw) -> None:
            _set_field(g, obj, by_name, name, raw, path)

        faults.check(set_one)


def _set_field(g: Game, obj: Any, by_name: dict[str, FieldSpec], name: str, raw: Any, path: str) -> None:
    f = by_name.get(name)
    if f is None:
        close = difflib.get_close_matches(str(name), sorted(by_name), n=1)
        raise StateError(f"{path}.{name}", f"no such field{f'; did you mean {close[0]}?' if close else ''}")
    value = decode(g, raw, f.type, f"{path}.{name}")
    if f.type[0] == "map":
        value = {k: v for k, v in value.items() if v != f.default(g)}
    setattr(obj, f.attr, value)


def _make_world(spec: RulesetSpec, players: list[dict[str, Any]]) -> Game:
    g = Game(spec)
    for tspec in spec.things:
        objs = [tspec.cls(key, i) for i, (key, _) in enumerate(tspec.instances)]
        g.all[tspec.name] = list(objs)
        g.index[tspec.name] = {o._key: o for o in objs}
        g.lookup[tspec.name] = {o._key.upper(): o for o in objs}
    for i, raw in enumerate(players):
        p = spec.player_cls(str(raw["account"]), i)
        g.all_players.append(p)
    g.index["Player"] = {p._key: p for p in g.all_players}
    g.lookup["Player"] = {p._key.upper(): p for p in g.all_players}
    open_units(g, with_grid(spec))
    return g


def _units_in(g: Game, data: dict[str, Any], faults: _Faults) -> unitstate.Pending:
    """Numbered things' instances, numbered and placed before any value is read (a value may name one)."""
    return unitstate.read(g, data, faults.check, StateError)


def _units_filled(g: Game, pending: unitstate.Pending, faults: _Faults) -> None:
    """Numbered things' values, then every index (keyed things' too, once their values are in)."""
    def set_fields(store: Any, obj: Any, values: dict[str, Any], path: str) -> None:
        _set_fields(g, obj, store.fields, values, path, faults=faults)

    unitstate.fill(g, pending, set_fields, faults.check, StateError)
    index_keyed(g, with_grid(g.spec))


def new_game(spec: RulesetSpec, scenario: dict[str, Any], module_file: str = "") -> Game:
    """A game at its starting turn (the scenario's `turn`, else 0) from a scenario already checked against its
    schema, its phases `at start` run. Raises StateErrors naming every value that cannot be used, not only the
    first; a start phase that fails raises the RulesError naming its `.rules` line (from `module_file`)."""
    faults = _Faults(True)
    players = scenario.get("players", [])
    g = _make_world(spec, players)
    g.module_file = module_file
    meta = scenario.get("game", {})
    number = str(meta.get("number", 1))
    g.meta = {"number": number, "id": spec.game_id.replace("{number}", number), "name": meta.get("name", spec.title)}
    g.seed = int(scenario.get("seed", 0))
    g.turn = int(scenario.get("turn", 0))
    if g.turn:
        g.meta["first_turn"] = g.turn  # its reports are starting reports (report data `game.start`)
    for name, value in scenario.get("parameters", {}).items():
        ps = next(p for p in spec.params if p.name == name)

        def set_param(name: str = name, value: Any = value, ps: Any = ps) -> None:
            g.params[name] = decode(g, value, ps.type, f"$.parameters.{name}")

        faults.check(set_param)
    if spec.grid is not None:
        # The grid's size may come from a parameter, and every later value may name a sector: a fault so far
        # (or in the size) stops the read here. Without a grid, faults are gathered on as before.
        faults.raise_any()
        faults.check(lambda: gridstate.build(g))
        faults.raise_any()
    pending = _units_in(g, scenario, faults)
    for tspec in spec.things:
        if tspec.numbered:
            continue
        for obj, (_, values) in zip(g.all[tspec.name], tspec.instances, strict=True):
            _init_fields(g, obj, tspec.fields)
            for fname, raw in values.items():
                f = next(f for f in tspec.fields if f.name == fname)
                setattr(obj, f.attr, decode(g, raw, f.type, f"{tspec.name}.{obj._key}.{fname}"))
        for key, values in scenario.get(tspec.name, {}).items():
            obj = g.lookup[tspec.name][str(key).upper()]
            _set_fields(g, obj, tspec.fields, values, f"$.{tspec.name}.{key}", faults=faults)
    gridstate.read(g, scenario, faults.check)
    for i, (p, raw) in enumerate(zip(g.all_players, players, strict=True)):
        _init_fields(g, p, spec.player_fields)
        _set_player(g, p, raw, f"$.players[{i}]", faults)
        for f in spec.player_fields:
            faults.check(functools.partial(_missing, f, raw, f"$.players[{i}]"))
        if g.budget_attr and spec.policy.budget_field not in raw:
            setattr(p, g.budget_attr, spec.policy.budget_start)
    # Last, so that the world's defaults may read the players and things.
    _init_fields(g, g.world, spec.world_fields)
    faults.check(lambda: _set_world(g, scenario, faults))
    for f in spec.world_fields:
        faults.check(functools.partial(_missing, f, scenario.get("world"), "$.world"))
    _units_filled(g, pending, faults)
    for tc in spec.table_checks:
        faults.check(functools.partial(_check_table, g, tc))
    for o in spec.orders:
        for a in o.args:
            if any(a.decided_by):
                faults.check(functools.partial(_check_digits, g, o, a))
    # Last: a key may name any player or instance. Kept as given, so that later faults name the scenario's paths.
    found: list[StateError] = []
    g.forced = draws.read(g, scenario.get("draws"), g.turn, found)
    for e in found:
        faults.check(functools.partial(_raise, e))
    faults.raise_any()
    # After the scenario's values, so that a scenario can give its own world and a start phase see it; before
    # `where` is judged, which the world they make must meet too.
    g.run_start_phases()
    # Only once every value is in: a value the scenario leaves at its default must be allowed too.
    if errors := broken(g, {id(obj): path for _, obj, _, path in pending}):
        raise StateErrors(errors)
    return g


def _raise(e: StateError) -> None:
    raise e


def _check_table(g: Game, tc: TableCheckSpec) -> None:
    """A table whose bounds or chances parameters set must, with the scenario's values, be one the checker
    would have passed: the fault names the first of those parameters."""
    problem = table_problem(tc.table, tc.kind, tc.rows(g), tc.whole)
    if problem is not None:
        shown = ", ".join(f"{p} = {g.params[p]}" for p in tc.params)
        raise StateError(f"$.parameters.{tc.params[0]}", f"{problem} ({shown})")


def _check_digits(g: Game, o: OrderSpec, a: ArgSpec) -> None:
    """`digits A..B` whose bounds parameters set must, with the scenario's values, be bounds the checker would
    have passed for literals (E0423, E0420): single digits, the low one not above the high one. The fault
    names the first parameter of the bound at fault."""
    assert a.low is not None and a.high is not None
    low, high = a.decided_by
    values = (a.low(g), a.high(g))

    def shown(params: tuple[str, ...]) -> str:
        return ", ".join(f"{p} = {g.params[p]}" for p in params)

    for which, params, value in (("low", low, values[0]), ("high", high, values[1])):
        if params and not 0 <= value <= 9:
            raise StateError(f"$.parameters.{params[0]}", f"`{a.name}` of order `{o.name}` reads each digit as one "
                             f"number, so its {which} bound must be a single digit from 0 to 9, not {value} "
                             f"({shown(params)})")
    if low is not None and high is not None and values[0] > values[1]:
        params = tuple(dict.fromkeys(low + high))
        raise StateError(f"$.parameters.{params[0]}", f"order `{o.name}` can never be given: `{a.name}` takes no "
                         f"digit at least {values[0]} and at most {values[1]} ({shown(params)})")


def _set_world(g: Game, data: dict[str, Any], faults: _Faults | None = None) -> None:
    values = data.get("world")
    if values is None:
        return
    if not isinstance(values, dict):
        raise StateError("$.world", "expected a mapping of fields to values")
    if values and g.spec.world_cls is None:
        raise StateError("$.world", f"\"{g.spec.title}\" has no `world` fields")
    _set_fields(g, g.world, g.spec.world_fields, values, "$.world", faults=faults)


def _set_player(g: Game, p: PlayerBase, raw: dict[str, Any], path: str, faults: _Faults | None = None) -> None:
    p.name = str(raw["name"])
    p.code = str(raw["code"])
    p.email = str(raw.get("email", ""))
    p.active = bool(raw.get("active", True))
    _set_fields(g, p, g.spec.player_fields, raw, path, ("name", "account", "code", "email", "active"), faults)


def dump(g: Game) -> dict[str, Any]:
    spec = g.spec
    out: dict[str, Any] = {
        "format": STATE_FORMAT,
        "ruleset": {"title": spec.title, "version": spec.version, "source": spec.source,
                    "sha256": spec.source_hash},
        "game": dict(g.meta),
        "turn": g.turn,
        "seed": g.seed,
        "parameters": {p.name: encode(g.params[p.name], p.type) for p in spec.params},
        "players": [],
    }
    for p in g.all_players:
        row: dict[str, Any] = {"name": p.name, "account": p.account, "code": p.code, "email": p.email,
                               "active": p.active}
        for f in spec.player_fields:
            row[f.name] = _enc_field(g, p, f)
        out["players"].append(row)
    if spec.world_cls is not None:
        out["world"] = {f.name: _enc_field(g, g.world, f) for f in spec.world_fields}
    for tspec in spec.things:
        if not tspec.numbered:
            out[tspec.name] = {obj._key: {f.name: _enc_field(g, obj, f) for f in tspec.fields}
                               for obj in g.all[tspec.name]}
    if spec.grid is not None:
        out[spec.grid.name] = gridstate.dump(g)
    out.update(unitstate.dump(g, functools.partial(_enc_field, g)))
    out["engine"] = {
        "on_file": {k: list(v) for k, v in g.on_file.items() if v},
        "streaks": {k: dict(v) for k, v in g.streaks.items() if v},
        "game_over": g.game_over,
        "winners": list(g.winners),
    }
    if g.forced:  # only a game with forced draws (a test game): other state files stay as they were
        out["engine"]["draws"] = [e.data() for e in g.forced]
    if g.standing:  # only a game with standing orders writes them: other state files stay as they were
        out["engine"]["standing"] = {p._key: [{"order": kind, "text": text} for kind, text in g.standing[p._key]]
                                     for p in g.all_players if g.standing.get(p._key)}
    return out


def _enc_field(g: Game, obj: Any, f: FieldSpec) -> Any:
    value = getattr(obj, f.attr)
    if f.type[0] == "map":
        return encode(canonical_map(g, f.type[1], value), f.type)
    return encode(value, f.type)


def load(spec: RulesetSpec, data: dict[str, Any], module_file: str = "") -> Game:
    g = _make_world(spec, data.get("players", []))
    g.module_file = module_file
    g.meta = dict(data.get("game", {}))
    g.turn = int(data.get("turn", 0))
    g.seed = int(data.get("seed", 0))
    for ps in spec.params:
        if ps.name in data.get("parameters", {}):
            g.params[ps.name] = decode(g, data["parameters"][ps.name], ps.type, f"$.parameters.{ps.name}")
    gridstate.build(g)
    faults = _Faults(False)
    pending = _units_in(g, data, faults)
    for tspec in spec.things:
        if tspec.numbered:
            continue
        section = data.get(tspec.name, {})
        for obj in g.all[tspec.name]:
            _init_fields(g, obj, tspec.fields)
            _set_fields(g, obj, tspec.fields, section.get(obj._key, {}), f"$.{tspec.name}.{obj._key}")
    gridstate.read(g, data, _run)
    for i, (p, raw) in enumerate(zip(g.all_players, data.get("players", []), strict=True)):
        _init_fields(g, p, spec.player_fields)
        _set_player(g, p, raw, f"$.players[{i}]")
    _init_fields(g, g.world, spec.world_fields)
    _set_world(g, data)
    _units_filled(g, pending, faults)
    eng = data.get("engine", {})
    g.on_file = {k: list(v) for k, v in eng.get("on_file", {}).items()}
    g.streaks.update({k: dict(v) for k, v in eng.get("streaks", {}).items()})
    g.game_over = bool(eng.get("game_over", False))
    g.winners = list(eng.get("winners", []))
    g.standing = _load_standing(g, eng.get("standing", {}))
    found: list[StateError] = []
    # As the scenario gave them, checked then: the state keeps every entry, past turns' too, so that a fault
    # names the scenario's `$.draws[i]` in any turn.
    g.forced = draws.read(g, eng.get("draws"), 0, found, checked=False)
    if found:
        raise StateError(f"$.engine.draws{found[0].path[len('$.draws'):]}", str(found[0]).split(": ", 1)[1])
    if errors := broken(g):
        raise StateErrors(errors)
    return g


def _load_standing(g: Game, data: dict[str, Any]) -> dict[str, list[tuple[str, str]]]:
    """The players' standing orders as the state keeps them: by account, each order's kind and text. The
    text is read again when the next turn starts; its kind must be a standing order of the ruleset."""
    out: dict[str, list[tuple[str, str]]] = {}
    for account, items in data.items():
        if account not in g.index["Player"]:
            raise StateError(f"$.engine.standing.{account}", "no such player")
        for i, item in enumerate(items):
            spec = g.orders.get(item.get("order", ""))
            if spec is None or not spec.standing:
                raise StateError(f"$.engine.standing.{account}[{i}].order",
                                 f"{shown(item.get('order'))} is not a standing order of this ruleset")
            out.setdefault(account, []).append((spec.name, str(item.get("text", ""))))
    return out


def broken(g: Game, paths: dict[int, str] | None = None) -> list[StateError]:
    """Every value that breaks its field's `where`, in the order of the state file, each at its JSON path.
    Checked on every state read or made and after every turn: a state no rule could have made (a negative
    population, a warhead as the prepared missile) is refused, and a rule that would make one fails its turn."""
    spec = g.spec
    found: list[StateError] = []
    # Only the fields that have a `where`: a ruleset without any pays nothing here, every turn.
    if fields := _with_where(spec.player_fields):
        for i, p in enumerate(g.all_players):
            _broken(g, p, fields, f"$.players[{i}]", found)
    if spec.world_cls is not None and (fields := _with_where(spec.world_fields)):
        _broken(g, g.world, fields, "$.world", found)
    for tspec in spec.things:
        if fields := _with_where(tspec.fields):
            for i, obj in enumerate(g.instances(tspec.name)):
                # A numbered thing's instance: its row in the scenario (`paths`, by id), else in the state file.
                where = (f"$.{tspec.name}.{obj._key}" if not tspec.numbered else
                         (paths or {}).get(id(obj), f"$.{tspec.name}.rows[{i}]"))
                _broken(g, obj, fields, where, found)
    gridstate.broken(g, found)
    return found


def _run(step: Callable[[], None]) -> None:
    """A state file, which rulesdsl wrote, stops at its first fault: each step is run as it is."""
    step()


def _with_where(fields: tuple[FieldSpec, ...]) -> tuple[FieldSpec, ...]:
    return tuple(f for f in fields if f.where is not None)


def _broken(g: Game, obj: Any, fields: tuple[FieldSpec, ...], path: str, found: list[StateError]) -> None:
    for f in fields:
        assert f.where is not None
        value = getattr(obj, f.attr)
        if f.type[0] == "map":
            for key, v in canonical_map(g, f.type[1], value).items():
                if v is not None and not f.where(g, v):
                    found.append(breaks(g, f, v, f.type[2], f"{path}.{f.name}.{key}"))
        elif value is not None and not f.where(g, value):
            found.append(breaks(g, f, value, f.type, f"{path}.{f.name}"))
