"""A call a function's body makes more than once, worked out once: a small ruleset -> its generated functions,
whose source and values are compared with the plain reading of the rules.

Held in a local: a call made twice or more, once at least outside a branch. Left as written: a call made
only in branches (it may not be made at all), and one inside an aggregate whose variable stands for
another value under a parameter's name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.unit.rulestools import Loaded, load_text

RULES = '''ruleset "Hoist" { version "1" turn "turn" }
thing Box keyed by code {
  name: text
  stones: int = 0
}
data Box(code, name) {
  A: "Alpha"
  B: "Beta"
}
player {
  cash: money = 10
}
orders {
  header "{account}", "{code}"
}
define weight(c: Box) -> int = c.stones * 2
define heavy(c: Box) -> int = (if weight(c) > 3 then 1 else 0) + (if weight(c) > 7 then weight(c) else 0)
define either(c: Box) -> int = if c.stones > 1 then weight(c) + weight(c) else 0
define shadowed(c: Box) -> int = weight(c) + sum(weight(c) for c in Box) + weight(c)
define nested(c: Box) -> int = weight(Box.A) * weight(c) + weight(Box.A) + weight(c)
report {
  cash = me.cash
  template "hoist.report.j2"
}
'''


@pytest.fixture(scope="module")
def hoist(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    tmp = tmp_path_factory.mktemp("hoist")
    return load_text(tmp / "rules", RULES, "{{ cash }}\n", "hoist", tmp / "cache")


def body(source: str, name: str) -> str:
    return source.split(f"def fn_{name}(", 1)[1].split("\n\n", 1)[0]


def test_a_call_made_twice_outside_a_branch_is_held_in_a_local(hoist: Loaded) -> None:
    source = Path(str(hoist.module.__file__)).read_text(encoding="utf-8")
    assert body(source, "heavy").splitlines()[1:] == [
        "    res_weight = fn_weight(g, v_c)",
        "    return (1 if res_weight > 3 else 0) + (res_weight if res_weight > 7 else 0)",
    ]
    assert "res_" not in body(source, "either")  # only in a branch: it may not be made at all
    # Outside the aggregate held once; inside it `c` is each box in turn.
    assert body(source, "shadowed").splitlines()[1:] == [
        "    res_weight = fn_weight(g, v_c)",
        "    return res_weight + sum(fn_weight(g, v__c_2) for v__c_2 in g.all['Box']) + res_weight",
    ]
    assert body(source, "nested").splitlines()[1:3] == [
        "    res_weight = fn_weight(g, g.index['Box']['A'])",
        "    res__weight_2 = fn_weight(g, v_c)",
    ]


def test_held_calls_give_what_the_rules_say(hoist: Loaded) -> None:
    g = hoist.new_game()
    m = hoist.module
    a, b = g.all["Box"]
    for stones_a in range(6):
        for stones_b in (0, 3):
            a.stones, b.stones = stones_a, stones_b

            def weight(c: Any) -> int:
                return int(c.stones) * 2

            for c in (a, b):
                assert m.fn_heavy(g, c) == (1 if weight(c) > 3 else 0) + (weight(c) if weight(c) > 7 else 0)
                assert m.fn_either(g, c) == (2 * weight(c) if c.stones > 1 else 0)
                assert m.fn_shadowed(g, c) == 2 * weight(c) + weight(a) + weight(b)
                assert m.fn_nested(g, c) == weight(a) * weight(c) + weight(a) + weight(c)

