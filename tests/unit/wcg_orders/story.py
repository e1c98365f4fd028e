"""The five-year game's script (Z4) on the 1960 world: a player's report of the turn before -> the lines that steer
the game to the events `benchmarks/wcg_long.py --check --strict` asks for, read from what the report shows.

The story, by home (a position not in it writes nothing here; on the test world nobody is in it):
- the Soviet Union hides its submarines, plans attacks on Turkey (its submarines committed: the sneak attack)
  and Iran, invades when the plans are ready, moves occupiers in once a country is conquered (R42), and asks to
  merge the two (rb 34, approved by APPROVE's default);
- China plans an attack on India and invades; India gives its DEFEND lines every month of the battle (months.py);
- the UN: Britain drafts "stop the Soviet Union invading Turkey" (Egypt vetoes it), France "stop ... Iran" (Brazil
  abstains: it sends no vote) and India "stop China invading India" (every voter says yes: it passes).
Everything else in a position's mail is the other makers' (un.py leaves the scripted resolutions to this one).
"""

from __future__ import annotations

import math
import random
import re
from functools import cache
from pathlib import Path
from typing import Any

ORDERS = ["plan", "commit", "invade", "hide", "sneak", "retreat", "move", "merge", "draft_stop", "vote"]
EXPECTED = [
    r"a sneak attack fires at ships: .+ is not one",
    r"a merger of .+ or .+ is already asked",
    r"every country you rule is named in resolution \d+ and has no vote",
]

RULES = Path(__file__).resolve().parents[3] / "rulesets" / "wcg.rules"
TURNS_A_YEAR = 25
ROW = re.compile(r'^  ([A-Z]{2,5}): "([^"]+)", (?:true|false), [\d.]+, ([\d.]+),', re.MULTILINE)
FORCE = re.compile(r"^(?P<country>.+?): (?P<count>\d+) (?P<kind>[A-Za-z .]+?)(?: \((?P<state>[\w ]+)\))?$")
PLAN = re.compile(r"plan (?P<base>[A-Z]+)-(?P<n>\d+): (?P<from>.+?) against (?P<target>.+?), (?P<status>[^;]+); "
                  r"(?P<lines>.*)$")
VOTE_OPEN = re.compile(r"(\d+) (.+): vote open until the end of turn (\d+)$")

# The scripted resolutions: (aggressor, victim) -> the drafter, what it answers, and the votes that differ from YES
# (None: no vote).
# Each is drafted in the reaction turn after the aggressor's plan or its invasion is announced.
RESOLUTIONS: dict[tuple[str, str], tuple[str, str, dict[str, str | None]]] = {
    ("RUS", "TUR"): ("GBR", "plan", {"EGY": "NO"}),          # failed by a veto
    ("RUS", "IRN"): ("FRA", "plan", {"BRA": None}),          # failed by an abstention
    ("CHN", "IND"): ("IND", "invasion", {}),                 # passed
}
# The attacks: base -> targets, each with the units committed (kind, count); SUB commits every submarine there.
ATTACKS: dict[str, dict[str, list[tuple[str, int]]]] = {
    "RUS": {"TUR": [("INF", 120), ("ARM", 20), ("ART", 15), ("INT", 30), ("SUB", 0)],
            "IRN": [("INF", 120), ("ARM", 20), ("ART", 15), ("INT", 30), ("BMR", 10), ("CRU", 6), ("ESC", 6)]},
    "CHN": {"IND": [("INF", 150), ("ART", 15), ("INT", 20)]},
}
FORM = {"INF": "GROUND", "ARM": "GROUND", "ART": "GROUND", "INT": "AIR", "BMR": "AIR", "SUB": "SEA", "CRU": "SEA",
        "ESC": "SEA"}
MERGE = {"RUS": ("TUR", "IRN")}
# How each submarine of a sneak attack spends its 15 points (R70): the first two name their targets, the rest
# fire by the default (the largest ship first).
SNEAK = [(1, "ESC", 10), (1, "MER", 5), (2, "CGO", 5)]


@cache
def countries() -> dict[str, tuple[str, float]]:
    """The rules' country rows -> each name's code and population (millions): the reports name, orders code."""
    return {name: (code, float(pop)) for code, name, pop in ROW.findall(RULES.read_text(encoding="utf-8"))}


@cache
def unit_codes() -> dict[str, str]:
    """The rules' unit chart -> each kind's name (and its plural) to its code."""
    text = RULES.read_text(encoding="utf-8")
    start = text.index("data UnitKind(")
    block = text[start:text.index("\n}", start)]
    names = {name: code for code, name in re.findall(r'^\s+([A-Z][A-Z0-9_]*): "([^"]+)"', block, re.MULTILINE)}
    # A report may give a count's plural ("3 submarines", "2 I.C.B.M.s"); "infantry" has none.
    return names | {f"{name}s": code for name, code in names.items() if not name.endswith("y")} | {
        "armoured unit": "ARM", "armoured units": "ARM"}  # W6's units(n, kind): "armoured" is no noun


def code_of(name: str) -> str | None:
    got = countries().get(name)
    return got[0] if got else None


def name_of(code: str) -> str:
    return next(n for n, (c, _) in countries().items() if c == code)


def kind_of(turn: int) -> str:
    """The kind of processed turn `turn` (wcg.rules' calendar): budget, then action and reaction each month."""
    place = (turn - 1) % TURNS_A_YEAR
    return "budget" if place == 0 else "action" if place % 2 == 1 else "reaction"


def holdings(report: dict[str, Any]) -> dict[tuple[str, str], int]:
    """A report's forces rows -> units by (country code, kind code), active or not."""
    out: dict[tuple[str, str], int] = {}
    for row in report.get("forces", []):
        m = FORCE.match(row)
        if m is None or m["state"] not in (None, "hidden"):
            continue
        where, kind = code_of(m["country"]), unit_codes().get(m["kind"])
        if where is not None and kind is not None:
            out[(where, kind)] = out.get((where, kind), 0) + int(m["count"])
    return out


def plans(report: dict[str, Any]) -> list[re.Match[str]]:
    return [m for m in (PLAN.match(p) for p in report.get("plans", [])) if m is not None]


def sub_home(report: dict[str, Any]) -> bool:
    """Whether the script steers this position's submarines (war.py leaves them alone)."""
    home = code_of(report["country"])
    return home is not None and any(k == "SUB" for a in ATTACKS.get(home, {}).values() for k, _ in a)


def scripted(text: str) -> bool:
    """Whether a resolution's text is one of the script's (un.py leaves their votes to this maker)."""
    return any(text == f"stop {name_of(a)} invading {name_of(v)}" for a, v in RESOLUTIONS)


def orders(report: dict[str, Any], turn: int, rng: random.Random,
           others: list[str]) -> tuple[list[str], dict[str, str]]:
    home = code_of(report["country"])
    kind = kind_of(turn)
    if home is None:
        return [], {}
    lines: list[str] = []
    bad: dict[str, str] = {}
    ruled = {code_of(n) for n in report.get("ruled", [])}
    lines += _un(report, home, turn, ruled)
    if kind == "budget":
        return lines, bad
    if home in ATTACKS:
        lines += _attacks(report, home, kind, ruled, bad)
    if home in MERGE and kind == "action" and all(c in ruled for c in MERGE[home]):
        a, b = MERGE[home]
        lines.append(f"MERGE {a},{b}")
    return lines, bad


def _un(report: dict[str, Any], home: str, turn: int, ruled: set[str | None]) -> list[str]:
    lines: list[str] = []
    news = report.get("news", [])
    rows = [str(r) for r in report.get("resolutions") or []]
    for (a, v), (drafter, when, dissent) in RESOLUTIONS.items():
        text = f"stop {name_of(a)} invading {name_of(v)}"
        # A reaction to the public action the report announced: the plan, or the invasion.
        # India waits for the invasion: a passed "stop" mandate sends every ownerless ship and aircraft to the
        # victim (R33), and Turkey's fleet must still be at home for the sneak attack.
        announced = any(n.startswith(f"{name_of(a)} invades {name_of(v)} " if when == "invasion" else
                                     f"{name_of(a)} is planning an attack on {name_of(v)} ") for n in news)
        if home == drafter and kind_of(turn) == "reaction" and announced and not any(f" {text}:" in r for r in rows):
            lines.append(f"UN STOP {a},{v}")
        for row in rows:
            m = VOTE_OPEN.match(row)
            if m is None or m[2] != text or int(m[3]) != turn:
                continue
            # The aggressor is named and has no vote, unless it rules another country.
            if not (ruled - {a}):
                continue
            answer = dissent.get(home, "YES")
            if answer is not None:
                lines.append(f"VOTE {m[1]},{answer}")
    return lines


def _attacks(report: dict[str, Any], home: str, kind: str, ruled: set[str | None], bad: dict[str, str]) -> list[str]:
    lines: list[str] = []
    have = holdings(report)
    mine = {code_of(p["target"]): p for p in plans(report)}
    for target, commit in ATTACKS[home].items():
        p = mine.get(target)
        if target in ruled:
            # Conquered: the winning plan ended with its battle (its units free again, the ground units the
            # occupiers, R42); another plan against the country is called off.
            if p is not None:
                lines.append(f"RETREAT {p['n']}")
            elif kind == "reaction":
                need = math.ceil(countries()[name_of(target)][1]) + 5
                there = sum(n for (c, k), n in have.items() if c == target and k in ("INF", "ARM"))
                if there < need:
                    lines.append(f"MOVE INF,{need - there},{home},{target}")
            continue
        if p is None:
            # A merged partner is off the map: once the first of a merged pair is ruled, the second is not attacked.
            pair = MERGE.get(home)
            # Nor is a victim a passed UN mandate protects (R33): PLAN would be refused while it stands.
            shielded = any(r.startswith(f"{n} stop {name_of(home)} invading {name_of(target)}: passed")
                           for r in report.get("resolutions") or [] for n in [r.split(" ", 1)[0]])
            if kind == "action" and not shielded and not (pair and target == pair[1] and pair[0] in ruled):
                if any(k == "SUB" for k, _ in commit) and have.get((home, "SUB")):
                    lines.append(f"HIDE {home},{have[(home, 'SUB')]}")
                lines.append(f"PLAN {home},{target}")
            continue
        status = p["status"]
        if p["lines"] == "no units committed":
            for k, n in commit:
                count = have.get((home, k), 0) if k == "SUB" else min(n, have.get((home, k), 0))
                if count > 0:
                    lines.append(f"COMMIT {p['n']},{k},{count},{home},{FORM[k]},OPEN,0")
                    if k == "BMR":
                        # R58: the bombers bomb at range 2 and then withdraw (WITHDRAW, after their COMMIT line).
                        lines.append(f"WITHDRAW {p['n']},BMR,1")
        elif status == "ready" and kind == "action":
            lines.append(f"INVADE {p['n']}")
            if any(k == "SUB" for k, _ in commit):
                lines += [f"SNEAK {p['n']},{s},{k},{pts}" for s, k, pts in SNEAK]
                line = f"SNEAK {p['n']},3,INF,1"
                lines.append(line)
                bad[line] = "a sneak attack fires at ships"
    return lines
