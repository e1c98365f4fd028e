"""A position's UN mail for the long game (W4): its report of the turn before -> drafts and votes.

Drafts are reactions (only in reaction turns); a vote is given in the one turn after its call, which each
resolution's report row names ("vote open until the end of turn N").
"""

from __future__ import annotations

import random
import re
from typing import Any

from .story import scripted

ORDERS = ["draft_stop", "draft", "vote"]
EXPECTED = [
    r"every country you rule is named in resolution \d+ and has no vote",
    r"resolution \d+ is not open for votes",
]
# The test world's countries; the long game runs on it unless given another scenario.
COUNTRIES = ["USA", "MEX", "CUB", "CAN"]
# The script's resolutions (story.py) are voted by the script.
OPEN = re.compile(r"(\d+) .*: vote open until the end of turn (\d+)$")


def orders(report: dict[str, Any], turn: int, rng: random.Random,
           others: list[str]) -> tuple[list[str], dict[str, str]]:
    lines: list[str] = []
    for row in report.get("resolutions") or []:
        m = OPEN.match(str(row))
        if m and int(m.group(2)) == turn and not scripted(str(row).split(" ", 1)[1].split(": vote open")[0]):
            lines.append(f"VOTE {m.group(1)},{'YES' if rng.random() < 0.8 else 'NO'}")
    # The coming turn is a reaction turn when the report's was an action turn.
    if report.get("kind") == "action" and rng.random() < 0.25:
        aggressor, victim = rng.sample(COUNTRIES, 2)
        if rng.random() < 0.5:
            lines.append(f"UN STOP {aggressor},{victim}")
        else:
            lines.append(f"UN DRAFT {aggressor},{aggressor} respects the border of {victim}")
    return lines, {}
