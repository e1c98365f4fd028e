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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_warlord import add_divisions
from warlord_game import best, new_game, random_moves

from rulesdsl.compiler import load_template
from rulesdsl.review.shown import line_sources
from rulesdsl.runtime.report import render


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
        folder = new_game(base, args.players, args.seed)
        if args.divisions:
            add_divisions(folder.turns_dir / "turn-000" / "state.yaml", args.divisions)
        for turn in range(1, args.turns + 1):
            state = folder.turns_dir / f"turn-{turn - 1:03d}" / "state.yaml"
            folder.process_turn(random_moves(state, base, turn, args.players, rng))
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
        t_shown = best(args.repeat, lambda: line_sources(template, data))
        t_plain = best(args.repeat, lambda: render(spec, data, template))
        print(f"largest report {largest.name}: {len(text) / 1e3:.1f} kB, {len(shown.lines)} lines, {paths} paths")
        print(f"  line_sources {t_shown * 1e3:.1f} ms, plain render {t_plain * 1e3:.1f} ms (best of {args.repeat})")
        t = time.perf_counter()
        for p in reports:
            assert line_sources(template, datas[p]) is not None
        print(f"all {len(reports)} reports of turn {args.turns}: {time.perf_counter() - t:.2f} s")


if __name__ == "__main__":
    main()
