"""Game state + players' submissions -> the next state, each player's report data, and the news.

Generic for every ruleset: the compiled module says which orders exist, what they cost and do, and
in which phases they run; this module reads the submissions, keeps the orders on file, enforces the
order limits, runs the phases, and judges victory.
"""

from __future__ import annotations

import hashlib
import random
import re
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from rulesdsl.runtime.core import (
    OrderFailed,
    OrderRec,
    PlayerBase,
    RulesError,
    TableMiss,
    Thing,
    TooManyRounds,
    WorldBase,
)
from rulesdsl.runtime.orders import OrderReader, header_patterns, line_problem, shown
from rulesdsl.runtime.spec import OrderSpec, RulesetSpec
from rulesdsl.runtime.syntax import SPACES, ascii_upper

T = TypeVar("T")

# Lines end only where mail ends them: str.splitlines() would also split at a form feed, \x1c-\x1e, \x85
# and U+2028/U+2029, so one line written could be read as two orders.
LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass
class Refusal:
    line: int
    text: str
    reason: str


@dataclass
class PlayerTurn:
    """What happened to one player's orders this turn: the raw material of the report's order section."""

    used: list[OrderRec] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    new_lines: list[tuple[str, int, OrderRec | None]] = field(default_factory=list)
    discard: bool = False
    new_count: int = 0
    submitted: bool = False
    was_active: bool = True


class Game:
    """The live state of one game while a turn is processed; generated code calls it as `g`."""

    def __init__(self, spec: RulesetSpec, module_file: str = "") -> None:
        self.spec = spec
        self.module_file = module_file
        self.turn = 0
        self.seed = 0
        self.meta: dict[str, Any] = {}
        self.params: dict[str, Any] = {p.name: p.default for p in spec.params}
        self.all_players: list[PlayerBase] = []
        self.world: WorldBase = (spec.world_cls or WorldBase)()
        self.all: dict[str, list[Thing]] = {}
        self.index: dict[str, dict[str, Thing]] = {}
        self.lookup: dict[str, dict[str, Thing]] = {}  # keys in capitals: players write them in any case
        self.on_file: dict[str, list[str]] = {}
        self.streaks: dict[str, dict[str, int]] = {v.name: {} for v in spec.victories}
        self.game_over = False
        self.winners: list[str] = []
        self.orders = {o.name: o for o in spec.orders}
        self.groups = {grp.name: grp for grp in spec.policy.groups}
        self.reader = OrderReader(spec.orders, frozenset(spec.unrun_orders))
        self.header = header_patterns(spec.policy)
        self.pay_attr = spec.player_attr(spec.policy.pay_field)
        self.budget_attr = spec.player_attr(spec.policy.budget_field)
        # per turn
        self._news: list[str] = []
        self.turns: dict[str, PlayerTurn] = {}
        self._batch: dict[str, list[OrderRec]] = {}
        self._executed: dict[str, list[OrderRec]] = {}
        self._rngs: dict[str, random.Random] = {}
        self.warnings: list[str] = []
        self.unrouted: list[str] = []
        # Per submission read this turn, in order: the game id its header names (shown) and whether it is
        # this game; None where the header names no game. Mail that names only other games is most likely
        # another game's mail given by mistake: the game folder refuses such a turn.
        self.games_named: list[tuple[str, bool] | None] = []
        self._doing = ""

    # ------------------------------------------------------------ what generated code calls
    def players(self) -> list[PlayerBase]:
        return [p for p in self.all_players if p.active]

    def rng(self, purpose: str) -> random.Random:
        """One stream per purpose and turn: a new draw somewhere never shifts the draws elsewhere."""
        r = self._rngs.get(purpose)
        if r is None:
            digest = hashlib.sha256(f"{self.seed}/{self.turn}/{purpose}".encode()).digest()
            r = self._rngs[purpose] = random.Random(int.from_bytes(digest[:8], "big"))
        return r

    def news(self, text: str) -> None:
        self._news.append(text)

    def tell(self, player: PlayerBase, text: str) -> None:
        self.turns.setdefault(player._key, PlayerTurn()).messages.append(text)

    def orders_of(self, kind: str) -> list[OrderRec]:
        return list(self._executed.get(kind, []))

    def run(self, kind: str) -> None:
        spec = self.orders[kind]
        pay, shown_pay = self.pay_attr, self.spec.policy.pay_field
        budget = self.budget_attr
        for rec in self._batch.get(kind, []):
            me = rec.player
            if not me.active:
                rec.status, rec.reason = "failed", "you are out of the game"
                continue
            self._doing = f'order "{rec.text}" of {me.name}'
            reason = _ask(spec.require, self, me, rec)
            if reason is not None:
                rec.status, rec.reason = "failed", reason
                continue
            try:
                cost = spec.cost(self, me, rec) if spec.cost else 0
            except TooManyRounds as e:
                rec.status, rec.reason = "failed", str(e)
                continue
            if cost and pay:
                have = getattr(me, pay)
                if cost > have:
                    rec.status, rec.reason = "failed", f"not enough {shown_pay}: it costs {cost} and you have {have}"
                    continue
                setattr(me, pay, have - cost)
            try:
                if spec.effect:
                    spec.effect(self, me, rec)
            except OrderFailed as fail:
                if cost and pay:
                    setattr(me, pay, getattr(me, pay) + cost)
                rec.status, rec.reason = "failed", str(fail)
                continue
            rec.status = "done"
            if budget:
                setattr(me, budget, getattr(me, budget) - 1)
            self._executed.setdefault(kind, []).append(rec)
        self._doing = ""

    # ------------------------------------------------------------ the turn
    def process_turn(self, submissions: list[tuple[str, str]]) -> None:
        """Runs one turn in place. Callers keep the previous state: on any error it is still theirs."""
        self.turn += 1
        self._news, self._batch, self._executed, self._rngs = [], {}, {}, {}
        self.warnings, self.unrouted, self.games_named = [], [], []
        self.turns = {p._key: PlayerTurn(was_active=p.active) for p in self.all_players}
        try:
            self._reset_fields()
            self._phases(before_orders=True)
            for label, text in submissions:
                self._read_submission(label, text)
            self._select()
            self._phases(before_orders=False)
            self._doing = "ending the turn"
            self._end_of_turn()
            self._doing = "judging victory"
            self._judge()
        except RulesError:
            raise
        except Exception as exc:
            raise self.locate(exc) from exc

    def _phases(self, before_orders: bool) -> None:
        for phase in self.spec.phases:
            if phase.before_orders != before_orders:
                continue
            self._doing = f"phase {phase.name}"
            if phase.when is None or phase.when(self):
                phase.run(self)

    def locate(self, exc: BaseException) -> RulesError:
        """The error as the designer reads it: the `.rules` line and the rule of the innermost generated
        line the error passed through, and what the engine was doing."""
        line, rule = 0, ""
        for frame, lineno in traceback.walk_tb(exc.__traceback__):
            if self.module_file and frame.f_code.co_filename == self.module_file:
                line = _last_before(self.spec.line_map, lineno, 0)
                rule = _last_before(self.spec.rule_map, lineno, "")
        kind = type(exc).__name__
        msg = str(exc) if isinstance(exc, (TableMiss, IndexError)) else f"{kind}: {exc}"
        if isinstance(exc, ZeroDivisionError):
            msg = "division by zero"
        elif isinstance(exc, RecursionError):
            msg = "a function or procedure calls itself without end"
        return RulesError(msg, self.spec.source if line else "", line, self._doing, rule if line else "")

    def _reset_fields(self) -> None:
        for tspec in self.spec.things:
            resets = [f for f in tspec.fields if f.reset_each_turn]
            for obj in self.all[tspec.name] if resets else ():
                for f in resets:
                    setattr(obj, f.attr, {} if f.type[0] == "map" else f.default(self))
        presets = [f for f in self.spec.player_fields if f.reset_each_turn]
        for p in self.all_players if presets else ():
            for f in presets:
                setattr(p, f.attr, {} if f.type[0] == "map" else f.default(self))
        for f in self.spec.world_fields:
            if f.reset_each_turn:
                setattr(self.world, f.attr, {} if f.type[0] == "map" else f.default(self))

    def _read_submission(self, label: str, text: str) -> None:
        # Nothing the sender wrote reaches a report before the account and access code match; what
        # reaches the GM (the label, a header line) is shown with its control characters escaped.
        self.games_named.append(None)
        lines = LINE_END.split(text.removeprefix("\ufeff"))
        slots: dict[str, str] = {}
        pos = 0
        for form, pat in zip(self.spec.policy.header, self.header, strict=True):
            while pos < len(lines) and not lines[pos].strip(SPACES):
                pos += 1
            if pos >= len(lines):
                self.unrouted.append(f"{shown(label)}: the header lines are missing")
                return
            problem = line_problem(lines[pos])
            m = None if problem is not None else pat.match(lines[pos])
            if m is None:
                why = f" ({problem})" if problem is not None else ""
                self.unrouted.append(f"{shown(label)}: line {pos + 1} \"{shown(lines[pos].strip(SPACES))}\" is not a "
                                     f"header line like \"{form}\"{why}")
                # Try still to find whose orders they are, so the player hears why nothing happened.
                slots.setdefault("_bad", str(pos + 1))
            else:
                slots.update(m)
            pos += 1
        # Which game the mail is for is told by its header alone, whoever sent it: the GM is warned of a
        # turn of another game's mail even when that game's accounts and codes are not this game's.
        this_game = "game" in slots and ascii_upper(slots["game"]) == ascii_upper(str(self.meta.get("number", "")))
        named = shown(self.spec.game_id.replace("{number}", slots["game"])) if "game" in slots else ""
        self.games_named[-1] = (named, this_game) if "game" in slots else None
        account = ascii_upper(slots.get("account", ""))
        player = next((p for p in self.all_players if ascii_upper(p.account) == account), None)
        if player is None:
            self.unrouted.append(f"{shown(label)}: no player has account \"{shown(slots.get('account', '?'))}\"")
            return
        turn = self.turns[player._key]
        if "_bad" in slots:
            turn.notices.append(f"Your orders in {shown(label)} were not processed: line {slots['_bad']} of the "
                                "header is not in the form the game expects.")
            return
        if ascii_upper(slots.get("code", "")) != ascii_upper(player.code):
            turn.notices.append(f"Your orders in {shown(label)} were not processed: the access code does not match.")
            return
        if "game" in slots and not this_game:
            turn.notices.append(f"Your orders in {shown(label)} were not processed: they are for game "
                                f"{named}, and this is game {self.meta.get('id', '')}.")
            return
        if not player.active:
            turn.notices.append(f"Your orders in {shown(label)} were not processed: you have left the game.")
            return
        turn.submitted = True
        limit = self.spec.policy.new_limit
        for i in range(pos, len(lines)):
            raw = lines[i].strip(SPACES)
            if not raw:
                continue
            problem = line_problem(lines[i])
            if problem is not None:
                turn.refused.append(Refusal(i + 1, shown(raw), problem))
                continue
            if not player.active:
                turn.refused.append(Refusal(i + 1, raw, "you have left the game"))
                continue
            parsed = self.reader.read(self, player, raw, i + 1)
            spec = parsed.spec
            if parsed.rec is None or spec is None:
                turn.refused.append(Refusal(i + 1, raw, parsed.reason or "not an order of this game"))
                continue
            if spec.kind == "personal":
                self._personal(spec, parsed.rec, turn)
            elif spec.kind == "discard":
                dropped = len(self.on_file.get(player._key, [])) + sum(1 for t in turn.new_lines if t[2] is not None)
                self.on_file[player._key] = []
                turn.new_lines = []
                turn.notices.append(f"Line {i + 1} {raw}: {dropped} unprocessed order(s) discarded.")
            else:
                # A STOP is a new order too: uncounted, each mail could pile up STOP lines on file without end.
                turn.new_count += 1
                if limit is not None and turn.new_count > limit:
                    turn.refused.append(Refusal(i + 1, raw, f"no more than {limit} new orders are accepted in one "
                                                            f"{self.spec.turn_unit}"))
                    continue
                turn.new_lines.append((raw, i + 1, None if spec.kind == "stop" else parsed.rec))

    def _personal(self, spec: OrderSpec, rec: OrderRec, turn: PlayerTurn) -> None:
        self._doing = f'order "{rec.text}" of {rec.player.name}'
        reason = _ask(spec.valid, self, rec.player, rec)
        if reason is None:
            reason = _ask(spec.require, self, rec.player, rec)
        if reason is None:
            try:
                if spec.effect:
                    spec.effect(self, rec.player, rec)
                rec.status = "done"
            except OrderFailed as fail:
                reason = str(fail)
        if reason is not None:
            rec.status, rec.reason = "failed", reason
        turn.used.append(rec)
        self._doing = ""

    def _select(self) -> None:
        """Chooses each player's orders for this turn: orders on file first, then new ones in order given."""
        pol = self.spec.policy
        chosen: dict[str, list[OrderRec]] = {}
        for p in self.all_players:
            turn = self.turns[p._key]
            queue: list[tuple[str, int, OrderRec | None, bool]] = [
                (t, 0, None, True) for t in self.on_file.get(p._key, [])]
            queue += [(t, ln, rec, False) for t, ln, rec in turn.new_lines]
            if not p.active:
                # Orders of a player who left are not lost without a word: each is refused.
                for text, line, rec, _ in queue:
                    if rec is not None or not self._is_stop(text):
                        turn.refused.append(Refusal(line, text, "you have left the game"))
                self.on_file[p._key] = []
                continue
            cap = pol.limit if pol.limit is not None else len(queue)
            if self.budget_attr:
                cap = min(cap, max(0, getattr(p, self.budget_attr)))
            taken: list[OrderRec] = []
            once: set[tuple[Any, ...]] = set()
            counted: dict[str, int] = {}
            ended: str | None = None  # the refusal of every order after one that ended the turn
            i = 0
            while i < len(queue):
                text, line, rec, from_file = queue[i]
                stop = self._is_stop(text) if rec is None else False
                if ended is not None:
                    # Nothing after it is taken, nor kept for a later turn; a stop line has nothing left to stop.
                    i += 1
                    if not stop:
                        turn.refused.append(Refusal(line, text, ended))
                    continue
                if stop:
                    i += 1
                    break
                if len(taken) >= cap:
                    break
                i += 1
                if rec is None:
                    parsed = self.reader.read(self, p, text, line)
                    if parsed.rec is None or parsed.spec is None or parsed.spec.kind != "game":
                        turn.refused.append(Refusal(line, text, parsed.reason or "not an order of this game"))
                        continue
                    rec = parsed.rec
                spec = self.orders[rec.kind]
                self._doing = f'order "{rec.text}" of {p.name}'
                reason = _ask(spec.valid, self, p, rec)
                keys = [(rec.kind, arg, _ident(rec.args[arg])) for arg in spec.once_per]
                for key in keys if reason is None else ():
                    if key in once:
                        reason = f"this order may be given once per {self.spec.turn_unit} for the same {key[1]}"
                        break
                for name in spec.counts_as if reason is None else ():
                    group = self.groups[name]
                    if counted.get(name, 0) >= group.limit:
                        reason = group.reason(self, p)
                        break
                if reason is not None:
                    turn.refused.append(Refusal(line, text, reason))
                    continue
                # Only an order taken uses up its once and its place in a group: a refused one counts for nothing.
                once.update(keys)
                for name in spec.counts_as:
                    counted[name] = counted.get(name, 0) + 1
                if from_file:
                    rec.line = 0
                taken.append(rec)
                if spec.ends_turn is not None and spec.ends_turn(self, p, rec):
                    ended = f'your {self.spec.turn_unit} ended with line {rec.line}: "{rec.text}"'
            self.on_file[p._key] = [q[0] for q in queue[i:]]
            chosen[p._key] = taken
            turn.used.extend(taken)
        self._doing = ""
        # Round robin: each player's first order of a kind, then each one's second, and so on. Who goes
        # first moves one place each turn, so no position always acts first.
        n = len(self.all_players)
        start = (self.turn - 1) % n if n else 0
        rotated = self.all_players[start:] + self.all_players[:start]
        for kind in self.orders:
            lists = [[r for r in chosen.get(p._key, []) if r.kind == kind] for p in rotated]
            batch: list[OrderRec] = []
            for rnd in range(max((len(x) for x in lists), default=0)):
                batch.extend(x[rnd] for x in lists if rnd < len(x))
            if batch:
                self._batch[kind] = batch

    def _is_stop(self, text: str) -> bool:
        return self.reader.is_stop(text)

    def _end_of_turn(self) -> None:
        pol = self.spec.policy
        # Orders whose phase did not happen this turn go back on file, in front.
        for p in self.all_players:
            turn = self.turns[p._key]
            pending = [r for r in turn.used if r.status == "pending"]
            if pending:
                self.on_file[p._key] = [r.text for r in pending] + self.on_file.get(p._key, [])
                turn.used = [r for r in turn.used if r.status != "pending"]
            if self.budget_attr and p.active:
                setattr(p, self.budget_attr, getattr(p, self.budget_attr) + pol.budget_plus)

    def _judge(self) -> None:
        active = self.players()
        winners: list[str] = []
        for v in self.spec.victories:
            streak = self.streaks.setdefault(v.name, {})
            for p in self.all_players:
                held = p.active and bool(v.when(self, p))
                streak[p._key] = streak.get(p._key, 0) + 1 if held else 0
                if held and v.warn is not None:
                    self.warnings.append(v.warn(self, p))
                if held and streak[p._key] >= v.held_for and p.name not in winners:
                    winners.append(p.name)
            self.streaks[v.name] = {k: n for k, n in streak.items() if n}
        if not active:
            self.game_over = True
        if winners:
            self.game_over = True
            self.winners = winners

    def news_items(self) -> list[str]:
        return list(self._news)


def _ask(check: Callable[[Game, PlayerBase, OrderRec], str | None] | None, g: Game, me: PlayerBase,
         rec: OrderRec) -> str | None:
    """An order's `valid` or `require`: its reason to refuse, or None. A counted loop too long for the
    game (its bound came from what the player wrote) refuses the order, not the whole turn."""
    if check is None:
        return None
    try:
        return check(g, me, rec)
    except TooManyRounds as e:
        return str(e)


def _last_before(pairs: tuple[tuple[int, T], ...], pyline: int, none: T) -> T:
    """The value of the last (first generated line, value) pair that starts at or before `pyline`."""
    found = none
    for start, value in pairs:
        if start > pyline:
            break
        found = value
    return found


def _ident(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_ident(v) for v in value)
    return value._key if isinstance(value, Thing) else value
