"""benchmarks/bench_engine.py compares like with like: Covert's generated engine and the hand-written reference
(benchmarks/covert_reference.py) play the same day to the same outcome, and a difference is caught."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from rulesdsl.compiler import load_module
from rulesdsl.runtime.spec import RulesetSpec
from rulesdsl.runtime.state import dump, new_game

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, ModuleType, RulesetSpec, str]:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        bench_engine = importlib.import_module("bench_engine")
        covert_reference = importlib.import_module("covert_reference")
    finally:
        sys.path.remove(str(BENCHMARKS))
    module, spec = load_module(bench_engine.RULES, tmp_path_factory.mktemp("cache"))
    return bench_engine, covert_reference, spec, str(module.__file__)


@pytest.mark.parametrize("players", [3, 20, 60])
def test_the_generated_engine_and_the_reference_play_the_same_day(
        bench: tuple[ModuleType, ModuleType, RulesetSpec, str], players: int) -> None:
    bench_engine, _, spec, module_file = bench
    data, orders = bench_engine.scenario(spec, players)
    start = dump(new_game(spec, data))
    generated = bench_engine.generated_day(spec, module_file, start, bench_engine.mail(data, orders))
    reference = bench_engine.reference_day(start, orders)
    bench_engine.same(generated, reference, players)
    statuses = {status for mine in generated.outcomes.values() for _, status, _ in mine}
    # The day is not empty: orders done (and, where players share a home, failed on its checks), news, a
    # report for everyone.
    (country,) = spec.things
    homes = sum(len(values.get("adjacent", [])) >= bench_engine.MIN_NEIGHBOURS for _, values in country.instances)
    assert statuses == ({"done", "failed"} if players > homes else {"done"})
    assert any(n.startswith("Troops from") for n in generated.news)
    assert len(generated.reports) == players


def test_a_difference_is_caught(bench: tuple[ModuleType, ModuleType, RulesetSpec, str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    bench_engine, covert_reference, spec, module_file = bench
    data, orders = bench_engine.scenario(spec, 20)
    start = dump(new_game(spec, data))
    monkeypatch.setattr(covert_reference, "troops", lambda n: f"{n} troops")  # "1 troops": not what the rules say
    with pytest.raises(SystemExit, match=r"differ in state:\n\$\.Country\.\w+\.combat"):
        bench_engine.same(bench_engine.generated_day(spec, module_file, start, bench_engine.mail(data, orders)),
                          bench_engine.reference_day(start, orders), 20)


# Covert as rulesdsl compiled it at commit 8a06856, before `pure` kept a cache per function, orders(kind) was read
# as g.orders_done and players as g.players_read(): the runtime's exported surface is its contract, so a module
# compiled then still plays a day to the reference's outcome.
OLD_MODULE = Path(__file__).resolve().parent / "data" / "covert_compiled_8a06856.py"


@pytest.mark.parametrize("players", [3, 20])
def test_a_module_compiled_before_still_plays_the_same_day(
        bench: tuple[ModuleType, ModuleType, RulesetSpec, str], players: int) -> None:
    bench_engine = bench[0]
    loaded = importlib.util.spec_from_file_location("covert_compiled_8a06856", OLD_MODULE)
    assert loaded is not None and loaded.loader is not None
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    spec = module.RULESET
    data, orders = bench_engine.scenario(spec, players)
    start = dump(new_game(spec, data))
    generated = bench_engine.generated_day(spec, str(OLD_MODULE), start, bench_engine.mail(data, orders))
    bench_engine.same(generated, bench_engine.reference_day(start, orders), players)
