"""Fixtures shared by the unit tests of one family: the demo games the reviewers' tools replay and compare."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.reviewtools import play_demo
from tests.unit.rulestools import COVERT


@pytest.fixture(scope="session")
def covert_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The covert demo of README's quick start, five days. Tests copy it before changing anything in it."""
    with pytest.MonkeyPatch.context() as mp:
        # Session-wide, so set here as conftest's per-test fixture would: never the user's compile cache.
        mp.setenv("RULESDSL_CACHE", str(tmp_path_factory.getbasetemp() / "rulesdsl-cache"))
        root = tmp_path_factory.mktemp("covert-demo") / "demo-game"
        play_demo(root, COVERT, "covert", 5)
    return root
