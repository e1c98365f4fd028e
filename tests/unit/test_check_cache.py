"""compiler.check_path's memo of recent checks -> the same answer as a fresh check, and a fresh one whenever the
rules or a template they name changes (the key is the content hash)."""

from __future__ import annotations

import shutil
from pathlib import Path

from rulesdsl.compiler import check_path

ROOT = Path(__file__).resolve().parents[2]


def test_a_changed_file_or_template_is_checked_again(tmp_path: Path) -> None:
    for name in ("covert.rules", "covert.report.j2", "covert.report.html.j2"):
        shutil.copy(ROOT / "rulesets" / name, tmp_path / name)
    rules = tmp_path / "covert.rules"
    first = check_path(rules)
    assert first.ok
    assert check_path(rules) is first  # unchanged: not checked again
    text = rules.read_text(encoding="utf-8")
    rules.write_text(text + "\nparam broken: int = nowhere\n", encoding="utf-8")
    assert not check_path(rules).ok
    rules.write_text(text, encoding="utf-8")
    assert check_path(rules).ok
    (tmp_path / "covert.report.j2").write_text("{{ no_such_field.at_all }}{% if %}\n", encoding="utf-8")
    assert not check_path(rules).ok
