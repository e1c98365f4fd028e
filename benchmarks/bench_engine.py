"""Covert's generated engine and a hand-written reference, on the same state and orders -> a table of times.

Run: python benchmarks/bench_engine.py
     python benchmarks/bench_engine.py --players 20 200 --runs 5
     python benchmarks/bench_engine.py --cli /tmp/base    (also `rulesdsl turn` in CPU time, here and in /tmp/base)

For each number of players, one Covert day (turn 1) is played from the same starting state by the engine that
rulesets/covert.rules compiles to, and by benchmarks/covert_reference.py, Python written by hand for Covert alone.
Their outcomes are checked equal first (the state as runtime.state.dump writes it, the news, every order's
outcome, every message and every player's report data); then each is timed `--runs` times, alternating, and the
median kept. Times are CPU time of this process (time.process_time), so that other work on the machine counts
less. Timed are the steps the rules decide: the phases (dawn, messages, superspies, ..., new_codes, with
the orders each runs: checks, cost and effect), the victory conditions, and every player's report data (the
ruleset's own fields, all players' under one runtime.core.unchanging window: nothing changes while reports are
written, so a function they all call is worked out once). Not timed, on either side: reading the mail and
choosing the day's orders, the resets at the start of a day and the order budget at its end (engine
bookkeeping, the same for every ruleset).

Targets (issue 10 section 5): generated within 1.25x of hand-written; from 20 to 200 players at most 12x the time;
the whole `rulesdsl turn` of 20 players at most half the CPU time of commit 1635035.

--cli TREE... also times the whole `rulesdsl turn` of a 20-player game in CPU time (user + system of the child
process, median of --runs), in this checkout and in each TREE given (another checkout of rulesdsl, such as a
`git worktree add /tmp/base 1635035`), taking turns run by run, each tree with its own compile cache made warm
by one turn first and its byte code cached.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "benchmarks"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import covert_reference as ref  # noqa: E402

from rulesdsl.compiler import load_module  # noqa: E402
from rulesdsl.runtime.engine import Game  # noqa: E402
from rulesdsl.runtime.report import to_data  # noqa: E402
from rulesdsl.runtime.spec import RulesetSpec  # noqa: E402
from rulesdsl.runtime.state import dump, load, new_game  # noqa: E402

RULES = ROOT / "rulesets" / "covert.rules"
GAME_NUMBER = 42
MIN_NEIGHBOURS = 2  # a C and a D order go from a home country to two different neighbours
RATIO_TARGET, GROWTH_TARGET = 1.25, 12.0


# ---------------------------------------------------------------- the game
def scenario(spec: RulesetSpec, players: int) -> tuple[dict[str, Any], list[list[str]]]:
    """A Covert game of `players` players, and each one's orders for day 1 (ten, as bench_covert.py gives).

    Each player starts with influence 20 in a home country; with more players than countries that have two
    neighbours, homes are shared, and the one who came last to a home has the most influence there (20 plus
    how many came before), so every home has a leader and the others' orders there fail on its checks."""
    (country,) = spec.things
    adjacency = {key: values.get("adjacent", []) for key, values in country.instances}
    homes = [k for k, near in adjacency.items() if len(near) >= MIN_NEIGHBOURS]
    spare = [k for k in adjacency if k not in homes]
    rows: list[dict[str, Any]] = [{"name": f"Agency {i:03d}", "account": str(5000 + i), "code": f"CODE{i:03d}",
             "email": f"agency{i}@example.org", "cash": 100} for i in range(players)]
    influence: dict[str, dict[str, int]] = {}
    orders = []
    for i, p in enumerate(rows):
        home = homes[i % len(homes)]
        influence.setdefault(home, {})[p["account"]] = 20 + i // len(homes)
        near, other = adjacency[home], homes[(i + 1) % len(homes)]
        orders.append([f"A,{home},2", f"B,{spare[i % len(spare)]},5", f"G,{home},2", f"S,{other},3", f"I,{home}",
                       f"T,{spare[(i + 3) % len(spare)]},2", f"K,{spare[(i + 5) % len(spare)]},3",
                       f"C,{home},{near[0]},1", f"D,{home},{near[1]},1", f"B,{spare[(i + 7) % len(spare)]},4"])
    data = {"game": {"number": GAME_NUMBER}, "seed": 1, "players": rows,
            "Country": {c: {"influence": levels} for c, levels in influence.items()}}
    return data, orders


def mail(data: dict[str, Any], orders: list[list[str]]) -> list[tuple[str, str]]:
    return [(f"{p['account']}.txt", "\n".join([f"CO-{GAME_NUMBER}", p["account"], p["code"], *lines]) + "\n")
            for p, lines in zip(data["players"], orders, strict=True)]


# ---------------------------------------------------------------- one day, each way
@dataclasses.dataclass
class Day:
    state: dict[str, Any]
    news: list[str]
    outcomes: dict[str, list[tuple[str, str, str | None]]]  # account -> (order, status, reason), as given
    messages: dict[str, list[str]]
    reports: dict[str, dict[str, Any]]
    seconds: dict[str, float]  # the timed steps


def timed(fn: Callable[..., Any], clock: list[float]) -> Callable[..., Any]:
    def run(*args: Any) -> Any:
        start = time.process_time()
        try:
            return fn(*args)
        finally:
            clock[0] += time.process_time() - start
    return run


def generated_day(spec: RulesetSpec, module_file: str, start: dict[str, Any],
                  submissions: list[tuple[str, str]]) -> Day:
    phases, victory = [0.0], [0.0]
    # The spec's own functions, each timed where the engine calls it: what runs between them is the engine's.
    clocked = dataclasses.replace(
        spec,
        phases=tuple(dataclasses.replace(ph, run=timed(ph.run, phases)) for ph in spec.phases),
        victories=tuple(dataclasses.replace(v, when=timed(v.when, victory),
                                            warn=timed(v.warn, victory) if v.warn else None)
                        for v in spec.victories))
    g = load(clocked, start, module_file)
    began = time.process_time()
    g.process_turn(submissions)
    turn = time.process_time() - began
    began = time.process_time()
    reports = write_reports(g)
    report_time = time.process_time() - began
    return Day(state=dump(g), news=g.news_items(),
               outcomes={p.account: [(r.text, r.status, r.reason) for r in g.turns[p._key].used]
                         for p in g.all_players},
               messages={p.account: list(g.turns[p._key].messages) for p in g.all_players if g.turns[p._key].messages},
               reports=reports,
               seconds={"phases": phases[0], "victory": victory[0], "reports": report_time,
                        "bookkeeping": turn - phases[0] - victory[0]})


def write_reports(g: Game) -> dict[str, dict[str, Any]]:
    """Every player's own report fields, as runtime.report.report_data gets them, under one window in which
    nothing changes (runtime.core.unchanging), as the game folder writes its reports."""
    unchanging = getattr(sys.modules["rulesdsl.runtime.core"], "unchanging", None)
    if unchanging is None:  # a runtime without the window
        return {p.account: to_data(g.spec.report(g, p)) for p in g.all_players}
    with unchanging(g):
        return {p.account: to_data(g.spec.report(g, p)) for p in g.all_players}


def batches(players: list[ref.Player], orders: list[list[str]], by_code: dict[str, ref.Country],
            turn: int) -> tuple[dict[str, list[ref.Order]], list[list[ref.Order]]]:
    """The day's orders of each kind in the engine's order (round robin; who goes first moves one place a day),
    and each player's orders as given."""
    kinds = {"A": "arms", "B": "bribe", "C": "conquer", "D": "defend", "G": "guard", "I": "invest", "K": "kill",
             "L": "liquidate", "M": "message", "R": "revolution", "S": "spy", "T": "terrorism", "W": "withdraw",
             "X": "transfer"}
    given = []
    for p, lines in zip(players, orders, strict=True):
        mine = []
        for text in lines:
            letter, *args = text.split(",")
            o = ref.Order(kinds[letter], p, text, by_code[args[0]])
            if len(args) == 3:
                o.target, o.amount = by_code[args[1]], int(args[2])
            elif len(args) == 2:
                o.amount = int(args[1])
            mine.append(o)
        given.append(mine)
    start = (turn - 1) % len(players)
    rotated = given[start:] + given[:start]
    out: dict[str, list[ref.Order]] = {}
    for kind in kinds.values():
        lists = [[o for o in mine if o.kind == kind] for mine in rotated]
        for rnd in range(max(len(x) for x in lists)):
            out.setdefault(kind, []).extend(x[rnd] for x in lists if rnd < len(x))
    return out, given


def reference_day(start: dict[str, Any], orders: list[list[str]]) -> Day:
    game = ref.Covert(start)
    game.start_day()
    todo, given = batches(game.players, orders, game.by_code, game.turn)
    began = time.process_time()
    game.dawn()
    game.day(todo)
    phases = time.process_time() - began
    game.end_day()
    began = time.process_time()
    game.victory()
    victory = time.process_time() - began
    began = time.process_time()
    reports = game.reports()
    report_time = time.process_time() - began
    return Day(state=game.dump(), news=game.news,
               outcomes={p.account: [(o.text, o.status, o.reason) for o in mine]
                         for p, mine in zip(game.players, given, strict=True)},
               messages=game.tells, reports=reports,
               seconds={"phases": phases, "victory": victory, "reports": report_time, "bookkeeping": 0.0})


def same(a: Day, b: Day, players: int) -> None:
    for what in ("state", "news", "outcomes", "messages", "reports"):
        x, y = getattr(a, what), getattr(b, what)
        if x != y:
            raise SystemExit(f"{players} players: the generated engine and the reference differ in {what}:\n"
                             f"{first_difference(x, y)}")


def first_difference(x: Any, y: Any, path: str = "$") -> str:
    if isinstance(x, dict) and isinstance(y, dict):
        for k in [*x, *(k for k in y if k not in x)]:
            if x.get(k) != y.get(k):
                return first_difference(x.get(k), y.get(k), f"{path}.{k}")
    if isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
        for i, (u, v) in enumerate(zip(x, y, strict=True)):
            if u != v:
                return first_difference(u, v, f"{path}[{i}]")
    return f"{path}: generated {x!r}, reference {y!r}"


def measure(spec: RulesetSpec, module_file: str, players: int, runs: int) -> dict[str, dict[str, float]]:
    data, orders = scenario(spec, players)
    start = dump(new_game(spec, data))
    submissions = mail(data, orders)
    same(generated_day(spec, module_file, start, submissions), reference_day(start, orders), players)
    gen: list[dict[str, float]] = []
    hand: list[dict[str, float]] = []
    for _ in range(runs):
        gen.append(generated_day(spec, module_file, start, submissions).seconds)
        hand.append(reference_day(start, orders).seconds)
    steps = ("phases", "victory", "reports", "bookkeeping")
    return {"generated": {s: statistics.median(r[s] for r in gen) for s in steps},
            "reference": {s: statistics.median(r[s] for r in hand) for s in steps}}


# ---------------------------------------------------------------- `rulesdsl turn`, a whole process
def cli_turn_cpu(trees: list[Path], runs: int, players: int = 20) -> list[float]:
    """Median CPU seconds (user + system) of `python -m rulesdsl turn` in each tree, for a new `players`-player
    game and the bench's orders, with that tree's compile cache warm; the trees take turns, run by run, so that
    other work on the machine falls on each alike."""
    with tempfile.TemporaryDirectory(prefix="bench-engine-cli-") as tmpdir:
        tmp = Path(tmpdir)
        spec = load_module(RULES, tmp / "spec-cache")[1]
        data, orders = scenario(spec, players)
        (tmp / "scenario.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        files = []
        for name, text in mail(data, orders):
            (tmp / name).write_text(text, encoding="utf-8")
            files.append(str(tmp / name))

        def rulesdsl(tree: int, *args: str) -> float:
            env = dict(os.environ, PYTHONPATH=str(trees[tree]), RULESDSL_CACHE=str(tmp / f"cache-{tree}"))
            env.pop("RULESDSL_CHECK_REPORTS", None)
            # Each tree as a GM runs it, with byte code cached: without it every run compiles rulesdsl again.
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            # stderr (a tree's progress lines, as on a pipe) is shown only if the run fails.
            done = subprocess.run([sys.executable, "-m", "rulesdsl", *args], env=env, cwd=tmp,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if done.returncode:
                sys.exit(f"rulesdsl {' '.join(args)} in {trees[tree]}: exit status {done.returncode}\n{done.stderr}")
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

        for t, tree in enumerate(trees):
            rulesdsl(t, "new", str(tree / "rulesets" / "covert.rules"), str(tmp / f"template-{t}"), "--scenario",
                     str(tmp / "scenario.yaml"))
        times: list[list[float]] = [[] for _ in trees]
        for i in range(runs + 1):  # the first fills what the caches still lack (byte code, templates)
            for t in range(len(trees)):
                game = tmp / f"game-{t}-{i}"
                shutil.copytree(tmp / f"template-{t}", game)
                times[t].append(rulesdsl(t, "turn", str(game), *files))
        return [statistics.median(mine[1:]) for mine in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[20, 200])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cli", type=Path, nargs="*", metavar="TREE",
                        help="also time `rulesdsl turn` of 20 players in CPU time, here and in each TREE")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-engine-") as tmpdir:
        module, spec = load_module(RULES, Path(tmpdir))
        results = {n: measure(spec, str(module.__file__), n, args.runs) for n in args.players}

    print(f"Covert, one day: the generated engine against hand-written Python (median of {args.runs}; "
          "outcomes checked equal)")
    print(f"Python {platform.python_version()} ({platform.python_implementation()}) on {platform.machine()}")
    head = f"{'players':>7}  {'step':<12} {'generated':>11} {'hand-written':>13} {'ratio':>6}"
    print(head + "\n" + "-" * len(head))
    total: dict[int, tuple[float, float]] = {}
    for n, r in results.items():
        for step in ("phases", "victory", "reports"):
            g, h = r["generated"][step], r["reference"][step]
            print(f"{n:>7}  {step:<12} {g * 1000:8.2f} ms {h * 1000:10.2f} ms {g / h:6.2f}")
        g = sum(r["generated"][s] for s in ("phases", "victory", "reports"))
        h = sum(r["reference"][s] for s in ("phases", "victory", "reports"))
        total[n] = (g, h)
        print(f"{n:>7}  {'all steps':<12} {g * 1000:8.2f} ms {h * 1000:10.2f} ms {g / h:6.2f}"
              f"   (target <= {RATIO_TARGET})")
        print(f"{n:>7}  {'(engine)':<12} {r['generated']['bookkeeping'] * 1000:8.2f} ms"
              "   reading mail, choosing orders, resets: not compared")
    if len(total) >= 2:
        (n0, (g0, h0)), (n1, (g1, h1)) = sorted(total.items())[0], sorted(total.items())[-1]
        print(f"growth {n0} -> {n1} players ({n1 / n0:g}x): generated {g1 / g0:.1f}x, hand-written {h1 / h0:.1f}x"
              f"   (target <= {GROWTH_TARGET * n1 / n0 / 10:g}x)")
    if args.cli is not None:
        trees = [ROOT, *(tree.resolve() for tree in args.cli)]
        print(f"\n`rulesdsl turn`, 20 players, CPU time (user + system), median of {args.runs}:")
        cpu = cli_turn_cpu(trees, args.runs)
        for tree, seconds in zip(trees, cpu, strict=True):
            print(f"  {tree}: {seconds * 1000:.0f} ms ({seconds / cpu[0]:.2f}x this checkout's)")


if __name__ == "__main__":
    main()
