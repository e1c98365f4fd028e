"""Features a card game needs, played end to end: game-wide `world` fields (and their state and scenario
sections), instance literals like `Card.S12`, `remove`, order groups with a shared limit, orders that end
the turn, and list arguments written `A+B`."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
import yaml

from rulesdsl.compiler import compile_path
from rulesdsl.game.folder import GameError, GameFolder
from rulesdsl.runtime import exported
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.state import StateError, dump, load, new_game
from tests.unit.rulestools import Loaded, load_text, write_ruleset

DECK = '''ruleset "Deck" { version "1" turn "round" }

thing Card keyed by code {
  name: text
  power: int = 0
}
data Card(code, name, power) {
  S4: "Satellite", 0
  S12: "Spy", 0
  S15: "Shield", 0
  M200: "Missile", 200
  M500: "Big missile", 500
  N200: "Warhead", 200
  N300: "Big warhead", 300
}

world {
  reveal_round: int = 3
  owner: Player?
  deck: list of Card = [Card.S4, Card.S12, Card.S4]
  burned: set of Card = [Card.S15]
  launches: int = 0 reset each turn
  top: Card = Card.m200
  seen: Player -> list of Card
}

player {
  hand: list of Card = [Card.S12, Card.S4, Card.S12]
  shields: Card -> int = 3
  log: list of text
}

table missile -> Card weighted { 50%: Card.M200, 50%: Card.M500 }

define is_satellite(c: Card) -> bool = c == Card.S4
define weight(ws: list of Card) -> int = sum(w.power for w in ws)
define codes(ws: list of Card) -> text = join([w.code for w in ws], "+")

orders {
  header "{account}", "{code}"
  at most 1 attack per turn else "{me.name} may attack once a {game_unit}"
  at most 2 play per turn else "no more than two cards a round"
  at most 6 per turn
}

param game_unit: text = "round"

order satellite "PLAY S4 AT {target}" {
  target: Player
  counts as play
  effect { add "satellite at {target.name}" to me.log }
}

order steal "PLAY {card} AT {target}" {
  card: Card
  target: Player
  valid card in me.hand else "you do not hold {card}"
  counts as play
  effect {
    remove card from me.hand
    add card to target.hand
    add "{card} to {target.name}" to me.log
  }
}

order launch "LAUNCH {missile} WITH {warheads} AT {target}" {
  missile: Card
  warheads: list of Card
  target: Player
  valid not is_satellite(missile) else "a satellite is no missile"
  once per turn per target
  counts as attack
  effect {
    world.launches += 1
    world.owner = me
    add "launch {missile} {size(warheads)} {weight(warheads)} {first(warheads) == Card.N300} {codes(warheads)}"
      to me.log
  }
}

order salvo "SALVO {rolls}" {
  rolls: list of int
  once per turn per rolls
  counts as attack
  effect { add "salvo {sum(r for r in rolls)} of {size(rolls)}" to me.log }
}

order note "N,{word}" {
  word: text
  effect { add word to me.log }
}

order see "SEE {card}" {
  card: Card
  effect { add card to world.seen[me] }
}

order drop "DROP {card}" {
  card: Card
  effect {
    remove card from me.hand
    remove card from world.burned
    remove card from world.seen[me]
  }
}

order check "CHECK {card}" {
  card: Card
  effect {
    add "{card == Card.S4} {card in [Card.S12, Card.s15]} {me.shields[Card.S15]} {world.top}" to me.log
    me.shields[Card.S15] -= 1
  }
}

order pass "PASS" {
  ends turn
  effect { add "pass" to me.log }
}

order reveal "REVEAL {n}" {
  n: int
  valid n >= 0 else "n must not be negative"
  ends turn when n == world.reveal_round and world.owner == none
  effect { add "reveal {n}" to me.log }
}

stop order stop "STOP"

phase plays: run satellite
phase steals: run steal
phase launches: run launch
phase salvos: run salvo
phase notes: run note
phase seeing: run see
phase drops: run drop
phase checks: run check
phase passing: run pass
phase reveals: run reveal
phase deal when turn == 2 {
  add draw(missile, "deck") to world.deck
}

report {
  log = me.log
  owner = if world.owner != none then world.owner.name else "nobody"
  launches = world.launches
  template "deck.report.j2"
}

victory v for p { when world.owner == p and world.reveal_round < turn }
'''
TEMPLATE = "{{ log }} {{ owner }} {{ launches }}\n"


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    base = tmp_path_factory.mktemp("deck")
    return load_text(base, DECK, TEMPLATE, "deck", base / "cache")


def submit(g: Game, *lines: str, player: int = 1) -> None:
    code = chr(ord("A") + player - 1)
    g.process_turn([(f"p{player}.txt", "\n".join([str(player), code, *lines]) + "\n")])


def log(g: Game, player: int = 1) -> list[str]:
    return list(g.all_players[player - 1].log)  # type: ignore[attr-defined]


def refused(g: Game, player: int = 1) -> list[tuple[int, str, str]]:
    return [(r.line, r.text, r.reason) for r in g.turns[str(player)].refused]


def keys(items: Any) -> list[str]:
    return [c._key for c in items]


# ---------------------------------------------------------------- world

def test_world_fields_start_at_their_defaults(deck: Loaded) -> None:
    g = deck.new_game()
    w: Any = g.world
    assert (w.reveal_round, w.owner, w.launches, w.top._key) == (3, None, 0, "M200")
    assert (keys(w.deck), keys(w.burned), w.seen) == (["S4", "S12", "S4"], ["S15"], {})


def test_world_fields_are_read_and_changed_by_orders(deck: Loaded) -> None:
    g = deck.new_game()
    submit(g, "LAUNCH M500 WITH N200 AT 2")
    w: Any = g.world
    assert w.owner is g.all_players[0] and w.launches == 1
    assert g.spec.report(g, g.all_players[1])["owner"] == "Ann"


def test_world_reset_fields_go_back_at_the_start_of_each_turn(deck: Loaded) -> None:
    g = deck.new_game()
    submit(g, "LAUNCH M500 WITH N200 AT 2")
    assert g.world.launches == 1  # type: ignore[attr-defined]
    submit(g)
    assert g.world.launches == 0  # type: ignore[attr-defined]


def test_victory_reads_the_world(deck: Loaded) -> None:
    g = deck.new_game(world={"reveal_round": 0})
    submit(g, "LAUNCH M500 WITH N200 AT 2")
    assert g.game_over and g.winners == ["Ann"]


def test_world_goes_through_dump_and_load(deck: Loaded) -> None:
    g = deck.new_game(world={"reveal_round": 5, "owner": "2"})
    submit(g, "SEE S4", "SEE N300", "LAUNCH M200 WITH N200 AT 1")
    data = dump(g)
    assert list(data).index("players") < list(data).index("world") < list(data).index("Card")
    assert data["world"] == {"reveal_round": 5, "owner": "1", "deck": ["S4", "S12", "S4"], "burned": ["S15"],
                             "launches": 1, "top": "M200", "seen": {"1": ["S4", "N300"]}}
    again = load(deck.spec, yaml.safe_load(yaml.safe_dump(data)))
    assert dump(again) == data
    assert again.world.owner is again.all_players[0]  # type: ignore[attr-defined]


def test_scenario_sets_world_fields(deck: Loaded) -> None:
    g = deck.new_game(world={"deck": ["n200", "S15"], "top": "s4"})
    w: Any = g.world
    assert keys(w.deck) == ["N200", "S15"] and w.top._key == "S4"
    assert w.reveal_round == 3  # not named: its default


def test_unknown_world_field_in_a_scenario_is_named_with_a_suggestion(deck: Loaded) -> None:
    with pytest.raises(StateError, match=r"^\$\.world\.reveal_rund: no such field; did you mean reveal_round\?$"):
        deck.new_game(world={"reveal_rund": 3})
    with pytest.raises(StateError, match=r"^\$\.world\.top: no Card is keyed 'X1'"):
        deck.new_game(world={"top": "X1"})


def test_every_fault_of_a_scenario_is_named_in_one_run(deck: Loaded) -> None:
    # A scenario's writer fixes them all in one go, not one per `rulesdsl new`.
    data = {"players": [{"name": "Ann", "account": "1", "code": "A", "hand": ["S4", "Q9"], "shields": {"S4": "x"}},
                        {"name": "Bob", "account": "2", "code": "B", "hnd": []}],
            "world": {"top": "X1", "reveal_round": 2}}
    with pytest.raises(StateError) as info:
        new_game(deck.spec, data)
    assert [e.path for e in info.value.errors] == [
        "$.players[0].hand[1]", "$.players[0].shields.S4", "$.players[1].hnd", "$.world.top"]
    assert str(info.value).splitlines()[0] == "$.players[0].hand[1]: no Card is keyed 'Q9'"
    assert info.value.path == "$.players[0].hand[1]"


def _start(tmp_path: Path, scenario: str, rules: str = DECK) -> GameFolder:
    path = write_ruleset(tmp_path / "src", rules, TEMPLATE, "deck")
    (tmp_path / "scenario.yaml").write_text(scenario, encoding="utf-8")
    return GameFolder.create(path, tmp_path / "game", tmp_path / "scenario.yaml", None)


PLAYERS = 'players:\n  - {name: Ann, account: "1", code: A}\n  - {name: Bob, account: "2", code: B}\n'


@pytest.mark.parametrize(("world", "message"), [
    ("{reveal_rund: 3}", r"scenario.yaml: \$\.world\.reveal_rund: no such field; did you mean reveal_round\?"),
    ("{reveal_round: soon}", r"scenario.yaml: \$\.world\.reveal_round: 'soon' is not of type 'integer'"),
    ("{deck: [S4, ZZ]}", r"scenario.yaml: \$\.world\.deck\[1\]: no Card is keyed 'ZZ'"),
], ids=["unknown-field", "wrong-type", "unknown-key"])
def test_a_bad_world_section_is_refused_with_its_path(tmp_path: Path, world: str, message: str) -> None:
    with pytest.raises(GameError, match=message):
        _start(tmp_path, PLAYERS + f"world: {world}\n")
    assert not (tmp_path / "game").exists()


def test_a_game_folder_keeps_the_world(tmp_path: Path) -> None:
    folder = _start(tmp_path, PLAYERS + "world: {reveal_round: 7}\n")
    state = yaml.safe_load((folder.root / "turns" / "turn-000" / "state.yaml").read_text(encoding="utf-8"))
    assert state["world"]["reveal_round"] == 7
    orders = tmp_path / "ann.txt"
    orders.write_text("1\nA\nLAUNCH M500 WITH N200+N300 AT bob\n", encoding="utf-8")
    folder.process_turn([orders])
    game = folder.load_game()
    assert (game.world.reveal_round, game.world.owner.name) == (7, "Ann")  # type: ignore[attr-defined]


def test_a_corrupted_world_in_a_state_file_is_refused_with_its_path(tmp_path: Path) -> None:
    folder = _start(tmp_path, PLAYERS)
    state = folder.root / "turns" / "turn-000" / "state.yaml"
    data = yaml.safe_load(state.read_text(encoding="utf-8"))
    data["world"]["owner"] = "Zed"
    state.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    with pytest.raises(GameError, match=r"state\.yaml: \$\.world\.owner: no Player is keyed 'Zed'"):
        folder.load_game()


PLAIN = '''ruleset "Plain" { version "1" turn "round" }
player { score: int = 0 }
report {
  score = me.score
  template "deck.report.j2"
}
'''


def test_a_ruleset_without_a_world_has_no_world_section(tmp_path: Path) -> None:
    plain = write_ruleset(tmp_path / "src", PLAIN, "{{ score }}\n", "deck")
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(PLAYERS, encoding="utf-8")
    folder = GameFolder.create(plain, tmp_path / "game", scenario, None)
    assert "world" not in yaml.safe_load((folder.root / "turns" / "turn-000" / "state.yaml").read_text())
    scenario.write_text(PLAYERS + "world: {reveal_round: 1}\n", encoding="utf-8")
    with pytest.raises(GameError, match=r"\$\.world: \"Plain\" has no such section"):
        GameFolder.create(plain, tmp_path / "again", scenario, None)


# ---------------------------------------------------------------- instance literals

def test_instance_literals_compare_index_and_fill_tables(deck: Loaded) -> None:
    g = deck.new_game()
    submit(g, "CHECK S4", "CHECK s15", "CHECK N200")
    assert log(g) == ["yes no 3 M200", "no yes 2 M200", "no no 1 M200"]
    assert g.all_players[0].shields == {"S15": 0}  # type: ignore[attr-defined]
    submit(g)  # turn 2 draws a missile into the deck
    assert keys(g.world.deck)[:3] == ["S4", "S12", "S4"]  # type: ignore[attr-defined]
    assert keys(g.world.deck)[3] in ("M200", "M500")  # type: ignore[attr-defined]


def test_instance_literals_use_the_canonical_key(tmp_path: Path) -> None:
    path = write_ruleset(tmp_path, DECK, TEMPLATE, "deck")
    code = compile_path(path)
    assert "g.index['Card']['M200']" in code and "g.index['Card']['S15']" in code
    assert "['m200']" not in code and "['s15']" not in code
    assert "return v_c is g.index['Card']['S4']" in code
    tree = ast.parse(code)
    imported = {a.name for node in tree.body if isinstance(node, ast.ImportFrom) for a in node.names}
    assert {"WorldBase", "GroupSpec", "remove_item", "mremove"} <= imported <= exported


# ---------------------------------------------------------------- remove

def test_remove_takes_the_first_of_a_list_and_the_item_of_a_set(deck: Loaded) -> None:
    g = deck.new_game()
    ann: Any = g.all_players[0]
    submit(g, "DROP S12")
    assert keys(ann.hand) == ["S4", "S12"]
    assert keys(g.world.burned) == ["S15"]  # type: ignore[attr-defined]
    submit(g, "DROP S15")
    assert keys(ann.hand) == ["S4", "S12"]
    assert keys(g.world.burned) == []  # type: ignore[attr-defined]
    submit(g, "DROP N300")  # in neither: nothing happens, and the order is done
    assert keys(ann.hand) == ["S4", "S12"] and g.turns["1"].used[0].status == "done"


def test_remove_from_a_per_key_list_drops_the_key_when_empty(deck: Loaded) -> None:
    g = deck.new_game()
    submit(g, "SEE S4", "SEE S12", "SEE S4")
    assert {k: keys(v) for k, v in g.world.seen.items()} == {"1": ["S4", "S12", "S4"]}  # type: ignore[attr-defined]
    submit(g, "DROP S4", "DROP S12")
    assert {k: keys(v) for k, v in g.world.seen.items()} == {"1": ["S4"]}  # type: ignore[attr-defined]
    submit(g, "DROP S4")
    assert g.world.seen == {}  # type: ignore[attr-defined]
    assert dump(g)["world"]["seen"] == {}


# ---------------------------------------------------------------- order groups

def test_a_group_refuses_orders_beyond_its_limit(deck: Loaded) -> None:
    g = deck.new_game()
    submit(g, "LAUNCH M500 WITH N200 AT bob", "SALVO 3+4", "LAUNCH M200 WITH N300 AT ann")
    assert log(g) == ["launch M500 1 200 no N200"]
    assert refused(g) == [(4, "SALVO 3+4", "Ann may attack once a round"),
                          (5, "LAUNCH M200 WITH N300 AT ann", "Ann may attack once a round")]
    assert g.on_file.get("1", []) == []
    submit(g, "SALVO 3+4")
    assert log(g)[-1] == "salvo 7 of 2" and refused(g) == []


def test_orders_refused_by_a_group_do_not_count_against_the_turn(deck: Loaded) -> None:
    g = deck.new_game()
    submit(g, "PLAY S4 AT bob", "PLAY S12 AT bob", "PLAY S12 AT bob", "N,a", "N,b", "N,c", "N,d", "N,e")
    assert [r.text for r in g.turns["1"].used] == ["PLAY S4 AT bob", "PLAY S12 AT bob", "N,a", "N,b", "N,c", "N,d"]
    assert refused(g) == [(5, "PLAY S12 AT bob", "no more than two cards a round")]
    assert g.on_file["1"] == ["N,e"]


def test_a_group_counts_orders_from_file_and_each_player_apart(deck: Loaded) -> None:
    g = deck.new_game()
    submit(g, "N,1", "N,2", "N,3", "N,4", "N,5", "N,6", "SALVO 1")
    assert g.on_file["1"] == ["SALVO 1"]
    g.process_turn([("a.txt", "1\nA\nSALVO 2\n"), ("b.txt", "2\nB\nSALVO 5\n")])
    assert log(g)[-1] == "salvo 1 of 1" and log(g, 2) == ["salvo 5 of 1"]
    assert refused(g) == [(3, "SALVO 2", "Ann may attack once a round")]


def test_an_order_refused_by_its_group_does_not_use_up_its_once(deck: Loaded) -> None:
    g = deck.new_game()
    submit(g, "SALVO 1", "LAUNCH M200 WITH N200 AT bob")
    assert refused(g)[0][2] == "Ann may attack once a round"
    submit(g, "LAUNCH M200 WITH N200 AT bob")
    assert refused(g) == [] and log(g)[-1] == "launch M200 1 200 no N200"


def test_an_order_that_is_not_valid_does_not_take_a_place_in_its_group(deck: Loaded) -> None:
    g = deck.new_game()
    submit(g, "LAUNCH S4 WITH N200 AT bob", "LAUNCH M200 WITH N200 AT bob", "LAUNCH M500 WITH N200 AT ann")
    assert log(g) == ["launch M200 1 200 no N200"]
    assert refused(g) == [(3, "LAUNCH S4 WITH N200 AT bob", "a satellite is no missile"),
                          (5, "LAUNCH M500 WITH N200 AT ann", "Ann may attack once a round")]


# ---------------------------------------------------------------- ends turn

def test_an_order_that_ends_the_turn_refuses_the_rest(deck: Loaded) -> None:
    g = deck.new_game()
    submit(g, "N,a", "PASS", "N,b", "STOP", "N,c", "SALVO 1")
    assert log(g) == ["a", "pass"]
    ended = 'your round ended with line 4: "PASS"'
    assert refused(g) == [(5, "N,b", ended), (7, "N,c", ended), (8, "SALVO 1", ended)]
    assert g.on_file.get("1", []) == []


def test_orders_on_file_after_an_ending_order_are_refused_and_dropped(deck: Loaded) -> None:
    g = deck.new_game()
    submit(g, *[f"N,{i}" for i in range(6)], "PASS", "N,x", "STOP", "N,y")
    assert g.on_file["1"] == ["PASS", "N,x", "STOP", "N,y"]
    submit(g, "N,z")
    assert log(g)[-1] == "pass"
    ended = 'your round ended with line 0: "PASS"'
    assert refused(g) == [(0, "N,x", ended), (0, "N,y", ended), (3, "N,z", ended)]
    assert g.on_file.get("1", []) == []


def test_ends_turn_when_is_judged_with_the_arguments(deck: Loaded) -> None:
    g = deck.new_game()
    submit(g, "REVEAL 2", "REVEAL 3", "REVEAL 4")
    assert log(g) == ["reveal 2", "reveal 3"]
    assert refused(g) == [(5, "REVEAL 4", 'your round ended with line 4: "REVEAL 3"')]


def test_ends_turn_is_judged_against_the_state_at_the_start_of_the_turn(deck: Loaded) -> None:
    g = deck.new_game()
    # The launch sets the owner only when its phase runs, after the orders are chosen.
    submit(g, "LAUNCH M200 WITH N200 AT bob", "REVEAL 3", "N,late")
    assert log(g) == ["launch M200 1 200 no N200", "reveal 3"]
    assert refused(g)[0][:2] == (5, "N,late")
    submit(g, "REVEAL 3", "N,on")
    assert log(g)[-2:] == ["on", "reveal 3"] and refused(g) == []


def test_a_refused_order_does_not_end_the_turn(deck: Loaded) -> None:
    g = deck.new_game()
    submit(g, "REVEAL -3", "N,a")
    assert log(g) == ["a"] and refused(g) == [(3, "REVEAL -3", "n must not be negative")]


# ---------------------------------------------------------------- list arguments

def test_list_arguments_keep_order_and_duplicates(deck: Loaded) -> None:
    g = deck.new_game()
    submit(g, "LAUNCH M500 WITH n300 + N200+N300 AT bob")
    assert log(g) == ["launch M500 3 800 yes N300+N200+N300"]
    [rec] = g.turns["1"].used
    assert keys(rec.args["warheads"]) == ["N300", "N200", "N300"]
    assert rec.text == "LAUNCH M500 WITH n300 + N200+N300 AT bob"


def test_once_per_turn_per_a_list_argument_compares_the_items_in_order(deck: Loaded) -> None:
    g = deck.new_game()
    submit(g, "SALVO 1+2", "SALVO 1 + 2", "SALVO 2+1")
    assert log(g) == ["salvo 3 of 2"]
    assert refused(g) == [(4, "SALVO 1 + 2", "this order may be given once per round for the same rolls"),
                          (5, "SALVO 2+1", "Ann may attack once a round")]


def test_a_list_of_one_item_is_a_list(deck: Loaded) -> None:
    g = deck.new_game()
    submit(g, "SALVO 6")
    assert log(g) == ["salvo 6 of 1"]


@pytest.mark.parametrize(("line", "reason"), [
    ("LAUNCH M500 WITH N200+ AT bob", 'warheads has an empty item in "N200+": join the items with "+", like "A+B"'),
    ("LAUNCH M500 WITH +N200 AT bob", 'warheads has an empty item in "+N200": join the items with "+", like "A+B"'),
    ("LAUNCH M500 WITH N200++N300 AT bob",
     'warheads has an empty item in "N200++N300": join the items with "+", like "A+B"'),
    ("LAUNCH M500 WITH N200+X9+ZZ AT bob", '"X9" is not a card code'),
    ("SALVO 1+two", 'rolls must be a whole number, not "two"'),
    ("LAUNCH S4 WITH N200 AT bob", "a satellite is no missile"),
], ids=["empty-last", "empty-first", "empty-middle", "bad-item", "bad-int", "valid"])
def test_list_arguments_that_do_not_read_are_refused(deck: Loaded, line: str, reason: str) -> None:
    g = deck.new_game()
    submit(g, line)
    assert refused(g) == [(3, line, reason)]
    assert log(g) == []


# ---------------------------------------------------------------- syntaxes with literal words

def test_syntaxes_with_literal_words_are_tried_in_declaration_order(deck: Loaded) -> None:
    g = deck.new_game()
    submit(g, "PLAY S4 AT bob", "play s12 at BOB")
    assert log(g) == ["satellite at Bob", "S12 to Bob"]
    assert [r.kind for r in g.turns["1"].used] == ["satellite", "steal"]
    submit(g, "PLAY N200 AT bob")
    assert refused(g) == [(3, "PLAY N200 AT bob", "you do not hold N200")]


def test_a_scenario_of_another_ruleset_fails_without_a_world(deck: Loaded) -> None:
    # new_game() is used by tests without the schema: the world section is still checked.
    with pytest.raises(StateError, match=r"^\$\.world: expected a mapping"):
        new_game(deck.spec, {"players": [{"name": "A", "account": "1", "code": "A"}], "world": [1]})


def test_rulesdsl_new_names_every_fault_of_a_scenario(tmp_path: Path) -> None:
    # Unknown sections and fields, and a wrong type, all in one refusal, each line with its path.
    text = PLAYERS + "Wrold: {}\nCrad: {}\nworld: {reveal_rund: 3, launches: many}\n"
    with pytest.raises(GameError) as info:
        _start(tmp_path, text)
    lines = str(info.value).splitlines()
    assert lines[:2] == ['scenario.yaml: $.Wrold: "Deck" has no such section',
                         'scenario.yaml: $.Crad: "Deck" has no such section']
    assert any(line.startswith("scenario.yaml: $.world.launches: ") for line in lines), lines
    assert "scenario.yaml: $.world.reveal_rund: no such field; did you mean reveal_round?" in lines


def test_rulesdsl_new_names_every_value_it_cannot_use(tmp_path: Path) -> None:
    text = PLAYERS.replace("code: A}", "code: A, hand: [Q9]}") + "world: {top: X1}\n"
    with pytest.raises(GameError) as info:
        _start(tmp_path, text)
    assert str(info.value).splitlines() == ["scenario.yaml: $.players[0].hand[0]: no Card is keyed 'Q9'",
                                           "scenario.yaml: $.world.top: no Card is keyed 'X1'"]
