"""WCG's invasion announcement and hidden submarines (R24, R69, R70; found by the five-year game's leak check): the
same invasion played with 2 or 3 of Bob's submarines hidden and committed to it, or one of his two -> Ann's report and
the news of the INVADE turn, compared byte for byte, and no submarine in the news."""

from __future__ import annotations

from pathlib import Path

from tests.unit.test_wcg_hidden_w5a import WORLD, play

SUBS = '  - {owner: "2", country: MEX, kind: SUB, count: 2, free: true}\n'
MORE = WORLD.replace(SUBS, SUBS.replace("count: 2", "count: 3"))


def invasion(subs: int) -> list[list[str]]:
    """Bob's mail, turn by turn: January's budget, then hiding, planning and committing in January, and the
    invasion in March, when the plan's two months are over."""
    return [[], [f"HIDE MEX,{subs}", "PLAN MEX,USA"],
            ["COMMIT 1,INF,5,MEX,GROUND,OPEN,0", f"COMMIT 1,SUB,{subs},MEX,SEA,OPEN,0"], [], [], ["INVADE 1"]]


def test_z4_invasion_keeps_hidden_submarines_private(tmp_path: Path) -> None:
    assert MORE != WORLD
    two = play(tmp_path, "two", WORLD, invasion(2))
    three = play(tmp_path, "three", MORE, invasion(3))
    assert "INVADE 1" in two[1] and "done" in two[1].split("INVADE 1")[1].splitlines()[0]
    assert "Mexico invades United States (plan MEX-1): 5 infantry from Mexico" in two[2]
    assert "submarine from Mexico" not in two[2]
    assert three[0] == two[0]
    assert three[2] == two[2]


def test_z4_part_of_a_hidden_stack_committed_stays_hidden(tmp_path: Path) -> None:
    # One of Bob's two hidden submarines goes with the invasion: open_battle splits it off the stack, and the
    # split part is as hidden as the stack was (announced with the infantry, it would have no sneak attack).
    lines = invasion(2)
    lines[2] = ["COMMIT 1,INF,5,MEX,GROUND,OPEN,0", "COMMIT 1,SUB,1,MEX,SEA,OPEN,0"]
    part = play(tmp_path, "part", WORLD, lines)
    assert "INVADE 1" in part[1] and "done" in part[1].split("INVADE 1")[1].splitlines()[0]
    assert "Mexico invades United States (plan MEX-1): 5 infantry from Mexico" in part[2]
    assert "submarine" not in part[2]
