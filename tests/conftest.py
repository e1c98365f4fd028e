"""Shared fixtures: plain-text snapshots (one file per report) and paths to the bundled rulesets."""

from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

ROOT = Path(__file__).resolve().parent.parent
RULESETS = ROOT / "rulesets"


class TextSnapshot(SingleFileSnapshotExtension):
    """One plain .txt file per snapshot, so reviewers read reports in a git diff."""

    _write_mode = WriteMode.TEXT
    file_extension = "txt"


@pytest.fixture
def text_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(TextSnapshot)


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    # Compiled modules go to a per-session cache, never the user's.
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path_factory.getbasetemp() / "rulesdsl-cache"))


@pytest.fixture(autouse=True)
def _no_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    # Commands print stderr as before progress was shown: tests of progress ask for it with --progress.
    monkeypatch.setenv("RULESDSL_PROGRESS", "none")


def pytest_configure(config: pytest.Config) -> None:
    # Workers of pytest-xdist each see part of a snapshot file's tests: updating snapshots from several
    # could remove the ones another worker used. Updating is done in one process.
    if config.getoption("--snapshot-update", default=False) and config.getoption("numprocesses", default=None):
        raise pytest.UsageError("update snapshots in one process: add -n 0 (e.g. python -m pytest -n 0 "
                                "tests/diagnostics --snapshot-update -k CASE)")
