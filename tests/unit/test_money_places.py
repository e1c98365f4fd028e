"""The header's `money "0.1"` -> amounts kept exactly to that many places: read in orders, rounded by round/floor/
ceil, shown with the places in texts, reports and state files, and refused with their path when a scenario gives
more places; played end to end through a game folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from rulesdsl.game.errors import GameError
from rulesdsl.game.folder import GameFolder
from tests.unit.rulestools import check_text, show, write_ruleset

RULES = '''ruleset "Cents" {
  turn "month"
  money "0.1"
}
param fee: money = 7.4
param tax_pct: int = 20
thing Shop keyed by code { price: money }
data Shop(code, price) { A: 1.5  B: 12.0 }
player { cash: money = 10.0  spent: money = 0  last: money?  log: list of text }
orders {
  header "{account}", "{code}"
  pay from cash
}
order buy "BUY {s}" {
  s: Shop
  cost s.price
  effect { add "bought {s.code} for {s.price}" to me.log }
}
order pay "PAY {cash}" {
  cash: money from 0.1 to 50.5
  effect {
    me.cash -= cash
    me.spent += cash
    add "paid {cash} of {me.cash + cash}, last {me.last}" to me.log
    me.last = cash
  }
}
order tax "TAX" {
  effect {
    let t = round(me.cash * tax_pct / 100)
    me.cash -= t
    let third = me.cash / 3
    add "taxed {t}, floor {floor(third)}, ceil {ceil(third)}, div {me.cash div 3}, text {text(fee)}" to me.log
  }
}
order drip "DRIP {n}" {
  n: 1..2000
  effect {
    for each i in 1..n { me.cash += 0.1 }
  }
}
phase orders: run pay, tax, drip, buy together
phase income {
  for each p in players { p.cash += fee + 0.1 }
}
report {
  cash = me.cash
  spent = me.spent
  prices = [s.price for s in Shop]
  log = me.log
  template "t.report.j2"
}
'''

TEMPLATE = '''cash {{ cash }} spent {{ spent }} prices {{ prices|join(",") }}
{% for l in log %}{{ l }}
{% endfor %}{% for o in orders.refused %}refused {{ o.text }}: {{ o.reason }}
{% endfor %}{% for o in orders.used if o.reason %}failed {{ o.text }}: {{ o.reason }}
{% endfor %}'''


def start(tmp: Path, cash: object = 20.5) -> GameFolder:
    path = write_ruleset(tmp / "rules", RULES, TEMPLATE)
    scenario = tmp / "scenario.yaml"
    scenario.write_text(yaml.safe_dump({"seed": 1, "players": [
        {"name": "Ann", "account": "ann", "code": "A1", "cash": cash}]}), encoding="utf-8")
    return GameFolder.create(path, tmp / "game", scenario, None)


def turn(folder: GameFolder, tmp: Path, *lines: str) -> tuple[str, str]:
    """Plays a turn with Ann's lines; her report, and the text of the state after it."""
    mail = tmp / "ann.txt"
    mail.write_text("\n".join(["ann", "A1", *lines]) + "\n", encoding="utf-8")
    result = folder.process_turn([mail], force=True)
    return ((result.folder / "reports" / "ann-ann.txt").read_text(encoding="utf-8"),
            (result.folder / "state.yaml").read_text(encoding="utf-8"))


def test_amounts_show_with_their_places_and_percentages_round_to_the_smallest_amount(tmp_path: Path) -> None:
    folder = start(tmp_path)
    report, _ = turn(folder, tmp_path, "PAY 2.5", "TAX")
    # 20.5 - 2.5 = 18.0; 20% of it 3.6; 14.4 / 3 = 4.8 exactly; then the income 7.4 + 0.1
    assert report.splitlines()[:3] == [
        "cash 21.9 spent 2.5 prices 1.5,12.0",
        "paid 2.5 of 20.5, last none",
        "taxed 3.6, floor 4.8, ceil 4.8, div 4.8, text 7.4",
    ]
    report, _ = turn(folder, tmp_path, "PAY 0.1", "TAX")
    assert "paid 0.1 of 21.9, last 2.5" in report
    # 21.8 * 20% = 4.36 -> 4.4; 17.4 / 3 = 5.8
    assert "taxed 4.4, floor 5.8, ceil 5.8, div 5.8, text 7.4" in report
    report, _ = turn(folder, tmp_path, "PAY 1", "TAX")
    assert "paid 1.0 of 24.9, last 0.1" in report  # `PAY 1` reads 1.0 in a text, as every amount does
    # 24.9 - 1 = 23.9; 20% = 4.78 -> 4.8; 19.1 / 3 = 6.3666..: floor 6.3, ceil 6.4, div 6.3
    assert "taxed 4.8, floor 6.3, ceil 6.4, div 6.3, text 7.4" in report


def test_the_json_report_holds_each_amount_as_its_text_with_the_places(tmp_path: Path) -> None:
    folder = start(tmp_path)
    turn(folder, tmp_path, "PAY 2.5")
    data = json.loads((tmp_path / "game" / "turns" / "turn-001" / "reports" / "ann-ann.json").read_text("utf-8"))
    assert (data["cash"], data["spent"], data["prices"]) == ("25.5", "2.5", ["1.5", "12.0"])


def test_many_small_additions_stay_exact(tmp_path: Path) -> None:
    folder = start(tmp_path, 0)
    report, state = turn(folder, tmp_path, "DRIP 2000")
    assert report.startswith("cash 207.5 ")  # 0 + 2000 x 0.1 + 7.5, no float drift
    assert "  cash: 207.5\n" in state


def test_order_arguments_read_places_and_refuse_too_many_with_the_reason(tmp_path: Path) -> None:
    folder = start(tmp_path)
    report, _ = turn(folder, tmp_path, "PAY 12.5", "PAY 0.05", "PAY 60", "PAY 1.", "PAY -0.5")
    assert "paid 12.5 of 20.5" in report
    assert 'refused PAY 0.05: cash has more places than the game\'s money, which counts to 0.1: "0.05"' in report
    assert "refused PAY 60: cash must be at most 50.5 and at least 0.1" in report
    assert 'refused PAY 1.: cash must be an amount, like 12.5, not "1."' in report
    assert "refused PAY -0.5: cash must be at least 0.1 and at most 50.5" in report


def test_state_files_write_amounts_as_the_designer_does_and_read_them_back(tmp_path: Path) -> None:
    folder = start(tmp_path)
    start_state = (tmp_path / "game" / "turns" / "turn-000" / "state.yaml").read_text(encoding="utf-8")
    assert "  fee: 7.4\n" in start_state and "  cash: 20.5\n" in start_state and "  spent: 0.0\n" in start_state
    assert "    price: 12.0\n" in start_state
    report, state = turn(folder, tmp_path, "PAY 0.3")
    assert "  cash: 27.7\n" in state and "  spent: 0.3\n" in state
    # The next turn starts from the state file just written: 27.7 read back exactly.
    report, state = turn(folder, tmp_path, "PAY 0.2")
    assert "  cash: 35.0\n" in state and "  spent: 0.5\n" in state
    assert report.startswith("cash 35.0 spent 0.5 ")


@pytest.mark.parametrize("cash", [7.45, "7.45"])
def test_a_scenario_amount_with_too_many_places_is_refused_with_its_path(tmp_path: Path, cash: object) -> None:
    with pytest.raises(GameError) as err:
        start(tmp_path, cash)
    assert 'scenario.yaml: $.players[0].cash: 7.45 has more places than the ruleset\'s money "0.1"' in str(err.value)


def test_a_money_literal_needs_the_setting_for_its_places(tmp_path: Path) -> None:
    text = RULES.replace('  money "0.1"\n', '  money "0.01"\n')
    assert check_text(tmp_path / "a", text, TEMPLATE).ok
    checked = check_text(tmp_path / "b", RULES.replace("fee + 0.1", "fee + 0.15"), TEMPLATE)
    assert [d.code for d in checked.diagnostics if d.severity == "error"] == ["E0374"], show(checked.diagnostics)
    # `rate * 0.25` is a decimal factor, not an amount: no places to count
    checked = check_text(tmp_path / "c", RULES.replace("round(me.cash * tax_pct / 100)", "round(me.cash * 0.25)"),
                         TEMPLATE)
    assert checked.ok, show(checked.diagnostics)


def test_an_order_that_costs_more_than_the_player_has_is_refused_with_both_amounts(tmp_path: Path) -> None:
    folder = start(tmp_path, 11.9)
    report, _ = turn(folder, tmp_path, "BUY A", "BUY B")
    assert "bought A for 1.5" in report
    assert "failed BUY B: not enough cash: it costs 12.0 and you have 10.4" in report
    assert report.startswith("cash 17.9 ")  # 11.9 - 1.5 + 7.5: B's 12.0 was more than the 10.4 left


def test_a_range_table_of_money_with_places_has_no_whole_number_gaps(tmp_path: Path) -> None:
    table = "table band(m: money) -> int { below 1: 0, 1 to 3: 1, 4 to 6: 2, from 7: 3 }\n"
    banding = "phase banding { for each p in players { p.spent += money(band(p.cash)) } }\n"
    text = RULES.replace("report {", table + banding + "report {")
    checked = check_text(tmp_path / "gap", text, TEMPLATE)
    assert "E0225" in [d.code for d in checked.diagnostics], show(checked.diagnostics)  # 3.5 is in no row
    fixed = text.replace("1 to 3: 1, 4 to 6: 2, from 7: 3", "from 1 below 4: 1, from 4 below 7: 2, from 7: 3")
    checked = check_text(tmp_path / "ok", fixed, TEMPLATE)
    assert checked.ok, show(checked.diagnostics)
