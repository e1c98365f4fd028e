"""Mail for another game -> a turn refused before anything is written (unless forced), through the engine's
count of such mail, the game folder and the command line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from rulesdsl.cli import main
from rulesdsl.compiler import load_module
from rulesdsl.game.folder import GameError, GameFolder
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.state import new_game
from tests.unit.rulestools import COVERT, ROOT

DAY1 = sorted((ROOT / "examples" / "covert" / "day1").glob("*.txt"))
SCENARIO = ROOT / "examples" / "covert" / "scenario.yaml"


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("wrong-game")
    return GameFolder.create(COVERT, base / "game", SCENARIO, None).root


def _copy(started: Path, tmp_path: Path) -> Path:
    shutil.copytree(started, tmp_path / "game")
    return tmp_path / "game"


def _turns(game: Path) -> list[str]:
    return sorted(p.name for p in (game / "turns").iterdir())


def _for_game(tmp_path: Path, number: str, files: list[Path] = DAY1) -> list[Path]:
    """The first day's mail of Covert game 175 with its game line changed to `CO-<number>`."""
    out = []
    folder = tmp_path / f"mail-{number}"
    folder.mkdir(exist_ok=True)
    for f in files:
        text = f.read_text(encoding="utf-8")
        assert text.startswith("CO-175\n")
        (folder / f.name).write_text(f"CO-{number}\n" + text.removeprefix("CO-175\n"), encoding="utf-8")
        out.append(folder / f.name)
    return out


def _game(tmp_path: Path) -> Game:
    module, spec = load_module(COVERT, tmp_path / "cache")
    g = new_game(spec, yaml.safe_load(SCENARIO.read_text(encoding="utf-8")))
    g.module_file = str(module.__file__)
    return g


# ---------------------------------------------------------------- the engine counts it

def test_the_engine_says_which_game_each_submission_names(tmp_path: Path) -> None:
    g = _game(tmp_path)
    mail = [(f.name, f.read_text(encoding="utf-8")) for f in _for_game(tmp_path, "176", DAY1[:2])]
    this = (DAY1[2].name, DAY1[2].read_text(encoding="utf-8"))
    g.process_turn([*mail, ("junk.txt", "hello\n"), ("stranger.txt", "co-177\n424242\nNOPE\n"), this,
                    ("empty.txt", "")])
    assert g.games_named == [("CO-176", False), ("CO-176", False), None, ("CO-177", False), ("CO-175", True),
                             None]


def test_a_game_line_too_long_to_read_names_no_game(tmp_path: Path) -> None:
    g = _game(tmp_path)
    g.process_turn([("a.txt", "CO-1\u00e9" + "9" * 2000 + "\n1\n2\n"), ("b.txt", "CO-17\u00e9\n1\n2\n")])
    # A line too long to read names no game; a readable one is named as written, letters of any script kept.
    assert g.games_named == [None, ("CO-17\u00e9", False)]


# ---------------------------------------------------------------- the game folder refuses it

def test_a_turn_of_only_another_games_mail_is_refused(started: Path, tmp_path: Path) -> None:
    folder = GameFolder(_copy(started, tmp_path))
    mail = _for_game(tmp_path, "176")
    with pytest.raises(GameError) as refused:
        folder.process_turn(mail)
    message = str(refused.value)
    assert "CO-176" in message and "CO-175" in message and "--force" in message, message
    assert all(f.name in message for f in mail), message
    assert _turns(folder.root) == ["turn-000"]
    assert {p.name for p in folder.root.iterdir()} - {p.name for p in started.iterdir()} <= {"rulesdsl.lock"}
    assert folder.process_turn(mail, force=True).turn == 1


def test_a_turn_with_one_submission_for_this_game_is_processed(started: Path, tmp_path: Path) -> None:
    folder = GameFolder(_copy(started, tmp_path))
    result = folder.process_turn([*_for_game(tmp_path, "176", DAY1[:-1]), DAY1[-1]])
    assert result.turn == 1


def test_a_turn_of_junk_alone_is_processed(started: Path, tmp_path: Path) -> None:
    # Mail that names no game says nothing of which game it was for: the GM reads it in unrouted.txt.
    folder = GameFolder(_copy(started, tmp_path))
    junk = tmp_path / "junk.txt"
    junk.write_text("hello\n", encoding="utf-8")
    assert folder.process_turn([junk]).turn == 1
    assert folder.process_turn([]).turn == 2


def test_mail_for_another_game_with_unknown_accounts_is_refused_too(started: Path, tmp_path: Path) -> None:
    # The other game's players are rarely this game's: what its mail has in common is the game it names.
    folder = GameFolder(_copy(started, tmp_path))
    stranger = tmp_path / "stranger.txt"
    stranger.write_text("co-176\n99999\nNOPE\nB,SAF,9\n", encoding="utf-8")
    with pytest.raises(GameError, match=r"stranger\.txt is for game CO-176;"):
        folder.process_turn([stranger])
    assert _turns(folder.root) == ["turn-000"]


# ---------------------------------------------------------------- the command line

def test_turn_refuses_another_games_mail_loudly_unless_forced(started: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    game = _copy(started, tmp_path)
    mail = _for_game(tmp_path, "176")
    assert main(["turn", str(game), *map(str, mail)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("error: ") and "CO-176" in captured.err and "--force" in captured.err
    assert all(str(f) in captured.err for f in mail), captured.err
    assert _turns(game) == ["turn-000"]
    assert main(["turn", str(game), *map(str, mail), "--force"]) == 0
    assert _turns(game) == ["turn-000", "turn-001"]


def test_turn_help_says_force_covers_both(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["turn", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "already processed" in out and "another game" in out, out


def test_the_refusal_names_ten_files_of_a_game_and_counts_the_rest(started: Path, tmp_path: Path) -> None:
    folder = GameFolder(_copy(started, tmp_path))
    mail = []
    for i in range(12):
        f = tmp_path / f"m{i:02d}.txt"
        f.write_text(f"CO-{176 if i < 11 else 9}\n{i}\n2\n", encoding="utf-8")
        mail.append(f)
    with pytest.raises(GameError) as refused:
        folder.process_turn(mail)
    message = str(refused.value)
    assert f"{mail[9]} and 1 more are for game CO-176; {mail[11]} is for game CO-9;" in message, message
    assert str(mail[10]) not in message


def test_the_refusal_shows_a_file_name_with_its_control_characters_escaped(started: Path, tmp_path: Path) -> None:
    folder = GameFolder(_copy(started, tmp_path))
    odd = tmp_path / "a\x1b[2Jb\nc.txt"
    odd.write_text("CO-176\n1\n2\n", encoding="utf-8")
    with pytest.raises(GameError) as refused:
        folder.process_turn([odd])
    assert f"{tmp_path}/a<U+001B>[2Jb<U+000A>c.txt is for game CO-176;" in str(refused.value), refused.value
