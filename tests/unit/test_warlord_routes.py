"""rulesets/warlord.rules' A orders to a sector that no route reaches -> a failed order saying why (the golden
movement scenario covers the order to one division; these, the order to every unit at a location)."""

from __future__ import annotations

import json
from pathlib import Path

from rulesdsl.game.folder import GameFolder

ROOT = Path(__file__).resolve().parents[2]
MOVEMENT = ROOT / "tests" / "golden" / "warlord" / "movement" / "scenario.yaml"


def _orders(tmp_path: Path, *lines: str, scenario: Path = MOVEMENT) -> dict[str, str]:
    """Ann's first turn with `lines` -> each order's text and its status (and reason when it failed)."""
    folder = GameFolder.create(ROOT / "rulesets" / "warlord.rules", tmp_path / "game", scenario, None)
    mail = tmp_path / "ann.txt"
    mail.write_text("\n".join(["WL-11", "1 A1", *lines]) + "\n", encoding="utf-8")
    result = folder.process_turn([mail])
    report = json.loads((result.folder / "reports" / "1-ann.json").read_text(encoding="utf-8"))
    return {r["text"]: r["status"] + (f": {r['reason']}" if r.get("reason") else "")
            for r in report["orders"]["used"]}


def test_a_location_order_that_no_unit_there_can_follow_fails(tmp_path: Path) -> None:
    # Ann's tanks alone at 00103; the mountains at 00402 are impassable to armour.
    only_tanks = tmp_path / "tanks.yaml"
    text = MOVEMENT.read_text(encoding="utf-8")
    only_tanks.write_text(text[:text.index("Division:")] + "Division:\n"
                          '  - {owner: "1", number: 2, sector: "00103", regiments: 3, kind: TNK}\n', encoding="utf-8")
    assert _orders(tmp_path, "A 00103 00402", scenario=only_tanks)["A 00103 00402"] == \
        "failed: no route from 00103 to 00402: your units there cannot enter mountains"


def test_a_location_order_to_the_sea_goes_to_its_shore_to_board(tmp_path: Path) -> None:
    # "if land units are ordered to move into the sea sector containing the transport they will board them":
    # 00803 is sea; with no transport there yet the units go to its shore and wait, as a unit's A order does.
    assert _orders(tmp_path, "A 00103 00803")["A 00103 00803"] == "done"


def test_a_location_order_that_some_units_there_can_follow_is_done(tmp_path: Path) -> None:
    # The mountains at 00403: infantry and engineers can enter them; tanks and artillery are stopped and told.
    assert _orders(tmp_path, "A 00103 00403")["A 00103 00403"] == "done"
