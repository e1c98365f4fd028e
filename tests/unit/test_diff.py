"""`rulesdsl diff`: a Covert table changed shows exactly the report lines it changes, each with what made it on
each side (the table and its row), and exits 1; a news line says its rule; an untraced side says nothing; an order
syntax changed shows the lines no longer read; identical games exit 0 with the summary alone; the HTML page
escapes what it shows; the golden workflow against a git revision; the hunks are diff -u's."""

from __future__ import annotations

import difflib
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from syrupy.assertion import SnapshotAssertion

from rulesdsl.cli import main
from rulesdsl.game.replay import replay
from rulesdsl.review import why
from rulesdsl.review.diff import compare_folders, diff_lines
from rulesdsl.review.explain import Cause
from rulesdsl.review.page import page
from tests.unit.reviewtools import changed_covert
from tests.unit.rulestools import COVERT, RULESETS

# A unit costs 2 million instead of 3 for two: Spectre's and Thrush's A,...,2 of day 2 cost 1 less.
ARMS_ROW = ("{ 1: 1, 2: 3, 3: 6", "{ 1: 1, 2: 2, 3: 6")


def _changed(out: str, turn: int) -> list[str]:
    """The changed lines of one turn's section of a text diff, with the file each is in."""
    section = out.split(f"=== turn {turn} ===\n", 1)[1].split("\n=== turn ", 1)[0]
    found, where = [], ""
    for line in section.splitlines():
        if line.startswith("+++ "):
            where = line.rsplit("/", 1)[1]
        elif line[:1] in "+-" and not line.startswith("--- "):
            found.append(f"{where} {line}")
    return found


def test_a_changed_table_shows_exactly_the_changed_lines(covert_demo: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str],
                                                          text_snapshot: SnapshotAssertion) -> None:
    """The issue's "done when": exactly the changed lines, each with its provenance from both replays' traces,
    the table `arms_cost` and its row on each side; a change made alike in both games left out."""
    new = changed_covert(tmp_path / "new", *ARMS_ROW)
    html = tmp_path / "diff.html"
    assert main(["diff", str(COVERT), str(new), "--game", str(covert_demo), "--html", str(html)]) == 1
    out = capsys.readouterr().out
    assert "=== turn 1 ===" not in out  # nothing bought two units on day 1
    assert _changed(out, 2) == [
        "20408-spectre.txt -  Cash on hand:      $11 million",
        "20408-spectre.txt +  Cash on hand:      $12 million",
        "9999-thrush.txt -  Cash on hand:      $18 million",
        "9999-thrush.txt +  Cash on hand:      $19 million",
    ]
    assert (f"--- {COVERT}: turns/turn-002/reports/20408-spectre.txt\n"
            f"+++ {new}: turns/turn-002/reports/20408-spectre.txt\n@@ -9,7 +9,7 @@\n") in out
    order = 'order "A,MEX,2" of Spectre (account 20408; line 4 of its orders)'
    assert ("-  Cash on hand:      $11 million\n"
            f"#   covert.rules:242 (order arms), {order}: 13 -> 10: what the order cost; table arms_cost[2] = 3\n"
            "+  Cash on hand:      $12 million\n"
            f"#   covert.rules:242 (order arms), {order}: 13 -> 11: what the order cost; table arms_cost[2] = 2\n"
            ) in out
    assert ("state of turn 2 (turns/turn-002/state.yaml):\n"
            "  $.players[0].cash: 11 -> 12  (20408 Spectre)\n"
            f"#   old: covert.rules:242 (order arms), {order}: 13 -> 10: what the order cost; table arms_cost[2] = 3\n"
            f"#   new: covert.rules:242 (order arms), {order}: 13 -> 11: what the order cost; table arms_cost[2] = 2\n"
            ) in out
    # Day 3: Spectre bought nothing, and only the cash day 2 saved differs.
    assert ("  $.players[0].cash: 10 -> 11  (20408 Spectre)\n#   the same 6 change(s) in both games; "
            "it was 11 in the old game and 12 in the new as turn 3 began\n") in out
    # Every changed cash line and state value says why.
    lines = out.splitlines()
    shown = [k for k, line in enumerate(lines)
             if (line[:1] in "+-" and "Cash on hand" in line) or line.startswith("  $.")]
    assert len(shown) == 16 * 2 + 18 and all(lines[k + 1].startswith("#   ") for k in shown)
    assert out.replace(str(COVERT), "covert.rules").replace(str(new), "new/covert.rules") == text_snapshot(
        name="covert-arms-cost-why")
    # Day 5: the million saved each time made Spectre's bribe affordable, and its influence followed.
    assert [line for line in _changed(out, 5) if line.startswith("20408-")] == [
        "20408-spectre.txt -  Cash on hand:      $15 million",
        "20408-spectre.txt -  Orders available:  30",
        "20408-spectre.txt +  Cash on hand:      $9 million",
        "20408-spectre.txt +  Orders available:  29",
        "20408-spectre.txt -    industry 2, security 1, your influence 6",
        "20408-spectre.txt +    industry 2, security 1, your influence 14",
        "20408-spectre.txt -  line   4  B,VEN,8          FAILED: not enough cash: it costs 8 and you have 6",
        "20408-spectre.txt +  line   4  B,VEN,8          done",
    ]
    # Every other changed line is a player's cash, or what cash made fail.
    others = [line for turn in (3, 4, 5) for line in _changed(out, turn) if not line.startswith("20408-")]
    assert others and all("  Cash on hand:  " in line for line in others)
    assert out.endswith("summary: 6 turn(s) compared (turn 0 to 5); 16 of 36 report(s) changed, from turn 2; "
                        "18 state value(s) changed, from turn 2; 0 line(s) no longer read\n")
    shown = html.read_text(encoding="utf-8")
    for line in _changed(out, 2) + _changed(out, 5):
        assert f"<td>{line.split(' ', 1)[1]}<" in shown
    assert '<a href="#g1-2-report-9999-thrush">9999-thrush</a>' in shown
    assert '<div class="why">covert.rules:242 (order arms), order &#34;A,MEX,2&#34;' in shown


def test_one_side_traced_shows_all_its_changes(covert_demo: Path, tmp_path: Path) -> None:
    """With no trace on the other side nothing can be found alike, so the traced side's changes are all shown;
    a news line says the rule that said it. One more loss at each combat: Central Russia conquers Ukraine a day
    sooner."""
    replay(covert_demo, tmp_path / "bloody", changed_covert(tmp_path / "new", "below 1.5: 1", "below 1.5: 2"),
           trace=True)
    assert (tmp_path / "bloody" / "turns" / "turn-002" / "trace.jsonl").is_file()
    assert not (tmp_path / "bloody" / "turns" / "turn-000" / "trace.jsonl").exists()
    diff = compare_folders(covert_demo, tmp_path / "bloody", "a", "b")
    news = next(f for f in diff.files if f.turn == 3 and f.kind == "news")
    added = [line for h in news.hunks for line in h.lines if line.sign != " "]
    assert [line.text for line in added] == ["  Central Russia conquers Ukraine"]
    said = "covert.rules:570 (phase combat), phase combat: news; "
    assert len(added[0].why) == 1 and added[0].why[0].startswith(said)
    assert "table combat_losses[1] = 2" in added[0].why[0]
    troops = next(v for v in diff.values if v.turn == 3 and v.path == "$.Country.CAF.troops")
    assert troops.why == ("new: covert.rules:213 (procedure take_defence_losses), phase combat: 3 -> 1; "
                          "table combat_losses[1.33] = 2",)
    # The old game has no trace: its lines say nothing.
    assert not any(line.why for f in diff.files for h in f.hunks for line in h.lines if line.sign == "-")


def test_causes_made_alike_are_left_out_and_past_four_counted() -> None:
    found = [Cause(("covert.rules:1 (phase p)", str(i)), f"cause {i}") for i in range(7)]
    assert why._shown(found, [Cause(found[0].key, "cause 0, other values")], "new: ") == [
        "new: cause 1", "new: cause 2", "new: cause 3", "new: cause 4", "new: ... and 2 more change(s)"]
    assert why._shown(found[:2], None) == ["cause 0", "cause 1"]


def test_an_order_syntax_changed_shows_the_lines_no_longer_read(covert_demo: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    # The demo replayed under the new syntax, and compared as two folders: the same as --game, one replay less.
    replay(covert_demo, tmp_path / "armed", changed_covert(tmp_path / "new", '"A,{country},{units}"',
                                                           '"ARMS,{country},{units}"'))
    assert main(["diff", str(covert_demo), str(tmp_path / "armed")]) == 1
    out = capsys.readouterr().out
    assert "refused: turn 1, 1001-the-illuminati line 6: no longer read: not an order of this game ('A,FRA,1')\n" in out
    assert "+ORDERS NOT ACCEPTED\n+  line   6  A,FRA,1          not an order of this game\n" in out
    assert out.splitlines()[-1].endswith("; 13 line(s) no longer read")
    # Folders played without --trace: no line says why, and nothing fails for it.
    assert "\n#" not in out


def test_identical_games_exit_0_with_the_summary_alone(covert_demo: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(covert_demo, tmp_path / "copy")
    assert main(["diff", str(covert_demo), str(tmp_path / "copy")]) == 0
    assert capsys.readouterr().out == "summary: 6 turn(s) compared (turn 0 to 5), 36 report(s): nothing differs\n"


def test_usage_errors_exit_2(covert_demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", str(covert_demo)]) == 2
    assert main(["diff", str(covert_demo), str(covert_demo), "--against", "HEAD"]) == 2
    assert main(["diff", str(COVERT), str(COVERT)]) == 2  # rulesets without --game
    assert main(["diff", "--goldens", str(covert_demo)]) == 2
    err = capsys.readouterr().err
    assert "rulesdsl diff: error: give two game folders, or OLD.rules NEW.rules --game GAMEDIR, or --goldens" in err
    assert "no such folder (give two game folders, or two rulesets and --game)" in err


def test_the_page_escapes_what_it_shows(covert_demo: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    shutil.copytree(covert_demo, other)
    report = other / "turns" / "turn-003" / "reports" / "20408-spectre.txt"
    text = report.read_text(encoding="utf-8")
    report.write_text(text.replace("Spectre", '<script>alert("&")</script>', 1), encoding="utf-8")
    diff = compare_folders(covert_demo, other, "a<b", "c&d")
    shown = page([diff], "rulesdsl diff a<b c&d")
    assert "<script>" not in shown
    assert "Position:          &lt;script&gt;alert(&#34;&amp;&#34;)&lt;/script&gt;</td>" in shown
    assert "<title>rulesdsl diff a&lt;b c&amp;d</title>" in shown
    changed = [line for f in diff.files for hunk in f.hunks for line in hunk.lines if line.sign != " "]
    assert len(changed) == 2 and shown.count('<tr class="del">') == 1 and shown.count('<tr class="add">') == 1


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=T", "-c", "user.email=t@example.org", *args],
                   check=True, capture_output=True)


def test_the_goldens_against_a_revision(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A repository of one ruleset and one golden scenario: a table changed in the working tree shows exactly
    the lines it changes; the same rules show nothing."""
    repo = tmp_path / "repo"
    (repo / "rulesets").mkdir(parents=True)
    for path in RULESETS.glob("covert.*"):
        shutil.copy(path, repo / "rulesets" / path.name)
    shutil.copytree(RULESETS.parent / "tests" / "golden" / "covert" / "economy", repo / "tests" / "golden" / "covert"
                    / "economy")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "start")
    monkeypatch.chdir(repo)
    assert main(["diff", "--goldens"]) == 0
    assert capsys.readouterr().out == ("summary: covert/economy: 3 turn(s) compared (turn 0 to 2), 9 report(s): "
                                       "nothing differs\nsummary: 1 game(s) compared; nothing differs\n")
    rules = repo / "rulesets" / "covert.rules"
    rules.write_text(rules.read_text(encoding="utf-8").replace("{ 1: 1, 2: 3", "{ 1: 2, 2: 3"), encoding="utf-8")
    assert main(["diff", "--goldens", "--against", "HEAD", "--html", "goldens.html"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("### covert/economy\n=== turn 1 ===\n"
                          "--- HEAD: turns/turn-001/reports/1111-gnomes-of-zurich.txt\n"
                          "+++ working tree: turns/turn-001/reports/1111-gnomes-of-zurich.txt\n")
    assert _changed(out, 1) == [
        "1111-gnomes-of-zurich.txt -  Orders available:  13",
        "1111-gnomes-of-zurich.txt +  Orders available:  14",
        "1111-gnomes-of-zurich.txt -    industry 2, security 4, your influence 11",
        "1111-gnomes-of-zurich.txt +    industry 2, security 4, your influence 10",
        "1111-gnomes-of-zurich.txt -  line  13  I,SPA            FAILED: not enough cash: it costs 4 and you have 1",
        "1111-gnomes-of-zurich.txt -  line  14  B,SPA,1          done",
        "1111-gnomes-of-zurich.txt +  line  13  I,SPA            FAILED: not enough cash: it costs 4 and you have 0",
        "1111-gnomes-of-zurich.txt +  line  14  B,SPA,1          FAILED: not enough cash: it costs 1 and you have 0",
    ]
    assert out.endswith("summary: 1 game(s) compared; 1 differ: covert/economy\n")
    assert main(["diff", "--goldens", "--against", "no-such-branch"]) == 2
    assert f"error: --against no-such-branch: no such revision in {repo}" in capsys.readouterr().err
    assert '<h2 id="g1">covert/economy</h2>' in (repo / "goldens.html").read_text(encoding="utf-8")


_LINES = st.lists(st.sampled_from(["a", "b", "c", "", "d d"]), max_size=12)


@settings(max_examples=50, deadline=None)
@given(_LINES, _LINES)
def test_hunks_are_those_of_diff_u(old: list[str], new: list[str]) -> None:
    expected = list(difflib.unified_diff(old, new, lineterm=""))[2:]
    ours = []
    for hunk in diff_lines(old, new):
        ours.append(hunk.header)
        ours += [line.sign + line.text for line in hunk.lines]
    assert ours == expected


def test_an_item_added_to_a_list_is_one_change_not_a_shift_of_all_after_it() -> None:
    from rulesdsl.review.diff import _changes

    out: list[tuple[str, str | None, str | None]] = []
    seen = [f"00{n}01" for n in range(100, 140)]
    _changes({"seen": seen, "rows": [[1, 2], [3, 4]]},
             {"seen": ["00099", *seen[:10], *seen[11:]], "rows": [[1, 2], [3, 5], [6, 7]]}, [], out)
    # An added item by its new index, a removed one by its old; an item changed in place, field by field.
    assert out == [("$.seen[0]", None, '"00099"'), ("$.seen[10]", '"0011001"', None),
                   ("$.rows[1][1]", "4", "5"), ("$.rows[2][0]", None, "6"), ("$.rows[2][1]", None, "7")]
