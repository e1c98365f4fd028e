"""Golden scenario folders -> played games: the starting reports, every turn's reports and news, as text."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rulesdsl.game.folder import GameFolder

GOLDEN = Path(__file__).resolve().parent
ROOT = GOLDEN.parent.parent


@dataclass(frozen=True)
class Scenario:
    ruleset: str
    name: str
    folder: Path

    @property
    def id(self) -> str:
        return f"{self.ruleset}-{self.name}"

    def turn_dirs(self) -> list[Path]:
        turns = [p for p in self.folder.iterdir() if p.is_dir() and p.name.startswith("turn-")]
        return sorted(turns, key=lambda p: int(p.name.split("-", 1)[1]))


def scenarios(ruleset: str) -> list[Scenario]:
    base = GOLDEN / ruleset
    return [Scenario(ruleset, p.name, p) for p in sorted(base.iterdir()) if (p / "scenario.yaml").is_file()]


def start(s: Scenario, game_dir: Path) -> Iterator[tuple[str, str]]:
    """Starts a scenario's game; yields (output name, text) for every starting report (turn 0), in the
    order of their file names."""
    rules = ROOT / "rulesets" / f"{s.ruleset}.rules"
    folder = GameFolder.create(rules, game_dir, s.folder / "scenario.yaml", None)
    for path in sorted((folder.turns_dir / "turn-000" / "reports").glob("*.txt")):
        yield path.stem, path.read_text(encoding="utf-8")


def play(s: Scenario, game_dir: Path) -> Iterator[tuple[int, str, str]]:
    """Plays a scenario; yields (turn, output name, text) for every report and the news of every turn.

    The order files of a turn are processed in the order of their names, as if received in that order.
    """
    rules = ROOT / "rulesets" / f"{s.ruleset}.rules"
    folder = GameFolder.create(rules, game_dir, s.folder / "scenario.yaml", None)
    for turn_dir in s.turn_dirs():
        # A scenario may mail a player's same orders two turns running, as a GM would with --force.
        result = folder.process_turn(sorted(turn_dir.glob("*.txt")), force=True)
        for _, path in result.reports:
            yield result.turn, path.stem, path.read_text(encoding="utf-8")
        assert result.news is not None
        yield result.turn, "news", result.news.read_text(encoding="utf-8")
        if result.unrouted_file is not None:
            yield result.turn, "unrouted", result.unrouted_file.read_text(encoding="utf-8")
