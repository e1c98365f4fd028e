"""A Warlord game of 100 players (bench_warlord.py's) -> the time of review.shown.line_sources on its reports,
beside a plain render of the same data.

Run: python benchmarks/bench_shown.py
     python benchmarks/bench_shown.py --divisions 5000 --turns 2 --repeat 5

The game is bench_warlord.py's: a generated 320 x 99 world, --players players, --divisions divisions in all
(0: the starting 750), --turns turns of A orders in random directions from every player (and on turn 1
infantry built in each home city). Then, for the last turn's reports: the largest (by its text), timed
--repeat times (best shown) with line_sources and with the plain render (runtime.report.render, what a turn
does); and all of them once, in all.

Figures on this machine (2 cores, Python 3.11, other work running), 100 players, seed 1:
  `--turns 1`:                     largest report 4.5 kB, 153 lines, 226 paths: line_sources 1.1 ms,
                                   plain render 0.2 ms; all 100 reports 0.11 s
  `--divisions 5000 --turns 2`:    12.3 kB, 280 lines, 728 paths: 3.0 ms, plain 0.6 ms; all 100 0.29 s
  `--divisions 20000 --turns 2`:   40.3 kB, 736 lines, 2,535 paths: 8.4 ms, plain 1.7 ms; all 100 1.54 s
line_sources renders twice (plainly, to compare, and with the proxies): about five times a plain render. A
turn never calls it; explain does, for one report.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_warlord import RULES, add_divisions

from rulesdsl.compiler import load_template
from rulesdsl.game.folder import GameFolder
from rulesdsl.review.shown import line_sources
from rulesdsl.runtime.report import render


def best(f: object, repeat: int) -> float:
    assert callable(f)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=100)
    ap.add_argument("--turns", type=int, default=1)
    ap.add_argument("--divisions", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        scenario = base / "scenario.yaml"
        players = [{"name": f"Player {i}", "account": str(i), "code": f"C{i}"} for i in range(1, args.players + 1)]
        scenario.write_text(yaml.safe_dump({"game": {"number": 1}, "seed": args.seed, "players": players}),
                            encoding="utf-8")
        folder = GameFolder.create(RULES, base / "game", scenario, None)
        if args.divisions:
            add_divisions(folder.turns_dir / "turn-000" / "state.yaml", args.divisions)
        for turn in range(1, args.turns + 1):
            state = yaml.safe_load((folder.turns_dir / f"turn-{turn - 1:03d}" / "state.yaml").read_text())
            division = state["Division"]
            units: dict[str, list[int]] = {}
            for row in division["rows"]:
                rec = dict(zip(division["columns"], row, strict=True))
                units.setdefault(str(rec["owner"]), []).append(int(rec["number"]))
            mail = []
            for i in range(1, args.players + 1):
                lines = ["WL-1", f"{i} C{i}"] + [f"A {n} {rng.randint(1, 8)}" for n in units.get(str(i), [])]
                if turn == 1:
                    lines += [f"C {i} 1"] * 3
                path = base / f"mail-{turn}-{i}.txt"
                path.write_text("\n".join(lines) + "\n", encoding="utf-8")
                mail.append(path)
            folder.process_turn(mail)
        spec, _ = folder.load_spec()
        template = load_template(spec)
        reports = sorted((folder.turns_dir / f"turn-{args.turns:03d}" / "reports").glob("*.json"))
        datas = {p: json.loads(p.read_text(encoding="utf-8")) for p in reports}
        largest = max(reports, key=lambda p: p.with_suffix(".txt").stat().st_size)
        data = datas[largest]
        text = largest.with_suffix(".txt").read_text(encoding="utf-8")
        shown = line_sources(template, data)
        assert shown is not None and shown.text == text
        paths = sum(len(p) for p in shown.lines)
        t_shown = best(lambda: line_sources(template, data), args.repeat)
        t_plain = best(lambda: render(spec, data, template), args.repeat)
        print(f"largest report {largest.name}: {len(text) / 1e3:.1f} kB, {len(shown.lines)} lines, {paths} paths")
        print(f"  line_sources {t_shown * 1e3:.1f} ms, plain render {t_plain * 1e3:.1f} ms (best of {args.repeat})")
        t = time.perf_counter()
        for p in reports:
            assert line_sources(template, datas[p]) is not None
        print(f"all {len(reports)} reports of turn {args.turns}: {time.perf_counter() - t:.2f} s")


if __name__ == "__main__":
    main()
