"""The bundled example runs end to end through the command line."""

from __future__ import annotations

from pathlib import Path

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
