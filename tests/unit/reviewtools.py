"""The bundled demo games (README's quick start), played once per test session for the reviewers' tools' tests,
and rulesets changed from the shipped ones."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from rulesdsl.game.folder import GameFolder
from tests.unit.rulestools import COVERT, ROOT, RULESETS

EXAMPLES = ROOT / "examples"


def play_demo(root: Path, rules: Path, example: str, turns: int) -> GameFolder:
    """README's demo: a new game from examples/EXAMPLE/scenario.yaml, then each day's (round's) orders."""
    folder = GameFolder.create(rules, root, EXAMPLES / example / "scenario.yaml", None)
    days = [p for p in (EXAMPLES / example).iterdir() if p.is_dir()]
    days.sort(key=lambda p: int(re.sub(r"\D", "", p.name)))
    for day in days[:turns]:
        folder.process_turn(sorted(day.glob("*.txt")))
    return folder


def changed_covert(folder: Path, old: str, new: str, *, rename: bool = False) -> Path:
    """covert.rules with `old` made `new` (once, and it must be there), its templates beside it. With `rename`,
    `old` is a name, renamed wherever it is a whole word, in the templates too."""
    folder.mkdir(parents=True, exist_ok=True)
    text = COVERT.read_text(encoding="utf-8")
    if rename:
        assert re.search(rf"\b{old}\b", text), old
    else:
        assert text.count(old) == 1, old
    for template in RULESETS.glob("covert.report*.j2"):
        shutil.copy(template, folder / template.name)
    for path in [*folder.glob("*.j2"), folder / "covert.rules"] if rename else [folder / "covert.rules"]:
        original = path.read_text(encoding="utf-8") if path.exists() else text
        changed = re.sub(rf"\b{old}\b", new, original) if rename else original.replace(old, new)
        path.write_text(changed, encoding="utf-8")
    return folder / "covert.rules"
