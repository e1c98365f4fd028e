"""rulesets/warlord.rules, checked -> the seams of part 2 that its packages rely on: a unit leaves the game
only through `lose_unit` (its cargo and generals with it) or a link's `merge`, and every stub, order and phase
the packages fill has its final name where they expect it."""

from __future__ import annotations

from pathlib import Path

from rulesdsl import ir
from rulesdsl.compiler import check_path
from tests.unit.rulestools import program_of, walk_ir

RULES = Path(__file__).resolve().parents[2] / "rulesets" / "warlord.rules"

# The stubs of w13-design.md's P2, by package block; a package fills their bodies, never their names.
STUB_FUNCTIONS = {
    "shows_to", "surprised", "ships_guns", "unit_label", "strength", "general_bonus", "general_mark",
    "coalition", "harbour",
}
STUB_PROCEDURES = {
    "lose_unit", "deliver", "join_at",
    "try_board", "try_land", "carry_cargo", "after_losses", "lose_cargo",
    "lose_airbase", "equip_airbase", "watch_strike", "bombing", "airlifts", "flights", "observe_all",
    "generals_learn", "lose_generals", "move_generals", "equip_generals", "general_sight", "generals_return",
    "dig", "research_done", "spy_reports",
    "finish_letters", "meet",
    "move_rebels", "dropouts", "draw_outline",
}
# Every part-2 order is filled in now (P6's Y and -- were the last): none is a stub any more.
PART2_ORDERS: set[str] = set()
# The twelve steps (R43 of the design), in the order the turn runs them.
PHASES = [
    "immediate", "air_assign", "stoppages", "construct", "payments", "spending", "air_missions", "issue",
    "movement", "production", "research_results", "observation", "letters", "spies", "annexation", "supply",
    "dropouts", "generals_return", "vision",
]


def _program(path: Path = RULES) -> ir.Program:
    return program_of(path)


def _destroyed(decl: ir.Node) -> list[str]:
    """The types of what `decl`'s `destroy` statements destroy, in the order written."""
    return [str(s.target.ty) for s in walk_ir(decl) if isinstance(s, ir.Destroy)]


def test_a_division_is_destroyed_only_by_lose_unit_or_merge() -> None:
    program = _program()
    where = {}
    for decl in program.nodes():
        if "Division" in _destroyed(decl):
            where[getattr(decl, "name", type(decl).__name__)] = True
    # Without lose_unit a general or cargo would be left holding a unit that is gone.
    assert sorted(where) == ["lose_unit", "merge"]


def test_the_check_finds_a_bare_destroy(tmp_path: Path) -> None:
    text = RULES.read_text(encoding="utf-8").replace("        lose_unit(d)\n", "        destroy d\n", 1)
    assert text != RULES.read_text(encoding="utf-8")
    for template in RULES.parent.glob("warlord.report*.j2"):
        (tmp_path / template.name).write_bytes(template.read_bytes())
    path = tmp_path / "warlord.rules"
    path.write_text(text, encoding="utf-8")
    checked = check_path(path)
    assert checked.program is not None
    assert any("Division" in _destroyed(p) for p in checked.program.procedures if p.name == "take_losses")


def test_every_stub_the_packages_fill_exists() -> None:
    program = _program()
    assert STUB_FUNCTIONS - {f.name for f in program.functions} == set()
    assert STUB_PROCEDURES - {p.name for p in program.procedures} == set()
    assert PART2_ORDERS - {o.name for o in program.orders} == set()
    assert not set(program.unrun_orders) & PART2_ORDERS


def test_the_twelve_steps_run_in_order() -> None:
    names = [p.name for p in _program().phases if not p.at_start]
    assert [n for n in names if n in PHASES] == PHASES


def test_a_stub_order_says_it_is_not_yet() -> None:
    orders = {o.name: o for o in _program().orders}
    for name in sorted(orders):
        reasons = [s.value for v in orders[name].valids for s in walk_ir(v) if isinstance(s, ir.Const)
                   and isinstance(s.value, str)]
        # a stub says "not yet", and only the orders still listed as stubs are
        assert any(r.startswith("not yet: ") for r in reasons) == (name in PART2_ORDERS), (name, reasons)


# A line of every order a part-2 package fills, as the rulebook writes it (on the shipyard scenario's map).
STUB_LINES: list[str] = []


def test_a_stub_order_is_refused_and_the_turn_goes_on(tmp_path: Path) -> None:
    from tests.golden.harness import GOLDEN, Scenario, play

    folder = tmp_path / "scenario"
    (folder / "turn-1").mkdir(parents=True)
    (folder / "scenario.yaml").write_bytes((GOLDEN / "warlord" / "shipyard" / "scenario.yaml").read_bytes())
    (folder / "turn-1" / "01-ann.txt").write_text("\n".join(["WL-21", "1 A1", *STUB_LINES, "M 2 33"]) + "\n",
                                                  encoding="utf-8")
    reports = {name: text for _, name, text in play(Scenario("warlord", "stubs", folder), tmp_path / "game")}
    ann = reports["1-ann"]
    for line in STUB_LINES:
        row = next(r for r in ann.splitlines() if f" {line} " in r)
        assert "refused: not yet: " in row, row
    assert "00400    2 N    Cruisers" in ann  # the flotilla's M after them was carried out
