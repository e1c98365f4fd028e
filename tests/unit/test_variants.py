"""Variants (rulesdsl/variants.py): what `extends`, `override` and `remove` leave of a base, which file each
diagnostic names, chains and cycles, the cache key, and a variant's game folder."""

from __future__ import annotations

import hashlib
from pathlib import Path

from rulesdsl import nodes as n
from rulesdsl.compiler import check_path, content_hash, read_source
from rulesdsl.diagnostics import render_text
from rulesdsl.game.folder import GameFolder
from rulesdsl.parser import parse
from rulesdsl.source import Source
from rulesdsl.variants import Loaded, load
from tests.unit.rulestools import ROOT

BASE = '''ruleset "Vassals" { turn "season" }

param levy: int = 2
param bonus: int = 1

thing Fief keyed by code {
  name: text
  peasants: int = 0
  holder: Player?
}
data Fief(code, name, peasants) {
  YRK: "York", 20
  LAN: "Lancaster", 15
  KNT: "Kent", 10
}
player {
  gold: money = 10
  fame: int = 0
}
orders {
  header "{account}", "{code}"
  at most 5 per turn
}
order tax "TAX {fief}" {
  fief: Fief
  effect {
    me.gold += money(fief.peasants div 5)
    fief.peasants -= min(fief.peasants, levy)
  }
}
order feast "FEAST" {
  effect {
    me.fame += bonus
  }
}
phase taxes: run tax
phase feasts: run feast
phase upkeep {
  for each f in Fief {
    f.peasants += 1
  }
}
report {
  gold = me.gold
  fame = me.fame
  template "base.report.j2"
}
thing Omen keyed by code {
  name: text
  near: set of Omen
}
data Omen(code, name) {
  COMET: "comet"
  ECLIPSE: "eclipse"
}
links Omen.near {
  COMET: ECLIPSE
}
'''

TEMPLATE = "{{ game.title }} {{ gold }} {{ fame }}\n"


def _files(tmp_path: Path, variant: str, base: str = BASE) -> Path:
    (tmp_path / "base").mkdir(exist_ok=True)
    (tmp_path / "base" / "vassals.rules").write_text(base, encoding="utf-8")
    (tmp_path / "base" / "base.report.j2").write_text(TEMPLATE, encoding="utf-8")
    (tmp_path / "v").mkdir(exist_ok=True)
    path = tmp_path / "v" / "quick.rules"
    path.write_text(variant, encoding="utf-8")
    return path


def _merged(path: Path) -> Loaded:
    source, _ = read_source(path, path.name)
    module, diags = parse(source)
    assert module is not None and not diags
    return load(path, source, module, read_source, parse)


def _decl(module: n.Module, kind: type[n.Decl], name: str) -> n.Decl:
    return next(d for d in module.decls if isinstance(d, kind) and d.name == name)


def test_override_replaces_in_place_merges_by_name_and_adds_after(tmp_path: Path) -> None:
    path = _files(tmp_path, '''extends "../base/vassals.rules"
override ruleset "Quick Vassals" { version "2" }
override param levy: int = 5
override phase taxes {
  for each f in Fief {
    f.peasants -= 1
  }
}
override player { gold: money = 30 }
override orders { at most 9 per turn }
override report { fame = me.fame * 2 }
override data Fief { LAN: "Lancashire", 16  WAL: "Wales", 8 }
remove data Fief KNT
remove order feast
remove phase feasts
remove param bonus
remove report field fame
remove thing Omen
phase tithes { }
''')
    loaded = _merged(path)
    assert not loaded.diagnostics
    m = loaded.module
    assert m is not None
    # Phases keep the base's order; the overridden one is the variant's, where the base wrote it.
    phases = [d for d in m.decls if isinstance(d, n.PhaseDecl)]
    assert [(p.name, p.span.file) for p in phases] == [
        ("taxes", "quick.rules"), ("upkeep", "../base/vassals.rules"), ("tithes", "quick.rules")]
    header = _decl(m, n.RulesetDecl, "Quick Vassals")
    assert isinstance(header, n.RulesetDecl)
    assert [(s.name, s.value) for s in header.settings] == [("turn", "season"), ("version", "2")]
    levy = _decl(m, n.ParamDecl, "levy")
    assert isinstance(levy, n.ParamDecl) and isinstance(levy.default, n.Number) and levy.default.value == 5
    # A thing removed takes its data rows and links with it.
    assert not [d for d in m.decls if d.name in ("bonus", "feast", "feasts", "Omen")]
    player = _decl(m, n.PlayerDecl, "Player")
    assert isinstance(player, n.PlayerDecl)
    assert [(f.name, f.span.file) for f in player.fields] == [("gold", "quick.rules"),
                                                               ("fame", "../base/vassals.rules")]
    orders = next(d for d in m.decls if isinstance(d, n.OrdersDecl))
    assert [(s.kind, s.span.file) for s in orders.settings] == [("header", "../base/vassals.rules"),
                                                                ("limit", "quick.rules")]
    report = next(d for d in m.decls if isinstance(d, n.ReportDecl))
    assert [f.name for f in report.fields] == ["gold"] and report.template == "base.report.j2"
    data = _decl(m, n.DataDecl, "Fief")
    assert isinstance(data, n.DataDecl)
    assert [(r.key, r.span.file) for r in data.rows] == [
        ("YRK", "../base/vassals.rules"), ("LAN", "quick.rules"), ("WAL", "quick.rules")]


def test_the_merged_program_checks_runs_and_names_the_base_file(tmp_path: Path) -> None:
    path = _files(tmp_path, '''extends "../base/vassals.rules"
remove param levy
''')
    checked = check_path(path)
    # The base's order reads the removed parameter: the error is the base's, shown with the base's line.
    errors = [d for d in checked.diagnostics if d.severity == "error"]
    assert [d.span.file for d in errors] == ["../base/vassals.rules"]
    text = render_text(checked.diagnostics, checked.sources)
    assert "../base/vassals.rules:28:41: error[E0309]: unknown name `levy`" in text
    assert "fief.peasants -= min(fief.peasants, levy)" in text


def test_a_plain_ruleset_is_left_as_parsed(tmp_path: Path) -> None:
    source = Source("vassals.rules", BASE)
    module, _ = parse(source)
    assert module is not None
    loaded = load(tmp_path / "vassals.rules", source, module, read_source, parse)
    assert loaded.module is module and not loaded.diagnostics


def test_a_chain_of_variants_and_a_cycle_through_two_files(tmp_path: Path) -> None:
    path = _files(tmp_path, '''extends "middle.rules"
override param levy: int = 7
''')
    (path.parent / "middle.rules").write_text('extends "../base/vassals.rules"\noverride param levy: int = 6\n'
                                              'param extra: int = 1\nphase spend { me_extra() }\n'
                                              'procedure me_extra() { for each f in Fief { f.peasants += extra } }\n',
                                              encoding="utf-8")
    checked = check_path(path)
    assert checked.ok, render_text(checked.diagnostics, checked.sources)
    assert sorted(checked.files) == ["../base/vassals.rules", "base.report.j2", "middle.rules", "quick.rules"]
    (path.parent / "middle.rules").write_text('extends "quick.rules"\n', encoding="utf-8")
    checked = check_path(path)
    assert [(d.code, d.span.file, d.message) for d in checked.diagnostics] == [
        ("E0441", "middle.rules", "`extends` makes a cycle: quick.rules extends middle.rules extends quick.rules")]


def test_the_cache_key_holds_the_base(tmp_path: Path) -> None:
    path = _files(tmp_path, 'extends "../base/vassals.rules"\n')
    before = content_hash(path)
    _files(tmp_path, 'extends "../base/vassals.rules"\n', BASE.replace("param bonus: int = 1", "param bonus: int = 2"))
    assert content_hash(path) != before
    # A ruleset of its own hashes as it always has (its file, then its templates by name), so that games
    # started before variants existed keep their compiled module.
    covert = ROOT / "rulesets" / "covert.rules"
    old = hashlib.sha256(covert.read_bytes())
    for name in (b"covert.report.html.j2", b"covert.report.j2"):
        old.update(name)
        old.update((covert.parent / name.decode()).read_bytes())
    assert content_hash(covert) == old.hexdigest()


def test_a_variant_game_keeps_its_bases_side_by_side_and_plays(tmp_path: Path) -> None:
    rules = ROOT / "rulesets" / "variants" / "covert-twice-weekly.rules"
    scenario = ROOT / "tests" / "golden" / "covert-twice-weekly" / "allowances" / "scenario.yaml"
    folder = GameFolder.create(rules, tmp_path / "game", scenario, None)
    assert sorted(p.name for p in (tmp_path / "game" / "rules").iterdir()) == [
        "covert-twice-weekly.rules", "covert.report.html.j2", "covert.report.j2", "covert.rules"]
    # In the game, `extends "../covert.rules"` finds the copy beside the variant.
    checked = check_path(folder.rules_path())
    assert checked.ok and checked.files["covert.rules"] == tmp_path / "game" / "rules" / "covert.rules"
    turn = ROOT / "tests" / "golden" / "covert-twice-weekly" / "allowances" / "turn-1"
    result = folder.process_turn(sorted(turn.glob("*.txt")), force=True)
    report = dict((p.stem, p) for _, p in result.reports)["202-industrialist"].read_text(encoding="utf-8")
    assert "Fixed income:      $17 million a turn" in report and "Cash on hand:      $43 million" in report


def test_the_editor_indexes_a_variants_own_declarations() -> None:
    from rulesdsl.editor.analysis import analyse

    path = ROOT / "rulesets" / "variants" / "nukecards-blitz.rules"
    a = analyse(path.read_text(encoding="utf-8"), path.name, path.parent)
    assert a.ok
    # An `override` is indexed as the declaration it holds, where the variant writes it.
    span = a.symbols["starting_population"].span
    assert span is not None and (span.file, span.line) == ("nukecards-blitz.rules", 19)
    assert a.symbols["last_round"].kind == "param"


def _turn_error(path: Path, scenario: dict[str, object]) -> str:
    """The error the first turn of a game of `path` stops with."""
    from rulesdsl.compiler import load_module
    from rulesdsl.runtime import state
    from rulesdsl.runtime.core import RulesError

    module, spec = load_module(path, cache=path.parent / "cache")
    g = state.new_game(spec, scenario, module.__file__ or "")
    try:
        g.process_turn([])
    except RulesError as exc:
        return str(exc)
    raise AssertionError("the turn did not fail")


def test_a_runtime_error_names_the_file_its_line_is_in(tmp_path: Path) -> None:
    base = BASE.replace("f.peasants += 1", "f.peasants += 10 div levy")
    scenario: dict[str, object] = {"players": [{"name": "Ann", "account": "1", "code": "A"}]}
    # The base's phase divides by a parameter the variant sets to 0: the base's file and line.
    path = _files(tmp_path, 'extends "../base/vassals.rules"\noverride param levy: int = 0\n', base)
    assert _turn_error(path, scenario).startswith("../base/vassals.rules:40: division by zero (in phase upkeep")
    # A phase of the variant's own, after the base's: the variant's file and line.
    path = _files(tmp_path, 'extends "../base/vassals.rules"\n\nphase ruin {\n  for each f in Fief {\n'
                            '    f.peasants += 1 div (f.peasants - f.peasants)\n  }\n}\n', base)
    assert _turn_error(path, scenario).startswith("quick.rules:5: division by zero (in phase ruin")
