"""rulesets/wcg.rules, checked -> the seams of issue 14 that its packages (W1-W6) rely on: a stack of units
changes only through `add_forces` and `lose_forces`, every stub, order and phase the packages fill has its
final name where they expect it, the phases run in the design's order, and `rulesdsl check` is clean but for
the parameters of packages not yet in."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulesdsl import ir
from rulesdsl.cli import main
from rulesdsl.compiler import check_path
from tests.unit.rulestools import program_of, walk_ir

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rulesets" / "wcg.rules"

# The stubs of w14-design.md's Part 3 item 3 and the phases' procedures, by package; a package fills their
# bodies, never their names or signatures.
STUB_FUNCTIONS = {
    "held_a_year", "base_income", "upkeep_money", "ceil_pct",                      # W2
    "can_reach", "why_not", "can_land", "army_points", "forces_text",              # W3
    "blocked_by_un", "blocking",                                                   # W4
}
STUB_PROCEDURES = {
    "fluctuate", "yearly_changes", "work_out_income", "reset_year", "settle", "default_budget",      # W2
    "move_forces", "restart", "plans_hit", "advance_plans", "announce_invasions",                    # W3
    "open_vote", "close_vote", "count_votes", "call_default", "balance_default_votes", "merger_default",
    "end_mandates",                                                                                  # W4
    "lose_forces", "open_battle", "resolve_battle", "after_battle", "default_stance", "battles", "flights",
    "works", "occupation",                                                                           # W5
}
# Orders still stubs (refused "not yet"): a package that fills one takes it out of this set.
STUB_ORDERS: set[str] = set()                                               # Z2 filled FIRE, the last
# The turn (w14-design.md, "How conflicts are kept small" item 2), in the order it runs.
PHASES = [
    "seating", "mustering", "first_year",
    "settle_budgets", "spending", "moves", "planning", "invasions", "defence", "un", "month_end", "votes_close",
    "new_year",
]
# The administrator's discretions with a default (R72), run after the last phase when the GM gave none, and
# the world orders (for no position).
DEFAULTS = {"budget": ("reaction",), "call": ("reaction",), "balance": (), "lift": ("reaction",),
            "approve": ("budget",)}
WORLD_ORDERS = {"call", "balance", "lift", "approve", "deny", "rule", "units", "remove", "extend"}
# Parameters of packages not yet in: W0101 (never used) is allowed for these only, until their package lands.
UNREAD_PARAMETERS: set[str] = set()
# Data of packages not yet in, never read until their package lands: W0101 allowed for these only.
UNREAD_DATA: set[str] = set()
# Where a stack may change: made, grown, shrunk or destroyed.
STACK_CHANGERS = {"add_forces", "lose_forces", "split_forces"}


def _program(path: Path = RULES) -> ir.Program:
    return program_of(path)


def _changes_a_stack(decl: object) -> bool:
    """Whether `decl` makes a Force, destroys one, or sets a Force's count."""
    for n in walk_ir(decl):
        if isinstance(n, ir.Destroy) and str(n.target.ty) == "Force":
            return True
        if isinstance(n, ir.New) and n.thing == "Force":
            return True
        if (isinstance(n, ir.Assign) and isinstance(n.target, ir.Field) and n.target.name == "count"
                and str(n.target.obj.ty) == "Force"):
            return True
    return False


def _stack_changers(program: ir.Program) -> set[str]:
    return {getattr(d, "name", type(d).__name__) for d in program.nodes() if _changes_a_stack(d)}


def test_a_stack_changes_only_through_add_forces_and_lose_forces() -> None:
    # A plan whose committed units fell below its lines restarts only when lose_forces calls plans_hit (R27).
    assert _stack_changers(_program()) <= STACK_CHANGERS
    assert "add_forces" in _stack_changers(_program())


def test_the_check_finds_a_bare_change(tmp_path: Path) -> None:
    text = RULES.read_text(encoding="utf-8")
    for old, new in [("  plans_hit(f)\n", "  plans_hit(f)\n}\nprocedure shrink(f: Force) {\n  f.count -= 1\n"),
                     ("  plans_hit(f)\n", "  plans_hit(f)\n}\nprocedure gone(f: Force) {\n  destroy f\n")]:
        changed = text.replace(old, new, 1)
        assert changed != text
        for template in RULES.parent.glob("wcg.*.j2"):
            (tmp_path / template.name).write_bytes(template.read_bytes())
        path = tmp_path / "wcg.rules"
        path.write_text(changed, encoding="utf-8")
        assert _stack_changers(_program(path)) - STACK_CHANGERS in ({"shrink"}, {"gone"})


def test_every_stub_the_packages_fill_exists() -> None:
    program = _program()
    assert STUB_FUNCTIONS - {f.name for f in program.functions} == set()
    assert STUB_PROCEDURES - {p.name for p in program.procedures} == set()
    assert STUB_ORDERS - {o.name for o in program.orders} == set()


def test_the_phases_run_in_the_designs_order() -> None:
    phases = _program().phases
    assert [p.name for p in phases if p.name in PHASES] == PHASES
    kinds = {p.name: p.kinds for p in phases}
    assert kinds["month_end"] == ("reaction",)
    assert kinds["invasions"] == ("action",)
    assert kinds["new_year"] == ("reaction",)
    assert kinds["settle_budgets"] == ()  # a refused budget is sent again in any later turn of the year (R18)


def test_every_discretion_is_a_gm_order_with_its_default() -> None:
    orders = {o.name: o for o in _program().orders}
    assert {n: o.default.kinds for n, o in orders.items() if o.default is not None} == DEFAULTS
    assert {n for n, o in orders.items() if o.world} == WORLD_ORDERS
    assert all(orders[n].kind == "gm" for n in DEFAULTS.keys() | WORLD_ORDERS | {"grant", "fine", "stance"})


def test_a_stub_order_says_not_yet() -> None:
    orders = {o.name: o for o in _program().orders}
    for name in sorted(orders):
        reasons = [s.value for v in orders[name].valids for s in walk_ir(v)
                   if isinstance(s, ir.Const) and isinstance(s.value, str)]
        assert ("not yet" in reasons) == (name in STUB_ORDERS), (name, reasons)


def test_the_check_is_clean_but_for_unread_parameters() -> None:
    checked = check_path(RULES)
    assert [d for d in checked.diagnostics if d.severity == "error"] == []
    warned = {d.message for d in checked.diagnostics if d.severity != "error"}
    allowed = {f"parameter `{p}` is never used" for p in UNREAD_PARAMETERS} | UNREAD_DATA
    assert warned <= allowed, sorted(warned - allowed)


def test_a_stub_order_is_refused_and_an_order_in_the_wrong_kind_of_turn_with_the_date(tmp_path: Path) -> None:
    from tests.golden.harness import GOLDEN, Scenario, play

    folder = tmp_path / "scenario"
    folder.mkdir()
    (folder / "scenario.yaml").write_bytes((GOLDEN / "wcg" / "_world" / "scenario-base.yaml").read_bytes())
    for turn, lines in [(1, ["MOVE INF,1,USA,MEX", "FUND USA,1"]), (2, ["MOVE INF,1,USA,MEX", "UN STOP MEX,USA"]),
                        (3, ["FIRE CUB,1,MEX"])]:
        (folder / f"turn-{turn}").mkdir(parents=True)
        (folder / f"turn-{turn}" / "01-ann.txt").write_text("\n".join(["WCG-1", "1 A1", *lines]) + "\n",
                                                            encoding="utf-8")
    reports = {(turn, name): text for turn, name, text in play(Scenario("wcg", "stubs", folder), tmp_path / "g")}
    first, second, third = (reports[(t, "1-ann")] for t in (1, 2, 3))
    assert "January 1960, budget" in first
    row = next(r for r in first.splitlines() if "MOVE INF,1,USA,MEX" in r)
    assert "given in action or reaction turns; this is the budget turn of January 1960" in row, row
    assert "United States lends 1 infantry to Mexico" in second          # W3's MOVE, no longer a stub
    assert "0 I.C.B.M.s aboard carriers in Cuba" in next(r for r in third.splitlines() if "FIRE CUB,1,MEX" in r)
    assert "reaction turns" in next(r for r in second.splitlines() if "UN STOP MEX,USA" in r)


def test_the_long_game_checks_every_players_order() -> None:
    # benchmarks/wcg_long.py (run by .ci/run; test_wcg_long plays 25 turns of it) counts the orders it carried
    # out against these: every order a player can give.
    import importlib.util

    spec = importlib.util.spec_from_file_location("wcg_long", ROOT / "benchmarks" / "wcg_long.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert set(bench.order_patterns()) == {o.name for o in _program().orders if o.kind != "gm"}


def test_w4_check_defaults_lists_a_default_for_every_gm_order_with_one(capsys: pytest.CaptureFixture[str]) -> None:
    # R72: what happens at each discretion is read from the rules; the orders with no default say so in the
    # header's table ("default: nothing").
    assert main(["check", "--defaults", str(RULES)]) == 0
    out = capsys.readouterr().out
    listed = {line.split(" ", 1)[0] for line in out.splitlines() if "GM order" in line and line[:1].isalpha()}
    assert listed == set(DEFAULTS)
    for name in DEFAULTS:
        block = out.split(f"\n{name} ", 1)[1].split("\n\n", 1)[0]
        assert "Default:" in block, name
    gm = {o.name for o in _program().orders if o.kind == "gm"}
    header = RULES.read_text(encoding="utf-8").split("ruleset \"WCG\"", 1)[0]
    for name in sorted(gm - set(DEFAULTS)):
        syntax = next(o for o in _program().orders if o.name == name).pattern.split(" ", 1)[0]
        assert f"#   {syntax}" in header or f"/ {syntax}" in header, name
