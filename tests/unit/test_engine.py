"""Turn engine: which orders a player's turn takes (limits, budget, STOP, DISCARD, once per turn, orders
on file), and runtime errors that name the rules line and what was being done."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulesdsl.game.folder import GameError, GameFolder
from rulesdsl.runtime.core import RulesError
from rulesdsl.runtime.engine import Game
from tests.unit.rulestools import Loaded, file_tree, load_text, write_ruleset


def sel_rules(policy: str) -> str:
    return f'''ruleset "Sel" {{ version "1" turn "turn" }}

player {{
  budget: int = 0
  log: list of text reset each turn
}}

orders {{
  header "{{account}}", "{{code}}"
{policy}
}}

order note "N,{{word}}" {{
  word: text
  effect {{
    add word to me.log
  }}
}}

order mark "M,{{slot}}" {{
  slot: int
  once per turn per slot
  effect {{
    add "m{{slot}}" to me.log
  }}
}}

stop order stop "STOP"
discard order discard "DISCARD"

phase notes: run note
phase marks: run mark

report {{
  log = me.log
  template "sel.report.j2"
}}
'''


POLICIES = {
    "limit": "  at most 3 per turn",
    "budget": "  budget budget starts at 2 plus 1 each turn",
    "new-limit": "  at most 4 new per turn",
    "plain": "",
}


@pytest.fixture(scope="module")
def rulesets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Loaded]:
    base = tmp_path_factory.mktemp("sel")
    return {name: load_text(base / name, sel_rules(policy), "{{ log }}\n", "sel", base / "cache")
            for name, policy in POLICIES.items()}


def submit(g: Game, *lines: str, player: int = 1, code: str | None = None) -> None:
    """Processes one turn with one submission from player N (account N, code A, B, ...)."""
    code = code or chr(ord("A") + player - 1)
    g.process_turn([(f"p{player}.txt", "\n".join([str(player), code, *lines]) + "\n")])


def used(g: Game, player: int = 1) -> list[str]:
    return [r.text for r in g.turns[str(player)].used]


def refused(g: Game, player: int = 1) -> list[tuple[int, str, str]]:
    return [(r.line, r.text, r.reason) for r in g.turns[str(player)].refused]


def log(g: Game, player: int = 1) -> list[str]:
    return list(g.all_players[player - 1].log)  # type: ignore[attr-defined]


def on_file(g: Game, player: int = 1) -> list[str]:
    return list(g.on_file.get(str(player), []))


# ---------------------------------------------------------------- at most N per turn

def test_at_most_n_per_turn_keeps_the_rest_on_file_in_order(rulesets: dict[str, Loaded]) -> None:
    g = rulesets["limit"].new_game()
    submit(g, "N,a", "N,b", "N,c", "N,d", "N,e")
    assert log(g) == ["a", "b", "c"]
    assert on_file(g) == ["N,d", "N,e"]
    assert refused(g) == []


def test_orders_on_file_come_first_and_keep_their_order(rulesets: dict[str, Loaded]) -> None:
    g = rulesets["limit"].new_game()
    submit(g, "N,a", "N,b", "N,c", "N,d", "N,e", "N,f", "N,g")
    submit(g, "N,h", "N,i")
    assert log(g) == ["d", "e", "f"]
    assert on_file(g) == ["N,g", "N,h", "N,i"]
    submit(g)
    assert log(g) == ["g", "h", "i"]
    assert on_file(g) == []


def test_orders_from_file_are_reported_without_a_line(rulesets: dict[str, Loaded]) -> None:
    g = rulesets["limit"].new_game()
    submit(g, "N,a", "N,b", "N,c", "N,d")
    submit(g, "N,e")
    assert [(r.text, r.line) for r in g.turns["1"].used] == [("N,d", 0), ("N,e", 3)]


def test_each_player_has_own_limit(rulesets: dict[str, Loaded]) -> None:
    g = rulesets["limit"].new_game()
    g.process_turn([("a.txt", "1\nA\nN,a1\nN,a2\nN,a3\nN,a4\n"), ("b.txt", "2\nB\nN,b1\nN,b2\n")])
    assert (log(g, 1), log(g, 2)) == (["a1", "a2", "a3"], ["b1", "b2"])
    assert (on_file(g, 1), on_file(g, 2)) == (["N,a4"], [])


def test_refused_orders_do_not_count_against_the_limit(rulesets: dict[str, Loaded]) -> None:
    g = rulesets["limit"].new_game()
    submit(g, "N,a", "M,1", "M,1", "M,x", "N,b", "N,c", "N,d")
    assert used(g) == ["N,a", "M,1", "N,b"]
    assert sorted(line for line, _, _ in refused(g)) == [5, 6]
    assert on_file(g) == ["N,c", "N,d"]


# ---------------------------------------------------------------- budget

def test_budget_caps_the_orders_and_grows_each_turn(rulesets: dict[str, Loaded]) -> None:
    g = rulesets["budget"].new_game()
    ann = g.all_players[0]
    assert ann.budget == 2  # type: ignore[attr-defined]
    submit(g, "N,a", "N,b", "N,c", "N,d", "N,e", "N,f")
    assert log(g) == ["a", "b"]
    assert ann.budget == 0 + 1  # type: ignore[attr-defined]
    submit(g)
    assert log(g) == ["c"]
    assert ann.budget == 1  # type: ignore[attr-defined]
    submit(g)
    assert log(g) == ["d"]
    assert on_file(g) == ["N,e", "N,f"]


def test_unused_budget_is_kept(rulesets: dict[str, Loaded]) -> None:
    g = rulesets["budget"].new_game()
    submit(g)
    submit(g)
    assert g.all_players[0].budget == 4  # type: ignore[attr-defined]
    submit(g, "N,a", "N,b", "N,c", "N,d", "N,e", "N,f")
    assert log(g) == ["a", "b", "c", "d"]
    assert on_file(g) == ["N,e", "N,f"]


# ---------------------------------------------------------------- at most N new per turn

def test_at_most_n_new_orders_are_accepted(rulesets: dict[str, Loaded]) -> None:
    g = rulesets["new-limit"].new_game()
    submit(g, "N,a", "N,b", "N,c", "N,d", "N,e", "N,f")
    assert log(g) == ["a", "b", "c", "d"]
    assert [(line, text) for line, text, _ in refused(g)] == [(7, "N,e"), (8, "N,f")]
    assert all("no more than 4 new orders" in reason for _, _, reason in refused(g))
    assert on_file(g) == []


def test_stop_lines_count_as_new_orders(rulesets: dict[str, Loaded]) -> None:
    """STOP is an order of the mail like any other: without the limit, 500 STOP lines a turn put 499 more
    on file each turn, and the state grew without end."""
    g = rulesets["new-limit"].new_game()
    submit(g, "N,a", *["STOP"] * 10)
    assert log(g) == ["a"]
    assert on_file(g) == ["STOP", "STOP"]
    assert [line for line, _, _ in refused(g)] == list(range(7, 14))
    assert all("no more than 4 new orders" in reason for _, _, reason in refused(g))
    # Like any orders saved for later days, at most the limit a turn (less the STOP the turn stops at).
    submit(g, *["STOP"] * 10)
    assert on_file(g) == ["STOP"] * 5


# ---------------------------------------------------------------- STOP

def test_stop_ends_the_turn_and_the_rest_waits(rulesets: dict[str, Loaded]) -> None:
    g = rulesets["plain"].new_game()
    submit(g, "N,a", "STOP", "N,b", "N,c")
    assert log(g) == ["a"]
    assert on_file(g) == ["N,b", "N,c"]
    submit(g, "N,d")
    assert log(g) == ["b", "c", "d"]
    assert on_file(g) == []


def test_stop_on_file_ends_a_later_turn(rulesets: dict[str, Loaded]) -> None:
    g = rulesets["limit"].new_game()
    submit(g, "N,a", "N,b", "N,c", "N,d", "STOP", "N,e")
    assert log(g) == ["a", "b", "c"]
    assert on_file(g) == ["N,d", "STOP", "N,e"]
    submit(g, "N,f")
    assert log(g) == ["d"]
    assert on_file(g) == ["N,e", "N,f"]


def test_stop_right_after_a_full_turn_is_used_up(rulesets: dict[str, Loaded]) -> None:
    g = rulesets["limit"].new_game()
    submit(g, "N,a", "N,b", "N,c", "STOP", "N,d")
    assert log(g) == ["a", "b", "c"]
    assert on_file(g) == ["N,d"]


def test_stop_is_read_in_any_case(rulesets: dict[str, Loaded]) -> None:
    g = rulesets["plain"].new_game()
    submit(g, "N,a", "  stop ", "N,b")
    assert log(g) == ["a"]
    assert on_file(g) == ["N,b"]


# ---------------------------------------------------------------- DISCARD

def test_discard_drops_orders_on_file_and_those_before_it(rulesets: dict[str, Loaded]) -> None:
    g = rulesets["limit"].new_game()
    submit(g, "N,a", "N,b", "N,c", "N,d", "N,e")
    assert on_file(g) == ["N,d", "N,e"]
    submit(g, "N,x", "DISCARD", "N,y")
    assert log(g) == ["y"]
    assert on_file(g) == []
    notices = g.turns["1"].notices
    assert len(notices) == 1 and "3 unprocessed order(s) discarded" in notices[0]


def test_discarded_orders_still_count_against_the_new_limit(rulesets: dict[str, Loaded]) -> None:
    """As §8 says: a DISCARD does not open a fresh allowance, so a mail cannot give orders without end."""
    g = rulesets["new-limit"].new_game()
    submit(g, "N,a", "N,b", "N,c", "DISCARD", "N,d", "N,e")
    assert log(g) == ["d"]
    assert [(line, text) for line, text, _ in refused(g)] == [(8, "N,e")]


def test_discard_of_another_player_leaves_mine(rulesets: dict[str, Loaded]) -> None:
    g = rulesets["limit"].new_game()
    g.process_turn([("a.txt", "1\nA\nN,a\nN,b\nN,c\nN,d\n"), ("b.txt", "2\nB\nN,1\nN,2\nN,3\nN,4\n")])
    g.process_turn([("b.txt", "2\nB\nDISCARD\n")])
    assert (log(g, 1), log(g, 2)) == (["d"], [])


# ---------------------------------------------------------------- once per turn per argument

def test_once_per_turn_per_argument(rulesets: dict[str, Loaded]) -> None:
    g = rulesets["plain"].new_game()
    submit(g, "M,1", "M,2", "M,1", "M, 2", "M,3")
    assert log(g) == ["m1", "m2", "m3"]
    assert [(line, text) for line, text, _ in refused(g)] == [(5, "M,1"), (6, "M, 2")]
    assert all("once per turn for the same slot" in reason for _, _, reason in refused(g))


def test_once_per_turn_starts_afresh_each_turn(rulesets: dict[str, Loaded]) -> None:
    g = rulesets["plain"].new_game()
    submit(g, "M,1")
    submit(g, "M,1")
    assert log(g) == ["m1"]
    assert refused(g) == []


def test_once_per_turn_counts_orders_from_file(rulesets: dict[str, Loaded]) -> None:
    g = rulesets["limit"].new_game()
    submit(g, "N,a", "N,b", "N,c", "M,7")
    assert on_file(g) == ["M,7"]
    submit(g, "M,7", "M,8")
    assert log(g) == ["m7", "m8"]
    assert refused(g) == [(3, "M,7", refused(g)[0][2])]


def test_once_per_turn_is_per_player(rulesets: dict[str, Loaded]) -> None:
    g = rulesets["plain"].new_game()
    g.process_turn([("a.txt", "1\nA\nM,1\n"), ("b.txt", "2\nB\nM,1\n")])
    assert (log(g, 1), log(g, 2)) == (["m1"], ["m1"])


# ---------------------------------------------------------------- submissions that do not count

def test_wrong_code_orders_are_not_processed(rulesets: dict[str, Loaded]) -> None:
    g = rulesets["plain"].new_game()
    submit(g, "N,a", code="WRONG")
    assert log(g) == [] and on_file(g) == []
    assert "access code does not match" in g.turns["1"].notices[0]


def test_a_wrong_code_reads_none_of_the_lines(rulesets: dict[str, Loaded]) -> None:
    g = rulesets["plain"].new_game()
    submit(g, "N,a", "Z,9", "M,notanumber", "N,\x1b", code="WRONG")
    assert refused(g) == [] and used(g) == []
    assert g.turns["1"].notices == ["Your orders in p1.txt were not processed: the access code does not match."]


def test_a_form_feed_does_not_split_a_line_in_two(rulesets: dict[str, Loaded]) -> None:
    g = rulesets["plain"].new_game()
    submit(g, "N,a\x0cN,b", "N,c")
    assert log(g) == ["c"]
    assert refused(g) == [(3, "N,a<U+000C>N,b", "the line holds a control character (FF, U+000C)")]


def test_unknown_lines_are_refused_with_their_line(rulesets: dict[str, Loaded]) -> None:
    g = rulesets["plain"].new_game()
    submit(g, "N,a", "Z,9", "M,notanumber")
    assert log(g) == ["a"]
    assert [(line, text) for line, text, _ in refused(g)] == [(4, "Z,9"), (5, "M,notanumber")]


# ---------------------------------------------------------------- an order that no phase runs

UNRUN_RULES = sel_rules("").replace('stop order stop "STOP"\n', '''stop order stop "STOP"

order idle "I,{word}" {
  word: text
}

order spare "X {word}" {
  word: text
}

order xray "X {slot}" {
  slot: int
  effect {
    add "x{slot}" to me.log
  }
}
phase xrays: run xray
''')


@pytest.fixture(scope="module")
def unrun(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    base = tmp_path_factory.mktemp("unrun")
    return load_text(base, UNRUN_RULES, "{{ log }}\n", "sel", base / "cache")


def test_the_lines_of_an_order_no_phase_runs_are_refused(unrun: Loaded) -> None:
    assert unrun.spec.unrun_orders == ("idle", "spare")
    g = unrun.new_game()
    submit(g, "N,a", "I,later", "i, again", "N,b")
    assert log(g) == ["a", "b"]
    assert refused(g) == [(4, "I,later", "this order is not used in this game"),
                          (5, "i, again", "this order is not used in this game")]
    assert on_file(g) == []
    submit(g)
    assert log(g) == [] and refused(g) == [] and on_file(g) == []


def test_an_order_no_phase_runs_takes_no_line_from_a_later_order(unrun: Loaded) -> None:
    # `spare` ("X {word}", any text) comes before `xray` ("X {slot}"): a line `xray` reads is still an xray.
    g = unrun.new_game()
    submit(g, "X 5", "X five")
    assert log(g) == ["x5"]
    assert refused(g) == [(4, "X five", 'slot must be a whole number, not "five"')]


# ---------------------------------------------------------------- runtime errors

ERR_RULES = '''ruleset "Err" { version "1" turn "turn" }
player {
  score: int = 0
}
param boom_turn: int = 1000
param divisor: int = 1
orders {
  header "{account}", "{code}"
}
order score "S,{n}" {
  n: int
  effect {
    me.score += 100 div n
  }
}
phase first {
  for each p in players {
    p.score += 1
  }
}
phase scoring: run score
phase boom when turn >= boom_turn {
  news "{100 div (turn - turn)}"
}
phase second when 10 div divisor > 0 {
  news "fine"
}
report {
  score = me.score
  template "err.report.j2"
}
order tax "T,{n}" {
  n: int
  effect {
    me.score += share(n)
  }
}
phase taxing: run tax
define share(n: int) -> int =
  100 div (n - n)
'''
BOOM_LINE = 23  # news "{100 div (turn - turn)}"
SCORE_LINE = 13  # me.score += 100 div n
WHEN_LINE = 25  # phase second when 10 div divisor > 0
SHARE_LINE = 40  # 100 div (n - n), in function share


@pytest.fixture(scope="module")
def err(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    base = tmp_path_factory.mktemp("err")
    loaded = load_text(base, ERR_RULES, "{{ score }}\n", "err", base / "cache")
    lines = ERR_RULES.splitlines()
    assert "turn - turn" in lines[BOOM_LINE - 1] and "100 div n" in lines[SCORE_LINE - 1]
    assert lines[WHEN_LINE - 1].startswith("phase second")
    assert lines[SHARE_LINE - 1] == "  100 div (n - n)"
    return loaded


def test_division_by_zero_in_a_phase_names_the_file_line_and_phase(err: Loaded) -> None:
    g = err.new_game(parameters={"boom_turn": 1})
    with pytest.raises(RulesError) as info:
        g.process_turn([])
    e = info.value
    assert (e.file, e.line, e.doing, e.rule) == ("err.rules", BOOM_LINE, "phase boom", "phase boom")
    assert str(e) == f"err.rules:{BOOM_LINE}: division by zero (in phase boom)"


def test_division_by_zero_in_an_order_names_the_order(err: Loaded) -> None:
    g = err.new_game()
    with pytest.raises(RulesError) as info:
        g.process_turn([("ann.txt", "1\nA\nS,5\nS,0\n")])
    e = info.value
    assert (e.file, e.line, e.rule) == ("err.rules", SCORE_LINE, "order score")
    assert 'order "S,0" of Ann' in e.doing
    assert str(e) == f'err.rules:{SCORE_LINE}: division by zero (in order score, while order "S,0" of Ann)'


def test_error_in_a_phase_condition_names_that_phase(err: Loaded) -> None:
    g = err.new_game(parameters={"divisor": 0})
    with pytest.raises(RulesError) as info:
        g.process_turn([])
    e = info.value
    assert (e.file, e.line) == ("err.rules", WHEN_LINE)
    assert e.doing == "phase second", str(e)
    assert str(e) == f"err.rules:{WHEN_LINE}: division by zero (in phase second)"


def test_error_in_a_function_names_the_function_and_the_order_that_called_it(err: Loaded) -> None:
    g = err.new_game()
    with pytest.raises(RulesError) as info:
        g.process_turn([("ann.txt", "1\nA\nT,3\n")])
    e = info.value
    assert (e.file, e.line, e.rule, e.doing) == ("err.rules", SHARE_LINE, "function share", 'order "T,3" of Ann')
    assert str(e) == f'err.rules:{SHARE_LINE}: division by zero (in function share, while order "T,3" of Ann)'


def test_an_error_after_a_phase_ran_its_orders_still_names_the_phase(tmp_path: Path) -> None:
    # Carrying out the orders of `run ping` says what the engine is doing, then what it was doing before.
    rules = ERR_RULES + 'order ping "PING" {\n  effect {\n    me.score += 1\n  }\n}\n' \
        'phase after {\n  run ping\n  news "{share(1)}"\n}\n'
    loaded = load_text(tmp_path, rules, "{{ score }}\n", "err", tmp_path / "cache")
    g = loaded.new_game()
    with pytest.raises(RulesError) as info:
        g.process_turn([("ann.txt", "1\nA\nPING\n")])
    e = info.value
    assert (e.line, e.rule, e.doing) == (SHARE_LINE, "function share", "phase after")
    assert str(e) == f"err.rules:{SHARE_LINE}: division by zero (in function share, while phase after)"


def test_a_function_that_calls_itself_without_end_is_said_in_words(tmp_path: Path) -> None:
    rules = ERR_RULES + "define deeper(n: int) -> int = deeper(n + 1)\nphase spiral { news \"{deeper(1)}\" }\n"
    loaded = load_text(tmp_path, rules, "{{ score }}\n", "err", tmp_path / "cache")
    g = loaded.new_game()
    with pytest.raises(RulesError) as info:
        g.process_turn([])
    e = info.value
    assert (e.line, e.rule, e.doing) == (rules.count("\n") - 1, "function deeper", "phase spiral")
    assert e.message == "a function or procedure calls itself without end"


def test_error_in_a_default_names_the_field(tmp_path: Path) -> None:
    # The default is worked out again at the start of every turn: with one player gone, it divides by 0.
    quota = "  quota: int = 10 div (size(players) - 2) reset each turn\n"
    rules = ERR_RULES.replace("  score: int = 0\n", "  score: int = 0\n" + quota)
    loaded = load_text(tmp_path, rules, "{{ score }}\n", "err", tmp_path / "cache")
    g = loaded.new_game(players=3)
    g.all_players[2].active = False
    with pytest.raises(RulesError) as info:
        g.process_turn([])
    e = info.value
    assert (e.line, e.rule) == (4, "the default of player.quota")
    assert str(e) == "err.rules:4: division by zero (in the default of player.quota)"


def _err_game(tmp_path: Path, boom_turn: int) -> GameFolder:
    rules = write_ruleset(tmp_path / "src", ERR_RULES, "{{ score }}\n", "err")
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(f'seed: 4\nparameters:\n  boom_turn: {boom_turn}\nplayers:\n'
                        '  - {name: Ann, account: "1", code: A}\n'
                        '  - {name: Bob, account: "2", code: B}\n', encoding="utf-8")
    return GameFolder.create(rules, tmp_path / "game", scenario, None)


def _orders(tmp_path: Path) -> list[Path]:
    f = tmp_path / "ann.txt"
    f.write_text("1\nA\nS,4\n", encoding="utf-8")
    return [f]


def test_a_failed_turn_leaves_the_game_folder_unchanged(tmp_path: Path) -> None:
    folder = _err_game(tmp_path, boom_turn=1)
    before = file_tree(folder.root)
    with pytest.raises(GameError) as info:
        folder.process_turn(_orders(tmp_path))
    assert f"err.rules:{BOOM_LINE}: division by zero (in phase boom)" in str(info.value)
    assert "as it was" in str(info.value)
    assert file_tree(folder.root) == before


def test_a_failed_later_turn_leaves_the_game_folder_unchanged(tmp_path: Path) -> None:
    folder = _err_game(tmp_path, boom_turn=2)
    folder.process_turn(_orders(tmp_path))
    before = file_tree(folder.root)
    state = (folder.root / "turns" / "turn-001" / "state.yaml").read_bytes()
    with pytest.raises(GameError) as info:
        folder.process_turn(_orders(tmp_path), force=True)  # the same orders as turn 1, on purpose
    assert f"err.rules:{BOOM_LINE}" in str(info.value) and "phase boom" in str(info.value)
    assert file_tree(folder.root) == before
    assert (folder.root / "turns" / "turn-001" / "state.yaml").read_bytes() == state
    assert folder.latest_turn() == 1
