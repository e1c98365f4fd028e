"""rulesets/warlord.rules' A orders to a sector that no route reaches -> a failed order saying why (the golden
movement scenario covers the order to one division; these, the order to every unit at a location)."""

from __future__ import annotations

import json
from pathlib import Path

from rulesdsl.game.folder import GameFolder

ROOT = Path(__file__).resolve().parents[2]
MOVEMENT = ROOT / "tests" / "golden" / "warlord" / "movement" / "scenario.yaml"


def _orders(tmp_path: Path, *lines: str) -> dict[str, str]:
    """Ann's first turn with `lines` -> each order's text and its status (and reason when it failed)."""
    folder = GameFolder.create(ROOT / "rulesets" / "warlord.rules", tmp_path / "game", MOVEMENT, None)
    mail = tmp_path / "ann.txt"
    mail.write_text("\n".join(["WL-11", "1 A1", *lines]) + "\n", encoding="utf-8")
    result = folder.process_turn([mail])
    report = json.loads((result.folder / "reports" / "1-ann.json").read_text(encoding="utf-8"))
    return {r["text"]: r["status"] + (f": {r['reason']}" if r.get("reason") else "")
            for r in report["orders"]["used"]}


def test_a_location_order_that_no_unit_there_can_follow_fails(tmp_path: Path) -> None:
    # Ann's six divisions at 00103; 00803 is sea, which no land unit enters.
    assert _orders(tmp_path, "A 00103 00803")["A 00103 00803"] == \
        "failed: no route from 00103 to 00803: your units there cannot enter sea"


def test_a_location_order_that_some_units_there_can_follow_is_done(tmp_path: Path) -> None:
    # The mountains at 00403: infantry and engineers can enter them; tanks and artillery are stopped and told.
    assert _orders(tmp_path, "A 00103 00403")["A 00103 00403"] == "done"
