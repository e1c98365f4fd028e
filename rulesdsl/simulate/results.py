"""One simulated game's outcome -> the records every stage of `rulesdsl simulate` passes on (picklable: they
cross process and Dask boundaries)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# What a Problem may be.
CRASH = "crash"  # the turn raised: a defect of the rules or the engine
NO_REASON = "refusal without a reason"
INVARIANT = "invariant broken"
LEAK = "hidden fact shown"
KINDS = (CRASH, NO_REASON, INVARIANT, LEAK)


@dataclass(frozen=True)
class GameJob:
    """One game to play: the ruleset's path, the scenario's data (its `seed` is set to `seed`), how many turns
    at most, the game's index in the run and its seed (play.game_seed of the run's seed and the index)."""

    rules: str
    scenario: dict[str, Any]
    turns: int
    index: int
    seed: int


@dataclass(frozen=True)
class Problem:
    kind: str  # one of KINDS
    game: int  # the game's index in the run (0, 1, ...)
    turn: int  # the turn it showed in (0: the start)
    text: str  # what happened, with the `.rules` line where one is known


@dataclass
class GameResult:
    """One game: `index` in the run and `seed` (from the run's seed and the index alone, so that any worker
    plays the same game)."""

    index: int
    seed: int
    turns: int = 0  # turns played
    ended: bool = False  # a victory (or every player out) ended it before the turn limit
    winners: tuple[int, ...] = ()  # the winners' seats: places in the scenario's list of players, from 0
    seats: int = 0  # how many players the game had
    written: dict[str, int] = field(default_factory=dict)  # order name -> lines written
    done: dict[str, int] = field(default_factory=dict)  # order name -> lines carried out
    refusals: dict[str, int] = field(default_factory=dict)  # refusal reason, numbers as "#" -> lines refused
    problems: list[Problem] = field(default_factory=list)
