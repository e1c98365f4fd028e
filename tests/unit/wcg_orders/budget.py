"""WCG's budget orders (W2) for the long game: a player's report of the turn before -> a budget in each January
(and again after a refusal) that accounts for every dollar: investments, an export level, a currency step, a
factory, a fort, upkeep, army points and savings; UNIQUE once, in a later turn; now and then a line written
to be refused."""

from __future__ import annotations

import random
from decimal import ROUND_CEILING, Decimal
from typing import Any

from .story import kind_of

ORDERS = ["invest", "budget_army", "budget_save", "budget_factory", "budget_export", "budget_currency",
          "budget_upkeep", "budget_fort", "unique"]
EXPECTED = [
    r"your budget for \d+ is approved and final \(rb 21\)",
    r".* uses the .*: give UNIQUE first to invest in a currency of your own \(rb 36\)",
    r"only a currency of your own can be raised \(rb 36\): give UNIQUE first",
    r"an export level cannot go above 30 \(rb 33\): .* is at \d+",
    r".* already has a currency of its own; a group is never rejoined \(rb 36\)",
    r"you do not rule .*",
]

TENTH = Decimal("0.1")
# The report names the home country; its code for the lines that name one (the test world's and the 1960 world's
# starting positions as far as they are known here; another home buys no factory or fort).
CODES = {"United States": "USA", "Mexico": "MEX", "Canada": "CAN", "Cuba": "CUB"}


def _up(x: Decimal) -> Decimal:
    return x.quantize(TENTH, rounding=ROUND_CEILING)


def orders(report: dict[str, Any], turn: int, rng: random.Random, others: list[str]) -> tuple[list[str],
                                                                                              dict[str, str]]:
    budget_turn = kind_of(turn) == "budget"
    income = Decimal(report["income"])
    own = report["currency_name"] == "own currency"
    lines: list[str] = []
    bad: dict[str, str] = {}
    if not own and not budget_turn and rng.random() < 0.2:
        lines.append("UNIQUE")
    if not (budget_turn or not report["budget_approved"]):
        return lines, bad
    population = Decimal(report["population"])
    industrial = bool(report["industrial"])
    level = int(report["export_level"])
    left = income
    price = Decimal(1) * (level + 1)                                    # export_level_cost 1.0
    if level < 30 and price <= left and rng.random() < 0.7:
        lines.append("EXPORT 1")
        left -= price
    elif level + 20 > 30 and rng.random() < 0.2:
        lines.append("EXPORT 15")
        bad["EXPORT 15"] = "cannot go above 30"
    code = CODES.get(report["country"])
    if code is not None and Decimal(50) <= left and rng.random() < 0.8:
        lines.append(f"FACTORY {code}")
        left -= 50
    for what in ("POPULATION", "CURRENCY"):
        pct = rng.choice([0, 10, 20, 30])
        if pct == 0 or (what == "CURRENCY" and not own):
            continue
        cost = _up(income * pct / 100)
        if cost > left:
            continue
        extreme = rng.choice(["ALLOW", "REFUSE"]) if pct >= 20 else "ALLOW"
        lines.append(f"INVEST {what},{pct},{rng.choice(['UP', 'DOWN'])},{extreme}")
        left -= cost
    step = _up(income * 10 / 100)
    if own and Decimal(report["currency"]) < 1 and step <= left and rng.random() < 0.5:
        lines.append("RAISE 1")
        left -= step
    if code is not None and population > 0 and rng.random() < 0.3:
        fort = _up(Decimal(((8 if industrial else 10) + 1) // 2) / population)   # half an infantry's cost
        if fort <= left:
            lines.append(f"FORT {code},INF,1")
            left -= fort
    if code != "CAN" and rng.random() < 0.1:
        lines.append("FACTORY CAN")
        bad["FACTORY CAN"] = "you do not rule Canada"
    if population > 0:
        upkeep = _up(Decimal(1 if industrial else 2) / population)         # infantry (rb 51's chart)
        if upkeep <= left:
            lines.append("UPKEEP INF,1")
            left -= upkeep
    army = _up(left * Decimal(rng.choice([0, 25, 50])) / 100)
    if army > 0:
        lines.append(f"ARMY {army}")
        left -= army
    lines.append(f"SAVE {left}")
    return lines, bad
