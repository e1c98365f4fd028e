"""The diagnostics corpus: small broken rulesets, each checked as a designer would check it.

Every `cases/NAME.rules` holds a realistic mistake and marks each line where a diagnostic is expected
with a trailing `#! CODE` comment (`{#! CODE #}` in the case's own `NAME*.j2` templates). For every case:

- `rulesdsl check NAME.rules` exits 1 (0 when only warnings are expected), prints no traceback, and
  prints exactly the text kept in `__snapshots__/test_corpus/` (read it when it changes);
- the diagnostics are exactly the marked (file, line, code) triples, errors and warnings both;
- `--format json` fits `rulesdsl/schemas/diagnostics.schema.json` and reports what the text reports.

See README.md in this folder for how to write a case and update the snapshots.
"""

from __future__ import annotations

import json
import re
import traceback
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from syrupy.assertion import SnapshotAssertion

from rulesdsl.cli import main

HERE = Path(__file__).resolve().parent
CASES_DIR = HERE / "cases"
ROOT = HERE.parents[1]
SCHEMA = ROOT / "rulesdsl" / "schemas" / "diagnostics.schema.json"
MIN_CASES = 50

CASES = sorted(p.stem for p in CASES_DIR.glob("*.rules"))

_CODES = r"[EW]\d{4}(?:[ \t]+[EW]\d{4})*"
RULES_MARKER = re.compile(rf"#![ \t]*(?P<codes>{_CODES})[ \t]*$")
TEMPLATE_MARKER = re.compile(rf"\{{#![ \t]*(?P<codes>{_CODES})[ \t]*#\}}")
# `FILE:LINE:COL: error[E0309]: message`, the first line of every diagnostic in the text output.
TEXT_HEADLINE = re.compile(r"^(?P<file>\S+?):(?P<line>\d+):(?P<col>\d+): (?:error|warning)\[(?P<code>[EW]\d{4})\]: ",
                           re.MULTILINE)

Site = tuple[str, int, str]  # (file, line, code)
Located = tuple[str, int, int, str]  # (file, line, column, code)


def case_files(name: str) -> list[Path]:
    """The case's own files: the ruleset and any template named after it (not the shared base)."""
    return [CASES_DIR / f"{name}.rules", *sorted(CASES_DIR.glob(f"{name}.*j2"))]


def expected_sites(name: str) -> set[Site]:
    """The (file, line, code) of every `#! CODE` marker of the case."""
    sites: set[Site] = set()
    for path in case_files(name):
        pattern = RULES_MARKER if path.suffix == ".rules" else TEMPLATE_MARKER
        # A case may be a file that is not UTF-8 on purpose; its markers are ASCII all the same.
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for m in pattern.finditer(line):
                sites.update((path.name, number, code) for code in m.group("codes").split())
    return sites


# Each run is done once per session and shared by the tests that read it: the corpus stays fast.
_RUNS: dict[tuple[str, ...], tuple[int, str, str]] = {}


def run_check(name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
              *extra: str) -> tuple[int, str, str]:
    """`rulesdsl check NAME.rules [extra]` from the cases folder: exit status, stdout, stderr."""
    key = (name, *extra)
    if key not in _RUNS:
        _RUNS[key] = _run_check(name, monkeypatch, capsys, *extra)
    return _RUNS[key]


def _run_check(name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
               *extra: str) -> tuple[int, str, str]:
    monkeypatch.chdir(CASES_DIR)
    capsys.readouterr()
    try:
        status = main(["check", f"{name}.rules", *extra])
    except SystemExit as e:  # argparse
        status = e.code if isinstance(e.code, int) else 2
    except Exception:
        pytest.fail(f"rulesdsl check {name}.rules crashed:\n{traceback.format_exc()}")
    out, err = capsys.readouterr()
    return status, out, err


def text_sites(output: str) -> list[Located]:
    return [(m["file"], int(m["line"]), int(m["col"]), m["code"]) for m in TEXT_HEADLINE.finditer(output)]


@cache
def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return loaded


def show(sites: set[Site]) -> str:
    return "\n".join(f"  {f}:{line} {code}" for f, line, code in sorted(sites)) or "  (none)"


@pytest.mark.parametrize("name", CASES)
def test_check_output(name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                     text_snapshot: SnapshotAssertion) -> None:
    status, out, err = run_check(name, monkeypatch, capsys)
    output = out + (f"--- stderr ---\n{err}" if err else "")
    assert "Traceback" not in output
    errors_expected = any(code.startswith("E") for _, _, code in expected_sites(name))
    # The snapshot first, so that it records what a wrong case prints today.
    assert output == text_snapshot
    assert status == (1 if errors_expected else 0), output


@pytest.mark.parametrize("name", CASES)
def test_markers(name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    expected = expected_sites(name)
    assert expected, f"{name}.rules marks no line with `#! CODE`"
    _, out, _ = run_check(name, monkeypatch, capsys)
    got = {(f, line, code) for f, line, _, code in text_sites(out)}
    assert got == expected, (f"\nmarked but not reported:\n{show(expected - got)}"
                             f"\nreported but not marked:\n{show(got - expected)}\n\n{out}")


@pytest.mark.parametrize("name", CASES)
def test_json_output(name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_check(name, monkeypatch, capsys, "--format", "json")
    assert "Traceback" not in out + err
    data = json.loads(out)
    jsonschema.validate(data, schema())
    as_json = [(d["file"], d["line"], d["column"], d["code"]) for d in data["diagnostics"]]
    _, text, _ = run_check(name, monkeypatch, capsys)
    assert as_json == text_sites(text)
    assert status == (1 if any(d["severity"] == "error" for d in data["diagnostics"]) else 0)


def test_corpus_size() -> None:
    assert len(CASES) >= MIN_CASES, f"the corpus has {len(CASES)} cases; it needs at least {MIN_CASES}"


@pytest.mark.parametrize("name", CASES)
def test_case_describes_its_mistake(name: str) -> None:
    first = (CASES_DIR / f"{name}.rules").read_text(encoding="utf-8", errors="replace").split("\n", 1)[0]
    assert first.startswith("# ") and len(first) > 12, (
        f"{name}.rules must start with `# <what the designer got wrong, in one sentence>`")
