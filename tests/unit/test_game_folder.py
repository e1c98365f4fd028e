"""Game folders: bad scenarios and corrupted state files are refused with the JSON path of the fault and
nothing written; the same game played twice gives the same bytes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from rulesdsl.cli import main
from rulesdsl.game.folder import GameError, GameFolder
from rulesdsl.game.names import report_base
from rulesdsl.runtime.report import render, report_data
from tests.unit.rulestools import BASE, COVERT, ROOT, file_tree, write_ruleset

PLAYERS = '''players:
  - {name: Ann, account: "1", code: A1}
  - {name: Bob, account: "2", code: B2}
  - {name: Cid, account: "3", code: C3}
'''


def _refused(tmp_path: Path, scenario_text: str) -> str:
    """Starts a covert game from `scenario_text`; asserts it is refused without a trace; returns why."""
    parent = tmp_path / "games"
    parent.mkdir()
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(scenario_text, encoding="utf-8")
    with pytest.raises(GameError) as info:
        GameFolder.create(COVERT, parent / "game", scenario, None)
    assert list(parent.iterdir()) == [], "a refused game leaves nothing behind"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games", "scenario.yaml"]
    return str(info.value)


@pytest.mark.parametrize(("scenario", "path", "words"), [
    (PLAYERS.replace("name: Bob", "name: 5"), "$.players[1].name", "5"),
    (PLAYERS.replace("code: B2", "code: [B, 2]"), "$.players[1].code", ""),
    (PLAYERS.replace("code: C3}", "code: C3, cash: lots}"), "$.players[2].cash", "lots"),
    (PLAYERS + "Country:\n  ARG: {troops: many}\n", "$.Country.ARG.troops", "many"),
    (PLAYERS + "Country:\n  ARG: {influence: {\"9\": 3}}\n", "$.Country.ARG.influence.9", "9"),
    (PLAYERS + "Country:\n  ARG: {adjacent: [ZZZ]}\n", "$.Country.ARG.adjacent[0]", "ZZZ"),
    (PLAYERS + "parameters:\n  starting_cash: 3.5\n", "$.parameters.starting_cash", "3.5"),
    (PLAYERS + "seed: soon\n", "$.seed", "soon"),
    (PLAYERS + "game: {number: 3, colour: red}\n", "$.game", "colour"),
], ids=["player-name", "player-code", "player-cash", "country-troops", "influence-key", "adjacent-key",
        "parameter", "seed", "game-section"])
def test_wrong_types_are_refused_with_their_path(tmp_path: Path, scenario: str, path: str, words: str) -> None:
    message = _refused(tmp_path, scenario)
    assert message.startswith("scenario.yaml: ")
    assert f" {path}: " in message, message
    assert words in message


def test_unknown_country_key_is_refused_with_its_path(tmp_path: Path) -> None:
    message = _refused(tmp_path, PLAYERS + "Country:\n  ARG: {troops: 3}\n  XYZ: {troops: 3}\n")
    assert "$.Country.XYZ" in message or ("$.Country: " in message and "'XYZ'" in message), message


def test_unknown_field_is_refused_with_its_path(tmp_path: Path) -> None:
    message = _refused(tmp_path, PLAYERS + "Country:\n  ARG: {troopz: 3}\n")
    assert "$.Country.ARG" in message and "troopz" in message, message


def test_unknown_player_field_is_refused_with_its_path(tmp_path: Path) -> None:
    message = _refused(tmp_path, PLAYERS.replace("code: B2}", "code: B2, cassh: 3}"))
    assert "$.players[1]" in message and "cassh" in message, message


def test_unknown_parameter_is_refused(tmp_path: Path) -> None:
    message = _refused(tmp_path, PLAYERS + "parameters:\n  nope: 3\n")
    assert "$.parameters" in message and "nope" in message


def test_unknown_section_is_refused(tmp_path: Path) -> None:
    message = _refused(tmp_path, PLAYERS + "Countries: {}\n")
    assert "$.Countries" in message


def test_duplicate_account_is_refused(tmp_path: Path) -> None:
    message = _refused(tmp_path, PLAYERS.replace('account: "3"', 'account: "1"'))
    assert "$.players[2].account" in message and "1" in message


def test_duplicate_account_of_another_type_is_refused(tmp_path: Path) -> None:
    message = _refused(tmp_path, PLAYERS.replace('account: "2"', "account: 1"))
    assert "$.players[1].account" in message


def test_accounts_differing_only_in_case_are_refused(tmp_path: Path) -> None:
    # Orders are routed by account without regard to case, so the second could never give orders.
    scenario = PLAYERS.replace('account: "1"', 'account: "ab"').replace('account: "2"', 'account: "AB"')
    message = _refused(tmp_path, scenario)
    assert "$.players[1].account" in message


def test_no_players_is_refused(tmp_path: Path) -> None:
    message = _refused(tmp_path, "players: []\n")
    assert "$.players" in message


def test_bad_yaml_is_refused_with_its_line(tmp_path: Path) -> None:
    message = _refused(tmp_path, PLAYERS + "Country: [\n")
    assert "not valid YAML" in message and "line" in message


def test_scenario_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    parent = tmp_path / "games"
    parent.mkdir()
    scenario = tmp_path / "scenario.yaml"
    scenario.write_bytes(PLAYERS.replace("name: Ann", "name: Café").encode("latin-1"))
    with pytest.raises(GameError) as info:
        GameFolder.create(COVERT, parent / "game", scenario, None)
    assert str(info.value).startswith("scenario.yaml: ")
    assert list(parent.iterdir()) == []


def test_a_game_is_never_started_over_another(tmp_path: Path) -> None:
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(PLAYERS, encoding="utf-8")
    game = tmp_path / "game"
    game.mkdir()
    (game / "notes.txt").write_text("mine\n", encoding="utf-8")
    with pytest.raises(GameError):
        GameFolder.create(COVERT, game, scenario, None)
    assert file_tree(game) == {"notes.txt": file_tree(game)["notes.txt"]}


# ---------------------------------------------------------------- corrupted state files

@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("started")
    scenario = base / "scenario.yaml"
    scenario.write_text(PLAYERS, encoding="utf-8")
    folder = GameFolder.create(COVERT, base / "game", scenario, 3)
    folder.load_game()  # compiles once into the shared cache, so the copies load it from there
    return folder.root


def _state_copy(started: Path, tmp_path: Path) -> tuple[GameFolder, Path]:
    root = tmp_path / "game"
    shutil.copytree(started, root)
    return GameFolder(root), root / "turns" / "turn-000" / "state.yaml"


def _set(data: dict[str, Any], path: list[Any], value: Any) -> None:
    target: Any = data
    for part in path[:-1]:
        target = target[part]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value


_DELETE = object()


@pytest.mark.parametrize(("where", "value", "expected"), [
    (["turn"], "x", "$.turn"),
    (["players", 1, "cash"], "lots", "$.players[1].cash"),
    (["players", 0, "name"], _DELETE, "$.players[0].name"),
    (["players", 2, "superspy"], "XXX", "$.players[2].superspy"),
    (["Country", "ARG", "troops"], "many", "$.Country.ARG.troops"),
    (["Country", "ARG", "influence"], {"77": 3}, "$.Country.ARG.influence.77"),
    (["Country", "ARG", "bogus"], 3, "$.Country.ARG.bogus"),
    (["parameters", "starting_cash"], "x", "$.parameters.starting_cash"),
    (["engine", "on_file"], {"1": [3]}, "$.engine.on_file.1[0]"),
    (["engine", "streaks"], {"majority": {"1": "x"}}, "$.engine.streaks.majority.1"),
    (["ruleset", "title"], "Another Game", "$.ruleset.title"),
    (["engine"], _DELETE, "$.engine"),
], ids=["turn", "cash", "name", "superspy", "troops", "influence-key", "unknown-field", "parameter", "on-file",
        "streaks", "title", "engine"])
def test_corrupted_state_is_refused_with_its_path(started: Path, tmp_path: Path, where: list[Any], value: Any,
                                                  expected: str) -> None:
    folder, state = _state_copy(started, tmp_path)
    data = yaml.safe_load(state.read_text(encoding="utf-8"))
    _set(data, where, value)
    state.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    before = file_tree(folder.root)
    with pytest.raises(GameError) as info:
        folder.load_game()
    message = str(info.value)
    assert message.startswith("turns/turn-000/state.yaml: "), message
    assert f" {expected}: " in message, message
    with pytest.raises(GameError):
        folder.process_turn([])
    assert file_tree(folder.root) == before


@pytest.mark.parametrize("text", ["players: [\n", "- 1\n- 2\n", "", "just words\n"])
def test_state_that_is_not_a_mapping_is_refused(started: Path, tmp_path: Path, text: str) -> None:
    folder, state = _state_copy(started, tmp_path)
    state.write_text(text, encoding="utf-8")
    with pytest.raises(GameError) as info:
        folder.load_game()
    message = str(info.value)
    assert message.startswith("turns/turn-000/state.yaml: ")
    assert "$" in message or "not valid YAML" in message


# ---------------------------------------------------------------- the same game twice

DAY2 = {
    "a.txt": "CO-175\n20408\nALPHA789\nK,MEX,3\nT,FRA,4\nR,GER,2\nS,MEX,1\nB,MEX,2\n",
    "b.txt": "CO-175\n1001\nEYE1776\nK,JPN,5\nT,FRA,2\nR,GER,3\nA,FRA,2\nC,FRA,GER,1\nX,MEX\n",
    "c.txt": "CO-175\n4321\nINK8\nT,FRA,3\nK,FRA,4\nG,JPN,2\n",
}


def _play(root: Path, tmp_path: Path) -> GameFolder:
    folder = GameFolder.create(COVERT, root, ROOT / "examples" / "covert" / "scenario.yaml", None)
    folder.process_turn(sorted((ROOT / "examples" / "covert" / "day1").glob("*.txt")))
    day2 = tmp_path / "day2"
    day2.mkdir(exist_ok=True)
    for name, text in DAY2.items():
        (day2 / name).write_text(text, encoding="utf-8")
    folder.process_turn(sorted(day2.glob("*.txt")))
    return folder


def test_the_same_game_twice_gives_identical_files(tmp_path: Path) -> None:
    one = _play(tmp_path / "one", tmp_path)
    two = _play(tmp_path / "two", tmp_path)
    tree = file_tree(one.root)
    assert tree == file_tree(two.root)
    assert "turns/turn-002/state.yaml" in tree and "turns/turn-002/news.txt" in tree
    assert len([k for k in tree if k.startswith("turns/turn-002/reports/") and k.endswith(".txt")]) == 6
    news = (one.root / "turns" / "turn-002" / "news.txt").read_text(encoding="utf-8")
    assert "assassination" in news or "Terrorists" in news  # chance was drawn: the test means something
    for path in one.root.rglob("*"):
        if path.is_file():
            assert str(tmp_path) not in path.read_text(encoding="utf-8", errors="replace"), path



def test_an_unknown_key_is_named_in_the_path_with_a_suggestion(tmp_path: Path) -> None:
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text('players:\n  - {name: "X", account: "1", code: "A"}\nCountry:\n  MEK: {troops: 3}\n',
                        encoding="utf-8")
    with pytest.raises(GameError, match=r"scenario.yaml: \$\.Country\.MEK: no such key; did you mean MEX\?"):
        GameFolder.create(COVERT, tmp_path / "game", scenario, None)
    assert not (tmp_path / "game").exists()


def test_a_folder_that_is_not_a_game_is_refused(tmp_path: Path) -> None:
    with pytest.raises(GameError, match="not a game folder"):
        GameFolder(tmp_path / "nothing").process_turn([])


DECIMAL_RULES = '''ruleset "D" { version "1" turn "turn" }
param rate: decimal = 0.5
thing Pot keyed by code { level: decimal = 0 }
data Pot(code, level) { A: 0 }
player { score: decimal = 0 }
phase grow {
  for each p in Pot { p.level = p.level + rate }
  for each q in players { q.score = q.score + 1 / 3 }
}
report { level = sum(p.level for p in Pot)  template "d.report.j2" }
'''


def test_decimals_go_through_scenario_and_state_exactly(tmp_path: Path) -> None:
    (tmp_path / "d.rules").write_text(DECIMAL_RULES, encoding="utf-8")
    (tmp_path / "d.report.j2").write_text("{{ level }}\n", encoding="utf-8")
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text('parameters: {rate: 0.25}\nplayers:\n  - {name: "X", account: "1", code: "A", score: "3/20"}\n'
                        "Pot:\n  A: {level: 1.5}\n", encoding="utf-8")
    folder = GameFolder.create(tmp_path / "d.rules", tmp_path / "game", scenario, None)
    result = folder.process_turn([])
    state = yaml.safe_load((result.folder / "state.yaml").read_text(encoding="utf-8"))
    assert state["Pot"]["A"]["level"] == "7/4"
    assert state["players"][0]["score"] == "29/60"  # 3/20 + 1/3, exactly
    assert (result.folder / "reports" / "1-x.txt").read_text(encoding="utf-8") == "1.75\n"
    assert folder.load_game().turn == 1  # the state file with decimals reads back


def test_a_data_rows_fraction_starts_a_game(tmp_path: Path) -> None:
    """A data row's decimal that is not whole (0.5: Fraction(1, 2) in the generated module) went to the state
    as it is, and `new` refused it: "expected a number, not Fraction(1, 2)". WCG's populations and
    currencies are such values."""
    rules = DECIMAL_RULES.replace("data Pot(code, level) { A: 0 }", "data Pot(code, level) { A: 0.5  B: 12.5 }")
    (tmp_path / "d.rules").write_text(rules, encoding="utf-8")
    (tmp_path / "d.report.j2").write_text("{{ level }}\n", encoding="utf-8")
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text('players:\n  - {name: "X", account: "1", code: "A"}\n', encoding="utf-8")
    folder = GameFolder.create(tmp_path / "d.rules", tmp_path / "game", scenario, None)
    state = yaml.safe_load((tmp_path / "game" / "turns" / "turn-000" / "state.yaml").read_text(encoding="utf-8"))
    assert state["Pot"] == {"A": {"level": "1/2"}, "B": {"level": "25/2"}}
    result = folder.process_turn([])
    assert (result.folder / "reports" / "1-x.txt").read_text(encoding="utf-8") == "14\n"  # 0.5 + 12.5 + 2 x 0.5


# ---------------------------------------------------------------- the starting reports (turn 0)

def test_new_writes_every_players_starting_report_as_a_turn_writes_it(started: Path) -> None:
    # Players see their position before their first orders: turn-000/reports/ holds, for each player, the
    # text, its data and its page, under the names and in the form a turn's reports/ has.
    game = GameFolder(started).load_game()
    reports = started / "turns" / "turn-000" / "reports"
    assert sorted(p.name for p in reports.iterdir()) == [f"{b}.{x}" for b in ("1-ann", "2-bob", "3-cid")
                                                          for x in ("html", "json", "txt")]
    for p in game.all_players:
        data = report_data(game, p)
        base = report_base(p.account, p.name)
        assert (reports / f"{base}.json").read_text(encoding="utf-8") == \
            json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        assert (reports / f"{base}.txt").read_text(encoding="utf-8") == render(game.spec, data)
        assert data["game"]["turn"] == 0 and data["player"]["code"] == p.code


def test_a_starting_report_that_fails_makes_no_game(tmp_path: Path) -> None:
    # The starting report runs the ruleset's report code: if it fails, nothing is left half made.
    rules = write_ruleset(tmp_path / "rules", BASE.replace("  cash = me.cash\n",
                                                           "  cash = me.cash\n  per_move = me.cash div me.moves\n"),
                          "Cash {{ cash }} {{ per_move }}\n")
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(PLAYERS, encoding="utf-8")
    parent = tmp_path / "games"
    with pytest.raises(GameError) as info:
        GameFolder.create(rules, parent / "game", scenario, None)
    assert str(info.value).startswith("the game was not made: "), info.value
    assert "t.rules:29" in str(info.value)  # the report line that failed
    assert not parent.exists()


def test_new_lists_the_starting_reports_and_shows_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(PLAYERS, encoding="utf-8")
    game = tmp_path / "game"
    assert main(["new", str(COVERT), str(game), "--scenario", str(scenario), "--show", "2"]) == 0
    out = capsys.readouterr().out
    reports = game / "turns" / "turn-000" / "reports"
    assert f"  {reports / '1-ann.txt'}  (Ann)\n  {reports / '2-bob.txt'}  (Bob)\n" in out
    assert out.endswith("\n\n" + (reports / "2-bob.txt").read_text(encoding="utf-8"))
    assert "Position:          Bob" in out and "Position:          Ann" not in out



def test_new_prints_its_summary_without_reading_the_game_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `rulesdsl new` read the state it had just written a second time to print its summary."""
    reads: list[Path] = []
    load_game = GameFolder.load_game

    def counted(self: GameFolder) -> Any:
        reads.append(self.root)
        return load_game(self)

    monkeypatch.setattr(GameFolder, "load_game", counted)
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(PLAYERS.replace('code: C3}', 'code: C3, active: false}'), encoding="utf-8")
    game = tmp_path / "game"
    assert main(["new", str(COVERT), str(game), "--scenario", str(scenario)]) == 0
    assert len(reads) == 1, reads  # the read that makes the starting reports, in the folder being made
    start = game / "turns" / "turn-000"
    made = GameFolder(game).load_game()
    # The summary, byte for byte: every player counted, the reports of those who get one.
    assert capsys.readouterr().out == (
        f"{made.spec.title} {made.meta.get('id', '')}: a new game in {game} with 3 players.\n"
        f"{game}: 2 starting report(s), turn 0:\n"
        f"  {start / 'reports' / '1-ann.txt'}  (Ann)\n"
        f"  {start / 'reports' / '2-bob.txt'}  (Bob)\n"
        f"  starting state: {start / 'state.yaml'}\n")

def test_new_warns_when_there_is_no_report_to_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(PLAYERS, encoding="utf-8")
    assert main(["new", str(COVERT), str(tmp_path / "game"), "--scenario", str(scenario), "--show", "Zed"]) == 0
    assert capsys.readouterr().err == "warning: no report for Zed\n"
