"""World GM orders and GM orders' defaults -> what the GM's files, history.yaml and each turn's reports show:
a world order given from the CLI and carried out, refused in a player's mail; a default run only in a turn
without its order, in its kinds of turn, once per position for a positional order; `check --defaults`."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rulesdsl.cli import main
from rulesdsl.game import history, store
from rulesdsl.game.errors import GameError
from rulesdsl.game.folder import GameFolder
from tests.unit.rulestools import check_text, show, write_ruleset

RULES = '''ruleset "Defaults" { turn "turn" }
calendar {
  starts 1960 January
  kinds yearly, action, reaction
  cycle {
    January: yearly, action, reaction
    February..December: action, reaction
  }
}
player { cash: int = 0  votes: int = 0 }
world { called: list of int  ruled: list of text }
orders { header "{account}", "{code}" }

# The GM calls the vote on a resolution.
gm world order call "CALL {n}" {
  n: 1..9
  valid n != 9 else "there is no resolution 9"
  effect { add n to world.called }
  # Default: resolution 1 is called at the end of each reaction turn.
  default in reaction turns { add 1 to world.called }
}

gm world order rule "RULE {text}" {
  text: text
  effect { add text to world.ruled }
}

gm order grant "GRANT {n}" {
  n: 1..100
  effect { me.cash += n }
  # Default: 1 to each position the GM granted nothing.
  default { me.cash += 1 }
}

order vote "VOTE" {
  effect { me.votes += 1 }
}
phase voting: run vote
report {
  cash = me.cash
  called = world.called
  ruled = world.ruled
  template "t.report.j2"
}
'''
TEMPLATE = '''{{ game.date }}: cash {{ cash }} called {{ called }} ruled {{ ruled }}
{% for o in orders.used %}used {{ o.text }}: {{ o.status }}
{% endfor %}{% for o in orders.refused %}refused {{ o.text }}: {{ o.reason }}
{% endfor %}'''


def _start(tmp: Path) -> Path:
    path = write_ruleset(tmp / "rules", RULES, TEMPLATE)
    scenario = tmp / "scenario.yaml"
    scenario.write_text(yaml.safe_dump({"seed": 1, "players": [{"name": "Ann", "account": "ann", "code": "A1"},
                                                               {"name": "Bob", "account": "bob", "code": "B2"}]}),
                        encoding="utf-8")
    GameFolder.create(path, tmp / "game", scenario, None)
    return tmp / "game"


def _turn(game: Path, *ann: str) -> tuple[str, str]:
    """Plays the next turn with Ann's lines (if any) and what the GM filed; Ann's report and Bob's."""
    folder = GameFolder(game)
    if ann:
        inbox = game / "inbox" / f"turn-{folder.latest_turn() + 1:03d}"
        inbox.mkdir(parents=True, exist_ok=True)
        (inbox / "ann.txt").write_text("\n".join(["ann", "A1", *ann]) + "\n", encoding="utf-8")
    reports = folder.process_turn(None, force=True).folder / "reports"
    return ((reports / "ann-ann.txt").read_text(encoding="utf-8"),
            (reports / "bob-bob.txt").read_text(encoding="utf-8"))


def test_a_world_order_from_the_cli_is_carried_out_and_recorded_as_the_gms(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = _start(tmp_path)
    assert main(["gm", str(game), "order", "--world", "CALL 3", "RULE no moves in Berlin"]) == 0
    assert "2 line(s) for no position (world orders) filed in" in capsys.readouterr().out
    assert history.read_history(game) == [{"action": "order", "turn": 0, "world": True,
                                         "lines": ["CALL 3", "RULE no moves in Berlin"]}]
    ann, bob = _turn(game)
    # The yearly turn: CALL's default is for reaction turns; GRANT's ran for both, as the GM granted nothing.
    assert ann.splitlines()[0] == "January 1960, yearly: cash 1 called [3] ruled ['no moves in Berlin']"
    assert "CALL" not in ann and "CALL" not in bob  # a world order is no position's
    assert (game / "turns" / "turn-001" / "gm" / "01-001-world.txt").read_text() == \
        "*\n*\nCALL 3\nRULE no moves in Berlin\n"


def test_a_world_order_in_a_players_mail_or_for_a_position_is_refused(tmp_path: Path) -> None:
    game = _start(tmp_path)
    ann, _ = _turn(game, "CALL 2", "VOTE")
    assert "refused CALL 2: a world order is given by the game master for no position" in ann
    assert "called []" in ann and "used VOTE: done" in ann
    with pytest.raises(GameError, match=r'line 1 "CALL 2": a world order is for no position: give it with --world'):
        store.gm_order(game, "ann", ["CALL 2"])
    with pytest.raises(GameError, match=r'line 1 "GRANT 2": not a world GM order'):
        store.gm_order(game, None, ["GRANT 2"])
    with pytest.raises(GameError, match=r'line 1 "CALL 12": .*; nothing was filed'):
        store.gm_order(game, None, ["CALL 12"])


def test_a_default_runs_only_without_its_order_in_its_kinds_and_per_position(tmp_path: Path) -> None:
    game = _start(tmp_path)
    _turn(game)  # January's yearly turn: GRANT's default for both; no CALL default
    store.gm_order(game, "bob", ["GRANT 10"])
    ann, bob = _turn(game)  # the action turn: Ann's default; Bob's GRANT
    assert ann.startswith("January 1960, action: cash 2 called []")
    assert bob.startswith("January 1960, action: cash 11 called []")
    ann, _ = _turn(game)  # the reaction turn: CALL's default
    assert ann.startswith("January 1960, reaction: cash 3 called [1]")
    store.gm_order(game, None, ["CALL 4"])
    ann, _ = _turn(game)  # February's action turn: CALL given, in a kind without its default
    assert ann.startswith("February 1960, action: cash 4 called [1, 4]")
    store.gm_order(game, None, ["CALL 5"])
    ann, _ = _turn(game)  # February's reaction turn: CALL given, so no default
    assert ann.startswith("February 1960, reaction: cash 5 called [1, 4, 5]")
    ann, _ = _turn(game)
    ann, _ = _turn(game)  # March's reaction turn: none given, the default again
    assert ann.startswith("March 1960, reaction: cash 7 called [1, 4, 5, 1]")


def test_a_world_order_that_fails_is_told_to_the_gm_and_runs_the_default(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = _start(tmp_path)
    for _ in range(2):
        _turn(game)
    gm = game / "inbox" / "turn-003" / "gm"
    gm.mkdir(parents=True)
    (gm / "001-world.txt").write_text("*\n*\nCALL 9\nGRANT 3\n")  # written by hand: `gm order` would refuse them
    result = GameFolder(game).process_turn(None, force=True)
    assert result.unrouted == ['gm/001-world.txt: line 3 "CALL 9" (the GM\'s world order): there is no resolution 9',
                               'gm/001-world.txt: line 4 "GRANT 3" (the GM\'s world order): not a world GM order: '
                               'give it for a position, with `rulesdsl gm GAMEDIR order ACCOUNT`']
    assert "called [1]" in (result.folder / "reports" / "ann-ann.txt").read_text()


def test_check_defaults_lists_each_default_with_its_comment(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = write_ruleset(tmp_path, RULES.replace("gm world order rule", "# Anything the rulebook leaves to the GM.\n"
                                                  "gm world order rule").replace(
        "  effect { add text to world.ruled }\n", "  effect { add text to world.ruled }\n  default { }\n"), TEMPLATE)
    assert main(["check", "--defaults", str(path)]) == 0
    first = capsys.readouterr().out
    assert first == f"""{path}: ok
{path}: 3 defaults of GM orders, run after the turn's last phase when the GM gave none

call "CALL {{n}}" (world GM order), in reaction turns, line 20:
  Default: resolution 1 is called at the end of each reaction turn.

rule "RULE {{text}}" (world GM order), in every turn, line 27:
  Anything the rulebook leaves to the GM.

grant "GRANT {{n}}" (GM order, once for each position without one), in every turn, line 34:
  Default: 1 to each position the GM granted nothing.
"""
    assert main(["check", "--defaults", str(path)]) == 0
    assert capsys.readouterr().out == first  # deterministic


def test_a_default_showing_a_secret_parameter_is_refused(tmp_path: Path) -> None:
    rules = RULES.replace("player {", "secret param odds: int = 3\nplayer {").replace(
        "default { me.cash += 1 }", 'default { tell me "odds {odds}" }')
    checked = check_text(tmp_path, rules, TEMPLATE)
    assert [d.code for d in checked.diagnostics] == ["E0307"], show(checked.diagnostics)


def test_default_and_world_still_name_fields_arguments_and_report_fields(tmp_path: Path) -> None:
    rules = RULES.replace("player { cash: int = 0", "player { default: int = 0  cash: int = 0").replace(
        'order vote "VOTE" {\n  effect { me.votes += 1 }', 'order vote "VOTE {default}" {\n  default: 1..3\n'
        '  effect { me.votes += default }').replace("  ruled = world.ruled\n",
                                                 "  ruled = world.ruled\n  default = me.default\n")
    checked = check_text(tmp_path, rules, TEMPLATE + "{{ default }}")
    assert checked.ok and not checked.diagnostics, show(checked.diagnostics)


def test_gm_order_without_lines_is_refused_by_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = _start(tmp_path)
    assert main(["gm", str(game), "order", "ann"]) == 2
    assert "give the order's lines after the account ann" in capsys.readouterr().err
    assert store.gm_files(game) == []


def test_a_world_order_reads_a_numbered_thing_as_it_is_carried_out(tmp_path: Path) -> None:
    rules = RULES.replace("player {", "thing Motion numbered { votes: int = 0 }\nplayer {").replace(
        "gm world order rule", '''gm world order back "BACK {motion}" {
  motion: Motion
  effect { motion.votes += 1 }
}
phase motions at start { let m = new Motion() }
gm world order rule''').replace("  ruled = world.ruled\n", "  ruled = [\"{m.votes}\" for m in Motion]\n")
    path = write_ruleset(tmp_path / "rules", rules, TEMPLATE)
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(yaml.safe_dump({"seed": 1, "players": [{"name": "Ann", "account": "ann", "code": "A1"},
                                                               {"name": "Bob", "account": "bob", "code": "B2"}]}),
                        encoding="utf-8")
    game = GameFolder.create(path, tmp_path / "game", scenario, None).root
    store.gm_order(game, None, ["BACK 1", "BACK 2"])
    result = GameFolder(game).process_turn(None, force=True)
    assert result.unrouted == ['gm/001-world.txt: line 4 "BACK 2" (the GM\'s world order): there is no motion 2']
    assert "ruled ['1']" in (result.folder / "reports" / "ann-ann.txt").read_text()
