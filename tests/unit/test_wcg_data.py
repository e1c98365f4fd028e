"""WCG's 1960 world and unit chart (issue 14, package W1): the ruleset's data, read from a game made of it,
checked against what the rulebook says and against the income formula."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from rulesdsl.compiler import check_path, load_module
from rulesdsl.runtime.core import RulesError
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.spec import RulesetSpec
from rulesdsl.runtime.state import StateError, new_game

from .rulestools import RULESETS, show

WORLD = RULESETS / "wcg.rules"

# Every unit the rulebook describes (rb 61-80), as its chart row names it ("Escourt" is the escort, the
# "Missle Truck" the missile truck; rb 65 and 74 write battleships and interceptors in the plural).
RULEBOOK_UNITS = [
    "AA infantry", "aircraft carrier", "armoured", "artillery", "battleship", "bomber", "cargo ship", "cruiser",
    "escort", "G.C.A.S.D.", "helicopter", "I.C.B.M.", "infantry", "interceptor", "marine", "merchant ship",
    "missile truck", "paratrooper", "spy plane", "submarine",
]
STARTING = ["USA", "RUS", "GBR", "FRA", "CHN", "IND", "BRA", "EGY"]   # w14-design.md, "The 1960 world"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, RulesetSpec]:
    checked = check_path(WORLD)
    assert checked.ok, show(checked.diagnostics)
    assert all(d.code == "W0101" for d in checked.diagnostics), show(checked.diagnostics)
    return load_module(WORLD, tmp_path_factory.mktemp("wcg-cache"))


def start(world: tuple[ModuleType, RulesetSpec], *homes: str, **scenario: Any) -> Game:
    module, spec = world
    players = [{"name": f"P{i}", "account": f"p{i}", "code": f"C{i}", "home": h} for i, h in enumerate(homes, 1)]
    g = new_game(spec, {"players": players, **scenario})
    g.module_file = str(module.__file__)
    return g


@pytest.fixture(scope="module")
def game(world: tuple[ModuleType, RulesetSpec]) -> Game:
    return start(world, "USA", "EGY")


def rows(g: Game, thing: str) -> list[Any]:
    return g.all[thing]


def one(g: Game, thing: str, key: str) -> Any:
    return g.index[thing][key]


def test_every_unit_the_rulebook_names_is_a_chart_row(game: Game) -> None:
    names = [k.name for k in rows(game, "UnitKind")]
    assert sorted(names) == sorted(RULEBOOK_UNITS)


def test_to_hit_and_hits_are_on_the_d10(game: Game) -> None:
    for k in rows(game, "UnitKind"):
        for field in ("att_hit", "att_hits", "def_hit", "def_hits", "air_hit", "air_hits"):
            assert 0 <= getattr(k, field) <= 10, (k._key, field)
        assert k.cost_in < k.cost_ag and k.upkeep_in < k.upkeep_ag, k._key   # industry builds cheaper


def test_the_chart_says_what_the_rulebook_says(game: Game) -> None:
    kinds = {k._key: k for k in rows(game, "UnitKind")}
    assert [c for c, k in kinds.items() if k.range == 3] == ["BAT"]          # rb 65
    assert max(k.range for k in kinds.values()) == 3
    bomber = kinds["BMR"]
    assert (bomber.damage, bomber.range) == (10, 2)                        # rb 66
    assert (bomber.air_hit, bomber.air_damage, bomber.air_hits) != (0, 0, 0)
    assert kinds["INT"].damage == 1                                        # rb 74
    assert kinds["SPY"].att_hit == 4                                       # rb 79
    assert kinds["SUB"].damage < 15                                        # rb 80: the sneak attack's 15
    assert kinds["MAR"].att_hit < 5 and kinds["PAR"].damage < 2            # rb 75, 78: better in the first round
    spaces = {"INF": 1, "MAR": 1, "PAR": 1, "INT": 1, "HEL": 2, "BMR": 5, "ICBM": 5, "SPY": 5,
              "AAI": 10, "ARM": 10, "ART": 10, "MTR": 10}                  # rb 61-79
    assert {c: kinds[c].spaces for c in spaces} == spaces
    assert kinds["CAR"].capacity > 0 and kinds["CAR"].troops > 0           # rb 62: aircraft, and ground troops


def test_the_gcasd_table_has_every_level_for_every_aircraft(world: tuple[ModuleType, RulesetSpec],
                                                            game: Game) -> None:
    module, _ = world
    aircraft = [k for k in rows(game, "UnitKind") if k.arm._key == "AIR"]
    assert sorted(k._key for k in aircraft) == ["BMR", "HEL", "INT", "SPY"]
    for k in aircraft:
        hits = [module.tbl_gcasd_hit(game, level, k) for level in range(1, 6)]
        assert all(0 <= h <= 10 for h in hits) and hits == sorted(hits), (k._key, hits)
    spy = [module.tbl_gcasd_hit(game, level, one(game, "UnitKind", "SPY")) for level in range(1, 6)]
    assert spy[:4] == [0, 0, 0, 0] and spy[4] > 0                           # rb 79: level 5 only


def test_exports_run_from_rice_to_gold(game: Game) -> None:
    exports = {e._key: e.value for e in rows(game, "Export")}
    assert len(exports) == 23                                              # rb 6
    assert (exports["RICE"], exports["TEXTILES"], exports["GOLD"]) == (1, 15, 30)
    assert len(set(exports.values())) == 23 and min(exports.values()) == 1 and max(exports.values()) == 30
    for c in rows(game, "Country"):
        assert c.export_level == c.export.value, c._key


def test_at_least_20_countries_and_the_eight_starting_positions(game: Game) -> None:
    countries = rows(game, "Country")
    assert len(countries) >= 20
    assert [c._key for c in countries if c.start] == STARTING


def test_figures_have_their_places(game: Game) -> None:
    for c in rows(game, "Country"):
        assert c.size > 0 and (Fraction(c.size) * 10).denominator == 1, c._key
        assert c.population > 0 and (Fraction(c.population) * 100).denominator == 1, c._key
        assert c.income > 0 and (Fraction(c.income) * 10).denominator == 1, c._key


def data_rows(thing: str) -> dict[str, list[str]]:
    """The rows of wcg.rules' `data THING(...)` block as written (the game's are after 1960's yearly steps)."""
    text = WORLD.read_text(encoding="utf-8")
    block = text[text.index(f"data {thing}("):]
    block = block[block.index("{") + 1:block.index("\n}")]
    out = {}
    for line in block.splitlines():
        m = re.match(r"\s*(\w+): (.*?)\s*(#.*)?$", line)
        if m:
            out[m.group(1)] = [v.strip() for v in re.split(r",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)", m.group(2))]
    return out


def test_each_income_is_the_income_formula() -> None:
    # population x export level x currency x income_per_point (0.1), to $0.1M, halves away from zero
    values = {k: Fraction(v[1]) for k, v in data_rows("Currency").items()}
    for key, r in data_rows("Country").items():
        value = Fraction(r[8]) if r[7] == "true" else values[r[6]]
        exact = Fraction(r[3]) * int(r[5]) * value / 10 * 10
        rounded = Fraction(int(exact + Fraction(1, 2)), 10)
        assert Fraction(r[9]) == rounded, key


def test_currencies_groups_single_and_minor(game: Game) -> None:
    holders: dict[str, list[str]] = {}
    for c in rows(game, "Country"):
        holders.setdefault(c.group._key, []).append(c._key)
    minor = [cur for cur in rows(game, "Currency") if cur.minor]
    assert [cur.value for cur in minor] == [Fraction(1, 2)]                # rb 7
    assert len([k for k, v in holders.items() if len(v) >= 2 and k != "MINOR"]) >= 2   # group currencies
    assert {"RUB", "ZAR"} <= {k for k, v in holders.items() if len(v) == 1}             # rb 36's exceptions
    values = {k: v[1] for k, v in data_rows("Currency").items()}
    for key, r in data_rows("Country").items():
        alone = len(holders[r[6]]) == 1 and r[6] != "MINOR" and key != "CAN"   # Canada: a group of one
        assert (r[7] == "true") == alone, key
        assert r[8] == (values[r[6]] if alone else "0"), key


def test_a_minor_currency_starter_creates_its_own_at_half(game: Game) -> None:
    egypt = one(game, "Country", "EGY")
    assert egypt.group.minor and egypt.unique and egypt.own_value == Fraction(1, 2)   # rb 37
    assert not one(game, "Country", "USA").unique                         # a group's member keeps the group's


def link_comments() -> dict[frozenset[str], str]:
    """The links block's lines, `A: B  # the border`, by the pair they join."""
    text = WORLD.read_text(encoding="utf-8")
    block = text[text.index("links Country.land {"):]
    block = block[:block.index("\n}")]
    found: dict[frozenset[str], str] = {}
    for line in block.splitlines()[1:]:
        m = re.fullmatch(r"\s*(\w+):\s*(\w+)\s*#\s*(.+)", line)
        assert m, f"a link without its border comment: {line!r}"
        found[frozenset((m[1], m[2]))] = m[3]
    return found


def test_every_land_link_is_symmetric_and_a_named_border(game: Game) -> None:
    comments = link_comments()
    linked: set[frozenset[str]] = set()
    for c in rows(game, "Country"):
        for d in c.land:
            assert c in d.land, (c._key, d._key)
            linked.add(frozenset((c._key, d._key)))
    assert linked == set(comments)
    names = {c._key: c.name for c in rows(game, "Country")}
    for pair, comment in comments.items():
        a, b = sorted(pair)
        assert names[a] in comment and names[b] in comment, comment    # it names the two countries
    for island in ("CUB", "GBR", "JPN", "AUS"):
        assert not one(game, "Country", island).land


def garrison_upkeep(g: Game, country: Any) -> int:
    industrial = country.export_level >= 15
    return sum(r.count * (r.kind.upkeep_in if industrial else r.kind.upkeep_ag)
               for r in rows(g, "Garrison") if r.country is country)


def test_navies_only_where_there_are_ports(game: Game) -> None:
    for r in rows(game, "Garrison"):
        if r.kind.arm._key == "SEA":
            assert r.country.ports > 0, r._key                             # rb 10
        assert r.kind._key != "GCASD", r._key                              # a level, not a unit


def test_starting_armies_are_affordable(game: Game) -> None:
    # A starting country's units are free (rb 11); were they not, a year of its army points (income x
    # population, rb 27) would keep them: the incomes are of the armies' scale.
    for key in STARTING:
        c = one(game, "Country", key)
        upkeep = garrison_upkeep(game, c)
        assert 0 < upkeep <= Fraction(c.income) * Fraction(c.population), (key, upkeep)


def test_larger_countries_have_larger_starting_armies(game: Game) -> None:
    infantry = {r.country._key: r.count for r in rows(game, "Garrison") if r.kind._key == "INF"}
    by_size = sorted(rows(game, "Country"), key=lambda c: (c.size, c.population))
    counts = [infantry[c._key] for c in by_size]
    assert counts[-1] == max(counts) and counts[0] == min(counts)          # rb 4


def test_the_game_is_made_with_the_starting_units(game: Game) -> None:
    forces = game.units["Force"].live()
    players = {p.account: p for p in game.all_players}
    usa = [f for f in forces if f.owner is players["p1"]]
    assert {f.kind._key: f.count for f in usa}["CAR"] == 6
    assert all(f.free and f.country._key == "USA" for f in usa)
    neutral = [f for f in forces if f.owner is None]
    assert neutral and not any(f.free for f in neutral)
    assert sum(f.count for f in forces) == sum(r.count for r in rows(game, "Garrison"))


def test_a_navy_without_a_port_stops_the_new_game(world: tuple[ModuleType, RulesetSpec]) -> None:
    with pytest.raises(RulesError, match=r"garrison EGY_CGO: Egypt has no port"):
        start(world, "USA", "EGY", Country={"EGY": {"ports": 0}})


def test_a_gcasd_garrison_row_stops_the_new_game(world: tuple[ModuleType, RulesetSpec]) -> None:
    with pytest.raises(RulesError, match=r"garrison CUB_INF: the G.C.A.S.D. is a level of the country"):
        start(world, "USA", "EGY", Garrison={"CUB_INF": {"kind": "GCASD"}})


def test_golden_no_port_navy_is_refused_by_rulesdsl_new(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from rulesdsl.cli import main
    from tests.golden.harness import GOLDEN

    scenario = GOLDEN / "wcg" / "no-port-navy" / "refused.yaml"
    code = main(["new", str(WORLD), str(tmp_path / "game"), "--scenario", str(scenario)])
    err = capsys.readouterr().err
    assert code == 2 and not (tmp_path / "game").exists()
    assert "error: the game was not made:" in err
    assert "halted: garrison CUB_CGO: Cuba has no port and cannot have a navy (rb 10)" in err


def test_a_home_that_is_not_a_starting_position_stops_the_new_game(world: tuple[ModuleType, RulesetSpec]) -> None:
    with pytest.raises(RulesError, match=r"P2's home Cuba is not a starting position"):
        start(world, "USA", "CUB")


def test_a_home_that_is_no_country_is_a_scenario_refusal(world: tuple[ModuleType, RulesetSpec]) -> None:
    with pytest.raises(StateError):
        start(world, "USA", "XXX")  # no country has the code XXX


def test_rulesdsl_new_makes_a_two_player_game(tmp_path: Path) -> None:
    from rulesdsl.game.folder import GameFolder

    scenario = tmp_path / "scenario.yaml"
    scenario.write_text("players:\n  - {name: Ann, account: ann, code: A, home: GBR}\n"
                        "  - {name: Bob, account: bob, code: B, home: CHN}\n", encoding="utf-8")
    folder = GameFolder.create(WORLD, tmp_path / "game", scenario, None)
    homes: list[Any] = [p.home for p in folder.load_game().all_players]  # type: ignore[attr-defined]
    assert [h._key for h in homes] == ["GBR", "CHN"]
