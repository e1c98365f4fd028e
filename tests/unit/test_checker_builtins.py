"""The builtin registry (rulesdsl/builtins.py): docs list it, the runtime has what it emits, the checker uses it."""

from __future__ import annotations

import re
from pathlib import Path

from rulesdsl.builtins import BUILTINS, CHANCE
from rulesdsl.runtime import exported
from tests.unit.rulestools import BASE, ROOT, check_text, show


def _documented() -> list[str]:
    """Every signature in the first column of the tables of §11 "Builtin functions" and "Chance"."""
    text = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    out: list[str] = []
    for title in ("### Builtin functions", "### Chance"):
        section = text.split(title + "\n", 1)[1].split("\n#", 1)[0]
        for row in section.splitlines():
            if row.startswith("| `"):
                first = row.split(" | ", 1)[0]
                out += re.findall(r"`([a-z_]+\(.*?\))`", first)
    return out


def test_the_docs_list_each_builtin_once_as_the_registry_writes_it() -> None:
    documented = _documented()
    assert sorted(documented) == sorted(b.signature for b in BUILTINS.values())


def test_what_a_builtin_is_emitted_as_is_exported_by_the_runtime() -> None:
    for b in BUILTINS.values():
        assert (b.runtime is None) == ("{rt}" not in b.emit), b.name
        assert b.runtime is None or b.runtime in exported, b.name
        # A chance function with a typer (world generation) types its values there; the others, in the checker.
        assert (b.typer is None) == (b.kind != "value") or b.kind == "chance", b.name
    assert {"chance", "roll", "draw", "pick", "shuffle",
            "continents", "patches", "ranges", "spread", "scatter"} == CHANCE


def test_a_wrong_argument_count_quotes_the_registry_signature(tmp_path: Path) -> None:
    text = BASE + "phase q { let v = clamp(1, 2) }\n"
    got = check_text(tmp_path, text).diagnostics
    assert [(d.code, d.message, d.help) for d in got] == [
        ("E0322", "`clamp` takes 3 arguments, not 2", "it is called as `clamp(x, lo, hi)`")], show(got)
