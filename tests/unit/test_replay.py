"""Replay: a game played again from its stored inputs gives the same bytes under the same rules (the covert
and nukecards demos, the GM's orders and changes to positions included); under other rules a start that no
longer fits is refused by JSON path and leaves nothing, and a line no longer read is a refused line, listed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rulesdsl.cli import main
from rulesdsl.game.disk import LOCK_NAME, GameLock
from rulesdsl.game.errors import GameError
from rulesdsl.game.history import read_history
from rulesdsl.game.replay import replay
from rulesdsl.game.store import gm_action, gm_order, rollback
from tests.unit.reviewtools import changed_covert, play_demo
from tests.unit.rulestools import RULESETS

# What a turn reads and writes: the rest (the lock file, history.yaml) is the folder's, not the game's.
_GAME_FILES = ("reports/", "news.txt", "state.yaml", "mail/", "orders/", "gm/", "submitted.txt", "received.sha256")


def _files(root: Path) -> dict[str, bytes]:
    out = {}
    for dirpath, _, names in os.walk(root / "turns"):
        for name in names:
            path = Path(dirpath) / name
            out[str(path.relative_to(root))] = path.read_bytes()
    return out


def test_the_covert_demo_replayed_is_the_same_bytes(covert_demo: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "again"
    assert main(["replay", str(covert_demo), "-o", str(target)]) == 0
    assert capsys.readouterr().out == f"{covert_demo}: 5 turn(s) replayed under its own rules into {target}.\n"
    before, after = _files(covert_demo), _files(tmp_path / "again")
    assert sorted(before) == sorted(after)
    assert any(name.endswith("turn-005/state.yaml") for name in before)
    assert [name for name in before if before[name] != after[name]] == []
    assert all(any(part in name for part in _GAME_FILES) for name in before)


def test_a_traced_replay_adds_the_traces_alone(covert_demo: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "traced"
    assert main(["replay", str(covert_demo), "-o", str(target), "--trace"]) == 0
    capsys.readouterr()
    before, after = _files(covert_demo), _files(target)
    traces = sorted(name for name in after if name not in before)
    assert traces == [f"turns/turn-00{n}/trace.jsonl" for n in range(1, 6)]
    assert [name for name in before if before[name] != after[name]] == []


def test_the_nukecards_demo_with_the_gms_actions_replayed_is_the_same_bytes(tmp_path: Path) -> None:
    """Every kind of GM action between turns: an e-mail changed, a position dropped then given to another
    player with a new code, a GM order filed, and a turn rolled back (with an e-mail change made on it,
    undone with it) and run again."""
    game = tmp_path / "nukes"
    folder = play_demo(game, RULESETS / "nukecards.rules", "nukecards", 1)
    gm_action(game, "email", "3", email="new@example.org")
    gm_action(game, "drop", "5")
    gm_order(game, "2", ["PICK M"])
    folder.process_turn(_round(2))
    gm_action(game, "replace", "5", name="New Five", code="NEWC5")
    folder.process_turn(_round(3))
    gm_action(game, "email", "1", email="gone@example.org")
    rollback(game)
    folder.process_turn(None, force=True)
    result = replay(game, tmp_path / "again")
    assert result.turns == [1, 2, 3] and result.gm_actions == 3
    before, after = _files(game), _files(tmp_path / "again")
    assert [name for name in sorted(before.keys() | after.keys()) if before.get(name) != after.get(name)] == []
    assert any("/gm/" in name for name in before)  # the GM's order was stored, and filed again
    assert b"NEWC5" in before["turns/turn-003/state.yaml"]
    assert b"gone@example.org" not in after["turns/turn-003/state.yaml"]


def _round(n: int) -> list[Path]:
    return sorted((RULESETS.parent / "examples" / "nukecards" / f"round{n}").glob("*.txt"))


def test_a_replay_never_writes_over_a_folder(covert_demo: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "taken").mkdir()
    with pytest.raises(GameError, match="already exists"):
        replay(covert_demo, tmp_path / "taken")
    assert list(tmp_path.iterdir()) == [tmp_path / "taken"]
    # GAMEDIR-replay by default: the second replay finds the first's.
    copy = tmp_path / "game"
    copy.symlink_to(covert_demo)
    (tmp_path / "game-replay").mkdir()
    assert main(["replay", str(copy)]) == 2
    assert capsys.readouterr().err == (f"error: {tmp_path}/game-replay: already exists; a replay never writes "
                                       "over a folder: name a new one with -o\n")


def test_a_game_is_replayed_under_its_lock(covert_demo: Path, tmp_path: Path) -> None:
    """A turn (or a rollback) running on the game meanwhile would change what is read: the replay waits for no
    one, and is refused with nothing made."""
    with GameLock(covert_demo / LOCK_NAME), \
            pytest.raises(GameError, match="a turn or another command is running on the game replayed"):
        replay(covert_demo, tmp_path / "again")
    assert list(tmp_path.iterdir()) == []


def test_a_start_that_no_longer_fits_is_refused_by_its_json_path(covert_demo: Path, tmp_path: Path) -> None:
    rules = changed_covert(tmp_path / "rules", "start_troops", "first_troops", rename=True)
    (tmp_path / "games").mkdir()
    with pytest.raises(GameError) as info:
        replay(covert_demo, tmp_path / "games" / "again", rules)
    message = str(info.value)
    assert "its starting state does not fit" in message
    assert "turns/turn-000/state.yaml: $.Country.ARG.start_troops: no such field; did you mean first_troops?" in message
    assert "more like these" in message  # one line a country would bury the point
    assert list((tmp_path / "games").iterdir()) == []  # nothing made, nothing half made


def test_a_line_no_longer_read_is_refused_and_listed(covert_demo: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    rules = changed_covert(tmp_path / "rules", '"A,{country},{units}"', '"ARMS,{country},{units}"')
    target = tmp_path / "armed"
    assert main(["replay", str(covert_demo), "--rules", str(rules), "-o", str(target)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{covert_demo}: 5 turn(s) replayed under {rules} into {target}."
    assert out[1] == "  turn 1, 1001-the-illuminati line 6: no longer read: not an order of this game ('A,FRA,1')"
    assert len(out) == 14 and all("no longer read: not an order of this game ('A," in line for line in out[1:])
    record = read_history(target)[-1]
    assert record["action"] == "replay" and record["rules"] == str(rules) and record["turns"] == [1, 2, 3, 4, 5]
    assert record["no_longer_read"][0] == out[1].strip()
    report = (target / "turns" / "turn-001" / "reports" / "1001-the-illuminati.txt").read_text(encoding="utf-8")
    assert "ORDERS NOT ACCEPTED\n  line   6  A,FRA,1          not an order of this game" in report
