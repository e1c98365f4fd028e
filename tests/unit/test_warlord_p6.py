"""Warlord's messages, coalitions and drop-outs (issue 13, P6): golden scenarios played with a parameter moved
-> what the designer's notes promise beyond the snapshots: coalitions said nothing of before coalition_turn,
messages wrapped within the report's 70 columns, a dropped player's cities safe for rebel_delay turns."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from tests.golden.harness import GOLDEN, Scenario, play


def _moved(tmp: Path, name: str, **params: int) -> Scenario:
    """A copy of the golden scenario `name` with some parameters changed."""
    folder = tmp / name
    shutil.copytree(GOLDEN / "warlord" / name, folder)
    data = yaml.safe_load((folder / "scenario.yaml").read_text(encoding="utf-8"))
    data["parameters"] |= params
    (folder / "scenario.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    return Scenario("warlord", name, folder)


def test_coalitions_are_told_of_and_counted_only_from_coalition_turn(tmp_path: Path) -> None:
    # "Further information on coalitions will be provided on turn 15": the coalition of Ann, Bob and Cy holds
    # its cities from turn 2, but with coalition_turn 3 turn 2 says nothing and the game ends on turn 5.
    reports = {(t, n): text for t, n, text in play(_moved(tmp_path, "coalition", coalition_turn=3), tmp_path / "g")}
    assert "COALITIONS" not in reports[2, "1-ann"] and "WARNINGS" not in reports[2, "1-ann"]
    assert "Your coalition: 1 Ann, 2 Bob, 3 Cy" in reports[3, "1-ann"]
    assert "holds enough cities to win" in reports[3, "1-ann"]
    assert "THE GAME IS OVER" not in reports[4, "1-ann"]


def test_player_messages_fit_the_report_width(tmp_path: Path) -> None:
    s = Scenario("warlord", "messages", GOLDEN / "warlord" / "messages")
    texts = [text for _, name, text in play(s, tmp_path / "g") if name != "news"]
    letters = [t.split("PLAYER MESSAGES\n", 1)[1].split("\n\n", 1)[0] for t in texts if "PLAYER MESSAGES" in t]
    assert len(letters) >= 3
    for block in letters:
        assert all(len(line) <= 70 for line in block.splitlines()), block


def test_a_dropped_players_cities_rebel_only_after_rebel_delay(tmp_path: Path) -> None:
    # Every city would rebel at once (rebel_chance 100), but not before the rebel_delay-th turn after the
    # drop-out (turn 1): with rebel_delay 3, turns 1 to 3 are quiet and both of Bob's cities rise on turn 4.
    news = {t: text for t, n, text in play(_moved(tmp_path, "rebels", rebel_chance=100, rebel_delay=3),
                                          tmp_path / "g") if n == "news"}
    assert all("rebels" not in news[t] for t in (1, 2, 3))
    assert "City 2 of Bob rebels" in news[4] and "City 3 of Bob rebels" in news[4]


def test_a_general_with_a_unit_that_goes_over_to_the_rebels_stays_where_he_is(tmp_path: Path) -> None:
    # R58: "generals of a dropped player stay where they are and count for nothing; the rebels get no general".
    s = _moved(tmp_path, "rebels", rebel_chance=100)
    data = yaml.safe_load((s.folder / "scenario.yaml").read_text(encoding="utf-8"))
    # His post is where he last waited (01103); with division 1 at city 2 he is at 00902.
    data["General"] = [{"owner": "2", "number": 1, "unit": "2/1", "post": "01103", "skill": 6}]
    (s.folder / "scenario.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    for turn in range(4, 9):
        shutil.rmtree(s.folder / f"turn-{turn}")
    news = [text for t, n, text in play(s, tmp_path / "g") if n == "news"]
    assert "City 2 of Bob rebels" in news[2]
    state = yaml.safe_load((tmp_path / "g" / "turns" / "turn-003" / "state.yaml").read_text(encoding="utf-8"))
    generals = state["General"]
    rows = [dict(zip(generals["columns"], r, strict=True)) for r in generals["rows"]]
    assert [(g["owner"], g["number"], g["unit"], g["post"]) for g in rows] == [("2", 1, None, "00902")]
