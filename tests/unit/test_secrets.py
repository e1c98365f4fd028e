"""Secret information never reaches a report it does not belong in.

Each test plays the same turn twice, changing only facts a player may not know, and shows that
player's report (text and data) is byte-identical.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from rulesdsl.game.folder import GameFolder

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rulesets" / "covert.rules"

BASE: dict[str, Any] = {
    "game": {"number": 9},
    "seed": 5,
    "players": [
        {"name": "Alpha", "account": "1", "code": "AAA", "email": "a@example.org"},
        {"name": "Bravo", "account": "2", "code": "BBB", "email": "b@example.org"},
    ],
    "Country": {
        "MEX": {"influence": {"1": 10}},
        "FRA": {"influence": {"2": 10}, "security": 4},
    },
}
ORDERS = {
    "alpha.txt": "CO-9\n1\nAAA\nA,MEX,2\nB,FRA,3\nS,FRA,1\n",
    "bravo.txt": "CO-9\n2\nBBB\nG,FRA,2\nI,FRA\n",
}


def play(tmp: Path, name: str, scenario: dict[str, Any]) -> dict[str, str]:
    sc = tmp / f"{name}.yaml"
    sc.write_text(yaml.safe_dump(scenario), encoding="utf-8")
    orders = []
    for fname, text in ORDERS.items():
        p = tmp / name / fname
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
        orders.append(p)
    folder = GameFolder.create(RULES, tmp / f"{name}-game", sc, None)
    result = folder.process_turn(orders)
    reports = result.folder / "reports"
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(reports.iterdir())}


def test_hidden_facts_do_not_change_another_players_report(tmp_path: Path) -> None:
    changed = copy.deepcopy(BASE)
    # Bravo's cash "cannot be seen ... by other players".
    changed["players"][1]["cash"] = 97
    # Secret parameters of attacks nobody makes this turn.
    changed["parameters"] = {"kill_difficulty": 33, "revolution_difficulty": 61, "superspy_bonus": 7}
    # Bravo's spy in Mexico, too weak for Alpha to see (Alpha has no spy there) and not caught.
    changed["Country"]["MEX"]["spy"] = {"2": 9}
    a = play(tmp_path, "a", BASE)
    b = play(tmp_path, "b", changed)
    alpha = [k for k in a if k.startswith("1-")]
    assert alpha and all(a[k] == b[k] for k in alpha)
    # Bravo's own report does change: the test can fail.
    assert a["2-bravo.txt"] != b["2-bravo.txt"]


def test_secret_parameters_are_absent_from_report_data(tmp_path: Path) -> None:
    params = {"kill_difficulty": 4321, "terror_difficulty": 1234, "max_chance": 87}
    scenario = {**copy.deepcopy(BASE), "parameters": params}
    reports = play(tmp_path, "s", scenario)
    for name, text in reports.items():
        for key, value in params.items():
            assert key not in text, name
            assert str(value) not in text, name


def test_the_checker_names_the_functions_that_would_show_a_secret(tmp_path: Path) -> None:
    from tests.unit.rulestools import BASE as SMALL
    from tests.unit.rulestools import check_text

    text = SMALL + '''secret param edge: int = 3
table odds(x: int) -> int { 1: edge }
define direct() = edge
define through_table(n: int) = odds[n]
define through_call() = direct() + 1
define plain(n: int) = n + 1
phase use {
  for each p in players {
    p.moves += direct() + through_table(1) + through_call() + plain(2)
  }
}
'''
    checked = check_text(tmp_path, text)
    assert checked.ok and checked.program is not None
    assert checked.program.secret_functions == {"direct", "through_table", "through_call"}
