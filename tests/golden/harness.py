"""Golden scenario folders -> played games: the starting reports, every turn's reports and news, as text."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rulesdsl.game.folder import GameFolder
from rulesdsl.review import goldens

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
        return goldens.turn_dirs(self.folder)


def rules_file(ruleset: str) -> Path:
    """A shipped ruleset's file, or a shipped variant's (rulesets/variants/)."""
    return goldens.rules_file(ROOT / "rulesets", ruleset)


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
        # The GM's orders of a turn are filed before the turn runs, as `rulesdsl gm GAMEDIR order` files them
        # (review/goldens.py, which `rulesdsl diff --goldens` plays them with: one way to play a scenario).
        for path in goldens.gm_files(turn_dir):
            goldens.file_gm(game_dir, path)
        # A scenario may mail a player's same orders two turns running, as a GM would with --force.
        result = folder.process_turn(goldens.mail_files(turn_dir), force=True)
        for _, path in result.reports:
            yield result.turn, path.stem, path.read_text(encoding="utf-8")
        assert result.news is not None
        yield result.turn, "news", result.news.read_text(encoding="utf-8")
        if result.unrouted_file is not None:
            yield result.turn, "unrouted", result.unrouted_file.read_text(encoding="utf-8")
