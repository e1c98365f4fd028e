"""A ruleset, a scenario and a run's size -> the jobs of its games, played here, in a local process pool or on a
Dask cluster -> their Stats.

Every game's job is made here, from the run's seed and the game's index alone, and the results are added to
the Stats in the games' order whatever finishes first: so the same seed gives the same Stats, byte for byte,
whatever runs the games and on how many workers.
"""

from __future__ import annotations

import logging
import math
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rulesdsl.compiler import check_path, load_module
from rulesdsl.diagnostics import CompileError
from rulesdsl.game.errors import GameError
from rulesdsl.game.folder import check_players, check_scenario, read_scenario
from rulesdsl.game.progress import NULL, Progress
from rulesdsl.runtime.core import RulesError
from rulesdsl.runtime.state import StateError, new_game
from rulesdsl.simulate.play import game_seed
from rulesdsl.simulate.play import play as play_game
from rulesdsl.simulate.results import GameJob, GameResult
from rulesdsl.simulate.stats import Stats

PlayFn = Callable[[GameJob], GameResult]

CHUNK = 8  # at most this many games per task: fewer tasks to hand out, and still a bar that moves
LOCAL = "local"  # `--dask local`: a LocalCluster on this machine, started for the run


@dataclass(frozen=True)
class Setup:
    """A ruleset checked and compiled, and the scenario its games start from."""

    rules: str  # the `.rules` file as the user named it (the jobs name it so; no absolute path in any text)
    title: str  # the ruleset's title
    scenario: dict[str, Any]
    seats: tuple[str, ...]  # the players' names, in the scenario's order

    def heading(self, games: int, turns: int, seed: int) -> str:
        return (f"{self.title} ({Path(self.rules).name}): {games:,} games of up to {turns} turns, "
                f"{len(self.seats)} players, seed {seed}")


def generated_scenario(players: int) -> dict[str, Any]:
    """A scenario of `players` made-up players and nothing else: for a ruleset that needs no more."""
    return {"game": {"number": 1, "name": "Simulation"},
            "players": [{"name": f"Player {i}", "account": str(i), "code": f"CODE{i}",
                         "email": f"player{i}@example.org"} for i in range(1, players + 1)]}


def prepare(rules: Path, scenario: Path | None = None, players: int | None = None) -> Setup:
    """Checks the ruleset (CompileError with its diagnostics), compiles it once here so that every worker finds it
    in the disk cache, and reads and checks the scenario (GameError naming each fault's JSON path); without one,
    `players` made-up players, if the ruleset can start a game from those alone."""
    display = str(rules)
    if not rules.is_file():
        raise GameError(f"{display}: no such file")
    checked = check_path(rules, display)
    if not checked.ok:
        raise CompileError([d for d in checked.diagnostics if d.severity == "error"], checked.sources)
    module, spec = load_module(rules)
    if scenario is not None:
        if players is not None:
            raise GameError("--players makes up a scenario: give it or --scenario, not both")
        data, where = read_scenario(scenario), scenario.name
    else:
        data, where = generated_scenario(4 if players is None else players), "the made-up scenario"
        if players is not None and players < 1:
            raise GameError("--players: a game needs at least one player")
    check_players(data, where)
    try:
        check_scenario(spec, data, where)
        # One game made here says what is wrong with the scenario once, not once per game.
        new_game(spec, {**data, "seed": 0}, module.__file__ or "")
    except (GameError, StateError, RulesError) as e:
        faults = "\n".join(str(x) for x in e.errors) if isinstance(e, StateError) else str(e)
        if scenario is None:
            raise GameError(f"{display}: a game of \"{spec.title}\" needs more than made-up players: give a "
                            f"scenario with --scenario FILE. Players alone give:\n{faults}") from None
        if isinstance(e, StateError):
            raise GameError("\n".join(f"{where}: {x}" for x in e.errors)) from None
        raise GameError(f"{where}: the game cannot start: {faults}") from None
    seats = tuple(str(p["name"]) for p in data["players"])
    return Setup(display, spec.title, data, seats)


def make_jobs(setup: Setup, games: int, turns: int, seed: int) -> list[GameJob]:
    """Game i's job, with its own seed from the run's seed and i alone."""
    return [GameJob(setup.rules, setup.scenario, turns, index, game_seed(seed, index)) for index in range(games)]


def default_workers() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def play_chunk(play: PlayFn, jobs: Sequence[GameJob]) -> list[GameResult]:
    """A worker's task: some games, one after the other."""
    return [play(job) for job in jobs]


def run(jobs: Sequence[GameJob], seats: tuple[str, ...] = (), *, workers: int | None = None, dask: str | None = None,
        progress: Progress = NULL, play: PlayFn | None = None) -> Stats:
    """The Stats of the games, played in this process (workers 1), in a pool of `workers` processes (default:
    the cores), or on the Dask cluster at `dask` (`local`: a LocalCluster of `workers` processes). `progress`
    is told of each game done."""
    play = play or _real_play()
    workers = workers or default_workers()
    stats = Stats(seats=seats)
    size = max(1, min(CHUNK, math.ceil(len(jobs) / (workers * 4))))
    chunks = [list(jobs[i:i + size]) for i in range(0, len(jobs), size)]
    progress.stage("games", len(jobs))
    try:
        if dask is not None:
            done = _on_dask(dask, workers, play, chunks)
        elif workers == 1 or len(chunks) == 1:
            done = ((i, play_chunk(play, chunk)) for i, chunk in enumerate(chunks))
        else:
            done = _in_pool(workers, play, chunks)
        for results in _in_order(done):
            for result in results:
                stats.add(result)
            progress.advance(len(results))
    finally:
        # The bar goes before anything else is printed, whether the run ended or failed.
        progress.done()
    return stats


def _real_play() -> PlayFn:
    # Looked up at each run, so that a test can stand in a play of its own.
    return play_game


def _in_order(done: Iterator[tuple[int, list[GameResult]]]) -> Iterator[list[GameResult]]:
    """The chunks' results as they finish -> in the chunks' order, each as soon as all before it are in."""
    waiting: dict[int, list[GameResult]] = {}
    following = 0
    for index, results in done:
        waiting[index] = results
        while following in waiting:
            yield waiting.pop(following)
            following += 1


def _in_pool(workers: int, play: PlayFn, chunks: list[list[GameJob]]) -> Iterator[tuple[int, list[GameResult]]]:
    # forkserver: workers start from a fresh interpreter, never a copy of this one taken while a thread (the
    # progress bar's) holds a lock; each loads the compiled ruleset from the cache that `prepare` filled.
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    with ProcessPoolExecutor(max_workers=min(workers, len(chunks)), mp_context=context, initializer=watch_parent,
                             initargs=(os.getpid(),)) as pool:
        pending: dict[Future[list[GameResult]], int] = {pool.submit(play_chunk, play, chunk): i
                                                        for i, chunk in enumerate(chunks)}
        try:
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in sorted(finished, key=lambda f: pending[f]):
                    yield pending.pop(future), future.result()
        finally:
            # A failed game (or Ctrl-C) stops the run: what was not started is not played.
            for future in pending:
                future.cancel()


def watch_parent(parent: int, every: float = 1.0) -> None:
    """A pool worker's start: it ends itself once the process `parent` (the run's) is gone. A run killed
    (SIGTERM, or a job's time limit) has no chance to stop its workers, which would otherwise play their
    queued games to the end, and nobody would read them."""

    def watch() -> None:
        while True:
            time.sleep(every)
            try:
                os.kill(parent, 0)
            except ProcessLookupError:
                os._exit(1)
            except PermissionError:  # alive, and another user's: a pid taken again, not the run's
                os._exit(1)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def _on_dask(address: str, workers: int, play: PlayFn,
             chunks: list[list[GameJob]]) -> Iterator[tuple[int, list[GameResult]]]:
    with _dask_client(address, workers) as client:
        from distributed import as_completed

        # pure=False: a task is never taken for an earlier run's of the same games still held by the cluster.
        futures = [client.submit(play_chunk, play, chunk, pure=False) for chunk in chunks]
        index = {future.key: i for i, future in enumerate(futures)}
        try:
            for future in as_completed(futures):
                yield index[future.key], future.result()
        finally:
            client.cancel(futures)


@contextmanager
def _dask_client(address: str, workers: int) -> Iterator[Any]:
    """A Client of the cluster at `address`, or of a LocalCluster of `workers` processes made for the run."""
    try:
        from distributed import Client, LocalCluster
    except ImportError as e:
        raise GameError(f"--dask needs {e.name or 'distributed'}: pip install 'rulesdsl[simulate]'") from None
    if address != LOCAL:
        try:
            client = Client(address, timeout=10)
        except OSError as e:
            raise GameError(f"--dask {address}: cannot reach the scheduler: {e}") from None
        with client:
            yield client
        return
    # One thread per worker process: a game is pure Python, so more threads would only wait for each other.
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        yield client
