"""Report data + template -> the data paths each line shows (review/shown.py): every report of a golden game of
each shipped ruleset rendered again byte for byte, the lines a reviewer would check, and Jinja's filters on
small templates (the same text as a plain render, the right paths on the right lines)."""

from __future__ import annotations

import json
import string
from pathlib import Path
from typing import Any

import jinja2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulesdsl.compiler import load_template
from rulesdsl.game.folder import GameFolder
from rulesdsl.review.shown import Shown, line_sources
from rulesdsl.runtime.report import normalise, template_env
from tests.golden import harness

# One or two quick golden games a ruleset: those that show what the fact tests below read.
GAMES = {
    "covert": ["military", "order-limits"],
    "covert-twice-weekly": ["allowances"],
    "nukecards": ["doomsday"],
    "nukecards-blitz": ["time-up"],
    "warlord": ["refusals", "espionage"],
    "wcg": ["first-turn"],
}


@pytest.fixture(scope="session")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The games of GAMES played to their end, by `ruleset-scenario`, each when a test first asks for it (a
    worker of pytest-xdist compiles only the rulesets of its own tests)."""
    base = tmp_path_factory.getbasetemp()

    class Played(dict[str, Path]):
        def __missing__(self, game: str) -> Path:
            [s] = [s for r in GAMES for s in harness.scenarios(r) if s.id == game]
            root = tmp_path_factory.mktemp(game) / "game"
            with pytest.MonkeyPatch.context() as mp:
                mp.setenv("RULESDSL_CACHE", str(base / "rulesdsl-cache"))
                for _ in harness.play(s, root):
                    pass
            self[game] = root
            return root

    return Played()


def _template(root: Path) -> jinja2.Template:
    spec, _ = GameFolder(root).load_spec()
    return load_template(spec)


def _report(root: Path, turn: int, account: str) -> tuple[dict[str, Any], Shown]:
    [path] = (root / "turns" / f"turn-{turn:03d}" / "reports").glob(f"{account}-*.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    shown = line_sources(_template(root), data)
    assert shown is not None
    return data, shown


def _at(shown: Shown, text: str) -> tuple[str, ...]:
    """The paths of the one line that is `text` (trailing blanks aside)."""
    lines = shown.text.splitlines()
    assert lines.count(text) == 1, text
    return shown.lines[lines.index(text)]


@pytest.mark.parametrize("game", [f"{r}-{n}" for r, names in GAMES.items() for n in names])
def test_every_report_renders_again_byte_for_byte(games: dict[str, Path], game: str) -> None:
    root = games[game]
    template = _template(root)
    reports = sorted(root.glob("turns/turn-*/reports/*.json"))
    assert reports
    for path in reports:
        shown = line_sources(template, json.loads(path.read_text(encoding="utf-8")))
        assert shown is not None, path
        assert shown.text == path.with_suffix(".txt").read_text(encoding="utf-8"), path
        assert len(shown.lines) == len(shown.text.splitlines())


def test_covert_lines(games: dict[str, Path]) -> None:
    data, shown = _report(games["covert-military"], 2, "3001")
    assert _at(shown, "  Cash on hand:      $89 million") == ("$.cash",)
    france = [c["name"] for c in data["controlled"]].index("France")
    assert _at(shown, "  France (FRA)") == (f"$.controlled[{france}].name", f"$.controlled[{france}].code")
    lines = shown.text.splitlines()
    troops = shown.lines[lines.index("  France (FRA)") + 3]
    assert lines[lines.index("  France (FRA)") + 3] == "    home troops 3"
    assert f"$.controlled[{france}].troops" in troops
    assert not [p for p in troops if p.startswith("$.controlled[") and not p.startswith(f"$.controlled[{france}].")]
    # A record's nested list: Southern Europe's troops abroad.
    soe = [c["name"] for c in data["controlled"]].index("Southern Europe")
    assert _at(shown, "    6 of its troops conquering BAL") == tuple(
        f"$.controlled[{soe}].abroad[0].{f}" for f in ("troops", "mission", "country"))
    assert _at(shown, "    SOE invades with 7 troops and loses 1") == ("$.military[0].combat[2]",)
    # The report's own words show nothing, nor does a blank line.
    for heading in ("COUNTRIES UNDER YOUR INFLUENCE", "SPY REPORTS", "YOUR ORDERS THIS TURN", "=" * 70):
        assert _at(shown, heading) == ()
    assert all(paths == () for line, paths in zip(lines, shown.lines, strict=True) if not line)


def test_covert_refused_order(games: dict[str, Path]) -> None:
    data, shown = _report(games["covert-order-limits"], 3, "303")
    assert data["orders"]["refused"][0]["text"] == "A,MEX,2"
    line = "  line   4  A,MEX,2          this order may be given once per day for the same country"
    assert _at(shown, line) == ("$.orders.refused[0].line", "$.orders.refused[0].text", "$.orders.refused[0].reason")
    assert _at(shown, "  line   5  B,MEX,3          done") == (
        "$.orders.used[2].line", "$.orders.used[2].text", "$.orders.used[2].status")


def test_warlord_lines(games: dict[str, Path]) -> None:
    data, shown = _report(games["warlord-refusals"], 1, "1")
    fields = ("mark", "sector", "number", "rank", "name", "size", "comment")
    lines = shown.text.splitlines()
    for i, unit in enumerate(data["forces"]):
        [n] = [n for n, line in enumerate(lines) if line.startswith(f"  {unit['sector']} {unit['number']:>4} ")]
        assert shown.lines[n] == tuple(f"$.forces[{i}].{f}" for f in fields)
    # Orders sorted by line (used + refused): each row shows its own order's values, not every sort key.
    row = next(n for n, line in enumerate(lines) if line.startswith("    4 A 1 3454"))
    assert shown.lines[row] == ("$.orders.refused[0].line", "$.orders.refused[0].text", "$.orders.refused[0].reason")
    row = next(n for n, line in enumerate(lines) if line.startswith("    3 A 12 00402"))
    assert shown.lines[row] == tuple(f"$.orders.used[0].{f}" for f in ("line", "text", "status", "reason"))
    assert _at(shown, "FORCES AND CITIES") == ()
    assert _at(shown, "  Sector Unit Rank Name             Size Comment") == ()


def test_nukecards_and_wcg_lines(games: dict[str, Path]) -> None:
    _, shown = _report(games["nukecards-doomsday"], 2, "503")
    assert _at(shown, "  Cat set off the Doomsday Device.") == ("$.news[1]",)
    assert _at(shown, "  M200   missile 200") == ("$.hand[0].code", "$.hand[0].name", "$.hand[0].count")
    _, shown = _report(games["wcg-first-turn"], 1, "1")
    assert _at(shown, "  United States: 168 infantry") == ("$.forces[0]",)
    assert _at(shown, "  Population:    180.67 million") == ("$.population",)


# Small templates: each filter on proxies gives the plain text, and notes the leaves it reads on their lines.
DATA: dict[str, Any] = {
    "xs": [{"n": "b", "v": 2}, {"n": "a", "v": 1}],
    "ws": ["x", "y", "x"],
    "d": {"k": 1, "j": 2},
    "cash": 5,
    "flag": True,
    "nil": None,
    "long": "aaa bbb ccc",
}

CASES: list[tuple[str, list[tuple[str, ...]]]] = [
    ("{{ ws|join(', ') }}", [("$.ws[0]", "$.ws[1]", "$.ws[2]")]),
    ("{{ xs|length }} {{ d|length }}", [()]),
    ("{% for x in xs|sort(attribute='n') %}{{ x.v }}\n{% endfor %}", [("$.xs[1].v",), ("$.xs[0].v",)]),
    ("{% for w in ws|sort %}{{ w }}\n{% endfor %}", [("$.ws[0]",), ("$.ws[2]",), ("$.ws[1]",)]),
    ("{% for w in ws|sort(reverse=true) %}{{ w }}\n{% endfor %}", [("$.ws[1]",), ("$.ws[0]",), ("$.ws[2]",)]),
    ("{% for w in ws|list %}{{ w }}\n{% endfor %}", [("$.ws[0]",), ("$.ws[1]",), ("$.ws[2]",)]),
    ("{{ xs|sum(attribute='v') }}", [("$.xs[0].v", "$.xs[1].v")]),
    ("{{ ws|first }}\n{{ ws|last }}", [("$.ws[0]",), ("$.ws[2]",)]),
    ("{{ (xs|first).n }}", [("$.xs[0].n",)]),
    ("{% for x in xs|selectattr('v', 'gt', 1) %}{{ x.n }}\n{% endfor %}", [("$.xs[0].v", "$.xs[0].n")]),
    ("{% for x in xs|rejectattr('v', 'gt', 1) %}{{ x.n }}\n{% endfor %}", [("$.xs[0].v", "$.xs[1].v", "$.xs[1].n")]),
    ("{{ xs|map(attribute='n')|join('/') }}", [("$.xs[0].n", "$.xs[1].n")]),
    # groupby sorts the whole list first: every key it read goes to the first group's line.
    ("{% for g in xs|groupby('n') %}{{ g.grouper }}: {{ g.list|map(attribute='v')|join }}\n{% endfor %}",
     [("$.xs[0].n", "$.xs[1].n", "$.xs[1].v"), ("$.xs[0].v",)]),
    ("{% for k, v in d|dictsort %}{{ k }}={{ v }}\n{% endfor %}", [("$.d.j",), ("$.d.k",)]),
    ("{% for k, v in d|dictsort(reverse=true) %}{{ v }}\n{% endfor %}", [("$.d.k",), ("$.d.j",)]),
    # A record's keys are no leaves of it: listed or sorted, they show nothing.
    ("{{ d|list|join(',') }} {{ d|sort|join(',') }} {{ d|first }}", [()]),
    ("{% for k, v in d.items() %}{{ k }}={{ v }}\n{% endfor %}", [("$.d.k",), ("$.d.j",)]),
    ("{% for v in d.values() %}{{ v }}\n{% endfor %}", [("$.d.k",), ("$.d.j",)]),
    ("{% for k, v in d|items %}{{ v }}\n{% endfor %}", [("$.d.k",), ("$.d.j",)]),
    ("{{ d.get('j') }} {{ d.get('zz', 0) }}", [("$.d.j",)]),
    ("{% for w in ws|unique %}{{ w }}\n{% endfor %}", [("$.ws[0]",), ("$.ws[1]",)]),
    ("{% for w in ws|reverse %}{{ w }}\n{% endfor %}", [("$.ws[2]",), ("$.ws[1]",), ("$.ws[0]",)]),
    ("{{ 'y' in ws }}\n{{ 'q' in ws }}", [("$.ws[0]", "$.ws[1]"), ("$.ws[0]", "$.ws[1]", "$.ws[2]")]),
    ("{{ d|tojson }}\n{{ ws|tojson }}", [("$.d.k", "$.d.j"), ("$.ws[0]", "$.ws[1]", "$.ws[2]")]),
    ("{{ xs|tojson }}", [("$.xs[0].n", "$.xs[0].v", "$.xs[1].n", "$.xs[1].v")]),
    ("{{ xs|pprint }}", [("$.xs[0].n", "$.xs[0].v", "$.xs[1].n", "$.xs[1].v")]),
    ("{{ d|pprint }}", [("$.d.k", "$.d.j")]),
    ("{{ ws|string }}\n{{ d }}", [("$.ws[0]", "$.ws[1]", "$.ws[2]"), ("$.d.k", "$.d.j")]),
    ("{{ (xs|max(attribute='v')).n }}", [("$.xs[0].v", "$.xs[1].v", "$.xs[0].n")]),
    ("{% for w in (ws + ['z'])[1:] %}{{ w }}\n{% endfor %}", [("$.ws[1]",), ("$.ws[2]",), ()]),
    ("{% for w in ['z'] + ws %}{{ w }}\n{% endfor %}", [(), ("$.ws[0]",), ("$.ws[1]",), ("$.ws[2]",)]),
    ("{{ ws[1] }} {{ ws[-1] }} {{ ws.index('y') }} {{ ws.count('x') }}", [("$.ws[1]", "$.ws[2]", "$.ws[0]")]),
    # loop.last reads the next item ahead: it is noted on the next item's own line.
    ("{% for w in ws %}{{ loop.index }} {{ w }}{{ '.' if loop.last }}\n{% endfor %}",
     [("$.ws[0]",), ("$.ws[1]",), ("$.ws[2]",)]),
    ("{% for w in ws if w != 'y' %}{{ w }}\n{% endfor %}", [("$.ws[0]",), ("$.ws[1]", "$.ws[2]")]),
    # A value over several lines (Warlord's letters) shows on each of them.
    ("head\n  {{ long|wordwrap(4, wrapstring='\\n    ') }}\nfoot", [(), ("$.long",), ("$.long",), ("$.long",), ()]),
    # Top-level leaves are noted where they are used, not when the render starts.
    ("head\n{% if flag %}Cash {{ cash }}\n{% endif %}{{ nil is none }}", [(), ("$.flag", "$.cash"), ("$.nil",)]),
    ("{% set total = cash + 1 %}fixed\n{{ total }}", [("$.cash",), ()]),
]


@pytest.mark.parametrize(("source", "lines"), CASES, ids=[c[0][:40] for c in CASES])
def test_filters_on_proxies(source: str, lines: list[tuple[str, ...]]) -> None:
    template = template_env().from_string(source)
    shown = line_sources(template, json.loads(json.dumps(DATA)))
    assert shown is not None
    assert shown.text == normalise(template.render(**DATA))
    assert shown.lines == lines


def test_blank_chunks_hand_their_reads_on() -> None:
    """The test of an `if` goes to the text it shows, not to the blank line above it; a value's line end
    goes to the value's line."""
    template = template_env().from_string("a {{ cash }}{% if flag %}!{% endif %}\n\n{% if cash %}\n\nHEAD\n{% endif %}")
    shown = line_sources(template, DATA)
    assert shown is not None
    assert shown.text == "a 5!\n\nHEAD\n"
    assert shown.lines == [("$.cash", "$.flag"), (), ("$.cash",)]


def test_a_render_the_proxies_change_gives_none() -> None:
    # A key named as a proxy's own slot: a dict gives the key's value, a proxy has the attribute, which the
    # sandbox refuses. Never in a report (its fields cannot start with `_`); the caller falls back.
    template = template_env().from_string("{{ d._shown_path }}")
    assert template.render(d={"_shown_path": 1}) == "1"
    assert line_sources(template, {"d": {"_shown_path": 1}}) is None


_KEY = st.text(string.ascii_lowercase, min_size=1, max_size=3)
# Leaves that print as one line of text, never blank: each line of the template shows exactly one.
_LEAF = st.one_of(st.integers(-1000, 1000), st.booleans(), st.none(),
                  st.text(string.ascii_letters, min_size=1, max_size=5))
_DATA = st.dictionaries(
    _KEY.map(lambda k: "k" + k),
    st.recursive(_LEAF, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                               st.dictionaries(_KEY, inner, max_size=3)), max_leaves=12),
    min_size=1, max_size=4)


def _leaves(value: Any, path: str, expr: str) -> list[tuple[str, str]]:
    if isinstance(value, dict):
        return [x for k, v in value.items() for x in _leaves(v, f"{path}.{k}", f"{expr}[{k!r}]")]
    if isinstance(value, list):
        return [x for i, v in enumerate(value) for x in _leaves(v, f"{path}[{i}]", f"{expr}[{i}]")]
    return [(path, expr)]


@settings(max_examples=30, deadline=None)
@given(_DATA)
def test_each_printed_leaf_is_on_its_line(data: dict[str, Any]) -> None:
    leaves = [x for k, v in data.items() for x in _leaves(v, f"$.{k}", k)]
    template = template_env().from_string("leaves\n" + "".join(f"= {{{{ {expr} }}}}\n" for _, expr in leaves))
    shown = line_sources(template, data)
    assert shown is not None
    assert shown.lines == [()] + [(path,) for path, _ in leaves]
