"""Golden turns: every report and the news of every turn of every scenario, one snapshot file each; and
the starting reports (turn 0) of one scenario of each ruleset.

Before accepting a new or changed snapshot (`pytest --snapshot-update`), read it against the
rulebook as a player would; say in the commit which changed and why.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from syrupy.assertion import SnapshotAssertion

from tests.golden.harness import Scenario, play, scenarios, start

# The shipped variants (rulesets/variants/) after the four rulesets.
ALL = [s for ruleset in ("covert", "nukecards", "warlord", "wcg", "covert-twice-weekly", "nukecards-blitz")
       for s in scenarios(ruleset)]


@pytest.mark.parametrize("scenario", ALL, ids=[s.id for s in ALL])
def test_golden(scenario: Scenario, tmp_path: Path, text_snapshot: SnapshotAssertion) -> None:
    for turn, name, text in play(scenario, tmp_path / "game"):
        assert text == text_snapshot(name=f"{scenario.id}-turn{turn:02d}-{name}")


# One scenario of each ruleset: covert's with spies and a superspy placed, nukecards' with every kind of card dealt,
# warlord's with a hand-made map, cities and divisions, and warlord's first turn (the world's outline and the
# cities reported); WCG's test world, the 1960 world's eight positions, and two minor-currency starters.
STARTS = [s for s in ALL
          if s.id in ("covert-intelligence", "nukecards-basics", "warlord-movement", "warlord-first-turn",
                        "wcg-start", "wcg-world-1960", "wcg-minor-starter")]


@pytest.mark.parametrize("scenario", STARTS, ids=[s.id for s in STARTS])
def test_golden_start(scenario: Scenario, tmp_path: Path, text_snapshot: SnapshotAssertion) -> None:
    assert len(STARTS) == 7  # a renamed scenario does not silently leave this test without a case
    reports = list(start(scenario, tmp_path / "game"))
    players = yaml.safe_load((scenario.folder / "scenario.yaml").read_text(encoding="utf-8"))["players"]
    assert len(reports) == len(players)  # every player has a starting report
    for name, text in reports:
        assert text == text_snapshot(name=f"{scenario.id}-turn00-{name}")
