"""Warlord's HTML page against its text report: a turn of the golden `flights` scenario -> both show the
standing F orders that will fly again next turn (the page had left them out)."""

from __future__ import annotations

from pathlib import Path

from rulesdsl.game.folder import GameFolder

ROOT = Path(__file__).resolve().parents[2]
FLIGHTS = ROOT / "tests" / "golden" / "warlord" / "flights"


def test_the_page_lists_the_standing_flights_the_text_lists(tmp_path: Path) -> None:
    folder = GameFolder.create(ROOT / "rulesets" / "warlord.rules", tmp_path / "game", FLIGHTS / "scenario.yaml",
                               None)
    result = folder.process_turn(sorted((FLIGHTS / "turn-1").glob("*.txt")))
    text = (result.folder / "reports" / "1-ann.txt").read_text(encoding="utf-8")
    page = (result.folder / "reports" / "1-ann.html").read_text(encoding="utf-8")
    standing = [line.split(": ", 1)[1] for line in text.splitlines() if line.strip().startswith("Standing flight:")]
    assert standing == ["F 1 2 23", "F 2 3 10"]
    airbases = page[page.index('<section id="airbases">'):]
    airbases = airbases[:airbases.index("</section>")]
    assert all(f"<li>{f}</li>" in airbases for f in standing)
