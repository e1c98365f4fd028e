"""WCG's five-year game, its first year in the suite: the 1960 world's eight players through 25 turns with every
order maker of tests/unit/wcg_orders/ (benchmarks/wcg_long.py plays all five years in .ci/run) -> the game's turns,
kinds and dates, the makers' lines carried out or refused as they expected, and the script's events."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
TURNS = 25
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("wcg_long", ROOT / "benchmarks" / "wcg_long.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


@pytest.fixture(scope="module")
def year(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, Path, list[dict[str, dict[str, str]]]]:
    bench = _bench()
    os.environ["RULESDSL_PROGRESS"] = "none"
    game, bad = bench.play(tmp_path_factory.mktemp("wcg-long"), TURNS, bench.WORLD_1960)
    return bench, game, bad


def _reports(game: Path, turn: int) -> dict[str, dict[str, Any]]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8"))
            for p in sorted((game / "turns" / f"turn-{turn:03d}" / "reports").glob("*.json"))}


def test_the_year_runs_every_turn_for_eight_players(year: tuple[ModuleType, Path, Any]) -> None:
    _, game, bad = year
    assert len(bad) == TURNS
    # January's budget turn, then each month's action and reaction turns: 1 + 12 x 2 = 25.
    dates = ["January 1960, budget"] + [f"{m} 1960, {k}" for m in MONTHS for k in ("action", "reaction")]
    for turn, date in enumerate(dates, start=1):
        reports = _reports(game, turn)
        assert len(reports) == 8
        for r in reports.values():
            assert r["game"]["turn"] == turn
            assert r["game"]["date"] == date
            assert r["kind"] == date.rsplit(" ", 1)[1]
            assert r["orders"]["notices"] == []
    assert [r["country"] for r in _reports(game, TURNS).values()] == [
        "United States", "Soviet Union", "United Kingdom", "France", "China", "India", "Brazil", "Egypt"]


def test_the_makers_lines_are_carried_out_or_refused_as_they_expect(year: tuple[ModuleType, Path, Any]) -> None:
    bench, game, bad = year
    done, faults, events = bench.check(game, bad)
    assert faults == []
    # Lines written to be refused were written (check() found each refused with its reason).
    assert sum(len(lines) for turn in bad for lines in turn.values()) >= 10
    assert {"plan", "commit", "invade", "hide", "sneak", "defend", "merge", "draft_stop", "vote", "move",
            "retreat", "invest", "budget_save", "fund", "build", "spy"} <= done
    assert events == set(bench.EVENTS)


def test_the_script_conquers_turkey_and_iran_and_asks_to_merge_them(year: tuple[ModuleType, Path, Any]) -> None:
    _, game, _ = year
    bob = _reports(game, 8)["2-bob"]
    assert bob["ruled"] == ["Soviet Union", "Turkey", "Iran"]
    assert {"MERGE TUR,IRN": "done"}.items() <= {u["text"]: u["status"] for u in bob["orders"]["used"]}.items()
    # The occupiers went in in April's reaction turn (R42), so no garrison reformed all year.
    news = "\n".join(n for t in range(1, TURNS + 1) for n in next(iter(_reports(game, t).values()))["news"])
    assert "reforms" not in news
    # The conquering infantry entered Turkey with the conquest (after_battle), more than its 27.47 million people
    # need (28).
    held = [int(r.split()[1]) for r in _reports(game, 9)["2-bob"]["forces"]
            if r.startswith("Turkey: ") and r.endswith(" infantry")]
    assert sum(held) >= 28
