"""`path` in rules -> which searches keep their prices for the game, the `within` bound, and what kept prices
must never change: the routes found, a start phase that changes the map, a price that stops the turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulesdsl import ir
from rulesdsl.checker import routes
from rulesdsl.compiler import check_path
from rulesdsl.runtime.engine import Game
from tests.unit.rulestools import Loaded, load_text, show, write_ruleset

RULES = '''ruleset "R" { version "1" turn "turn" }
param slow: int = 2
thing Terrain keyed by code { symbol: text  cost: int? }
data Terrain(code, symbol, cost) { open: ".", 1  hills: "^", 3  sea: "~", none  lava: "*", -1 }
thing Kind keyed by code { extra: int }
data Kind(code, extra) { FOOT: 0  HORSE: 1 }
grid Sector {
  size 8 by 6
  numbered "CCRR"
  draw terrain with symbol
  terrain: Terrain = Terrain.open
  owner: Player?
  mud: int = 0
  seen: bool = false reset each turn
}
player { at: Sector?  kind: Kind = Kind.FOOT  steps: int = 0  goal: Sector?  purse: money = 10 }
world { before: int = -1  after: int = -1 }
orders { header "{account}", "{code}"  pay from purse }
define step_cost(x: Sector, k: Kind) -> int? = if x.terrain.cost == none then none else x.terrain.cost + k.extra
define muddy(x: Sector) -> int = x.mud + 1
procedure flatten(x: Sector) { x.terrain = Terrain.open }
procedure soak(x: Sector) -> int {
  x.mud += 1
  return x.mud
}
order go "G {dest}" {
  dest: Sector
  cost money(1)
  effect {
    let k = me.kind
    let here = me.at
    if here != none {
      let a = path(step_cost(x, k) for x from here to dest)  #! kept
      let b = path(if x.owner == me then 1 else 2 for x from here to dest)  # owner changes below
      let c = path(muddy(x) for x from here to dest)  # mud changes in a procedure a phase asks the value of
      let d = path(if x.seen then 1 else 2 for x from here to dest)  # reset each turn
      let e = path(step_cost(x, Kind.HORSE) for x from here to dest within slow)  #! kept
      let f = path(if turn > 3 then x.terrain.cost else 1 for x from here to dest)  #! kept
      let h = path(if x == dest then 1 else x.terrain.cost for x from here to dest)  #! kept
      let i = path(count(y for y in players where y.at == x) + 1 for x from here to dest)  # players come and go
      let j = path(if me.purse > money(5) and x != here then 1 else 2 for x from here to dest)  # engine: costs
      me.steps = size(a) + size(b) + size(c) + size(d) + size(e) + size(f) + size(h) + size(i) + size(j)
      dest.owner = me
    }
  }
}
phase moves: run go
phase rain {
  for each s in Sector where s.terrain == Terrain.hills {
    let wet = soak(s)
    if wet > 3 { news "{s} is a marsh" }
  }
}
phase build at start {
  for each o in Sector where column(o) == 0 and row(o) == 0 {
    for each t in Sector where column(t) == 4 and row(t) == 0 {
      flatten(o)
      world.before = size(path(x.terrain.cost for x from o to t))
      for each s in Sector where column(s) == 2 { s.terrain = Terrain.sea }
      world.after = size(path(x.terrain.cost for x from o to t))
    }
  }
}
define far(a: Sector, b: Sector) -> list of Sector = path(x.terrain.cost for x from a to b)
define near(a: Sector, b: Sector, r: int) -> list of Sector = path(x.terrain.cost for x from a to b within r)
define straight(a: Sector, b: Sector) -> list of Sector = path(1 for x from a to b)
report { template "t.report.j2" }
'''


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    folder = tmp_path_factory.mktemp("routes")
    return load_text(folder, RULES, "{{ game.turn }}\n", "t", folder / "cache")


def test_a_path_keeps_its_prices_when_its_cost_reads_nothing_that_changes_after_the_start(tmp_path: Path) -> None:
    checked = check_path(write_ruleset(tmp_path, RULES, "{{ game.turn }}\n"))
    assert checked.ok and checked.program is not None, show(checked.diagnostics)
    program = checked.program
    lines = RULES.splitlines()
    kept = {i for i, text in enumerate(lines, 1) if "#! kept" in text}
    priced: dict[int, tuple[int, tuple[ir.Expr, ...]]] = {}
    for decl in program.nodes():
        for e in ir.walk(decl):
            if isinstance(e, ir.Route) and e in program.priced:
                priced[e.line] = program.priced[e]
    order_lines = {i for i in priced if "let " in lines[i - 1]}
    assert order_lines == kept
    # The values fixed for the call are the key: the kind, nothing, `turn`.
    keys = {i: [getattr(k, "name", None) for k in priced[i][1]] for i in kept}
    assert sorted(keys.values()) == [[], ["dest"], ["k"], ["turn"]]
    # The terrain changes at start only (a phase at start, a procedure only it calls): its paths keep prices,
    # and the same COST written twice shares them.
    far = next(i for i, text in enumerate(lines, 1) if text.startswith("define far"))
    near = next(i for i, text in enumerate(lines, 1) if text.startswith("define near"))
    assert priced[far][0] == priced[near][0]
    assert priced[far][1] == ()
    # A literal price is the straight way, meant: kept, and not warned of as a COST without `x` (W0211).
    straight = next(i for i, text in enumerate(lines, 1) if text.startswith("define straight"))
    assert priced[straight][1] == ()
    assert not [d for d in checked.diagnostics if d.code == "W0211"], show(checked.diagnostics)


def _cost(g: Game, route: list[int]) -> int:
    return sum(g.sectors[x].terrain.cost for x in route)  # type: ignore[attr-defined]


def _game(loaded: Loaded, terrain: str) -> Game:
    return loaded.new_game(Sector={"terrain": terrain})


MAP = "........\n.^^.~...\n.^..~...\n....~...\n....~...\n....~~~.\n"


def test_a_phase_at_start_sees_the_map_it_changes_and_the_turns_see_the_map_it_left(loaded: Loaded) -> None:
    g = _game(loaded, MAP)
    assert (g.world.before, g.world.after) == (4, 0)  # type: ignore[attr-defined]
    s = g.sectors
    assert loaded.module.fn_far(g, s[0], s[4]) == []  # the wall down column 2 that the phase built
    assert loaded.module.fn_far(g, s[0], s[1]) == [s[1]]
    assert g.routes is not None and g.routes.kept  # kept for the turn, after the phases at start


def test_kept_prices_give_the_routes_prices_asked_afresh_give(loaded: Loaded) -> None:
    g = _game(loaded, MAP)
    s = g.sectors
    fresh = _game(loaded, MAP)
    for a in range(0, 48, 5):
        for b in range(0, 48, 3):
            want = [x._ord for x in loaded.module.fn_far(fresh, fresh.sectors[a], fresh.sectors[b])]
            fresh.routes = None  # nothing kept: every search on its own
            assert [x._ord for x in loaded.module.fn_far(g, s[a], s[b])] == want
            for r in (1, 3, 6):
                bounded = [x._ord for x in loaded.module.fn_near(g, s[a], s[b], r)]
                assert all(g.grid.distance(a, x) <= r for x in bounded)
                if all(g.grid.distance(a, x) <= r for x in want):  # the cheapest route is in the window
                    assert _cost(g, bounded) == _cost(g, want) and (bounded == []) == (want == [])
            assert loaded.module.fn_near(g, s[a], s[b], -1) == []
    # A route is a new list each time: a rule that changes it changes no kept route.
    route = loaded.module.fn_far(g, s[0], s[1])
    route.append(s[7])
    assert loaded.module.fn_far(g, s[0], s[1]) == [s[1]]


def test_a_price_that_stops_the_turn_stops_it_only_when_a_search_enters_its_sector(loaded: Loaded) -> None:
    # Lava (-1) behind the sea, east of column 4: a search that finds no route prices the whole map to cut it
    # into parts, and the lava's price must not stop the turn then.
    lava = "....~...\n.^^.~~~~\n.^..~.*.\n....~...\n....~...\n....~~~~\n"
    g = _game(loaded, lava)
    s = g.sectors
    for x in s:
        if x._ord % 8 == 2:  # the start phase's wall down column 2 taken down
            x.terrain = g.index["Terrain"]["open"]  # type: ignore[attr-defined]
    g.routes = None
    assert loaded.module.fn_far(g, s[0], s[47]) == []  # walled off: explored, then the map is priced
    assert g.routes.kept and next(iter(g.routes.kept.values())).parts is not None
    assert loaded.module.fn_far(g, s[0], s[8 * 5 + 3]) != []
    with pytest.raises(IndexError, match="a cost is 0 or more"):
        loaded.module.fn_far(g, s[2 * 8 + 5], s[2 * 8 + 7])  # beside the lava: its price is asked first


def test_every_kind_of_statement_is_known_to_change_fields_or_not() -> None:
    # A statement kind added to the language and to neither list could change a field a kept price reads.
    kinds = {c for c in vars(ir).values() if isinstance(c, type) and issubclass(c, ir.Stmt) and c is not ir.Stmt}
    assert kinds == set(routes.WRITES) | set(routes.WRITES_NO_FIELD)
    assert not set(routes.WRITES) & set(routes.WRITES_NO_FIELD)
