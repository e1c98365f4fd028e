"""A Covert state (as `runtime.state.dump` writes it) and each player's chosen orders -> the next state, the news,
each order's outcome, and each player's report data, in hand-written Python.

The yardstick of benchmarks/bench_engine.py: the steps of one Covert day (rulesets/covert.rules) as a programmer
would write them by hand for this one game: plain classes, maps keyed by the objects themselves, and one Python
function for each of the rules' functions, called where the rules call it. Idiomatic where the data allows it
(a country's leader is found from the players who hold influence there, not by asking every player), but
nothing the rules do not say: no caches, no steps merged. It must do exactly what the rules say:
bench_engine.py checks its state, news, order outcomes and report data against the generated engine's.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

ARMS_COST = {1: 1, 2: 3, 3: 6, 4: 10, 5: 15}
MAJORITY_HELD_FOR = 2


class Player:
    __slots__ = ("account", "active", "cash", "code", "contacts", "email", "income", "name", "new_code", "ord",
                 "orders_available", "superspy")

    def __init__(self, ordinal: int, row: dict[str, Any]) -> None:
        self.ord = ordinal
        self.account: str = row["account"]
        self.name: str = row["name"]
        self.code: str = row["code"]
        self.email: str = row["email"]
        self.active: bool = row["active"]
        self.cash: int = row["cash"]
        self.income: int = row["income"]
        self.orders_available: int = row["orders_available"]
        self.superspy: Country | None = None
        self.new_code: str = row["new_code"]
        self.contacts: list[str] = list(row["contacts"])


class Country:
    __slots__ = ("adjacent", "code", "combat", "combatants", "conquered_today", "conquering", "defending",
                 "government_changed", "income_lost", "income_today", "industry", "influence", "leader_at_dawn",
                 "name", "ord", "security", "spy", "start_troops", "troops")

    def __init__(self, ordinal: int, code: str, row: dict[str, Any]) -> None:
        self.ord = ordinal
        self.code = code
        self.name: str = row["name"]
        self.industry: int = row["industry"]
        self.troops: int = row["troops"]
        self.security: int = row["security"]
        self.adjacent: list[Country] = []
        self.influence: dict[Player, int] = {}
        self.spy: dict[Player, int] = {}
        self.defending: dict[Country, int] = {}
        self.conquering: dict[Country, int] = {}
        self.leader_at_dawn: Player | None = None
        self.start_troops: int = row["start_troops"]
        self.income_lost = 0
        self.income_today = 0
        self.conquered_today = False
        self.government_changed = False
        self.combat: list[str] = []
        self.combatants: list[Country] = []


@dataclass
class Order:
    """One order as the player wrote it and as it came out."""

    kind: str
    player: Player
    text: str
    country: Country | None = None
    target: Country | None = None
    amount: int = 0
    status: str = "pending"
    reason: str | None = None


@dataclass
class Covert:
    data: dict[str, Any]
    params: dict[str, Any] = field(init=False)
    players: list[Player] = field(init=False)
    countries: list[Country] = field(init=False)
    by_code: dict[str, Country] = field(init=False)
    turn: int = field(init=False)
    news: list[str] = field(default_factory=list)
    tells: dict[str, list[str]] = field(default_factory=dict)
    executed: dict[str, list[Order]] = field(default_factory=lambda: defaultdict(list))
    streaks: dict[str, dict[str, int]] = field(init=False)
    warnings: list[str] = field(default_factory=list)
    winners: list[str] = field(default_factory=list)
    game_over: bool = False
    rngs: dict[str, random.Random] = field(default_factory=dict)

    def __post_init__(self) -> None:
        d = self.data
        self.params = dict(d["parameters"])
        self.turn = d["turn"]
        self.players = [Player(i, row) for i, row in enumerate(d["players"])]
        by_account = {p.account: p for p in self.players}
        self.countries = [Country(i, code, row) for i, (code, row) in enumerate(d["Country"].items())]
        self.by_code = {c.code: c for c in self.countries}
        for c, row in zip(self.countries, d["Country"].values(), strict=True):
            c.adjacent = [self.by_code[k] for k in row["adjacent"]]
            c.influence = {by_account[k]: v for k, v in row["influence"].items()}
            c.spy = {by_account[k]: v for k, v in row["spy"].items()}
            c.defending = {self.by_code[k]: v for k, v in row["defending"].items()}
            c.conquering = {self.by_code[k]: v for k, v in row["conquering"].items()}
            c.leader_at_dawn = by_account.get(row["leader_at_dawn"] or "")
        for p, row in zip(self.players, d["players"], strict=True):
            p.superspy = self.by_code.get(row["superspy"] or "")
        self.streaks = {"majority": dict(d["engine"]["streaks"].get("majority", {})),
                        "last_one_left": dict(d["engine"]["streaks"].get("last_one_left", {}))}
        self.game_over = d["engine"]["game_over"]
        self.winners = list(d["engine"]["winners"])

    # ------------------------------------------------------------ helpers
    def chance(self, percent: int, purpose: str) -> bool:
        r = self.rngs.get(purpose)
        if r is None:
            digest = hashlib.sha256(f"{self.data['seed']}/{self.turn}/{purpose}".encode()).digest()
            r = self.rngs[purpose] = random.Random(int.from_bytes(digest[:8], "big"))
        return r.randint(1, 100) <= percent

    def success_chance(self, cash: int, bonus: int, security: int, difficulty: int) -> int:
        p = self.params
        return max(0, min(p["max_chance"], cash * p["cash_power"] + bonus - security * p["security_power"]
                          - difficulty))

    def attack_bonus(self, p: Player, c: Country) -> int:
        par = self.params
        mine = sum(a.conquering.get(c, 0) + a.defending.get(c, 0) for a in c.adjacent if controller(a) is p)
        bonus = par["spy_bonus"] if c.spy.get(p, 0) > 0 else 0
        bonus += par["superspy_bonus"] if p.superspy is c else 0
        bonus += par["troops_bonus"] if mine > 0 else 0
        bonus += par["more_troops_bonus"] if mine > defenders(c) else 0
        return bonus + par["adjacent_bonus"] * sum(1 for a in c.adjacent if controller(a) is p)

    # ------------------------------------------------------------ the day
    def start_day(self) -> None:
        """What the engine does before the day's events: the next turn, and the fields kept for a day reset."""
        self.turn += 1
        for c in self.countries:
            c.income_lost = c.income_today = 0
            c.conquered_today = c.government_changed = False
            c.combat, c.combatants = [], []
        for p in self.players:
            p.contacts = []

    def dawn(self) -> None:
        for c in self.countries:
            c.leader_at_dawn = controller(c)
            if self.turn == 1:
                c.start_troops = c.troops

    def run(self, batch: list[Order]) -> None:
        """Each order of one kind, in the order the engine chose: its checks, its cost, then its effect."""
        for o in batch:
            me = o.player
            if not me.active:
                o.status, o.reason = "failed", "you are out of the game"
                continue
            o.reason = REQUIRE[o.kind](self, o)
            if o.reason is not None:
                o.status = "failed"
                continue
            cost = COST[o.kind](self, o)
            if cost:
                if cost > me.cash:
                    o.status, o.reason = "failed", f"not enough cash: it costs {cost} and you have {me.cash}"
                    continue
                me.cash -= cost
            EFFECT[o.kind](self, o)
            o.status = "done"
            me.orders_available -= 1
            self.executed[o.kind].append(o)

    def revolution_spent(self, p: Player, c: Country) -> int:
        return sum(o.amount for o in self.executed["revolution"] if o.country is c and o.player is p)

    def terrorism(self) -> None:
        par = self.params
        for c in self.countries:
            attacks = [o for o in self.executed["terrorism"] if o.country is c]
            if not attacks:
                continue
            total = sum(o.amount for o in attacks)
            bonus = max(self.attack_bonus(o.player, c) for o in attacks)
            odds = self.success_chance(total, bonus, c.security, par["terror_difficulty"])
            leader = controller(c)
            c.security -= min(c.security, total // par["terror_security_divisor"])
            if leader is not None:
                c.influence[leader] = c.influence.get(leader, 0) - min(c.influence.get(leader, 0),
                                                                       total // par["terror_influence_divisor"])
            if self.chance(odds, "terrorism"):
                c.income_lost = min(c.industry, total // par["terror_income_divisor"])
                self.news.append(f"Terrorists strike in {c.name}")
                if c.industry > 0 and self.chance(par["terror_destroy_chance"], "terrorism damage"):
                    c.industry -= 1
                    self.news.append(f"Terrorists destroy an industry in {c.name}")
            else:
                self.news.append(f"Terrorists are caught in {c.name}")

    def revolutions(self) -> None:
        for c in self.countries:
            backers = sorted((p for p in self.players if p.active and self.revolution_spent(p, c) > 0),
                             key=lambda p: self.revolution_spent(p, c), reverse=True)
            if not backers:
                continue
            leader = backers[0]
            paid = self.revolution_spent(leader, c)
            second = self.revolution_spent(backers[1], c) if len(backers) > 1 else 0
            if paid > second and self.chance(
                    self.success_chance(paid - second, self.attack_bonus(leader, c), c.security,
                                        self.params["revolution_difficulty"]), "revolution"):
                change_government(c)
                c.influence[leader] = paid
                self.news.append(f"Revolution in {c.name}: the government falls")
            else:
                self.news.append(f"A revolution fails in {c.name}")

    def combat(self) -> None:
        for c in self.countries:
            invaders = [a for a in c.adjacent if a.conquering.get(c, 0) > 0]
            if not invaders:
                continue
            defence = defenders(c)
            largest = max(defence, max(a.conquering[c] for a in invaders))
            self.news.append(f"Fighting in {c.name}")
            if defence > 0:
                loss = min(defence, combat_losses(largest, defence))
                c.combat.append(f"{c.code} defends with {troops(c.troops)} at home")
                for a in c.adjacent:
                    if a.defending.get(c, 0) > 0:
                        c.combat.append(f"{a.code} helps defend with {troops(a.defending[c])}")
                        add_combatant(c, a)
                c.combat.append(f"the defenders, {troops(defence)} in all, lose {loss}")
                take_defence_losses(c, loss)
            for a in invaders:
                force = a.conquering.get(c, 0)
                loss = min(force, combat_losses(largest, force))
                c.combat.append(f"{a.code} invades with {troops(force)} and loses {loss}")
                add_combatant(c, a)
                a.conquering[c] = force - loss
            if defenders(c) == 0:
                winner = best_of((a, a.conquering.get(c, 0)) for a in c.adjacent if a.conquering.get(c, 0) > 0)
                if winner is not None:
                    boss = controller(winner)
                    c.troops = winner.conquering[c]
                    winner.conquering[c] = 0
                    change_government(c)
                    c.conquered_today = True
                    if boss is not None:
                        c.influence[boss] = self.params["conquest_influence"]
                    c.combat.append(f"{winner.code} conquers {c.code}")
                    self.news.append(f"{winner.name} conquers {c.name}")

    def spies_caught(self) -> None:
        for c in self.countries:
            for p in sorted((p for p, v in c.spy.items() if v > 0), key=lambda p: p.ord):
                c.spy[p] -= 1
                if c.spy[p] <= c.security:
                    c.spy[p] = 0
                    self.news.append(f"A spy is caught in {c.name}")
                    self.tells.setdefault(p.account, []).append(f"Your spy in {c.name} was caught.")

    def income(self) -> None:
        for c in self.countries:
            leader = controller(c)
            if leader is not None and not c.conquered_today:
                c.income_today = self.params["industry_income"] * max(0, c.industry - c.income_lost)
                leader.cash += c.income_today
        for p in self.players:
            if p.active:
                p.cash += p.income

    def new_codes(self) -> None:
        for p in self.players:
            if p.new_code != "":
                p.code, p.new_code = p.new_code, ""

    def day(self, batches: dict[str, list[Order]]) -> None:
        """The day after dawn: the phases of covert.rules in their order."""
        for kind in ("message", "transfer", "liquidate", "arms", "guard", "spy", "invest", "withdraw", "defend",
                     "conquer", "kill", "terrorism"):
            self.run(batches.get(kind, []))
        self.terrorism()
        self.run(batches.get("revolution", []))
        self.revolutions()
        self.combat()
        self.run(batches.get("bribe", []))
        self.spies_caught()
        self.income()
        self.new_codes()

    def end_day(self) -> None:
        """What the engine does after the day's events: the order budget grows."""
        for p in self.players:
            if p.active:
                p.orders_available += 7

    def victory(self) -> None:
        active = [p for p in self.players if p.active]
        winners: list[str] = []
        for name, held_for, holds in (
                ("majority", MAJORITY_HELD_FOR, lambda p: countries_of(self, p) * 2 > len(self.countries)),
                ("last_one_left", 1, lambda p: len(active) == 1)):
            streak = self.streaks[name]
            for p in self.players:
                held = p.active and holds(p)
                streak[p.account] = streak.get(p.account, 0) + 1 if held else 0
                if held and name == "majority":
                    self.warnings.append(f"{p.name} has the highest influence in more than half of the countries")
                if held and streak[p.account] >= held_for and p.name not in winners:
                    winners.append(p.name)
            self.streaks[name] = {k: n for k, n in streak.items() if n}
        if not active or winners:
            self.game_over = True
        if winners:
            self.winners = winners

    # ------------------------------------------------------------ reports
    def reports(self) -> dict[str, dict[str, Any]]:
        """Every player's report data, by account."""
        return {me.account: self.report(me) for me in self.players}

    def report(self, me: Player) -> dict[str, Any]:
        countries = self.countries
        return {
            "income": me.income, "cash": me.cash, "orders_available": me.orders_available,
            "controlled": [{
                "code": c.code, "name": c.name, "industry": c.industry, "security": c.security,
                "influence": c.influence.get(me, 0), "spy": c.spy.get(me, 0), "income": c.income_today,
                "troops": c.troops, "present": troops_present(c), "abroad": troops_abroad(c),
                "previous": name_of(c.leader_at_dawn) if c.leader_at_dawn not in (None, me) else None,
            } for c in countries if controls(me, c)],
            "lost": [{"code": c.code, "name": c.name} for c in countries
                     if c.leader_at_dawn is me and not controls(me, c)],
            "not_controlled": [{
                "code": c.code, "name": c.name, "industry": c.industry, "influence": c.influence.get(me, 0),
                "start_troops": c.start_troops if self.turn == 1 else None,
            } for c in countries if not controls(me, c)],
            "military": [{"code": c.code, "name": c.name, "combat": list(c.combat)}
                         for c in countries if c.combat and sees_military(me, c)],
            "spies": [self.spy_report(me, c) for c in countries if c.spy.get(me, 0) > 0],
            "superspy": self.superspy_report(me, me.superspy) if me.superspy is not None else None,
            "contacts": list(me.contacts),
            "standings": [{"name": p.name, "countries": countries_of(self, p)} for p in self.players]
            if self.game_over else [],
            "world": [{"code": c.code, "name": c.name, "leader": name_of(controller(c))} for c in countries]
            if self.game_over else [],
        }

    def spy_report(self, me: Player, c: Country) -> dict[str, Any]:
        mine, security, leader = c.spy.get(me, 0), c.security, controller(c)
        others = sorted(((q, v) for q, v in c.spy.items() if q is not me and v > 0 and mine >= 4 * v),
                        key=by_ord)
        return {
            "code": c.code, "name": c.name, "value": mine, "industry": c.industry,
            "security": security if mine >= 2 * security else None,
            "leader": name_of(leader) if mine >= 3 * security else None,
            "leader_at_dawn": name_of(c.leader_at_dawn) if mine >= 3 * security and c.leader_at_dawn is not leader
            else None,
            "leader_influence": max((c.influence.get(p, 0) for p in self.players if p.active), default=0)
            if mine >= 4 * security and leader is not None else None,
            "other_spies": [{"value": v if mine >= 5 * v else None, "owner": q.name if mine >= 6 * v else None}
                            for q, v in others],
        }

    def superspy_report(self, me: Player, c: Country) -> dict[str, Any]:
        return {
            "code": c.code, "name": c.name, "industry": c.industry, "security": c.security, "troops": c.troops,
            "leader": name_of(controller(c)),
            "influence": [{"player": q.name, "level": v} for q, v in sorted(c.influence.items(), key=by_ord) if v > 0],
            "spies": [{"player": q.name, "value": v} for q, v in sorted(c.spy.items(), key=by_ord) if v > 0],
            "present": troops_present(c), "combat": list(c.combat),
            "superspies": [q.name for q in self.players if q is not me and q.superspy is c],
        }

    # ------------------------------------------------------------ the state, as runtime.state.dump writes it
    def dump(self) -> dict[str, Any]:
        out = dict(self.data)
        out["turn"] = self.turn
        out["players"] = [{
            "name": p.name, "account": p.account, "code": p.code, "email": p.email, "active": p.active,
            "cash": p.cash, "income": p.income, "orders_available": p.orders_available,
            "superspy": p.superspy.code if p.superspy else None, "new_code": p.new_code, "contacts": p.contacts,
        } for p in self.players]
        out["Country"] = {c.code: {
            "name": c.name, "industry": c.industry, "troops": c.troops, "security": c.security,
            "adjacent": [a.code for a in c.adjacent],
            "influence": _keyed(c.influence, lambda p: p.account),
            "spy": _keyed(c.spy, lambda p: p.account),
            "defending": _keyed(c.defending, lambda a: a.code),
            "conquering": _keyed(c.conquering, lambda a: a.code),
            "leader_at_dawn": c.leader_at_dawn.account if c.leader_at_dawn else None,
            "start_troops": c.start_troops, "income_lost": c.income_lost, "income_today": c.income_today,
            "conquered_today": c.conquered_today, "government_changed": c.government_changed,
            "combat": c.combat, "combatants": [a.code for a in c.combatants],
        } for c in self.countries}
        out["engine"] = dict(self.data["engine"], streaks={k: v for k, v in self.streaks.items() if v},
                             game_over=self.game_over, winners=self.winners)
        return out


def _keyed(m: dict[Any, int], key: Any) -> dict[str, int]:
    return {key(k): v for k, v in sorted(m.items(), key=by_ord) if v != 0}


def by_ord(item: tuple[Any, Any]) -> int:
    return int(item[0].ord)


# ---------------------------------------------------------------- the game's functions
def controller(c: Country) -> Player | None:
    """The active player with the highest influence above zero, or nobody on a tie at the top."""
    leader, top, tied = None, 0, False
    for p, level in c.influence.items():
        if level > top and p.active:
            leader, top, tied = p, level, False
        elif level == top and level > 0 and p.active:
            tied = True
    return None if tied else leader


def defenders(c: Country) -> int:
    return c.troops + sum(a.defending.get(c, 0) for a in c.adjacent)


def troops(n: int) -> str:
    return "1 troop" if n == 1 else f"{n} troops"


def name_of(p: Player | None) -> str | None:
    return p.name if p is not None else None


def combat_losses(largest: int, force: int) -> int:
    # The rules' key is largest / force, compared with 1.5 and 2: multiplied out, in whole numbers.
    if 2 * largest < 3 * force:
        return 1
    if largest < 2 * force:
        return 2
    return 3


def best_of(pairs: Any) -> Any:
    winner, top, tied = None, None, False
    for item, score in pairs:
        if top is None or score > top:
            winner, top, tied = item, score, False
        elif score == top:
            tied = True
    return None if tied else winner


def change_government(c: Country) -> None:
    c.influence.clear()
    c.government_changed = True


def take_defence_losses(c: Country, loss: int) -> None:
    home = min(c.troops, loss)
    c.troops -= home
    left = loss - home
    for a in c.adjacent:
        if a.defending.get(c, 0) > 0:
            part = min(a.defending[c], left)
            a.defending[c] -= part
            left -= part


def add_combatant(c: Country, a: Country) -> None:
    if a not in c.combatants:
        c.combatants.append(a)
        c.combatants.sort(key=lambda x: x.ord)


def troops_present(c: Country) -> list[dict[str, Any]]:
    return ([{"country": a.code, "troops": a.conquering[c], "mission": "conquering"}
             for a in c.adjacent if a.conquering.get(c, 0) > 0]
            + [{"country": a.code, "troops": a.defending[c], "mission": "defending"}
               for a in c.adjacent if a.defending.get(c, 0) > 0])


def troops_abroad(c: Country) -> list[dict[str, Any]]:
    return ([{"country": a.code, "troops": c.conquering[a], "mission": "conquering"}
             for a in c.adjacent if c.conquering.get(a, 0) > 0]
            + [{"country": a.code, "troops": c.defending[a], "mission": "defending"}
               for a in c.adjacent if c.defending.get(a, 0) > 0])


def controls(p: Player, c: Country) -> bool:
    return controller(c) is p


def countries_of(g: Covert, p: Player) -> int:
    return sum(1 for c in g.countries if controls(p, c))


def sees_military(p: Player, c: Country) -> bool:
    return (controls(p, c) or c.leader_at_dawn is p or c.spy.get(p, 0) > 0
            or any(controls(p, a) or a.leader_at_dawn is p for a in c.combatants)
            or any(a.conquering.get(c, 0) + a.defending.get(c, 0) > 0 for a in c.adjacent if controls(p, a)))


# ---------------------------------------------------------------- the orders: checks, cost, effect
def _not_led(g: Covert, o: Order) -> str | None:
    assert o.country is not None
    return None if controller(o.country) is o.player else f"{o.country.name} is not under your influence"


def _no_check(g: Covert, o: Order) -> str | None:
    return None


def _bribe_check(g: Covert, o: Order) -> str | None:
    assert o.country is not None
    if o.country.government_changed:
        return f"the government of {o.country.name} changed today, so the bribe was not paid"
    return None


def _move_check(other: str) -> Any:
    """conquer and defend: troops from a country led by the player, none of them on the other mission there."""
    def check(g: Covert, o: Order) -> str | None:
        origin, target, me = o.country, o.target, o.player
        assert origin is not None and target is not None
        if controller(origin) is not me:
            return f"{origin.name} is not under your influence"
        if getattr(origin, other).get(target, 0) != 0:
            return f"{origin.name} has troops {other} {target.name}; withdraw them first"
        if o.amount > origin.influence.get(me, 0):
            return f"you may send at most {origin.influence.get(me, 0)} troops, your influence in {origin.name}"
        if o.amount > origin.troops:
            return f"{origin.name} has only {origin.troops} troops at home"
        return None
    return check


def _liquidate_check(g: Covert, o: Order) -> str | None:
    assert o.country is not None
    return _not_led(g, o) or (None if o.country.industry > 0 else f"{o.country.name} has no industry to sell")


def _message_check(g: Covert, o: Order) -> str | None:
    assert o.country is not None
    if o.country.leader_at_dawn is None:
        return f"nobody had the highest influence in {o.country.name} at dawn"
    return None


def _withdraw_check(g: Covert, o: Order) -> str | None:
    origin, location = o.country, o.target
    assert origin is not None and location is not None
    there = origin.conquering.get(location, 0) + origin.defending.get(location, 0)
    if controller(origin) is not o.player:
        return f"{origin.name} is not under your influence"
    if o.amount > there:
        return f"{origin.name} has only {there} troops in {location.name}"
    return None


def _arms(g: Covert, o: Order) -> None:
    assert o.country is not None
    o.country.troops += o.amount


def _bribe(g: Covert, o: Order) -> None:
    assert o.country is not None
    o.country.influence[o.player] = o.country.influence.get(o.player, 0) + o.amount


def _move(mission: str, says: str) -> Any:
    def effect(g: Covert, o: Order) -> None:
        origin, target, me = o.country, o.target, o.player
        assert origin is not None and target is not None
        origin.troops -= o.amount
        away = getattr(origin, mission)
        away[target] = away.get(target, 0) + o.amount
        origin.influence[me] = origin.influence.get(me, 0) - o.amount
        g.news.append(f"Troops from {origin.name} {says} {target.name}")
    return effect


def _guard(g: Covert, o: Order) -> None:
    assert o.country is not None
    o.country.security += o.amount


def _invest(g: Covert, o: Order) -> None:
    assert o.country is not None
    o.country.industry += 1
    g.news.append(f"New industry is built in {o.country.name}")


def _kill(g: Covert, o: Order) -> None:
    c = o.country
    assert c is not None
    odds = g.success_chance(o.amount, g.attack_bonus(o.player, c), c.security, g.params["kill_difficulty"])
    if g.chance(odds, "kill"):
        change_government(c)
        g.news.append(f"The leader of {c.name} is assassinated")
    else:
        g.news.append(f"An assassination attempt in {c.name} fails")


def _liquidate(g: Covert, o: Order) -> None:
    assert o.country is not None
    o.country.industry -= 1
    o.player.cash += g.params["liquidation_value"]
    g.news.append(f"Industry is sold off in {o.country.name}")


def _message(g: Covert, o: Order) -> None:
    assert o.country is not None
    recipient = o.country.leader_at_dawn
    if recipient is not None:
        me = o.player
        recipient.contacts.append(f"{me.name} <{me.email}> wrote to you through {o.country.name}")


def _spy(g: Covert, o: Order) -> None:
    assert o.country is not None
    o.country.spy[o.player] = o.country.spy.get(o.player, 0) + o.amount * g.params["spy_points_per_million"]


def _withdraw(g: Covert, o: Order) -> None:
    origin, location = o.country, o.target
    assert origin is not None and location is not None
    if origin.conquering.get(location, 0) > 0:
        origin.conquering[location] -= o.amount
    else:
        origin.defending[location] = origin.defending.get(location, 0) - o.amount
    origin.troops += o.amount
    g.news.append(f"Troops from {origin.name} withdraw from {location.name}")


def _transfer(g: Covert, o: Order) -> None:
    o.player.superspy = o.country


def _nothing(g: Covert, o: Order) -> None:
    pass


def _paid(g: Covert, o: Order) -> int:
    return o.amount


def _free(g: Covert, o: Order) -> int:
    return 0


REQUIRE = {"arms": _not_led, "bribe": _bribe_check, "conquer": _move_check("defending"),
           "defend": _move_check("conquering"), "guard": _not_led, "invest": _not_led, "kill": _no_check,
           "liquidate": _liquidate_check, "message": _message_check, "revolution": _no_check, "spy": _no_check,
           "terrorism": _no_check, "withdraw": _withdraw_check, "transfer": _no_check}
COST = {"arms": lambda g, o: ARMS_COST[o.amount], "bribe": _paid, "conquer": _free, "defend": _free, "guard": _paid,
        "invest": lambda g, o: g.params["invest_cost"], "kill": _paid, "liquidate": _free, "message": _free,
        "revolution": _paid, "spy": _paid, "terrorism": _paid, "withdraw": _free, "transfer": _free}
EFFECT = {"arms": _arms, "bribe": _bribe, "conquer": _move("conquering", "invade"),
          "defend": _move("defending", "move to defend"), "guard": _guard, "invest": _invest, "kill": _kill,
          "liquidate": _liquidate, "message": _message, "revolution": _nothing, "spy": _spy, "terrorism": _nothing,
          "withdraw": _withdraw, "transfer": _transfer}
