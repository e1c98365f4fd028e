"""WCG played long: the test world (or --scenario) and the order makers of tests/unit/wcg_orders/ through --turns
turns (25 unless given: the whole of 1960) -> the time of the game, and with --check: every refusal and failure
one of the makers' expected reasons, the lines written to be refused refused, and the orders of the rules never
carried out (GM orders aside). Until every package's maker is in, `--check` only prints the orders never carried
out; `--strict` fails on them (W6 adds it to .ci/run with the five-year game).

Run: python benchmarks/wcg_long.py --check
     python benchmarks/wcg_long.py --turns 125 --check --strict
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
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rulesdsl.cli import main as rulesdsl  # noqa: E402
from rulesdsl.compiler import check_path  # noqa: E402
from tests.unit.wcg_orders import MAKERS  # noqa: E402

RULES = ROOT / "rulesets" / "wcg.rules"
WORLD = ROOT / "tests" / "golden" / "wcg" / "_world" / "scenario-base.yaml"


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


def check(game: Path, bad_by_turn: list[dict[str, dict[str, str]]]) -> tuple[set[str], list[str]]:
    """A played game -> the orders carried out in it, and every fault found (a reason no maker expects, a line
    written to be refused that was taken)."""
    expected = re.compile("|".join(f"(?:{r})" for m in MAKERS for r in m.EXPECTED) or "(?!)")
    patterns = order_patterns()
    done: set[str] = set()
    faults: list[str] = []
    for turn, bad in enumerate(bad_by_turn, start=1):
        for path in sorted((game / "turns" / f"turn-{turn:03d}" / "reports").glob("*.json")):
            report = json.loads(path.read_text(encoding="utf-8"))
            account = report["player"]["account"]
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
    return done, faults


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--turns", type=int, default=25)
    ap.add_argument("--scenario", type=Path, default=WORLD)
    ap.add_argument("--check", action="store_true", help="check the game; exit 1 on a fault")
    ap.add_argument("--strict", action="store_true", help="with --check: exit 1 if an order was never carried out")
    args = ap.parse_args(argv)
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
        done, faults = check(game, bad)
        for f in faults:
            print(f)
        missing = sorted(set(order_patterns()) - done)
        print(f"orders carried out: {' '.join(sorted(done)) or 'none'}")
        if missing:
            print(f"never carried out: {' '.join(missing)}")
        if faults or (args.strict and missing):
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
