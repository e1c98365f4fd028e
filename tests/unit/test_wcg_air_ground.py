"""WCG's air and ground steps (issue 14, Z1): the rules' G.C.A.S.D. to-hit function read for every level and unit
kind -> the table `gcasd_hit` it must give, and nothing for what is not an aircraft or a country without one."""

from __future__ import annotations

from types import ModuleType

import pytest

from rulesdsl.compiler import check_path, load_module
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.spec import RulesetSpec
from rulesdsl.runtime.state import new_game

from .rulestools import RULESETS, show

RULES = RULESETS / "wcg.rules"
# The rules' table, written out again here: a change to either is a change a reader must see twice.
TABLE = {
    "INT": [2, 3, 4, 5, 6],
    "BMR": [3, 4, 5, 6, 7],
    "HEL": [4, 5, 6, 7, 8],
    "SPY": [0, 0, 0, 0, 2],
}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, Game]:
    checked = check_path(RULES)
    assert checked.ok, show(checked.diagnostics)
    module, spec = load_module(RULES, tmp_path_factory.mktemp("wcg-cache"))
    assert isinstance(spec, RulesetSpec)
    g = new_game(spec, {"players": [{"name": "P1", "account": "p1", "code": "C1", "home": "USA"}]})
    g.module_file = str(module.__file__)
    return module, g


def test_gcasd_shots_read_the_table_for_every_level_and_kind(world: tuple[ModuleType, Game]) -> None:
    module, g = world
    kinds = g.all["UnitKind"]
    assert sorted(k._key for k in kinds if k.arm._key == "AIR") == sorted(TABLE)
    for k in kinds:
        got = [module.fn_gcasd_shot_hit(g, level, k) for level in range(0, 7)]
        if k._key in TABLE:
            # level 0 fires nothing; 1-5 the table; above 5 (a scenario's) reads level 5
            assert got == [0, *TABLE[k._key], TABLE[k._key][4]], (k._key, got)
            assert got[1:6] == [module.tbl_gcasd_hit(g, level, k) for level in range(1, 6)]
        else:
            assert got == [0] * 7, (k._key, got)    # not an aircraft: no row, never shot at
