"""Compiled modules are cached by content hash: an unchanged ruleset is not parsed again."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rulesdsl import compiler

ROOT = Path(__file__).resolve().parents[2]


def copy_covert(dest: Path) -> Path:
    dest.mkdir()
    for name in ("covert.rules", "covert.report.j2", "covert.report.html.j2"):
        shutil.copy2(ROOT / "rulesets" / name, dest / name)
    return dest / "covert.rules"


def test_an_unchanged_ruleset_is_compiled_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rules = copy_covert(tmp_path / "rules")
    cache = tmp_path / "cache"
    compiler.load_module(rules, cache)
    assert len(list(cache.glob("*.py"))) == 1

    def must_not_compile(path: Path) -> str:
        raise AssertionError("an unchanged ruleset was compiled again")

    monkeypatch.setattr(compiler, "compile_path", must_not_compile)
    _, spec = compiler.load_module(rules, cache)
    assert spec.title == "Covert Operations"


def test_a_changed_ruleset_or_template_is_compiled_again(tmp_path: Path) -> None:
    rules = copy_covert(tmp_path / "rules")
    cache = tmp_path / "cache"
    compiler.load_module(rules, cache)
    template = rules.parent / "covert.report.j2"
    template.write_text(template.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    compiler.load_module(rules, cache)
    rules.write_text(rules.read_text(encoding="utf-8").replace("param fixed_income: money = 5",
                                                                "param fixed_income: money = 6"), encoding="utf-8")
    _, spec = compiler.load_module(rules, cache)
    assert len(list(cache.glob("*.py"))) == 3
    assert next(p for p in spec.params if p.name == "fixed_income").default == 6


def test_a_changed_html_template_is_compiled_again(tmp_path: Path) -> None:
    # The page's template is in the generated module, as the text template is: a changed page must not
    # reuse the module compiled with the old one.
    rules = copy_covert(tmp_path / "rules")
    cache = tmp_path / "cache"
    compiler.load_module(rules, cache)
    page = rules.parent / "covert.report.html.j2"
    page.write_text(page.read_text(encoding="utf-8") + "<!-- changed -->\n", encoding="utf-8")
    _, spec = compiler.load_module(rules, cache)
    assert len(list(cache.glob("*.py"))) == 2
    assert spec.html.endswith("<!-- changed -->\n") and spec.html_name == "covert.report.html.j2"
