"""Warlord's 100-player game -> what showing progress costs a turn: the same turn (no orders, all positions
silent) with no progress (game/progress.NULL, the library's default), the plain lines, and rich's bar (on a
forced terminal written to /dev/null), taking turns run by run; and the import of rich, paid only when a bar
is shown.

Run: python benchmarks/bench_progress.py
     python benchmarks/bench_progress.py --players 100 --runs 5

For each mode: the turn's wall and CPU seconds (median of --runs), each run from a fresh copy of the same
starting game folder. The bar's refresh thread wakes 10 times a second; the lines cost a clock read per
stage; the turn tells its stages about 130 times (a phase, a report).

Figures on this machine (2 cores, Python 3.11, other work running), 100 players, seed 1, median of 5:
  none   1.012 s wall, 1.011 s CPU
  lines  1.002 s wall, 0.991 s CPU
  bar    1.040 s wall, 1.027 s CPU
  import rich.progress: 0.022 s (byte code cached); `python -X importtime -m rulesdsl turn ... --progress bar`
  shows rich.console 13 ms and rich.progress 11 ms; with lines or none rich is never imported.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TextIO

import yaml

from rulesdsl.game.folder import GameFolder
from rulesdsl.game.progress import NULL, BarProgress, LineProgress, Progress

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "rulesets" / "warlord.rules"
MODES = ("none", "lines", "bar")


def progress(mode: str, sink: TextIO) -> Progress:
    if mode == "none":
        return NULL
    if mode == "lines":
        return LineProgress(sink)
    from rich.console import Console

    return BarProgress(Console(file=sink, force_terminal=True, width=100))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=100)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, open(os.devnull, "w") as sink:
        base = Path(tmp)
        scenario = base / "scenario.yaml"
        players = [{"name": f"Player {i}", "account": str(i), "code": f"C{i}"} for i in range(1, args.players + 1)]
        scenario.write_text(yaml.safe_dump({"game": {"number": 1}, "seed": args.seed, "players": players}),
                            encoding="utf-8")
        GameFolder.create(RULES, base / "start", scenario, None)
        times: dict[str, list[tuple[float, float]]] = {m: [] for m in MODES}
        for run in range(args.runs):
            for mode in MODES:
                game = base / f"{mode}-{run}"
                shutil.copytree(base / "start", game)
                shown = progress(mode, sink)
                wall, cpu = time.perf_counter(), time.process_time()
                GameFolder(game).process_turn([], force=True, progress=shown)
                shown.done()
                times[mode].append((time.perf_counter() - wall, time.process_time() - cpu))
                shutil.rmtree(game)
    print(f"Warlord, {args.players} players, a turn with no orders, median of {args.runs}:")
    for mode in MODES:
        wall = statistics.median(w for w, _ in times[mode])
        cpu = statistics.median(c for _, c in times[mode])
        print(f"  {mode:6s} {wall:.3f} s wall, {cpu:.3f} s CPU")
    took = subprocess.run([sys.executable, "-c", "import time; t = time.perf_counter(); import rich.progress; "
                           "print(f'{time.perf_counter() - t:.3f}')"], capture_output=True, text=True, check=True)
    print(f"import rich.progress (a bar's first cost, in a fresh process): {took.stdout.strip()} s")


if __name__ == "__main__":
    main()
