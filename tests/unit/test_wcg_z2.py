"""WCG's transport and landing rules (Z2): a landing's scenario on the test world -> its battle's news, for what no
golden shows: the ground portion's fire does not reach a battleship bombarding the shore (R57)."""

from __future__ import annotations

from pathlib import Path

from tests.golden.harness import GOLDEN, Scenario, play


def test_ground_fire_does_not_reach_a_bombarding_battleship(tmp_path: Path) -> None:
    # One marine lands on Cuba from a cargo ship, a battleship bombarding (GROUND). Cuba's 15 infantry hit with
    # every shot in range 0's first round: 15 hits, the marine takes 1; the 14 left over reached the battleship
    # (10 hits) and sank it before the fix, since it is committed to the ground portion.
    base = (GOLDEN / "wcg" / "_world" / "scenario-base.yaml").read_text(encoding="utf-8")
    head, forces = base.split("Force:\n")
    forces = forces[forces.index("draws:"):]
    scenario = (head + "Force:\n"
                '  - {owner: "1", country: USA, kind: MAR, count: 1, free: true}\n'
                '  - {owner: "1", country: USA, kind: CGO, count: 1, free: true}\n'
                '  - {owner: "1", country: USA, kind: BAT, count: 1, free: true}\n'
                '  - {owner: "2", country: MEX, kind: INF, count: 20, free: true}\n'
                "  - {owner: null, country: CUB, kind: INF, count: 15}\n"
                + forces +
                '  - {turn: 7, stream: "combat", keys: ["Battle:1", "Force:1/3"], values: [' + ", ".join(["9"] * 24)
                + ']}\n'
                '  - {turn: 7, stream: "combat", keys: ["Battle:1", "Force:1/1"], values: [9]}\n'
                '  - {turn: 7, stream: "combat", keys: ["Battle:1", "Force:1"], values: [' + ", ".join(["1"] * 15)
                + "]}\n")
    folder = tmp_path / "landing"
    folder.mkdir()
    (folder / "scenario.yaml").write_text(scenario, encoding="utf-8")
    orders = {2: ["PLAN USA,CUB", "COMMIT 1,MAR,1,USA,GROUND,OPEN,0", "COMMIT 1,CGO,1,USA,SEA,OPEN,0",
                  "COMMIT 1,BAT,1,USA,GROUND,OPEN,0"], 6: ["INVADE 1"]}
    for turn in range(1, 8):
        (folder / f"turn-{turn}").mkdir()
        if turn in orders:
            (folder / f"turn-{turn}" / "01-ann.txt").write_text("\n".join(["WCG-1", "1 A1", *orders[turn]]) + "\n",
                                                                encoding="utf-8")
    news = {turn: text for turn, out, text in play(Scenario("wcg", "landing", folder), tmp_path / "g")
            if out == "news"}
    assert "Cuba: 1 marine of Ann lost" in news[7]
    assert "battleship of Ann lost" not in news[7]
    assert "after month 1: attacking 1 cargo ship, 1 battleship; defending 15 infantry" in news[7]
