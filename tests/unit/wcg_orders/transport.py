"""Z2's order maker for WCG's long game: a player's report of the turn before -> ships, marines, paratroopers and
I.C.B.M.s bought once, then sea moves (ships first, troops after), BOARD and FIRE from a carrier, and a plan that
lands marines and drops paratroopers on a country across the sea; with lines written to be refused."""

from __future__ import annotations

import math
import random
import re
from typing import Any

from .story import kind_of

ORDERS = ["board", "fire", "move", "plan", "commit", "invade", "retreat", "fund", "build"]
EXPECTED = [
    r"\d+ [a-zA-Z .]+ need \d+ unit spaces by sea; the \d+ ships you moved from .+ to .+ this turn have \d+ left "
    r"\(move cargo ships, merchant ships or carriers first, rb 56\)",
    r"\d+ of your [a-zA-Z .]+ in .+ are aboard carriers: they sail with the carriers",
    r"a carrier takes aircraft and I\.C\.B\.M\.s aboard \(rb 62\): .+ go by sea with MOVE",
    r"you have no aircraft carrier in .+",
    r"you have \d+ [a-zA-Z .]+ in .+ not aboard a carrier or in a battle",
    r"\d+ [a-zA-Z .]+ need \d+ unit spaces; your carriers in .+ have \d+ left",
    r"you have \d+ I\.C\.B\.M\.s aboard carriers in .+; I\.C\.B\.M\.s not aboard fire only in a plan's battle "
    r"\(rb 62\)",
    r"\d+ marines need \d+ unit spaces; the plan's ships carry \d+ \(rb 56\)",
    r"\d+ paratroopers need \d+ unit spaces; the plan's bombers and helicopters carry \d+ \(rb 56\)",
]

# The test world (benchmarks/wcg_long.py's default): Cuba is the one country across the sea from the others.
COUNTRIES = {"United States": "USA", "Mexico": "MEX", "Cuba": "CUB", "Canada": "CAN"}
OVERSEAS = "CUB"
KINDS = {"infantry": "INF", "cargo ship": "CGO", "aircraft carrier": "CAR", "I.C.B.M.": "ICBM", "marine": "MAR",
         "paratrooper": "PAR", "helicopter": "HEL"}
# What is bought, in two lots, with the industrial column's army points (R49): the landing's ships and troops,
# 2 x 40 + 5 x 12 + 3 x 40 + 8 x 12 = 356 points, then a carrier and an I.C.B.M., 300 + 150 = 450.
LOTS = [("CGO", [("CGO", 2), ("MAR", 5), ("HEL", 3), ("PAR", 8)], 356), ("CAR", [("CAR", 1), ("ICBM", 1)], 450)]
FORCE = re.compile(r"(?P<country>[^:]+): (?P<count>\d+) (?P<kind>.+?)(?: \((?P<state>[a-z ]+)\))?$")
PLAN = re.compile(r"plan [A-Z]+-(?P<n>\d+): (?P<base>.+?) against (?P<target>.+?), (?P<status>launched|ready[^;]*);"
                  r"(?P<lines>.*)$")


def _kind(word: str) -> str | None:
    # Tolerant of plurals ("2 cargo ships"), which the report may write.
    return KINDS.get(word) or KINDS.get(word[:-1]) if word.endswith("s") else KINDS.get(word)


def _held(report: dict[str, Any], active: bool = True, aboard: bool = False) -> dict[tuple[str, str], int]:
    """The report's force rows -> units by (country, kind): active ones only (free, or only those aboard a
    carrier with `aboard`), or every one."""
    held: dict[tuple[str, str], int] = {}
    for row in report["forces"]:
        m = FORCE.match(row)
        if m is None or m["country"] not in COUNTRIES:
            continue
        on_deck = (m["state"] or "").startswith("aboard")
        if active and (on_deck != aboard or (not on_deck and m["state"] not in (None, "hidden"))):
            continue
        k = _kind(m["kind"])
        if k is not None:
            key = (COUNTRIES[m["country"]], k)
            held[key] = held.get(key, 0) + int(m["count"])
    return held


def orders(report: dict[str, Any], turn: int, rng: random.Random,
           others: list[str]) -> tuple[list[str], dict[str, str]]:
    lines: list[str] = []
    bad: dict[str, str] = {}
    home = COUNTRIES.get(report["country"])
    kind = kind_of(turn)
    if home is None or home == OVERSEAS or kind == "budget":
        return lines, bad
    held = _held(report)
    on_deck = _held(report, aboard=True)
    owned = _held(report, active=False)
    # Each lot bought once, when a player of an industrial country has saved enough (spending runs before the
    # moves, so the units can sail in the same turn; the next turn's report shows them).
    for mark, units, points in LOTS:
        if any(k == mark for (_, k) in owned):
            continue
        cash = math.ceil(points * 10 / float(report["population"])) / 10
        if report["industrial"] and float(report["saved"]) >= cash + 1:
            lines.append(f"FUND {home},{cash}")
            lines += [f"BUILD {home},{k},{n}" for k, n in units]
        return lines, bad
    at_war = bool(report["battles"])
    plans = [m for m in (PLAN.match(p) for p in report["plans"]) if m is not None]
    landing = [p for p in plans if COUNTRIES.get(p["target"]) == OVERSEAS]
    if kind == "action":
        # Troops by sea: one line before any ship sails (refused, with the room it lacks), then the cargo ship and
        # two infantry in it; the carrier takes the I.C.B.M. aboard.
        if held.get((home, "CGO"), 0) >= 1 and held.get((home, "INF"), 0) >= 3 and not landing:
            if not at_war:
                line = f"MOVE INF,1,{home},{OVERSEAS}"
                lines.append(line)
                bad[line] = "need 1 unit spaces by sea; the 0 ships you moved"
            lines += [f"MOVE CGO,1,{home},{OVERSEAS}", f"MOVE INF,2,{home},{OVERSEAS}"]
        if held.get((home, "CAR"), 0) >= 1 and held.get((home, "ICBM"), 0) >= 1:
            lines.append(f"BOARD {home},ICBM,1")
            line = f"BOARD {home},INF,1"
            lines.append(line)
            bad[line] = "a carrier takes aircraft and I.C.B.M.s aboard"
    else:
        # The reaction turn: the cargo ship comes home with what it can carry; an I.C.B.M. aboard is fired at a
        # neighbour nobody rules... or whoever rules it (a refusal then says so).
        if held.get((OVERSEAS, "CGO"), 0) >= 1:
            n = min(held.get((OVERSEAS, "INF"), 0), 200)
            lines.append(f"MOVE CGO,1,{OVERSEAS},{home}")
            if n > 0:
                lines.append(f"MOVE INF,{n},{OVERSEAS},{home}")
        if held.get((home, "CAR"), 0) >= 1 and on_deck.get((home, "ICBM"), 0) >= 1 and rng.random() < 0.5:
            lines.append(f"FIRE {home},1,CAN")
    # A landing and an airdrop in one plan against the country across the sea, made only when no plan is launched
    # (another maker may call a launched one off in the same turn, and the number the rules give a new plan is
    # the highest held plus one); called off when its lines went elsewhere (another maker planned in the same
    # turn) or another maker's infantry were committed to it (they cannot cross).
    for p in landing:
        if ("infantry" in p["lines"] or "marine" not in p["lines"]) and p["status"] != "launched":
            lines.append(f"RETREAT {p['n']}")
    if not landing and all(p["status"] != "launched" for p in plans) and \
            OVERSEAS not in [COUNTRIES.get(c) for c in report["ruled"]] and \
            held.get((home, "MAR"), 0) >= 5 and held.get((home, "PAR"), 0) >= 8 and \
            held.get((home, "CGO"), 0) >= 1 and held.get((home, "HEL"), 0) >= 3:
        n = max((int(p["n"]) for p in plans), default=0) + 1
        lines += [f"PLAN {home},{OVERSEAS}", f"COMMIT {n},MAR,5,{home},GROUND,OPEN,0",
                  f"COMMIT {n},CGO,1,{home},SEA,OPEN,0", f"COMMIT {n},PAR,8,{home},GROUND,OPEN,0",
                  f"COMMIT {n},HEL,3,{home},AIR,OPEN,0"]
    return lines, bad
