"""YAML from outside is bounded: aliases, huge integers and deep nesting in scenarios, state files and
game.yaml are refused with their JSON path, quickly; our own state files never hold an alias."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from rulesdsl.game import folder as folder_module
from rulesdsl.game.folder import GameError, GameFolder, write_yaml
from rulesdsl.runtime.state import StateError, decode
from tests.unit.rulestools import COVERT, ROOT

PLAYERS = '''players:
  - {name: Ann, account: "1", code: A1}
  - {name: Bob, account: "2", code: B2}
'''

LAUGHS = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{chr(c + 1)}: &{chr(c + 1)} [{', '.join([f'*{chr(c)}'] * 9)}]\n" for c in range(ord("a"), ord("i")))

LOADERS = [pytest.param(getattr(yaml, "CSafeLoader", yaml.SafeLoader), id="libyaml"),
           pytest.param(yaml.SafeLoader, id="python")]


@pytest.fixture(params=LOADERS)
def loader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(folder_module, "_LOADER", request.param, raising=False)
    monkeypatch.setattr("rulesdsl.game.yamlio.LOADER", request.param, raising=False)
    return request.param


def _refused(tmp_path: Path, text: str) -> str:
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(text, encoding="utf-8")
    start = time.monotonic()
    with pytest.raises(GameError) as info:
        GameFolder.create(COVERT, tmp_path / "game", scenario, None)
    assert time.monotonic() - start < 5
    assert not (tmp_path / "game").exists()
    return str(info.value)


def test_billion_laughs_is_refused_at_once(tmp_path: Path, loader: Any) -> None:
    message = _refused(tmp_path, PLAYERS + "world:\n" + "".join(f"  {line}\n" for line in LAUGHS.splitlines()))
    assert message.startswith("scenario.yaml: $.world.b[0]: "), message
    assert "alias" in message


def test_an_alias_is_refused_with_its_path(tmp_path: Path, loader: Any) -> None:
    text = 'players:\n  - &p {name: Ann, account: "1", code: A1}\n  - *p\n'
    assert _refused(tmp_path, text).startswith("scenario.yaml: $.players[1]: ")


def test_a_merge_key_is_refused(tmp_path: Path, loader: Any) -> None:
    text = 'base: &b {code: A1}\nplayers:\n  - {<<: *b, name: Ann, account: "1"}\n'
    assert _refused(tmp_path, text).startswith("scenario.yaml: $.players[0].<<: ")


def test_a_self_referencing_alias_is_refused(tmp_path: Path, loader: Any) -> None:
    assert _refused(tmp_path, PLAYERS + "world: &w {x: *w}\n").startswith("scenario.yaml: $.world.x: ")


@pytest.mark.parametrize("digits", [19, 5000])
def test_a_huge_integer_is_refused_with_its_path(tmp_path: Path, loader: Any, digits: int) -> None:
    message = _refused(tmp_path, PLAYERS + f"seed: {'9' * digits}\n")
    assert message.startswith("scenario.yaml: $.seed: "), message
    assert len(message) < 300


def test_a_huge_integer_in_a_field_is_refused(tmp_path: Path, loader: Any) -> None:
    message = _refused(tmp_path, PLAYERS.replace("code: B2}", f"code: B2, cash: {'1' * 5000}}}"))
    assert message.startswith("scenario.yaml: $.players[1].cash: "), message


def test_deep_nesting_is_refused(tmp_path: Path, loader: Any) -> None:
    message = _refused(tmp_path, PLAYERS + "world: " + "[" * 5000 + "]" * 5000 + "\n")
    assert message.startswith("scenario.yaml: "), message


def test_an_18_digit_integer_is_still_a_number(tmp_path: Path) -> None:
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(PLAYERS + f"seed: {'9' * 18}\n", encoding="utf-8")
    folder = GameFolder.create(COVERT, tmp_path / "game", scenario, None)
    assert folder.load_game().seed == 10 ** 18 - 1


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("yaml")
    folder = GameFolder.create(COVERT, base / "game", ROOT / "examples" / "covert" / "scenario.yaml", None)
    folder.load_game()
    return folder.root


def test_an_alias_in_a_state_file_is_refused(started: Path, tmp_path: Path, loader: Any) -> None:
    shutil.copytree(started, tmp_path / "game")
    state = tmp_path / "game" / "turns" / "turn-000" / "state.yaml"
    text = state.read_text(encoding="utf-8").replace("players:\n", "players: &all\n", 1) + "extra: *all\n"
    state.write_text(text, encoding="utf-8")
    with pytest.raises(GameError, match=r"^turns/turn-000/state.yaml: \$\.extra: .*alias"):
        GameFolder(tmp_path / "game").load_game()


def test_an_alias_in_game_yaml_is_refused(started: Path, tmp_path: Path, loader: Any) -> None:
    shutil.copytree(started, tmp_path / "game")
    (tmp_path / "game" / "game.yaml").write_text("x: &r rules/covert.rules\nrules: *r\n", encoding="utf-8")
    with pytest.raises(GameError, match=r"^game.yaml: \$\.rules: .*alias"):
        GameFolder(tmp_path / "game").load_game()


def test_our_own_yaml_never_holds_an_alias(tmp_path: Path) -> None:
    shared = ["X", "Y"]
    write_yaml(tmp_path / "s.yaml", {"a": shared, "b": shared, "c": {"d": shared}})
    text = (tmp_path / "s.yaml").read_text(encoding="utf-8")
    assert "&" not in text and "*" not in text
    assert yaml.safe_load(text) == {"a": shared, "b": shared, "c": {"d": shared}}


@pytest.mark.parametrize(("value", "kind"), [(10 ** 18, "int"), (-(10 ** 18), "money"),
                                              ("1" * 1001, "decimal"), ("1/" + "3" * 1001, "decimal")])
def test_decode_refuses_numbers_out_of_bounds(value: Any, kind: str) -> None:
    with pytest.raises(StateError) as info:
        decode(None, value, (kind,), "$.players[0].cash")  # type: ignore[arg-type]
    assert str(info.value).startswith("$.players[0].cash: ")
    assert decode(None, 10 ** 18 - 1, ("int",), "$.x") == 10 ** 18 - 1  # type: ignore[arg-type]


def test_the_schemas_have_no_duplicate_keys() -> None:
    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [k for k, _ in pairs]
        assert len(keys) == len(set(keys)), keys
        return dict(pairs)

    for path in sorted((ROOT / "rulesdsl" / "schemas").glob("*.json")):
        json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=no_duplicates)


def test_very_deep_nesting_is_refused_at_once(tmp_path: Path, loader: Any) -> None:
    # LibYAML's own composer overflows the C stack here (the process dies), and its parser is quadratic.
    message = _refused(tmp_path, PLAYERS + "world: " + "[" * 200_000 + "]" * 200_000 + "\n")
    # LibYAML 0.2.5 (in PyYAML 6.0.4's wheels) refuses past 1000 levels itself, before the composer's
    # limit is reached: either way the file is refused at once, with where.
    if not message.startswith("scenario.yaml: not valid YAML at line 4"):
        assert message.startswith("scenario.yaml: $.world[0][0]"), message[:80]
        assert "nested more than" in message
