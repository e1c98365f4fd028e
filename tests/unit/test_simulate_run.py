"""rulesdsl/simulate/run.py: a run's jobs -> the same Stats whether played here, in a process pool or on a Dask
LocalCluster; progress told of each game; the scenario checked before any game starts.

The games here are fake ones (`fake_play`, a module-level function so that workers can import it), whose
results come from the job alone and take unequal times, so that games finish out of order."""

from __future__ import annotations

import io
import random
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from rulesdsl.diagnostics import CompileError
from rulesdsl.game.errors import GameError
from rulesdsl.game.progress import BarProgress
from rulesdsl.simulate import run as runner
from rulesdsl.simulate.play import game_seed
from rulesdsl.simulate.results import CRASH, LEAK, NO_REASON, GameJob, GameResult, Problem
from rulesdsl.simulate.run import Setup, make_jobs, prepare, run

ROOT = Path(__file__).resolve().parents[2]
SEATS = ("Ann", "Bob", "Cyd")


def fake_play(job: GameJob) -> GameResult:
    rng = random.Random(f"{job.seed}/{job.index}")
    # Later games are quicker: in a pool, they finish before earlier ones.
    time.sleep(0.001 * ((60 - job.index) % 7))
    turns = rng.randint(1, job.turns)
    ended = rng.random() < 0.7
    winners = tuple(sorted(rng.sample(range(3), rng.choice([1, 1, 2])))) if ended else ()
    problems = [Problem(rng.choice([CRASH, NO_REASON, LEAK]), job.index, rng.randint(0, turns), f"what {job.index}")
                for _ in range(rng.choice([0, 0, 1, 2]))]
    return GameResult(job.index, rng.getrandbits(32), turns, ended, winners, 3,
                      {"move": turns * 3, "buy": rng.randint(0, 9)}, {"move": turns, "buy": rng.randint(0, 3)},
                      {f"reason {rng.randint(0, 30)}": 1, "no money: # needed": turns}, problems)


def failing_play(job: GameJob) -> GameResult:
    if job.index == 5:
        raise ValueError("the simulator's own bug")
    return fake_play(job)


def _jobs(games: int = 60, seed: int = 7) -> list[GameJob]:
    return [GameJob("x.rules", {"players": []}, 12, index, seed * 1000 + index) for index in range(games)]


def test_each_job_has_its_game_seed() -> None:
    jobs = make_jobs(Setup("x.rules", "X", {"players": []}, SEATS), 3, 12, 7)
    assert [(j.index, j.seed, j.turns, j.rules) for j in jobs] == [(i, game_seed(7, i), 12, "x.rules")
                                                                   for i in range(3)]
    assert len({j.seed for j in jobs}) == 3


def test_serial_pool_and_dask_give_the_same_stats() -> None:
    jobs = _jobs()
    serial = run(jobs, SEATS, workers=1, play=fake_play)
    assert serial.games == 60 and serial.problem_count > 20  # enough problems that their order shows
    assert [p.game for p, _ in serial.problems] == sorted(p.game for p, _ in serial.problems)
    pooled = run(jobs, SEATS, workers=2, play=fake_play)
    on_dask = run(jobs, SEATS, workers=2, dask="local", play=fake_play)
    assert pooled == serial and on_dask == serial
    assert pooled.text("h") == serial.text("h") == on_dask.text("h")
    # Another seed plays other games.
    assert run(_jobs(seed=8), SEATS, workers=1, play=fake_play) != serial


def test_a_cluster_by_its_address() -> None:
    from distributed import LocalCluster

    jobs = _jobs(20)
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0") as cluster:
        on_dask = run(jobs, SEATS, dask=cluster.scheduler_address, play=fake_play)
    assert on_dask == run(jobs, SEATS, workers=1, play=fake_play) and on_dask.games == 20


def test_a_failing_game_stops_the_pool_run() -> None:
    with pytest.raises(ValueError, match="the simulator's own bug"):
        run(_jobs(30), SEATS, workers=2, play=failing_play)


class Recorder:
    def __init__(self) -> None:
        self.told: list[tuple[str, int | None]] = []

    def stage(self, name: str, total: int | None = None) -> None:
        self.told.append((name, total))

    def advance(self, n: int = 1) -> None:
        self.told.append(("advance", n))

    def done(self) -> None:
        self.told.append(("done", None))


def test_progress_is_told_of_every_game() -> None:
    recorder = Recorder()
    run(_jobs(20), SEATS, workers=2, progress=recorder, play=fake_play)
    assert recorder.told[0] == ("games", 20) and recorder.told[-1] == ("done", None)
    steps = [n for what, n in recorder.told[1:-1]]
    assert all(what == "advance" for what, _ in recorder.told[1:-1]) and len(steps) > 1 and sum(steps) == 20


def test_the_bar_advances_on_a_terminal() -> None:
    out = io.StringIO()
    bar = BarProgress(Console(file=out, force_terminal=True, width=100))
    seen: list[str] = []
    advance = bar.advance

    def advance_and_look(n: int = 1) -> None:
        advance(n)
        bar.bar.refresh()
        seen.append(out.getvalue())

    bar.advance = advance_and_look  # type: ignore[method-assign]
    run(_jobs(24), SEATS, workers=1, progress=bar, play=fake_play)
    shown = [s for s in (f"{n}/24" for n in range(1, 25)) if any(s in text for text in seen)]
    assert len(shown) >= 3 and shown[-1] == "24/24" and "games" in seen[0]
    assert "done in" in out.getvalue()


def test_prepare_makes_up_players_when_the_rules_need_no_more() -> None:
    setup = prepare(ROOT / "rulesets" / "covert.rules", players=3)
    assert setup.seats == ("Player 1", "Player 2", "Player 3")
    assert setup.title == "Covert Operations" and "seed" not in setup.scenario


# Each player's home comes from the scenario: made-up players are not enough.
HOMES = """ruleset "Border Wars" { version "1" turn "month" }

thing Country keyed by code {
  name: text
}

data Country(code, name) {
  FRA: "France"
}

player {
  cash: money = 10
  home: Country from scenario
}

orders {
  header "{account}", "{code}"
  pay from cash
}

order recruit "R,{n}" {
  n: 1..5
  cost money(n)
  effect { }
}

phase recruiting: run recruit

report {
  cash = me.cash
  template "base.report.j2"
}
"""


def test_prepare_asks_for_a_scenario_when_players_are_not_enough(tmp_path: Path) -> None:
    (tmp_path / "homes.rules").write_text(HOMES)
    (tmp_path / "base.report.j2").write_text("{{ cash }}\n")
    with pytest.raises(GameError, match=r"needs more than made-up players: give a scenario with --scenario") as e:
        prepare(tmp_path / "homes.rules")
    assert str(e.value).endswith("the made-up scenario: $.players[3].home: missing: every scenario must set it")


def test_prepare_names_a_bad_scenario_by_its_json_path(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("players:\n  - {name: Ann, account: '1', code: A}\n  - {name: Bob, account: '1', code: B}\n")
    with pytest.raises(GameError, match=r"^bad.yaml: \$.players\[1\].account: account 1 is already player 1$"):
        prepare(ROOT / "rulesets" / "covert.rules", bad)
    bad.write_text("players:\n  - {name: Ann, account: '1', code: A}\nCountry: {XX: {}}\n")
    with pytest.raises(GameError, match=r"bad.yaml: \$.Country.XX"):
        prepare(ROOT / "rulesets" / "covert.rules", bad)
    with pytest.raises(GameError, match="not both"):
        prepare(ROOT / "rulesets" / "covert.rules", ROOT / "examples" / "covert" / "scenario.yaml", players=2)


def test_prepare_refuses_rules_that_do_not_check(tmp_path: Path) -> None:
    rules = tmp_path / "broken.rules"
    rules.write_text("ruleset \"Broken\"\nplayer { cash: money = nothing }\n")
    with pytest.raises(CompileError):
        prepare(rules)


def test_chunks_are_small_enough_to_share_out() -> None:
    recorder = Recorder()
    run(_jobs(100), SEATS, workers=2, progress=recorder, play=fake_play)
    steps = [n for what, n in recorder.told if what == "advance"]
    assert max(steps) <= runner.CHUNK and sum(steps) == 100
    assert replace(_jobs(1)[0], index=3).index == 3


def test_a_worker_ends_when_the_run_is_gone() -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    code = ("import sys, time\nfrom rulesdsl.simulate.run import watch_parent\n"
            f"watch_parent({dead.pid}, every=0.05)\ntime.sleep(20)\nsys.exit(0)\n")
    started = time.perf_counter()
    worker = subprocess.run([sys.executable, "-c", code], cwd=ROOT, timeout=15)
    assert worker.returncode == 1 and time.perf_counter() - started < 10
