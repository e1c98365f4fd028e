"""Golden turns: every report and the news of every turn of every scenario, one snapshot file each.

Before accepting a new or changed snapshot (`pytest --snapshot-update`), read it against the
rulebook as a player would; say in the commit which changed and why.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from tests.golden.harness import Scenario, play, scenarios

ALL = [s for ruleset in ("covert", "nukecards") for s in scenarios(ruleset)]


@pytest.mark.parametrize("scenario", ALL, ids=[s.id for s in ALL])
def test_golden(scenario: Scenario, tmp_path: Path, text_snapshot: SnapshotAssertion) -> None:
    for turn, name, text in play(scenario, tmp_path / "game"):
        assert text == text_snapshot(name=f"{scenario.id}-turn{turn:02d}-{name}")
