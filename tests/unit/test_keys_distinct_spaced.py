"""Issue 13's language constructs, played: `distinct(...)`, chance keyed by a value, `spaced` list arguments and
`replace(...)`; and the checker's refusals of each (E0372, E0373, E0432)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rulesdsl.codegen.emit import generate
from rulesdsl.runtime.core import Thing, roll
from rulesdsl.runtime.report import report_data
from tests.unit.rulestools import BASE, BASE_LINES, Loaded, check_text, load_text, show

RULES = '''ruleset "Keys" { version "1" turn "turn" }
thing Box keyed by code {
  name: text
  holder: Player?
  n: int = 0
}
data Box(code, name) { A: "Alpha"  B: "Beta"  C: "Gamma"  D: "Delta" }
player {
  heard: list of int
  said: text = ""
  draws: list of int
}
world { hidden: bool = false }
orders { header "{account}", "{code}" }
order take "T {box}" {
  box: Box
  effect { box.holder = me }
}
order send "Y {whom} {codes}" {
  whom: Player
  codes: list of int spaced
  effect { whom.heard = codes }
}
order say "SAY {word}" {
  word: text
  effect { me.said = replace("Player {{X}} says {{X}}.", "{{X}}", word) }
}
phase acting: run take, send, say together
phase dice {
  if world.hidden {
    let unseen = roll(6, "dice", Box.D) + roll(6, "dice", Box.D)
  }
  for each p in players {
    p.draws = [roll(100, "dice", p), roll(100, "dice", p, Box.A), roll(100, "dice", p, Box.A)]
  }
}
report {
  holders = [p.name for p in distinct(b.holder for b in Box where b.holder != none)]
  by_n = distinct(b.n for b in Box by b.n descending)
  heard = me.heard
  said = me.said
  template "k.report.j2"
}
'''


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    base = tmp_path_factory.mktemp("keys")
    return load_text(base, RULES, "{{ holders }} {{ heard }}\n", "k", base / "cache")


def _mail(account: int, *lines: str) -> tuple[str, str]:
    return f"p{account}.txt", "\n".join([str(account), chr(ord("A") + account - 1), *lines]) + "\n"


def test_distinct_keeps_each_value_once_where_it_first_came(keys: Loaded) -> None:
    g = keys.new_game(players=3)
    g.process_turn([_mail(2, "T B", "T D"), _mail(1, "T C")])
    assert [b.holder.name if b.holder else None for b in g.all["Box"]] == [None, "Bob", "Ann", "Bob"]
    report = report_data(g, g.all_players[0])
    assert report["holders"] == ["Bob", "Ann"]  # Box order: B (Bob), C (Ann), D (Bob again, dropped)


def test_distinct_with_by_keeps_the_first_in_the_sorted_order(keys: Loaded) -> None:
    g = keys.new_game(players=1)
    for n, b in zip((2, 5, 2, 7), g.all["Box"], strict=True):
        b.n = n
    assert report_data(g, g.all_players[0])["by_n"] == [7, 5, 2]


def test_distinct_equals_a_reference_on_random_lists(keys: Loaded) -> None:
    """The generated form against `dict.fromkeys`'s meaning written out: the first of each, in order."""
    rng = random.Random(13)
    things = [Thing(f"k{i}", i) for i in range(20)]
    for _ in range(200):
        items = [rng.choice(things) for _ in range(rng.randrange(30))]
        seen: list[Thing] = []
        for t in items:
            if all(t is not s for s in seen):
                seen.append(t)
        assert list(dict.fromkeys(items)) == seen


def test_a_keyed_stream_is_not_moved_by_draws_under_another_key(keys: Loaded) -> None:
    quiet, busy = keys.new_game(players=2), keys.new_game(players=2)
    busy.world.hidden = True  # type: ignore[attr-defined]
    quiet.process_turn([])
    busy.process_turn([])
    assert [p.draws for p in quiet.all_players] == [p.draws for p in busy.all_players]
    ann = quiet.all_players[0].draws
    assert ann[1] != ann[2] or ann[0] != ann[1]  # a key's draws follow one another


def test_keyed_draws_are_independent_of_interleaved_draws(keys: Loaded) -> None:
    g = keys.new_game(players=1)
    g.turn = 4
    alone = [roll(g.keyed("air", "x"), 100) for _ in range(1000)]
    g._rngs = {}
    mixed = []
    for _ in range(1000):
        mixed.append(roll(g.keyed("air", "x"), 100))
        roll(g.keyed("air", "y"), 100)
        roll(g.rng("air"), 100)
    assert mixed == alone
    g._rngs = {}
    assert [roll(g.rng("air"), 100) for _ in range(50)] != alone[:50]  # the unkeyed stream is another


def test_unkeyed_streams_are_drawn_as_before(keys: Loaded) -> None:
    """The stream of a purpose with no key is seeded as it always was: games already played replay alike."""
    import hashlib

    g = keys.new_game(players=1)
    g.turn = 3
    digest = hashlib.sha256(f"{g.seed}/3/combat".encode()).digest()
    expected = random.Random(int.from_bytes(digest[:8], "big"))
    assert [roll(g.rng("combat"), 6) for _ in range(20)] == [expected.randint(1, 6) for _ in range(20)]


@pytest.mark.parametrize(("line", "heard"), [
    ("Y 2 151 155 117", [151, 155, 117]),
    ("Y 2 151+155", [151, 155]),
    ("Y 2 151 + 155  117", [151, 155, 117]),
    ("Y 2 9", [9]),
])
def test_a_spaced_list_reads_spaces_and_plus(keys: Loaded, line: str, heard: list[int]) -> None:
    g = keys.new_game(players=2)
    g.process_turn([_mail(1, line)])
    assert g.all_players[1].heard == heard


def test_a_spaced_list_refuses_a_word_that_is_no_item(keys: Loaded) -> None:
    g = keys.new_game(players=2)
    g.process_turn([_mail(1, "Y 2 151 x")])
    assert g.all_players[1].heard == []
    refused = g.turns[g.all_players[0]._key].refused
    assert len(refused) == 1 and "x" in refused[0].reason, refused


def test_replace_fills_every_slot(keys: Loaded) -> None:
    g = keys.new_game(players=1)
    g.process_turn([_mail(1, "SAY Red")])
    assert g.all_players[0].said == "Player Red says Red."


def test_replace_of_an_empty_text_stops_the_turn_naming_the_call() -> None:
    from rulesdsl.runtime.core import replace

    assert replace("a-b-c", "-", "+") == "a+b+c"
    with pytest.raises(ValueError, match="the text to replace is empty"):
        replace("abc", "", "x")


# ---------------------------------------------------------------- the checker's refusals

def _codes(tmp_path: Path, extra: str) -> list[tuple[int, str]]:
    checked = check_text(tmp_path, BASE + extra)
    return [(d.span.line - BASE_LINES, d.code) for d in checked.diagnostics if d.severity == "error"]


def test_distinct_of_a_list_is_e0372(tmp_path: Path) -> None:
    assert _codes(tmp_path, "define f() -> int = size(distinct(b.near for b in Box))\n") == [(1, "E0372")]


def test_distinct_of_owners_narrowed_by_where_is_a_list_of_players(tmp_path: Path) -> None:
    checked = check_text(tmp_path, BASE + '''thing Crate numbered { holder: Player? }
define f() -> list of Player = distinct(c.holder for c in Crate where c.holder != none)
''')
    assert not [d for d in checked.diagnostics if d.severity == "error"], show(checked.diagnostics)


def test_a_stream_key_that_is_a_list_is_e0373(tmp_path: Path) -> None:
    extra = 'phase q { for each b in Box { b.stones = roll(6, "s", b.near) } }\n'
    assert _codes(tmp_path, extra) == [(1, "E0373")]


def test_a_stream_key_may_not_draw_and_takes_at_most_three_keys(tmp_path: Path) -> None:
    extra = ('phase q { for each b in Box {\n'
             '  b.stones = roll(6, "s", roll(2, "t"))\n'
             '  b.stones = roll(6, "s", b, 1, 2, 3)\n'
             '} }\n')
    assert _codes(tmp_path, extra) == [(2, "E0324"), (3, "E0322")]


def test_spaced_on_a_non_list_or_not_last_is_e0432(tmp_path: Path) -> None:
    extra = ('order tell_box "TB {n} {boxes}" { n: int spaced  boxes: Box }\n'
             'order mark "MK {boxes} {n}" { boxes: list of Box spaced  n: int }\n'
             'phase q2: run tell_box, mark together\n')
    assert _codes(tmp_path, extra) == [(1, "E0432"), (2, "E0432")]


# ---------------------------------------------------------------- optional fields of numbered things

STAFF = BASE + '''thing Division numbered per owner { size: int = 1 }
thing General numbered { unit: Division?  rank: int = 1 }
define staff(d: Division) -> int = count(x for x in General where x.unit == d and x.rank > 0)
phase staffing { for each d in Division { d.size = staff(d) } }
'''


def test_an_optional_field_of_a_numbered_thing_is_indexed_and_no_w0207(tmp_path: Path) -> None:
    """The runtime keeps an index of every optional field holding a numbered thing (destroy finds holders
    through it), and a loop reads it; the checker used to warn W0207 that the loop scans every instance."""
    checked = check_text(tmp_path, STAFF)
    assert not checked.diagnostics, show(checked.diagnostics)
    assert checked.program is not None
    code = generate(checked.program)
    assert "bucket(g.ix['General']['unit']" in code


def test_a_keyed_stream_draws_the_same_numbers_in_every_version() -> None:
    """A game replayed after an upgrade draws as it did: the counted hash is the whole of a keyed stream."""
    from rulesdsl.runtime.core import KeyedStream

    stream = KeyedStream("5/1/air\x1f0101")
    assert [roll(stream, 100) for _ in range(6)] == [1, 22, 47, 80, 3, 84]


def test_a_list_joined_by_plus_does_not_hide_a_spaced_one_declared_after_it(tmp_path: Path) -> None:
    """`Y 2 151 155` is refused by the first (its `+` list does not read `151 155`) and read by the second."""
    extra = ('order y1 "Y {whom} {codes}" { whom: Player  codes: list of int }\n'
             'order y2 "Y {whom} {more}" { whom: Player  more: list of int spaced }\n'
             'order y3 "Z {whom} {more}" { whom: Player  more: list of int spaced }\n'
             'order y4 "Z {whom} {codes}" { whom: Player  codes: list of int }\n'
             'phase q2: run y1, y2, y3, y4 together\n')
    assert _codes(tmp_path, extra) == [(4, "E0421")]


def test_keys_of_different_kinds_never_share_a_stream() -> None:
    from rulesdsl.runtime.core import key_text

    texts = [key_text(v) for v in (7, "7", True, "yes", None, "none", Thing("7", 0))]
    assert len(set(texts)) == len(texts), texts
