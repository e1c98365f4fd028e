"""Report data -> HTML pages: the default page, the map pictures, the `html` template and its checks, and the
pages `new` and `turn` write."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rulesdsl.compiler import check_path
from rulesdsl.game.folder import GameFolder
from rulesdsl.runtime.html import PALETTE, UNKNOWN, default_page, is_map, show, symbol_map, tiles

RULES = '''ruleset "D" { version "1" turn "turn" }
thing Pot keyed by code { level: int = 0 }
data Pot(code, level) { A: 0 }
player { score: int = 0 }
phase grow {
  for each q in players { q.score = q.score + 1 }
}
report {
  level = sum(p.level for p in Pot)
  home_map = ["~~.", "~@."]
  pots = [{code: p.code, level: p.level} for p in Pot]
  template "d.report.j2"
HTML}
'''


def game_files(tmp_path: Path, html: str | None = None, page: str = "") -> Path:
    line = f'  html "{html}"\n' if html is not None else ""
    (tmp_path / "d.rules").write_text(RULES.replace("HTML", line), encoding="utf-8")
    (tmp_path / "d.report.j2").write_text("{{ level }}\n", encoding="utf-8")
    if html is not None and page:
        (tmp_path / html).write_text(page, encoding="utf-8")
    return tmp_path / "d.rules"


def codes(rules: Path) -> list[tuple[str, int, str]]:
    return [(d.span.file, d.span.line, d.code) for d in check_path(rules).diagnostics]


# ---------------------------------------------------------------- the default page

def test_default_page_escapes_text_and_lays_out_records_as_tables() -> None:
    data = {"game": {"title": "T<", "id": "G-1", "turn": 2, "unit": "turn", "start": False},
            "player": {"name": "<script>alert(1)</script>"},
            "pots": [{"code": "A", "level": 1}, {"code": "B", "extra": None}], "news": [], "done": True}
    page = default_page(data)
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<table><tr><th>code</th><th>level</th><th>extra</th></tr>" in page  # columns in first-seen order
    assert '<section id="news"><h2>news</h2><span class="none">(none)</span></section>' in page
    assert "<dd>yes</dd>" not in page and ">yes</section>" in page
    assert page == default_page(dict(data))  # the same data, the same bytes


def test_a_list_of_text_named_map_is_drawn_and_other_lists_are_not() -> None:
    assert is_map("strategic_map", ["~.", ".~"]) and is_map("map", ["x"])
    assert not is_map("mapping", ["~."]) and not is_map("home_map", []) and not is_map("home_map", [1])
    assert "<svg" in show(["~.", ".~"], "strategic_map") and "<svg" not in show(["~.", ".~"], "allies")


def test_symbol_map_writes_marks_on_cells_line_by_line_and_escaped() -> None:
    """Warlord's tactical map: a sector's city above, its unit, its owner below, on the terrain's colour."""
    svg = str(symbol_map([".~", "f."], None, 40, [["C\nI\n12", "   "], "a<"]))
    texts = re.findall(r'<text x="(\d+)" y="(\d+)"[^>]*>([^<]*)</text>', svg)
    assert [t[2] for t in texts] == ["C", "I", "12", "a", "&lt;"]
    # The three lines of the first cell go down it, centred; a single mark is larger, in its own cell.
    assert [int(t[1]) for t in texts[:3]] == sorted(int(t[1]) for t in texts[:3])
    assert {t[0] for t in texts[:3]} == {"20"} and texts[3][0:2] == ("20", texts[3][1])
    assert all(0 < int(t[1]) <= 40 for t in texts[:3]) and 40 < int(texts[3][1]) <= 80
    assert 'font-size="12"' in svg and 'font-size="26"' in svg
    assert str(symbol_map([".~"], None, 40)).count("<text") == 0


def test_symbol_map_colours_runs_and_gives_a_legend() -> None:
    svg = str(symbol_map(["~~.", " @."], {"@": ["#c00000", "your city"]}, cell=10))
    # A run of one symbol is one rectangle; a blank is off the map and not drawn.
    assert '<rect x="0" y="0" width="20" height="10" fill="' + PALETTE[0] + '"/>' in svg
    assert '<rect x="10" y="10" width="10" height="10" fill="#c00000"/>' in svg
    assert svg.count("<rect") == 4
    assert "your city" in svg and svg.index("your city") < svg.index("<code>~</code>")  # given ones first
    # A colour that is not a colour never reaches the SVG.
    assert '"/><script' not in str(symbol_map(["@"], {"@": ['red"/><script>']}))


def test_tiles_colour_by_group_in_order_of_first_appearance_and_grey_for_unknown() -> None:
    items = [{"code": "A", "who": "Bob"}, {"code": "B", "who": None}, {"code": "C", "who": "Ann"},
             {"code": "D", "who": "you"}]
    svg = str(tiles(items, "code", "who", legend={"you": "#59a14f"}))
    assert svg.count("<rect") == 4
    assert f'fill="{PALETTE[0]}"' in svg and f'fill="{PALETTE[1]}"' in svg and 'fill="#59a14f"' in svg
    assert f'fill="{UNKNOWN}"' in svg and "<code>unknown</code>" in svg
    assert svg == str(tiles(items, "code", "who", legend={"you": "#59a14f"}))


def test_a_legends_colour_is_not_given_again_by_the_palette() -> None:
    # Covert's own countries are PALETTE[2]; a third other leader must not look like the player's own.
    items = [{"code": c, "who": w} for c, w in (("A", "you"), ("B", "Ann"), ("C", "Bob"), ("D", "Cy"))]
    svg = str(tiles(items, "code", "who", legend={"you": PALETTE[2]}))
    assert svg.count(f'fill="{PALETTE[2]}"') == 1 and f'fill="{PALETTE[3]}"' in svg
    rows = str(symbol_map(["@abc"], {"@": [PALETTE[0].upper(), "yours"]}))
    assert rows.count(PALETTE[0]) == 0 and rows.count(PALETTE[0].upper()) == 2  # the cell and its swatch


# ---------------------------------------------------------------- the html template, checked

def test_an_html_template_sees_the_report_fields_and_the_map_filters(tmp_path: Path) -> None:
    rules = game_files(tmp_path, "d.report.html.j2",
                       "<p>{{ level }}</p>{{ home_map|symbol_map }}{{ pots|tiles('code', 'level') }}{{ news|show }}\n")
    assert codes(rules) == []


def test_an_html_template_is_checked_as_the_text_template_is(tmp_path: Path) -> None:
    rules = game_files(tmp_path, "d.report.html.j2", "<p>{{ levle }}</p>\n{{ level|frobnicate }}\n")
    assert codes(rules) == [("d.report.html.j2", 1, "E0506"), ("d.report.html.j2", 2, "E0508")]


def test_the_map_filters_are_the_pages_only(tmp_path: Path) -> None:
    rules = game_files(tmp_path)
    (tmp_path / "d.report.j2").write_text("{{ home_map|symbol_map }}\n", encoding="utf-8")
    assert codes(rules) == [("d.report.j2", 1, "E0508")]


@pytest.mark.parametrize(("line", "code"), [('  html "../x.html.j2"\n', "E0510"), ('  html "x.html.j2"\n', "E0504"),
                                            ('  html "d.report.j2"\n  html "d.report.j2"\n', "E0106")])
def test_html_file_mistakes(tmp_path: Path, line: str, code: str) -> None:
    (tmp_path / "d.rules").write_text(RULES.replace("HTML", line), encoding="utf-8")
    (tmp_path / "d.report.j2").write_text("{{ level }}\n", encoding="utf-8")
    assert [c for _, _, c in codes(tmp_path / "d.rules")] == [code]


def test_a_field_may_still_be_named_html(tmp_path: Path) -> None:
    rules = game_files(tmp_path)
    rules.write_text(rules.read_text(encoding="utf-8").replace("player { score: int = 0 }",
                                                               "player { score: int = 0\n  html: text = \"\" }")
                     .replace("  level = sum", "  html = me.html\n  level = sum"), encoding="utf-8")
    assert codes(rules) == []


# ---------------------------------------------------------------- the pages new and turn write

SCENARIO = 'players:\n  - {name: "X", account: "1", code: "A"}\n  - {name: "Y <b>", account: "2", code: "B"}\n'


def test_new_and_turn_write_a_page_beside_each_text_report(tmp_path: Path) -> None:
    rules = game_files(tmp_path)
    (tmp_path / "s.yaml").write_text(SCENARIO, encoding="utf-8")
    folder = GameFolder.create(rules, tmp_path / "game", tmp_path / "s.yaml", None)
    start = tmp_path / "game" / "turns" / "turn-000" / "reports"
    assert sorted(p.name for p in start.glob("*.html")) == ["1-x.html", "2-y-b.html"]
    page = (start / "2-y-b.html").read_text(encoding="utf-8")
    assert "Y &lt;b&gt;" in page and "<svg" in page  # home_map drawn by the default page
    result = folder.process_turn([])
    first = (result.folder / "reports" / "1-x.html").read_bytes()
    # Played again from the same start, the page is the same bytes.
    again = GameFolder.create(rules, tmp_path / "game2", tmp_path / "s.yaml", None).process_turn([])
    assert (again.folder / "reports" / "1-x.html").read_bytes() == first


def test_a_ruleset_html_template_makes_the_page(tmp_path: Path) -> None:
    rules = game_files(tmp_path, "d.report.html.j2", "<p>{{ player.name }}: {{ level }}</p>\n")
    (tmp_path / "s.yaml").write_text(SCENARIO, encoding="utf-8")
    GameFolder.create(rules, tmp_path / "game", tmp_path / "s.yaml", None)
    page = tmp_path / "game" / "turns" / "turn-000" / "reports" / "2-y-b.html"
    assert page.read_text(encoding="utf-8") == "<p>Y &lt;b&gt;: 0</p>\n"
    assert (tmp_path / "game" / "rules" / "d.report.html.j2").is_file()  # the game keeps its page template
