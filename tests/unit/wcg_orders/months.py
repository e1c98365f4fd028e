"""W3's order maker for WCG's long game: a player's report of the turn before -> plausible monthly actions (moves,
plans and their lines, invasions, retreats, spending, a merger request) and the lines written to be refused."""

from __future__ import annotations

import random
import re
from typing import Any

from .story import code_of, holdings, kind_of

ORDERS = ["move", "plan", "commit", "uncommit", "retreat", "orders_change", "invade", "defend", "fund", "build",
          "give", "merge"]

EXPECTED = [
    r"you have \d+ [a-z .]+ in [A-Za-z .'-]+",
    r"only -?\d+ [a-z .]+ in [A-Za-z .'-]+ are not committed to a plan",
    r"[a-z .]+ cannot go from .+ to .+: .+",
    r".+ was conquered less than a month ago \(rb 48\)",
    r".+ is at war: plan an attack on it instead",
    r"you do not rule .+",
    r"you rule .+",
    r"UN resolution \d+ forbids it",
    r"plan \d+ has been launched.*",
    r"plan \d+ is ready in \w+ \d+",
    r"plan \d+ has no units: COMMIT some",
    r"plan \d+ has more units committed than are there: change it",
    r"ground troops need a common land border with .+",
    r"plan \d+ has not been launched: change it with COMMIT and UNCOMMIT",
    r"plan \d+ has \d+ [a-z .]+",
    r"you have no plan \d+",
    r"there is no battle in .+",
    r"your .+ in .+ have their lines for this month: final \(rb 40\)",
    r"you have \$[\d.]+M saved",
    r".+ has merged into another country",
    r".+ has no port \(rb 10\)",
    r"you have \d+ army points in .+; \d+ .+ cost \d+ there",
    r"a starting country cannot merge \(rb 34\)",
    r"you must rule both .+ and .+",
    r".+ and .+ have no common land border",
    r"a merger of .+ or .+ is already asked",
]

# The test world's names (the report shows names; orders take codes). A country or kind not here (W1's world)
# is left alone.
COUNTRIES = {"United States": "USA", "Mexico": "MEX", "Cuba": "CUB", "Canada": "CAN"}
BORDERS = {"USA": ["MEX", "CAN"], "MEX": ["USA"], "CAN": ["USA"], "CUB": []}
KINDS = {"infantry": "INF", "armoured": "ARM", "interceptor": "INT", "battleship": "BAT", "submarine": "SUB",
         "cargo ship": "CGO"}
# The report counts units in the plural (W6: "2 submarines", "3 armoured units"), and says a stack's state.
KINDS |= {f"{name}s": code for name, code in KINDS.items() if name != "infantry"} | {
    "armoured unit": "ARM", "armoured units": "ARM"}
FORCE = re.compile(r"(?P<country>[^:]+): (?P<count>\d+) (?P<kind>[a-z ]+?)(?: \([^)]*\))?$")
BATTLE = re.compile(r"(?P<country>.+?): (?P<side>attacking|defending), (?P<months>\d+) month")
PLAN = re.compile(r"plan [A-Z]+-(?P<n>\d+): .*?, (?P<status>launched|ready in \w+ \d+|ready);")


def orders(report: dict[str, Any], turn: int, rng: random.Random,
           others: list[str]) -> tuple[list[str], dict[str, str]]:
    lines: list[str] = []
    bad: dict[str, str] = {}
    kind = kind_of(turn)
    if kind != "budget":
        _defend(report, kind, rng, lines, bad)
    home = COUNTRIES.get(report["country"])
    if home is None:
        return lines, bad
    saved = float(report["saved"])
    # Spending, in any kind of turn.
    if saved >= 0.2 and rng.random() < 0.5:
        lines.append(f"FUND {rng.choice(['CUB', 'CAN'])},0.1")
    if saved >= 0.2 and others and rng.random() < 0.3:
        lines.append(f"GIVE {others[0]},0.1")
    for row in report["points"]:
        code = COUNTRIES.get(row["country"])
        if code is not None and row["points"] >= 10:
            lines.append(f"BUILD {code},INF,1")
    if kind == "budget":
        return lines, bad
    # Moves: one unit of a stack of land units to a neighbour, now and then; stacks abroad come home.
    for row in report["forces"]:
        m = FORCE.match(row)
        if m is None or m["country"] not in COUNTRIES or m["kind"] not in KINDS:
            continue
        where, k, n = COUNTRIES[m["country"]], KINDS[m["kind"]], int(m["count"])
        if k not in ("INF", "ARM"):
            continue
        if m["country"] not in report["ruled"] and home in BORDERS[where]:
            lines.append(f"MOVE {k},{n},{where},{home}")
        elif n >= 8 and BORDERS[where] and rng.random() < 0.3:
            lines.append(f"MOVE {k},1,{where},{rng.choice(BORDERS[where])}")
    # Plans: one at a time; a launched one is changed and then called off, a ready one launched.
    plans = [m for m in (PLAN.match(p) for p in report["plans"]) if m is not None]
    if not plans and BORDERS[home] and rng.random() < 0.4:
        lines += [f"PLAN {home},{rng.choice(BORDERS[home])}", f"COMMIT 1,INF,2,{home},GROUND,OPEN,0"]
    for p in plans:
        num, status = p["n"], p["status"]
        if status == "launched":
            lines.append(f"ORDERS {num},INF,1,GROUND,FORT" if rng.random() < 0.5 else f"RETREAT {num}")
        elif status == "ready" and kind == "action":
            lines.append(f"INVADE {num}")
        elif status != "ready" and rng.random() < 0.3:
            lines.append(f"UNCOMMIT {num},INF,1")
            lines.append(f"COMMIT {num},INF,1,{home},GROUND,OPEN,0")
    # Lines written to be refused.
    if rng.random() < 0.2:
        other = rng.choice(["Cuba", "Canada"])
        line = f"MERGE {home},{COUNTRIES[other]}"
        lines.append(line)
        bad[line] = "a starting country cannot merge" if other in report["ruled"] else "you must rule both"
    return lines, bad


def _defend(report: dict[str, Any], kind: str, rng: random.Random, lines: list[str], bad: dict[str, str]) -> None:
    """R40: a defender's lines for each battle its report shows it in (its ground stacks there: in the month the
    battle opens the reaction turn's, then each month the action turn's, the reaction turn's again refused as
    final), and now and then a DEFEND at home where the report shows no battle, refused: in a reaction turn no
    battle can have opened since (invasions are action turns')."""
    have = holdings(report)
    fought: set[str] = set()
    for row in report.get("battles", []):
        m = BATTLE.match(row)
        if m is None or (where := code_of(m["country"])) is None:
            continue
        fought.add(where)
        if m["side"] != "defending":
            continue
        for k in ("INF", "ARM"):
            if have.get((where, k), 0) > 0:
                line = f"DEFEND {where},{k},{have[(where, k)]},GROUND,{where}"
                lines.append(line)
                if kind == "reaction" and int(m["months"]) > 0:
                    # A battle fought on: this month's action turn gave the line, final (rb 40).
                    bad[line] = "have their lines for this month: final"
    home = code_of(report["country"])
    if kind == "reaction" and home is not None and home not in fought and have.get((home, "INF"), 0) > 0 \
            and rng.random() < 0.1:
        line = f"DEFEND {home},INF,1,GROUND,{home}"
        lines.append(line)
        bad[line] = "there is no battle in"
