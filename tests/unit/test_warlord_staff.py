"""Warlord's generals and research rules that no golden scenario shows: small games played a turn or two ->
their reports, checked for the designer's notes on a link, a general owed to a player with no city, engineers
driven off a ruin, and a new player's two generals."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from rulesdsl.game.folder import GameFolder

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rulesets" / "warlord.rules"

# A 13 x 5 map. Ann: city 1 at 00102; Bob: no city, infantry 1 (1 regiment, general 1 with it) at 00402 and
# infantry 2 (8) at 01002 next to the free city 2 (01102, level 0).
SCENARIO = """\
game: {number: 35}
seed: 3
parameters: {generate_world: false, leader_share: 1, map_width: 13, map_height: 5}
players:
  - {name: "Ann", account: "1", code: "A1", capital: 1}
  - {name: "Bob", account: "2", code: "B2"}
Sector:
  terrain: |
    ~~~~~~~~~~~~~
    ~...........~
    ~...........~
    ~...........~
    ~~~~~~~~~~~~~
  owner: {"00102": "1"}
  city: {"00102": "1", "01102": "2"}
  ruin: {"00402": true}
City:
  - {number: 1, owner: "1", sector: "00102", level: 2, home: true, income: 3}
  - {number: 2, sector: "01102", level: 0, income: 1}
Division:
  - {owner: "1", number: 1, sector: "00302", regiments: 10, kind: TNK}
  - {owner: "1", number: 2, sector: "00302", regiments: 4, kind: TNK}
  - {owner: "1", number: 3, sector: "00402", regiments: 1, kind: ENG}
  - {owner: "2", number: 1, sector: "00502", regiments: 1, kind: INF}
  - {owner: "2", number: 2, sector: "01002", regiments: 8, kind: INF}
General:
  - {owner: "1", number: 1, post: "00102", unit: "1/2", skill: 0}
  - {owner: "2", number: 1, post: "00502", unit: "2/1", skill: 5}
"""


def play(tmp: Path, turns: list[tuple[str, str]], text: str = SCENARIO) -> list[dict[str, str]]:
    scenario = tmp / "scenario.yaml"
    scenario.write_text(text, encoding="utf-8")
    folder = GameFolder.create(RULES, tmp / "game", scenario, None)
    out = []
    for t, (ann, bob) in enumerate(turns, 1):
        mail = []
        for account, text in (("ann", f"WL-35\n1 A1\n{ann}\n"), ("bob", f"WL-35\n2 B2\n{bob}\n")):
            path = tmp / f"{t}-{account}.txt"
            path.write_text(text, encoding="utf-8")
            mail.append(path)
        result = folder.process_turn(mail)
        out.append({path.stem: path.read_text(encoding="utf-8") for _, path in result.reports})
    return out


def test_links_engineers_and_a_general_owed(tmp_path: Path) -> None:
    # Turn 1: Ann links tanks 2 (with her general) into 1, and her engineers search the ruin at 00402 while
    # her tanks 1 take Bob's division 1 and his general at 00502; Bob has no city: his general is owed.
    # Turn 2: Bob's infantry takes the free city 2; the general owed comes at the end of the turn.
    # Turn 3: Bob's division 2 attacks Ann's engineers at the ruin: they are driven off and do not search.
    first, second = play(tmp_path, [("L 1 2\nK 3 1\nM 1 33", "M 2 0"), ("", "M 2 3")])
    ann, bob = first["1-ann"], first["2-bob"]
    # Designer's note: a linked-away division hands its generals to the unit it joins.
    assert "1) 00502 (1)" in ann and " *00502    1 " in ann
    assert "Division 3 searches the ruin at 00402" in ann
    # Designer's note: with no city, the new general waits until the player owns one.
    assert "General 1 is lost in action at 00502." in bob
    assert "takes his place" not in bob and "GENERALS" not in bob
    bob2 = second["2-bob"]
    assert "City 2 falls to Bob." in bob2
    assert "A new general 1 takes his place at City 2." in bob2 and "1) 01102 (0)" in bob2


def test_engineers_attacked_do_not_search(tmp_path: Path) -> None:
    # Ann's engineers (6 regiments) searching; Bob's division 1, 12 tanks here, moves west onto the ruin and
    # drives them off (seed 1: they retreat to 00401 after losing 5 regiments).
    text = (SCENARIO.replace("seed: 3", "seed: 1")
            .replace('"00402", regiments: 1, kind: ENG', '"00402", regiments: 6, kind: ENG')
            .replace('"00502", regiments: 1, kind: INF', '"00502", regiments: 12, kind: TNK'))
    (turn,) = play(tmp_path, [("K 3 1", "M 1 7")], text)
    ann = turn["1-ann"]
    # Designer's note: a division that was attacked and retreated did not search.
    assert "Division 3 retreats from 00402 to 00401." in ann
    assert "Division 3 is driven off before it can search the ruin." in ann
    assert "research points" not in ann


def test_a_new_player_has_two_generals_with_its_infantry(tmp_path: Path) -> None:
    scenario = tmp_path / "new.yaml"
    players = [{"name": "Ann", "account": "1", "code": "A1"}, {"name": "Bob", "account": "2", "code": "B2"}]
    scenario.write_text(yaml.safe_dump({
        "game": {"number": 36}, "seed": 4, "players": players,
        "parameters": {"map_width": 60, "map_height": 30, "city_count": 8, "ruin_count": 4, "home_spacing": 8}}),
        encoding="utf-8")
    folder = GameFolder.create(RULES, tmp_path / "game", scenario, None)
    start = (folder.turns_dir / "turn-000" / "reports").glob("1-*.txt")
    report = next(iter(start)).read_text(encoding="utf-8")
    home = report.split("FORCES AND CITIES")[1].splitlines()[2].split()[0].lstrip("*")
    # Designer's note: generals 1 and 2 start with divisions 1 and 2, at the home city, skill 0.
    assert f"1) {home} (0)" in report and f"2) {home} (0)" in report
    assert f" *{home}    1 N    Infantry" in report and f" *{home}    2 N    Infantry" in report
    assert "TACTICAL MAPS" in report


def test_the_html_page_draws_each_tactical_map_as_a_picture(tmp_path: Path) -> None:
    """Issue 12: the page shows Warlord's tactical maps as pictures, the terrain in colour and on each sector
    what the text map writes: its city above (C), its largest unit (capital: yours, small: another's) and
    its owner below."""
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    GameFolder.create(RULES, tmp_path / "game", scenario, None)
    page = (tmp_path / "game" / "turns" / "turn-000" / "reports" / "1-ann.html").read_text(encoding="utf-8")
    section = page[page.index('<section id="tactical">'):]
    section = section[:section.index("</section>")]
    svg = section[section.index("<svg"):section.index("</svg>")]
    # General 1 is with tanks 2 at 00302: 7 columns (0 to 6) and the map's 5 rows (the two off it left out), 44
    # pixels a sector, the sea in blue and the open land sand-coloured.
    assert 'width="308" height="220"' in svg
    assert 'fill="#4f81bd"' in svg and 'fill="#e8dcb0"' in svg
    marks = [(int(x), int(y), t) for x, y, t in re.findall(r'<text x="(\d+)" y="(\d+)"[^>]*>([^<]*)</text>', svg)]
    # Row 2: Ann's city at 00102 (column 1), C above and her account below; her tanks at 00302, a T; the ruin
    # at 00402 above her engineers (E); Bob's infantry at 00502, a small i, another's.
    row = sorted((x, y, t) for x, y, t in marks if 88 < y <= 132)
    assert [(x, t) for x, _, t in row] == [(66, "C"), (66, "1"), (154, "T"), (198, "R"), (198, "E"), (242, "i")]
    assert [y for x, y, _ in row if x == 66] == sorted(y for x, y, _ in row if x == 66)
    assert all(88 < y <= 132 for _, y, _ in marks)
    # The legend names the terrain; the text report's map is still text.
    assert "<code>~</code> sea" in section and "<code>.</code> open" in section
