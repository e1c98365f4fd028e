"""A git working tree and a revision -> every golden scenario (tests/golden/RULESET/SCENARIO/) played under the
rulesets as they are at the revision and as they are in the working tree, compared (review/diff.py).

A scenario is played as tests/golden/harness.py plays it: the game started from its scenario.yaml; then each
turn-N folder in number order, its `gm-ACCOUNT.txt` and `gm-world.txt` filed as `rulesdsl gm GAMEDIR order`
files them, and its other .txt files mailed in name order (with --force, since a scenario may mail the same
orders twice). Both sides play the working tree's scenarios: only the rules differ. The revision's rulesets/
folder is read with `git ls-tree` and `git show REV:path` into a temporary folder (a variant's base and the
templates with it), removed after.

What one side cannot play (the rules do not check, a scenario no longer fits, a GM line the rules no longer
read) is a note of that scenario's comparison, not a crash: the comparison differs.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from rulesdsl.diagnostics import CompileError, render_text
from rulesdsl.game.errors import GameError
from rulesdsl.game.folder import GameFolder
from rulesdsl.game.progress import NULL, Progress
from rulesdsl.game.store import gm_order
from rulesdsl.review.changes import GameDiff
from rulesdsl.review.diff import compare_folders

__all__ = ["GOLDEN", "compare_goldens", "file_gm", "gm_files", "mail_files", "repo_root", "rules_file", "scenarios",
           "turn_dirs"]

GOLDEN = Path("tests") / "golden"
RULESETS = "rulesets"


def _git(root: Path, *args: str) -> bytes:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False)
    except OSError as e:
        raise GameError(f"cannot run git: {e.strerror or e}") from None
    if done.returncode != 0:
        raise GameError(f"git {' '.join(args)}: {done.stderr.decode('utf-8', 'replace').strip()}")
    return done.stdout


def repo_root(start: Path) -> Path:
    """The top of the git working tree `start` is in."""
    return Path(_git(start, "rev-parse", "--show-toplevel").decode("utf-8").strip())


def scenarios(root: Path) -> list[tuple[str, Path]]:
    """(ruleset, scenario folder) of every golden scenario, sorted by ruleset then name."""
    found = []
    base = root / GOLDEN
    for ruleset in sorted(p for p in base.iterdir() if p.is_dir()) if base.is_dir() else []:
        found += [(ruleset.name, s) for s in sorted(ruleset.iterdir()) if (s / "scenario.yaml").is_file()]
    return found


def rules_file(rulesets: Path, ruleset: str) -> Path:
    """A shipped ruleset's file, or a shipped variant's (rulesets/variants/)."""
    path = rulesets / f"{ruleset}.rules"
    return path if path.is_file() else rulesets / "variants" / f"{ruleset}.rules"


def export(root: Path, rev: str, into: Path) -> Path:
    """The rulesets/ folder as it is at `rev`, written under `into`; returns it."""
    try:
        _git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    except GameError:
        raise GameError(f"--against {rev}: no such revision in {root}") from None
    names = _git(root, "ls-tree", "-r", "-z", "--name-only", rev, "--", RULESETS).decode("utf-8").split("\0")
    for name in sorted(n for n in names if n):
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(_git(root, "show", f"{rev}:{name}"))
    return into / RULESETS


def turn_dirs(scenario: Path) -> list[Path]:
    """A golden scenario's turn-N folders, in turn order."""
    turns = [p for p in scenario.iterdir() if p.is_dir() and p.name.startswith("turn-")
             and p.name.split("-", 1)[1].isdigit()]
    return sorted(turns, key=lambda p: int(p.name.split("-", 1)[1]))


def gm_files(turn_dir: Path) -> list[Path]:
    """A turn folder's GM orders: `gm-world.txt` (world orders, for no position) and `gm-ACCOUNT.txt` (a
    position's), one order a line, no header."""
    return sorted(turn_dir.glob("gm-*.txt"))


def file_gm(game: Path, path: Path) -> None:
    """Files one of gm_files as `rulesdsl gm GAMEDIR order` does, for the game's next turn; GameError if the
    game refuses it."""
    who = path.stem.split("-", 1)[1]
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    gm_order(game, None if who == "world" else who, lines)


def mail_files(turn_dir: Path) -> list[Path]:
    """A turn folder's players' mail, in the order of their names (the order they are received in)."""
    gm = set(gm_files(turn_dir))
    return [path for path in sorted(turn_dir.glob("*.txt")) if path not in gm]


def play(rules: Path, scenario: Path, game: Path, trace: bool = True) -> list[str]:
    """Plays a golden scenario into the new folder `game`; returns what could not be done (empty: all). With
    `trace`, each turn writes its trace.jsonl, from which the diff tells what made each changed line."""
    if not rules.is_file():
        return [f"{rules.name}: no such ruleset"]
    try:
        folder = GameFolder.create(rules, game, scenario / "scenario.yaml", None)
        notes = []
        for turn_dir in turn_dirs(scenario):
            for path in gm_files(turn_dir):
                try:
                    file_gm(game, path)
                except GameError as e:
                    notes.append(f"{turn_dir.name}/{path.name}: not filed: {e}")
            if folder.process_turn(mail_files(turn_dir), force=True, trace=trace).game_over:
                break
        return notes
    except CompileError as e:
        return [f"{rules.name} does not check:\n{render_text(e.diagnostics, e.sources)}"]
    except GameError as e:
        return [f"cannot be played: {e}"]


def compare_goldens(root: Path, rev: str, progress: Progress = NULL) -> list[GameDiff]:
    """Each golden scenario under `root` played under the rulesets at `rev` and in the working tree, compared."""
    work = Path(tempfile.mkdtemp(prefix="rulesdsl-goldens-"))
    try:
        old_rulesets = export(root, rev, work / "rev")
        diffs = []
        for n, (ruleset, scenario) in enumerate(scenarios(root)):
            title = f"{ruleset}/{scenario.name}"
            progress.stage(f"playing {title}")
            old, new = work / f"{n}-old", work / f"{n}-new"
            notes = [f"{rev}: {note}" for note in play(rules_file(old_rulesets, ruleset), scenario, old)]
            notes += [f"working tree: {note}" for note in play(rules_file(root / RULESETS, ruleset), scenario, new)]
            # A message may name a file of the temporary folder: shown relative to it, the output stays the same.
            notes = [note.replace(f"{work}/", "") for note in notes]
            if GameFolder(old).turn_numbers() and GameFolder(new).turn_numbers():
                diff = compare_folders(old, new, rev, "working tree")
            else:
                diff = GameDiff(rev, "working tree")
            diff.title = title
            diff.notes = notes + diff.notes
            diffs.append(diff)
            # Each scenario's games go once compared: the whole set at once would fill a small disk.
            shutil.rmtree(old, ignore_errors=True)
            shutil.rmtree(new, ignore_errors=True)
        return diffs
    finally:
        shutil.rmtree(work, ignore_errors=True)
