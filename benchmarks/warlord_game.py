"""A number of players -> Warlord's benchmark game (generated world, those players) and random orders for it.

The one way the benchmarks make it: bench_warlord, bench_trace, bench_shown, bench_html and bench_intake time
different parts of the same 100-player game, so their figures are of one game.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from rulesdsl.game.folder import GameFolder

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "rulesets" / "warlord.rules"


def new_game(base: Path, players: int, seed: int) -> GameFolder:
    """A new Warlord game in `base`/game: `players` players (Player 1, account "1", code C1, ...) and `seed`."""
    scenario = base / "scenario.yaml"
    people = [{"name": f"Player {i}", "account": str(i), "code": f"C{i}"} for i in range(1, players + 1)]
    scenario.write_text(yaml.safe_dump({"game": {"number": 1}, "seed": seed, "players": people}), encoding="utf-8")
    return GameFolder.create(RULES, base / "game", scenario, None)


def divisions(state_path: Path) -> dict[str, list[int]]:
    """Each player's divisions (their numbers) in a state file, by account."""
    state = yaml.safe_load(state_path.read_text(encoding="utf-8"))
    division = state["Division"]
    out: dict[str, list[int]] = {}
    for row in division["rows"]:
        rec = dict(zip(division["columns"], row, strict=True))
        out.setdefault(str(rec["owner"]), []).append(int(rec["number"]))
    return out


def random_moves(state_path: Path, into: Path, turn: int, players: int, rng: random.Random) -> list[Path]:
    """Each player's mail for `turn`, written in `into`: every division of the state moved in a random direction,
    and on turn 1 three infantry built in the home city."""
    owned = divisions(state_path)
    mail = []
    for i in range(1, players + 1):
        lines = ["WL-1", f"{i} C{i}", *(f"A {n} {rng.randint(1, 8)}" for n in owned.get(str(i), []))]
        if turn == 1:
            lines += [f"C {i} 1"] * 3
        path = into / f"mail-{turn}-{i}.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        mail.append(path)
    return mail


def best(repeat: int, fn: Callable[[], Any]) -> float:
    """The shortest of `repeat` runs of `fn`, in seconds of wall time."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)
