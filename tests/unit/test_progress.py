"""Progress on long runs: a turn, a new game and an intake -> the stages the GM sees on stderr (plain lines, or
rich's bar on a terminal), and stdout the same whatever is shown."""

from __future__ import annotations

import io
import mailbox
import re
import shutil
import subprocess
import sys
from email.message import EmailMessage
from pathlib import Path

import pytest
from rich.console import Console

from rulesdsl.cli import build_parser, main
from rulesdsl.game.folder import GameFolder
from rulesdsl.game.intake import intake
from rulesdsl.game.progress import NULL, BarProgress, LineProgress, progress_for

ROOT = Path(__file__).resolve().parents[2]
COVERT = ROOT / "rulesets" / "covert.rules"
SCENARIO = ROOT / "examples" / "covert" / "scenario.yaml"
DAY1 = ROOT / "examples" / "covert" / "day1"
# A line's seconds differ from run to run: they are taken out before any comparison.
_SECONDS = re.compile(r" \([0-9]+\.[0-9]{2} s\)$")


@pytest.fixture(scope="module")
def covert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Covert game at its start, copied by each test that changes it."""
    root = tmp_path_factory.mktemp("progress") / "game"
    GameFolder.create(COVERT, root, SCENARIO, None)
    return root


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def _mail(body: str, mid: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = "player@example.org"
    msg["Subject"] = "orders"
    msg["Message-ID"] = mid
    msg.set_content(body)
    return msg.as_bytes()


def test_lines_of_a_turn(covert: Path, tmp_path: Path) -> None:
    root = _copy(covert, tmp_path / "game")
    out = io.StringIO()
    folder = GameFolder(root)
    phases = sum(1 for phase in folder.load_game().spec.phases if not phase.at_start)
    assert phases > 1
    lines = LineProgress(out, "g: ", seconds=False)
    folder.process_turn(sorted(DAY1.iterdir()), progress=lines)
    lines.done()  # as the command line does: the last stage's line is written as it ends
    assert out.getvalue().splitlines() == [
        "g: loading the state",
        f"g: running the turn: {phases}/{phases}",
        "g: writing the reports: 6/6",
        "g: saving the state",
    ]


def test_lines_of_a_new_game(tmp_path: Path) -> None:
    out = io.StringIO()
    lines = LineProgress(out, seconds=False)
    GameFolder.create(COVERT, tmp_path / "game", SCENARIO, None, lines)
    lines.done()
    assert out.getvalue().splitlines() == [
        "checking the rules", "making the world", "saving the state", "reading the state back",
        "writing the reports: 6/6",
    ]


def test_lines_of_an_intake(covert: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(covert, tmp_path / "game")
    box = mailbox.Maildir(tmp_path / "Maildir", create=True)
    box.add(_mail("CO-175\n13579\nHEADS2\nB,SAF,9\n", "<a@example.org>"))
    box.add(_mail("CO-175\n20408\nALPHA789\nB,NAF,5\n", "<b@example.org>"))
    box.add(_mail("CO-175\n13579\nHEADS2\nB,SAF,9\n", "<a@example.org>"))  # read twice: counted, filed once
    box.add(_mail("CO-175\n9999\nNOTBIRD\nB,SAF,9\n", "<m@example.org>"))
    mbox = mailbox.mbox(tmp_path / "more.mbox", create=True)
    mbox.add(_mail("CO-175\n4321\nINK8\nB,SAF,2\n", "<o@example.org>"))
    mbox.close()
    out = io.StringIO()
    lines = LineProgress(out, seconds=False)
    result = intake(root, [tmp_path / "Maildir", tmp_path / "more.mbox"], lines)
    lines.done()
    assert out.getvalue().splitlines() == ["loading the state", "reading Maildir: 4/4", "reading more.mbox: 1/1"]
    assert (len(result.filed), result.duplicates) == (3, 1)
    # The command line: the same stages, with their seconds, before intake's warnings; all mail read again.
    assert main(["intake", str(root), str(tmp_path / "Maildir"), "--progress", "lines"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert [_SECONDS.sub("", line) for line in err] == [f"{root}: loading the state", f"{root}: reading Maildir: 4/4"]
    assert all(_SECONDS.search(line) for line in err)


def test_the_bar_on_a_terminal(covert: Path, tmp_path: Path) -> None:
    root = _copy(covert, tmp_path / "game")
    screen = io.StringIO()
    bar = BarProgress(Console(file=screen, force_terminal=True, width=120), "g: ")
    GameFolder(root).process_turn(sorted(DAY1.iterdir()), progress=bar)
    bar.done()
    shown = screen.getvalue()
    # The bar was drawn (terminal codes), and each stage with it; it ends in one summary line, its counts.
    assert "\x1b[" in shown
    for stage in ("loading the state", "running the turn", "writing the reports", "saving the state"):
        assert stage in shown
    # The bar is cleared and the cursor shown again (ESC [?25h) before the summary.
    summary = shown.rsplit("\x1b[?25h", 1)[-1].lstrip("\r")
    assert summary.count("\n") == 1
    assert summary.startswith("g: done in ")
    assert "writing the reports: 6/6 (" in summary


def test_the_mode_chosen() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert progress_for("none", Terminal()) is NULL
    assert isinstance(progress_for("auto", io.StringIO()), LineProgress)
    assert isinstance(progress_for("lines", Terminal()), LineProgress)
    bar = progress_for("auto", Terminal())
    assert isinstance(bar, BarProgress)
    bar.done()


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[str, str]:
    assert main(list(argv)) == 0
    got = capsys.readouterr()
    return got.out, got.err


def test_stdout_is_the_same_whatever_the_progress(covert: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    outs = {}
    for mode in ("none", "lines"):
        root = tmp_path / mode
        new_out, new_err = _cli(capsys, "new", str(COVERT), str(root), "--scenario", str(SCENARIO),
                                "--progress", mode)
        turn_out, turn_err = _cli(capsys, "turn", str(root), *map(str, sorted(DAY1.iterdir())), "--progress", mode)
        outs[mode] = (new_out + turn_out).replace(str(root), "GAMEDIR")
        if mode == "none":
            assert (new_err, turn_err) == ("", "")
        else:
            lines = [_SECONDS.sub("", line) for line in turn_err.splitlines()]
            assert lines[0] == f"{root}: loading the state"
            assert lines[2:] == [f"{root}: writing the reports: 6/6", f"{root}: saving the state"]
            assert all(_SECONDS.search(line) for line in turn_err.splitlines())
            assert f"{root}: writing the reports: 6/6" in [_SECONDS.sub("", x) for x in new_err.splitlines()]
    assert outs["none"] == outs["lines"]


def test_lines_never_import_rich(covert: Path, tmp_path: Path) -> None:
    """`rulesdsl turn` on a pipe does not load rich: its import costs more than a small game's turn."""
    root = _copy(covert, tmp_path / "game")
    code = ("import sys; from rulesdsl.cli import main; status = main(sys.argv[1:]); "
            "assert not [m for m in sys.modules if m.split('.')[0] == 'rich'], 'rich imported'; sys.exit(status)")
    done = subprocess.run([sys.executable, "-c", code, "turn", str(root), *map(str, sorted(DAY1.iterdir())),
                           "--progress", "lines"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "writing the reports: 6/6" in done.stderr


def test_the_environment_sets_the_default(covert: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("RULESDSL_PROGRESS", "lines")
    assert build_parser().parse_args(["turn", "g"]).progress == "lines"
    assert build_parser().parse_args(["intake", "g", "box", "--progress", "none"]).progress == "none"
    monkeypatch.setenv("RULESDSL_PROGRESS", "loud")
    assert main(["turn", str(covert)]) == 2
    assert capsys.readouterr().err == ("error: RULESDSL_PROGRESS: 'loud' is not a progress mode; use one of auto, "
                                       "bar, lines, none\n")
