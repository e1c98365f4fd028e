"""World generation and flood fills in the language -> generated worlds and fills, checked against their promises.

The generator is docs/language.md's own example ("Generating a world"), read from the docs, so the docs
show what runs: a phase `at start` that `rulesdsl new` runs once, making the world of turn 0.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from rulesdsl.game.folder import GameError, GameFolder
from rulesdsl.runtime import sectors as rs
from rulesdsl.runtime import worldgen
from rulesdsl.runtime.grid import Grid
from tests.unit.rulestools import BASE, ROOT, check_text, load_text, show

PLAYERS = "".join(f"  - {{name: P{i}, account: p{i}, code: C{i}}}\n" for i in range(4))


def _generator() -> str:
    """The `whole` example of docs/language.md that generates a world."""
    text = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    blocks = re.findall(r"<!-- example: whole -->\n```\n(.*?)```\n", text, re.S)
    [found] = [b for b in blocks if "continents(" in b]
    return str(found)


def _play(tmp_path: Path, name: str, seed: int, rules: str | None = None, scenario: str = "") -> GameFolder:
    """A game of the generator made with `seed`, as `rulesdsl new` makes it."""
    src = tmp_path / f"{name}-src"
    src.mkdir()
    (src / "continents.rules").write_text(rules or _generator(), encoding="utf-8")
    (src / "continents.report.j2").write_text("{{ player.name }}: {{ home }} {{ land }} {{ apart }}\n",
                                              encoding="utf-8")
    (src / "scenario.yaml").write_text(f"seed: {seed}\nplayers:\n{PLAYERS}{scenario}", encoding="utf-8")
    return GameFolder.create(src / "continents.rules", tmp_path / name, src / "scenario.yaml", None)


def _state(folder: GameFolder) -> str:
    return (folder.turns_dir / "turn-000" / "state.yaml").read_text(encoding="utf-8")


def _terrain(state: str) -> str:
    return state[state.index("\nSector:"):state.index("  owner:")]


def test_the_same_seed_makes_the_same_world_byte_for_byte_and_another_seed_another(tmp_path: Path) -> None:
    a, b, c = _play(tmp_path, "a", 5), _play(tmp_path, "b", 5), _play(tmp_path, "c", 6)
    assert _state(a) == _state(b)
    assert (a.turns_dir / "turn-000" / "reports" / "p0-p0.txt").read_bytes() == \
        (b.turns_dir / "turn-000" / "reports" / "p0-p0.txt").read_bytes()
    assert _terrain(_state(a)) != _terrain(_state(c))


def test_the_generated_world_keeps_the_promises_of_the_docs(tmp_path: Path) -> None:
    g = _play(tmp_path, "w", 9).load_game()
    grid = g.grid
    assert grid is not None and (grid.width, grid.height) == (40, 20)
    sea = g.index["Terrain"]["sea"]
    land = [s for s in g.sectors if s.terrain is not sea]  # type: ignore[attr-defined]
    # 35% of the 16 rows away from the poles, exactly; the two rows at each pole are sea.
    assert len(land) == (35 * 16 * 40 * 2 + 100) // 200
    assert all(s._ord // 40 in range(2, 18) for s in land)
    assert g.world.continents == len(worldgen.regions(grid, [s._ord for s in land]))  # type: ignore[attr-defined]
    kinds = {t: sum(1 for s in land if s.terrain._key == t) for t in ("open", "forest", "hills")}  # type: ignore[attr-defined]
    assert kinds["hills"] == len(land) // 10 and kinds["forest"] == len(land) // 5
    homes = [p.home for p in g.all_players]  # type: ignore[attr-defined]
    assert None not in homes and len({h._ord for h in homes}) == 4
    apart = min(grid.distance(a._ord, b._ord) for i, a in enumerate(homes) for b in homes[i + 1:])
    assert apart >= 8
    assert g.world.home_spacing == apart  # type: ignore[attr-defined]
    for p in g.all_players:
        owned = [s for s in g.sectors if s.owner is p]  # type: ignore[attr-defined]
        assert p.home in owned  # type: ignore[attr-defined]
        assert all(s.terrain is not sea and grid.distance(s._ord, p.home._ord) <= 2 for s in owned)  # type: ignore[attr-defined]
    ports = [s._ord for s in g.sectors if s.city and s not in homes]  # type: ignore[attr-defined]
    assert len(ports) == 5 and set(ports) <= set(worldgen.coast(grid, [s._ord for s in land]))
    assert all(grid.distance(p, h._ord) >= 4 for p in ports for h in homes)


def test_a_draw_from_another_stream_changes_nothing_in_the_world(tmp_path: Path) -> None:
    rules = _generator()
    first = "  let land = continents("
    assert first in rules
    more = rules.replace(first, '  let omen = roll(6, "omens")\n  world.home_spacing = omen\n' + first, 1)
    assert _terrain(_state(_play(tmp_path, "a", 3))) == _terrain(_state(_play(tmp_path, "b", 3, more)))


def test_a_percent_worked_out_while_the_game_runs_outside_0_to_100_makes_no_game(tmp_path: Path) -> None:
    with pytest.raises(GameError) as err:
        _play(tmp_path, "bad", 3, scenario="parameters: {land_percent: 130}\n")
    assert "continents: the percent is 130; it must be from 0 to 100" in str(err.value)
    assert "continents.rules:" in str(err.value)
    assert not (tmp_path / "bad").exists()


def test_a_scenario_can_turn_the_generator_off_and_draw_its_own_map(tmp_path: Path) -> None:
    rows = "".join("    " + ("~" * 40 if r in (0, 19) else "~" + "." * 38 + "~") + "\n" for r in range(20))
    g = _play(tmp_path, "own", 3, scenario=f"parameters: {{generate_world: false}}\nSector:\n  terrain: |\n{rows}")
    state = _state(g)
    assert _terrain(state) == "\nSector:\n  terrain: |\n" + rows
    assert state.count("  home: null\n") == 4


# ---------------------------------------------------------------- reachable, in the runtime

MAP = [
    "..~...",
    ".~~.~.",
    "~~..~~",
    "......",
    "~~~~~.",
]


def _game(wrap: bool = False) -> Any:
    grid = Grid(6, 5, wrap_x=wrap)
    sectors = [SimpleNamespace(_ord=i, _key=f"{i % 6}{i // 6}", land=MAP[i // 6][i % 6] == ".")
               for i in range(30)]
    return SimpleNamespace(grid=grid, sectors=sectors)


def _ords(found: list[Any]) -> list[int]:
    return [s._ord for s in found]


def test_reach_takes_every_sector_joined_through_neighbours_for_which_the_condition_holds() -> None:
    g = _game()
    asked: list[int] = []

    def land(s: Any) -> bool:
        asked.append(s._ord)
        return bool(s.land)

    got = rs.reach(g, [g.sectors[0]], land)
    assert _ords(got) == [0, 1, 6]  # sea to the east and south, and no wrap
    assert sorted(asked) == sorted(set(asked))  # each sector asked once
    assert set(asked) == {0, 1, 6, 2, 7, 12, 13, 8}  # the ones reached and the ones around them, nothing more
    # Diagonals join: 9 -> 14 -> 15, 20 ..., and the result is in map order whatever the seeds' order.
    joined = rs.reach(g, [g.sectors[29], g.sectors[9]], land)
    assert _ords(joined) == sorted(_ords(joined))
    assert {3, 9, 14, 15, 18, 23, 29} <= set(_ords(joined))
    assert 0 not in _ords(joined)


def test_a_seed_the_condition_fails_for_reaches_nothing_and_a_wrap_joins_the_edges() -> None:
    g = _game()
    assert rs.reach(g, [g.sectors[2]], lambda s: s.land) == []
    assert _ords(rs.reach(g, [g.sectors[2], g.sectors[0]], lambda s: s.land)) == [0, 1, 6]
    wrapped = _game(wrap=True)
    # Sector 5 (east edge, row 0) is land and touches 0 across the wrap.
    assert {0, 1, 6, 5} <= set(_ords(rs.reach(wrapped, [wrapped.sectors[0]], lambda s: s.land)))


def test_reach_via_follows_the_step_given_over_any_items_in_declaration_order() -> None:
    items = [SimpleNamespace(_ord=i, ok=i != 3, nxt=[]) for i in range(6)]
    for a, b in ((0, 4), (4, 2), (2, 3), (3, 5), (1, 0)):
        items[a].nxt.append(items[b])
        items[b].nxt.append(items[a])
    got = rs.reach_via([items[4]], lambda x: x.ok, lambda x: x.nxt)
    assert _ords(got) == [0, 1, 2, 4]  # 3 fails, so 5 (only behind it) is not reached


FILL = '''ruleset "Fill" { version "1" }
orders {
  header "{account}", "{code}"
}
thing Country keyed by code {
  free: bool = true
  adjacent: set of Country
}
data Country(code, free) {
  ARG: true
  BRA: true
  PER: false
  CHL: true
  BOL: true
}
links Country.adjacent {
  ARG: BRA, CHL
  CHL: PER
  PER: BOL
}
world {
  joined: list of Country
  from_two: list of Country
}
phase fill {
  world.joined = reachable(c for c from Country.ARG via c.adjacent where c.free)
  world.from_two = reachable(c for c from [Country.BOL, Country.BRA] via c.adjacent where c.free)
}
report {
  joined = size(world.joined)
  template "t.report.j2"
}
'''


def test_reachable_via_a_set_field_goes_over_things_in_declaration_order(tmp_path: Path) -> None:
    loaded = load_text(tmp_path, FILL, "{{ joined }}\n", "t", tmp_path / "cache")
    g = loaded.new_game()
    g.process_turn([])
    assert [c._key for c in g.world.joined] == ["ARG", "BRA", "CHL"]  # type: ignore[attr-defined]
    assert [c._key for c in g.world.from_two] == ["ARG", "BRA", "CHL", "BOL"]  # type: ignore[attr-defined]


# ---------------------------------------------------------------- the library calls the language adds


@pytest.mark.parametrize("wrap", [False, True])
def test_away_from_keeps_exactly_the_candidates_far_enough_from_every_sector_to_avoid(wrap: bool) -> None:
    grid = Grid(23, 11, wrap_x=wrap, wrap_y=wrap)
    rng = random.Random(4)
    cands = rng.sample(range(grid.size), 120)
    avoid = rng.sample(range(grid.size), 9)
    for d in (0, 1, 2, 4, 30):
        want = sorted(c for c in set(cands) if all(grid.distance(c, a) >= d for a in avoid))
        assert worldgen.away_from(grid, cands, avoid, d) == want


def test_patch_counts_and_range_count_place_exactly_the_number_asked_for() -> None:
    grid = Grid(40, 20)
    rng = random.Random(2)
    area = list(range(100, 700))
    [got] = worldgen.patch_counts(grid, rng, area, [137], [9])
    assert len(got) == 137 and set(got) <= set(area) and got == sorted(got)
    chains = worldgen.range_count(grid, rng, area, 61, 7)
    assert len(chains) == 61 and set(chains) <= set(area)
    with pytest.raises(ValueError):
        worldgen.patch_counts(grid, rng, area, [400, 300], [5, 5])
    with pytest.raises(ValueError):
        worldgen.range_count(grid, rng, area, 601, 5)
    # The percent forms are the count forms: the same draws give the same sectors.
    by_share = worldgen.patches(grid, random.Random(8), area, [20, 10], [6, 12])
    by_count = worldgen.patch_counts(grid, random.Random(8), area, [120, 60], [6, 12])
    assert by_share == by_count


# ---------------------------------------------------------------- the checker


GRID = '''thing Ter keyed by code {
  symbol: text
}
data Ter(code, symbol) { L: "."  S: "~" }
grid Sec {
  size 4 by 3
  numbered "CR"
  draw t with symbol
  t: Ter = Ter.S
}
'''


@pytest.mark.parametrize(("text", "code", "words"), [
    ('define land() -> int = size(continents(Sec, 30, 2, "w"))\nphase q { let v = land() }\n', "E0324",
     "`continents` draws at random and cannot be used in a function"),
    ('phase q {\n  let name = "w"\n  let v = patches(Sec, 3, 2, "w{name}")\n}\n', "E0325", "plain text"),
    ('phase q { let v = spread(Sec, 3, 2) }\n', "E0325", "called as `spread(CANDIDATES, N, SPACING, \"stream\")`"),
    ('phase q { let v = scatter([1, 2], 3, 2, "w") }\n', "E0301", "should be a list of Sec"),
    ('phase q { let v = ranges(Sec, -1, 2, "w") }\n', "E0354", "a number of sectors, 0 or more"),
    ('phase q { let v = patches(Sec, 4, 0, "w") }\n', "E0354", "a count or a size, 1 or more"),
])
def test_world_generation_calls_are_checked_like_chance_and_like_grid_functions(
        tmp_path: Path, text: str, code: str, words: str) -> None:
    got = check_text(tmp_path, BASE + GRID + text).diagnostics
    hits = [d for d in got if d.code == code]
    assert hits and any(words in d.message + " " + (d.help or "") for d in hits), show(got)


def test_world_generation_calls_type_their_results(tmp_path: Path) -> None:
    text = BASE + GRID + ('phase q {\n  let land = continents(band(0, 2), 50, 1, "w")\n'
                          '  let groups = regions(land)\n  let far = least_distance(away_from(Sec, coast(land), 1))\n'
                          '  for each s in reachable(x for x from land where x.t == Ter.L) {\n    s.t = Ter.S\n  }\n'
                          '  let four = reachable(x for x from land via [y for y in neighbours(x) where '
                          'direction(x, y) % 2 == 1] where x.t == Ter.L)\n'
                          '  for each s in four {\n    s.t = Ter.L\n  }\n'
                          '  for each g in groups {\n    for each s in g {\n      s.t = Ter.L\n    }\n  }\n'
                          '  for each b in Box {\n    b.stones = far + size(groups)\n  }\n}\n')
    checked = check_text(tmp_path, text)
    assert checked.ok and not checked.diagnostics, show(checked.diagnostics)


def test_rulesdsl_new_writes_the_same_world_in_processes_with_different_hash_seeds(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "continents.rules").write_text(_generator(), encoding="utf-8")
    (src / "continents.report.j2").write_text("{{ home }} {{ land }} {{ apart }}\n", encoding="utf-8")
    (src / "scenario.yaml").write_text(f"seed: 12\nplayers:\n{PLAYERS}", encoding="utf-8")
    states = []
    for hash_seed in ("1", "977"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "RULESDSL_CACHE": str(tmp_path / f"cache-{hash_seed}")}
        game = tmp_path / f"game-{hash_seed}"
        subprocess.run([sys.executable, "-m", "rulesdsl", "new", str(src / "continents.rules"), str(game),
                        "--scenario", str(src / "scenario.yaml")], check=True, env=env, cwd=ROOT,
                       stdout=subprocess.DEVNULL)
        states.append((game / "turns" / "turn-000" / "state.yaml").read_bytes())
    assert states[0] == states[1]
    assert b"home: null" not in states[0]


DIAGONAL = '''ruleset "Diagonal" { version "1" }
orders {
  header "{account}", "{code}"
}
thing Ter keyed by code {
  symbol: text
}
data Ter(code, symbol) { L: "."  S: "~" }
grid Sec {
  size 3 by 3
  numbered "CR"
  draw t with symbol
  t: Ter = Ter.S
}
world {
  eight: list of Sec
  four: list of Sec
}
phase fill at start {
  let corner = sector_at(0, 0)
  if corner != none {
    world.eight = reachable(x for x from corner where x.t == Ter.L)
    world.four = reachable(x for x from corner via [y for y in neighbours(x) where direction(x, y) % 2 == 1]
                           where x.t == Ter.L)
  }
}
report {
  n = size(world.four)
  template "t.report.j2"
}
'''


def test_reachable_goes_diagonally_on_the_map_and_via_says_otherwise(tmp_path: Path) -> None:
    loaded = load_text(tmp_path, DIAGONAL, "{{ n }}\n", "t", tmp_path / "cache")
    g = loaded.new_game(Sec={"t": ".~.\n~..\n~~~\n"})
    assert [s._key for s in g.world.eight] == ["00", "20", "11", "21"]  # type: ignore[attr-defined]
    assert [s._key for s in g.world.four] == ["00"]  # type: ignore[attr-defined]
