"""Shipped rulesets -> their generated rulebooks (`rulesdsl doc`): the goldens in docs/rulebooks/ are current,
the books link only to what they hold, no secret reaches them, and comments are read where they belong.

When a rules change moves a rulebook, read the diff as a player would, then refresh every book with
`PYTHONPATH=. python tests/unit/test_rulebook.py` and commit them with the change.
"""

from __future__ import annotations

import difflib
import re
import sys
from functools import cache
from html.parser import HTMLParser
from pathlib import Path

import pytest

from rulesdsl import comments
from rulesdsl.cli import main
from rulesdsl.compiler import check_path
from rulesdsl.rulebook import build, html, markdown
from tests.unit.rulestools import BASE, RULESETS, check_text, program_of, write_ruleset

ROOT = Path(__file__).resolve().parents[2]
BOOKS = ROOT / "docs" / "rulebooks"
NAMES = ("covert", "nukecards", "warlord", "wcg", "variants/covert-twice-weekly", "variants/nukecards-blitz")
REFRESH = "PYTHONPATH=. python tests/unit/test_rulebook.py"


@cache
def books(name: str) -> tuple[str, str]:
    """The Markdown and the HTML of a shipped ruleset's rulebook, as `rulesdsl doc` writes them."""
    checked = check_path(RULESETS / f"{name}.rules")
    assert checked.program is not None, [d.message for d in checked.diagnostics]
    # Every source the checker read: a variant's book reads the base's comments from the base.
    book = build(checked.program, checked.sources)
    return markdown(book), html(book)


@pytest.mark.parametrize("name", NAMES)
def test_the_checked_in_rulebooks_are_current(name: str) -> None:
    for text, ext in zip(books(name), ("md", "html"), strict=True):
        golden = BOOKS / f"{Path(name).name}.{ext}"
        kept = golden.read_text(encoding="utf-8") if golden.is_file() else ""
        if text != kept:
            diff = "".join(list(difflib.unified_diff(kept.splitlines(True), text.splitlines(True),
                                                     str(golden), "generated"))[:80])
            pytest.fail(f"{golden} is stale: read the diff, then run `{REFRESH}`\n{diff}")


@pytest.mark.parametrize("name", NAMES)
def test_every_link_of_a_rulebook_goes_to_a_place_in_it(name: str) -> None:
    md, page = books(name)
    anchors = re.findall(r'<a id="([^"]+)"></a>', md)
    assert len(anchors) == len(set(anchors))
    assert set(re.findall(r"\]\(#([^)]+)\)", md)) <= set(anchors)
    parsed = _Page()
    parsed.feed(page)
    assert parsed.open == [], "every element the page opens is closed"
    assert len(parsed.ids) == len(set(parsed.ids))
    assert parsed.hrefs <= set(parsed.ids)
    # Every order a player gives has its entry, with its line as it is written.
    for o in program_of(RULESETS / f"{name}.rules").orders:
        assert f"order-{o.name.replace('_', '-')}" in parsed.ids


def test_covert_reads_as_a_rulebook() -> None:
    md, _ = books("covert")
    # The line as the player writes it, the argument's range, the cost, the limit and the refusal.
    arms = md[md.index('<a id="order-arms">'):md.index('<a id="order-bribe">')]
    assert "#### arms: `A,<country>,<units>`" in arms
    assert "| `<units>` | a whole number | from 1 to 5 |" in arms
    assert "| `<country>` | one of the [`Country`](#data-country) codes |" in arms
    assert "Costs `arms_cost(units)`, paid from your cash: refused when you have less." in arms
    assert "At most once a day for the same `<country>`." in arms
    assert "- `<country>` is not under your influence" in arms
    # A refusal's values are shown as the rules write them, a `valid` as refused when given.
    assert "- `<target>` is not adjacent to `<origin>` (refused when given)" in md
    assert "you may send at most `origin.influence[me]` troops, your influence in `<origin>`" in md
    # The day's steps in order, with the orders each carries out.
    assert md.index("`superspies`: Transfer superspies. Carries out the [`transfer`](#order-transfer) orders.") < \
        md.index("`combat`: Combat resolution.")
    assert "| `invest_cost` | 4 | \"built in a country for $4 million\" |" in md
    assert "- order [`message`](#order-message): Rulebook is silent on where messages fall" in md


def test_covert_rulebook_keeps_the_secret_parameters_and_their_notes_out() -> None:
    program = program_of(RULESETS / "covert.rules")
    secret = [p.name for p in program.params if p.secret]
    assert len(secret) == 15
    for text in books("covert"):
        for name in secret:
            assert name not in text
        # The designer's note above the secret parameters tells how the chances are worked out.
        assert "Rulebook is silent on the numbers" not in text
        assert "one security level per $3 million" not in text
        assert "15 secret numbers more" in text


SECRET_TABLES = BASE + '''
secret param edge: int = 7
secret param spy_odds: int = 30
param loyal_odds: int = 70
param bonus: int = 4
secret param hidden_bonus: int = 913
# Designer's note: grades are cut at a secret edge.
table grade(x: int) -> text { below edge: "lowgrade", from edge: "highgrade" }
table loyalty -> text weighted { spy_odds%: "spyrow", loyal_odds%: "loyalrow" }
table prize(x: int) -> int { 1: hidden_bonus + 1, 2: 2 }
define hidden() -> int = hidden_bonus
table reward(x: int) -> int { 1: hidden() }
table again(x: int) -> int { 1: prize(1) }
# Designer's note: the open table.
table open_table(x: int) -> int { 1: 4441, 2: bonus }
order look "L,{box}" {
  box: Box
  valid grade(box.stones) != "" and prize(1) + reward(1) + again(1) + open_table(1) > 0 else "no"
  effect { box.stones += 1 }
}
phase looking: run look
phase drawing { let x = draw(loyalty, "loyal") }
'''


def test_no_row_of_a_secret_table_reaches_a_rulebook(tmp_path: Path) -> None:
    checked = check_text(tmp_path, SECRET_TABLES)
    assert checked.ok and checked.program is not None, [d.message for d in checked.diagnostics]
    program = checked.program
    # Bounds and chances set by a secret parameter, values reading one directly, through a function or
    # through another secret table: the checker's answer, which the rulebook reads.
    assert program.secret_tables == {"grade": ("edge",), "loyalty": ("spy_odds",), "prize": ("hidden_bonus",),
                                     "reward": ("hidden_bonus",), "again": ("hidden_bonus",)}
    book = build(program, (tmp_path / "t.rules").read_text(encoding="utf-8"))
    for text in (markdown(book), html(book)):
        for row in ("lowgrade", "highgrade", "spyrow", "loyalrow", "913", "cut at a secret edge"):
            assert row not in text
        assert "4441" in text and "the open table" in text
        assert "5 secret tables more" in text


def test_a_variants_book_shows_its_overrides_with_its_comments() -> None:
    md, page = books("variants/covert-twice-weekly")
    base, _ = books("covert")
    # The override's new value with the variant's comment, not the base's ($5 and $1 million a day).
    assert "| `fixed_income` | 17 | 3.5 x $5 million a day |" in md
    assert "| `industry_income` | 3 | 3.5 x $1 million a day, rounded down |" in md
    assert "per day\" |" not in md[md.index("| `industry_income`"):].splitlines()[0]
    assert "you start with 35 and gain 24 each turn" in md
    # What the variant leaves alone reads as the base writes it, comments from the base's lines.
    assert "| `invest_cost` | 4 | \"built in a country for $4 million\" |" in md
    arms = md[md.index('<a id="order-arms">'):md.index('<a id="order-bribe">')]
    assert arms.replace("a turn", "a day") == base[base.index('<a id="order-arms">'):base.index('<a id="order-bribe">')]
    assert "3.5 x $5 million a day" in page


VARIED_BASE = BASE + '''
# Designer's note: kept in the base.
param kept: int = 1
# Designer's note: what the variant replaces.
param swapped: int = 2
# Designer's note: the base's word on its orders.
order put2 "Q,{box}" {
  box: Box    # the box the base names
  effect { box.stones += 1 }
}
phase putting2: run put2
'''
VARIANT = '''extends "t.rules"

# Designer's note: the variant's own.
override param swapped: int = 3   # three, as the variant says
'''


def test_a_variants_notes_come_from_the_file_each_declaration_is_in(tmp_path: Path) -> None:
    write_ruleset(tmp_path, VARIED_BASE)
    (tmp_path / "v.rules").write_text(VARIANT, encoding="utf-8")
    checked = check_path(tmp_path / "v.rules", "v.rules")
    assert checked.ok and checked.program is not None, [d.message for d in checked.diagnostics]
    md = markdown(build(checked.program, checked.sources))
    assert "| `swapped` | 3 | three, as the variant says |" in md
    assert "| `<box>` | one of A, B | the box the base names |" in md
    notes = md[md.index('<a id="designers-notes">'):]
    assert "- parameter `swapped`: the variant's own." in notes
    assert "- parameter `kept`: kept in the base." in notes
    assert "- order [`put2`](#order-put2): the base's word on its orders." in notes
    assert "what the variant replaces" not in md  # the base's note on what is no longer the base's


HEAVY = '  pay from cash\n  at most 2 heavy per turn else "two heavy orders a turn"\n'
FEATURES = BASE.replace("  pay from cash\n", HEAVY) + '''
# Watch a box every turn.
order watch "W,{box},{n}" {
  box: Box
  n: 0..3        # stones a turn
  standing per box until n == 0
  counts as heavy
  effect { box.stones += n }
}
order heap "H,{boxes}" {
  boxes: list of Box
  once per turn per boxes as piles
  ends turn when size(boxes) > 1
  counts as heavy
  effect {
    if size(boxes) > 2 { fail "at most {size(boxes) - 1} boxes" }
  }
}
order pile "PILE,{boxes}" {
  boxes: list of Box
  once per turn per boxes as piles
  effect { news "a pile" }
}
personal order rename "NAME,{name}" {
  name: text
  effect { me.email = name }
}
# Designer's note: the GM settles what the rules leave open.
gm world order settle "SETTLE {text}" {
  text: text
  effect { news "Ruled: {text}" }
  default { news "nothing ruled" }
}
phase watching: run watch, heap, pile together
'''


def test_every_kind_of_order_reads_in_the_rulebook(tmp_path: Path) -> None:
    checked = check_text(tmp_path, FEATURES)
    assert checked.ok and checked.program is not None, [d.message for d in checked.diagnostics]
    md = markdown(build(checked.program, (tmp_path / "t.rules").read_text(encoding="utf-8")))
    watch = md[md.index('<a id="order-watch">'):md.index('<a id="order-heap">')]
    assert "Watch a box every turn." in watch
    assert "A standing order for each box: once taken it is carried out again every turn" in watch
    assert "It ends when you give another with `n == 0`." in watch
    assert "Counts as a heavy order: at most 2 a turn" in watch
    assert "| `<n>` | a whole number | from 0 to 3 | stones a turn |" in watch
    heap = md[md.index('<a id="order-heap">'):md.index('<a id="order-pile">')]
    assert "At most once a turn for the same `<boxes>`, counting the orders `pile`." in heap
    assert "Ends your turn when `size(boxes) > 1`" in heap
    assert "one or more of: one of A, B, joined by +" in heap
    assert "- at most `size(boxes) - 1` boxes" in heap  # a `fail` in the effect
    assert "the [`watch`](#order-watch), [`heap`](#order-heap) and [`pile`](#order-pile) orders." in md
    assert "At most 2 of the orders `watch` and `heap` each turn; a further one is refused: " \
        "“two heavy orders a turn”." in md
    personal = md[md.index('<a id="personal-orders">'):md.index('<a id="gm-orders">')]
    assert "#### rename: `NAME,<name>`" in personal
    assert "| argument | what to write |\n" in personal  # no column that no argument fills
    gm = md[md.index('<a id="gm-orders">'):]
    assert "### settle: `SETTLE <text>`" in gm and "Given by the game master for the whole world." in gm
    assert "take their defaults: `settle`." in md
    assert "- order [`settle`](#order-settle): the GM settles what the rules leave open." in md


def test_doc_command_writes_markdown_or_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = str(RULESETS / "covert.rules")
    assert main(["doc", rules]) == 0
    # The file is named without its folder: the checked-in book is what the command writes, wherever it runs.
    assert capsys.readouterr().out == (BOOKS / "covert.md").read_text(encoding="utf-8")
    target = tmp_path / "covert.html"
    assert main(["doc", "--html", rules, "-o", str(target)]) == 0
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    broken = tmp_path / "broken.rules"
    broken.write_text(BASE + "order x \"X\" { effect { nothing_here = 1 } }\n", encoding="utf-8")
    assert main(["doc", str(broken)]) == 1
    assert "error[" in capsys.readouterr().err
    # A warning does not stop the book, and is said as `check` says it.
    warned = tmp_path / "warned.rules"
    warned.write_text(BASE + "param never_read: int = 3\n", encoding="utf-8")
    (tmp_path / "t.report.j2").write_text("{{ game.title }}\n", encoding="utf-8")
    assert main(["doc", str(warned)]) == 0
    out = capsys.readouterr()
    assert "warning[W0101]" in out.err and "never_read" in out.err and out.out.startswith("<!-- Generated")
    assert main(["doc", rules]) == 0 and capsys.readouterr().err == ""
    # A variant's book (the command crashed reading the base's comments at their lines in the variant's file).
    assert main(["doc", str(RULESETS / "variants" / "covert-twice-weekly.rules")]) == 0
    assert capsys.readouterr().out == (BOOKS / "covert-twice-weekly.md").read_text(encoding="utf-8")


def test_comments_beside_and_above_a_line() -> None:
    lines = ['order m "M,#{x}" {   # the "#" in a text is not a comment', '  x: 1..5   # how many', "# a", "# b",
             "param p: int = 1"]
    assert comments.comment_at(lines, 1) == 'the "#" in a text is not a comment'
    assert comments.comment_at(lines, 2) == "how many"
    assert comments.comment_at(lines, 3) == ""  # a comment line ends no line of code
    assert comments.comment_above(lines, 5) == ["a", "b"]
    # Comment lines below a line's comment, their `#` in its column, go on with it; others do not.
    lines = ["param p: int = 1   # the first", "                   # and the second", "  # another",
             "param q: int = 2   # q"]
    assert comments.comment_at(lines, 1) == "the first and the second"
    assert comments.comment_at(lines, 4) == "q"


def test_designers_notes_are_read_where_they_are_written() -> None:
    lines = ['# Comments that start "Rulebook is silent" are notes.', "#", "# Some text. Designer's note: first",
             "# goes on. Designer's note: Rulebook is silent on B; we do C.", "param p: int = 1",
             "x = 1  # Designer's note: at the end of a line"]
    notes = comments.designer_notes(lines)
    assert [(n.text, n.line, n.end_line, n.trailing) for n in notes] == [
        ("first goes on.", 3, 4, False),
        ("Rulebook is silent on B; we do C.", 4, 4, False),
        ("at the end of a line", 6, 6, True)]


class _Page(HTMLParser):
    VOID = frozenset({"meta", "br", "hr", "img", "input", "link"})

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.ids: list[str] = []
        self.hrefs: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.append(str(found["id"]))
        href = found.get("href")
        if href and href.startswith("#"):
            self.hrefs.add(href[1:])
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, f"</{tag}> closes <{self.open[-1] if self.open else None}>"
        self.open.pop()


if __name__ == "__main__":  # refresh every rulebook: see the module's docstring
    for name in NAMES:
        md, page = books(name)
        (BOOKS / f"{Path(name).name}.md").write_text(md, encoding="utf-8")
        (BOOKS / f"{Path(name).name}.html").write_text(page, encoding="utf-8")
        print(f"wrote {BOOKS / Path(name).name}.md and .html", file=sys.stderr)
