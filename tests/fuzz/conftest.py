"""The shipped rulesets and their example mail -> session fixtures (each example game compiled and played
once, a dumped state before each turn), and the hypothesis profiles: `ci` (the default: the same examples
every run) and `long` (HYPOTHESIS_PROFILE=long: 2,000 new random examples a test)."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from tests.fuzz.world import Context, build

# CI: the same examples on every run (derandomize), few enough to stay within seconds; no deadline, since
# the tests time each turn themselves (world.TURN_SECONDS) with a margin a loaded machine needs.
# `HYPOTHESIS_PROFILE=long` searches far wider, with new random examples each run.
_COMMON = dict(
    deadline=None,
    database=None,
    print_blob=False,
    # The autouse fixture of tests/conftest.py only points the compile cache at a temporary folder, and
    # fuzzed lines are long by design.
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                           HealthCheck.data_too_large, HealthCheck.large_base_example],
)
settings.register_profile("ci", derandomize=True, max_examples=100, **_COMMON)  # type: ignore[arg-type]
settings.register_profile("long", derandomize=False, max_examples=2000, **_COMMON)  # type: ignore[arg-type]
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def covert(tmp_path_factory: pytest.TempPathFactory) -> list[Context]:
    return build("covert", tmp_path_factory.getbasetemp() / "rulesdsl-cache")


@pytest.fixture(scope="session")
def nukecards(tmp_path_factory: pytest.TempPathFactory) -> list[Context]:
    return build("nukecards", tmp_path_factory.getbasetemp() / "rulesdsl-cache")


@pytest.fixture(scope="session", params=["covert", "nukecards"])
def worlds(request: pytest.FixtureRequest) -> list[Context]:
    """Both rulesets, one after the other: each fuzz test runs once per ruleset."""
    result: list[Context] = request.getfixturevalue(request.param)
    return result
