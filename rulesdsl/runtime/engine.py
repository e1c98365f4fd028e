"""Game state + players' submissions -> the next state, each player's report data, and the news.

Generic for every ruleset: the compiled module says which orders exist, what they cost and do, and
in which phases they run. A turn, in `Game.process_turn`: the mail is read (runtime/mail.py), each
player's orders for the turn are chosen (`Game._choose`: standing orders read again, orders on file,
limits, groups, once sets, round robin), the phases run them (`Game.run`: one kind, or several kinds
together in one round robin), and each order is carried out in one place (`Game._execute`), whether a phase
runs it or, for a personal order, the mail that holds it. At the end of the turn the standing orders that ran
are kept for the next (`Game._keep_standing`); then victory is judged. The phases `at start` run once, when a
game is made (`Game.run_start_phases`, called by runtime/state.py's new_game), and in no turn. A `halt` in a
phase raises core.Halt, which `Game.locate` words for the GM like any failure of the rules.
"""

from __future__ import annotations

import hashlib
import random
import traceback
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from rulesdsl.runtime import sectors
from rulesdsl.runtime.core import (
    Halt,
    KeyedStream,
    Numbered,
    OrderFailed,
    OrderRec,
    PlayerBase,
    RulesError,
    TableMiss,
    Thing,
    TooManyRounds,
    Window,
    WorldBase,
    fmt_money,
    key_text,
    unchanging,
)
from rulesdsl.runtime.forced import Forced, ForcedDrawError, ForcedStream, this_turn, undrawn
from rulesdsl.runtime.grid import Grid, SectorNames
from rulesdsl.runtime.mail import LINE_END, Mail, MailReader, Refusal, by_account
from rulesdsl.runtime.orders import OrderReader, shown
from rulesdsl.runtime.spec import CalendarDate, OrderSpec, RulesetSpec, calendar_date
from rulesdsl.runtime.syntax import SPACES
from rulesdsl.runtime.units import Store

__all__ = ["LINE_END", "Game", "PlayerTurn", "Refusal"]

T = TypeVar("T")


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
    # Standing orders: those kept from earlier turns that still read and are valid, and the orders of standing
    # kinds taken this turn, each with its slot and whether it cancels (its `until` held).
    standing: list[Standing] = field(default_factory=list)
    given: list[tuple[OrderRec, tuple[str, bool, Any], bool]] = field(default_factory=list)


@dataclass
class Standing:
    """A standing order kept from an earlier turn, read again this turn."""

    kind: str
    text: str
    slot: tuple[str, bool, Any]  # what replaces or cancels it (see _slot)
    rec: OrderRec


class Unrecorded:
    """What a ruleset's traced build (codegen/traced.py) tells `g.trace`, where no turn is being recorded: each
    call does only what the normal build does. A traced module's functions and checks also run where a game
    is loaded or judged outside a recorded turn (a field's `where` at load); game/trace.py's Recorder is
    the one that records."""

    @staticmethod
    def rd(obj: Any, attr: str, name: str) -> Any:
        return getattr(obj, attr)

    @staticmethod
    def rdk(obj: Any, attr: str, name: str, key: Any, default: Any) -> Any:
        return getattr(obj, attr).get(key._key, default)

    @staticmethod
    def begin() -> bool:
        return False

    @staticmethod
    def end(began: bool, value: Any) -> Any:
        return value

    @staticmethod
    def rec(record: Any) -> Any:
        return record

    @staticmethod
    def table(name: str, key: Any, row: Any, secret: bool) -> Any:
        return row

    @staticmethod
    def drew(at: Any, func: str, stream: Any, secret: bool, fn: Callable[..., Any], *args: Any) -> Any:
        return fn(*args)


class Game:
    """The live state of one game while a turn is processed; generated code calls it as `g`."""

    trace: Any = Unrecorded  # a traced build's recorder (game/trace.py) while a turn is recorded

    def __init__(self, spec: RulesetSpec, module_file: str = "") -> None:
        self.spec = spec
        self.module_file = module_file
        self.turn = 0
        self.seed = 0
        self.meta: dict[str, Any] = {}
        # The labels of the submissions the GM gave (game/folder.py sets them): only these may hold `gm` orders.
        # A label the GM gives has a `/` (gm/NAME), which no mailed file's name has.
        self.gm_labels: frozenset[str] = frozenset()
        self.params: dict[str, Any] = {p.name: p.default for p in spec.params}
        self.all_players: list[PlayerBase] = []
        # players(), and the count of changes to `active` and the list of all players it was made from
        self._active: list[PlayerBase] = []
        self._active_when = (-1, 0)
        self._active_of: list[PlayerBase] | None = None
        self.world: WorldBase = (spec.world_cls or WorldBase)()
        self.all: dict[str, list[Thing]] = {}
        self.index: dict[str, dict[str, Thing]] = {}
        self.lookup: dict[str, dict[str, Thing]] = {}  # keys in capitals: players write them in any case
        # The ruleset's map, once runtime/gridstate.py has built it: sectors as ints there, as Things here
        # (`sectors[i]._ord == i`).
        self.grid: Grid | None = None
        self.sector_names: SectorNames | None = None
        self.sectors: list[Thing] = []
        # runtime/routes.py's Router: the searches' scratch lists and the prices `path` keeps (made on the
        # first path); `starting` while phases at start run, when no prices are kept (they may still change).
        self.routes: Any = None
        self.starting = False
        self.on_file: dict[str, list[str]] = {}
        # Each player's standing orders, in the order first given: (order kind, text as written). Kept as text,
        # like orders on file, and read again every turn by their own kind's syntax.
        self.standing: dict[str, list[tuple[str, str]]] = {}
        self._has_standing = any(o.standing for o in spec.orders)
        self.streaks: dict[str, dict[str, int]] = {v.name: {} for v in spec.victories}
        self.game_over = False
        self.winners: list[str] = []
        self.orders = {o.name: o for o in spec.orders}
        self.groups = {grp.name: grp for grp in spec.policy.groups}
        self.reader = OrderReader(spec.orders, frozenset(spec.unrun_orders))
        self.mail = MailReader(spec, self.reader)
        self.pay_attr = spec.player_attr(spec.policy.pay_field)
        self.budget_attr = spec.player_attr(spec.policy.budget_field)
        # The places of the paying field's amounts (`money "0.1"`: 1), so that a refusal writes 7.4, not 37/5.
        pay_type = next((f.type for f in spec.player_fields if f.name == spec.policy.pay_field), ("money",))
        self.pay_places: int | None = pay_type[1] if pay_type[0] == "money" and len(pay_type) > 1 else None
        # per turn
        self._news: list[str] = []
        self.turns: dict[str, PlayerTurn] = {}
        self._batch: dict[str, list[OrderRec]] = {}
        # Each player's orders taken this turn, in the order taken, the players in this turn's rotation: what
        # `run a, b together` interleaves.
        self._taken: list[list[OrderRec]] = []
        # The orders carried out this turn, by kind, a list for every order of the ruleset: `orders(kind)` where
        # a loop or an aggregate only goes through it, read by generated code as `g.orders_done[kind]` (no call:
        # Covert reads it for every country and player in its revolutions, 660 times a day at 20 players).
        # Read-only by contract: what the generated code loops over is copied first or only read.
        self.orders_done: dict[str, list[OrderRec]] = {name: [] for name in self.orders}
        self._rngs: dict[str, random.Random] = {}
        # A scenario's forced draws (runtime/draws.py), all of them, kept with the game; and this turn's values
        # still to draw, by stream name. Empty in a game that forces none: then `rng` and `keyed` never look.
        self.forced: list[Forced] = []
        self._forcing: dict[str, deque[tuple[Forced, int]]] = {}
        self.warnings: list[str] = []
        self.unrouted: list[str] = []
        # The GM orders carried out this turn, by kind: the keys of the positions they were given for (None for
        # a world order), so that each default runs only where none was. Only the kinds with a default.
        self._gm_done: dict[str, set[str | None]] = {}
        self._defaults = [o for o in spec.orders if o.default is not None]
        # Per submission read this turn, in order: the game id its header names (shown) and whether it is
        # this game; None where the header names no game. Mail that names only other games is most likely
        # another game's mail given by mistake: the game folder refuses such a turn.
        self.games_named: list[tuple[str, bool] | None] = []
        self._doing: str | OrderRec = ""  # for locate: a phase's or report's words, or the order carried out
        # The `unchanging` window open on this game, or None: written by runtime.core.unchanging alone, read
        # by each `pure` call.
        self.window: Window | None = None
        # Numbered things' instances (runtime/units.py) and the indexes of indexed fields, by thing and field.
        self.units: dict[str, Store] = {}
        self.ix: dict[str, dict[str, dict[Any, dict[Any, None]]]] = {}
        numbered = {t.name for t in spec.things if t.numbered}
        # Orders with arguments naming numbered things, and those arguments with the thing each names: a line
        # reads a number, looked up as the order is carried out (`_resolve`).
        self._unit_args = {o.name: names for o in spec.orders
                           if (names := tuple((a.name, thing) for a in o.args
                                              if (thing := _numbered_in(a.type, numbered)) is not None))}

    # ------------------------------------------------------------ what generated code calls
    def instances(self, thing: str) -> Sequence[Thing]:
        """Every instance of a thing: the live ones of a numbered thing, in their order. Read-only by contract."""
        store = self.units.get(thing)
        return store.live() if store is not None else self.all[thing]

    def _missing(self, order: str, rec: OrderRec) -> str | None:
        """Why a standing order naming numbered things by number cannot stand: one of them is gone (it may be
        made again later, but the order was given for the one that was)."""
        for name, thing in self._unit_args[order]:
            value = rec.args.get(name)
            store = self.units[thing]
            for number in value if isinstance(value, list) else (value,):
                if isinstance(number, int) and store.find(rec.player, number) is None:
                    what = f"{thing.lower()} {number}"
                    return f"you have no {what}" if store.per_owner else f"there is no {what}"
        return None

    def judge_now(self, spec: OrderSpec, rec: OrderRec) -> str | None:
        """Why an order just read is refused against the state now: its `valid`, then, for an order naming
        numbered things by number, whether each is there. Intake's receipts tell it; a turn asks again,
        against the state then (a phase may make or remove things before the order runs)."""
        with self.doing(f'order "{rec.text}" of {rec.player.name}'):
            reason = _ask(spec.valid, self, rec.player, rec)
        if reason is None and spec.name in self._unit_args:
            reason = self._missing(spec.name, rec)
        return reason

    def _resolve(self, order: str, rec: OrderRec) -> str | None:
        """Puts in `rec.args` the instances its numbers name now, as the order is carried out (a phase earlier
        in the turn may have made or destroyed them); or why it cannot be carried out."""
        me = rec.player
        for name, thing in self._unit_args[order]:
            value = rec.args.get(name)
            if value is None:
                continue
            store = self.units[thing]
            many = isinstance(value, list)
            found = []
            for number in value if many else (value,):
                if not isinstance(number, int):  # already an instance: carried out once before (a standing order)
                    found.append(number)
                    continue
                obj = store.find(me, number)
                if obj is None:
                    what = f"{thing.lower()} {number}"
                    if store.was_destroyed(me, number):
                        return f"{what} no longer exists: it was removed earlier this {self.spec.turn_unit}"
                    return f"you have no {what}" if store.per_owner else f"there is no {what}"
                found.append(obj)
            rec.args[name] = found if many else found[0]
        return None

    def date(self) -> CalendarDate:
        """This turn's date by the ruleset's calendar (`calendar.year`, ...), worked out from the turn number."""
        if self.spec.calendar is None:
            raise RuntimeError("the ruleset has no calendar")  # the checker allows `calendar` only with one
        return calendar_date(self.spec.calendar, self.turn)

    def players(self) -> list[PlayerBase]:
        """`players` as a value: the active players, in game order, in a list of its own (the rules may add to
        or remove from a `let` of players)."""
        return list(self.players_read())

    def players_read(self) -> Sequence[PlayerBase]:
        """`players` where a loop or an aggregate only goes through it, or its size is asked: the active players,
        in game order, in the list the game keeps, not a copy. Read-only by contract, as `orders_done`.
        Generated code asks very often, so the list is kept while no player's `active` has changed
        (PlayerBase counts each change) and no player has been added."""
        now = (PlayerBase.active_changes, len(self.all_players))
        if now != self._active_when or self._active_of is not self.all_players:
            self._active = [p for p in self.all_players if p.active]
            self._active_when, self._active_of = now, self.all_players
        return self._active

    def rng(self, purpose: str) -> random.Random:
        """One stream per purpose and turn: a new draw somewhere never shifts the draws elsewhere."""
        r = self._rngs.get(purpose)
        if r is None:
            digest = hashlib.sha256(f"{self.seed}/{self.turn}/{purpose}".encode()).digest()
            r = self._rngs[purpose] = random.Random(int.from_bytes(digest[:8], "big"))
            if self._forcing:
                r = self._force(purpose, r)
        return r

    def keyed(self, purpose: str, *keys: Any) -> random.Random:
        """The stream of `purpose` kept for these keys alone: its draws follow one another within the turn, and
        draws under other keys (a battle elsewhere, another player's research) never move them."""
        name = purpose + "".join("\x1f" + key_text(k) for k in keys)
        r = self._rngs.get(name)
        if r is None:
            r = self._rngs[name] = KeyedStream(f"{self.seed}/{self.turn}/{name}")
            if self._forcing:
                r = self._force(name, r)
        return r

    def _force(self, name: str, r: random.Random) -> random.Random:
        """The stream `name` as this turn draws it: with the values a scenario forces on it, if any."""
        queue = self._forcing.get(name)
        if queue is None:
            return r
        r = self._rngs[name] = ForcedStream(r, queue)
        return r

    def _all_forced_drawn(self) -> None:
        """A forced value no draw took stops the turn: a golden that shows it would say what did not happen."""
        why = undrawn(self._forcing)
        self._forcing = {}
        if why is not None:
            raise ForcedDrawError(why)

    def news(self, text: str) -> None:
        self._news.append(text)

    def tell(self, player: PlayerBase, text: str) -> None:
        self.turns.setdefault(player._key, PlayerTurn()).messages.append(text)

    def overrule(self, rec: OrderRec, text: str) -> None:
        """`overrule o "..."`: an order whose effect ran is reported failed, because a later rule judged it (a
        budget refused as a whole). Its effect stays: the rules that overrule it undo what they must. An order
        already failed keeps its own reason."""
        if rec.status == "done":
            rec.status, rec.reason = "failed", text

    def orders_of(self, kind: str) -> list[OrderRec]:
        """`orders(kind)` as a value: a list of its own, which the rules may change."""
        return list(self.orders_done[kind])

    def orders_read(self, kind: str) -> Sequence[OrderRec]:
        """`orders(kind)` where a loop or an aggregate only goes through it, as modules compiled before
        `orders_done` read it: the engine's own list, not a copy."""
        return self.orders_done[kind]

    def run(self, kind: str, *more: str) -> None:
        """Carries out this turn's orders of one kind, in the order chosen (`_choose`); with `more` kinds
        (`run a, b together`), the orders of all of them in one round robin, each player's in the order taken."""
        execute = self._execute
        if not more:
            spec = self.orders[kind]
            for rec in self._batch.get(kind, ()):
                execute(spec, rec)
            return
        kinds = {kind, *more}  # only asked for membership: no order comes from the set
        orders = self.orders
        for rec in _round_robin([[r for r in taken if r.kind in kinds] for taken in self._taken]):
            execute(orders[rec.kind], rec)

    @contextmanager
    def doing(self, what: str) -> Iterator[None]:
        """Says what the engine is doing while the block runs, for `locate` to name in an error (`phase
        combat`, `order "A,BRI" of Ann`); then what it was doing before. Not on an error: the error is
        located after it has left the block, and must still see what was being done."""
        before = self._doing
        self._doing = what
        yield
        self._doing = before

    # ------------------------------------------------------------ the turn
    def process_turn(self, submissions: list[tuple[str, str]], phase_done: Callable[[], object] | None = None) -> None:
        """Runs one turn in place. Callers keep the previous state: on any error it is still theirs.
        `phase_done`, if given, is called after each of the turn's phases (`turn_phases` of them), for the
        GM's progress bar."""
        self.turn += 1
        self._news, self._batch, self._rngs, self._taken = [], {}, {}, []
        self._forcing = this_turn(self.forced, self.turn) if self.forced else {}
        for store in self.units.values():
            store.destroyed.clear()
        self.orders_done = {name: [] for name in self.orders}
        self.warnings, self.unrouted, self.games_named = [], [], []
        self._gm_done = {o.name: set() for o in self._defaults}
        self.turns = {p._key: PlayerTurn(was_active=p.active) for p in self.all_players}
        try:
            self._reset_fields()
            self._phases(True, phase_done)
            # Accounts do not change in a turn: one look-up for all the mail, not a search of every player.
            accounts = by_account(self.all_players)
            for label, text in submissions:
                self._take(self.mail.read(label, text, accounts, str(self.meta.get("number", "")),
                                          str(self.meta.get("id", "")), world=label in self.gm_labels))
            self._choose()
            self._phases(False, phase_done)
            if self._defaults:
                self._run_defaults()
            with self.doing("ending the turn"):
                self._end_of_turn()
            if self._forcing:
                with self.doing("checking the scenario's forced draws"):
                    self._all_forced_drawn()
            # Victory conditions write nothing: a function they call for every player (who controls each
            # country) is worked out once for all of them.
            with self.doing("judging victory"), unchanging(self):
                self._judge()
        except RulesError:
            raise
        except Exception as exc:
            raise self.locate(exc) from exc

    def run_start_phases(self) -> None:
        """The phases `at start`, in the order written: once, as the game is made, after the scenario's values
        are in. Their chance is drawn from the game's seed and starting turn, like a turn's."""
        self._rngs = {}
        self._forcing = this_turn(self.forced, self.turn) if self.forced else {}
        self.starting = True
        try:
            for phase in self.spec.phases:
                if phase.at_start:
                    with self.doing(f"phase {phase.name}"):
                        if phase.when is None or phase.when(self):
                            phase.run(self)
            if self._forcing:
                with self.doing("checking the scenario's forced draws"):
                    self._all_forced_drawn()
        except RulesError:
            raise
        except Exception as exc:
            raise self.locate(exc) from exc
        finally:
            self.starting = False
            self.routes = None
            self._forcing = {}
        self._rngs, self._news, self.turns = {}, [], {}

    @property
    def turn_phases(self) -> int:
        return sum(1 for phase in self.spec.phases if not phase.at_start)

    def _phases(self, before_orders: bool, phase_done: Callable[[], object] | None = None) -> None:
        for phase in self.spec.phases:
            if phase.before_orders != before_orders or phase.at_start:
                continue
            if phase.kinds and self.date().kind not in phase.kinds:
                if phase_done is not None:  # counted as run, so that progress counts every phase of a turn
                    phase_done()
                continue
            with self.doing(f"phase {phase.name}"):
                if phase.when is None or phase.when(self):
                    phase.run(self)
            if phase_done is not None:
                phase_done()

    def locate(self, exc: BaseException) -> RulesError:
        """The error as the designer reads it: the `.rules` line and the rule of the innermost generated
        line the error passed through, and what the engine was doing."""
        line, rule, file = 0, "", self.spec.source
        for frame, lineno in traceback.walk_tb(exc.__traceback__):
            if self.module_file and frame.f_code.co_filename == self.module_file:
                line = _last_before(self.spec.line_map, lineno, 0)
                rule = _last_before(self.spec.rule_map, lineno, "")
                file = _last_before(self.spec.file_map, lineno, self.spec.source)
        kind = type(exc).__name__
        msg = str(exc) if isinstance(exc, (TableMiss, IndexError, ForcedDrawError)) else f"{kind}: {exc}"
        if isinstance(exc, Halt):
            msg = f"halted: {exc}"
        if isinstance(exc, ZeroDivisionError):
            msg = "division by zero"
        elif isinstance(exc, RecursionError):
            msg = "a function or procedure calls itself without end"
        doing = self._doing
        if isinstance(doing, OrderRec):
            doing = f'order "{doing.text}" of ' + (doing.player.name if doing.player is not None else "the GM")
        return RulesError(msg, file if line else "", line, doing, rule if line else "")

    def _reset_fields(self) -> None:
        for tspec in self.spec.things:
            resets = [f for f in tspec.fields if f.reset_each_turn]
            for obj in self.instances(tspec.name) if resets else ():
                for f in resets:
                    setattr(obj, f.attr, {} if f.type[0] == "map" else f.default(self))
        presets = [f for f in self.spec.player_fields if f.reset_each_turn]
        for p in self.all_players if presets else ():
            for f in presets:
                setattr(p, f.attr, {} if f.type[0] == "map" else f.default(self))
        for f in self.spec.world_fields:
            if f.reset_each_turn:
                setattr(self.world, f.attr, {} if f.type[0] == "map" else f.default(self))
        sectors.reset(self)

    # ------------------------------------------------------------ the mail
    def _take(self, mail: Mail) -> None:
        """What a submission's orders do to the turn: a personal order is carried out at once, a discard
        drops the orders on file and those before it, the others are filed for `_choose`."""
        self.games_named.append(mail.game)
        self.unrouted += mail.unrouted
        if mail.world:
            self._take_world(mail)
            return
        player = mail.player
        if player is None:
            return
        turn = self.turns[player._key]
        if mail.notice is not None:
            turn.notices.append(mail.notice)
            return
        turn.submitted = True
        limit = self.spec.policy.new_limit
        for line, text in mail.lines:
            got = self.mail.order(self, player, line, text)
            if isinstance(got, Refusal):
                turn.refused.append(got)
                continue
            spec, rec = got.spec, got.rec
            if spec.world:
                turn.refused.append(Refusal(line, got.text, _FOR_NO_POSITION))
                continue
            if spec.kind == "gm" and mail.label not in self.gm_labels:
                turn.refused.append(Refusal(line, got.text, "only the game master gives this order"))
                continue
            if spec.kind in ("personal", "gm"):
                if spec.only_in and (wrong := self._wrong_kind(spec)) is not None:
                    turn.refused.append(Refusal(line, got.text, wrong))
                    continue
                self._execute(spec, rec)
                turn.used.append(rec)
                if rec.status == "done" and spec.default is not None:
                    self._gm_done[spec.name].add(player._key)
            elif spec.kind == "discard":
                dropped = len(self.on_file.get(player._key, [])) + sum(1 for t in turn.new_lines if t[2] is not None)
                self.on_file[player._key] = []
                turn.new_lines = []
                turn.notices.append(f"Line {line} {got.text}: {dropped} unprocessed order(s) discarded.")
            else:
                # A STOP is a new order too: uncounted, each mail could pile up STOP lines on file without end.
                turn.new_count += 1
                if limit is not None and turn.new_count > limit:
                    turn.refused.append(Refusal(line, got.text, f"no more than {limit} new orders are accepted "
                                                                f"in one {self.spec.turn_unit}"))
                    continue
                turn.new_lines.append((got.text, line, None if spec.kind == "stop" else rec))

    def _take_world(self, mail: Mail) -> None:
        """A GM submission for no position: each line a world GM order, carried out at once. What is refused
        or fails is told to the GM with the mail not processed, since no position's report may carry it."""
        label = shown(mail.label)
        for line, text in mail.lines:
            raw = text.strip(SPACES)
            parsed = self.reader.read(self, None, raw, line)  # type: ignore[arg-type]
            spec, rec = parsed.spec, parsed.rec
            reason = parsed.reason or "not an order of this game"
            if spec is not None and rec is not None:
                if not spec.world:
                    reason = ("not a world GM order: give it for a position, with `rulesdsl gm GAMEDIR order "
                              "ACCOUNT`")
                elif spec.only_in and (wrong := self._wrong_kind(spec)) is not None:
                    reason = wrong
                else:
                    self._execute_world(spec, rec)
                    if rec.status == "done":
                        if spec.default is not None:
                            self._gm_done[spec.name].add(None)
                        continue
                    reason = rec.reason or "failed"
            self.unrouted.append(f"{label}: line {line} \"{shown(raw)}\" (the GM's world order): {reason}")

    def _execute_world(self, spec: OrderSpec, rec: OrderRec) -> None:
        """Carries out a world GM order as its line is read: its checks and effect, with no `me`."""
        before, self._doing = self._doing, rec
        # Its numbered things are looked up now, as any order's: an instance made earlier this turn counts.
        reason = self._resolve(spec.name, rec) if spec.name in self._unit_args else None
        try:
            for check in (spec.valid, spec.require):
                if reason is None and check is not None:
                    reason = check(self, None, rec)
            if reason is None and spec.effect is not None:
                spec.effect(self, None, rec)
        except (OrderFailed, TooManyRounds) as e:
            reason = str(e)
        self._doing = before
        rec.status, rec.reason = ("failed", reason) if reason is not None else ("done", None)

    def _run_defaults(self) -> None:
        """Each GM order's `default`, in the order declared, after the turn's last phase: where the GM gave
        no order of its kind this turn (for a positional one, each active position he gave none for)."""
        kind = self.date().kind if self.spec.calendar is not None else ""
        for spec in self._defaults:
            if spec.default_kinds and kind not in spec.default_kinds:
                continue
            done = self._gm_done[spec.name]
            assert spec.default is not None
            with self.doing(f"the default of {spec.name}"):
                if spec.world:
                    if None not in done:
                        spec.default(self, None)
                    continue
                for p in self.players():
                    if p._key not in done:
                        spec.default(self, p)

    # ------------------------------------------------------------ carrying out one order
    def _execute(self, spec: OrderSpec, rec: OrderRec) -> None:
        """Carries out one order, a game order that a phase runs or a personal one as its mail is read: its
        checks, its cost, its effect. It is done, or failed with the reason.

        One function, with no helper called per order: at 20 players a day carries out 200 orders, and each
        call more per order was a tenth of the phases' time. A counted loop too long for the game (its bound
        came from what the player wrote) fails the order in its checks or cost as in its effect, not the turn."""
        me = rec.player
        # doing()'s save and restore, written out: a context manager per order was a fifth of a day's phases.
        before, self._doing = self._doing, rec  # worded only if an error needs it (locate)
        reason: str | None = None
        cost = 0
        personal = spec.kind in ("personal", "gm")
        if not me._active:  # `active` itself, not through its property: read for every order
            reason = "you are out of the game"
        elif spec.name in self._unit_args and (gone := self._resolve(spec.name, rec)) is not None:
            reason = gone
        else:
            try:
                # A game order's `valid` was asked when it was chosen; a personal order is not chosen.
                if personal and spec.valid is not None:
                    reason = spec.valid(self, me, rec)
                if reason is None and spec.require is not None:
                    reason = spec.require(self, me, rec)
                if reason is None and spec.cost is not None:
                    cost = spec.cost(self, me, rec)
            except TooManyRounds as e:
                reason = str(e)
        pay = self.pay_attr
        if reason is None and cost and pay:
            have = getattr(me, pay)
            if cost > have:
                costs, owned = ((cost, have) if self.pay_places is None else
                                (fmt_money(cost, self.pay_places), fmt_money(have, self.pay_places)))
                reason = f"not enough {self.spec.policy.pay_field}: it costs {costs} and you have {owned}"
            else:
                setattr(me, pay, have - cost)
        if reason is None and spec.effect is not None:
            try:
                spec.effect(self, me, rec)
            except OrderFailed as fail:
                if cost and pay:
                    setattr(me, pay, getattr(me, pay) + cost)
                reason = str(fail)
        self._doing = before
        if reason is not None:
            rec.status, rec.reason = "failed", reason
            return
        rec.status = "done"
        if personal:
            return  # free, and outside the turn's orders: no budget, and not among `orders(kind)`
        budget = self.budget_attr
        if budget and not rec.repeat:
            setattr(me, budget, getattr(me, budget) - 1)
        self.orders_done[rec.kind].append(rec)

    # ------------------------------------------------------------ choosing the turn's orders
    def _choose(self) -> None:
        """Chooses each player's orders for this turn (orders on file first, then new ones in the order
        given), and the order in which each kind's are carried out."""
        chosen = {p._key: self._choose_for(p) for p in self.all_players}
        # Round robin: each player's first order of a kind, then each one's second, and so on. Who goes
        # first moves one place each turn, so no position always acts first.
        n = len(self.all_players)
        start = (self.turn - 1) % n if n else 0
        rotated = self.all_players[start:] + self.all_players[:start]
        self._taken = [chosen[p._key] for p in rotated]
        for kind in self.orders:
            batch = _round_robin([[r for r in taken if r.kind == kind] for taken in self._taken])
            if batch:
                self._batch[kind] = batch

    def _choose_for(self, p: PlayerBase) -> list[OrderRec]:
        """One player's orders for this turn, within the limits, groups and once-per rules; the rest stay
        on file or are refused."""
        pol = self.spec.policy
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
            self.standing.pop(p._key, None)
            return []
        if self._has_standing and self.standing.get(p._key):
            turn.standing = self._standing_of(p, turn)
        cap = pol.limit if pol.limit is not None else len(queue)
        if self.budget_attr:
            cap = min(cap, max(0, getattr(p, self.budget_attr)))
        taken: list[OrderRec] = []
        once: dict[tuple[Any, ...], OrderRec] = {}
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
            if from_file:
                rec.line = 0
            with self.doing(f'order "{rec.text}" of {p.name}'):
                reason = self._refuses(spec, rec, once, counted)
                ends = reason is None and spec.ends_turn is not None and spec.ends_turn(self, p, rec)
                if reason is None and spec.standing:
                    cancels = spec.until is not None and _ask_true(spec.until, self, p, rec)
                    turn.given.append((rec, _slot(spec, rec), cancels))
            if reason is not None:
                turn.refused.append(Refusal(line, text, reason))
                continue
            # Only an order taken uses up its once and its place in a group: a refused one counts for nothing.
            for key, _ in _once_keys(spec, rec):
                once[key] = rec
            for name in spec.counts_as:
                counted[name] = counted.get(name, 0) + 1
            taken.append(rec)
            if ends:
                ended = f'your {self.spec.turn_unit} ended with line {rec.line}: "{rec.text}"'
        self.on_file[p._key] = [q[0] for q in queue[i:]]
        if turn.standing:
            # A standing order given anew this turn (replaced or cancelled) does not also run as it stood.
            given = {slot for _, slot, _ in turn.given}
            taken = [e.rec for e in turn.standing if e.slot not in given] + taken
        turn.used.extend(taken)
        return taken

    def _standing_of(self, p: PlayerBase, turn: PlayerTurn) -> list[Standing]:
        """The player's standing orders that still read as written and are still `valid`, each to run again
        this turn; one that is not ends, and is listed among the orders not accepted with the reason."""
        out = []
        for kind, text in self.standing.get(p._key, ()):
            parsed = self.reader.read_as(self, p, kind, text)
            rec, reason = parsed.rec, parsed.reason
            if rec is not None:
                with self.doing(f'order "{rec.text}" of {p.name}'):
                    reason = _ask(self.orders[kind].valid, self, p, rec)
                if reason is None and kind in self._unit_args:
                    reason = self._missing(kind, rec)
            if rec is None or reason is not None:
                turn.refused.append(Refusal(0, text, f"{reason}: the standing order ends"))
                continue
            rec.repeat = True
            out.append(Standing(kind, text, _slot(self.orders[kind], rec), rec))
        return out

    def _wrong_kind(self, spec: OrderSpec) -> str | None:
        """Why an order `only in KIND turns` cannot be given in this turn, with its date; None when it can."""
        date = self.date()
        if date.kind in spec.only_in:
            return None
        kinds = " or ".join(spec.only_in)
        return f"this order is given in {kinds} turns; this is the {date.kind} turn of {date.period} {date.year}"

    def _refuses(self, spec: OrderSpec, rec: OrderRec, once: dict[tuple[Any, ...], OrderRec],
                 counted: dict[str, int]) -> str | None:
        """Why an order cannot be among the player's this turn: its `valid`, its once-per rule against the
        orders `once` already taken, or a group full by `counted`; None when it can."""
        if spec.only_in and (wrong := self._wrong_kind(spec)) is not None:
            return wrong
        reason = _ask(spec.valid, self, rec.player, rec)
        if reason is not None:
            return reason
        for key, arg in _once_keys(spec, rec):
            first = once.get(key)
            if first is None:
                continue
            if key[0]:  # the kind's own once
                return f"this order may be given once per {self.spec.turn_unit} for the same {arg}"
            digits = any(a.name == arg and a.type[0] == "digits" for a in spec.args)
            shown = "".join(map(str, rec.args[arg])) if digits else _shown_value(rec.args[arg])
            return (f"there is already an order for {arg} {shown} this "
                    f'{self.spec.turn_unit}: line {first.line} "{first.text}"')
        for name in spec.counts_as:
            group = self.groups[name]
            if counted.get(name, 0) >= group.limit:
                return group.reason(self, rec.player)
        return None

    def _is_stop(self, text: str) -> bool:
        return self.reader.is_stop(text)

    def _end_of_turn(self) -> None:
        pol = self.spec.policy
        # Orders whose phase did not happen this turn go back on file, in front.
        for p in self.all_players:
            turn = self.turns[p._key]
            # A standing order run again whose phase did not run this turn stays as it stands: not on file.
            pending = [r for r in turn.used if r.status == "pending" and not r.repeat]
            if pending:
                self.on_file[p._key] = [r.text for r in pending] + self.on_file.get(p._key, [])
            if pending or turn.standing:
                turn.used = [r for r in turn.used if r.status != "pending"]
            # The standing orders read again this turn (turn.standing) are all that still stand: one that
            # no longer read or was not valid has ended, even when none is left.
            if turn.given or p._key in self.standing:
                self._keep_standing(p, turn)
            if self.budget_attr and p.active:
                setattr(p, self.budget_attr, getattr(p, self.budget_attr) + pol.budget_plus)

    def _keep_standing(self, p: PlayerBase, turn: PlayerTurn) -> None:
        """The player's standing orders after the turn: those that still stood, then each order of a standing
        kind that ran this turn, in the order taken, replacing the one in its slot (its set and key) in its
        place, cancelling it when its `until` held, or else added at the end. One whose phase did not run (back
        on file) changes nothing yet."""
        kept = [(e.slot, e.kind, e.text) for e in turn.standing]
        for rec, slot, cancels in turn.given:
            if rec.status == "pending":
                continue
            at = next((i for i, k in enumerate(kept) if k[0] == slot), None)
            if cancels:
                if at is not None:
                    del kept[at]
            elif at is None:
                kept.append((slot, rec.kind, rec.text))
            else:
                kept[at] = (slot, rec.kind, rec.text)
        if kept:
            self.standing[p._key] = [(kind, text) for _, kind, text in kept]
        else:
            self.standing.pop(p._key, None)

    def standing_texts(self, p: PlayerBase) -> list[str]:
        """The texts of the player's standing orders, in the order first given (the report's `orders.standing`)."""
        return [text for _, text in self.standing.get(p._key, ())]

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

    def own_report(self, p: PlayerBase) -> Any:
        """The ruleset's own fields of the report of `p` (its `report` block), as the generated module makes them."""
        return self.spec.report(self, p)

    def news_items(self) -> list[str]:
        return list(self._news)


_FOR_NO_POSITION = ("a world order is given by the game master for no position "
                    "(`rulesdsl gm GAMEDIR order --world`), not in a position's mail")


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


def _round_robin(lists: list[list[OrderRec]]) -> list[OrderRec]:
    """The first order of each list, in the lists' order, then the second of each, and so on."""
    out: list[OrderRec] = []
    for rnd in range(max((len(x) for x in lists), default=0)):
        out.extend(x[rnd] for x in lists if rnd < len(x))
    return out


def _last_before(pairs: tuple[tuple[int, T], ...], pyline: int, none: T) -> T:
    """The value of the last (first generated line, value) pair that starts at or before `pyline`."""
    found = none
    for start, value in pairs:
        if start > pyline:
            break
        found = value
    return found


def _numbered_in(ty: tuple[Any, ...], numbered: set[str]) -> str | None:
    """The numbered thing an argument of type `ty` names (alone or in a list), or None."""
    if ty[0] == "thing":
        return str(ty[1]) if ty[1] in numbered else None
    return _numbered_in(ty[1], numbered) if ty[0] == "list" else None


def _ask_true(check: Callable[[Game, PlayerBase, OrderRec], bool], g: Game, me: PlayerBase, rec: OrderRec) -> bool:
    """A condition judged as an order is chosen (`until`); a counted loop too long for the game is false."""
    try:
        return bool(check(g, me, rec))
    except TooManyRounds:
        return False


def _once_keys(spec: OrderSpec, rec: OrderRec) -> list[tuple[tuple[Any, ...], str]]:
    """What an order may be given once per turn for, each with its argument: its kind and each `once per`
    argument's value, or, for `once ... as NAME`, the set's name (kind "") and the value, which every
    order of the set shares."""
    if not spec.once_as:
        return [((rec.kind, arg, _ident(rec.args[arg])), arg) for arg in spec.once_per]
    return [(((rec.kind, arg) if not shared else ("", shared)) + (_ident(rec.args[arg]),), arg)
            for arg, shared in zip(spec.once_per, spec.once_as, strict=True)]


def _slot(spec: OrderSpec, rec: OrderRec) -> tuple[str, bool, Any]:
    """Which standing order of the player an order of a standing kind replaces or cancels: the one of its set
    (its kind, or the set of `standing ... as NAME`) with the same value of its `standing per` argument."""
    key = _ident(rec.args[spec.standing_per]) if spec.standing_per is not None else None
    return (spec.standing_as or rec.kind, bool(spec.standing_as), key)  # a set may be named like a kind


def _shown_value(value: Any) -> str:
    """A value as a refusal names it: a player by name, a thing by key, a list as written."""
    if isinstance(value, PlayerBase):
        return value.name
    if isinstance(value, Numbered):
        return str(value.number)
    if isinstance(value, Thing):
        return str(value._key)
    if isinstance(value, list):
        return "+".join(_shown_value(v) for v in value)
    return str(value)


def _ident(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_ident(v) for v in value)
    return value._key if isinstance(value, Thing) else value
