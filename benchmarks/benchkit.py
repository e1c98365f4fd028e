"""A ruleset's text -> its compiled module and spec, for the benchmarks that time rules written for them."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from rulesdsl.compiler import check_path, load_module
from rulesdsl.runtime.spec import RulesetSpec


def compile_rules(folder: Path, rules: str) -> tuple[ModuleType, RulesetSpec]:
    """Writes `rules` as t.rules (with a one-line report template) into `folder`, checks it (a benchmark of
    rules that do not check would time nothing) and loads its module, cached in folder/cache."""
    path = folder / "t.rules"
    path.write_text(rules, encoding="utf-8")
    (folder / "t.report.j2").write_text("{{ game.turn }}\n", encoding="utf-8")
    checked = check_path(path)
    assert checked.ok, checked.diagnostics
    return load_module(path, folder / "cache")
