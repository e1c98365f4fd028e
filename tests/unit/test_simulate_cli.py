"""`rulesdsl simulate` on the command line -> its exit status, the statistics on stdout, the faults of the rules
or the scenario on stderr."""

from __future__ import annotations

import io
import shlex
import sys
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from rulesdsl.cli import main
from rulesdsl.simulate import run as runner
from rulesdsl.simulate.plots import FILES
from rulesdsl.simulate.results import CRASH, GameJob, GameResult, Problem

ROOT = Path(__file__).resolve().parents[2]
COVERT = ROOT / "rulesets" / "covert.rules"
SCENARIO = ROOT / "examples" / "covert" / "scenario.yaml"


def test_rules_that_do_not_check_exit_2_with_the_diagnostics(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    rules = tmp_path / "broken.rules"
    rules.write_text(COVERT.read_text().replace("order bribe ", "order bribe bribe ", 1))
    assert main(["simulate", str(rules), "--games", "2"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and f"{rules}:" in err and ": error[" in err and "1 error(s)" in err


def test_a_bad_scenario_names_its_json_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "two.yaml"
    bad.write_text("players:\n  - {name: Ann, account: '1', code: A}\n  - {name: Bob, account: 2, code: 'B B'}\n")
    assert main(["simulate", str(COVERT), "--scenario", str(bad), "--games", "2"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: two.yaml: $.players[1].code: 'B B' does not match")


def test_a_missing_file_and_bad_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "nowhere.rules"]) == 2
    assert capsys.readouterr().err == "error: nowhere.rules: no such file\n"
    with pytest.raises(SystemExit) as e:
        main(["simulate", str(COVERT), "--games", "0"])
    assert e.value.code == 2 and "--games: 0: at least 1" in capsys.readouterr().err


def test_a_problem_found_is_exit_1(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def crashing(job: GameJob) -> GameResult:
        return GameResult(job.index, job.seed, 2, seats=6,
                          problems=[Problem(CRASH, job.index, 2, "covert.rules:300: boom")] if job.index == 1 else [])

    monkeypatch.setattr(runner, "_real_play", lambda: crashing)
    assert main(["simulate", str(COVERT), "--scenario", str(SCENARIO), "--games", "3", "--workers", "1",
                 "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "Problems: 1 (crashes 1," in out and "  crash: game 1 (seed " in out
    assert "turn 2: covert.rules:300: boom" in out


def test_the_readme_command_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    line = next(x for x in readme.splitlines() if x.startswith("rulesdsl simulate "))
    args = shlex.split(line)[1:]
    # Fewer and shorter games than the README's, in this process: the command is what is tried.
    for option, small in (("--games", "3"), ("--turns", "3")):
        args[args.index(option) + 1] = small
    for name in ("rulesets", "examples"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    assert main([*args, "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Covert Operations (covert.rules): 3 games of up to 3 turns, 6 players, seed 1\n")
    plots = Path(args[args.index("--plots") + 1])
    assert sorted(p.name for p in plots.iterdir()) == sorted(FILES)
    assert out.endswith(f"\nCharts: {', '.join(str(plots / name) for name in FILES)}\n")


def test_a_small_covert_run(text_snapshot: SnapshotAssertion, monkeypatch: pytest.MonkeyPatch,
                            capsys: pytest.CaptureFixture[str]) -> None:
    # What a designer reads: 8 games of Covert's demo scenario, up to 12 turns. A change to the rules, to how
    # random orders are written or to the statistics shows here.
    monkeypatch.chdir(ROOT)
    assert main(["simulate", "rulesets/covert.rules", "--scenario", "examples/covert/scenario.yaml", "--games", "8",
                 "--turns", "12", "--seed", "3", "--workers", "1"]) in (0, 1)
    assert capsys.readouterr().out == text_snapshot


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("quiet", [False, True])
def test_the_bar_on_a_terminal_unless_quiet(quiet: bool, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(runner, "_real_play", lambda: lambda job: GameResult(job.index, job.seed, 1, seats=6))
    monkeypatch.delenv("RULESDSL_PROGRESS")
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["simulate", str(COVERT), "--games", "5", "--workers", "1", *(["--quiet"] if quiet else [])]) == 0
    assert capsys.readouterr().out.startswith("Covert Operations (covert.rules): 5 games")
    shown = terminal.getvalue()
    assert (shown == "") if quiet else ("games" in shown and "done in" in shown and "games: 5/5" in shown)
