"""The shipped rulesets and their example mail -> turns a fuzzer can play, and the checks on what a turn made.

Shared by the hypothesis suite (tests/fuzz/) and the long run (benchmarks/fuzz_orders.py), so both hold the
engine to the same properties. Nothing here imports pytest or hypothesis.

A turn is played as rulesdsl/game/folder.py plays it, without a folder: a dumped state is loaded
(state.load), Game.process_turn gets every player's mail, and each player's report is built with
report_data, validate_report and render.
"""

from __future__ import annotations

import copy
import os
import re
import signal
import string
import time
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from rulesdsl.compiler import load_module
from rulesdsl.runtime import state
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.report import render, report_data, validate_report
from rulesdsl.runtime.spec import RulesetSpec

ROOT = Path(__file__).resolve().parents[2]

# Example mail of each turn, in the order the turns are played.
RULESETS: dict[str, list[str]] = {
    "covert": ["day1", "day2", "day3", "day4", "day5"],
    "nukecards": ["round1", "round2"],
}

# The longest line the fuzzers write. Lower it (RULESDSL_FUZZ_MAX_LINE=300) for quick runs while a slow
# pattern is being fixed; CI runs at full strength.
MAX_LINE = int(os.environ.get("RULESDSL_FUZZ_MAX_LINE", "100000"))

# A turn with its reports, for a submission of up to 50 lines of up to 100,000 characters, on a loaded
# 2-core machine. Today's engine does such a turn in well under half a second; a pattern that backtracks
# takes minutes, and the watchdog stops it here instead.
TURN_SECONDS = 5.0

LABEL = "fuzz.txt"  # the file name the fuzzed submission arrives under


class TurnTooSlow(BaseException):
    """Raised by the watchdog inside a turn that runs past TURN_SECONDS; not an Exception, so that the
    engine, which wraps every Exception of a turn, lets it through."""


@contextmanager
def watchdog(seconds: float) -> Iterator[None]:
    """Interrupts the block (SIGALRM reaches into a running regex) when it runs longer than `seconds`."""
    if not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise TurnTooSlow(f"the turn took longer than {seconds:g} s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


class Context:
    """A game just before one turn: its dumped state, and the example mail of that turn.

    Not a dataclass: hypothesis prints a test's fixtures, and this one is best printed by its name."""

    def __init__(self, ruleset: str, turn_name: str, spec: RulesetSpec, module_file: str, state: dict[str, Any],
                 mail: list[tuple[str, str]], bodies: dict[str, list[str]], players: list[tuple[str, str, str]],
                 corpus: list[str]) -> None:
        self.ruleset = ruleset
        self.turn_name = turn_name
        self.spec = spec
        self.module_file = module_file
        self.state = state
        self.mail = mail  # (file name, text) of every player who wrote that turn
        self.bodies = bodies  # account -> the order lines of that player's example mail
        self.players = players  # (account, name, code) of each active player
        self.corpus = corpus  # real order lines: every turn's example mail, and each order syntax filled in
        self._quiet: dict[str, Outcome] = {}

    def __repr__(self) -> str:
        return f"<{self.id}>"

    @property
    def id(self) -> str:
        return f"{self.ruleset}-{self.turn_name}"

    def header(self, account: str) -> list[str]:
        """The header lines that authenticate the player, as the ruleset's `orders` block forms them."""
        code = next(c for a, _, c in self.players if a == account)
        values = {"game": str(self.state["game"]["number"]), "account": account, "code": code}
        return [re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], form) for form in self.spec.policy.header]

    def others(self, account: str) -> list[tuple[str, str]]:
        """The example mail of everybody but the player: their files, kept as they are."""
        return [(name, text) for name, text in self.mail if _account_of(self.spec, text) != account]

    def quiet(self, account: str) -> Outcome:
        """The turn when the player sends nothing: what a bad submission of theirs is compared with."""
        if account not in self._quiet:
            self._quiet[account] = play(self, self.others(account))
        return self._quiet[account]


def _account_of(spec: RulesetSpec, text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    pos = next((i for i, form in enumerate(spec.policy.header) if form == "{account}"), 1)
    return lines[pos] if len(lines) > pos else ""


def _fill(spec: RulesetSpec, g: Game) -> list[str]:
    """Each order syntax with real values in its slots: the lines a player of this game writes."""
    out = []
    for o in spec.orders:
        values: dict[str, list[str]] = {}
        for a in o.args:
            kind = a.type[0]
            item = a.type[1] if kind == "list" else a.type
            if item[0] == "thing" and item[1] == "Player":
                keys = [p.name for p in g.all_players[:2]] + [p.account for p in g.all_players[:1]]
            elif item[0] == "thing":
                keys = [t._key for t in g.all[item[1]][:3]]
            elif item[0] in ("int", "money"):
                keys = ["1", "3", "10"]
            else:
                keys = ["NEWCODE7", "someone@example.org"]
            values[a.name] = keys + ([f"{keys[0]}+{keys[-1]}"] if kind == "list" else [])
        for i in range(3):
            out.append(re.sub(r"\{(\w+)\}", lambda m: _nth(values[m.group(1)], i), o.pattern))  # noqa: B023
    return out


def _nth(items: list[str], i: int) -> str:
    return items[i % len(items)]


def build(ruleset: str, cache: Path) -> list[Context]:
    """Plays the ruleset's example game turn by turn; one context before each turn."""
    module, spec = load_module(ROOT / "rulesets" / f"{ruleset}.rules", cache=cache)
    module_file = str(module.__file__)
    examples = ROOT / "examples" / ruleset
    scenario = yaml.safe_load((examples / "scenario.yaml").read_text(encoding="utf-8"))
    g = state.new_game(spec, scenario)
    mails = [[(p.name, p.read_text(encoding="utf-8")) for p in sorted((examples / t).glob("*.txt"))]
             for t in RULESETS[ruleset]]
    corpus: list[str] = []
    for mail in mails:
        for _, text in mail:
            corpus += [ln.strip() for ln in text.splitlines()[len(spec.policy.header):] if ln.strip()]
    corpus = sorted(set(corpus)) + _fill(spec, g)
    contexts = []
    for turn_name, mail in zip(RULESETS[ruleset], mails, strict=True):
        bodies = {_account_of(spec, text): [ln for ln in text.splitlines()[len(spec.policy.header):]]
                  for _, text in mail}
        players = [(p.account, p.name, p.code) for p in g.all_players if p.active]
        contexts.append(Context(ruleset, turn_name, spec, module_file, state.dump(g), mail, bodies, players,
                                corpus))
        g.process_turn(mail)
    return contexts


# ---------------------------------------------------------------- a turn and what it made
@dataclass
class Outcome:
    game: Game
    reports: dict[str, tuple[str, dict[str, Any]]]  # account -> (report text, report data)
    news: list[str]
    unrouted: list[str]
    state: dict[str, Any]
    seconds: float


class Crash(Exception):
    """The turn (or a report) raised: what the GM would see as a turn that was not processed."""


def play(ctx: Context, submissions: list[tuple[str, str]], seconds: float = TURN_SECONDS) -> Outcome:
    g = state.load(ctx.spec, copy.deepcopy(ctx.state), ctx.module_file)
    start = time.perf_counter()
    try:
        with watchdog(seconds):
            g.process_turn(submissions)
            reports = {}
            for p in g.all_players:
                if not p.active and not g.turns[p._key].was_active:
                    continue
                data = report_data(g, p)
                validate_report(ctx.spec, data)
                reports[p.account] = (render(ctx.spec, data), data)
    except TurnTooSlow:
        raise
    except Exception as exc:
        raise Crash(f"{type(exc).__name__}: {exc}") from exc
    took = time.perf_counter() - start
    return Outcome(g, reports, g.news_items(), list(g.unrouted), state.dump(g), took)


def processed(out: Outcome, account: str) -> bool:
    """Whether the player's mail got past the header: the engine read their order lines."""
    p = next(p for p in out.game.all_players if p.account == account)
    return bool(out.game.turns[p._key].submitted)


# ---------------------------------------------------------------- checks: each returns what is wrong
def is_control(ch: str) -> bool:
    """Unicode category C (controls, format characters such as BOM and bidi overrides, unassigned,
    private use), except the newline and tab that reports are made of."""
    return ch not in "\n\t" and unicodedata.category(ch).startswith("C")


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k, f"{path}.<key>")
            yield from _strings(v, f"{path}.{k}")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _strings(v, f"{path}[{i}]")


def control_problems(out: Outcome) -> list[str]:
    where: list[tuple[str, str]] = []
    for account, (text, data) in out.reports.items():
        where.append((f"report text of {account}", text))
        where += [(f"report data of {account} {p}", s) for p, s in _strings(data, "$")]
    where += [(f"news line {i + 1}", s) for i, s in enumerate(out.news)]
    where += [(f"unrouted message {i + 1}", s) for i, s in enumerate(out.unrouted)]
    problems = []
    for what, text in where:
        bad = sorted({ch for ch in text if is_control(ch)})
        if bad:
            problems.append(f"{what} has control characters {bad!r}: {shorten(text)}")
    return problems


def reason_problems(out: Outcome) -> list[str]:
    problems = []
    for account, (_, data) in out.reports.items():
        for r in data["orders"]["refused"]:
            if not str(r.get("reason") or "").strip():
                problems.append(f"{account}: line {r['line']} refused without a reason: {shorten(r['text'])}")
        for r in data["orders"]["used"]:
            if r["status"] == "failed" and not str(r.get("reason") or "").strip():
                problems.append(f"{account}: line {r['line']} failed without a reason: {shorten(r['text'])}")
    return problems


def skeleton(text: str) -> str:
    """What is left of a line without spaces, controls and format characters."""
    return "".join(ch for ch in text if not ch.isspace() and not unicodedata.category(ch).startswith("C"))


def ascii_upper(text: str) -> str:
    """Upper case for ASCII letters only: str.upper() makes a dotless i an I, and a long s an S."""
    return text.translate(_UPPER)


_UPPER = str.maketrans(string.ascii_lowercase, string.ascii_uppercase)


def _keyword_line(ctx: Context, line: str, kind: str) -> bool:
    forms = [o.pattern for o in ctx.spec.orders if o.kind == kind and "{" not in o.pattern]
    sk = ascii_upper(skeleton(line))
    return any(sk == ascii_upper(skeleton(f)) for f in forms)


def accounting_problems(ctx: Context, out: Outcome, account: str, lines: list[str], body_start: int) -> list[str]:
    """Every line of the processed submission is used, refused, kept on file, or a blank, stop or discard
    line; and the engine's line numbers are the mail's."""
    problems = []
    data = out.reports[account][1]
    numbered = [(r["line"], r["text"], "used") for r in data["orders"]["used"] if r["line"]]
    numbered += [(r["line"], r["text"], "refused") for r in data["orders"]["refused"] if r["line"]]
    seen: dict[int, str] = {}
    for line, text, how in numbered:
        if not body_start < line <= len(lines):
            problems.append(f"{how} line {line} {shorten(text)} is not an order line of the mail "
                            f"(lines {body_start + 1} to {len(lines)})")
            continue
        if line in seen:
            problems.append(f"line {line} is both {seen[line]} and {how}")
        seen[line] = how
        raw = lines[line - 1]
        mine = raw.strip(" \t")
        plain = raw.isascii() and all(ch.isprintable() or ch == "\t" for ch in raw)
        text = str(text)
        # A report may cut a long line short; it still starts as the line does.
        same = text == mine or (len(mine) > 60 and len(text) >= 20 and text[:20] == mine[:20])
        if plain and not same:
            problems.append(f"{how} line {line} reads {shorten(text)}, but line {line} of the mail is "
                            f"{shorten(mine)}")
    discards = [i for i in range(body_start, len(lines)) if _keyword_line(ctx, lines[i], "discard")]
    last_discard = discards[-1] if discards else -1
    on_file = [skeleton(t) for t in data["orders"]["on_file"]]
    for i in range(body_start, len(lines)):
        line = lines[i]
        if i + 1 in seen or not skeleton(line) or i < last_discard:
            continue
        if _keyword_line(ctx, line, "stop") or _keyword_line(ctx, line, "discard"):
            continue
        sk = skeleton(line)
        match = next((j for j, f in enumerate(on_file) if f and (sk.startswith(f) or f.startswith(sk))), None)
        if match is not None:
            on_file.pop(match)
            continue
        problems.append(f"line {i + 1} {shorten(line)} is neither used, refused nor kept on file")
    return problems


def lookalike_problems(ctx: Context, out: Outcome, account: str, lines: list[str]) -> list[str]:
    """An order taken from a line is written in ASCII, outside its free-text arguments: a long s, a Kelvin
    sign, a dotless i, an Arabic-Indic digit are not the letters and digits of the game's codes and numbers."""
    problems = []
    p = next(p for p in out.game.all_players if p.account == account)
    for rec in out.game.turns[p._key].used:
        if not 1 <= rec.line <= len(lines) or skeleton(rec.text) not in skeleton(lines[rec.line - 1]):
            continue  # the engine numbered the lines otherwise: accounting_problems says so
        rest = lines[rec.line - 1]
        spec = out.game.orders[rec.kind]
        for a in spec.args:
            value = rec.args.get(a.name)
            if a.type[0] == "text" and isinstance(value, str) and value:
                rest = rest.replace(value, "", 1)
        rest = "".join(ch for ch in rest if unicodedata.category(ch)[0] not in "CZ")
        if not rest.isascii():
            odd = sorted({ch for ch in rest if not ch.isascii()})
            problems.append(f"line {rec.line} {shorten(lines[rec.line - 1])} was taken as order {rec.kind} "
                            f"although it has the non-ASCII characters {odd!r}")
    return problems


def differences(a: Outcome, b: Outcome, skip: set[str]) -> list[str]:
    """What differs between two turns, except the reports of the accounts in `skip`."""
    problems = []
    for account in sorted(set(a.reports) | set(b.reports)):
        if account in skip:
            continue
        if a.reports.get(account) != b.reports.get(account):
            change = first_difference(a.reports.get(account), b.reports.get(account))
            problems.append(f"the report of {account} changed: {change}")
    if a.news != b.news:
        problems.append(f"the news changed: {first_difference(a.news, b.news)}")
    if a.state != b.state:
        problems.append(f"the state changed: {first_difference(a.state, b.state)}")
    return problems


def first_difference(a: Any, b: Any, path: str = "$") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if a.get(k) != b.get(k):
                return first_difference(a.get(k), b.get(k), f"{path}.{k}")
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            if x != y:
                return first_difference(x, y, f"{path}[{i}]")
        if len(a) != len(b):
            return f"{path}: {len(a)} items, then {len(b)}"
    if isinstance(a, str) and isinstance(b, str):
        al, bl = a.splitlines(), b.splitlines()
        for i, (x, y) in enumerate(zip(al, bl, strict=False)):
            if x != y:
                return f"{path} line {i + 1}: {shorten(x)} -> {shorten(y)}"
    return f"{path}: {shorten(a)} -> {shorten(b)}"


# ---------------------------------------------------------------- reading inputs back
def shorten(value: Any, limit: int = 160) -> str:
    """A value as a Python expression, long runs written `' ' * 5000`, the middle cut past `limit`."""
    if not isinstance(value, str):
        text = repr(value)
        return text if len(text) <= limit else f"{text[:limit // 2]} ... {text[-limit // 2:]}"
    text = describe(value)
    return text if len(text) <= limit else f"{text[:limit // 2]} ... {text[-limit // 2:]}"


def describe(text: str) -> str:
    """`text` as a Python expression that evaluates to it, with runs of a 1-4 character unit repeated
    16 characters or more written as `unit * n`: how a failing input is read and reproduced."""
    parts: list[str] = []
    plain = ""
    i = 0
    while i < len(text):
        best_k, best_n = 0, 0
        for k in range(1, 5):
            unit = text[i:i + k]
            if len(unit) < k:
                break
            n = 1
            while text.startswith(unit, i + n * k):
                n += 1
            if n * k >= 16 and n * k > best_n * best_k:
                best_k, best_n = k, n
        if best_k:
            if plain:
                parts.append(repr(plain))
                plain = ""
            parts.append(f"{text[i:i + best_k]!r} * {best_n}")
            i += best_k * best_n
        else:
            plain += text[i]
            i += 1
    if plain or not parts:
        parts.append(repr(plain))
    return " + ".join(parts)
