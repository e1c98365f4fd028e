"""The game's lock and its crash safety across real processes: `rulesdsl` commands run as subprocesses,
started together or killed (SIGKILL) mid-way -> a game in which nothing is lost and nothing doubled, and
whose files are byte for byte those of the same commands run one after the other.

No sleep decides an outcome: commands started together may meet in any order, and each test asserts what
holds for every order. A kill lands at a chosen point: the child runs the real command with one function
wrapped to print "paused" and wait there, and is killed once it has said so."""

from __future__ import annotations

import mailbox
import os
import shutil
import subprocess
import sys
from email.message import EmailMessage
from pathlib import Path

import pytest

from rulesdsl.game import inbox, store
from rulesdsl.game.disk import LOCK_NAME, GameLock
from rulesdsl.game.folder import GameFolder
from rulesdsl.game.intake import intake
from tests.unit.rulestools import COVERT, ROOT

DAY1 = ROOT / "examples" / "covert" / "day1"
SCENARIO = ROOT / "examples" / "covert" / "scenario.yaml"
TIMEOUT = 120

# Runs `rulesdsl ARGS` with a pause at POINT (the Nth time it is reached): the test kills it there.
PAUSE = r"""
import os, sys, time
from rulesdsl.cli import main
from rulesdsl.game import disk, intake

point, nth, args = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
count = 0

def reached():
    global count
    count += 1
    if count == nth:
        sys.stdout.write("paused\n")
        sys.stdout.flush()
        time.sleep(600)  # parked until killed

if point == "staging-write":  # after the Nth file of the turn's staging folder is written
    real_write = disk.Staging.write
    def write(self, rel, data):
        done = real_write(self, rel, data)
        reached()
        return done
    disk.Staging.write = write
elif point == "before-rename":  # every file of the staging folder synced, the folder itself next
    real_sync = disk._sync
    def sync(path, shown, folder):
        if folder and path.name.startswith(".turn-"):
            reached()
        return real_sync(path, shown, folder)
    disk._sync = sync
elif point in ("mail-written", "mail-recorded"):  # the Nth mail's files written; then its record line
    real_append = intake.append_index
    def append(folder, entries):
        if point == "mail-written":
            reached()
        real_append(folder, entries)
        if point == "mail-recorded":
            reached()
    intake.append_index = append
sys.exit(main(args))
"""


def _env() -> dict[str, str]:
    env = dict(os.environ)  # RULESDSL_CACHE: the session's cache (conftest)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def _start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "rulesdsl", *args], cwd=ROOT, env=_env(), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rulesdsl", *args], cwd=ROOT, env=_env(), text=True,
                          capture_output=True, timeout=TIMEOUT)


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=TIMEOUT)
    return proc.returncode, out, err


def _kill_at(point: str, nth: int, *args: str) -> None:
    """Runs `rulesdsl ARGS` and kills it (SIGKILL) at `point`, the `nth` time it is reached."""
    proc = subprocess.Popen([sys.executable, "-c", PAUSE, point, str(nth), *args], cwd=ROOT, env=_env(),
                            text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line == "paused\n", f"{point} {nth} never reached: {line!r} {proc.stderr.read() if proc.stderr else ''}"
    finally:
        proc.kill()
        proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == -9


def _mail(sender: str, body: str, mid: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["Subject"] = "orders"
    msg["Message-ID"] = mid
    msg.set_content(body)
    return msg.as_bytes()


def _maildir(path: Path, mails: list[bytes]) -> Path:
    box = mailbox.Maildir(path, create=True)
    for i, raw in enumerate(mails):
        key = box.add(mailbox.MaildirMessage(raw))
        # Maildir names hold the time and a random part: renamed, so every run reads the mail in one order.
        (path / "new" / key).rename(path / "new" / f"{i:04d}.mail")
    box.close()
    return path


def _day1(name: str) -> str:
    return (DAY1 / f"{name}.txt").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Covert game with four players' mail filed for day 1 (enough for the no-orders gate), and a second
    mailbox: Spectre's mail, Hydra's second mail (replacing the first), Thrush's with a wrong access code."""
    base = tmp_path_factory.mktemp("processes")
    GameFolder.create(COVERT, base / "game", SCENARIO, None)
    first = [_mail(f"{n}@example.org", _day1(n), f"<{n}.1@example.org>")
             for n in ("hydra", "illuminati", "octopus", "quantum")]
    intake(base / "game", [_maildir(base / "first", first)])
    second = [_mail("spectre@example.org", _day1("spectre"), "<spectre.1@example.org>"),
              _mail("hydra@example.org", _day1("hydra").replace("B,SAF,9", "B,SAF,8"), "<hydra.2@example.org>"),
              _mail("thrush@example.org", _day1("thrush"), "<thrush.1@example.org>")]
    _maildir(base / "second", second)
    return base


def _game(world: Path, tmp_path: Path, name: str = "game") -> Path:
    shutil.copytree(world / "game", tmp_path / name)
    return tmp_path / name


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _settled(game: Path) -> None:
    """What holds after any command ended, however: no staging folder, no half-written file, the lock free."""
    assert not list(game.rglob(".*")), "a staging folder or a temporary file is left"
    with GameLock(game / LOCK_NAME):
        pass
    latest = GameFolder(game).latest_turn()
    for turn in range(1, latest + 1):
        # A turn took exactly what was filed for it, in the order filed.
        taken = sorted((game / "turns" / f"turn-{turn:03d}" / "orders").iterdir())
        assert [p.read_bytes() for p in taken] == [p.read_bytes() for p in inbox.filed_files(game, turn)]
    # Every mail read is recorded once, in one turn's record.
    idents = [e.ident for d in sorted((game / "inbox").iterdir()) for e in inbox.read_index(d)]
    assert len(idents) == len(set(idents))
    filed = len(inbox.filed_files(game, latest + 1))
    assert store.status_text(store.status(game)).startswith(
        f"Covert Operations CO-175: turn {latest} played; {filed} submission(s) filed for turn {latest + 1}.\n")


def _refused_by_lock(code: int, err: str) -> bool:
    return code == 2 and "holds this lock; nothing was done" in err


@pytest.fixture(scope="module")
def one_after_the_other(world: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, bytes]]:
    """The games made by an intake of the second mailbox and a turn, in either order, and by the turn alone."""
    base = tmp_path_factory.mktemp("sequential")
    made = {}
    for order in ("intake-turn", "turn-intake", "turn"):
        game = _game(world, base, order)
        for step in order.split("-"):
            if step == "intake":
                intake(game, [world / "second"])
            else:
                GameFolder(game).process_turn(None)
        made[order] = _tree(game)
    return made


@pytest.mark.parametrize("first", ["intake", "turn"])
def test_an_intake_and_a_turn_started_together(world: Path, tmp_path: Path, first: str,
                                               one_after_the_other: dict[str, dict[str, bytes]]) -> None:
    game = _game(world, tmp_path)
    commands = {"intake": ("intake", str(game), str(world / "second")), "turn": ("turn", str(game))}
    procs = {name: _start(*commands[name]) for name in sorted(commands, key=lambda n: n != first)}
    done = {name: _finish(proc) for name, proc in procs.items()}
    for name, (code, _, err) in done.items():
        assert code == 0 or _refused_by_lock(code, err), f"{name}: {code} {err}"
    assert any(code == 0 for code, _, _ in done.values())
    _settled(game)
    status = _run("status", str(game))
    assert status.returncode == 0 and status.stdout == store.status_text(store.status(game)), status.stderr
    # Whatever was refused, run again: the game of the two run one after the other, in the order they took.
    order = "intake-turn" if done["intake"][0] == 0 and "filed for day 1" in done["intake"][1] else "turn-intake"
    if done["turn"][0] != 0:
        assert _run("turn", str(game)).returncode == 0
    if done["intake"][0] != 0:
        assert _run(*commands["intake"]).returncode == 0
    _settled(game)
    assert _tree(game) == one_after_the_other[order]


def test_two_turns_started_together_make_one(world: Path, tmp_path: Path,
                                             one_after_the_other: dict[str, dict[str, bytes]]) -> None:
    game = _game(world, tmp_path)
    procs = [_start("turn", str(game)) for _ in range(2)]
    done = sorted(_finish(p) for p in procs)
    # One turn; the other refused by the lock, or by the guard once the first has taken the filed orders.
    assert [code for code, _, _ in done] == [0, 2]
    err = done[1][2]
    assert "holds this lock; nothing was done" in err or "no orders are filed for turn 2" in err, err
    assert GameFolder(game).turn_numbers() == [0, 1]
    _settled(game)
    assert _tree(game) == one_after_the_other["turn"]


@pytest.mark.parametrize(("point", "nth"), [("staging-write", 5), ("before-rename", 1)])
def test_a_turn_killed_mid_way_then_run_again(world: Path, tmp_path: Path, point: str, nth: int,
                                              one_after_the_other: dict[str, dict[str, bytes]]) -> None:
    game = _game(world, tmp_path)
    _kill_at(point, nth, "turn", str(game))
    # Killed while writing: the game is as it was, but for the staging folder the next turn removes.
    assert GameFolder(game).turn_numbers() == [0]
    assert [p.name[:10] for p in (game / "turns").iterdir() if p.name.startswith(".")] == [".turn-001-"]
    with GameLock(game / LOCK_NAME):
        pass
    again = _run("turn", str(game))
    assert again.returncode == 0, again.stderr
    _settled(game)
    assert _tree(game) == one_after_the_other["turn"]


def test_a_turn_killed_once_its_staging_folder_appears(world: Path, tmp_path: Path,
                                                      one_after_the_other: dict[str, dict[str, bytes]]) -> None:
    """The unwrapped command, killed as soon as its staging folder is seen: wherever that lands (or if the
    turn was quicker and committed), the turn run again gives the same game."""
    game = _game(world, tmp_path)
    proc = _start("turn", str(game))
    turns = game / "turns"
    while proc.poll() is None and not any(e.name.startswith(".turn-") for e in os.scandir(turns)):
        pass
    proc.kill()
    proc.communicate(timeout=TIMEOUT)
    committed = (turns / "turn-001").is_dir()  # killed after its rename, or not killed at all
    again = _run("turn", str(game))
    assert again.returncode == (2 if committed else 0), again.stderr
    _settled(game)
    assert _tree(game) == one_after_the_other["turn"]


@pytest.mark.parametrize(("point", "nth"), [("mail-written", 2), ("mail-recorded", 2)])
def test_an_intake_killed_mid_mailbox_then_run_again(world: Path, tmp_path: Path, point: str, nth: int,
                                                     one_after_the_other: dict[str, dict[str, bytes]]) -> None:
    game = _game(world, tmp_path)
    _kill_at(point, nth, "intake", str(game), str(world / "second"))
    recorded = len(inbox.read_index(inbox.inbox_dir(game, 1)))
    assert recorded == 4 + nth - (point == "mail-written")
    again = _run("intake", str(game), str(world / "second"))
    assert again.returncode == 0, again.stderr
    # Every mail filed once, one receipt and one reply each: the game of an intake never killed.
    expected = {k: v for k, v in one_after_the_other["intake-turn"].items() if not k.startswith("turns/turn-001")}
    _settled(game)
    assert _tree(game) == expected


def test_rollback_and_rerun_across_processes_are_byte_identical(world: Path, tmp_path: Path) -> None:
    game = _game(world, tmp_path)
    intake(game, [world / "second"])
    GameFolder(game).process_turn(None)
    first = _tree(game / "turns" / "turn-001")
    rolled = _run("rollback", str(game))
    assert rolled.returncode == 0, rolled.stderr
    assert GameFolder(game).turn_numbers() == [0]
    assert _run("turn", str(game)).returncode == 0
    assert _tree(game / "turns" / "turn-001") == first
    _settled(game)


def test_an_intake_waits_for_the_lock_with_wait(world: Path, tmp_path: Path,
                                                one_after_the_other: dict[str, dict[str, bytes]]) -> None:
    game = _game(world, tmp_path)
    with GameLock(game / LOCK_NAME):
        proc = _start("intake", str(game), str(world / "second"), "--wait", "60")
        assert proc.stderr is not None
        # Told once it meets the lock held; released only then, so it has waited, whatever the scheduling.
        told = proc.stderr.readline()
        assert told == (f"note: {game / LOCK_NAME}: another `rulesdsl intake` or `rulesdsl turn` is running on "
                        "this game; waiting up to 60 s for it to finish\n")
    code, out, err = _finish(proc)
    assert code == 0, err
    assert "3 mail(s) filed for day 1" in out
    expected = {k: v for k, v in one_after_the_other["intake-turn"].items() if not k.startswith("turns/turn-001")}
    assert _tree(game) == expected


def test_a_turn_that_waited_in_vain_is_refused_and_does_nothing(world: Path, tmp_path: Path) -> None:
    game = _game(world, tmp_path)
    before = _tree(game)
    with GameLock(game / LOCK_NAME):
        done = _run("turn", str(game), "--wait", "0.2")
    assert done.returncode == 2
    assert done.stderr.endswith("is running on this game and still holds this lock after 0.2 s of waiting; "
                                "nothing was done. Wait for it to finish, then look at the newest turn before "
                                "running again\n")
    assert _tree(game) == before
    assert _run("turn", str(game), "--wait", "soon").returncode == 2
