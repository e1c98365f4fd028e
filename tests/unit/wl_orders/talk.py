"""Warlord's full-size test, player messages: a player's report of the turn before -> its Y and -- lines
(the rulebook's own example, broadcasts, values the game fills in), some written to be refused or to fail,
each with the reason the rules give."""

from __future__ import annotations

import random
from typing import Any

# Every reason a line of this file may be refused or fail with: the rules' own words.
EXPECTED = (
    r"a -- line continues a Y line: give the Y line first",
    r"you cannot send a message to yourself",
    r"a Y line carries at most 3 numbers: go on with a -- line",
)

# Lines written to be refused or to fail -> what the reason must say. "-- 124" is written before any Y line.
BAD = {
    "-- 124": "continues a Y line",
    "Y {me} 151": "to yourself",
    "Y {other} 151 152 153 154": "at most 3 numbers",
}

# The order letters this file's lines carry out.
LETTERS = ("Y", "--")


def orders(report: dict[str, Any], turn: int, rng: random.Random,
           others: list[int]) -> tuple[list[str], dict[str, str]]:
    """A player's mail for `turn` from its report of the turn before -> its Y and -- lines, and the lines among
    them written to be refused or to fail, each with what its reason must say."""
    me = report["player"]["account"]
    lines: list[str] = []
    bad: dict[str, str] = {}
    if rng.random() < 0.2:
        line = "-- 124"
        lines.append(line)
        bad[line] = BAD[line]
    if turn == 1:
        # The rulebook's own example: 117's {X} comes on the -- line.
        lines += [f"Y {others[0]} 151 155 117", f"-- {others[1]} 123 310"]
    elif rng.random() < 0.1:
        lines += ["Y 101 316 317 318", "-- 311 312 409"]   # to every player, values filled in by the game
    elif rng.random() < 0.5:
        col, row = rng.randint(0, 319), rng.randint(1, 97)
        lines += [f"Y {others[1]} 102 {others[0]}", f"-- {col:03d}{row:02d} {col:03d}{row + 1:02d} 999 124"]
    for template in rng.sample(sorted(BAD.keys() - {"-- 124"}), 1):
        line = template.format(me=me, other=others[0])
        lines.append(line)
        bad[line] = BAD[template]
    return lines, bad
