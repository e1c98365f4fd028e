"""Covert Operations: compile time, import time, and one 20-player turn. Run: python benchmarks/bench_covert.py"""

from __future__ import annotations

import importlib.util
import itertools
import platform
import shutil
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rulesdsl.compiler import compile_path  # noqa: E402
from rulesdsl.game.folder import GameFolder  # noqa: E402
from rulesdsl.runtime.report import render, report_data, validate_report  # noqa: E402
from rulesdsl.runtime.spec import RulesetSpec  # noqa: E402

RULES = ROOT / "rulesets" / "covert.rules"
PLAYERS, RUNS, GAME_NUMBER = 20, 7, 42
MIN_NEIGHBOURS = 2  # a C and a D order go from a home country to two different neighbours


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def peak_mib(fn: Callable[[], Any]) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def import_once(path: Path, name: str) -> RulesetSpec:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ruleset: RulesetSpec = module.RULESET
    return ruleset


def build_game(tmp: Path, spec: RulesetSpec) -> tuple[Path, list[Path]]:
    """A new 20-player game (template folder, compiled cache warm) and each player's order file."""
    (country,) = spec.things
    adjacency = {key: values.get("adjacent", []) for key, values in country.instances}
    homes = [k for k, near in adjacency.items() if len(near) >= MIN_NEIGHBOURS][:PLAYERS]
    spare = [k for k in adjacency if k not in homes]
    players = [{"name": f"Agency {i:02d}", "account": str(5000 + i), "code": f"CODE{i:02d}",
                "email": f"agency{i}@example.org", "cash": 100} for i in range(PLAYERS)]
    scenario = {"game": {"number": GAME_NUMBER}, "seed": 1, "players": players,
                "Country": {c: {"influence": {p["account"]: 20}} for c, p in zip(homes, players, strict=True)}}
    (tmp / "scenario.yaml").write_text(yaml.safe_dump(scenario, sort_keys=False), encoding="utf-8")
    template = tmp / "template"
    GameFolder.create(RULES, template, tmp / "scenario.yaml", None).load_spec()  # fills template/.cache
    files = []
    for i, (home, p) in enumerate(zip(homes, players, strict=True)):
        near, other = adjacency[home], homes[(i + 1) % PLAYERS]
        orders = [f"A,{home},2", f"B,{spare[i % len(spare)]},5", f"G,{home},2", f"S,{other},3", f"I,{home}",
                  f"T,{spare[(i + 3) % len(spare)]},2", f"K,{spare[(i + 5) % len(spare)]},3",
                  f"C,{home},{near[0]},1", f"D,{home},{near[1]},1", f"B,{spare[(i + 7) % len(spare)]},4"]
        path = tmp / "orders" / f"{p['account']}.txt"
        path.parent.mkdir(exist_ok=True)
        path.write_text("\n".join([f"CO-{GAME_NUMBER}", p["account"], p["code"], *orders]) + "\n", encoding="utf-8")
        files.append(path)
    return template, files


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-covert-") as tmpdir:
        tmp = Path(tmpdir)
        compile_cold = timed(lambda: compile_path(RULES))
        compile_runs = [timed(lambda: compile_path(RULES)) for _ in range(RUNS)]
        text = compile_path(RULES)
        mod_path = tmp / "covert_generated.py"
        mod_path.write_text(text, encoding="utf-8")
        import_cold = timed(lambda: import_once(mod_path, "bench_covert_import_0"))
        import_runs = [timed(lambda i=i: import_once(mod_path, f"bench_covert_import_{i + 1}")) for i in range(RUNS)]

        template, files = build_game(tmp, import_once(mod_path, "bench_covert_setup"))
        submissions = [(f.name, f.read_text(encoding="utf-8")) for f in files]
        copies = itertools.count()

        def fresh() -> GameFolder:
            root = tmp / f"game-{next(copies)}"
            shutil.copytree(template, root)
            return GameFolder(root)

        folder_runs = []
        for _ in range(RUNS):
            folder = fresh()
            folder_runs.append(timed(lambda folder=folder: folder.process_turn(files)))
        engine_runs, report_runs = [], []
        game: Any = None
        for _ in range(RUNS):
            game = fresh().load_game()
            engine_runs.append(timed(lambda game=game: game.process_turn(submissions)))

            def reports(g: Any = game) -> None:
                for p in g.all_players:
                    data = report_data(g, p)
                    validate_report(g.spec, data)
                    render(g.spec, data)

            report_runs.append(timed(reports))
        used = [r for t in game.turns.values() for r in t.used]
        done = sum(r.status == "done" for r in used)
        refused = sum(len(t.refused) for t in game.turns.values())
        compile_peak = peak_mib(lambda: compile_path(RULES))
        last = fresh()
        turn_peak = peak_mib(lambda: last.process_turn(files))

    med = statistics.median
    rows = [
        ("compile covert.rules -> module text, first call", compile_cold * 1000, "ms"),
        (f"compile covert.rules -> module text, median of {RUNS}", med(compile_runs) * 1000, "ms"),
        ("import generated module, first (byte-compiles)", import_cold * 1000, "ms"),
        (f"import generated module, median of {RUNS}", med(import_runs) * 1000, "ms"),
        (f"turn: GameFolder.process_turn, first of {RUNS}", folder_runs[0] * 1000, "ms"),
        (f"turn: GameFolder.process_turn, median of {RUNS}", med(folder_runs) * 1000, "ms"),
        (f"turn: Game.process_turn only, median of {RUNS}", med(engine_runs) * 1000, "ms"),
        (f"turn: {PLAYERS} reports (data, schema, text), median", med(report_runs) * 1000, "ms"),
        ("peak traced memory, compile", compile_peak, "MiB"),
        ("peak traced memory, GameFolder.process_turn", turn_peak, "MiB"),
    ]
    print(f"Covert Operations benchmark: {PLAYERS} players, {len(used) + refused} orders "
          f"({done} done, {len(used) - done} failed, {refused} refused)")
    print(f"Python {platform.python_version()} ({platform.python_implementation()}) on {platform.machine()}, "
          f"{platform.system()} {platform.release()}")
    width = max(len(name) for name, _, _ in rows)
    print(f"{'measure':<{width}}  {'value':>13}\n{'-' * width}  {'-' * 13}")
    for name, value, unit in rows:
        print(f"{name:<{width}}  {value:9.1f} {unit}")

if __name__ == "__main__":
    main()
