"""The bundled example runs end to end through the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulesdsl.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_check_covert_is_clean(capsys) -> None:
    assert main(["check", str(ROOT / "rulesets" / "covert.rules")]) == 0
    out = capsys.readouterr().out
    assert "error" not in out and "warning" not in out


def test_demo_turn(tmp_path: Path, capsys) -> None:
    game = tmp_path / "demo"
    assert main(["new", str(ROOT / "rulesets" / "covert.rules"), str(game),
                 "--scenario", str(ROOT / "examples" / "covert" / "scenario.yaml")]) == 0
    orders = sorted(str(p) for p in (ROOT / "examples" / "covert" / "day1").glob("*.txt"))
    assert main(["turn", str(game), *orders, "--show", "20408"]) == 0
    out = capsys.readouterr().out
    assert "6 report(s) for turn 1" in out
    assert "PERSONAL INFORMATION" in out and "Spectre" in out
    assert len(list((game / "turns" / "turn-001" / "reports").glob("*.txt"))) == 6


def test_five_day_demo_game(tmp_path: Path) -> None:
    """The bundled demo: six players, five days, every report complete."""
    from rulesdsl.game.folder import GameFolder

    example = ROOT / "examples" / "covert"
    folder = GameFolder.create(ROOT / "rulesets" / "covert.rules", tmp_path / "demo", example / "scenario.yaml", None)
    sections = ["PERSONAL INFORMATION", "PLAYER IN POSITION TO WIN", "NEWS HEADLINES", "COUNTRIES UNDER YOUR INFLUENCE",
                "COUNTRIES YOU LOST THIS TURN", "COUNTRIES NOT UNDER YOUR INFLUENCE", "MILITARY REPORTS", "SPY REPORTS",
                "CONTACT MESSAGES FROM OTHER PLAYERS", "YOUR ORDERS THIS TURN", "ORDERS ON FILE"]
    for day in range(1, 6):
        result = folder.process_turn(sorted((example / f"day{day}").glob("*.txt")))
        assert result.turn == day
        # Hydra resigns on day 5 and still gets that day's report; nobody is dropped before.
        assert len(result.reports) == 6
        for _, path in result.reports:
            text = path.read_text(encoding="utf-8")
            positions = [text.index(s) for s in sections]
            assert positions == sorted(positions), f"sections out of order in {path.name}"
    hydra = (folder.turns_dir / "turn-005" / "reports" / "13579-hydra-trading-company.txt").read_text()
    assert "You have left this game." in hydra


def test_an_internal_error_is_reported_as_our_bug_without_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: object) -> None:
        raise KeyError("boom")

    monkeypatch.setattr("rulesdsl.cli.check_path", broken)
    monkeypatch.delenv("RULESDSL_TRACEBACK", raising=False)
    rules = tmp_path / "x.rules"
    rules.write_text('ruleset "X" { }\n', encoding="utf-8")
    assert main(["check", str(rules)]) == 70
    err = capsys.readouterr().err
    assert "internal error (KeyError: 'boom')" in err and "bug in rulesdsl" in err
    assert "Traceback" not in err


def test_an_unreadable_file_is_an_error_not_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def unreadable(path: Path, *_: object) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr("rulesdsl.cli.check_path", unreadable)
    rules = tmp_path / "x.rules"
    rules.write_text('ruleset "X" { }\n', encoding="utf-8")
    assert main(["check", str(rules)]) == 2
    assert capsys.readouterr().err == f"error: {rules}: Permission denied\n"
