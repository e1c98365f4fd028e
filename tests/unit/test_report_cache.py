"""A report template -> its Jinja code cached beside the compiled modules, run by the sandbox; report data
checked against its schema only on demand (issue 10 §5)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from jinja2.sandbox import SecurityError

from rulesdsl.compiler import load_template
from rulesdsl.game import folder
from rulesdsl.game.errors import GameError
from rulesdsl.game.folder import GameFolder
from rulesdsl.runtime import report
from rulesdsl.runtime.report import CHECK_REPORTS, checking_reports, template_env

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"


class _Spec:
    """What load_template reads of a ruleset."""

    def __init__(self, template: str) -> None:
        self.template = template


def _fresh(template: str) -> Any:
    load_template.cache_clear()  # as a new process would
    return load_template(_Spec(template))  # type: ignore[arg-type]


def test_the_template_is_compiled_once_and_then_read_from_the_cache(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path))
    text = "{% for p in players %}{{ p | rjust(4) }}\n{% endfor %}"
    first = _fresh(text).render(players=["a", "b"])
    assert first == template_env().from_string(text).render(players=["a", "b"])
    [cached] = tmp_path.glob("template_*.py")
    # The next process reads the code from the cache: what is in the file is what runs.
    cached.write_text(template_env().compile("from the cache {{ players | length }}", raw=True), encoding="utf-8")
    assert _fresh(text).render(players=["a", "b"]) == "from the cache 2"
    # Another template, another file.
    assert _fresh(text + "!").render(players=[]) == "!"
    assert len(list(tmp_path.glob("template_*.py"))) == 2


def test_a_cached_template_is_run_by_the_sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path))
    text = "{{ players.__class__.__mro__ }}"
    for _ in range(2):  # compiled, then from the cache
        with pytest.raises(SecurityError):
            _fresh(text).render(players=[])
        with pytest.raises(SecurityError):
            _fresh("{{ players.append(1) }}").render(players=[])  # immutable: no change to the data
    assert len(list(tmp_path.glob("template_*.py"))) == 2


def test_a_cache_that_cannot_be_written_costs_only_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("", encoding="utf-8")
    monkeypatch.setenv("RULESDSL_CACHE", str(blocked / "cache"))
    assert _fresh("{{ 1 + 1 }}").render() == "2"


@pytest.mark.parametrize(("value", "checked"), [(None, False), ("", False), ("0", False), ("1", True)])
def test_reports_are_checked_on_demand(value: str | None, checked: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if value is None:
        monkeypatch.delenv(CHECK_REPORTS, raising=False)
    else:
        monkeypatch.setenv(CHECK_REPORTS, value)
    assert checking_reports() is checked


def test_a_turn_checks_each_report_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(spec: Any, data: dict[str, Any]) -> None:
        raise ValueError(f"report data does not fit its schema at $.player: {data['player']['name']}")

    monkeypatch.setattr(folder, "validate_report", refuse)
    example = ROOT / "tests" / "golden" / "covert" / "military"
    monkeypatch.delenv(CHECK_REPORTS, raising=False)
    GameFolder.create(ROOT / "rulesets" / "covert.rules", tmp_path / "a", example / "scenario.yaml", None)
    monkeypatch.setenv(CHECK_REPORTS, "1")
    with pytest.raises(GameError, match=r"not made: the report of Red Army failed: report data does not fit"):
        GameFolder.create(ROOT / "rulesets" / "covert.rules", tmp_path / "b", example / "scenario.yaml", None)


def test_the_shipped_reports_fit_their_schemas(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # What a turn no longer checks every time is checked here, for both shipped rulesets.
    monkeypatch.setenv(CHECK_REPORTS, "1")
    checked = []
    real = report.validate_report

    def counted(spec: Any, data: dict[str, Any]) -> None:
        real(spec, data)
        checked.append(data["player"]["name"])

    monkeypatch.setattr(folder, "validate_report", counted)
    for example in [GOLDEN / "covert" / "military", GOLDEN / "nukecards" / "basics"]:
        rules = ROOT / "rulesets" / f"{example.parent.name}.rules"
        game = tmp_path / example.parent.name
        GameFolder.create(rules, game, example / "scenario.yaml", None)
        GameFolder(game).process_turn(sorted((example / "turn-1").glob("*.txt")))
    assert len(checked) > 4


def test_a_spoilt_cache_file_is_compiled_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path))
    _fresh("{{ 6 * 7 }}")
    [cached] = tmp_path.glob("template_*.py")
    cached.write_bytes(b"def root(:\n")
    assert _fresh("{{ 6 * 7 }}").render() == "42"
    cached.write_bytes(b"\xff\xfe")
    assert _fresh("{{ 6 * 7 }}").render() == "42"
    assert "def root(" in cached.read_text(encoding="utf-8")


def test_the_templates_code_is_kept_as_marshalled_code_and_used_only_for_its_own_source(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path))
    assert _fresh("{{ 6 * 7 }}").render() == "42"
    [code] = tmp_path.glob("template_*.code")
    made = code.read_bytes()
    # Read back, not compiled: compile() is not called for the second process.
    monkeypatch.setattr("builtins.compile", lambda *a, **k: (_ for _ in ()).throw(AssertionError("compiled")))
    assert _fresh("{{ 6 * 7 }}").render() == "42"
    monkeypatch.undo()
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path))
    # Spoilt, it is made again from the source beside it.
    code.write_bytes(made[:20] + b"\x00garbage")
    assert _fresh("{{ 6 * 7 }}").render() == "42"
    assert code.read_bytes() == made


class _HtmlSpec:
    """What load_html_template reads of a ruleset."""

    def __init__(self, html: str) -> None:
        self.html = html


def test_the_html_template_is_cached_too_and_autoescapes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rulesdsl.compiler import load_html_template

    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path))
    text = "<p>{{ name }}</p>"
    load_html_template.cache_clear()
    assert load_html_template(_HtmlSpec(text)).render(name="<b>") == "<p>&lt;b&gt;</p>"  # type: ignore[arg-type]
    [cached] = tmp_path.glob("template_*.py")
    # The next process reads the code from the cache, not the template: a turn compiles no HTML template.
    from rulesdsl.runtime.html import html_env

    cached.write_text(html_env().compile("<i>{{ name }}</i>", raw=True), encoding="utf-8")
    load_html_template.cache_clear()
    assert load_html_template(_HtmlSpec(text)).render(name="<b>") == "<i>&lt;b&gt;</i>"  # type: ignore[arg-type]
    # The text template of the same source is another file: the two environments differ (autoescape).
    load_template.cache_clear()
    load_template(_Spec(text))  # type: ignore[arg-type]
    assert len(list(tmp_path.glob("template_*.py"))) == 2
