"""Warlord at full size: `rulesdsl new` of a generated 320 x 99 world with 100 players, then three turns of
scripted orders from every player, each through `rulesdsl turn` as a GM runs them -> the reports, the news
and the states, checked for what a real game would show when something is wrong.

Each player's orders are written from its own report of the turn before (its forces and cities), as a player
writes them: A, M, C, S, L, N and D, to units and to locations, and some lines that must be refused or fail,
each with the reason the rules give. A reason no rule gives (an engine's fault, a loop cut short) fails the
test. The first turn is played twice from two `rulesdsl new` of the same scenario: every file must be the same
byte for byte."""

from __future__ import annotations

import hashlib
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from rulesdsl.cli import main
from rulesdsl.game.folder import GameFolder

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rulesets" / "warlord.rules"
PLAYERS = 100
TURNS = 3
WIDTH, HEIGHT = 320, 99
UNIT_KINDS = ("Infantry", "Engineers", "Tanks", "Trucks", "Artillery")

# Every reason a line may be refused or fail with in this script: the rules' own words. Anything else (a
# Python error's text, "a loop ran too long", a reason the script did not expect) is a fault to look at.
EXPECTED_REASONS = (
    r"you have no division \d+",
    r"division \d+ no longer exists: it was removed earlier this turn",  # linked away by an L before it
    r"division \d+ is at \d{5} already",
    # an A order to a sector no route reaches fails, saying why (its terrain, or the terrain in the way)
    r"no route from \d{5} to \d{5}: [A-Za-z ]+ cannot enter [a-z]+",
    r"no route from \d{5} to \d{5}: every way there crosses terrain [A-Za-z ]+ cannot enter( \([a-z, ]+\))?",
    r"there is no sector 99999: the map is 320 columns by 99 rows",
    r"route must be digits from 0 to 8, written together, not \"0019x\"",
    r"there is already an order for unit \d+ this turn: line \d+ \"[AM] \d+ \d+\"",
    r"ships and aircraft come with the next part of the rules",
    r"you cannot declare an alliance with yourself",
    r"a name has 1 to 12 characters",
    r"city \d+ is not yours",
    r"not an order of this game",
)

# Lines written to be refused or to fail, a few in each mail -> what the reason must say.
BAD = {
    "A 99 {heading}": "you have no division 99",
    "M 1 0019x": "0019x",
    "A 1 99999": "there is no sector 99999",
    "C {city} 12": "ships and aircraft",
    "D {me}": "alliance with yourself",
    "N 1 {city} ABCDEFGHIJKLMN": "1 to 12 characters",
    "Z 1": "not an order of this game",
    "C {other} 1": "is not yours",
}


def _sector(col: int, row: int) -> str:
    return f"{col % WIDTH:03d}{min(max(row, 1), HEIGHT - 2):02d}"


def _orders(report: dict[str, Any], turn: int, rng: random.Random,
            others: list[int]) -> tuple[list[str], dict[str, str]]:
    """A player's mail for `turn` from its report of the turn before -> its order lines, and the lines among
    them written to be refused or to fail, each with what its reason must say."""
    me = report["player"]["account"]
    cities = [c["number"] for c in report["cities"]]
    # The forces list holds the player's cities too (no kind of unit as their name).
    units = [f for f in report["forces"] if f["name"] in UNIT_KINDS]
    lines: list[str] = []
    bad: dict[str, str] = {}
    ordered: set[int] = set()
    city = cities[0] if cities else 1
    if turn == 1:
        lines += [f"C {city} 1", f"C {city} 3", f"N 1 {city} HOME {me}"]
        lines.append(f"D {others[0]}")
    if turn == 2 and rng.random() < 0.3:
        lines.append(f"D {others[0]}")  # cancels the alliance of turn 1
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for f in units:
        by_kind.setdefault(f["name"], []).append(f)
    infantry = by_kind.get("Infantry", [])
    if infantry and infantry[0]["size"] > 4:
        lines.append(f"S {infantry[0]['number']} 3")
    if len(infantry) >= 2 and infantry[0]["sector"] == infantry[1]["sector"] \
            and infantry[0]["size"] + infantry[1]["size"] <= 45 and rng.random() < 0.5:
        lines.append(f"L {infantry[0]['number']} {infantry[1]['number']}")
    for f in units:
        n = f["number"]
        col, row = int(f["sector"][:3]), int(f["sector"][3:])
        pick = rng.random()
        if pick < 0.35:
            lines.append(f"A {n} {rng.randint(1, 8)}")
        elif pick < 0.6:
            lines.append(f"M {n} {''.join(str(rng.randint(0, 8)) for _ in range(rng.randint(1, 6)))}")
        elif pick < 0.85:
            lines.append(f"A {n} {_sector(col + rng.randint(-6, 6), row + rng.randint(-4, 4))}")
        else:
            continue
        ordered.add(n)
    if units and rng.random() < 0.5:
        lines.append(f"A {units[0]['sector']} {rng.randint(1, 8)}")  # the units there without an order
    # Lines that must not be taken, a few for each player.
    for template in rng.sample(sorted(BAD), 3):
        line = template.format(city=city, me=me, other=others[1], heading=rng.randint(1, 8))
        lines.append(line)
        bad[line] = BAD[template]
    if ordered:
        n = min(ordered)
        line = f"M {n} 1"
        lines.append(line)  # a second order to a unit
        bad[line] = f"already an order for unit {n}"
    return lines, bad


def _play(tmp: Path, name: str, turns: int,
          capsys: pytest.CaptureFixture[str]) -> tuple[Path, list[dict[str, dict[str, str]]]]:
    """A game played from `rulesdsl new` through `turns` turns -> its folder, and for each turn each player's
    lines written to be refused or to fail (by account), each with what its reason must say."""
    scenario = tmp / "scenario.yaml"
    players = [{"name": f"Player {i}", "account": str(i), "code": f"C{i}"} for i in range(1, PLAYERS + 1)]
    scenario.write_text(yaml.safe_dump({"game": {"number": 1}, "seed": 7, "players": players}), encoding="utf-8")
    game = tmp / name
    assert main(["new", str(RULES), str(game), "--scenario", str(scenario)]) == 0
    out = capsys.readouterr()
    assert out.err == ""
    assert f"{PLAYERS} starting report(s)" in out.out
    seen: list[dict[str, dict[str, str]]] = []
    for turn in range(1, turns + 1):
        before = game / "turns" / f"turn-{turn - 1:03d}" / "reports"
        rng = random.Random(f"orders {turn}")
        # The same file names in every game played: the turn folder keeps each file under its name.
        post = tmp / f"mail-{name}" / f"turn-{turn}"
        post.mkdir(parents=True)
        mail = []
        bad_lines: dict[str, dict[str, str]] = {}
        for i in range(1, PLAYERS + 1):
            report = json.loads((before / f"{i}-player-{i}.json").read_text(encoding="utf-8"))
            others = [i % PLAYERS + 1, (i + 1) % PLAYERS + 1]
            lines, bad = _orders(report, turn, rng, others)
            bad_lines[str(i)] = bad
            path = post / f"{i}.txt"
            path.write_text("\n".join(["WL-1", f"{i} C{i}", *lines]) + "\n", encoding="utf-8")
            mail.append(path)
        assert main(["turn", str(game), *map(str, mail)]) == 0
        out = capsys.readouterr()
        assert out.err == "", out.err
        assert f"{PLAYERS} report(s) for turn {turn}" in out.out
        seen.append(bad_lines)
    return game, seen


def _outputs(game: Path, turns: range) -> dict[str, str]:
    """Every file of the given turns' folders -> its sha256."""
    out = {}
    for turn in turns:
        folder = game / "turns" / f"turn-{turn:03d}"
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                out[str(path.relative_to(game))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def test_a_full_size_game_of_100_players(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game, bad_by_turn = _play(tmp_path, "a", TURNS, capsys)
    expected = re.compile("|".join(f"(?:{r})" for r in EXPECTED_REASONS))
    # Each turn loaded the state before it, and refuses one that does not pass its schemas (the state file's
    # and the ruleset's): the last state is loaded here the same way.
    last = GameFolder(game).load_game()
    assert last.turn == TURNS
    for turn in range(1, TURNS + 1):
        folder = game / "turns" / f"turn-{turn:03d}"
        reports = sorted(p.name for p in (folder / "reports").glob("*.txt"))
        assert len(reports) == PLAYERS, f"turn {turn}: {len(reports)} reports"
        bad = bad_by_turn[turn - 1]
        taken = unplanned = 0
        for i in range(1, PLAYERS + 1):
            report = json.loads((folder / "reports" / f"{i}-player-{i}.json").read_text(encoding="utf-8"))
            lines = {r["text"]: r["reason"] for r in report["orders"]["refused"]}
            lines |= {r["text"]: r["reason"] for r in report["orders"]["used"] if r["status"] == "failed"}
            for text, reason in lines.items():
                assert expected.fullmatch(reason), f"turn {turn}, player {i}: {text!r} refused: {reason}"
            for text, why in bad[str(i)].items():
                assert text in lines, f"turn {turn}, player {i}: {text!r} was taken"
                assert why in lines[text], f"turn {turn}, player {i}: {text!r} refused: {lines[text]}"
            # An A order to a random sector across the sea fails as the rules say (no route): judged, not
            # turned down for want of reading it.
            unplanned += sum(1 for t in set(lines) - set(bad[str(i)]) if not lines[t].startswith("no route from"))
            taken += sum(1 for r in report["orders"]["used"] if r["status"] == "done")
        # Every other line is carried out but for a few the rules turn down (a unit linked away, an A order to
        # where the unit is): a turn that refuses what it should take is as wrong as one that takes everything.
        assert taken > 20 * unplanned, (turn, taken, unplanned)
    # The same seed and mail give the same game: a second game, new and its first turn, byte for byte.
    again, _ = _play(tmp_path, "b", 1, capsys)
    assert _outputs(again, range(2)) == _outputs(game, range(2))
