"""A grid field that is a set of players, written by member -> the state file's layer and the game read back.

tests/unit/data/grid/tiny.rules has `seen_by: set of Player` on its 6 x 5 map (CCRR, wrapping east-west).
"""

from __future__ import annotations

import shutil
from typing import Any

import pytest

from rulesdsl.compiler import check_path, load_module
from rulesdsl.game.folder import validate
from rulesdsl.game.schemafit import fits
from rulesdsl.game.yamlio import dump_text, load_text
from rulesdsl.runtime.spec import RulesetSpec
from rulesdsl.runtime.state import StateError, dump, load, new_game
from tests.unit.test_grid_rules import DATA, _scenario


@pytest.fixture(scope="module")
def spec(tmp_path_factory: pytest.TempPathFactory) -> RulesetSpec:
    folder = tmp_path_factory.mktemp("tiny")
    for f in DATA.iterdir():
        shutil.copy(f, folder / f.name)
    assert check_path(folder / "tiny.rules").ok
    _, loaded = load_module(folder / "tiny.rules", folder / "cache")
    return loaded


def _seen(g: Any) -> dict[str, list[str]]:
    return {s._key: [p._key for p in s.seen_by] for s in g.sectors if s.seen_by}


def test_a_set_of_players_is_written_by_member_in_runs_and_read_back_the_same(spec: RulesetSpec) -> None:
    g = new_game(spec, _scenario())
    ann, bob = g.all_players
    # Ann sees a row's run that ends at the east edge and goes on in the next row (one run in sector order),
    # and a sector of its own; Bob two sectors Ann sees too, the later one first.
    for key in ("0401", "0501", "0002", "0102", "0304"):
        g.index["Sector"][key].seen_by.append(ann)
    for key in ("0304", "0102"):
        g.index["Sector"][key].seen_by.append(bob)
    g.index["Sector"]["0102"].seen_by.sort(key=lambda p: p._ord)
    data = dump(g)
    assert data["Sector"]["seen_by"] == {"by member": {"ann": ["0401..0102", "0304"], "bob": ["0102", "0304"]}}
    text = dump_text(data)
    assert "    by member:\n      ann: [0401..0102, '0304']\n      bob: ['0102', '0304']\n" in text
    assert fits({"Sector": load_text(text)["Sector"]}, spec.state_schema)  # as a turn reads it
    again = load(spec, load_text(text))
    assert _seen(again) == _seen(g) == {"0401": ["ann"], "0501": ["ann"], "0002": ["ann"],
                                        "0102": ["ann", "bob"], "0304": ["ann", "bob"]}
    assert dump(again) == data
    # Nobody in any sector: the empty layer, as the by-sector form writes it.
    assert dump(new_game(spec, _scenario()))["Sector"]["seen_by"] == {}


def test_a_scenario_may_write_a_set_of_players_either_way(spec: RulesetSpec) -> None:
    by_sector = new_game(spec, _scenario(Sector={"seen_by": {"0101": ["bob", "ann"], "0201": ["ann"]}}))
    by_member = new_game(spec, _scenario(Sector={"seen_by": {"by member": {"bob": ["0101"], "ann": ["0101..0201"]}}}))
    assert _seen(by_sector) == _seen(by_member) == {"0101": ["ann", "bob"], "0201": ["ann"]}


@pytest.mark.parametrize(("layer", "path", "words"), [
    ({"by member": {"zed": ["0101"]}}, "$.Sector.seen_by.by member.zed", "no Player is keyed 'zed'"),
    ({"by member": {"ann": ["0201..0101"]}}, "$.Sector.seen_by.by member.ann[0]", "not back to 0101"),
    ({"by member": {"ann": ["0101..9901"]}}, "$.Sector.seen_by.by member.ann[0]", "column 99 is outside the map"),
    ({"by member": {"ann": [101]}}, "$.Sector.seen_by.by member.ann[0]", "in quotes"),
    ({"by member": {"ann": "0101"}}, "$.Sector.seen_by.by member.ann", "expected a list"),
    ({"by member": {}, "0101": ["ann"]}, "$.Sector.seen_by.0101", "nothing else beside it"),
    # Each sector once, in map order: a short file cannot make a long read by naming the map many times.
    ({"by member": {"ann": ["0101..0401", "0201"]}}, "$.Sector.seen_by.by member.ann[1]", "0201 is not after"),
    ({"by member": {"ann": ["0201", "0101"]}}, "$.Sector.seen_by.by member.ann[1]", "in map order, each once"),
    ({"by member": {"ann": ["0101"], "ANN": ["0201"]}}, "$.Sector.seen_by.by member.ANN", "the same as ann"),
])
def test_a_by_member_layer_s_faults_name_their_json_path(spec: RulesetSpec, layer: dict[str, Any], path: str,
                                                        words: str) -> None:
    with pytest.raises(StateError) as err:
        new_game(spec, _scenario(Sector={"seen_by": layer}))
    assert [e.path for e in err.value.errors] == [path]
    assert words in str(err.value)


def test_the_schema_takes_runs_of_sectors_and_refuses_what_is_not_one(spec: RulesetSpec) -> None:
    good = {"Sector": {"seen_by": {"by member": {"ann": ["0101..0201", "0304"]}}}}
    validate(good, spec.state_schema, "state", fields=True)
    with pytest.raises(Exception, match="seen_by"):
        validate({"Sector": {"seen_by": {"by member": {"ann": ["0101-0201"]}}}}, spec.state_schema, "state",
                 fields=True)
    # Only a set of players (or of a keyed thing) is written by member.
    assert not fits({"Sector": {"visits": {"by member": {}}}}, spec.state_schema)
