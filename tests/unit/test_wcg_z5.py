"""WCG's last defects (Z5): a golden scenario, changed here and there -> the news and reports of its turns, for
what the goldens do not show: the G.C.A.S.D. hitting at sea (R60), a plan that ends with its battle, the newest
stance line ruling, a stack's attack year kept when stacks merge."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.golden.harness import GOLDEN, Scenario, play


def copy_golden(name: str, tmp_path: Path) -> Path:
    folder = tmp_path / name
    shutil.copytree(GOLDEN / "wcg" / name, folder)
    return folder


def news_of(folder: Path, tmp_path: Path) -> dict[int, str]:
    return {turn: text for turn, out, text in play(Scenario("wcg", folder.name, folder), tmp_path / "g")
            if out == "news"}


def test_gcasd_fires_at_sea(tmp_path: Path) -> None:
    # sub-sneak with the US G.C.A.S.D.'s sea dice forced to 1 (a hit is 1..5): 2 hits at range 1 and 2 at
    # range 0's first round sink both surfaced submarines (2 hits each), and no more dice are drawn.
    # Before the fix the G.C.A.S.D. fired only at aircraft, and the forced dice were never drawn (the turn stops).
    folder = copy_golden("sub-sneak", tmp_path)
    scenario = folder / "scenario.yaml"
    text = scenario.read_text(encoding="utf-8")
    tens = 'keys: ["Battle:1", "Country:USA"], values: [' + ", ".join(["10"] * 8) + "]"
    assert tens in text
    ones = 'keys: ["Battle:1", "Country:USA"], values: [1, 1, 1, 1]'
    scenario.write_text(text.replace(tens, ones), encoding="utf-8")
    news = news_of(folder, tmp_path)
    assert "United States, range 1 at sea: 0 hit(s) by the attacker, 2 by the defenders (2 by the G.C.A.S.D.)" \
        in news[3]
    assert "after month 1: attacking nothing seen" in news[3]


def test_a_plan_ends_with_its_battle(tmp_path: Path) -> None:
    # landing: Ann's plan 1 takes Cuba at the end of March (turn 7). In April's action turn a RETREAT 1 and a
    # MOVE of the marines that took it: before the fix the plan stayed "launched", so the RETREAT was carried
    # out after the win ("United States retreats from Cuba") and pulled the occupiers home to the United States.
    folder = copy_golden("landing", tmp_path)
    (folder / "turn-8").mkdir()
    (folder / "turn-8" / "01-ann.txt").write_text("WCG-1\n1 A1\nRETREAT 1\n", encoding="utf-8")
    outs = list(play(Scenario("wcg", "landing", folder), tmp_path / "g"))
    news = {turn: text for turn, out, text in outs if out == "news"}
    ann = {turn: text for turn, out, text in outs if out == "1-ann"}
    assert "Cuba is conquered by Ann" in news[7]
    assert "retreats from Cuba" not in news[8]
    assert "plan USA-1:" not in ann[8]
    assert "FAILED: you have no plan 1" in ann[8]


def test_the_newest_stance_line_rules(tmp_path: Path) -> None:
    # defend-order: Bob's January lines put his armour and infantry on the ground; in February he sends his
    # last armoured unit to the air (DEFEND MEX,ARM,1,AIR,USA) and gives no infantry line. Ann's 4 ground hits
    # of range 0's first round go to the ground: his infantry (2 lost), the armour above them. Before the fix the
    # January line ruled the armour's form: it stayed on the ground, ranked first by its February line, and took them.
    folder = copy_golden("defend-order", tmp_path)
    (folder / "turn-5" / "02-bob.txt").write_text("WCG-1\n2 B2\nDEFEND MEX,ARM,1,AIR,USA\n", encoding="utf-8")
    scenario = folder / "scenario.yaml"
    armour = '  - {turn: 5, stream: "combat", keys: ["Battle:1", "Force:2/2"], values: [10, 10, 10, 10, 10, 10]}\n'
    text = scenario.read_text(encoding="utf-8")
    assert armour in text
    # In the air the armour has nothing to fire at (Ann sends no aircraft): none of its dice are drawn.
    scenario.write_text(text.replace(armour, ""), encoding="utf-8")
    news = news_of(folder, tmp_path)
    assert "Mexico: 2 infantry of Bob lost" in news[5]
    assert "armoured unit of Bob lost" not in news[5]


def test_units_that_attacked_do_not_refresh_by_joining_a_fresh_stack(tmp_path: Path) -> None:
    # armour-twice, with Ann's 40 infantry in the United States fresh (they have not attacked) and 15 infantry
    # in Canada (hers) that attacked in 1960; plan USA-1 commits 50 infantry from the United States. In
    # January's action turn 10 of Canada's move home, next to the fresh ones: INVADE 1 in March must be refused
    # (40 fresh). Before the fix they merged into the fresh stack and lost their year: 50 fresh, and it was done.
    folder = copy_golden("armour-twice", tmp_path)
    scenario = folder / "scenario.yaml"
    text = scenario.read_text(encoding="utf-8")
    old = '  - {owner: "1", country: USA, kind: INF, count: 40, free: true, attacked_in: 1960}\n'
    canada = "  CAN: {start: false, size: 41.0, population: 18.0, export_level: 15, income: 24, ports: 4}\n"
    assert old in text and canada in text
    text = text.replace(old, '  - {owner: "1", country: USA, kind: INF, count: 40, free: true}\n'
                             '  - {owner: "1", country: CAN, kind: INF, count: 15, attacked_in: 1960}\n')
    text = text.replace(canada, canada[:-2] + ', ruler: "1"}\n')
    text = text.replace('kind: INF, count: 10, from: USA', 'kind: INF, count: 50, from: USA')
    scenario.write_text(text, encoding="utf-8")
    (folder / "turn-2" / "01-ann.txt").write_text("WCG-1\n1 A1\nMOVE INF,10,CAN,USA\n", encoding="utf-8")
    (folder / "turn-6" / "01-ann.txt").write_text("WCG-1\n1 A1\nINVADE 1\n", encoding="utf-8")
    outs = list(play(Scenario("wcg", "armour-twice", folder), tmp_path / "g"))
    ann = {turn: text for turn, out, text in outs if out == "1-ann"}
    assert "MOVE INF,10,CAN,USA" in ann[2] and "FAILED" not in ann[2]
    assert "only armoured units attack more than once a year" in ann[6]


def test_a_bomber_withdraws_after_range_2(tmp_path: Path) -> None:
    # combat-ranges with Ann's WITHDRAW 1,BMR,1 in January's action turn (R58, rb 66): the bombers bomb at range 2
    # (their 20 forced dice: 6 hits, with the artillery's 2: 8) and leave; at range 1 only the artillery fires
    # (5, 6: 1 hit, not the golden's 2), and the bombers' forced dice of ranges 1 and 0 are not drawn, so the
    # scenario keeps only their first 20 (an unused forced value would stop the turn). Withdrawn, the bombers
    # take none of the ground fire (the golden loses one at range 0). A WITHDRAW of artillery is refused.
    folder = copy_golden("combat-ranges", tmp_path)
    scenario = folder / "scenario.yaml"
    text = scenario.read_text(encoding="utf-8")
    bombers = "10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 4, 5, 10, 10, 10, 10, 10]}"
    assert bombers in text
    scenario.write_text(text.replace(bombers, "10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10]}"), encoding="utf-8")
    (folder / "turn-2" / "01-ann.txt").write_text("WCG-1\n1 A1\nWITHDRAW 1,BMR,1\nWITHDRAW 1,ART,1\n",
                                                  encoding="utf-8")
    played = {(turn, out): text for turn, out, text in play(Scenario("wcg", folder.name, folder), tmp_path / "g")}
    assert "WITHDRAW 1,BMR,1                 done" in played[(2, "1-ann")]
    assert "Plan USA-1: its bombers withdraw from range 1 down" in played[(2, "1-ann")]
    assert "only aircraft withdraw from a battle by range (rb 66)" in played[(2, "1-ann")]
    assert "Mexico, range 2 on the ground: 8 hit(s) by the attacker" in played[(3, "news")]
    assert "Mexico, range 1 on the ground: 1 hit(s) by the attacker" in played[(3, "news")]
    assert "after month 1: attacking 2 battleships, 2 bombers, 2 interceptors;" in played[(3, "news")]
    assert "withdraw" not in played[(2, "2-bob")] and "WITHDRAW" not in played[(2, "news")]
