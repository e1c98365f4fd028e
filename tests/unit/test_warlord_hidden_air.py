"""Warlord's air forces and the fog of war: one turn played from the same game with another player's unseen
aircraft used in different ways -> the reports of the player who cannot see them, compared byte for byte;
and what an observation mission over another player's land shows of him."""

from __future__ import annotations

from pathlib import Path

from rulesdsl.game.folder import GameFolder

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rulesets" / "warlord.rules"

# A 21 x 7 map. Ann (city 1 at 00203, sight 3: columns 20 and 0 to 5) sends fighters and bombers against a
# free city's forces at 00703 that she cannot see from home. Bob's cities 2 (01703) and 3 (01903), his
# division at 01503 and the free city at 01303 are all out of her sight.
SCENARIO = """\
game: {number: 46}
seed: 13
parameters: {generate_world: false, leader_share: 1, map_width: 21, map_height: 7}
players:
  - {name: "Ann", account: "1", code: "A1", capital: 1}
  - {name: "Bob", account: "2", code: "B2", capital: 2}
Sector:
  terrain: |
    ~~~~~~~~~~~~~~~~~~~~~
    ~...................~
    ~...................~
    ~...................~
    ~...................~
    ~...................~
    ~~~~~~~~~~~~~~~~~~~~~
  owner: {"00203": "1", "01703": "2", "01903": "2"}
  city: {"00203": "1", "01703": "2", "01903": "3", "00703": "4", "01303": "5"}
City:
  - {number: 1, owner: "1", sector: "00203", level: 2, home: true, income: 3, fighters: 6, bombers: 4}
  - {number: 2, owner: "2", sector: "01703", level: 2, home: true, income: 3, fighters: 6, bombers: 4}
  - {number: 3, owner: "2", sector: "01903", level: 1, income: 1, fighters: 2}
  - {number: 4, sector: "00703", level: 1, income: 1}
  - {number: 5, sector: "01303", level: 1, income: 1}
Division:
  - {owner: "1", number: 1, sector: "00203", regiments: 5, kind: INF}
  - {owner: "2", number: 1, sector: "01503", regiments: 6, kind: INF}
  - {owner: "2", number: 2, sector: "01903", regiments: 3, kind: TNK}
  - {sector: "00703", regiments: 8, kind: INF}
  - {sector: "01303", regiments: 4, kind: INF}
"""

ANN = "WL-46\n1 A1\nO 3 00703\nB 2 00703\n"
# Bob's aircraft: an O near home that attacks the free city's forces at 01303, a B on them, an F between his
# airbases, a watch, and nothing; all out of Ann's sight.
HIDDEN = ["O 2 01505", "B 3 01303", "F 2 3 22", "W 2 4", ""]


def play(tmp: Path, name: str, ann: str, bob: str) -> tuple[str, str]:
    scenario = tmp / "scenario.yaml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    folder = GameFolder.create(RULES, tmp / name, scenario, None)
    mail = []
    for account, text in (("ann", ann), ("bob", f"WL-46\n2 B2\n{bob}\n")):
        path = tmp / f"{name}-{account}.txt"
        path.write_text(text, encoding="utf-8")
        mail.append(path)
    result = folder.process_turn(mail)
    reports = {path.stem: path.read_text(encoding="utf-8") for _, path in result.reports}
    return reports["1-ann"], reports["2-bob"]


def test_unseen_aircraft_change_nothing_in_a_report(tmp_path: Path) -> None:
    played = [play(tmp_path, f"g{i}", ANN, line) for i, line in enumerate(HIDDEN)]
    ann_reports = {ann for ann, _ in played}
    bob_reports = {bob for _, bob in played}
    # Bob's aircraft did something different each time (his own reports say so) ...
    assert len(bob_reports) == len(HIDDEN)
    assert "Your fighters attack division" in played[0][1] and "Bombing at 01303" in played[1][1]
    # ... and Ann's missions flew and fought (her keyed rolls) ...
    ann = played[0][0]
    assert "Observation of 00703 by 3 fighters." in ann and "Bombing of 00703: 2 bombers" in ann
    # ... yet her report is the same, byte for byte.
    assert len(ann_reports) == 1


def test_an_observation_shows_only_what_is_in_its_square(tmp_path: Path) -> None:
    ann, _ = play(tmp_path, "o", "WL-46\n1 A1\nO 1 01503\n", "")
    spotted = ann.split("SPOTTED UNITS\n", 1)[1].split("\n\n", 1)[0]
    # The 7 x 7 square round 01503 (columns 12 to 18): Bob's division there, his home city's sector at 01703 ...
    assert "01503 player 2: 6" in spotted
    assert "01303 free forces: 4" in spotted
    # ... and not his tanks at 01903, one column outside it.
    assert "01903" not in spotted
    forces = ann.split("FORCES AND CITIES\n", 1)[1].split("\n\n", 1)[0]
    assert "01703    2" in forces and "01903" not in forces
    # Without the O order Ann sees none of it.
    plain, _ = play(tmp_path, "p", "WL-46\n1 A1\n", "")
    assert "01503" not in plain and "01703" not in plain


# A 12 x 5 map: Ann's city 1 at 00503 (level 0, no division, 2 fighters and 3 bombers) and home 2 at 00203;
# Bob's infantry next to city 1.
CAPTURE = """\
game: {number: 47}
seed: 2
parameters: {generate_world: false, leader_share: 1, map_width: 12, map_height: 5}
players:
  - {name: "Ann", account: "1", code: "A1", capital: 2}
  - {name: "Bob", account: "2", code: "B2", capital: 3}
Sector:
  terrain: |
    ~~~~~~~~~~~~
    ~..........~
    ~..........~
    ~..........~
    ~~~~~~~~~~~~
  owner: {"00503": "1", "00203": "1", "01003": "2"}
  city: {"00503": "1", "00203": "2", "01003": "3"}
City:
  - {number: 1, owner: "1", sector: "00503", level: 0, income: 1, fighters: 2, bombers: 3}
  - {number: 2, owner: "1", sector: "00203", level: 2, home: true, income: 3}
  - {number: 3, owner: "2", sector: "01003", level: 2, home: true, income: 3}
Division:
  - {owner: "1", number: 1, sector: "00203", regiments: 5, kind: INF}
  - {owner: "2", number: 1, sector: "00603", regiments: 8, kind: INF}
"""


def test_a_captured_airbase_loses_its_planes_and_planes_away_land_elsewhere(tmp_path: Path) -> None:
    """Designer's notes (R10, R28): planes on a captured airbase are captured on the ground; fighters away on
    a mission when their base falls land at the nearest airbase of their owner within a one-way flight."""
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(CAPTURE, encoding="utf-8")
    folder = GameFolder.create(RULES, tmp_path / "game", scenario, None)
    mail = []
    # Ann's 2 fighters observe 00903 from airbase 1 (the closest) in step 2; Bob takes city 1 in movement
    # (step 7); they come back in step 10.
    for account, text in (("ann", "WL-47\n1 A1\nO 2 00903\n"), ("bob", "WL-47\n2 B2\nM 1 7\n")):
        path = tmp_path / f"{account}.txt"
        path.write_text(text, encoding="utf-8")
        mail.append(path)
    result = folder.process_turn(mail)
    reports = {path.stem: path.read_text(encoding="utf-8") for _, path in result.reports}
    ann, bob = reports["1-ann"], reports["2-bob"]
    assert "You have lost City 1 to Bob." in ann
    assert "Airbase 1 is lost with its 0 fighters and 3 bombers." in ann
    assert "Your 2 fighters from 00903 land at airbase 2: their own is lost." in ann
    airbases = ann.split("AIRBASES\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert airbases[1].split() == ["2", "2", "0", "0"]
    assert "AIRBASES" not in bob  # the captured airbase has no planes for its new owner


def test_a_new_players_home_airbase_has_four_fighters_and_two_bombers(tmp_path: Path) -> None:
    """Designer's note (R10): the first-turn advice, "Send your fighters out on observation missions"."""
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text("game: {number: 48}\nseed: 1\n"
                        "parameters: {map_width: 60, map_height: 24, city_count: 6, ruin_count: 2}\n"
                        "players:\n  - {name: \"Ann\", account: \"1\", code: \"A1\"}\n"
                        "  - {name: \"Bob\", account: \"2\", code: \"B2\"}\n", encoding="utf-8")
    folder = GameFolder.create(RULES, tmp_path / "game", scenario, None)
    for path in sorted((folder.turns_dir / "turn-000" / "reports").glob("*.txt")):
        text = path.read_text(encoding="utf-8")
        rows = text.split("AIRBASES\n", 1)[1].split("\n\n", 1)[0].splitlines()
        assert len(rows) == 2 and rows[1].split()[-3:] == ["4", "2", "0"], text


def test_planes_away_with_no_airbase_of_theirs_in_range_are_lost(tmp_path: Path) -> None:
    """Designer's note (R28): the same, with city 1 Ann's only airbase: her fighters find none and are lost."""
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(CAPTURE.replace('  - {number: 2, owner: "1", sector: "00203", level: 2, home: true, '
                                        'income: 3}\n', "").replace('capital: 2}', 'capital: 1}')
                        .replace('"00203": "1", ', "").replace('"00203": "2", ', ""), encoding="utf-8")
    folder = GameFolder.create(RULES, tmp_path / "game", scenario, None)
    mail = []
    for account, text in (("ann", "WL-47\n1 A1\nO 2 00903\n"), ("bob", "WL-47\n2 B2\nM 1 7\n")):
        path = tmp_path / f"{account}.txt"
        path.write_text(text, encoding="utf-8")
        mail.append(path)
    result = folder.process_turn(mail)
    ann = {path.stem: path.read_text(encoding="utf-8") for _, path in result.reports}["1-ann"]
    assert "You have lost City 1 to Bob." in ann
    assert "Your 2 fighters from 00903 find no airbase of yours within 30 sectors and are lost." in ann
    assert "AIRBASES" not in ann
