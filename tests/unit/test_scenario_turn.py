"""A scenario's `turn` -> a game that starts late: its starting folder, its first turn, and its refusals."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rulesdsl.cli import main
from rulesdsl.game.folder import GameError, GameFolder
from tests.unit.test_nukecards import RULES, play_round, scenario


def _start(tmp: Path, data: dict[str, object]) -> GameFolder:
    path = tmp / "scenario.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return GameFolder.create(RULES, tmp / "game", path, None)


def test_a_game_started_at_round_4_plays_round_5_first(tmp_path: Path) -> None:
    # Round 5 is when every player gets a special card ("every 5 rounds"): a game started at round 4
    # reaches it on its first turn, which is what a GM wants to try a late rule without playing 4 rounds.
    folder = _start(tmp_path, scenario({"Ann": ["P100"], "Bob": ["P100"]}, turn=4))
    assert folder.turn_numbers() == [4]
    state = yaml.safe_load((folder.turns_dir / "turn-004" / "state.yaml").read_text(encoding="utf-8"))
    assert state["turn"] == 4
    assert sorted(p.name for p in (folder.turns_dir / "turn-004" / "reports").iterdir()) == [
        "201-ann.html", "201-ann.json", "201-ann.txt", "202-bob.html", "202-bob.json", "202-bob.txt"]
    start = (folder.turns_dir / "turn-004" / "reports" / "201-ann.txt").read_text(encoding="utf-8")
    assert start.startswith("Unit nukecards -- starting position\n")
    assert "Your first move is for\n  round 5.\n" in start
    assert "YOUR ORDERS THIS ROUND" not in start
    result = play_round(folder, tmp_path / "orders", {"Ann": ["PICK P"], "Bob": ["PICK P"]})
    assert result.turn == 5
    assert (result.folder / "reports" / "201-ann.txt").read_text(encoding="utf-8").startswith(
        "Unit nukecards -- report for round 5\n")
    assert folder.turn_numbers() == [4, 5]
    ann = (result.folder / "reports" / "201-ann.txt").read_text(encoding="utf-8")
    assert "The game gives you a special card:" in ann


def test_a_game_started_at_turn_0_is_as_before(tmp_path: Path) -> None:
    folder = _start(tmp_path, scenario({"Ann": ["P100"], "Bob": ["P100"]}))
    assert folder.turn_numbers() == [0]
    result = play_round(folder, tmp_path / "orders", {"Ann": ["PICK P"], "Bob": ["PICK P"]})
    assert result.turn == 1
    assert "special card" not in (result.folder / "reports" / "201-ann.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("turn", [-1, "4", 100000])
def test_a_starting_turn_that_cannot_be_is_refused_with_its_path(tmp_path: Path, turn: object) -> None:
    with pytest.raises(GameError, match=r"scenario\.yaml: \$\.turn: "):
        _start(tmp_path, scenario({"Ann": ["P100"]}, turn=turn))
    assert not (tmp_path / "game").exists()


def test_new_names_the_starting_folder_and_turn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(scenario({"Ann": ["P100"], "Bob": ["P100"]}, turn=19)), encoding="utf-8")
    assert main(["new", str(RULES), str(tmp_path / "game"), "--scenario", str(path)]) == 0
    out = capsys.readouterr().out
    assert "2 starting report(s), turn 19:" in out
    assert "turns/turn-019/state.yaml" in out
