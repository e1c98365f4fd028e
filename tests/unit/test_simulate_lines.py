"""rulesdsl/simulate/lines.py: random order lines for every order of every shipped ruleset read back, through the
engine's own reader, as that order with the values drawn; the mail's header is the one the ruleset asks for."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml

from rulesdsl.compiler import load_module
from rulesdsl.runtime import state
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.spec import ArgSpec, ChoiceSpec, OrderSpec, SimulationSpec
from rulesdsl.simulate import lines

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
SEEDS = 300

# Each ruleset with a scenario in which every one of its orders has something to name (a general, a plan, a
# resolution): the line of an order with nothing to name is not written, and so not tested.
SCENARIOS = {
    "covert": ROOT / "examples" / "covert" / "scenario.yaml",
    "nukecards": ROOT / "examples" / "nukecards" / "scenario.yaml",
    "warlord": GOLDEN / "warlord" / "espionage" / "scenario.yaml",
    "wcg": GOLDEN / "wcg" / "combat-ranges" / "scenario.yaml",
    "variants/covert-twice-weekly": GOLDEN / "covert-twice-weekly" / "allowances" / "scenario.yaml",
    "variants/nukecards-blitz": GOLDEN / "nukecards-blitz" / "time-up" / "scenario.yaml",
}
MORE: dict[str, dict[str, Any]] = {
    "wcg": {"Resolution": [{"text": "Peace"}],
            "Plan": [{"owner": "1", "target": "MEX", "base": "USA"}, {"owner": "2", "target": "USA", "base": "MEX"}]},
}


@pytest.fixture(scope="module", params=list(SCENARIOS))
def game(request: pytest.FixtureRequest) -> Game:
    """The ruleset's game at its start, made once for the module (Warlord's world is big)."""
    name = request.param
    module, spec = load_module(ROOT / "rulesets" / f"{name}.rules")
    scenario = yaml.safe_load(SCENARIOS[name].read_text(encoding="utf-8"))
    scenario.update(MORE.get(name, {}))
    return state.new_game(spec, scenario, str(module.__file__))


def _players_orders(g: Game) -> list[OrderSpec]:
    """Every order a player writes, whatever the turn's kind (`only in`: judged by `writable`, tested below)."""
    return [o for o in g.spec.orders if o.kind in ("game", "personal")]


def _same(read: dict[str, Any], drawn: dict[str, Any]) -> bool:
    # Values as the engine reads them: things and players are the game's own objects, so `is` where not equal.
    return read.keys() == drawn.keys() and all(read[k] == drawn[k] for k in drawn)


def test_every_orders_lines_read_back_as_that_order_with_the_values_drawn(game: Game) -> None:
    g = game
    orders = _players_orders(g)
    place = {o.name: i for i, o in enumerate(g.spec.orders)}
    read_back: dict[str, int] = {o.name: 0 for o in orders}
    drawn: dict[str, int] = {o.name: 0 for o in orders}
    for seed in range(SEEDS):
        rng = random.Random(seed)
        me = g.all_players[seed % len(g.all_players)]
        for order in orders:
            values = lines.draw_values(g, me, order, rng)
            if values is None:
                continue  # nothing to name: a player with no general
            drawn[order.name] += 1
            text = lines.write(order, values, rng)
            parsed = g.reader.read(g, me, text, 1)
            # Every line reads: none is refused as it is read (a range, a key, a number, the syntax).
            assert parsed.rec is not None and parsed.spec is not None, (order.name, text, parsed.reason)
            if parsed.spec.name == order.name:
                assert _same(parsed.rec.args, values), (text, parsed.rec.args, values)
                read_back[order.name] += 1
            else:
                # Only an order declared before it takes its line (`PLAY S4 AT 2` is `satellite`, not `steal` of
                # S4), as it would take a player's: draw_line draws such a line again.
                assert place[parsed.spec.name] < place[order.name], (order.name, text, parsed.spec.name)
    # Every order was written, and nearly always as itself.
    assert all(drawn[name] >= SEEDS // 2 and n > drawn[name] * 0.8 for name, n in read_back.items()), read_back


def test_the_lines_of_a_mail_are_the_orders_meant(game: Game) -> None:
    g = game
    sim = SimulationSpec()
    seen: set[str] = set()
    for seed in range(SEEDS):
        rng = random.Random(seed)
        me = g.all_players[seed % len(g.all_players)]
        for line in lines.order_lines(g, me, rng, sim, count=5):
            parsed = g.reader.read(g, me, line.text, 1)
            assert parsed.spec is not None and parsed.spec.name == line.order, (line, parsed.reason)
            assert parsed.rec is not None and _same(parsed.rec.args, line.values)
            seen.add(line.order)
    assert seen == {o.name for o, _ in lines.writable(g, sim)}


def test_a_mail_has_the_header_the_ruleset_asks_for(game: Game) -> None:
    g = game
    me = g.all_players[-1]
    text, written = lines.mail(g, me, random.Random(5), SimulationSpec())
    head = lines.header(g, me)
    assert len(head) == len(g.spec.policy.header)
    assert text.splitlines() == head + [ln.text for ln in written]
    # The engine reads it as the player's: its lines are read, none refused for its header.
    g2 = state.load(g.spec, state.dump(g), g.module_file)
    g2.process_turn([(lines.label(me), text)])
    turn = g2.turns[me._key]
    assert turn.submitted and not turn.notices
    assert not any(r.reason.startswith(("not an order", "not written as")) for r in turn.refused)


def test_weights_choose_among_orders_and_zero_is_never() -> None:
    module, spec = load_module(ROOT / "rulesets" / "covert.rules")
    g = state.new_game(spec, yaml.safe_load(SCENARIOS["covert"].read_text(encoding="utf-8")), str(module.__file__))
    others = tuple((o.name, 0) for o in spec.orders if o.name not in ("bribe", "spy"))
    sim = SimulationSpec(weights=(("bribe", 3), ("spy", 1), *others))
    kinds = [ln.order for seed in range(200) for ln in lines.order_lines(g, g.all_players[0], random.Random(seed),
                                                                         sim, count=5)]
    assert set(kinds) == {"bribe", "spy"}
    assert 2.4 < kinds.count("bribe") / kinds.count("spy") < 3.8


def test_choose_draws_an_argument_from_its_options_and_an_empty_list_writes_no_order() -> None:
    module, spec = load_module(ROOT / "rulesets" / "nukecards.rules")
    g = state.new_game(spec, yaml.safe_load(SCENARIOS["nukecards"].read_text(encoding="utf-8")),
                       str(module.__file__))
    me, other = g.all_players[0], g.all_players[1]
    only = tuple((o.name, 0) for o in spec.orders if o.name not in ("give", "launch"))
    mine = [c for c in g.all["Card"] if c._key.startswith("N")][:2]
    sim = SimulationSpec(weights=only, choices=(
        ChoiceSpec("give", "target", lambda g, me: {other}, line=3),  # a set: drawn in a stable order
        ChoiceSpec("give", "card", lambda g, me: list(mine), line=4),
        ChoiceSpec("launch", "warheads", lambda g, me: [], line=5)))
    drawn = [ln for seed in range(100) for ln in lines.order_lines(g, me, random.Random(seed), sim, count=3)]
    assert drawn and {ln.order for ln in drawn} == {"give"}
    assert {ln.values["target"] for ln in drawn} == {other}
    assert {ln.values["card"]._key for ln in drawn} == {c._key for c in mine}


def test_a_failing_choose_names_its_line() -> None:
    module, spec = load_module(ROOT / "rulesets" / "covert.rules")
    g = state.new_game(spec, yaml.safe_load(SCENARIOS["covert"].read_text(encoding="utf-8")), str(module.__file__))
    sim = SimulationSpec(weights=tuple((o.name, 0) for o in spec.orders if o.name != "bribe"),
                         choices=(ChoiceSpec("bribe", "country", lambda g, me: [][0], line=12),))
    with pytest.raises(lines.ChoiceFailed, match=r"^choose bribe.country \(line 12\) failed: IndexError"):
        lines.order_lines(g, g.all_players[0], random.Random(1), sim, count=1)


def test_orders_only_in_other_turns_are_not_written() -> None:
    module, spec = load_module(ROOT / "rulesets" / "wcg.rules")
    scenario = yaml.safe_load(SCENARIOS["wcg"].read_text(encoding="utf-8"))
    g = state.new_game(spec, scenario, str(module.__file__))
    assert lines.turn_kind(g) == "budget"
    names = {o.name for o, _ in lines.writable(g, SimulationSpec())}
    assert "budget_army" in names and "move" not in names and "draft" not in names
    assert not names & {o.name for o in spec.orders if o.kind not in ("game", "personal")}


@pytest.mark.parametrize(("value", "places", "text"), [
    (12, 0, "12"), (-3, 1, "-3"), (Fraction(25, 2), 1, "12.5"),
    (Fraction(-1, 2), 1, "-0.5"), (Fraction(101, 100), 2, "1.01")])
def test_amounts_are_written_with_their_places(value: Any, places: int, text: str) -> None:
    assert lines.written(value, places) == text


def test_numbers_keep_their_bounds_and_a_wide_range_is_drawn_near_its_low_end() -> None:
    module, spec = load_module(ROOT / "rulesets" / "covert.rules")
    g = state.new_game(spec, yaml.safe_load(SCENARIOS["covert"].read_text(encoding="utf-8")), str(module.__file__))
    order = OrderSpec("t", "game", "T {wide} {low} {high} {cash} {none}", args=(
        ArgSpec("wide", ("int",), low=lambda g: 1, high=lambda g: 99999),
        ArgSpec("low", ("int",), low=lambda g: 5),
        ArgSpec("high", ("int",), high=lambda g: -3),
        ArgSpec("cash", ("money", 1), low=lambda g: Fraction(1, 2), high=lambda g: 2),
        ArgSpec("none", ("int",))))
    drawn = [lines.draw_values(g, g.all_players[0], order, random.Random(seed)) for seed in range(500)]
    values = {name: [d[name] for d in drawn if d is not None] for name in ("wide", "low", "high", "cash", "none")}
    assert all(len(v) == 500 for v in values.values())
    assert min(values["wide"]) >= 1 and max(values["wide"]) <= 99999
    assert sum(v <= 100 for v in values["wide"]) > 200 and max(values["wide"]) > 1000
    assert min(values["low"]) == 5 and max(values["low"]) <= 5 + lines.SPREAD
    assert max(values["high"]) == -3 and min(values["high"]) >= -3 - lines.SPREAD
    assert set(values["cash"]) == {Fraction(n, 10) for n in range(5, 21)}
    assert min(values["none"]) >= 0 and max(values["none"]) <= lines.SPREAD
    # A range with no number in it: the order is not written.
    empty = OrderSpec("e", "game", "E {n}", args=(ArgSpec("n", ("int",), low=lambda g: 3, high=lambda g: 2),))
    assert lines.draw_values(g, g.all_players[0], empty, random.Random(1)) is None
