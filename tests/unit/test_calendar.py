"""A calendar of kinds of turn -> each turn's date and kind, phases run only in their kinds, orders refused in the
wrong kind, the date in the report; played end to end through game folders (a Diplomacy-like cycle of seasons and
a WCG-like cycle of months), and the checker's calendar diagnostics."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rulesdsl.game.folder import GameFolder
from rulesdsl.runtime.html import default_page
from rulesdsl.runtime.spec import calendar_date
from tests.unit.rulestools import check_text, show, write_ruleset

DIPLOMACY = '''ruleset "Seasons" { turn "turn" }
calendar {
  starts 1901 Spring
  kinds movement, retreats, adjustments
  cycle {
    Spring: movement, retreats
    Autumn: movement, retreats
    Winter: adjustments
  }
}
player { moved: int = 0  built: int = 0  log: list of text }
orders { header "{account}", "{code}" }
order move "MOVE {n}" {
  n: 1..9
  only in movement turns
  effect { me.moved += n }
}
order build "BUILD" {
  only in adjustments turns
  effect { me.built += 1 }
}
personal order note "NOTE" {
  only in retreats turns
  effect { add "note" to me.log }
}
phase moves in movement turns: run move
phase builds in adjustments turns: run build
phase diary {
  for each p in players {
    add "{calendar.period} {calendar.year} {calendar.kind}" to p.log
  }
}
report {
  moved = me.moved
  built = me.built
  log = me.log
  template "t.report.j2"
}
'''

WCG = '''ruleset "Cold War" { turn "turn" }
calendar {
  starts 1960 January
  kinds yearly, action, reaction
  cycle {
    January: yearly, action, reaction
    February..December: action, reaction
  }
}
player { budgets: int = 0  actions: int = 0  months: list of int }
orders { header "{account}", "{code}" }
order act "ACT" {
  only in action turns
  effect { me.actions += 1 }
}
phase budget in yearly turns {
  for each p in players {
    p.budgets += 1
  }
  news "the budgets of {calendar.year} are in"
}
phase acting in action turns: run act
phase months {
  for each p in players {
    add calendar.month to p.months
  }
}
report {
  budgets = me.budgets
  actions = me.actions
  months = me.months
  template "t.report.j2"
}
'''

HEAD = "{{ game.date }}, turn {{ game.turn }}\n"
SEASONS = HEAD + "moved {{ moved }}\nbuilt {{ built }}\nlog {{ log }}\n"
MONTHS = HEAD + "budgets {{ budgets }}\nactions {{ actions }}\nmonths {{ months }}\n"
TEMPLATE = '''{% for o in orders.used %}used {{ o.text }}: {{ o.status }}
{% endfor %}{% for o in orders.refused %}refused {{ o.text }}: {{ o.reason }}
{% endfor %}{% for n in news %}news {{ n }}
{% endfor %}'''


def start(tmp: Path, rules: str) -> GameFolder:
    path = write_ruleset(tmp / "rules", rules, (SEASONS if rules is DIPLOMACY else MONTHS) + TEMPLATE)
    scenario = tmp / "scenario.yaml"
    scenario.write_text(yaml.safe_dump({"seed": 1, "players": [{"name": "Ann", "account": "ann", "code": "A1"}]}),
                        encoding="utf-8")
    return GameFolder.create(path, tmp / "game", scenario, None)


def turn(folder: GameFolder, tmp: Path, *lines: str) -> tuple[str, dict[str, object]]:
    """Plays a turn with Ann's lines; her report, and the state after it."""
    mail = tmp / "ann.txt"
    mail.write_text("\n".join(["ann", "A1", *lines]) + "\n", encoding="utf-8")
    result = folder.process_turn([mail], force=True)
    state = yaml.safe_load((result.folder / "state.yaml").read_text(encoding="utf-8"))
    return (result.folder / "reports" / "ann-ann.txt").read_text(encoding="utf-8"), state


def test_a_cycle_of_seasons_steps_through_its_kinds_and_counts_the_years(tmp_path: Path) -> None:
    folder = start(tmp_path, DIPLOMACY)
    heads = []
    for _ in range(7):
        report, state = turn(folder, tmp_path)
        heads.append(report.splitlines()[0])
    assert heads == ["Spring 1901, movement, turn 1", "Spring 1901, retreats, turn 2",
                     "Autumn 1901, movement, turn 3", "Autumn 1901, retreats, turn 4",
                     "Winter 1901, adjustments, turn 5", "Spring 1902, movement, turn 6",
                     "Spring 1902, retreats, turn 7"]
    assert "log ['Spring 1901 movement', 'Spring 1901 retreats', 'Autumn 1901 movement'," in report
    # The state keeps the turn number; the date follows from it and the ruleset.
    assert state["turn"] == 7 and not {"date", "calendar", "year", "kind"} & set(state)


def test_an_order_given_in_the_wrong_kind_of_turn_is_refused_with_the_date(tmp_path: Path) -> None:
    folder = start(tmp_path, DIPLOMACY)
    report, _ = turn(folder, tmp_path, "MOVE 2", "BUILD", "NOTE")
    assert "used MOVE 2: done" in report
    assert ("refused BUILD: this order is given in adjustments turns; this is the movement turn of Spring 1901"
            in report)
    assert "refused NOTE: this order is given in retreats turns; this is the movement turn of Spring 1901" in report
    report, _ = turn(folder, tmp_path, "MOVE 3", "NOTE")
    assert "used NOTE: done" in report  # a personal order is judged by the kind of turn as it is read
    assert "refused MOVE 3: this order is given in movement turns; this is the retreats turn of Spring 1901" in report
    assert "moved 2" in report
    for _ in range(2):
        turn(folder, tmp_path)
    report, _ = turn(folder, tmp_path, "BUILD", "MOVE 1")
    assert report.startswith("Winter 1901, adjustments")
    assert "used BUILD: done" in report and "built 1" in report
    assert "refused MOVE 1: this order is given in movement turns; this is the adjustments turn" in report


def test_a_cycle_of_months_runs_the_yearly_phase_in_january_only(tmp_path: Path) -> None:
    folder = start(tmp_path, WCG)
    heads, news = [], []
    for _ in range(27):  # 25 turns a year: three in January, two in each other month
        report, _ = turn(folder, tmp_path, "ACT")
        heads.append(report.splitlines()[0])
        news += [ln for ln in report.splitlines() if ln.startswith("news")]
    assert heads[:5] == ["January 1960, yearly, turn 1", "January 1960, action, turn 2",
                         "January 1960, reaction, turn 3", "February 1960, action, turn 4",
                         "February 1960, reaction, turn 5"]
    assert heads[-3:] == ["December 1960, reaction, turn 25", "January 1961, yearly, turn 26",
                          "January 1961, action, turn 27"]
    assert news == ["news the budgets of 1960 are in", "news the budgets of 1961 are in"]
    assert "budgets 2" in report
    assert "actions 13" in report  # one action turn in each of the 12 months of 1960, and January 1961's
    assert "months [1, 1, 1, 2, 2, 3," in report


def test_a_game_that_starts_inside_the_cycle_turns_the_year_at_the_cycles_first_row() -> None:
    cal = (1960, 2, (("January", "yearly"), ("January", "action"), ("February", "action"), ("March", "action")))
    dates = [calendar_date(cal, t).date for t in (0, 1, 2, 3, 4)]
    assert dates == ["February 1960, action", "February 1960, action", "March 1960, action",
                     "January 1961, yearly", "January 1961, action"]


@pytest.mark.parametrize(("extra", "code"), [
    ('define y() = calendar.month\n', "E0311"),
    ('define y() = calendar.weather\n', "E0311"),
])
def test_calendar_fields_a_season_cycle_does_not_have(tmp_path: Path, extra: str, code: str) -> None:
    checked = check_text(tmp_path, DIPLOMACY + extra + 'phase z { news "{y()}" }\n', SEASONS)
    assert [d.code for d in checked.diagnostics] == [code], show(checked.diagnostics)


def test_calendar_read_without_a_calendar_is_an_error(tmp_path: Path) -> None:
    start, end = DIPLOMACY.index("calendar {"), DIPLOMACY.index("player {")
    rules = DIPLOMACY[:start] + DIPLOMACY[end:]
    checked = check_text(tmp_path, rules, SEASONS)
    # `only in` three times, `in ... turns` twice, and the three fields the diary reads
    assert [d.code for d in checked.diagnostics] == ["E0253"] * 8, show(checked.diagnostics)


def test_the_calendars_words_still_name_fields_arguments_and_record_parts(tmp_path: Path) -> None:
    rules = DIPLOMACY.replace("player { moved: int = 0", "thing Box keyed by code { kinds: int = 0  cycle: int = 0 }\n"
                              "data Box(code, kinds) { A: 1 }\nplayer { moved: int = 0").replace(
        'order build "BUILD" {\n', 'order build "BUILD {only}" {\n  only: 1..3\n').replace(
        "effect { me.built += 1 }", "effect { me.built += only + size([r.only for r in [{only: 1}]]) }")
    checked = check_text(tmp_path, rules, SEASONS)
    assert checked.ok and not checked.diagnostics, show(checked.diagnostics)


def test_the_default_page_shows_the_date_after_the_turn_number() -> None:
    game = {"title": "Cold War", "id": "CW-1", "turn": 12, "unit": "turn", "start": False}
    page = default_page({"game": {**game, "date": "June 1960, reaction"}, "player": {"name": "Ann"}})
    assert "<h1>Cold War -- game CW-1, turn 12 (June 1960, reaction): Ann</h1>" in page
    assert "<h1>Cold War -- game CW-1, turn 12: Ann</h1>" in default_page({"game": {**game, "date": ""},
                                                                      "player": {"name": "Ann"}})
