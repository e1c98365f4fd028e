"""A 320 x 99 grid ruleset -> times of `rulesdsl check`, the module's size, a new game, and state save and load.

Run: python benchmarks/bench_gridstate.py
     python benchmarks/bench_gridstate.py --runs 5 --players 100 --owned 3000

The ruleset is tests/unit/data/grid/tiny.rules with its grid made 320 x 99 (`numbered "CCCRR"`, east-west
wrap, a drawn terrain field, a sparse owner field, a set field reset each turn); the same ruleset at 6 x 5 is
checked too, to show that nothing grows with the map. Timed (CPU time of this process, median of --runs):
- check: check_path of the .rules file (parse, checker, schemas; no code generated), at 6 x 5 and 320 x 99;
- module: the length of the generated module at both sizes;
- new: state.new_game from a scenario whose terrain is drawn (99 lines of 320 symbols, seeded) and which
  gives --owned sectors an owner among --players players: the 31,680 sectors built and the layers read;
- save: state.dump then the YAML text (yamlio.dump_text), as a turn writes state.yaml;
- load: the YAML text read (yamlio.load_text), checked against the ruleset's state schema (schemafit.fits,
  as GameFolder.load_game does) and state.load: the game back, every sector built again.

Figures on this machine (2 cores, Python 3.11, --runs 3), at the commit adding this script:
  check 6 x 5 0.013 s, 320 x 99 0.012 s; module 6 x 5 12,463 chars, 320 x 99 12,477 chars (the two sizes' digits);
  100 players, 3,000 owned sectors: new 0.086 s; save 0.019 s (dump 0.005 s, YAML 0.015 s; 4,034 lines, 94 kB);
    load 0.117 s (YAML 0.020 s, schema 0.004 s, state.load 0.093 s);
  100 players, 20,000 owned sectors: new 0.124 s; save 0.114 s (20,934 lines, 374 kB); load 0.314 s.
Building the 31,680 sectors is most of state.load: a third of it grid.Grid's neighbour tables, the rest one
Thing per sector and one pass per field.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rulesdsl.compiler import check_path, compile_path, load_module
from rulesdsl.game.schemafit import fits
from rulesdsl.game.yamlio import dump_text, load_text
from rulesdsl.runtime.state import dump, load, new_game

DATA = Path(__file__).resolve().parents[1] / "tests" / "unit" / "data" / "grid"
WIDTH, HEIGHT = 320, 99


def timed(fn: Callable[[], object], runs: int) -> float:
    times: list[float] = []
    for _ in range(runs):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return statistics.median(times)


def ruleset(folder: Path, big: bool) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(DATA / "tiny.report.j2", folder / "tiny.report.j2")
    text = (DATA / "tiny.rules").read_text(encoding="utf-8")
    if big:
        text = text.replace("size map_width by 5", f"size {WIDTH} by {HEIGHT}").replace(
            'numbered "CCRR"', 'numbered "CCCRR"')
    path = folder / "tiny.rules"
    path.write_text(text, encoding="utf-8")
    return path


def scenario(rng: random.Random, players: int, owned: int) -> dict[str, Any]:
    rows = ["~" * WIDTH]
    for _ in range(HEIGHT - 2):
        rows.append("~" + "".join(rng.choice("...^~") for _ in range(WIDTH - 2)) + "~")
    rows.append("~" * WIDTH)
    accounts = [f"p{i}" for i in range(players)]
    sectors = rng.sample([f"{c:03d}{r:02d}" for r in range(HEIGHT) for c in range(WIDTH)], owned)
    return {
        "seed": 1,
        "players": [{"name": f"Player {a}", "account": a, "code": "X"} for a in accounts],
        "Sector": {"terrain": "".join(r + "\n" for r in rows),
                   "owner": {s: rng.choice(accounts) for s in sectors}},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--players", type=int, default=100)
    ap.add_argument("--owned", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        small, big = ruleset(Path(tmp) / "small", False), ruleset(Path(tmp) / "big", True)
        check_small = timed(lambda: check_path(small), args.runs)
        check_big = timed(lambda: check_path(big), args.runs)
        module_small, module_big = len(compile_path(small)), len(compile_path(big))
        _, spec = load_module(big, Path(tmp) / "cache")
        data = scenario(random.Random(args.seed), args.players, args.owned)
        new = timed(lambda: new_game(spec, data), args.runs)
        g = new_game(spec, data)
        state = dump(g)
        dumped = timed(lambda: dump(g), args.runs)
        text = dump_text(state)
        yaml_out = timed(lambda: dump_text(state), args.runs)
        yaml_in = timed(lambda: load_text(text), args.runs)
        read = load_text(text)
        world = {k: v for k, v in read.items() if k in spec.state_schema["properties"]}
        assert fits(world, spec.state_schema)
        schema = timed(lambda: fits(world, spec.state_schema), args.runs)
        loaded = timed(lambda: load(spec, read), args.runs)
        assert dump(load(spec, read)) == state
    print(f"check 6 x 5 {check_small:.3f} s, {WIDTH} x {HEIGHT} {check_big:.3f} s; "
          f"module 6 x 5 {module_small:,} chars, {WIDTH} x {HEIGHT} {module_big:,} chars")
    print(f"new {new:.3f} s; save {dumped + yaml_out:.3f} s (dump {dumped:.3f} s, YAML {yaml_out:.3f} s; "
          f"{text.count(chr(10)):,} lines, {len(text) // 1000:,} kB); load {yaml_in + schema + loaded:.3f} s "
          f"(YAML {yaml_in:.3f} s, schema {schema:.3f} s, state.load {loaded:.3f} s)")


if __name__ == "__main__":
    main()
