"""WCG played long: the test world (or --scenario, or --world-1960) and the order makers of tests/unit/wcg_orders/
through --turns turns (25 unless given: the whole of 1960) -> the time of the game, and with --check: every refusal
and failure one of the makers' expected reasons, the lines written to be refused refused, no mail left unprocessed,
no report showing another player's private facts (see `leaks`), the orders of the rules carried out (GM orders and
PENDING aside) and the events of EVENTS. `--check` fails on a fault; `--strict` also on an order never carried
out or an event that never happened: it is the five-year game's check on the 1960 world (.ci/run), whose eight
positions story.py steers to the events (the test world has no conquest, merger or sneak attack in its script).

Run: python benchmarks/wcg_long.py --check
     python benchmarks/wcg_long.py --world-1960 --turns 125 --check --strict   (.ci/run: 8 players, 24 countries)
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rulesdsl.cli import main as rulesdsl  # noqa: E402
from rulesdsl.compiler import check_path  # noqa: E402
from tests.unit.wcg_orders import MAKERS  # noqa: E402
from tests.unit.wcg_orders.story import countries  # noqa: E402

RULES = ROOT / "rulesets" / "wcg.rules"
WORLD = ROOT / "tests" / "golden" / "wcg" / "_world" / "scenario-base.yaml"
# The whole map with its garrisons and the eight starting positions played: the game as players will have it.
WORLD_1960 = ROOT / "tests" / "golden" / "wcg" / "world-1960" / "scenario.yaml"


def order_patterns() -> dict[str, re.Pattern[str]]:
    """The rules' orders given by players (not the GM's) -> a pattern a line of each fully matches."""
    program = check_path(RULES).program
    assert program is not None
    out = {}
    for o in program.orders:
        if o.kind == "gm":
            continue
        parts = re.split(r"\{[^}]*\}", o.pattern)
        out[o.name] = re.compile(".+?".join(re.escape(p) for p in parts), re.IGNORECASE)
    return out


def play(tmp: Path, turns: int, scenario: Path) -> tuple[Path, list[dict[str, dict[str, str]]]]:
    """A game from `rulesdsl new` through `turns` turns -> its folder, and for each turn each player's lines
    written to be refused or to fail (by account), each with what its reason must say."""
    game = tmp / "game"
    data = yaml.safe_load(scenario.read_text(encoding="utf-8"))
    header = f"WCG-{data.get('game', {}).get('number', 1)}"
    players = [(str(p["account"]), str(p["code"]), p["name"]) for p in data["players"]]
    assert rulesdsl(["new", str(RULES), str(game), "--scenario", str(scenario)]) == 0
    bad_by_turn: list[dict[str, dict[str, str]]] = []
    for turn in range(1, turns + 1):
        before = game / "turns" / f"turn-{turn - 1:03d}" / "reports"
        post = tmp / "mail" / f"turn-{turn}"
        post.mkdir(parents=True)
        mail, bad_lines = [], {}
        for i, (account, code, _) in enumerate(players):
            report = json.loads(next(before.glob(f"{account}-*.json")).read_text(encoding="utf-8"))
            others = [players[(i + k) % len(players)][0] for k in (1, 2) if len(players) > k]
            lines: list[str] = []
            bad: dict[str, str] = {}
            for m in MAKERS:
                rng = random.Random(f"orders {turn} {account} {m.__name__}")
                got, wrong = m.orders(report, turn, rng, others)
                lines += got
                bad |= wrong
            bad_lines[account] = bad
            path = post / f"{account}.txt"
            path.write_text("\n".join([header, f"{account} {code}", *lines]) + "\n", encoding="utf-8")
            mail.append(path)
        gm_hook(game, turn)
        # With no maker (or a quiet one) a mail is the same two turns running, as a GM would send with --force.
        assert rulesdsl(["turn", "--force", str(game), *map(str, mail)]) == 0, f"turn {turn}"
        bad_by_turn.append(bad_lines)
    return game, bad_by_turn


def gm_hook(game: Path, turn: int) -> None:
    """The GM's orders for `turn` (W4): now and then a ruling, ownerless units put and taken, saved money granted,
    filed as `rulesdsl gm GAMEDIR order` does, carried out before the players' mail."""
    world = {4: ["RULE The long game's ruling", "UNITS CUB,INF,2"], 6: ["REMOVE CUB,INF,1"]}
    if turn % 10 in world:
        assert rulesdsl(["gm", str(game), "order", "--world", *world[turn % 10]]) == 0
    if turn % 10 == 2:
        assert rulesdsl(["gm", str(game), "order", "1", "GRANT 1.0"]) == 0


# Orders no maker can carry out yet, while another engineer fills them (empty: every order of wcg.rules has its
# maker). A new order whose maker comes later goes here, so that `--strict` says so instead of failing.
PENDING: set[str] = set()

# The events the five-year game must have (story.py steers the 1960 world to them), each found in the news.
VOTES = re.compile(r"UN resolution \d+ (passed|failed): (.*)\.$")
EVENTS: dict[str, Callable[[str], bool]] = {
    "a UN resolution passed": lambda n: bool((m := VOTES.match(n)) and m[1] == "passed"),
    "a UN resolution failed by a veto": lambda n: _failed_by(n, "no"),
    "a UN resolution failed by an abstention": lambda n: _failed_by(n, "abstained"),
    "an invasion conquered a country": lambda n: bool(re.fullmatch(r".+ is conquered by .+", n)),
    "a sneak attack": lambda n: "sneak attack" in n or n.startswith("A submarine is spotted in "),
}


def _failed_by(news: str, answer: str) -> bool:
    """A failed vote's news -> whether `answer` alone defeated it (a veto: no abstention; an abstention: no veto)."""
    m = VOTES.match(news)
    if m is None or m[1] != "failed":
        return False
    answers = {vote.rsplit(" ", 1)[1] for vote in m[2].split(", ")}
    return answer in answers and not answers & ({"no", "abstained"} - {answer})


def hidden_stacks(state: str) -> list[tuple[str, str, int]]:
    """A turn's state.yaml text -> its hidden submarine stacks as (owner account, country code, count). Only the
    Force table is parsed: the whole state would take a quarter of a second a turn."""
    start = state.index("\nForce:\n") + 1
    end = re.compile(r"^\S", re.MULTILINE).search(state, start + 1)
    table = yaml.load(state[start:end.start() if end else None], Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    cols = table["Force"]["columns"]
    at = {c: cols.index(c) for c in ("owner", "country", "kind", "count", "hidden")}
    return [(str(r[at["owner"]]), str(r[at["country"]]), int(r[at["count"]])) for r in table["Force"]["rows"] or []
            if r[at["hidden"]] and r[at["owner"]] is not None and r[at["count"]] > 0]


def leaks(reports: dict[str, dict[str, Any]], texts: dict[str, str], state: str, names: dict[str, str]) -> list[str]:
    """One turn's reports (JSON and text, by account) and state -> what a report shows of another player's private
    facts. Two cheap checks: a message told to one player alone (a private fact: spending, a GIVE, a hidden
    stack's losses, a plan's months) appears in no other player's report; and a hidden submarine stack (the state's)
    is named, with its count and country on one line, in no other player's report but in its own spy plane's
    intelligence (R68) or as its own stack."""
    found: list[str] = []
    told: dict[str, int] = {}
    for r in reports.values():
        for m in set(r["messages"]):
            told[m] = told.get(m, 0) + 1
    for account, r in reports.items():
        for m in r["messages"]:
            if told[m] == 1:
                found += [f"{other}'s report shows {account}'s message {m!r}"
                          for other, text in texts.items() if other != account and m in text]
    for owner, country, count in hidden_stacks(state):
        for other, text in texts.items():
            if other == owner:
                continue
            mine = set(reports[other]["intel"]) | set(reports[other]["forces"])
            found += [f"{other}'s report names {owner}'s hidden submarines: {line.strip()!r}"
                      for line in text.splitlines() if f"{count} submarine" in line and names[country] in line
                      and not any(line.strip() in x for x in mine)]
    return found


def check(game: Path, bad_by_turn: list[dict[str, dict[str, str]]]) -> tuple[set[str], list[str], set[str]]:
    """A played game -> the orders carried out in it, every fault found (a reason no maker expects, a line written
    to be refused that was taken, a mail not processed, a private fact in another player's report), and the
    events of EVENTS that happened."""
    expected = re.compile("|".join(f"(?:{r})" for m in MAKERS for r in m.EXPECTED) or "(?!)")
    patterns = order_patterns()
    names = {code: name for name, (code, _) in countries().items()}
    done: set[str] = set()
    faults: list[str] = []
    events: set[str] = set()
    for turn, bad in enumerate(bad_by_turn, start=1):
        folder = game / "turns" / f"turn-{turn:03d}"
        reports = {p.stem.split("-", 1)[0]: json.loads(p.read_text(encoding="utf-8"))
                   for p in sorted((folder / "reports").glob("*.json"))}
        texts = {p.stem.split("-", 1)[0]: p.read_text(encoding="utf-8")
                 for p in sorted((folder / "reports").glob("*.txt"))}
        faults += [f"turn {turn}: {f}" for f in leaks(reports, texts, (folder / "state.yaml").read_text(
            encoding="utf-8"), names)]
        for n in next(iter(reports.values()))["news"]:
            events |= {e for e, seen in EVENTS.items() if seen(n)}
        for report in reports.values():
            account = report["player"]["account"]
            faults += [f"turn {turn}, {account}: mail not processed: {n}" for n in report["orders"]["notices"]]
            lines = {r["text"]: r["reason"] for r in report["orders"]["refused"]}
            lines |= {r["text"]: r["reason"] for r in report["orders"]["used"] if r["status"] == "failed"}
            for text, reason in lines.items():
                if not expected.fullmatch(reason):
                    faults.append(f"turn {turn}, {account}: {text!r} refused: {reason}")
            for text, why in bad.get(account, {}).items():
                if why not in lines.get(text, ""):
                    faults.append(f"turn {turn}, {account}: {text!r} should be refused with {why!r}")
            for r in report["orders"]["used"]:
                if r["status"] == "done":
                    done |= {name for name, p in patterns.items() if p.fullmatch(r["text"])}
    return done, faults, events


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--turns", type=int, default=25)
    ap.add_argument("--scenario", type=Path, default=WORLD)
    ap.add_argument("--world-1960", action="store_true", help="the 1960 world with 8 players (not --scenario)")
    ap.add_argument("--check", action="store_true", help="check the game; exit 1 on a fault")
    ap.add_argument("--strict", action="store_true", help="with --check: exit 1 if an order was never carried out")
    args = ap.parse_args(argv)
    if args.world_1960:
        args.scenario = WORLD_1960
    os.environ["RULESDSL_PROGRESS"] = "none"
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            game, bad = play(Path(tmp), args.turns, args.scenario)
        played = time.perf_counter() - start
        names = ", ".join(m.__name__.rsplit(".", 1)[1] for m in MAKERS) or "none"
        print(f"{args.turns} turns, makers: {names}: {played:.1f} s")
        if not args.check:
            return 0
        done, faults, events = check(game, bad)
        for f in faults:
            print(f)
        missing = sorted(set(order_patterns()) - done - PENDING)
        print(f"orders carried out: {' '.join(sorted(done)) or 'none'}")
        print(f"pending (another part fills them): {' '.join(sorted(PENDING - done)) or 'none'}")
        if missing:
            print(f"never carried out: {' '.join(missing)}")
        absent = [e for e in EVENTS if e not in events]
        print(f"events: {'; '.join(e for e in EVENTS if e in events) or 'none'}")
        if absent:
            print(f"events that never happened: {'; '.join(absent)}")
        if faults or (args.strict and (missing or absent)):
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
