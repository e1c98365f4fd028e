"""Game._execute, the one function that carries out an order: a small ruleset and one turn's mail -> each
order's outcome, the cash paid and `orders(kind)`, as the rules read them step by step (out of the game,
checks, cost, cash, effect; a failed effect gives the cost back; only orders done count)."""

from __future__ import annotations

import pytest

from tests.unit.rulestools import BASE, Loaded, load_text

RULES = BASE.replace('phase putting: run put\n', '''phase leaving: run leave
phase putting: run put
order dig "D,{box},{n}" {
  box: Box
  n: 1..9
  require box.stones >= n else "only {box.stones} stones in {box.name}"
  cost money(n)
  effect {
    if n == 9 { fail "the ground is too hard" }
    box.stones -= n
  }
}
order loop "L,{n}" {
  n: from 0
  cost money(1)
  effect {
    for each i in 1..n { me.moves += 1 }
  }
}
order leave "Q" {
  effect { me.active = false }
}
personal order shout "SHOUT,{word}" {
  word: text
  valid length(word) > 1 else "say more"
  effect { news "{me.name}: {word}" }
}
phase digging: run dig
phase looping: run loop
phase counting {
  news "dug {size(orders(dig))}, put {size(orders(put))}"
  news "{sum(o.n for o in orders(dig))} stones dug"
}
''')


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    tmp = tmp_path_factory.mktemp("execute")
    return load_text(tmp / "rules", RULES, "{{ cash }}\n", "t", tmp / "cache")


def test_each_order_is_carried_out_as_the_rules_read(game: Loaded) -> None:
    g = game.new_game()
    ann, bob = g.all_players
    g.process_turn([
        ("1.txt", "1\nA\nP,A,4\nD,A,3\nD,A,9\nD,B,1\nP,B,9\nSHOUT,x\nSHOUT,hello\nL,3\n"),
        ("2.txt", "2\nB\nQ\nP,A,1\n"),
    ])
    assert [(r.text, r.status, r.reason) for r in g.turns[ann._key].used] == [
        ("SHOUT,x", "failed", "say more"),  # a personal order's `valid`, asked as its mail is read
        ("SHOUT,hello", "done", None),
        ("P,A,4", "done", None),  # cash 10 -> 6, 4 stones in A
        ("D,A,3", "done", None),  # cash 6 -> 3, 1 stone left
        ("D,A,9", "failed", "only 1 stones in Alpha"),  # its require: nothing paid
        ("D,B,1", "failed", "only 0 stones in Beta"),
        ("P,B,9", "failed", "not enough cash: it costs 9 and you have 6"),  # put runs before dig
        ("L,3", "done", None),  # cash 3 -> 2
    ]
    assert (ann.cash, ann.moves, g.index["Box"]["A"].stones) == (2, 3, 1)
    # Bob left in the first phase: his P order fails, costs nothing, and is not among orders(put).
    assert [(r.text, r.status, r.reason) for r in g.turns[bob._key].used] == [
        ("Q", "done", None), ("P,A,1", "failed", "you are out of the game")]
    assert bob.cash == 10
    assert g.news_items() == ["Ann: hello", "dug 1, put 1", "3 stones dug"]
    # What a loop reads (orders_done), and what modules compiled before it read (orders_read), are one list.
    assert [r.text for r in g.orders_done["dig"]] == ["D,A,3"]
    assert g.orders_read("dig") is g.orders_done["dig"]
    assert g.orders_of("dig") == g.orders_done["dig"] and g.orders_of("dig") is not g.orders_done["dig"]


def test_a_failed_effect_gives_the_cost_back_and_a_loop_too_long_fails_its_order(game: Loaded) -> None:
    g = game.new_game(players=1)
    (ann,) = g.all_players
    g.index["Box"]["A"].stones = 9
    g.process_turn([("1.txt", "1\nA\nD,A,9\nL,999999999999\n")])
    used = {r.text: (r.status, r.reason) for r in g.turns[ann._key].used}
    assert used["D,A,9"] == ("failed", "the ground is too hard")
    assert ann.cash == 10
    assert g.index["Box"]["A"].stones == 9
    status, reason = used["L,999999999999"]
    assert status == "failed" and reason is not None and "counted loop" in reason
    assert ann.cash == 10  # its cost given back
    assert g.news_items()[-2:] == ["dug 0, put 0", "0 stones dug"]

