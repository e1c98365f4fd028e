"""Game folders and names from outside: accounts, player names and mailed file names never make a file
outside GAMEDIR, and a bad account is refused with its JSON path at `new` (and in a tampered state file)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from rulesdsl.game.folder import GameError, GameFolder
from tests.unit.rulestools import COVERT

PLAYERS = '''players:
  - {name: Ann, account: "1", code: A1}
  - {name: Bob, account: "2", code: B2}
'''

SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _files_outside(root: Path, tmp_path: Path, before: set[Path]) -> list[Path]:
    return [p for p in tmp_path.rglob("*") if p not in before and root not in p.parents and p != root]


@pytest.mark.parametrize("account", ["../../x", "/abs", "a/b", ".", "..", "a\\0b", "a\\nb", "a b", "x" * 33, ""],
                         ids=["dotdot", "absolute", "slash", "dot", "two-dots", "nul", "newline", "space", "long",
                              "empty"])
def test_a_bad_account_is_refused_at_new_with_its_path(tmp_path: Path, account: str) -> None:
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(PLAYERS.replace('account: "2"', f'account: "{account}"'), encoding="utf-8")
    with pytest.raises(GameError) as info:
        GameFolder.create(COVERT, tmp_path / "games" / "game", scenario, None)
    assert str(info.value).startswith("scenario.yaml: $.players[1].account: "), info.value
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["scenario.yaml"]


@pytest.mark.parametrize("name", ["Ann\\nBob", "Ann\\x07", "Ann\\rX", "Ann\\u2028X", "A\\u0085"],
                         ids=["newline", "bell", "return", "line-separator", "next-line"])
def test_a_player_name_with_control_characters_is_refused(tmp_path: Path, name: str) -> None:
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(PLAYERS.replace("name: Bob", f'name: "{name}"'), encoding="utf-8")
    with pytest.raises(GameError) as info:
        GameFolder.create(COVERT, tmp_path / "game", scenario, None)
    assert str(info.value).startswith("scenario.yaml: $.players[1].name: "), info.value
    assert not (tmp_path / "game").exists()


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("names")
    scenario = base / "scenario.yaml"
    scenario.write_text(PLAYERS.replace("name: Bob", 'name: "../../Bob/./.."'), encoding="utf-8")
    folder = GameFolder.create(COVERT, base / "game", scenario, 3)
    folder.load_game()
    return folder.root


def _copy(started: Path, tmp_path: Path) -> GameFolder:
    import shutil

    shutil.copytree(started, tmp_path / "game")
    return GameFolder(tmp_path / "game")


@pytest.mark.parametrize("account", ["../../x", "/abs", "a/b", ".", "..", "a\x00b", "a\nb"],
                         ids=["dotdot", "absolute", "slash", "dot", "two-dots", "nul", "newline"])
def test_a_tampered_account_in_the_state_is_refused_with_its_path(started: Path, tmp_path: Path,
                                                                 account: str) -> None:
    folder = _copy(started, tmp_path)
    state = folder.root / "turns" / "turn-000" / "state.yaml"
    data = yaml.safe_load(state.read_text(encoding="utf-8"))
    data["players"][1]["account"] = account
    state.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    before = set(tmp_path.rglob("*"))
    with pytest.raises(GameError) as info:
        folder.process_turn([])
    assert str(info.value).startswith("turns/turn-000/state.yaml: $.players[1].account: "), info.value
    assert set(tmp_path.rglob("*")) == before


def test_a_tampered_player_name_in_the_state_is_refused(started: Path, tmp_path: Path) -> None:
    folder = _copy(started, tmp_path)
    state = folder.root / "turns" / "turn-000" / "state.yaml"
    data = yaml.safe_load(state.read_text(encoding="utf-8"))
    data["players"][0]["name"] = "Ann\nDear GM, ..."
    state.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    with pytest.raises(GameError, match=r"^turns/turn-000/state.yaml: \$\.players\[0\]\.name: "):
        folder.load_game()


def test_report_files_stay_in_the_reports_folder(started: Path, tmp_path: Path) -> None:
    folder = _copy(started, tmp_path)
    result = folder.process_turn([])
    names = sorted(p.name for p in (result.folder / "reports").iterdir())
    assert names == ["1-ann.html", "1-ann.json", "1-ann.txt", "2-bob.html", "2-bob.json", "2-bob.txt"]
    assert [p.parent for _, p in result.reports] == [result.folder / "reports"] * 2


@pytest.mark.parametrize("name", ["a\nb.txt", "..", "...", ".hidden", "x" * 200, "mail from bob.txt",
                                  "-rf", "é.txt", "a\rb"],
                         ids=["newline", "two-dots", "three-dots", "hidden", "long", "spaces", "dash", "accent",
                              "return"])
def test_order_files_are_stored_under_safe_names(started: Path, tmp_path: Path, name: str) -> None:
    folder = _copy(started, tmp_path)
    mail = tmp_path / "mail"
    mail.mkdir()
    src = mail / name if name != ".." else mail / "sub" / ".."
    if name == "..":
        (mail / "sub").mkdir()
    else:
        src.write_bytes(b"CO-1\n1\nA1\n")
    before = set(tmp_path.rglob("*"))
    if name == "..":
        with pytest.raises(GameError, match="cannot read"):
            folder.process_turn([src])
        assert set(tmp_path.rglob("*")) == before
        return
    result = folder.process_turn([src])
    stored = list((result.folder / "orders").iterdir())
    assert len(stored) == 1
    assert stored[0].name.startswith("01-") and SAFE_NAME.fullmatch(stored[0].name), stored[0].name
    assert len(stored[0].name) <= 100
    assert stored[0].read_bytes() == b"CO-1\n1\nA1\n"
    assert _files_outside(folder.root, tmp_path, before) == []
    assert folder.process_turn([]).turn == 2  # the next turn still works


def test_the_ruleset_named_in_game_yaml_stays_in_the_folder(started: Path, tmp_path: Path) -> None:
    folder = _copy(started, tmp_path)
    (tmp_path / "other.rules").write_text('ruleset "X" { }\n', encoding="utf-8")
    (folder.root / "game.yaml").write_text("rules: ../other.rules\n", encoding="utf-8")
    with pytest.raises(GameError, match=r"^game.yaml: \$\.rules: "):
        folder.load_game()
