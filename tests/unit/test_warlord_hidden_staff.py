"""Warlord's hidden generals and spies: one turn played from variants of one game, another player's unseen
generals, units and aircraft different -> the reports of a player who cannot see them, compared byte for
byte; and a spy report against what its spending bought."""

from __future__ import annotations

from pathlib import Path

from rulesdsl.game.folder import GameFolder

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rulesets" / "warlord.rules"

# A 21 x 7 map. Ann (tech level 3: she may spy with 15 points; city at 00203, general 1 with her tanks)
# fights Bob's infantry at 00503 in the first movement phase; Bob's home (01703) and everything else of his
# are in the east, out of her sight (her city sees 7 x 7, her units 3 x 3, her general's map 7 x 7 round
# 00503: columns 2 to 8). Cy (tech level 3) has a city at 01101, seen by nobody else.
SCENARIO = """\
game: {{number: 34}}
seed: 5
parameters: {{generate_world: false, leader_share: 1, map_width: 21, map_height: 7}}
players:
  - {{name: "Ann", account: "1", code: "A1", capital: 1, pp: 30, tech: 3}}
  - {{name: "Bob", account: "2", code: "B2", capital: 2}}
  - {{name: "Cy", account: "3", code: "C3", capital: 3, pp: 30, tech: 3}}
Sector:
  terrain: |
    ~~~~~~~~~~~~~~~~~~~~~
    ~...................~
    ~...................~
    ~...................~
    ~...................~
    ~...................~
    ~~~~~~~~~~~~~~~~~~~~~
  owner: {{"00203": "1", "01703": "2", "01101": "3"}}
  city: {{"00203": "1", "01703": "2", "01101": "3"}}
City:
  - {{number: 1, owner: "1", sector: "00203", level: 2, home: true, income: 3}}
  - {{number: 2, owner: "2", sector: "01703", level: 2, home: true, income: 3, fighters: {fighters}}}
  - {{number: 3, owner: "3", sector: "01101", level: 2, home: true, income: 3}}
Division:
  - {{owner: "1", number: 1, sector: "00403", regiments: 12, kind: TNK}}
  - {{owner: "2", number: 1, sector: "00503", regiments: 4, kind: INF}}
  - {{owner: "2", number: 2, sector: "01603", regiments: {east}, kind: INF}}
  - {{owner: "2", number: 3, sector: "01805", regiments: {ships}, kind: DES}}
General:
  - {{owner: "1", number: 1, post: "00203", unit: "1/1", skill: 10}}
{bob_generals}
"""

ANN = "WL-34\n1 A1\nM 1 3\n{spy}\n"

# Bob's generals, out of Ann's sight and more than 3 sectors from her battle at 00503: none, one waiting at
# his home, two with his eastern division and skilled, one sent there by P this turn.
GENERALS = [
    ("", ""),
    ('  - {owner: "2", number: 1, post: "01703", skill: 0}', ""),
    ('  - {owner: "2", number: 1, post: "01703", unit: "2/2", skill: 60}\n'
     '  - {owner: "2", number: 2, post: "01703", skill: 90}', ""),
    ('  - {owner: "2", number: 1, post: "01703", skill: 40}', "P 1 2"),
]


def play(tmp: Path, name: str, ann: str, bob: str, *, cy: str = "", generals: object = "", east: object = 6,
         ships: object = 2, fighters: object = 0) -> dict[str, str]:
    scenario = tmp / f"{name}.yaml"
    scenario.write_text(SCENARIO.format(bob_generals=generals, east=east, ships=ships, fighters=fighters),
                        encoding="utf-8")
    folder = GameFolder.create(RULES, tmp / name, scenario, None)
    mail = []
    for account, text in (("ann", ann), ("bob", f"WL-34\n2 B2\n{bob}\n"), ("cy", f"WL-34\n3 C3\n{cy}\n")):
        path = tmp / f"{name}-{account}.txt"
        path.write_text(text, encoding="utf-8")
        mail.append(path)
    result = folder.process_turn(mail)
    return {path.stem: path.read_text(encoding="utf-8") for _, path in result.reports}


def spy_section(report: str) -> str:
    return report[report.index("SPY REPORT"):]


def test_unseen_generals_change_no_report(tmp_path: Path) -> None:
    played = [play(tmp_path, f"g{i}", ANN.format(spy=""), line, generals=g)
              for i, (g, line) in enumerate(GENERALS)]
    ann_reports = {r["1-ann"] for r in played}
    bob_reports = {r["2-bob"] for r in played}
    assert len(bob_reports) == len(GENERALS)  # Bob's generals differed (his own reports say so) ...
    ann = played[0]["1-ann"]
    assert "Battle at 00503" in ann and "1) 00503 (11)" in ann  # ... Ann fought, her general learned ...
    assert len(ann_reports) == 1  # ... and her report is the same, byte for byte


def test_a_general_in_range_does_change_the_battle(tmp_path: Path) -> None:
    # The same game with Bob's skilled general 3 sectors from Ann's battle (at 00803): the bonus and his
    # skill are felt. The test above would fail if a general's range reached 4.
    near = play(tmp_path, "near", ANN.format(spy=""), "",
                generals='  - {owner: "2", number: 1, post: "00803", skill: 100}')
    far = play(tmp_path, "far", ANN.format(spy=""), "",
               generals='  - {owner: "2", number: 1, post: "00903", skill: 100}')
    assert near["2-bob"] != far["2-bob"]
    assert "1) 00803 (100)" in near["2-bob"]  # at most 100: the battle taught him nothing more
    battle = [line for line in near["1-ann"].splitlines() if line.startswith("  Battle at 00503")]
    assert battle != [line for line in far["1-ann"].splitlines() if line.startswith("  Battle at 00503")]


# Bob's divisions, then his ships, aircraft and generals, different: what Ann's spies of 4 points (tier 2: tech
# level, PPs, cities) bought does not show them; what Cy's of 15 bought, in the same games, does.
VARIANTS: list[dict[str, object]] = [
    {"east": 6, "ships": 2, "fighters": 0, "generals": ""},
    {"east": 20, "ships": 2, "fighters": 0, "generals": ""},
    {"east": 6, "ships": 9, "fighters": 7, "generals": '  - {owner: "2", number: 1, post: "01703", skill: 50}'},
]


def test_a_spy_report_shows_only_what_its_spending_bought(tmp_path: Path) -> None:
    played = [play(tmp_path, f"s{i}", ANN.format(spy="I 2 4"), "", cy="I 2 15", **v) for i, v in enumerate(VARIANTS)]
    (tier2,) = {spy_section(r["1-ann"]) for r in played}
    assert "Cities: 01703 level 2" in tier2 and "Divisions" not in tier2
    assert len({spy_section(r["3-cy"]) for r in played}) == len(VARIANTS)  # 15 points buy all of it
