"""Warlord's fog of war: one turn played twice from the same game, another player's unseen units moved
differently -> the reports of the player who cannot see them, compared byte for byte."""

from __future__ import annotations

from pathlib import Path

from rulesdsl.game.folder import GameFolder

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rulesets" / "warlord.rules"

# A 21 x 7 map. Ann (city at 00203) fights Bob's infantry next to her at 00503 and moves her tanks; Bob's
# division 2 is far east, at 01503, never within sight of Ann's city (7 x 7) or divisions (3 x 3), next
# to a free city (01403) that it may attack, unseen, before Ann's battle.
SCENARIO = """\
game: {number: 30}
seed: 11
parameters: {generate_world: false, leader_share: 1, map_width: 21, map_height: 7}
players:
  - {name: "Ann", account: "1", code: "A1", capital: 1}
  - {name: "Bob", account: "2", code: "B2", capital: 2}
Sector:
  terrain: |
    ~~~~~~~~~~~~~~~~~~~~~
    ~...................~
    ~...........h.......~
    ~...................~
    ~.........f.........~
    ~...................~
    ~~~~~~~~~~~~~~~~~~~~~
  owner: {"00203": "1", "01703": "2"}
  city: {"00203": "1", "01703": "2", "01403": "3"}
City:
  - {number: 1, owner: "1", sector: "00203", level: 2, home: true, income: 3}
  - {number: 2, owner: "2", sector: "01703", level: 2, home: true, income: 3}
  - {number: 3, sector: "01403", level: 3, income: 1}
Division:
  - {owner: "1", number: 1, sector: "00303", regiments: 12, kind: TNK}
  - {owner: "1", number: 2, sector: "00202", regiments: 3, kind: INF}
  - {owner: "2", number: 1, sector: "00503", regiments: 4, kind: INF}
  - {owner: "2", number: 2, sector: "01503", regiments: 6, kind: INF}
  - {sector: "01403", regiments: 6, kind: INF}
"""

ANN = "WL-30\n1 A1\nM 1 33\nM 2 1\nC 1 1\n"
# Bob's hidden division goes north-east, or south, or stays, or attacks the free city in the first movement
# phase (and fails: a city taken would be in everyone's news): all out of Ann's sight (columns 13 to 17).
# The battle must not move Ann's dice: her battle at 00503 comes in the second phase.
HIDDEN = ["M 2 222", "M 2 555", "M 2 0", "A 2 01301", "M 2 7"]


def play(tmp: Path, name: str, bob_line: str) -> tuple[str, str]:
    scenario = tmp / "scenario.yaml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    folder = GameFolder.create(RULES, tmp / name, scenario, None)
    mail = []
    for account, text in (("ann", ANN), ("bob", f"WL-30\n2 B2\n{bob_line}\n")):
        path = tmp / f"{name}-{account}.txt"
        path.write_text(text, encoding="utf-8")
        mail.append(path)
    result = folder.process_turn(mail)
    reports = {path.stem: path.read_text(encoding="utf-8") for _, path in result.reports}
    return reports["1-ann"], reports["2-bob"]


def test_moving_unseen_units_changes_nothing_in_a_report(tmp_path: Path) -> None:
    played = [play(tmp_path, f"g{i}", line) for i, line in enumerate(HIDDEN)]
    ann_reports = {ann for ann, _ in played}
    bob_reports = {bob for _, bob in played}
    # The moves were different (Bob's own reports say so), and Ann fought and moved in every game ...
    assert len(bob_reports) == len(HIDDEN)
    ann = played[0][0]
    assert "00503" in ann and "Tanks" in ann
    assert "Your attack on 01403 fails against the free forces" in played[-1][1]
    # ... yet Ann's report is the same, byte for byte.
    assert len(ann_reports) == 1
