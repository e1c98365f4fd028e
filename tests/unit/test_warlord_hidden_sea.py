"""Warlord's fog of war at sea: one turn played several ways from the same game, another player's unseen
fleets and undetected submarine moved differently -> the reports of the player who cannot see them,
compared byte for byte."""

from __future__ import annotations

import shutil
from pathlib import Path

from rulesdsl.game.folder import GameFolder

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rulesets" / "warlord.rules"

# A 24 x 7 sea with three small islands. Ann (city at 00203) attacks Bob's destroyers at 00502 with her
# cruisers, and keeps cruisers at 00805, next to Bob's submarines at 00905: she sees that sector, but has no
# destroyer to find them. Bob's cruisers (01603) and Cid's destroyers (01803) are far east, out of Ann's
# sight (her city sees columns 0 to 5, her ships the 3 x 3 square round them).
SCENARIO = """\
game: {number: 33}
seed: 13
parameters: {generate_world: false, leader_share: 1, map_width: 24, map_height: 7}
players:
  - {name: "Ann", account: "1", code: "A1", capital: 1}
  - {name: "Bob", account: "2", code: "B2", capital: 2}
  - {name: "Cid", account: "3", code: "C3", capital: 3}
Sector:
  terrain: |
    ~~~~~~~~~~~~~~~~~~~~~~~~
    ~~~~~~~~~~~~~~~~~~~~~~~~
    ~~~~~~~~~~~~~~~~~~~~~~~~
    ~~.~~~~~~~~~~~.~~~~~.~~~
    ~~~~~~~~~~~~~~~~~~~~~~~~
    ~~~~~~~~~~~~~~~~~~~~~~~~
    ~~~~~~~~~~~~~~~~~~~~~~~~
  owner: {"00203": "1", "01403": "2", "02003": "3"}
  city: {"00203": "1", "01403": "2", "02003": "3"}
City:
  - {number: 1, owner: "1", sector: "00203", level: 2, home: true, income: 3}
  - {number: 2, owner: "2", sector: "01403", level: 2, home: true, income: 3}
  - {number: 3, owner: "3", sector: "02003", level: 2, home: true, income: 3}
Division:
  - {owner: "1", number: 1, sector: "00402", regiments: 6, kind: CRU}
  - {owner: "1", number: 2, sector: "00805", regiments: 3, kind: CRU}
  - {owner: "2", number: 1, sector: "00502", regiments: 4, kind: DES}
  - {owner: "2", number: 2, sector: "01603", regiments: 5, kind: CRU}
  - {owner: "2", number: 3, sector: "00905", regiments: 2, kind: SUB}
  - {owner: "3", number: 1, sector: "01803", regiments: 4, kind: DES}
"""

ANN = "WL-33\n1 A1\nM 1 3\nC 1 1\n"
# Bob's far fleet goes north, south, stays, closes on Cid's destroyers, or attacks them (an unseen sea
# battle, whose dice must not move Ann's); his submarines stay, or move north or south, still next to Ann's
# cruisers and in the sector she sees.
FLEET = ["M 2 111", "M 2 555", "M 2 0", "M 2 3", "M 2 33"]
SUBS = ["M 3 0", "M 3 1", "M 3 5"]
WAYS = [(f, SUBS[i % len(SUBS)]) for i, f in enumerate(FLEET)]


def play(tmp: Path, name: str, fleet: str, subs: str) -> tuple[str, str]:
    start = tmp / "start"
    if not start.exists():  # one game made, copied for each way of playing its turn
        scenario = tmp / "scenario.yaml"
        scenario.write_text(SCENARIO, encoding="utf-8")
        GameFolder.create(RULES, start, scenario, None)
    shutil.copytree(start, tmp / name)
    folder = GameFolder(tmp / name)
    mail = []
    for account, text in (("ann", ANN), ("bob", f"WL-33\n2 B2\n{fleet}\n{subs}\n")):
        path = tmp / f"{name}-{account}.txt"
        path.write_text(text, encoding="utf-8")
        mail.append(path)
    result = folder.process_turn(mail)
    reports = {path.stem: path.read_text(encoding="utf-8") for _, path in result.reports}
    return reports["1-ann"], reports["2-bob"]


def test_unseen_fleets_and_submarines_change_nothing_in_a_report(tmp_path: Path) -> None:
    played = [play(tmp_path, f"g{i}", fleet, subs) for i, (fleet, subs) in enumerate(WAYS)]
    # The moves were different (Bob's own reports say so), one of them a battle with Cid ...
    assert len({bob for _, bob in played}) == len(WAYS)
    assert "Battle at 01803" in played[4][1]
    assert "00904" in played[1][1] and "00906" in played[2][1]
    # ... Ann fought her own battle in every game ...
    ann = played[0][0]
    assert "Battle at 00502" in ann
    # ... and never saw the submarines beside her cruisers: her report is the same, byte for byte.
    assert "00905" not in ann.split("SPOTTED UNITS")[1]
    assert len({ann for ann, _ in played}) == 1
