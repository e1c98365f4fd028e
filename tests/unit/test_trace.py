"""`rulesdsl turn --trace` and `rulesdsl explain` on small real games: the README's Covert demo, a Covert golden
scenario (spies caught) and the Nuke Cards example. The answers are snapshots, read as a player and as a GM.

Hidden facts: the privacy test plays the same Covert day twice, changing only another player's order (the
money behind an assassination), and shows that a bystander's answer is byte-identical while the GM's differs.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from rulesdsl.cli import main
from rulesdsl.codegen.emit import generate
from rulesdsl.compiler import check_path, load_module
from rulesdsl.game.errors import GameError
from rulesdsl.game.folder import GameFolder
from rulesdsl.game.trace import FILE_NAME, traced
from rulesdsl.review.explain import explain
from tests.golden import harness
from tests.unit.rulestools import Loaded, write_ruleset

ROOT = Path(__file__).resolve().parents[2]
COVERT = ROOT / "examples" / "covert"
NUKES = ROOT / "examples" / "nukecards"
INTELLIGENCE = ROOT / "tests" / "golden" / "covert" / "intelligence"


def _play(root: Path, rules: str, scenario: Path, turns: list[list[Path]], trace: bool = True) -> GameFolder:
    folder = GameFolder.create(ROOT / "rulesets" / rules, root, scenario, None)
    for files in turns:
        folder.process_turn(files, trace=trace)
    return folder


def _days(base: Path, *names: str) -> list[list[Path]]:
    return [sorted((base / n).glob("*.txt")) for n in names]


@pytest.fixture(scope="module")
def covert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("covert") / "demo"
    _play(root, "covert.rules", COVERT / "scenario.yaml", _days(COVERT, "day1", "day2", "day3"))
    return root


@pytest.fixture(scope="module")
def nukes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("nukes") / "nukes"
    _play(root, "nukecards.rules", NUKES / "scenario.yaml", _days(NUKES, "round1", "round2"))
    return root


# ------------------------------------------------------------ the traced build and the turn
def test_the_normal_module_is_the_same_with_the_traced_build_beside_it() -> None:
    program = check_path(ROOT / "rulesets" / "covert.rules").program
    assert program is not None
    normal = generate(program)
    traced = generate(program, trace=True)
    assert generate(program, trace=False) == normal
    assert "g.trace" not in normal and "g.trace.change(" in traced


def test_a_traced_turn_writes_the_same_reports_and_state(tmp_path: Path) -> None:
    days = _days(COVERT, "day1", "day2")
    plain = _play(tmp_path / "plain", "covert.rules", COVERT / "scenario.yaml", days, trace=False)
    traced = _play(tmp_path / "traced", "covert.rules", COVERT / "scenario.yaml", days, trace=True)

    def files(folder: GameFolder) -> dict[str, bytes]:
        return {p.relative_to(folder.root).as_posix(): p.read_bytes()
                for p in sorted(folder.root.rglob("*")) if p.is_file() and p.name not in (FILE_NAME, "rulesdsl.lock")}

    a, b = files(plain), files(traced)
    assert len(a) > 40
    assert a == b
    assert (traced.turns_dir / "turn-002" / FILE_NAME).is_file()
    assert not (plain.turns_dir / "turn-002" / FILE_NAME).exists()


def test_the_same_turn_traced_twice_writes_the_same_trace(nukes: Path, tmp_path: Path) -> None:
    again = _play(tmp_path / "again", "nukecards.rules", NUKES / "scenario.yaml", _days(NUKES, "round1"))
    trace = (nukes / "turns" / "turn-001" / FILE_NAME).read_bytes()
    assert trace == (again.turns_dir / "turn-001" / FILE_NAME).read_bytes()
    assert b'"ev": "draw"' in trace and b'"op": "cost"' not in trace  # Nuke Cards' orders cost nothing


# ------------------------------------------------------------ the three answers of the issue
def test_a_spy_caught(tmp_path: Path, text_snapshot: SnapshotAssertion) -> None:
    root = tmp_path / "intelligence"
    _play(root, "covert.rules", INTELLIGENCE / "scenario.yaml", _days(INTELLIGENCE, "turn-1"))
    player = explain(root, 1, "Your spy in Korea was caught.", player="5001")
    gm = explain(root, 1, "$.Country.KOR.spy")
    assert "$.Country.KOR.spy.5001: 4 -> 0, at covert.rules:585" in player
    assert "if c.spy[p] <= c.security {" in player
    # The GM reads the security the spy was measured against, and what made it so; Eye, whose report does not
    # show Korea's security, reads only its own spy's value.
    said = explain(root, 1, "Your spy in Korea was caught.", report="5001")
    assert ('$.Country.KOR.security = 5 (set at covert.rules:308, while order "G,KOR,3" of Nose (account 5003; '
            "line 4 of its orders))") in said
    assert "$.Country.KOR.spy.5001 = 4 (set at covert.rules:583" in player
    assert "security =" not in player and "Nose" not in player
    assert player == text_snapshot(name="spy-caught-player")
    assert gm == text_snapshot(name="spy-caught-gm")


def test_a_combat_loss(covert: Path, text_snapshot: SnapshotAssertion) -> None:
    gm = explain(covert, 3, "$.Country.ARG.troops")
    player = explain(covert, 3, "BRA invades with 6 troops and loses 1", player="2468")
    assert "4 -> 2, at covert.rules:213 (procedure take_defence_losses)" in gm
    assert "using table combat_losses[1.5] = 2" in gm
    assert "using table combat_losses[1] = 1" in player
    assert gm == text_snapshot(name="combat-loss-gm")
    assert player == text_snapshot(name="combat-loss-player")


def test_a_cards_effect(nukes: Path, text_snapshot: SnapshotAssertion) -> None:
    victim = explain(nukes, 2, "Propaganda from Dorne turned 100 of your people.", player="6")
    player = explain(nukes, 2, "$.players[5].population", player="4")
    gm = explain(nukes, 2, "$.players[5].population")
    assert "10000 -> 9900, at nukecards.rules:832 (procedure harm)" in gm
    assert 'your order "PROPAGANDA P100 AT FREEDONIA"' in player
    assert 'order "PROPAGANDA P100 AT FREEDONIA" of Dorne' in gm
    assert "PROPAGANDA P100" not in victim
    assert victim == text_snapshot(name="card-effect-victim")
    assert player == text_snapshot(name="card-effect-player")
    assert gm == text_snapshot(name="card-effect-gm")


# ------------------------------------------------------------ what a player may know
def test_another_players_order_and_odds_stay_hidden(tmp_path: Path) -> None:
    """Thrush (9999) pays 6 or 5 for a failed assassination in Ukraine; Ann (1001) asks why it failed, and
    reads the same answer either way; the GM's answers differ (the order, the odds)."""
    answers: dict[int, tuple[str, str, str]] = {}
    whole: dict[int, list[str]] = {}
    gm_whole: dict[int, list[str]] = {}
    for cash in (6, 5):
        day3 = tmp_path / f"day3-{cash}"
        shutil.copytree(COVERT / "day3", day3)
        thrush = day3 / "thrush.txt"
        thrush.write_text(thrush.read_text(encoding="utf-8").replace("K,UKR,6", f"K,UKR,{cash}"), encoding="utf-8")
        root = tmp_path / f"game-{cash}"
        days = [*_days(COVERT, "day1", "day2"), sorted(day3.glob("*.txt"))]
        _play(root, "covert.rules", COVERT / "scenario.yaml", days)
        what = "An assassination attempt in Ukraine fails"
        answers[cash] = (explain(root, 3, what, player="1001"), explain(root, 3, what, player="9999"),
                         explain(root, 3, what, report="1001"))
        whole[cash] = _every_line(root, 3, "1001")
        gm_whole[cash] = _every_line(root, 3, "1001", gm=True)
    bystander, killer, gm = answers[6]
    # Every line of the bystander's report, explained to them, reads the same whichever sum Thrush paid.
    assert len(whole[6]) > 80 and whole[6] == whole[5]
    assert gm_whole[6] != gm_whole[5]  # the same lines, answered to the GM, tell the difference
    assert bystander == answers[5][0]
    assert gm != answers[5][2]
    assert "an order of another player" in bystander and "K,UKR" not in bystander and "Thrush" not in bystander
    assert "using" not in bystander  # the roll of Thrush's order is Thrush's: its odds would tell what Thrush paid
    assert "$.players" not in bystander  # what Thrush paid is Thrush's
    assert 'your order "K,UKR,6"' in killer and "(its odds are secret)" in killer
    assert 'order "K,UKR,6" of Thrush' in gm and "chance \"kill\" at 20%" in gm


def _every_line(root: Path, number: int, account: str, gm: bool = False) -> list[str]:
    """The answer to each line of a player's report, as that player reads it (or as the GM does)."""
    from rulesdsl.review.explain import explain_line, load_turn, report_of, viewer_for

    turn = load_turn(root, number)
    viewer = viewer_for(root, turn, None if gm else account)
    _, text = report_of(root, turn, account)
    return [explain_line(root, turn, account, None, n, viewer) for n in range(1, len(text) + 1)]


def test_a_player_is_not_told_a_value_their_report_does_not_show(covert: Path) -> None:
    with pytest.raises(GameError, match="not a value this player's report shows"):
        explain(covert, 3, "$.players[3].cash", player="1001")
    assert "$.players[3].cash after day 3" in explain(covert, 3, "$.players[3].cash")
    assert "$.players[1].cash after day 3" in explain(covert, 3, "$.players[1].cash", player="1001")


def test_an_untraced_turn_says_how_to_trace_it(tmp_path: Path) -> None:
    root = tmp_path / "g"
    _play(root, "nukecards.rules", NUKES / "scenario.yaml", _days(NUKES, "round1"), trace=False)
    with pytest.raises(GameError, match=r"run without --trace.*rulesdsl rollback .* && rulesdsl turn .* --trace"):
        explain(root, 1, "$.players[0].population")
    with pytest.raises(GameError, match="turn 2 was not played"):
        explain(root, 2, "$.players[0].population")


def test_the_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "g"
    GameFolder.create(ROOT / "rulesets" / "nukecards.rules", root, NUKES / "scenario.yaml", None)
    assert main(["turn", str(root), *map(str, _days(NUKES, "round1")[0]), "--trace"]) == 0
    capsys.readouterr()
    assert main(["explain", str(root), "1", "--report", "1", "--line", "6"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Line 6 of Avalon's report of round 1:")
    assert main(["explain", str(root), "1", "$.Nowhere.x"]) == 2
    assert "no such value" in capsys.readouterr().err


def test_a_traced_variant_plays_as_the_plain_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A variant's traced build (its lines in two files) runs its golden scenario to the same reports and news.
    Every golden scenario of every shipped ruleset is played so by benchmarks/trace_goldens.py:
    Warlord's and WCG's checks alone would cost the suite 15 s."""
    s = next(x for x in harness.scenarios("covert-twice-weekly") if x.name == "allowances")
    plain = list(harness.play(s, tmp_path / "plain"))
    process = GameFolder.process_turn
    monkeypatch.setattr(GameFolder, "process_turn",
                        lambda self, *a, **k: process(self, *a, **{**k, "trace": True}))
    traced = list(harness.play(s, tmp_path / "traced"))
    assert plain and traced == plain
    assert (tmp_path / "traced" / "turns" / "turn-001" / FILE_NAME).is_file() or \
        any((tmp_path / "traced" / "turns").glob(f"*/{FILE_NAME}"))


SMALL = '''ruleset "S" { version "1" turn "turn" }
secret param edge: int = 3
thing Box keyed by code {
  name: text
  stones: int = 0
  near: set of Box
  tags: Player -> list of int
}
data Box(code, name) {
  A: "Alpha"
  B: "Beta"
}
thing Crate numbered per owner {
  size: int = 1
}
world {
  rolls: int = 0
  log: list of text
}
player {
  cash: money = 10
}
table grade(n: int) -> text { below edge: "small", from edge: "big" }
orders {
  header "{account}", "{code}"
  pay from cash
}
order make "M,{box},{n}" {
  box: Box
  n: 1..9
  cost money(n)
  effect {
    new Crate(owner: me, size: n)
    box.stones += n
    add n to box.tags[me]
    add box to box.near
    if grade(n) == "big" { world.log = ["made one"] }
  }
}
phase making: run make
phase smash {
  for each c in Crate where c.size > 3 {
    destroy c
  }
  clear world.log
  for each b in Box {
    world.rolls += roll(6, "dice")
    remove b from b.near
    for each p in players where size(b.tags[p]) > 1 { clear b.tags[p] }
  }
}
report {
  cash = me.cash
  template "s.report.j2"
}
'''


def test_what_the_traced_build_records(tmp_path: Path) -> None:
    """Each kind of change (set, add, remove, clear; a numbered thing made and destroyed; a per-key value's
    key; the world), a secret table's read, a roll, and the engine's cost and its step, as records."""
    path = write_ruleset(tmp_path, SMALL, "Cash {{ cash }}\n", "s")
    module, spec = load_module(path, tmp_path / "cache", traced=True)
    g = traced(Loaded(module, spec).new_game(1))
    g.process_turn([("ann.txt", "1\nA\nM,A,2\nM,A,5\n")])
    changes = [(r["op"], r["path"], r.get("old"), r.get("new"), r.get("item"), r.get("size"))
               for r in g.trace.records if r["ev"] == "change"]
    assert changes[:13] == [
        ("cost", "$.players[0].cash", 10, 8, None, None),
        ("made", "$.Crate.1.1", None, None, None, None),
        ("set", "$.Box.A.stones", 0, 2, None, None),
        ("add", "$.Box.A.tags.1", None, None, 2, 1),
        ("add", "$.Box.A.near", None, None, "A", 1),
        ("cost", "$.players[0].cash", 8, 3, None, None),
        ("made", "$.Crate.1.2", None, None, None, None),
        ("set", "$.Box.A.stones", 2, 7, None, None),
        ("add", "$.Box.A.tags.1", None, None, 5, 2),
        ("add", "$.Box.A.near", None, None, "A", 1),
        ("set", "$.world.log", [], ["made one"], None, None),
        ("destroyed", "$.Crate.1.2", None, None, None, None),
        ("clear", "$.world.log", ["made one"], [], None, None),
    ]
    tables = [(r["table"], r["key"], r["row"], r["secret"]) for r in g.trace.records if r["ev"] == "table"]
    assert tables == [("grade", [2], "small", True), ("grade", [5], "big", True)]
    draws = [(r["func"], r["stream"], r["odds"]) for r in g.trace.records if r["ev"] == "draw"]
    assert draws == [("roll", "dice", 6), ("roll", "dice", 6)]
    ops = [(r["op"], r["path"]) for r in g.trace.records if r["ev"] == "change"][13:]
    assert ("remove", "$.Box.A.near") in ops and ("clear", "$.Box.A.tags.1") in ops
    steps = {r["step"]: r for r in g.trace.records if r["ev"] == "step"}
    cost = next(r for r in g.trace.records if r["ev"] == "change")
    assert steps[cost["step"]]["doing"] == {"order": "M,A,2", "kind": "make", "player": "1", "line": 3}


def test_a_numbered_things_value_is_read_from_its_row(tmp_path: Path) -> None:
    path = write_ruleset(tmp_path / "rules", SMALL, "Cash {{ cash }}\n", "s")
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text('players:\n  - {name: Ann, account: "1", code: A}\n', encoding="utf-8")
    folder = GameFolder.create(path, tmp_path / "g", scenario, None)
    mail = tmp_path / "ann.txt"
    mail.write_text("1\nA\nM,B,2\nM,B,3\n", encoding="utf-8")
    folder.process_turn([mail], trace=True)
    answer = explain(tmp_path / "g", 1, "$.Crate.1.2.size")
    assert answer.startswith("$.Crate.1.2.size after turn 1: 3 (made this turn)\n")
    assert "made, at s.rules:33 (order make)" in answer
    own = explain(tmp_path / "g", 1, "$.Box.B.tags.1", player="1")  # a per-key value under Ann's own key
    assert '2 added (1 in all), at s.rules:35' in own and 'while your order "M,B,2" (line 3 of your orders)' in own


def test_brief_is_one_line_a_change_for_other_tools(covert: Path) -> None:
    from rulesdsl.review.explain import brief, load_turn

    turn = load_turn(covert, 3)
    assert brief(turn, "$.Country.ARG.troops") == [
        "covert.rules:213 (procedure take_defence_losses), phase combat: 4 -> 2; table combat_losses[1.5] = 2"]
    assert brief(turn, "$.Country.AUS.troops") == [] and brief(turn, "not a path") == []


# ------------------------------------------------------------ what the rules read, and what a report line shows
def test_a_read_is_recorded_once_a_step_and_each_report_value_by_what_it_read(tmp_path: Path) -> None:
    path = write_ruleset(tmp_path, SMALL, "Cash {{ cash }}\n", "s")
    module, spec = load_module(path, tmp_path / "cache", traced=True)
    g = traced(Loaded(module, spec).new_game(1))
    g.process_turn([("ann.txt", "1\nA\nM,A,2\nM,A,5\n")])
    reads = [(r["path"], r["value"]) for r in g.trace.records if r["ev"] == "read"]
    paths = [p for p, _ in reads]
    # `where c.size > 3` reads each crate's size, once; `size(b.tags[p])` reads Ann's key of each box's tags.
    assert ("$.Crate.1.1.size", 2) in reads and ("$.Crate.1.2.size", 5) in reads
    assert ("$.Box.A.tags.1", [2, 5]) in reads
    assert len(paths) == len(set(paths))  # none read twice in its step with the same value
    g.own_report(g.all_players[0])
    shown = [r for r in g.trace.records if r["ev"] == "shown"]
    assert shown == [{"ev": "shown", "player": "1", "values": [["$.cash", ["$.players[0].cash"], True, 1]]}]


def test_a_nested_record_line_is_answered_by_the_value_it_shows(covert: Path,
                                                                 text_snapshot: SnapshotAssertion) -> None:
    answer = explain(covert, 3, "5 of its troops conquering ARG", player="2468")
    assert "$.controlled[0].abroad[0].troops: the value of $.Country.BRA.conquering.ARG" in answer
    assert "0 -> 6, at covert.rules:277 (order conquer)" in answer
    assert "6 -> 5, at covert.rules:554 (phase combat)" in answer
    # The value the loss was worked out from, with where it came from.
    assert ('reading $.Country.BRA.conquering.ARG = 6 (set at covert.rules:277, while your order "C,BRA,ARG,6" '
            "(line 5 of your orders))") in answer
    assert answer == text_snapshot(name="nested-record-player")


def test_an_order_line_says_what_the_order_changed(covert: Path) -> None:
    done = explain(covert, 3, "A,BRA,3          done", player="2468")
    assert '$.orders.used[0]: your order "A,BRA,3" (line 4), carried out; what it changed:' in done
    assert "$.Country.BRA.troops: 5 -> 8, at covert.rules:249 (order arms)" in done
    failed = explain(covert, 3, "R,MEX,8", player="2468")
    assert "failed: not enough cash: it costs 8 and you have 3; it changed nothing you see." in failed
    refused = explain(covert, 1, "B,XYZ,4", player="13579")
    assert 'refused as it was read: "XYZ" is not a country code. A refused order changes nothing.' in refused
    # No number on the line is taken for another value (the heuristic this replaced matched "8" to influence).
    assert "$.Country" not in failed and "$.Country" not in refused


def test_a_line_of_values_the_player_does_not_see_is_not_explained_to_them(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Warlord: a row of the player's own division is explained value by value; a spotted enemy force is a sum
    of the enemy's divisions, which the player is told only as that sum; the GM is told all."""
    s = next(x for x in harness.scenarios("warlord") if x.name == "combat")
    process = GameFolder.process_turn
    monkeypatch.setattr(GameFolder, "process_turn",
                        lambda self, *a, **k: process(self, *a, **{**k, "trace": True}))
    root = tmp_path / "warlord"
    list(harness.play(s, root))
    row = explain(root, 1, "00805    3 S    Tanks              18", player="1")
    assert "$.forces[2].size: the value of $.Division.1.3.regiments" in row
    assert "$.forces[2].sector: the value of $.Division.1.3.sector" in row
    assert "20 -> 18, at warlord.rules:653 (procedure take_losses)" in row
    # The loss is told in its own round: the division's, within Ann's turn of the battle at 00805; to Ann with
    # her own division's values, to the GM with the enemy's and the dice too.
    loss = explain(root, 1, "$.Division.1.3.regiments", player="1")
    assert "in its round for $.Division.1.3, within its round for you, within its round for 00805" in loss
    assert "reading $.Division.1.3.regiments = 20 (as the turn began)" in loss and "$.Division.2." not in loss
    gm_loss = explain(root, 1, "$.Division.1.3.regiments")
    assert "within its round for Ann (account 1), within its round for 00805" in gm_loss
    assert "$.Division.2.3.rank" in gm_loss and "$.world.dice" in gm_loss
    spotted = explain(root, 1, "00501 player 2: 5", player="1")
    assert "$.spotted[0].forces: worked out by the report from values you do not see" in spotted
    assert "$.Division.2." not in spotted
    assert "$.Division.2." in explain(root, 1, "00501 player 2: 5", report="1")
    # A map row is worked out from hundreds of sectors: the first are listed, the rest counted.
    assert re.search(r"\$\.strategic_map\[1\] \(part of \$\.strategic_map\): worked out from .* and \d+ more value",
                     explain(root, 1, None, report="1", line=14))
    # A sector's value is read back from the state's layers (the grid is stored by field, not by sector).
    owner = explain(root, 1, "$.Sector.00805.owner")
    assert owner.startswith('$.Sector.00805.owner after turn 1: "1" (before it: "2")')


def test_a_report_its_template_no_longer_makes_is_not_tied_to_values(covert: Path, tmp_path: Path) -> None:
    root = tmp_path / "copy"
    shutil.copytree(covert, root)
    template = root / "rules" / "covert.report.j2"
    template.write_text(template.read_text(encoding="utf-8").replace("Cash on hand", "Cash"), encoding="utf-8")
    with pytest.raises(GameError, match="is not what the game's report template makes of its data"):
        explain(root, 3, "Cash on hand", player="2468")


def test_a_trace_of_an_earlier_format_asks_for_the_turn_again(covert: Path, tmp_path: Path) -> None:
    root = tmp_path / "copy"
    shutil.copytree(covert, root)
    path = root / "turns" / "turn-003" / FILE_NAME
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([lines[0].replace('"trace": 2', '"trace": 1'), *lines[1:]]) + "\n", encoding="utf-8")
    with pytest.raises(GameError, match=r"recorded by an earlier rulesdsl.*run it again with --trace"):
        explain(root, 3, "$.Country.ARG.troops")


def test_every_line_of_every_report_is_answered_and_a_player_reads_no_other_players_values(covert: Path) -> None:
    """Each line of each report of day 3, as its player and as the GM: an answer for each, and in a player's
    none of another position's values (Covert shows no player another's cash, budget or contacts)."""
    from rulesdsl.review.explain import load_turn

    turn = load_turn(covert, 3)
    for i, p in enumerate(turn.after["players"]):
        account = str(p["account"])
        own = _every_line(covert, 3, account)
        assert len(own) > 60 and len(_every_line(covert, 3, account, gm=True)) == len(own)
        others = {m for answer in own for m in re.findall(r"\$\.players\[(\d+)\]", answer)} - {str(i)}
        assert not others, (account, others)


def test_a_table_row_read_for_the_report_is_what_the_line_was_made_with(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """A table the report reads, and no turn (Warlord's rank letters): its row is the line's provenance, and a
    diff of the rules that change the row shows it on each side."""
    table = 'table label(n: int) -> text { below 5: "few", from 5: "many" }\n'
    rules = SMALL.replace("  cash = me.cash\n", "  cash = me.cash\n  bulk = label(amount(me.cash))\n")
    rules = rules.replace("orders {", table + "orders {", 1)
    template = "Cash {{ cash }}\nSize {{ bulk }}\n"
    old = write_ruleset(tmp_path / "old", rules, template, "s")
    new = write_ruleset(tmp_path / "new", rules.replace('from 5: "many"', 'from 5: "lots"'), template, "s")
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text('players:\n  - {name: Ann, account: "1", code: A}\n', encoding="utf-8")
    root = tmp_path / "g"
    folder = GameFolder.create(old, root, scenario, None)
    mail = tmp_path / "ann.txt"
    mail.write_text("1\nA\nM,B,2\n", encoding="utf-8")
    folder.process_turn([mail], trace=True)
    answer = explain(root, 1, "Size many", player="1")
    assert '$.bulk: worked out from $.players[0].cash; using table label[8] = "many"' in answer
    assert main(["diff", str(old), str(new), "--game", str(root)]) == 1
    out = capsys.readouterr().out
    assert ('-Size many\n#   $.bulk: table label[8] = "many", read as the report was written\n'
            '+Size lots\n#   $.bulk: table label[8] = "lots", read as the report was written\n') in out
