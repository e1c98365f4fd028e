"""WCG's hidden facts of W4 (the GM's positional orders) -> two games differing in one, every other player's report
byte-identical."""

from __future__ import annotations

from pathlib import Path

from rulesdsl.game.folder import GameFolder
from rulesdsl.game.store import gm_order

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rulesets" / "wcg.rules"
WORLD = ROOT / "tests" / "golden" / "wcg" / "_world" / "scenario-base.yaml"


def _reports(game: Path, gm: list[tuple[str | None, list[str]]]) -> dict[str, bytes]:
    """The test world played one turn with the GM's orders `gm` (account or None for the world, lines) -> each
    report file of that turn, by name."""
    folder = GameFolder.create(RULES, game, WORLD, None)
    for account, lines in gm:
        gm_order(game, account, lines)
    folder.process_turn([], force=True)
    return {p.name: p.read_bytes() for p in sorted((game / "turns" / "turn-001" / "reports").iterdir())}


def _others(reports: dict[str, bytes], account: str) -> dict[str, bytes]:
    return {name: data for name, data in reports.items() if not name.startswith(f"{account}-")}


def test_w4_private_grant_and_fine(tmp_path: Path) -> None:
    # R72: GRANT and FINE correct one position's saved money; only that position is told.
    plain = _reports(tmp_path / "a", [])
    granted = _reports(tmp_path / "b", [("1", ["GRANT 5.0"])])
    fined = _reports(tmp_path / "c", [("1", ["GRANT 5.0", "FINE 2.0"])])
    assert plain != granted != fined  # Ann's own report differs: the fact is there to hide
    assert _others(plain, "1") == _others(granted, "1") == _others(fined, "1")
