"""What the generated module does faster reads the same: a small ruleset -> its generated module, whose
functions are called directly and compared with the plain reading of the rules.

Covered: reports made as plain data (`Plain`) that share no list with the state; range tables with
fractional bounds compared in whole numbers; `a / b` of two whole numbers made as one Fraction; loops that go
through the keys a per-key value stores; `pure` functions inside and outside an `unchanging` window."""

from __future__ import annotations

import itertools
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from rulesdsl.runtime.core import unchanging
from tests.unit.rulestools import Loaded, load_text

RULES = '''ruleset "Speed" { version "1" turn "turn" }
thing Box keyed by code {
  name: text
  weight: int = 0
  owner: Player -> int
}
data Box(code, name) {
  A: "Alpha"
  B: "Beta"
  C: "Gamma"
}
player {
  cash: money = 10
  notes: list of text
}
orders {
  header "{account}", "{code}"
}
table band(x: decimal) -> int {
  below -0.5: 1
  from -0.5 below 1.5: 2
  from 1.5 below 2.5: 3
  from 2.5: 4
}
define ratio(a: int, b: int) -> decimal = a / b
define banded(a: int, b: int) -> int = band(a / b)
define leader(c: Box) -> Player? = best(p for p in players where c.owner[p] > 0 by c.owner[p])
define everyone(c: Box) -> int = sum(c.owner[p] for p in all_players where p.cash >= 0 and c.owner[p] != 0)
define held(p: Player) -> int = count(c for c in Box where leader(c) == p)
define mine(p: Player) -> int = count(c for c in Box where c.owner[p] > 0)
report {
  cash = me.cash
  held = held(me)
  twice = held(me) * 2
  mine = mine(me)
  band = band(ratio(amount(me.cash), 4))
  total = everyone(Box.A)
  notes = me.notes
  boxes = [{code: c.code, notes: me.notes} for c in Box where c.weight >= 0]
  template "speed.report.j2"
}
'''


@pytest.fixture(scope="module")
def speed(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    tmp = tmp_path_factory.mktemp("speed")
    return load_text(tmp / "rules", RULES, "{{ held }}\n", "speed", tmp / "cache")


def band(x: Fraction) -> int:
    """The table as the rules read, in fractions."""
    if x < Fraction(-1, 2):
        return 1
    if Fraction(-1, 2) <= x < Fraction(3, 2):
        return 2
    if Fraction(3, 2) <= x < Fraction(5, 2):
        return 3
    if x >= Fraction(5, 2):
        return 4
    raise AssertionError(x)


def test_a_range_table_with_fractional_bounds_matches_the_fractions(speed: Loaded) -> None:
    source = Path(str(speed.module.__file__)).read_text(encoding="utf-8")
    assert "return ratio_band(g, k0.numerator, k0.denominator)" in source
    g = speed.new_game()
    keys = sorted({Fraction(n, d) for n in range(-12, 13) for d in (1, 2, 3, 4, 6)})
    for key in [*keys, -3, -1, 0, 1, 2, 3]:
        assert speed.module.tbl_band(g, key) == band(Fraction(key)), key


def test_a_range_table_keyed_by_a_division_of_whole_numbers_makes_no_fraction(speed: Loaded) -> None:
    source = Path(str(speed.module.__file__)).read_text(encoding="utf-8")
    assert "return ratio_band(g, *whole_ratio(v_a, v_b))" in source
    g = speed.new_game()
    for a, b in itertools.product(range(-13, 14), (-6, -4, -3, -2, -1, 1, 2, 3, 4, 6)):
        assert speed.module.fn_banded(g, a, b) == band(Fraction(a, b)), (a, b)
    # Division by zero, found where the rules divide (the function), as `a / b` would be.
    with pytest.raises(ZeroDivisionError) as caught:
        speed.module.fn_banded(g, 1, 0)
    located = g.locate(caught.value)
    assert (located.message, located.rule) == ("division by zero", "function banded")


def test_a_division_of_whole_numbers_is_one_exact_fraction(speed: Loaded) -> None:
    g = speed.new_game()
    for a, b in itertools.product(range(-4, 5), (-3, -2, -1, 1, 2, 3)):
        got = speed.module.fn_ratio(g, a, b)
        assert type(got) is Fraction and got == Fraction(a) / Fraction(b)
    with pytest.raises(ZeroDivisionError):
        speed.module.fn_ratio(g, 1, 0)


def _set_owner(g: Any, box: str, levels: dict[str, int]) -> None:
    g.index["Box"][box].owner = {k: v for k, v in levels.items() if v}


def test_a_loop_over_stored_keys_takes_the_same_players_in_the_same_order(speed: Loaded) -> None:
    g = speed.new_game(players=4)
    ann, bob, cid, dee = g.all_players
    source = Path(str(speed.module.__file__)).read_text(encoding="utf-8")
    assert "best_stored(g.index['Player'], v_c.owner, 0, strict=True, active=True)" in source
    box = g.index["Box"]["A"]
    cases = [
        ({}, None, 0),
        ({"3": 5, "1": 2}, cid, 7),  # stored out of the players' order
        ({"3": 5, "1": 5}, None, 10),  # a tie at the top: nobody
        ({"4": 1, "2": -4}, dee, -3),
    ]
    for levels, leader, total in cases:
        _set_owner(g, "A", levels)
        assert speed.module.fn_leader(g, box) is leader, levels
        assert speed.module.fn_everyone(g, box) == total, levels
    # `players` keeps only the active: a resigned leader leads nothing.
    _set_owner(g, "A", {"3": 5, "1": 2})
    cid.active = False
    assert speed.module.fn_leader(g, box) is ann
    bob.cash = -1  # `everyone` counts all players whose cash is not negative, active or not
    _set_owner(g, "A", {"2": 4, "3": 5})
    assert speed.module.fn_everyone(g, box) == 5


def test_a_pure_function_is_remembered_inside_a_window_only(speed: Loaded) -> None:
    g = speed.new_game(players=2)
    ann, bob = g.all_players
    _set_owner(g, "A", {"1": 3})
    _set_owner(g, "B", {"1": 3})
    with unchanging(g):
        assert speed.module.fn_held(g, ann) == 2
        assert speed.module.report_data(g, ann)["held"] == 2  # a report opens the same window again
        _set_owner(g, "B", {"2": 9})  # breaks the window's promise: the remembered value shows it
        assert speed.module.fn_held(g, ann) == 2
    assert speed.module.fn_held(g, ann) == 1  # outside, computed each time
    assert speed.module.fn_held(g, bob) == 1
    assert speed.module.report_data(g, bob)["held"] == 1


def test_a_function_called_once_with_the_reports_own_player_is_not_remembered(speed: Loaded) -> None:
    # Each report would ask it once, with its own player: nothing remembered would be asked for again.
    source = Path(str(speed.module.__file__)).read_text(encoding="utf-8")
    assert re.search(r"\n@pure\n# speed\.rules:\d+\ndef fn_held\(", source)  # called twice in each report
    assert re.search(r"\n\n\n# speed\.rules:\d+\ndef fn_mine\(", source)
    g = speed.new_game(players=2)
    ann, bob = g.all_players
    _set_owner(g, "A", {"1": 3, "2": 1})
    _set_owner(g, "B", {"2": 3})
    with unchanging(g):
        assert [speed.module.report_data(g, p)["mine"] for p in (ann, bob)] == [1, 2]
        assert [speed.module.report_data(g, p)["twice"] for p in (ann, bob)] == [2, 2]


def test_a_plain_report_shares_no_list_with_the_state(speed: Loaded) -> None:
    from rulesdsl.runtime.core import Plain
    from rulesdsl.runtime.report import report_data, to_data

    g = speed.new_game(players=1)
    (ann,) = g.all_players
    ann.notes = ["first"]
    own = speed.module.report_data(g, ann)
    assert type(own) is Plain
    # What the runtime would have made of the same values as a plain dict: equal, and taken as it is.
    assert to_data(dict(own)) == own and to_data(own) is own
    assert own["notes"] == ["first"] and own["boxes"][0]["notes"] == ["first"]
    own["notes"].append("changed")
    own["boxes"][0]["notes"].append("changed")
    assert ann.notes == ["first"]
    assert report_data(g, ann)["notes"] == ["first"]
