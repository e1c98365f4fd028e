"""Aggregates over the keys a per-key value stores: a small ruleset -> its generated functions, called on per-key
values stored in every order, against the plain reading of the rules (every item in declaration order).

A sum, a count, the best and the largest or smallest whole number go through the stored (thing, value) pairs
as stored (`stored_items`), with no sort; a list keeps declaration order (`stored`); a map read through the
loop's own item (`b.pull[b]`) is not a stored-keys test at all."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from tests.unit.rulestools import Loaded, load_text

RULES = '''ruleset "Stored" { version "1" turn "turn" }
thing Box keyed by code {
  name: text
  owner: Player -> int
  pull: Box -> int
  share: Player -> decimal
}
data Box(code, name) {
  A: "Alpha"
  B: "Beta"
  C: "Gamma"
}
player {
  cash: money = 10
}
orders {
  header "{account}", "{code}"
}
define leader(c: Box) -> Player? = best(p for p in players where c.owner[p] > 0 by c.owner[p])
define first_owner(c: Box) -> Player? = best(p for p in all_players where 1 <= c.owner[p] by c.owner[p])
define most_pulled(c: Box) -> Box? = best(b for b in Box where c.pull[b] >= 2 by c.pull[b])
define richest(c: Box) -> Player? = best(p for p in players where c.owner[p] > 0 by c.owner[p] * 2)
define total(c: Box) -> int = sum(c.owner[p] for p in all_players where c.owner[p] != 0 and p.cash >= 0)
define owners(c: Box) -> int = count(p for p in players where c.owner[p] > 0)
define top(c: Box) -> int = max(c.owner[p] * 2 for p in all_players where c.owner[p] > 0)
define low(c: Box) -> int = min(c.owner[p] - amount(p.cash) for p in players where c.owner[p] < 0)
define pulled(c: Box) -> int = sum(c.pull[b] for b in Box where c.pull[b] >= 1)
define biggest_share(c: Box) -> decimal = max(c.share[p] for p in players where c.share[p] > 0)
define names(c: Box) -> list of text = [p.name for p in players where c.owner[p] > 0]
define selfish() -> int = count(b for b in Box where b.pull[b] > 0)
report {
  cash = me.cash
  template "stored.report.j2"
}
'''


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    tmp = tmp_path_factory.mktemp("stored")
    return load_text(tmp / "rules", RULES, "{{ cash }}\n", "stored", tmp / "cache")


def best(pairs: list[tuple[int, Any]]) -> Any:
    top = max((s for s, _ in pairs), default=None)
    winners = [item for s, item in pairs if s == top]
    return winners[0] if len(winners) == 1 else None


def plain(g: Any, c: Any) -> dict[str, Any]:
    """Each function as the rules read, over every player or box in declaration order."""
    owner = c.owner
    active = [p for p in g.all_players if p.active]
    return {
        "leader": best([(owner.get(p._key, 0), p) for p in active if owner.get(p._key, 0) > 0]),
        "first_owner": best([(owner.get(p._key, 0), p) for p in g.all_players if owner.get(p._key, 0) >= 1]),
        "most_pulled": best([(c.pull.get(b._key, 0), b) for b in g.all["Box"] if c.pull.get(b._key, 0) >= 2]),
        "richest": best([(owner.get(p._key, 0) * 2, p) for p in active if owner.get(p._key, 0) > 0]),
        "total": sum(owner.get(p._key, 0) for p in g.all_players if p.cash >= 0 and owner.get(p._key, 0) != 0),
        "owners": sum(1 for p in active if owner.get(p._key, 0) > 0),
        "top": max((owner.get(p._key, 0) * 2 for p in g.all_players if owner.get(p._key, 0) > 0), default=0),
        "low": min((owner.get(p._key, 0) - p.cash for p in active if owner.get(p._key, 0) < 0), default=0),
        "pulled": sum(c.pull.get(b._key, 0) for b in g.all["Box"] if c.pull.get(b._key, 0) >= 1),
        "biggest_share": max((c.share.get(p._key, 0) for p in active if c.share.get(p._key, 0) > 0), default=0),
        "names": [p.name for p in active if owner.get(p._key, 0) > 0],
    }


def test_order_free_aggregates_go_through_the_stored_pairs_and_lists_keep_their_order(stored: Loaded) -> None:
    source = Path(str(stored.module.__file__)).read_text(encoding="utf-8")
    for name in ("richest", "total", "owners", "top", "low", "pulled"):
        body = source.split(f"def fn_{name}(", 1)[1].split("\n\n", 1)[0]
        assert "stored_items(g.index[" in body and "sorted" not in body, body
    # The decimal maximum and the list keep declaration order.
    for name in ("biggest_share", "names"):
        body = source.split(f"def fn_{name}(", 1)[1].split("\n\n", 1)[0]
        assert "stored(g.index['Player']" in body and "stored_items" not in body, body
    # The value is bound where the loop takes it, not read again.
    assert "for v_p, at_p in stored_items(g.index['Player'], v_c.owner) if v_p.active and at_p > 0" in source
    # The thing with the one highest stored value: one loop in the runtime.
    assert "return best_stored(g.index['Player'], v_c.owner, 0, strict=True, active=True)" in source
    assert "return best_stored(g.index['Player'], v_c.owner, 1, strict=False, active=False)" in source
    assert "return best_stored(g.index['Box'], v_c.pull, 2, strict=False, active=False)" in source


LEVELS = [{}, {"1": 5}, {"3": 5, "1": 2}, {"3": 5, "1": 5}, {"4": 1, "2": -4, "1": 3}, {"2": -1, "4": -7},
          {"1": 4, "2": 4, "3": 9}, {"4": 9, "3": 9, "2": 1}]


@pytest.mark.parametrize("levels", LEVELS)
def test_each_aggregate_gives_what_the_rules_say_whatever_the_order_the_keys_are_stored_in(
        stored: Loaded, levels: dict[str, int]) -> None:
    from fractions import Fraction

    g = stored.new_game(players=4)
    ann, bob, cid, _ = g.all_players
    box = g.index["Box"]["A"]
    for order in itertools.permutations(levels):
        for out, poor in ((None, None), (cid, None), (ann, bob)):
            for p in g.all_players:
                p.active, p.cash = p is not out, -1 if p is poor else 10
            box.owner = {k: levels[k] for k in order}
            box.share = {k: Fraction(levels[k], 2) if levels[k] % 2 else levels[k] // 2 for k in order}
            box.pull = {{"1": "A", "2": "B", "3": "C", "4": "C"}[k]: levels[k] for k in order}
            got = {name: getattr(stored.module, f"fn_{name}")(g, box) for name in plain(g, box)}
            assert got == plain(g, box), (order, out, poor)
            assert type(got["biggest_share"]) is type(plain(g, box)["biggest_share"])


def test_a_map_read_through_the_loops_own_item_is_read_for_each_item(stored: Loaded) -> None:
    # `b.pull[b]` names `b` before the loop binds it: going through b's stored keys cannot be done (it once
    # compiled to a NameError).
    g = stored.new_game()
    a, b, c = g.all["Box"]
    assert stored.module.fn_selfish(g) == 0
    a.pull, b.pull, c.pull = {"A": 2}, {"A": 3, "C": 1}, {"C": 0, "B": 4}
    assert stored.module.fn_selfish(g) == 1
    c.pull = {"C": 6}
    assert stored.module.fn_selfish(g) == 2
