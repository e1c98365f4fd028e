"""Same rules, scenario, orders and seed give byte-identical files, even across processes whose
Python hash seeds differ (so no set or dict order can leak into an output)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "covert"


def play(tmp: Path, hash_seed: str) -> dict[str, bytes]:
    game = tmp / f"game-{hash_seed}"
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "RULESDSL_CACHE": str(tmp / f"cache-{hash_seed}")}

    def run(*args: str) -> None:
        subprocess.run([sys.executable, "-m", "rulesdsl", *args], check=True, env=env, cwd=ROOT,
                       stdout=subprocess.DEVNULL)

    run("new", str(ROOT / "rulesets" / "covert.rules"), str(game), "--scenario", str(EXAMPLE / "scenario.yaml"))
    for day in (1, 2):
        run("turn", str(game), *sorted(str(p) for p in (EXAMPLE / f"day{day}").glob("*.txt")))
    return {p.relative_to(game).as_posix(): p.read_bytes() for p in sorted(game.rglob("*")) if p.is_file()}


def test_two_processes_with_different_hash_seeds_write_the_same_bytes(tmp_path: Path) -> None:
    a = play(tmp_path, "1")
    b = play(tmp_path, "4242")
    assert len(a) > 20
    assert a.keys() == b.keys()
    assert [k for k in a if a[k] != b[k]] == []
