"""W5b's private facts (R45 forts, R68 spy flights): two games differing in one such fact -> every other
player's reports byte-identical."""

from __future__ import annotations

from pathlib import Path

from rulesdsl.game.folder import GameFolder

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rulesets" / "wcg.rules"
WORLD = ROOT / "tests" / "golden" / "wcg" / "_world" / "scenario-base.yaml"
# W1's chart row for the spy plane (w14-design.md R71), added to the rules' copy until the chart has it.
SPY_ROW = '  SPY: "spy plane", AIR, 120, 80, 12, 8, 4, 2, 4, 2, 1, 2, 0, 5\n'


def _rules(tmp: Path) -> Path:
    text = RULES.read_text(encoding="utf-8")
    if '  SPY: "spy plane"' not in text:
        anchor = text.index("\n", text.index('  CGO: "cargo ship"')) + 1
        text = text[:anchor] + SPY_ROW + text[anchor:]
    for template in RULES.parent.glob("wcg.*.j2"):
        (tmp / template.name).write_bytes(template.read_bytes())
    path = tmp / "wcg.rules"
    path.write_text(text, encoding="utf-8")
    return path


def _play(tmp: Path, extra: str, turns: dict[int, list[str]]) -> dict[tuple[int, str], str]:
    """The test world with `extra` scenario text and Ann's lines by turn -> every report, by turn and name."""
    tmp.mkdir()
    scenario = tmp / "scenario.yaml"
    scenario.write_text(WORLD.read_text(encoding="utf-8").replace("Force:\n", "Force:\n" + extra, 1)
                        .replace("export_level: 20, income: 72, ports: 10}",
                                 'export_level: 20, income: 72, ports: 10, points: {"1": 100}}', 1),
                        encoding="utf-8")
    folder = GameFolder.create(_rules(tmp), tmp / "game", scenario, None)
    out: dict[tuple[int, str], str] = {}
    for turn in range(1, 4):  # January: budget, action, reaction (the month's end flies the planes)
        mail = tmp / f"mail-{turn}.txt"
        mail.write_text("\n".join(["WCG-1", "1 A1", *turns.get(turn, [])]) + "\n", encoding="utf-8")
        result = folder.process_turn([mail], force=True)
        for _, path in result.reports:
            out[(result.turn, path.stem)] = path.read_text(encoding="utf-8")
        assert result.news is not None
        out[(result.turn, "news")] = result.news.read_text(encoding="utf-8")
    return out


def _others(reports: dict[tuple[int, str], str]) -> dict[tuple[int, str], str]:
    return {k: v for k, v in reports.items() if not k[1].startswith("1-")}


def test_w5b_private_spy_flight(tmp_path: Path) -> None:
    plane = '  - {owner: "1", country: USA, kind: SPY, count: 1, free: true}\n'
    flown = _play(tmp_path / "a", plane, {2: ["SPY USA,MEX"]})
    kept = _play(tmp_path / "b", plane, {})
    assert "20 infantry of Bob" in flown[(3, "1-ann")]
    assert "20 infantry of Bob" not in kept[(3, "1-ann")]
    assert _others(flown) == _others(kept)


def test_w5b_private_fort(tmp_path: Path) -> None:
    built = _play(tmp_path / "a", "", {2: ["FORTIFY USA,INF,10"]})
    none = _play(tmp_path / "b", "", {})
    assert "10 infantry fortified" in built[(2, "1-ann")]
    assert "10 infantry fortified" not in none[(2, "1-ann")]
    assert _others(built) == _others(none)
