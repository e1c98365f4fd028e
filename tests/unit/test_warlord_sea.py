"""Warlord's submarines' surprise, one battle round played -> who fired, read from the battle report."""

from __future__ import annotations

from pathlib import Path

from rulesdsl.game.folder import GameFolder

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rulesets" / "warlord.rules"

# One round a battle (combat_rounds: 1), so that round 1, where surprise counts, is the whole battle. Bob's
# submarines sail into Ann's cruisers at 00302; in the second game a destroyer of Ann's is with them.
SCENARIO = """\
game: {number: 34}
seed: 3
parameters: {generate_world: false, leader_share: 1, map_width: 8, map_height: 5, combat_rounds: 1}
players:
  - {name: "Ann", account: "1", code: "A1", capital: 1}
  - {name: "Bob", account: "2", code: "B2", capital: 2}
Sector:
  terrain: |
    ~~~~~~~~
    ~.~~~~.~
    ~~~~~~~~
    ~~~~~~~~
    ~~~~~~~~
  owner: {"00101": "1", "00601": "2"}
  city: {"00101": "1", "00601": "2"}
City:
  - {number: 1, owner: "1", sector: "00101", level: 2, home: true, income: 3}
  - {number: 2, owner: "2", sector: "00601", level: 2, home: true, income: 3}
Division:
  - {owner: "1", number: 1, sector: "00302", regiments: 10, kind: CRU}
  - {owner: "2", number: 1, sector: "00402", regiments: 6, kind: SUB}
"""

DESTROYER = '  - {owner: "1", number: 2, sector: "00302", regiments: 1, kind: DES}\n'


def battle(tmp: Path, name: str, scenario_text: str) -> str:
    scenario = tmp / f"{name}.yaml"
    scenario.write_text(scenario_text, encoding="utf-8")
    folder = GameFolder.create(RULES, tmp / name, scenario, None)
    mail = tmp / f"{name}-bob.txt"
    mail.write_text("WL-34\n2 B2\nM 1 7\n", encoding="utf-8")
    result = folder.process_turn([mail])
    reports = {path.stem: path.read_text(encoding="utf-8") for _, path in result.reports}
    return next(line.strip() for line in reports["1-ann"].splitlines() if "Battle at 00302" in line)


def test_submarines_surprise_a_fleet_without_a_destroyer(tmp_path: Path) -> None:
    # Ten cruisers fire 500 tenths: at least 62 hits, two submarines, whenever they fire at all.
    surprised = battle(tmp_path, "alone", SCENARIO)
    assert surprised.endswith("Bob 0 ships."), surprised
    assert not surprised.startswith("Battle at 00302: you lose 0 ships"), surprised
    found = battle(tmp_path, "escorted", SCENARIO + DESTROYER)
    assert not found.endswith("Bob 0 ships."), found


# Ann's division 2 (10 tanks) is aboard her transport flotilla 3 at 00302, next to Bob's 20
# infantry on the hills at 00402. Its landing there fails, and it falls back to the sea it came from.
LANDING = """\
game: {number: 36}
seed: 5
parameters: {generate_world: false, leader_share: 1, map_width: 8, map_height: 5}
players:
  - {name: "Ann", account: "1", code: "A1", capital: 1}
  - {name: "Bob", account: "2", code: "B2", capital: 2}
Sector:
  terrain: |
    ~~~~~~~~
    ~.~~hhh~
    ~~~~hhh~
    ~~~~hhh~
    ~~~~~~~~
  owner: {"00101": "1", "00601": "2", "00402": "2"}
  city: {"00101": "1", "00601": "2"}
City:
  - {number: 1, owner: "1", sector: "00101", level: 2, home: true, income: 3}
  - {number: 2, owner: "2", sector: "00601", level: 2, home: true, income: 3}
Division:
  - {owner: "1", number: 2, sector: "00302", regiments: 10, kind: TNK, aboard: "1/3"}
  - {owner: "1", number: 3, sector: "00302", regiments: 2, kind: TRN}
  - {owner: "2", number: 1, sector: "00402", regiments: 20, kind: INF}
"""


def ann_report(tmp: Path, name: str, lines: str) -> str:
    scenario = tmp / f"{name}.yaml"
    scenario.write_text(LANDING, encoding="utf-8")
    folder = GameFolder.create(RULES, tmp / name, scenario, None)
    mail = tmp / f"{name}-ann.txt"
    mail.write_text(f"WL-36\n1 A1\n{lines}", encoding="utf-8")
    result = folder.process_turn([mail])
    return next(path.read_text(encoding="utf-8") for _, path in result.reports if path.stem == "1-ann")


def test_a_failed_landing_falls_back_aboard_or_is_lost(tmp_path: Path) -> None:
    # Designer's note (carry_cargo): the division falls back to the sea sector it landed from, and goes back
    # aboard a transport of its owner there with room ...
    held = ann_report(tmp_path, "held", "M 2 3\n")
    assert "Your attack on 00402 fails against Bob; your forces fall back." in held
    assert "Division 2 is taken back aboard flotilla 3 at 00302." in held
    assert "In Transit (flotilla 3)" in held
    # ... and with its transport gone (flotilla 3 sails west in the same phase, after division 2's landing:
    # units move in number order) it is lost.
    lost = ann_report(tmp_path, "lost", "M 2 3\nM 3 7\n")
    assert ("Division 2 falls back from 00402 to 00302.\n"
            "  Division 2 has no transport to fall back to at 00302 and is lost.") in lost
    assert "  00302    2" not in lost


# Designer's note (try_land): an A order given aboard, far from any land its goal can be reached over, is
# taken; the unit lands on the transport's neighbour nearest the goal, wherever the transport has sailed.
SAILING = LANDING.split("Division:\n")[0] + """\
Division:
  - {owner: "1", number: 1, sector: "00201", regiments: 1, kind: TRN}
  - {owner: "1", number: 2, sector: "00201", regiments: 3, kind: INF, aboard: "1/1"}
  - {owner: "2", number: 1, sector: "00501", regiments: 2, kind: INF}
"""


def test_an_a_order_aboard_lands_nearest_its_goal_where_the_transport_sails(tmp_path: Path) -> None:
    scenario = tmp_path / "sailing.yaml"
    scenario.write_text(SAILING, encoding="utf-8")
    folder = GameFolder.create(RULES, tmp_path / "sailing", scenario, None)
    mail = tmp_path / "sailing-ann.txt"
    mail.write_text("WL-36\n1 A1\nM 1 4\nA 2 00503\n", encoding="utf-8")
    result = folder.process_turn([mail])
    ann = next(path.read_text(encoding="utf-8") for _, path in result.reports if path.stem == "1-ann")
    assert "A 2 00503                done" in ann
    # The transport (number 1) sails first, to 00302; from there 00402 is the land nearest 00503.
    assert "Division 2 lands from flotilla 1 at 00402." in ann
    assert "  00503    2 N    Infantry" in ann


# Designer's note (shore): an A order from land to a sea sector walks to the goal's shore and boards there.
BOARDING = LANDING.split("Division:\n")[0] + """\
Division:
  - {owner: "1", number: 1, sector: "00302", regiments: 1, kind: TRN}
  - {owner: "1", number: 2, sector: "00503", regiments: 3, kind: INF}
  - {owner: "1", number: 3, sector: "00503", regiments: 3, kind: INF}
  - {owner: "2", number: 1, sector: "00601", regiments: 2, kind: INF}
"""


def test_an_a_order_to_the_sea_boards_a_transport_there(tmp_path: Path) -> None:
    scenario = tmp_path / "boarding.yaml"
    scenario.write_text(BOARDING, encoding="utf-8")
    folder = GameFolder.create(RULES, tmp_path / "boarding", scenario, None)
    mail = tmp_path / "boarding-ann.txt"
    mail.write_text("WL-36\n1 A1\nA 2 00302\nA 3 00304\n", encoding="utf-8")
    result = folder.process_turn([mail])
    ann = next(path.read_text(encoding="utf-8") for _, path in result.reports if path.stem == "1-ann")
    assert "A 2 00302                done" in ann and "A 3 00304                done" in ann
    assert "Division 2 boards flotilla 1 at 00302." in ann
    assert "  00302    2 N    Infantry            3 In Transit (flotilla 1)" in ann
    # No transport at 00304: division 3 waits on its shore, the order going on.
    assert "  00403    3 N    Infantry            3 A 00304" in ann


def test_a_location_a_order_to_the_sea_boards_the_units_there(tmp_path: Path) -> None:
    """"if land units are ordered to move into the sea sector containing the transport they will board them":
    the units of a location as well as a unit (the location order was refused: no route into the sea)."""
    scenario = tmp_path / "boarding.yaml"
    scenario.write_text(BOARDING, encoding="utf-8")
    folder = GameFolder.create(RULES, tmp_path / "boarding", scenario, None)
    mail = tmp_path / "boarding-ann.txt"
    mail.write_text("WL-36\n1 A1\nA 00503 00302\n", encoding="utf-8")
    result = folder.process_turn([mail])
    ann = next(path.read_text(encoding="utf-8") for _, path in result.reports if path.stem == "1-ann")
    assert "A 00503 00302            done" in ann
    assert "Division 2 boards flotilla 1 at 00302." in ann and "Division 3 boards flotilla 1 at 00302." in ann
    assert "  00302    2 N    Infantry            3 In Transit (flotilla 1)" in ann
