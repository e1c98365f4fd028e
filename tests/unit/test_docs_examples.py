"""Fenced code blocks of docs/*.md and README.md -> each one checked as the marker before it says.

Every fenced block must follow a marker line `<!-- example: KIND ... -->`, so that a new example cannot
slip in unchecked. Kinds:
  whole                   a complete ruleset: checks with no error.
  decls [without C ...]   declarations, added to the context ruleset below, less the named chunks of it
                          (the ones the example declares itself): no error.
  statements              statements, checked as the effect of an order of the context: no error.
  expressions             one expression a line, each checked as a `let` in that effect: no error.
  expect CODE KIND ...    as KIND, but the example shows a mistake on purpose: exactly error CODE.
  elided [KIND ...]       a sketch where `...` stands for left-out lines (it must really leave some out);
                          with a KIND, checked as that KIND once the `...` are taken out.
  variant                 a variant, as rulesets/variants/NAME.rules: `extends "../covert.rules"` (or another
                          shipped ruleset) finds its base: no error.
  scenario RULESET [part]  a scenario for rulesets/RULESET.rules (`previous`: the last `whole` block
                          before it): `rulesdsl new` accepts it (with `part`, after adding two
                          players to it).
  scenario-error RULESET  a scenario that `rulesdsl new` refuses with the text of the next block.
  template, output, yaml, sh, text    not rulesdsl source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from rulesdsl.compiler import check_path
from rulesdsl.game.folder import GameError, GameFolder
from tests.unit.rulestools import ROOT, show

DOCS = [ROOT / "docs" / "language.md", ROOT / "README.md"]
DOCS += sorted(p for p in (ROOT / "docs").glob("*.md") if p not in DOCS)

# The context a fragment is checked in: a small Covert-like ruleset that declares every name the docs'
# fragments use. Chunks have names so a fragment that declares one itself can leave it out.
CONTEXT: dict[str, str] = {
    "header": 'ruleset "Docs" {\n  version "1"\n  turn "day"\n  game "CO-{number}"\n}\n',
    "params": """
param starting_cash: money = 20
param spy_points_per_million: int = 5 # "increases by five the value of your spy"
secret param cash_power: int = 5
""",
    "more_params": """
param fixed_income: money = 5
secret param kill_difficulty: int = 25
secret param terror_security_divisor: int = 3
""",
    "country": """
thing Country keyed by code {
  name: text
  industry: int = 0
  troops: int = 0
  security: int = 0
  adjacent: set of Country
  influence: Player -> int
  spy: Player -> int
  defending: Country -> int
  conquering: Country -> int
  leader_at_dawn: Player?
  start_troops: int = 0
  government_changed: bool = false
  income_today: money = 0 reset each turn
  combat: list of text reset each turn
}
""",
    "data": """
data Country(code, name, industry, troops, security) {
  ARG: "Argentina", 2, 4, 2
  BRA: "Brazil", 3, 3, 3
  PER: "Peru", 1, 2, 1
  VEN: "Venezuela", 2, 1, 1
}
""",
    "links": "\nlinks Country.adjacent {\n  ARG: BRA\n}\n",
    "card": """
thing Card keyed by code { power: int = 0 }
data Card(code, power) {
  S4: 4
  S12: 12
  S15: 15
  M200: 200
  M500: 500
}
""",
    "zone": """
thing Zone keyed by code { name: text }
data Zone(code, name) {
  NORTH: "North"
  SOUTH: "South"
}
""",
    "region": "\nthing Region keyed by code { name: text }\ndata Region(code, name) {\n  R1: \"One\"\n}\n",
    "player": """
player {
  cash: money = starting_cash
  income: money = fixed_income
  orders_available: int = 0
  superspy: Country?
  contacts: list of text reset each turn
  hand: list of Card = [Card.S4]
  rounds_left: Card -> int
}
""",
    "world": """
world {
  reveal_round: int = 3
  ultimate_owner: Player?
  deck: list of Card = [Card.S4, Card.S12]
  launches: int = 0 reset each turn
  attackers: int = 0
  defenders: int = 0
}
""",
    "functions": """
define controller(c: Country) -> Player? =
  best(p for p in players where c.influence[p] > 0 by c.influence[p])
define controls(p: Player, c: Country) -> bool = controller(c) == p
define countries_of(p: Player) -> int = count(c for c in Country where controls(p, c))
define attack_bonus(p: Player, c: Country) -> int = c.troops
define success_chance(cash: money, bonus: int, security: int, difficulty: int) -> int =
  amount(cash) * cash_power + bonus - security - difficulty
define superspy_report(p: Player, c: Country) = {name: c.name}
""",
    "revolution_spent": """
define revolution_spent(p: Player, c: Country) -> money =
  sum(o.cash for o in orders(revolution) where o.country == c and o.player == p)
""",
    "tables": "\ntable arms_cost(units: int) -> money { 1: 1, 2: 3, 3: 6, 4: 10, 5: 15 }\n",
    "procedures": """
procedure change_government(c: Country) {
  clear c.influence
  c.government_changed = true
}
""",
    "orders": """
orders {
  header "CO-{game}", "{account}", "{code}"
  budget orders_available starts at 10 plus 7 each turn
  pay from cash
}
""",
    "order_defs": """
order revolution "R,{country},{cash}" {
  country: Country
  cash: money from 1
  cost cash
}
order terrorism "T,{country},{cash}" {
  country: Country
  cash: money from 1
  cost cash
}
order transfer "X,{country}" {
  country: Country
}
order liquidate "L,{country}" {
  country: Country
}
""",
    "phases": "\nphase revolutions: run revolution\nphase terror: run terrorism\n",
    "report": '\nreport {\n  name = me.name\n  template "docs.report.j2"\n}\n',
}

# Statements and expressions are checked here, where the names the docs' fragments use are bound.
EFFECT_ORDER = """
order doc_example "DOCEX {country},{cash},{total},{card},{origin},{target}" {
  country: Country
  cash: money from 1
  total: money from 1
  card: Card
  origin: Country
  target: Player
  effect {
    for each c in Country {
      for each p in players {
        let backers = sorted(q for q in players where revolution_spent(q, c) > 0 by revolution_spent(q, c))
        # EXAMPLE
      }
    }
  }
}
phase examples: run doc_example
"""

# docs/language.md §4 is being edited by someone else right now; its blocks are marked here, by the
# first of these lines they hold, until the markers can go into the text.
SIDE_MARKERS: dict[str, str] = {
    # the player's and world's `from scenario` fields, without the context's player, world and
    # whatever reads their fields
    "  home: Region from scenario        # Warlord: each player's home region":
        "decls without player world orders order_defs phases revolution_spent",
    "thing Country keyed by code {": "decls without country data links procedures",
    "player {": "decls without player",
    "world {": "decls without world",
    "effect {": "elided",
}



def side_marker(text: str) -> str | None:
    return next((v for k, v in SIDE_MARKERS.items() if k in text.splitlines()), None)


MARKER = re.compile(r"^<!-- example: (.+?) -->$")
FENCE = re.compile(r"^```(\w*)$")


@dataclass(frozen=True)
class Block:
    file: str
    line: int  # of the opening fence
    marker: str | None
    text: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


def blocks(path: Path) -> list[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        if FENCE.match(lines[i]):
            end = lines.index("```", i + 1)
            m = MARKER.match(lines[i - 1]) if i > 0 else None
            text = "\n".join(lines[i + 1:end]) + "\n"
            marker = m.group(1) if m else side_marker(text) if path.name == "language.md" else None
            out.append(Block(path.relative_to(ROOT).as_posix(), i + 1, marker, text))
            i = end + 1
        else:
            i += 1
    return out


ALL = [b for p in DOCS for b in blocks(p)]


def context(without: set[str], extra: str = "") -> str:
    unknown = without - CONTEXT.keys()
    assert not unknown, f"no context chunk {sorted(unknown)}"
    return "".join(t for name, t in CONTEXT.items() if name not in without) + extra


def ruleset_for(kind: str, args: list[str], text: str) -> str:
    if kind == "whole":
        return text
    if kind == "decls":
        assert not args or args[0] == "without", args
        return context(set(args[1:])) + "\n" + text
    if kind == "statements":
        body = text
    elif kind == "expressions":
        body = "".join(f"let doc_x{i} = {ln.strip()}\n" for i, ln in enumerate(text.splitlines()) if ln.strip())
    else:
        raise AssertionError(f"unknown example kind {kind!r}")
    indented = "".join("        " + ln + "\n" for ln in body.splitlines())
    return context(set(), EFFECT_ORDER.replace("        # EXAMPLE\n", indented))


def error_codes(folder: Path, ruleset: str) -> tuple[list[str], str]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "docs.report.j2").write_text("Name {{ name }}\n", encoding="utf-8")
    # The report example of the docs names Covert's template, and shows its `cash`; a whole ruleset's
    # template shows nothing (its report fields are checked all the same).
    (folder / "covert.report.j2").write_text("Cash {{ cash }}\n", encoding="utf-8")
    for name in re.findall(r'(?:template|html) "([A-Za-z0-9_.-]+)"', ruleset):
        if not (folder / name).exists():
            (folder / name).write_text("", encoding="utf-8")
    path = folder / "docs.rules"
    path.write_text(ruleset, encoding="utf-8")
    checked = check_path(path)
    errors = [d for d in checked.diagnostics if d.severity == "error"]
    return [d.code for d in errors], show(errors)


def test_the_context_is_clean(tmp_path: Path) -> None:
    codes, shown = error_codes(tmp_path, ruleset_for("statements", [], ""))
    assert codes == [], shown


def test_every_block_has_a_marker() -> None:
    unmarked = [str(b) for b in ALL if b.marker is None]
    assert unmarked == [], "fenced blocks without <!-- example: KIND --> before them"


@pytest.mark.parametrize("block", ALL, ids=str)
def test_docs_example(block: Block, tmp_path: Path) -> None:
    assert block.marker is not None
    assert "<!-- example:" not in block.text, "a marker inside a block: it belongs before the fence"
    kind, *args = block.marker.split()
    if kind in ("template", "output", "yaml", "sh", "text"):
        return
    if kind in ("scenario", "scenario-error"):
        check_scenario(block, kind, args, tmp_path)
        return
    text = block.text
    if kind == "elided":
        assert "..." in text, "an elided example must show where it leaves lines out"
        if not args:
            return
        text = "".join(ln + "\n" for ln in text.splitlines() if ln.strip() != "...")
        text = text.replace(" { ... }", " { }").replace(", ...", "")
        assert "..." not in text, "only whole `...` lines, `{ ... }` and `, ...` can be taken out"
        kind, *args = args
    expected: list[str] = []
    if kind == "expect":
        expected = [args[0]]
        kind, *args = args[1:]
    if kind == "variant":
        codes, shown = variant_codes(tmp_path, text)
    else:
        codes, shown = error_codes(tmp_path, ruleset_for(kind, args, text))
    assert codes == expected, shown


def variant_codes(folder: Path, text: str) -> tuple[list[str], str]:
    """A variant written in rulesets/variants/ beside copies of the shipped rulesets and their templates."""
    for f in (ROOT / "rulesets").iterdir():
        if f.is_file():
            (folder / f.name).write_bytes(f.read_bytes())
    (folder / "variants").mkdir()
    path = folder / "variants" / "docs.rules"
    path.write_text(text, encoding="utf-8")
    errors = [d for d in check_path(path).diagnostics if d.severity == "error"]
    return [d.code for d in errors], show(errors)


TWO_PLAYERS = [{"name": "Ann", "account": "20408", "code": "A"}, {"name": "Bob", "account": "1001", "code": "B"}]


def check_scenario(block: Block, kind: str, args: list[str], tmp_path: Path) -> None:
    rules = ROOT / "rulesets" / f"{args[0]}.rules"
    if args[0] == "previous":
        before = [b for b in ALL[:ALL.index(block)] if b.file == block.file and b.marker == "whole"]
        assert before, "no whole ruleset before this scenario"
        error_codes(tmp_path / "rules", before[-1].text)  # writes it, with its template
        rules = tmp_path / "rules" / "docs.rules"
    scenario = tmp_path / "scenario.yaml"
    text = block.text
    if args[1:] == ["part"]:
        text += yaml.safe_dump({"players": TWO_PLAYERS})
    scenario.write_text(text, encoding="utf-8")
    if kind == "scenario":
        GameFolder.create(rules, tmp_path / "game", scenario, None)
        assert (tmp_path / "game" / "turns" / "turn-000" / "state.yaml").is_file()
        return
    following = ALL[ALL.index(block) + 1]
    assert following.file == block.file and following.marker == "output", "the refusal belongs in the next block"
    with pytest.raises(GameError) as refused:
        GameFolder.create(rules, tmp_path / "game", scenario, None)
    assert f"error: {refused.value}\n" == following.text
    assert not (tmp_path / "game").exists()


def test_a_fragment_with_a_mistake_gives_its_error(tmp_path: Path) -> None:
    # The context does not hide mistakes: §8's precedence example declared the wrong way round is E0421.
    wrong = 'order steal "PLAY {card} AT {target}" {\n  card: Card\n  target: Player\n}\n' \
            'order satellite "PLAY S4 AT {target}" {\n  target: Player\n}\n' \
            'phase stealing: run steal\nphase satellites: run satellite\n'
    assert error_codes(tmp_path, ruleset_for("decls", [], wrong))[0] == ["E0421"]
