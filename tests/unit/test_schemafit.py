"""schemafit.fits on state files -> True only for what jsonschema accepts, and True for the states turns write."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from rulesdsl.compiler import load_module
from rulesdsl.game.folder import GameFolder, _schema, read_yaml
from rulesdsl.game.schemafit import fits

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = [ROOT / "tests" / "golden" / "covert" / "military", ROOT / "tests" / "golden" / "nukecards" / "basics"]


def _accepted(data: Any, schema: dict[str, Any]) -> bool:
    return not any(jsonschema.validators.validator_for(schema)(schema).iter_errors(data))


@pytest.fixture(scope="module")
def states(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(state, the ruleset's state schema) of a new game of each shipped ruleset."""
    found = []
    for example in EXAMPLES:
        rules = ROOT / "rulesets" / f"{example.parent.name}.rules"
        root = tmp_path_factory.mktemp("game") / "g"
        GameFolder.create(rules, root, example / "scenario.yaml", None)
        _, spec = load_module(rules)
        state = read_yaml(root / "turns" / "turn-000" / "state.yaml", "state")
        found.append((state, spec.state_schema))
    return found


def test_the_states_new_writes_fit_without_jsonschema(states: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    for state, schema in states:
        assert fits(state, _schema("state.schema.json"))
        assert fits({k: v for k, v in state.items() if k in schema["properties"]}, schema)


def _places(data: Any, path: tuple[Any, ...], shape: tuple[Any, ...],
            found: dict[tuple[Any, ...], list[tuple[Any, ...]]]) -> None:
    """Each place in `data` by its shape: list items, and the entries of a table (a mapping of records with
    the same fields: things by key) share one shape, so a place repeated for each player or thing counts once."""
    if path:
        found.setdefault(shape, []).append(path)
    if isinstance(data, dict):
        fields = {tuple(v) if isinstance(v, dict) else None for v in data.values()}
        table = len(data) > 1 and len(fields) == 1 and None not in fields
        for k, v in data.items():
            _places(v, (*path, k), (*shape, "*" if table else k), found)
    elif isinstance(data, list):
        for i, v in enumerate(data):
            _places(v, (*path, i), (*shape, "*"), found)


_ODD = [None, True, False, 0, -1, 1.0, 2.5, "", "x" * 41, "ZZ", "a b", [], {}, {"x": 1}, [1], 10**17, "1"]
_ABSENT = object()


def _one_change_away(data: Any, rng: random.Random) -> Iterator[Any]:
    """`data` with each place of its shape changed to each odd value, taken out, and given a stranger beside
    it, one at a time; the change is undone before the next."""
    shapes: dict[tuple[Any, ...], list[tuple[Any, ...]]] = {}
    _places(data, (), (), shapes)
    for shape in sorted(shapes, key=str):
        for change in [*_ODD, "delete", "add"]:
            path = rng.choice(shapes[shape])
            parent = data
            for part in path[:-1]:
                parent = parent[part]
            key = path[-1]
            if change == "add" and isinstance(parent, dict):
                key = rng.choice(["zz", "Name", 7, "NAME"])
            old = parent.get(key, _ABSENT) if isinstance(parent, dict) else parent[key]
            if change == "delete" and isinstance(parent, dict):
                del parent[key]
            else:
                parent[key] = rng.choice(_ODD) if change == "add" else change
            yield data
            if old is _ABSENT:
                parent.pop(key, None)
            else:
                parent[key] = old


def test_fits_never_accepts_what_jsonschema_refuses(states: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    # A fault fits() missed would let a turn load a bad state: jsonschema must accept all that fits() does.
    rng = random.Random(10)
    unsure = 0
    for state, own in states:
        world = {k: v for k, v in copy.deepcopy(state).items() if k in own["properties"]}
        for data, schema in [(copy.deepcopy(state), _schema("state.schema.json")), (world, own)]:
            validator = jsonschema.validators.validator_for(schema)(schema)
            for bad in _one_change_away(data, rng):
                if fits(bad, schema):
                    assert not any(validator.iter_errors(bad)), json.dumps(bad, default=str)[:300]
                else:
                    unsure += 1
    assert unsure > 1000  # the changes do break states: the check above is not empty


@pytest.mark.parametrize(("data", "schema"), [
    (1.0, {"type": "integer"}),  # jsonschema accepts it; fits is not sure, and asks
    (True, {"type": "integer"}),
    (1, {"enum": [True]}),
    ({"a": 1}, {"patternProperties": {"a": {}}, "additionalProperties": False}),
    ([1], {"items": [{"type": "integer"}]}),
    ("x", {"format": "email"}),
    ({1: 2}, {"propertyNames": {"type": "string"}}),
    # Faults the shipped states do not reach one change away.
    ("ZZ", {"enum": ["A", None]}),
    ({"ZZ": 1}, {"propertyNames": {"enum": ["A"]}}),
    ([], {"minItems": 1}),
])
def test_fits_is_not_sure_of_what_it_does_not_know_nor_of_a_fault(data: Any, schema: dict[str, Any]) -> None:
    assert not fits(data, schema)


def test_a_bad_state_is_refused_with_its_path_as_before(tmp_path: Path) -> None:
    example = EXAMPLES[0]
    root = tmp_path / "g"
    GameFolder.create(ROOT / "rulesets" / "covert.rules", root, example / "scenario.yaml", None)
    state = root / "turns" / "turn-000" / "state.yaml"
    state.write_text(state.read_text(encoding="utf-8").replace("turn: 0", "turn: -1", 1), encoding="utf-8")
    with pytest.raises(Exception, match=r"turns/turn-000/state.yaml: \$\.turn: -1 is less than the minimum of 0"):
        GameFolder(root).load_game()
