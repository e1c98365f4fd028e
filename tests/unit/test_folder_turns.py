"""Turns on disk: no turn is doubled (repeated mail, a broken stdout, two `turn`s at once), turn numbers past
999, leftovers of killed runs, modes, fsync, errors that name their file, and orders kept byte for byte."""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from rulesdsl.cli import main
from rulesdsl.game.folder import GameError, GameFolder
from tests.unit.rulestools import COVERT, ROOT

DAY1 = sorted((ROOT / "examples" / "covert" / "day1").glob("*.txt"))
SCENARIO = ROOT / "examples" / "covert" / "scenario.yaml"
LOCK = "rulesdsl.lock"


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("turns")
    folder = GameFolder.create(COVERT, base / "game", SCENARIO, None)
    folder.load_game()
    return folder.root


def _copy(started: Path, tmp_path: Path) -> Path:
    shutil.copytree(started, tmp_path / "game")
    return tmp_path / "game"


def _cli(*args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rulesdsl", *args], text=True, cwd=ROOT, timeout=120, **kwargs)


def _turns(game: Path) -> list[str]:
    return sorted(p.name for p in (game / "turns").iterdir())


# ---------------------------------------------------------------- the same mail twice

def test_the_previous_days_mail_is_refused(started: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = _copy(started, tmp_path)
    assert main(["turn", str(game), *map(str, DAY1)]) == 0
    record = (game / "turns" / "turn-001" / "received.sha256").read_text(encoding="utf-8").splitlines()
    assert record == [f"{hashlib.sha256(f.read_bytes()).hexdigest()}  orders/{i:02d}-{f.name}"
                      for i, f in enumerate(DAY1, 1)]
    capsys.readouterr()
    assert main(["turn", str(game), *map(str, DAY1)]) == 2
    err = capsys.readouterr().err
    assert f"{DAY1[0]}: " in err and "turn 1" in err and "--force" in err, err
    assert _turns(game) == ["turn-000", "turn-001"]
    assert main(["turn", str(game), str(DAY1[0]), "--force"]) == 0
    assert _turns(game) == ["turn-000", "turn-001", "turn-002"]


def test_new_mail_with_one_old_submission_is_refused(started: Path, tmp_path: Path) -> None:
    folder = GameFolder(_copy(started, tmp_path))
    folder.process_turn(DAY1)
    fresh = tmp_path / "fresh.txt"
    fresh.write_text("CO-175\n20408\nALPHA789\n", encoding="utf-8")
    with pytest.raises(GameError, match=r"hydra.txt: .*turn 1"):
        folder.process_turn([fresh, DAY1[0]])
    assert folder.process_turn([fresh]).turn == 2


# ---------------------------------------------------------------- the exit status follows the commit

def test_a_full_stdout_after_the_commit_exits_0(started: Path, tmp_path: Path) -> None:
    game = _copy(started, tmp_path)
    with open("/dev/full", "w") as full:
        done = _cli("turn", str(game), *map(str, DAY1), stdout=full, stderr=subprocess.PIPE)
    assert done.returncode == 0, done.stderr
    assert "turn 1 was committed" in done.stderr
    assert _turns(game) == ["turn-000", "turn-001"]


def test_a_closed_pipe_after_the_commit_exits_0(started: Path, tmp_path: Path) -> None:
    game = _copy(started, tmp_path)
    read, write = os.pipe()
    os.close(read)  # nobody reads: every write to stdout fails with EPIPE
    try:
        done = _cli("turn", str(game), *map(str, DAY1), "--show", "20408", stdout=write, stderr=subprocess.PIPE)
    finally:
        os.close(write)
    assert done.returncode == 0, done.stderr
    assert "turn 1 was committed" in done.stderr
    assert _turns(game) == ["turn-000", "turn-001"]


# ---------------------------------------------------------------- one turn at a time

def test_a_second_turn_while_the_lock_is_held_is_refused(started: Path, tmp_path: Path) -> None:
    game = _copy(started, tmp_path)
    with open(game / LOCK, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        done = _cli("turn", str(game), *map(str, DAY1), capture_output=True)
    assert done.returncode == 2
    assert str(game / LOCK) in done.stderr and "another" in done.stderr, done.stderr
    assert _turns(game) == ["turn-000"]
    assert _cli("turn", str(game), *map(str, DAY1), capture_output=True).returncode == 0


def test_two_turns_at_once_commit_one_turn(started: Path, tmp_path: Path) -> None:
    game = _copy(started, tmp_path)
    cmd = [sys.executable, "-m", "rulesdsl", "turn", str(game), *map(str, DAY1)]
    procs = [subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    codes = sorted(p.wait(timeout=120) for p in procs)
    for p in procs:
        assert p.stdout is not None and p.stderr is not None
        p.stdout.close()
        p.stderr.close()
    assert codes == [0, 2]
    assert _turns(game) == ["turn-000", "turn-001"]


# ---------------------------------------------------------------- game folders that last

def test_turns_999_1000_1001(started: Path, tmp_path: Path) -> None:
    game = _copy(started, tmp_path)
    old = game / "turns" / "turn-000"
    data = yaml.safe_load((old / "state.yaml").read_text(encoding="utf-8"))
    data["turn"] = 999
    (old / "state.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    old.rename(game / "turns" / "turn-999")
    folder = GameFolder(game)
    assert folder.process_turn([]).turn == 1000
    assert folder.process_turn([]).turn == 1001
    assert _turns(game) == ["turn-1000", "turn-1001", "turn-999"]
    assert folder.latest_turn() == 1001 and folder.load_game().turn == 1001


def test_a_state_whose_turn_is_not_its_folders_is_refused(started: Path, tmp_path: Path) -> None:
    game = _copy(started, tmp_path)
    (game / "turns" / "turn-000").rename(game / "turns" / "turn-007")
    with pytest.raises(GameError, match=r"turns/turn-007/state.yaml: \$\.turn: "):
        GameFolder(game).load_game()


def test_leftovers_of_a_killed_turn_are_removed(started: Path, tmp_path: Path) -> None:
    game = _copy(started, tmp_path)
    left = game / "turns" / ".turn-001-k1ll3d"
    (left / "reports").mkdir(parents=True)
    (left / "reports" / "20408-spectre.txt").write_text("Access code ALPHA789\n", encoding="utf-8")
    GameFolder(game).process_turn(DAY1)
    assert _turns(game) == ["turn-000", "turn-001"]


def test_leftovers_of_a_killed_new_are_removed(tmp_path: Path) -> None:
    games = tmp_path / "games"
    left = games / ".new-abc123"
    (left / "turns").mkdir(parents=True)
    (left / LOCK).touch()
    (games / ".new-someone-elses").mkdir()
    (games / ".new-someone-elses" / "keep.txt").write_text("not ours\n", encoding="utf-8")
    GameFolder.create(COVERT, games / "game", SCENARIO, None)
    assert sorted(p.name for p in games.iterdir()) == [".new-someone-elses", "game"]


def test_turn_folders_get_the_modes_mkdir_gives(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        folder = GameFolder.create(COVERT, tmp_path / "game", SCENARIO, None)
        folder.process_turn(DAY1)
    finally:
        os.umask(old)
    expected = 0o750
    for path in [folder.root, folder.turns_dir / "turn-000", folder.turns_dir / "turn-001",
                 folder.turns_dir / "turn-001" / "reports", folder.turns_dir / "turn-001" / "orders"]:
        assert stat.S_IMODE(path.stat().st_mode) == expected, path
    assert stat.S_IMODE((folder.turns_dir / "turn-001" / "state.yaml").stat().st_mode) == 0o640


def test_a_turn_is_synced_before_and_after_its_rename(started: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    game = _copy(started, tmp_path)
    events: list[tuple[str, str]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def replace(src: Any, dst: Any, **kwargs: Any) -> None:
        events.append(("replace", str(dst)))
        real_replace(src, dst, **kwargs)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    GameFolder(game).process_turn(DAY1)
    final = str(game / "turns" / "turn-001")
    at = events.index(("replace", final))
    before = [p for kind, p in events[:at] if kind == "fsync"]
    staging = [p for p in before if "/.turn-001-" in p]
    names = {p.split("/.turn-001-", 1)[1].split("/", 1)[-1] for p in staging if "/" in p.split("/.turn-001-", 1)[1]}
    assert {"state.yaml", "news.txt", "received.sha256", "reports", "orders",
            "reports/20408-spectre.txt", "orders/01-hydra.txt"} <= names, names
    assert any(p.rsplit("/", 1)[-1].startswith(".turn-001-") for p in staging)  # the staging folder itself
    assert ("fsync", str(game / "turns")) in events[at:]


def test_a_write_error_names_the_file(started: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    game = _copy(started, tmp_path)

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    assert main(["turn", str(game), *map(str, DAY1)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {game / 'turns' / 'turn-001'}/"), err
    assert "No space left on device" in err and "error: :" not in err
    assert _turns(game) == ["turn-000"]
    assert main(["new", str(COVERT), str(tmp_path / "g2"), "--scenario", str(SCENARIO)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {tmp_path / 'g2'}/"), err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game"]


def test_a_file_too_large_names_the_file(started: Path, tmp_path: Path) -> None:
    """A real write error without a file name: the process may write no file over 4 KiB."""
    game = _copy(started, tmp_path)
    script = ("import resource, signal, sys\n"
              "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
              "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))\n"
              "from rulesdsl.cli import main\n"
              "sys.exit(main(sys.argv[1:]))\n")
    done = subprocess.run([sys.executable, "-c", script, "turn", str(game), *map(str, DAY1)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: {game / 'turns' / 'turn-001'}/"), done.stderr
    assert "File too large" in done.stderr
    assert _turns(game) == ["turn-000"]


def test_an_os_error_without_a_file_name_reads_well(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    def broken(*_: object) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr("rulesdsl.cli.check_path", broken)
    assert main(["check", str(COVERT)]) == 2
    assert capsys.readouterr().err == f"error: {os.strerror(errno.EIO)}\n"


# ---------------------------------------------------------------- orders as received

def test_orders_are_kept_byte_for_byte(started: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = _copy(started, tmp_path)
    raw = b"\xef\xbb\xbfCO-175\r\n20408\r\nALPHA789\r\nK,MEX,3\xff\r\n"
    mail = tmp_path / "spectre.txt"
    mail.write_bytes(raw)
    seen: list[list[tuple[str, str]]] = []
    from rulesdsl.runtime.engine import Game

    real = Game.process_turn

    def spy(self: Game, submissions: list[tuple[str, str]], *rest: Any) -> None:
        seen.append(list(submissions))
        real(self, submissions, *rest)

    monkeypatch.setattr(Game, "process_turn", spy)
    result = GameFolder(game).process_turn([mail])
    assert (result.folder / "orders" / "01-spectre.txt").read_bytes() == raw
    assert seen == [[("spectre.txt", raw.decode("utf-8", errors="replace"))]]
    assert "\r\n" in seen[0][0][1] and "\ufffd" in seen[0][0][1]


def test_the_same_file_twice_in_one_mail_is_refused(started: Path, tmp_path: Path) -> None:
    folder = GameFolder(_copy(started, tmp_path))
    copy = tmp_path / "again.txt"
    copy.write_bytes(DAY1[0].read_bytes())
    with pytest.raises(GameError, match=rf"again.txt: .*same.*{DAY1[0].name}"):
        folder.process_turn([DAY1[0], copy])
    assert _turns(folder.root) == ["turn-000"]


def test_a_new_game_is_exit_0_even_if_its_summary_cannot_be_printed(tmp_path: Path) -> None:
    with open("/dev/full", "w") as full:
        done = _cli("new", str(COVERT), str(tmp_path / "game"), "--scenario", str(SCENARIO), stdout=full,
                    stderr=subprocess.PIPE)
    assert done.returncode == 0, done.stderr
    assert "was made" in done.stderr
    assert _turns(tmp_path / "game") == ["turn-000"]


def test_compile_names_the_output_it_cannot_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    def full(*_: object, **__: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(Path, "write_text", full)
    monkeypatch.setattr(os, "write", full)
    out = tmp_path / "covert.py"
    assert main(["compile", str(COVERT), "-o", str(out)]) == 2
    assert capsys.readouterr().err.startswith(f"error: {out}: "), "the output file is named"


def test_the_compiled_module_cache_is_named_when_it_cannot_be_written(
        started: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = _copy(started, tmp_path)
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))

    def full(*_: object, **__: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(GameError, match=rf"^{tmp_path / 'cache'}: .*No space left on device"):
        GameFolder(game).process_turn(DAY1)


def test_a_closed_stdout_after_the_commit_exits_0(started: Path, tmp_path: Path) -> None:
    game = _copy(started, tmp_path)
    done = subprocess.run([sys.executable, "-c", "import os, runpy, sys; os.close(1); sys.argv[0] = 'rulesdsl'; "
                           "runpy.run_module('rulesdsl', run_name='__main__')", "turn", str(game), *map(str, DAY1)],
                          cwd=ROOT, stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "turn 1 was committed" in done.stderr
    assert _turns(game) == ["turn-000", "turn-001"]
