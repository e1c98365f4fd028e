"""Golden scenario folders -> played games: the starting reports, every turn's reports and news, as text."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rulesdsl.game.folder import GameFolder
from rulesdsl.game.store import gm_order

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


def rules_file(ruleset: str) -> Path:
    """A shipped ruleset's file, or a shipped variant's (rulesets/variants/)."""
    path = ROOT / "rulesets" / f"{ruleset}.rules"
    return path if path.is_file() else ROOT / "rulesets" / "variants" / f"{ruleset}.rules"


def scenarios(ruleset: str) -> list[Scenario]:
    base = GOLDEN / ruleset
    return [Scenario(ruleset, p.name, p) for p in sorted(base.iterdir()) if (p / "scenario.yaml").is_file()]


def start(s: Scenario, game_dir: Path) -> Iterator[tuple[str, str]]:
    """Starts a scenario's game; yields (output name, text) for every starting report (turn 0), in the
    order of their file names."""
    rules = rules_file(s.ruleset)
    folder = GameFolder.create(rules, game_dir, s.folder / "scenario.yaml", None)
    for path in sorted((folder.turns_dir / "turn-000" / "reports").glob("*.txt")):
        yield path.stem, path.read_text(encoding="utf-8")


def play(s: Scenario, game_dir: Path) -> Iterator[tuple[int, str, str]]:
    """Plays a scenario; yields (turn, output name, text) for every report and the news of every turn.

    The order files of a turn are processed in the order of their names, as if received in that order.
    """
    rules = rules_file(s.ruleset)
    folder = GameFolder.create(rules, game_dir, s.folder / "scenario.yaml", None)
    for turn_dir in s.turn_dirs():
        # The GM's orders of a turn, filed as `rulesdsl gm GAMEDIR order` does before the turn runs: `gm-world.txt`
        # holds world orders (for no position), `gm-ACCOUNT.txt` a position's; one order a line, no header.
        gm_files = sorted(turn_dir.glob("gm-*.txt"))
        for path in gm_files:
            who = path.stem.split("-", 1)[1]
            lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
            gm_order(game_dir, None if who == "world" else who, lines)
        mail = [path for path in sorted(turn_dir.glob("*.txt")) if path not in gm_files]
        # A scenario may mail a player's same orders two turns running, as a GM would with --force.
        result = folder.process_turn(mail, force=True)
        for _, path in result.reports:
            yield result.turn, path.stem, path.read_text(encoding="utf-8")
        assert result.news is not None
        yield result.turn, "news", result.news.read_text(encoding="utf-8")
        if result.unrouted_file is not None:
            yield result.turn, "unrouted", result.unrouted_file.read_text(encoding="utf-8")
