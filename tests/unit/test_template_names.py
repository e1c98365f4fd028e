"""A report template named by a path -> E0510 at `check`, and `rulesdsl new` refuses before copying anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulesdsl.cli import main
from rulesdsl.compiler import check_path, content_hash
from tests.unit.rulestools import BASE, BASE_TEMPLATE, marked_line, show

# Each names a template that exists, so only the name is at fault: before E0510, `check` accepted them all.
NAMES = ["../outside.report.j2", "{tmp}/abs/outside.report.j2", "sub/../../outside.report.j2",
         "sub/inside.report.j2"]


def _ruleset(tmp_path: Path, name: str) -> tuple[Path, str]:
    rules_dir = tmp_path / "rules"
    for f in (tmp_path / "outside.report.j2", tmp_path / "abs" / "outside.report.j2",
              rules_dir / "sub" / "inside.report.j2"):
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(BASE_TEMPLATE, encoding="utf-8")
    name = name.replace("{tmp}", tmp_path.as_posix())
    text = BASE.replace('  template "t.report.j2"\n', f'  template "{name}"  #!\n', 1)
    path = rules_dir / "t.rules"
    path.write_text(text, encoding="utf-8")
    return path, text


@pytest.mark.parametrize("name", NAMES)
def test_a_template_named_by_a_path_is_a_check_error(tmp_path: Path, name: str) -> None:
    path, text = _ruleset(tmp_path, name)
    checked = check_path(path)
    assert [(d.code, d.span.line, d.span.col) for d in checked.diagnostics] == \
        [("E0510", marked_line(text), 12)], show(checked.diagnostics)
    assert "t.report.j2" not in checked.sources  # the file it names was not read
    assert 'name it plainly: `template "' in (checked.diagnostics[0].help or "")


@pytest.mark.parametrize("name", NAMES)
def test_new_never_copies_a_ruleset_whose_template_is_named_by_a_path(
        tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = _ruleset(tmp_path, name)

    def no_staging(*args: object, **kwargs: object) -> None:
        raise AssertionError("rulesdsl new began making the game")

    monkeypatch.setattr("rulesdsl.game.folder.Staging", no_staging)
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text('players:\n  - {name: Ann, account: "1", code: A1}\n', encoding="utf-8")
    game = tmp_path / "games" / "g1"
    assert main(["new", str(path), str(game), "--scenario", str(scenario)]) == 1
    err = capsys.readouterr().err
    assert "t.rules:29:12: error[E0510]" in err, err
    assert not (tmp_path / "games").exists()


def test_the_content_hash_reads_no_file_outside_the_ruleset_folder(tmp_path: Path) -> None:
    path, _ = _ruleset(tmp_path, "../outside.report.j2")
    before = content_hash(path)
    (tmp_path / "outside.report.j2").write_text("Something else {{ cash }}\n", encoding="utf-8")
    assert content_hash(path) == before
