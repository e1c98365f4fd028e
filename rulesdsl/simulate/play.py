"""A GameJob (a ruleset, a scenario, a seed) -> its GameResult: one game of random orders played in memory, each
turn checked for a crash, a refusal without a reason, a broken invariant and a hidden fact in another's report.

A turn is played as a game folder plays it (rulesdsl/game/folder.py), without the folder: the state is read
back from its data (state.load), every active player's mail is given to Game.process_turn, the state must keep
its fields' `where`, each report is made and rendered (report_data, render; one a turn is held to the report
schema by validate_report) and the state is written as data again (state.dump). The orders come from lines.py,
drawn with a random.Random seeded from the game's seed, which is also the scenario's `seed`: the same job gives
the same result, in any process. A broken invariant, a leaking `hidden` declaration and an order refused
without a reason are each said once per game, where they first show.
"""

from __future__ import annotations

import copy
import hashlib
import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from rulesdsl.compiler import load_module, load_template
from rulesdsl.runtime import state
from rulesdsl.runtime.core import PlayerBase, RulesError, Thing, unchanging
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.report import render, report_data, validate_report
from rulesdsl.runtime.spec import HiddenSpec, InvariantSpec, RulesetSpec, TypeDesc
from rulesdsl.simulate import lines
from rulesdsl.simulate.results import CRASH, INVARIANT, LEAK, NO_REASON, GameJob, GameResult, Problem

# Facts of each `hidden` declaration changed after every turn: enough to find a leak that shows in most turns
# over many games, few enough that a 1,000-game run stays fast (each costs one report of the viewer).
LEAK_SAMPLES = 4
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")


def game_seed(seed: int, index: int) -> int:
    """Game `index`'s seed in a run of seed `seed`: from the two alone, so any worker plays the same game."""
    digest = hashlib.sha256(f"rulesdsl simulate/{seed}/{index}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


@cache
def load_ruleset(rules: str) -> tuple[RulesetSpec, str]:
    """The compiled ruleset and its module's file (which Engine.locate reads), once per process."""
    module, spec = load_module(Path(rules))
    return spec, str(module.__file__)


def play(job: GameJob, spec: RulesetSpec | None = None) -> GameResult:
    """Plays `job`'s game up to its turns or its end. `spec` stands in for the compiled ruleset's own (a test's
    hand-made `simulation`); the module's file still names the `.rules` lines."""
    loaded, module_file = load_ruleset(job.rules)
    return _Play(job, spec or loaded, module_file).run()


def reason_shape(reason: str, names: Names | None = None) -> str:
    """A refusal's reason with its numbers as `#` and the names of the game's things and players as `<Thing>`
    (`<Country> is not adjacent to <Country>`): the refusals of one rule counted together."""
    if names is not None:
        reason = names.fold(reason)
    return _NUMBER.sub("#", reason)


_CODE = re.compile(r"[A-Z0-9]*[A-Z][A-Z0-9]*")


class Names:
    """The words a refusal may name a game's instance by, each with the thing it names: every keyed thing's
    `name` and its key where that is a code (`MEX`, `S12`: capitals and digits, a word no sentence holds
    otherwise), and every player's name. The longest is matched first (`Eastern United States` before
    `United States`), whole words only."""

    def __init__(self, g: Game) -> None:
        found: dict[str, str] = {}
        for t in g.spec.things:
            if t.numbered:
                continue
            for x in g.all.get(t.name, []):
                name = getattr(x, "name", None)
                for word in (name, x._key if _CODE.fullmatch(x._key) and len(x._key) > 1 else None):
                    if isinstance(word, str) and word.strip():
                        found.setdefault(word, t.name)
        for p in g.all_players:
            found.setdefault(p.name, "Player")
        self.kinds = found
        words = sorted(found, key=lambda w: (-len(w), w))
        self.pattern = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, words)) + r")(?!\w)") if words else None

    def fold(self, text: str) -> str:
        if self.pattern is None:
            return text
        return self.pattern.sub(lambda m: f"<{self.kinds[m.group(0)]}>", text)


class _Play:
    def __init__(self, job: GameJob, spec: RulesetSpec, module_file: str) -> None:
        self.job, self.spec, self.module_file = job, spec, module_file
        self.sim = spec.simulation
        self.result = GameResult(job.index, job.seed)
        self.rng = random.Random(job.seed)
        # The facts the leak check changes are drawn from a stream of their own, so that checking them (or a
        # `hidden` declaration more) leaves the orders, and so the games and their statistics, as they were.
        self.facts = random.Random(f"hidden/{job.seed}")
        self.start: dict[str, Any] = {}  # each `unchanged` invariant's value at the start
        self.reports: dict[str, dict[str, Any]] = {}  # this turn's report data, by account
        # What has already been found in this game: a broken invariant or a leaking declaration shows again in
        # most later turns, and a rule that refuses without a reason in most of its refusals. The first says it.
        self.found: set[tuple[str, Any]] = set()
        self.names: Names | None = None  # the game's names, folded out of refusals (`reason_shape`)

    def problem(self, kind: str, turn: int, text: str, key: Any = None) -> None:
        """Records a problem; one with a `key` only the first time that key is met in the game."""
        if key is not None:
            if (kind, key) in self.found:
                return
            self.found.add((kind, key))
        self.result.problems.append(Problem(kind, self.job.index, turn, text))

    def run(self) -> GameResult:
        scenario = copy.deepcopy(self.job.scenario)
        scenario["seed"] = self.job.seed
        if isinstance(scenario.get("draws"), list):
            # A golden scenario forces the draws its own mail makes in later turns; random mail makes others, and
            # a forced value nothing draws stops its turn. Only the start's (phases `at start`) are kept.
            first = scenario.get("turn", 0)
            scenario["draws"] = [d for d in scenario["draws"]
                                 if not (isinstance(d, dict) and isinstance(d.get("turn"), int) and d["turn"] > first)]
        try:
            g = state.new_game(self.spec, scenario, self.module_file)
            data = state.dump(g)
        except Exception as e:  # a phase `at start` that fails (RulesError), or a scenario the game cannot use
            self.problem(CRASH, 0, f"game {self.job.index} (seed {self.job.seed}) was not made: {_error(e)}")
            return self.result
        self.result.seats = len(g.all_players)
        self.names = Names(g)
        self.invariants(g, 0)
        for turn in range(g.turn + 1, g.turn + 1 + self.job.turns):
            if g.game_over:
                break
            # Each turn starts from the state as data, as a game folder's turn starts from its state file: a
            # value the state cannot keep shows here, not in a GM's game.
            try:
                g = state.load(self.spec, data, self.module_file)
            except Exception as e:
                self.crash(turn, f"the state after turn {turn - 1} could not be read back: {_error(e)}", [])
                return self.result
            sent = self.turn(g, turn)
            if sent is None:
                return self.result  # crashed: the game stops there
            self.result.turns += 1
            self.invariants(g, turn)
            self.leaks(g, turn)
            try:
                data = state.dump(g)
            except Exception as e:
                self.crash(turn, f"the state could not be written: {_error(e)}", sent)
                return self.result
        self.result.ended = g.game_over
        seats: dict[str, int] = {}
        for i, p in enumerate(g.all_players):
            seats.setdefault(p.name, i)
        self.result.winners = tuple(sorted(seats[name] for name in g.winners if name in seats))
        return self.result

    # ------------------------------------------------------------ one turn
    def turn(self, g: Game, turn: int) -> list[tuple[str, str]] | None:
        """Plays one turn: the mail sent, or None when it crashed (a Problem says how)."""
        sent: list[tuple[str, str]] = []
        try:
            for p in g.all_players:
                if p.active:
                    text, written = lines.mail(g, p, self.rng, self.sim)
                    sent.append((lines.label(p), text))
                    for ln in written:
                        self.result.written[ln.order] = self.result.written.get(ln.order, 0) + 1
        except lines.ChoiceFailed as e:
            self.crash(turn, str(e), sent)
            return None
        try:
            g.process_turn(sent)
            if faults := state.broken(g):
                raise RulesError("after the turn, " + "; ".join(str(f) for f in faults))
            self.reports = self.make_reports(g)
        except Exception as e:
            self.crash(turn, _error(e), sent)
            return None
        self.count(g, turn)
        return sent

    def crash(self, turn: int, what: str, sent: list[tuple[str, str]]) -> None:
        mail = "".join(f"\n  {label}:" + "".join(f"\n    {ln}" for ln in text.splitlines()) for label, text in sent)
        self.problem(CRASH, turn, f"turn {turn} of game {self.job.index} (seed {self.job.seed}) failed: {what}\n"
                                  f"the turn's mail:{mail or ' none'}")

    def make_reports(self, g: Game) -> dict[str, dict[str, Any]]:
        """Each player's report data, by account, made and rendered as the game folder makes them (in one
        `unchanging` window). One report a turn, each player's in turn, is checked against the report schema:
        checking them all was two thirds of a game's time, and a report that does not fit is a fault of the
        compiler's types, which shows in any player's report over many games."""
        template = load_template(self.spec)
        readers = [p for p in g.all_players if p.active or g.turns[p._key].was_active]
        checked = readers[g.turn % len(readers)] if readers else None
        out = {}
        with unchanging(g):
            for p in readers:
                data = report_data(g, p)
                if p is checked:
                    validate_report(self.spec, data)
                render(self.spec, data, template)
                out[p.account] = data
        return out

    def count(self, g: Game, turn: int) -> None:
        r = self.result
        for p in g.all_players:
            t = g.turns.get(p._key)
            if t is None:
                continue
            for rec in t.used:
                if rec.status == "done" and not rec.repeat:
                    r.done[rec.kind] = r.done.get(rec.kind, 0) + 1
                elif rec.status == "failed":
                    self.refusal(p, turn, rec.line, rec.text, rec.reason)
            for ref in t.refused:
                self.refusal(p, turn, ref.line, ref.text, ref.reason)

    def refusal(self, p: PlayerBase, turn: int, line: int, text: str, reason: str | None) -> None:
        if not (reason or "").strip():
            keyword = text.strip().split(" ", 1)[0].split(",", 1)[0].upper()
            self.problem(NO_REASON, turn, f"{p.account}: line {line} \"{text}\" was refused without a reason "
                                          f"(game {self.job.index}, seed {self.job.seed})", key=keyword)
            return
        shape = reason_shape(str(reason), self.names)
        self.result.refusals[shape] = self.result.refusals.get(shape, 0) + 1

    # ------------------------------------------------------------ invariants
    def invariants(self, g: Game, turn: int) -> None:
        for inv in self.sim.invariants:
            try:
                value = plain(inv.value(g))
            except Exception as e:
                self.problem(INVARIANT, turn, f"invariant {inv.name} (line {inv.line}) could not be worked out: "
                                              f"{type(e).__name__}: {e}", key=inv.name)
                continue
            if inv.unchanged:
                if turn == 0:
                    self.start[inv.name] = value
                elif value != self.start.get(inv.name):
                    self.problem(INVARIANT, turn, f"invariant {inv.name} (line {inv.line}) was "
                                                  f"{_shown(self.start.get(inv.name))} at the start and is "
                                                  f"{_shown(value)} after turn {turn}", key=inv.name)
            elif value is not True:
                self.problem(INVARIANT, turn, _broken(inv, turn), key=inv.name)

    # ------------------------------------------------------------ hidden facts
    def leaks(self, g: Game, turn: int) -> None:
        viewers = [p for p in g.all_players if p.account in self.reports]
        if len(viewers) < 2:
            return
        for h in self.sim.hidden:
            instances: list[Any] = [None]
            if h.thing:
                instances = list(g.instances(h.thing))
                if not instances:
                    continue
            for _ in range(LEAK_SAMPLES):
                if (LEAK, id(h)) in self.found:
                    break  # found leaking in this game already: said once
                owner = self.facts.choice(g.all_players)
                viewer = self.facts.choice([q for q in viewers if q is not owner] or [owner])
                if viewer is owner:
                    continue
                instance = self.facts.choice(instances)
                self.leak(g, turn, h, instance, owner, viewer)

    def leak(self, g: Game, turn: int, h: HiddenSpec, c: Any, p: PlayerBase, q: PlayerBase) -> None:
        """Changes the fact of `p` (of instance `c`), rebuilds `q`'s report, compares it, puts the fact back.
        A report that fails with the fact changed tells nothing of where the fact goes (the rules may never make
        that value): the sample is let go."""
        if self.may_know(g, turn, h, c, p, q):
            return
        fact = _Fact(g, h, c, p)
        new = fact.changed(self.facts)
        if new is fact.NOTHING:
            return
        with fact.set_to(new):
            if self.may_know(g, turn, h, c, p, q):
                return
            # The routes' prices are kept for fields no rule changes (runtime/routes.py): the fact may be one, so
            # the changed report is made without them, and the game gets them back as they were.
            kept, g.routes = g.routes, None
            try:
                with unchanging(g):
                    after = report_data(g, q)
            except Exception:
                return
            finally:
                g.routes = kept
        before = self.reports[q.account]
        if after != before:
            where = first_difference(before, after)
            what = f"{p.name}'s {h.field}" + (f" of {c._key}" if c is not None else "")
            self.problem(LEAK, turn, f"hidden {_declaration(h)} (line {h.line}): {what} changed from "
                                     f"{_shown(plain(fact.old))} to {_shown(plain(new))}, and the report of "
                                     f"{q.name} changed at {where}", key=id(h))

    def may_know(self, g: Game, turn: int, h: HiddenSpec, c: Any, p: PlayerBase, q: PlayerBase) -> bool:
        """The declaration's `unless` for this fact and viewer; one that fails is a problem of the block, and
        the fact is not checked."""
        if h.unless is None:
            return False
        try:
            return bool(h.unless(g, c, p, q))
        except Exception as e:
            of = f", c = {c._key}" if c is not None else ""
            self.problem(LEAK, turn, f"hidden {_declaration(h)} (line {h.line}): its `unless` could not be worked "
                                     f"out for p = {p.name}, q = {q.name}{of}: {_error(e)}", key=id(h))
            return True


class _Fact:
    """One hidden fact: a player's field, or a thing's per-player field's value for the player."""

    NOTHING: Any = object()

    def __init__(self, g: Game, h: HiddenSpec, c: Any, p: PlayerBase) -> None:
        self.g, self.h, self.p = g, h, p
        self.obj = p if not h.thing else c
        if h.keyed:
            self.map: dict[str, Any] = getattr(self.obj, h.attr)
            fields = next(t.fields for t in g.spec.things if t.name == h.thing)
            self.default = next(f.default for f in fields if f.attr == h.attr)(g)
            self.present = p._key in self.map
            self.old = self.map.get(p._key, self.default)
        else:
            self.old = getattr(self.obj, h.attr)

    def changed(self, rng: random.Random) -> Any:
        """Another value of the fact: a number one more, a bool flipped, a list or set with an item more or less,
        an optional thing another or none; NOTHING for a type with no such change."""
        return _change(self.g, self.h.type, self.old, rng, self.NOTHING)

    @contextmanager
    def set_to(self, value: Any) -> Iterator[None]:
        """The fact holds `value` inside the block, and its old value (stored as it was) after it."""
        if not self.h.keyed:
            setattr(self.obj, self.h.attr, value)
        elif value == self.default:  # as the generated code's mset keeps a per-key value: no default stored
            self.map.pop(self.p._key, None)
        else:
            self.map[self.p._key] = value
        try:
            yield
        finally:
            if not self.h.keyed:
                setattr(self.obj, self.h.attr, self.old)
            elif self.present:
                self.map[self.p._key] = self.old
            else:
                self.map.pop(self.p._key, None)


def _change(g: Game, ty: TypeDesc, old: Any, rng: random.Random, nothing: Any) -> Any:
    kind = ty[0]
    if kind in ("int", "money", "decimal"):
        return old + 1
    if kind == "bool":
        return not old
    if kind == "text":
        return old + "x"
    if kind in ("list", "set"):
        items = list(old)
        if items and rng.random() < 0.5:
            del items[rng.randrange(len(items))]
        else:
            item = _another(g, ty[1][1], None, rng) if ty[1][0] == "thing" else _change(g, ty[1], _zero(ty[1]), rng,
                                                                                        nothing)
            if item is nothing or item is None:
                return nothing
            items.append(item)
        # A set is kept as a list, each value once, things in declaration order (runtime `as_set`): so it stays.
        return items if kind == "list" else sorted(dict.fromkeys(items), key=_order)
    if kind == "opt":
        if old is not None and rng.random() < 0.5:
            return None
        inner = ty[1]
        if inner[0] == "thing":
            other = _another(g, inner[1], old, rng)
            return nothing if other is None else other
        return _change(g, inner, old if old is not None else _zero(inner), rng, nothing)
    if kind == "thing":
        other = _another(g, ty[1], old, rng)
        return nothing if other is None else other
    return nothing


def _zero(ty: TypeDesc) -> Any:
    return {"int": 0, "money": 0, "decimal": Fraction(0), "bool": False, "text": ""}.get(ty[0])


def _another(g: Game, thing: str, old: Any, rng: random.Random) -> Any:
    """Another instance of a thing (a player, a sector) than `old`, or None when there is none."""
    if thing == "Player":
        pool: list[Any] = list(g.all_players)
    elif g.spec.grid is not None and g.spec.grid.name == thing:
        pool = list(g.sectors)
    else:
        pool = list(g.instances(thing))
    pool = [x for x in pool if x is not old]
    return rng.choice(pool) if pool else None


def _order(v: Any) -> Any:
    return (v._ord, "") if isinstance(v, Thing) else (0, str(v))


def plain(value: Any) -> Any:
    """A value as plain data, the same across a state's write and read: a thing by its type and key (a game read
    back has new objects), a set sorted, an amount as a Fraction."""
    if isinstance(value, PlayerBase):
        return ("Player", value._key)
    if isinstance(value, Thing):
        return (type(value).__name__, value._key)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((plain(v) for v in value), key=repr)
    return value


def _error(e: Exception) -> str:
    """An error as the GM would read it: a RulesError names its `.rules` line; another, its kind."""
    return str(e) if isinstance(e, RulesError) else f"{type(e).__name__}: {e}"


def _shown(value: Any) -> str:
    if isinstance(value, tuple) and len(value) == 2:
        return str(value[1])
    if isinstance(value, Fraction):
        return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"
    if isinstance(value, list):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    return repr(value) if isinstance(value, str) else str(value)


def _broken(inv: InvariantSpec, turn: int) -> str:
    when = "at the start" if turn == 0 else f"after turn {turn}"
    return f"invariant {inv.name} (line {inv.line}) does not hold {when}"


def _declaration(h: HiddenSpec) -> str:
    if h.thing:
        return f"c.{h.field}[p] for c in {h.thing}"
    return f"p.{h.field}"


def first_difference(a: Any, b: Any, path: str = "$") -> str:
    """Where two report data first differ, as a JSON path, with the two values there."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if a.get(k) != b.get(k):
                return first_difference(a.get(k), b.get(k), f"{path}.{k}")
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            if x != y:
                return first_difference(x, y, f"{path}[{i}]")
        if len(a) != len(b):
            return f"{path} ({len(a)} items, then {len(b)})"
    return f"{path} ({_cut(a)} -> {_cut(b)})"


def _cut(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."

