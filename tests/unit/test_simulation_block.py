"""`simulation { ... }` -> its AST, the SimulationSpec of the compiled module (called on real games made from
scenarios), its place in variants, `rulesdsl fmt` and the rulebook."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from rulesdsl import nodes as n
from rulesdsl.compiler import check_path, compile_path, load_module
from rulesdsl.fmt import format_text
from rulesdsl.parser import parse
from rulesdsl.rulebook import build, markdown
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.spec import RulesetSpec
from rulesdsl.runtime.state import new_game
from rulesdsl.source import Source
from tests.unit.rulestools import BASE, ROOT, RULESETS, check_text, load_text, show, write_ruleset

BLOCK = """simulation {
  # why
  weight put 3
  weight resign -2
  choose put.box from [b for b in Box where b.owner[me] > 0]
  invariant kept: sum(b.stones for b in Box) unchanged
  invariant rich: all(p.cash >= 0 for p in all_players)
  hidden p.cash from q
  hidden b.owner[p] for b in Box from q unless b.owner[q] >= 4 * b.owner[p]
}
"""


def test_the_block_parses_into_its_entries_with_their_spans() -> None:
    module, errors = parse(Source("t.rules", BLOCK))
    assert module is not None and errors == []
    [block] = module.decls
    assert isinstance(block, n.SimulationDecl) and block.name == "simulation"
    assert (block.span.line, block.span.end_line) == (1, 10)
    weight, negative, choose, kept, rich, cash, owner = block.items
    assert isinstance(weight, n.SimWeight) and (weight.order, weight.weight) == ("put", 3)
    assert (weight.order_span.line, weight.order_span.col) == (3, 10)
    assert isinstance(negative, n.SimWeight) and negative.weight == -2 and negative.weight_span.col == 17
    assert isinstance(choose, n.SimChoose) and (choose.order, choose.arg) == ("put", "box")
    assert (choose.arg_span.line, choose.arg_span.col) == (5, 14)
    assert isinstance(choose.options, n.Comprehension)
    assert isinstance(kept, n.SimInvariant) and kept.unchanged and kept.name == "kept"
    assert isinstance(rich, n.SimInvariant) and not rich.unchanged
    assert isinstance(cash, n.SimHidden) and cash.thing is None and cash.unless is None
    assert (cash.owner[0], cash.field[0], cash.viewer[0]) == ("p", "cash", "q")
    assert isinstance(owner, n.SimHidden) and owner.thing is not None and owner.thing[0] == "Box"
    assert owner.obj is not None and owner.var is not None and owner.obj[0] == owner.var[0] == "b"
    assert (owner.obj[1].col, owner.var[1].col) == (10, 25)
    assert isinstance(owner.unless, n.BinOp) and owner.unless.op == ">="


def test_the_new_keywords_still_name_fields_and_locals(tmp_path: Path) -> None:
    # `hidden` is a field of WCG's forces, `weight` a field elsewhere: a keyword before `:` is a name.
    text = BASE.replace("  moves: int = 0\n", "  moves: int = 0\n  hidden: bool = false\n  weight: int = 0\n", 1)
    text += "phase q {\n  let choose = 1\n  for each p in players {\n    p.weight += choose\n  }\n}\n"
    checked = check_text(tmp_path, text)
    assert checked.ok and not checked.diagnostics, show(checked.diagnostics)


# ---------------------------------------------------------------- the spec, on real games


@pytest.fixture(scope="module")
def covert(tmp_path_factory: pytest.TempPathFactory) -> RulesetSpec:
    return load_module(RULESETS / "covert.rules", tmp_path_factory.mktemp("cache"))[1]


def _game(spec: RulesetSpec, scenario: str) -> Game:
    return new_game(spec, yaml.safe_load((ROOT / scenario).read_text(encoding="utf-8")))


def _covert_game(spec: RulesetSpec) -> Game:
    """Three players: the Gnomes (no cash) lead Spain and Micronesia; Hydra ($60) and Octopus ($30) nothing."""
    return _game(spec, "tests/golden/covert/economy/scenario.yaml")


def test_covert_spec_holds_its_weights_choices_invariants_and_hidden_facts(covert: RulesetSpec) -> None:
    sim = covert.simulation
    assert dict(sim.weights)["resign"] == 0 and dict(sim.weights)["bribe"] > 1
    assert ("bribe", "country") in {(c.order, c.arg) for c in sim.choices}
    assert all(c.line > 0 for c in sim.choices)
    assert {i.name for i in sim.invariants} >= {"no_debt", "same_map"}
    assert [i.unchanged for i in sim.invariants if i.name == "same_map"] == [True]
    hidden = {(h.thing, h.field): h for h in sim.hidden}
    assert hidden[("", "cash")].type == ("money",) and not hidden[("", "cash")].keyed
    assert hidden[("", "cash")].unless is None
    spy = hidden[("Country", "spy")]
    assert spy.keyed and spy.type == ("int",) and spy.attr == "spy" and spy.unless is not None
    assert hidden[("", "superspy")].type == ("opt", ("thing", "Country"))


def test_an_invariant_is_true_on_a_new_game_and_false_when_broken(covert: RulesetSpec) -> None:
    g = _covert_game(covert)
    sim = covert.simulation
    no_debt = next(i for i in sim.invariants if i.name == "no_debt")
    assert no_debt.value(g) is True
    g.all_players[1].cash = -1
    assert no_debt.value(g) is False


def test_an_unchanged_invariant_gives_the_value_watched(covert: RulesetSpec) -> None:
    g = _covert_game(covert)
    same_map = next(i for i in covert.simulation.invariants if i.name == "same_map")
    start = same_map.value(g)
    assert start == sum(len(c.adjacent) for c in g.all["Country"]) > 0
    spa = next(c for c in g.all["Country"] if c._key == "SPA")
    spa.adjacent.append(spa)
    assert same_map.value(g) == start + 1


def test_a_choice_gives_the_options_for_the_writing_player(covert: RulesetSpec) -> None:
    g = _covert_game(covert)
    bribe = next(c for c in covert.simulation.choices if (c.order, c.arg) == ("bribe", "country"))
    gnomes, hydra = g.all_players[0], g.all_players[1]
    # The Gnomes have influence in Spain and Micronesia: those and Spain's neighbours, never elsewhere.
    mine = {c._key for c in bribe.options(g, gnomes)}
    assert {"SPA", "MIC"} <= mine < {c._key for c in g.all["Country"]}
    assert "CHN" not in mine
    # Hydra has none yet: any country.
    assert len(bribe.options(g, hydra)) == len(g.all["Country"])
    cash = next(c for c in covert.simulation.choices if (c.order, c.arg) == ("bribe", "cash"))
    assert cash.options(g, gnomes) == []  # no cash, no bribe written
    assert cash.options(g, hydra) == [1, 2, 7, 15]  # $1, $2, an eighth and a quarter of $60


def test_an_unless_reads_the_state_the_owner_the_viewer_and_the_thing(covert: RulesetSpec) -> None:
    g = _covert_game(covert)
    hidden = {(h.thing, h.field): h for h in covert.simulation.hidden}
    spy, superspy = hidden[("Country", "spy")], hidden[("", "superspy")]
    assert spy.unless is not None and superspy.unless is not None
    gnomes, hydra, octopus = g.all_players
    spa = next(c for c in g.all["Country"] if c._key == "SPA")
    spa.spy = {gnomes._key: 3, hydra._key: 12}
    assert spy.unless(g, spa, gnomes, hydra) is True  # 12 >= 4 * 3: Hydra's spy sees the Gnomes'
    assert spy.unless(g, spa, hydra, gnomes) is False
    assert spy.unless(g, spa, gnomes, octopus) is False  # no spy there
    octopus.superspy = spa
    assert spy.unless(g, spa, gnomes, octopus) is True
    assert superspy.unless(g, None, gnomes, octopus) is False
    gnomes.superspy = spa
    assert superspy.unless(g, None, gnomes, octopus) is True


def test_nukecards_hides_what_only_the_spy_satellite_shows(tmp_path: Path) -> None:
    _, spec = load_module(RULESETS / "nukecards.rules", tmp_path / "cache")
    g = _game(spec, "examples/nukecards/scenario.yaml")
    picked = next(h for h in spec.simulation.hidden if h.field == "picked")
    assert picked.type == ("opt", ("thing", "Card")) and picked.unless is not None
    a, b = g.all_players[0], g.all_players[1]
    assert picked.unless(g, None, a, b) is False
    b.idle.append(next(c for c in g.all["Card"] if c._key == "S9"))
    assert picked.unless(g, None, a, b) is True
    kept = next(i for i in spec.simulation.invariants if i.name == "same_players")
    assert kept.unchanged and kept.value(g) == len(g.all_players)


SNAPSHOT = BASE.replace("  moves: int = 0\n", "  moves: int = 0\n  marks: list of int\n  tags: set of text\n", 1) + """
simulation {
  invariant first_marks: all_players[0].marks unchanged
  invariant first_tags: all_players[0].tags unchanged
}
"""


def test_an_unchanged_list_is_kept_as_a_copy_and_a_set_in_one_order(tmp_path: Path) -> None:
    loaded = load_text(tmp_path / "rules", SNAPSHOT, "{{ cash }}\n", "t", tmp_path / "cache")
    g = loaded.new_game()
    ann = g.all_players[0]
    ann.marks, ann.tags = [1, 2], ["b", "a"]
    watched = {i.name: i for i in loaded.spec.simulation.invariants}
    marks, tags = watched["first_marks"].value(g), watched["first_tags"].value(g)
    ann.marks.append(3)
    assert marks == [1, 2]  # what the start was, not the list the turn changed in place
    ann.tags = ["a", "b"]
    assert watched["first_tags"].value(g) == tags  # the same set, added in another order


def test_a_ruleset_without_the_block_has_an_empty_spec(tmp_path: Path) -> None:
    loaded = load_text(tmp_path / "rules", BASE, "{{ cash }}\n", "t", tmp_path / "cache")
    sim = loaded.spec.simulation
    assert (sim.weights, sim.choices, sim.invariants, sim.hidden) == ((), (), (), ())
    assert "SimulationSpec" not in Path(loaded.module.__file__ or "").read_text(encoding="utf-8")


# ---------------------------------------------------------------- variants


def _variant(tmp_path: Path, body: str) -> Path:
    """A variant of the shipped Covert, written in `tmp_path`."""
    base = os.path.relpath(RULESETS / "covert.rules", tmp_path)
    path = tmp_path / "v.rules"
    path.write_text(f'extends "{base}"\n\n' + body, encoding="utf-8")
    return path


def test_a_variant_keeps_its_bases_block() -> None:
    checked = check_path(RULESETS / "variants" / "nukecards-blitz.rules")
    assert checked.program is not None and checked.program.simulation is not None
    assert {h.field for h in checked.program.simulation.hidden} >= {"hand", "picked"}


def test_a_variants_module_marks_its_bases_simulation_functions_with_the_bases_file() -> None:
    lines = compile_path(RULESETS / "variants" / "nukecards-blitz.rules").splitlines()
    marks = [lines[i - 1] for i, line in enumerate(lines) if line.startswith("def sim_")]
    assert marks and all(m.startswith("# ../nukecards.rules:") for m in marks), marks


def test_override_simulation_replaces_the_bases_block_whole(tmp_path: Path) -> None:
    checked = check_path(_variant(tmp_path, "override simulation {\n  weight spy 5\n}\n"))
    assert checked.ok, show(checked.diagnostics)
    assert checked.program is not None and checked.program.simulation is not None
    sim = checked.program.simulation
    assert sim.weights == (("spy", 5),) and sim.choices == () and sim.invariants == () and sim.hidden == ()


def test_an_empty_override_leaves_a_variant_without_guidance_or_checks(tmp_path: Path) -> None:
    checked = check_path(_variant(tmp_path, "override simulation {\n}\n"))
    assert checked.ok and checked.program is not None and checked.program.simulation is not None
    sim = checked.program.simulation
    assert (sim.weights, sim.choices, sim.invariants, sim.hidden) == ((), (), (), ())


def test_a_second_block_in_a_variant_needs_override(tmp_path: Path) -> None:
    checked = check_path(_variant(tmp_path, "simulation {\n  weight spy 5\n}\n"))
    assert [d.code for d in checked.diagnostics] == ["E0442"], show(checked.diagnostics)
    assert "override simulation" in (checked.diagnostics[0].help or "")


def test_removing_an_order_takes_its_weight_and_choices_with_it(tmp_path: Path) -> None:
    checked = check_path(_variant(tmp_path, "remove order guard\nremove phase guard\n"))
    assert checked.ok, show(checked.diagnostics)
    assert checked.program is not None and checked.program.simulation is not None
    sim = checked.program.simulation
    assert "guard" not in dict(sim.weights) and all(c.order != "guard" for c in sim.choices)
    assert dict(sim.weights)["bribe"] > 1


# ---------------------------------------------------------------- fmt and the rulebook


def test_fmt_lays_the_block_out_and_keeps_a_weights_sign() -> None:
    messy = "simulation {\n    weight   put -2\n choose put.box from [b for b in Box]\n}\n"
    tidy = format_text(messy)
    assert tidy == "simulation {\n  weight put -2\n  choose put.box from [b for b in Box]\n}\n"
    assert format_text(tidy) == tidy


def test_the_rulebook_leaves_the_block_and_its_notes_out(tmp_path: Path) -> None:
    text = BASE + ("# Designer's note: the boxes fill up slowly.\nphase refill {\n  for each b in Box {\n"
                   "    b.stones += 1\n  }\n}\n\n# Designer's note: random players put often.\nsimulation {\n"
                   "  # Designer's note: a note inside the block.\n  weight put 3\n}\n")
    checked = check_path(write_ruleset(tmp_path, text))
    assert checked.ok and checked.program is not None, show(checked.diagnostics)
    book = markdown(build(checked.program, checked.sources))
    assert "the boxes fill up slowly" in book
    assert "random players" not in book and "inside the block" not in book and "simulation" not in book.lower()


@pytest.mark.parametrize("name", ["covert", "nukecards"])
def test_the_shipped_blocks_check_clean(name: str) -> None:
    checked = check_path(RULESETS / f"{name}.rules")
    assert checked.ok and not checked.diagnostics, show(checked.diagnostics)
    assert checked.program is not None and checked.program.simulation is not None
