"""Runtime helpers: `best` and its ties, random streams keyed by purpose, weighted draws."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction

import pytest

from rulesdsl.runtime.core import best, chance, roll, weighted_pick
from rulesdsl.runtime.engine import Game
from tests.unit.rulestools import Loaded, load_text

RULES = '''ruleset "Dice" { version "1" turn "round" }
player {
  rolled: int = 0
}
phase throw {
  for each p in players {
    p.rolled = roll(6, "dice")
  }
}
report {
  rolled = me.rolled
  template "dice.report.j2"
}
'''


@pytest.fixture(scope="module")
def dice(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    base = tmp_path_factory.mktemp("dice")
    return load_text(base, RULES, "{{ rolled }}\n", "dice", base / "cache")


def game(dice: Loaded, seed: int, turn: int) -> Game:
    g = dice.new_game(seed=seed)
    g.turn = turn
    return g


# ---------------------------------------------------------------- best

@pytest.mark.parametrize(("pairs", "winner"), [
    ([], None),
    ([(3, "a")], "a"),
    ([(1, "a"), (3, "b"), (2, "c")], "b"),
    ([(3, "a"), (3, "b")], None),
    ([(1, "a"), (3, "b"), (3, "c")], None),
    ([(3, "a"), (1, "b"), (3, "c")], None),
    ([(2, "a"), (2, "b"), (5, "c")], "c"),  # a tie below the top does not matter
    ([(5, "a"), (2, "b"), (2, "c")], "a"),
    ([(-1, "a"), (-2, "b")], "a"),
    ([(0, "a"), (0, "b")], None),
    ([(Fraction(1, 3), "a"), (Fraction(2, 6), "b")], None),
    ([(Fraction(1, 3), "a"), (Fraction(1, 2), "b")], "b"),
])
def test_best(pairs: list[tuple[int | Fraction, str]], winner: str | None) -> None:
    assert best(iter(pairs)) == winner


def test_best_of_a_generator_reads_it_once() -> None:
    seen: list[int] = []

    def scores() -> Iterator[tuple[int, str]]:
        for i, s in enumerate([4, 9, 1]):
            seen.append(i)
            yield s, f"p{i}"
    assert best(scores()) == "p1"
    assert seen == [0, 1, 2]


# ---------------------------------------------------------------- random streams

def draws(g: Game, purpose: str, k: int = 8) -> list[int]:
    r = g.rng(purpose)
    return [r.randrange(1_000_000) for _ in range(k)]


def test_same_seed_and_turn_give_the_same_draws(dice: Loaded) -> None:
    assert draws(game(dice, 7, 3), "kill") == draws(game(dice, 7, 3), "kill")


def test_drawing_for_one_purpose_does_not_shift_another(dice: Loaded) -> None:
    quiet = game(dice, 7, 3)
    expected = draws(quiet, "kill")
    busy = game(dice, 7, 3)
    draws(busy, "terrorism", 50)
    busy.rng("revolution").random()
    assert draws(busy, "kill") == expected
    # ... also when the other purpose is drawn from between two draws of this one.
    mixed = game(dice, 7, 3)
    got = []
    for _ in range(8):
        got.append(mixed.rng("kill").randrange(1_000_000))
        mixed.rng("terrorism").random()
    assert got == expected


def test_a_purpose_keeps_its_stream_within_a_turn(dice: Loaded) -> None:
    g = game(dice, 7, 3)
    first = g.rng("kill").random()
    assert g.rng("kill") is g.rng("kill")
    assert g.rng("kill").random() != first


def test_streams_differ_by_purpose_seed_and_turn(dice: Loaded) -> None:
    base = draws(game(dice, 7, 3), "kill")
    assert draws(game(dice, 7, 3), "terrorism") != base
    assert draws(game(dice, 8, 3), "kill") != base
    assert draws(game(dice, 7, 4), "kill") != base


def test_a_turn_draws_from_fresh_streams(dice: Loaded) -> None:
    # Two games with the same seed roll the same dice, turn after turn, however they got there.
    a, b = dice.new_game(players=3, seed=11), dice.new_game(players=3, seed=11)
    rolls_a, rolls_b = [], []
    for _ in range(4):
        a.process_turn([])
        rolls_a.append([p.rolled for p in a.all_players])
    for _ in range(4):
        b.rng("something else").random()  # left over from nothing: process_turn starts new streams
        b.process_turn([])
        rolls_b.append([p.rolled for p in b.all_players])
    assert rolls_a == rolls_b
    assert all(1 <= r <= 6 for turn in rolls_a for r in turn)
    assert len({tuple(t) for t in rolls_a}) > 1


def test_a_different_seed_rolls_different_dice(dice: Loaded) -> None:
    a, b = dice.new_game(players=4, seed=1), dice.new_game(players=4, seed=2)
    rolls = []
    for g in (a, b):
        seq = []
        for _ in range(3):
            g.process_turn([])
            seq.append([p.rolled for p in g.all_players])
        rolls.append(seq)
    assert rolls[0] != rolls[1]


# ---------------------------------------------------------------- weighted draws, chance, roll

def test_weighted_pick_is_reproducible() -> None:
    rows = [(Fraction(50), "a"), (Fraction(30), "b"), (Fraction(20), "c")]
    r1, r2 = random.Random(99), random.Random(99)
    assert [weighted_pick(r1, rows) for _ in range(50)] == [weighted_pick(r2, rows) for _ in range(50)]


def test_weighted_pick_follows_the_weights() -> None:
    rows = [(Fraction(50), "a"), (Fraction(30), "b"), (Fraction(20), "c")]
    rng = random.Random(1)
    counts = Counter(weighted_pick(rng, rows) for _ in range(20_000))
    assert set(counts) == {"a", "b", "c"}
    for value, weight in (("a", 0.5), ("b", 0.3), ("c", 0.2)):
        assert abs(counts[value] / 20_000 - weight) < 0.02, counts


def test_weighted_pick_with_fractional_weights() -> None:
    rows = [(Fraction("12.5"), "rare"), (Fraction("87.5"), "common")]
    rng = random.Random(3)
    counts = Counter(weighted_pick(rng, rows) for _ in range(16_000))
    assert abs(counts["rare"] / 16_000 - 0.125) < 0.015, counts
    thirds = [(Fraction("33.3"), 1), (Fraction("33.3"), 2), (Fraction("33.4"), 3)]
    assert {weighted_pick(rng, thirds) for _ in range(300)} == {1, 2, 3}


def test_weighted_pick_of_one_row_always_gives_it() -> None:
    rng = random.Random(0)
    assert {weighted_pick(rng, [(Fraction(100), "only")]) for _ in range(100)} == {"only"}


def test_weighted_pick_uses_one_draw_of_its_stream() -> None:
    rows = [(Fraction(50), "a"), (Fraction(50), "b")]
    r1, r2 = random.Random(4), random.Random(4)
    weighted_pick(r1, rows)
    r2.randrange(100)
    assert r1.random() == r2.random()


def test_chance_and_roll_bounds() -> None:
    rng = random.Random(2)
    assert not any(chance(rng, 0) for _ in range(500))
    assert all(chance(rng, 100) for _ in range(500))
    assert {roll(rng, 6) for _ in range(500)} == {1, 2, 3, 4, 5, 6}
    assert {roll(rng, 0) for _ in range(20)} == {1}
