"""Checker: one case per diagnostic code, every mistake of a file in one run, sorted, and JSON output."""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import pytest

from rulesdsl.cli import main
from rulesdsl.diagnostics import Diagnostic
from tests.unit.rulestools import BASE, BASE_LINES, BASE_TEMPLATE, ROOT, check_text, marked_line, show


@dataclass(frozen=True)
class Case:
    code: str
    text: str  # the whole ruleset; the line of the diagnostic carries the comment `#!`
    template: str = BASE_TEMPLATE
    template_line: int = 0  # for diagnostics in the template: their line there
    hint: str | None = None  # a text the diagnostic's help must hold


# Phases that use `f`, `t` and `w`, so that no case also warns of an unused function or table.
USE_F = "phase q { for each b in Box { let v = f(b) } }\n"
USE_T = "phase q { for each b in Box { let v = t(b) } }\n"
USE_W = 'phase q { let v = draw(w, "w") }\n'
# An order group for the `orders` block of BASE, in place of its `pay from cash` line; in COUNTED, `put` counts as it.
GROUP = '  pay from cash\n  at most 1 heavy per turn else "one heavy order a turn"\n'
COUNTED = BASE.replace("  pay from cash\n", GROUP, 1).replace("  cost money(n)\n",
                                                               "  cost money(n)\n  counts as heavy\n", 1)
# A grid for the grid cases: GRID_AT is where its lines go (a case puts its mistake into them).
GRID = ('thing Ter keyed by code {\n  symbol: text\n}\ndata Ter(code, symbol) { L: "."  S: "~" }\n'
        'grid Sec {\n  size 4 by 3\n  numbered "CR"\n  draw t with symbol\n  t: Ter = Ter.S\n}\n')
USE_SEC = "phase q { for each s in Sec { let v = s.t } }\n"


def grid(old: str, new: str, code: str, hint: str | None = None, extra: str = USE_SEC) -> Case:
    assert old in GRID, old
    return Case(code, BASE + GRID.replace(old, new, 1) + extra, hint=hint)


def add(extra: str, code: str, hint: str | None = None) -> Case:
    return Case(code, BASE + extra, hint=hint)


def edit(old: str, new: str, code: str, hint: str | None = None) -> Case:
    assert old in BASE, old
    return Case(code, BASE.replace(old, new, 1), hint=hint)


def report_field(line: str, code: str, extra: str = "", hint: str | None = None) -> Case:
    return Case(code, BASE.replace("  cash = me.cash\n", f"  cash = me.cash\n  {line}  #!\n", 1) + extra, hint=hint)


def template(text: str, code: str, line: int = 1, hint: str | None = None) -> Case:
    return Case(code, BASE, template=text, template_line=line, hint=hint)


CAL = "calendar {\n  starts 1901 S\n  kinds a, b, c\n  cycle {\n    S: a, b\n    F: a\n    W: c\n  }\n}\n"

CASES: dict[str, Case] = {
    # ------------------------------------------------------------ names, types, declarations
    "E0201-unknown-type": add("define f(b: Bx) -> int = 1  #!\n" + USE_F, "E0201",
                              "did you mean `Box`?"),
    "E0227-map-key": Case("E0227", BASE + "thing Bag keyed by code { m: int -> int }  #!\n"
                                          "data Bag(code, m) { X: 1 }\n"),
    "E0228-thing-field-without-default": add("thing Pad keyed by code {\n ref: Box  #!\n}\n"
                                             "data Pad(code, ref) { X: A }\n", "E0228"),
    "E0202-reserved-thing": add("thing turn keyed by code { name: text }  #!\n", "E0202"),
    "E0202-reserved-param": add('param turn: int = 1  #!\nphase q { news "{turn}" }\n', "E0202"),
    "E0202-underscore-param": add('param _x: int = 1  #!\nphase q { news "{_x}" }\n', "E0202"),
    "E0203-param": add('param dup: int = 1\nparam dup: int = 2  #!\nphase q { news "{dup}" }\n', "E0203"),
    "E0203-function": add("define f() -> int = 1\ndefine f() -> int = 2  #!\nphase q { let v = f() }\n", "E0203"),
    "E0203-order": add('order put "Q"  #!\n{ }\n', "E0203"),
    "E0203-phase": add('phase putting { news "again" }  #!\n', "E0203"),
    "E0203-header": add('ruleset "U" { version "1" }  #!\n', "E0203"),
    "E0203-player": add("player { more: int }  #!\n", "E0203"),
    "E0203-field": edit("  moves: int = 0\n", "  moves: int = 0\n  moves: int = 1  #!\n", "E0203"),
    "E0204": edit('ruleset "T" { version "1" turn "turn" }\n', "# no header\nthing Box2  #!\n keyed by code { }\n",
                  "E0204"),
    "E0205": edit('ruleset "T" { version "1" turn "turn" }', 'ruleset "T" { version 1 turn "turn" }  #!', "E0205"),
    "E0206": add('param q: int = "x"  #!\nphase q { news "{q}" }\n', "E0206"),
    "E0207-data-key": add("links Box.near { A: C }  #!\n", "E0207"),
    "E0208": add("param q: list of int = [1]  #!\nphase q { let v = q }\n", "E0208"),
    "E0209": add("data Crate(code, name)  #!\n{ X: \"x\" }\n", "E0209"),
    "E0210": add('thing Crate keyed by code { name: text }\ndata Crate(name, code)  #!\n{ X: "x" }\n', "E0210"),
    "E0211": add('thing Crate keyed by code { name: text }\ndata Crate(code, nmae)  #!\n{ X: "x" }\n', "E0211",
                 "did you mean `name`?"),
    "E0212": add('thing Crate keyed by code { name: text }\ndata Crate(code, name) {\n X: "x"\n X: "y"  #!\n}\n',
                 "E0212"),
    "E0213": add('thing Crate keyed by code { name: text }\ndata Crate(code, name) {\n X: "x", 3  #!\n}\n',
                 "E0213"),
    "E0214": add("links Box.stones  #!\n{ A: B }\n", "E0214"),
    "E0215": add("links Box.near { A: A }  #!\n", "E0215"),
    "E0202-world-thing": add("thing world keyed by code { name: text }  #!\n", "E0202"),
    "E0203-world": add("world { round: int = 0 }\nworld { more: int }  #!\nphase q { world.round += 1 }\n", "E0203"),
    "E0203-world-field": add("world {\n round: int = 0\n round: int = 1  #!\n}\nphase q { world.round += 1 }\n",
                             "E0203"),
    "E0228-world-field": add("world {\n top: Box  #!\n}\n", "E0228"),
    "E0229-scenario-field-with-default": edit("  moves: int = 0\n",
                                              "  moves: int = 0\n  home: Box from scenario = Box.A  #!\n",
                                              "E0229", "remove the default"),
    "E0207-instance": add("define f() -> Box = Box.AA  #!\nphase q { let v = f() }\n", "E0207", "did you mean `A`?"),
    "E0207-instance-in-data": add("thing Pad keyed by code { ref: Box? }\ndata Pad(code, ref) {\n X: Box.Z  #!\n}\n",
                                  "E0207"),
    # ------------------------------------------------------------ tables
    "E0216": add("table t -> int { 1: 2 }  #!\n", "E0216"),
    "E0217": add("table t(x: int) -> int {\n 1, 2: 3  #!\n}\nphase q { let v = t(1) }\n", "E0217"),
    "E0218": add("table t(x: int) -> int {\n 1: 2\n 1: 3  #!\n}\nphase q { let v = t(1) }\n", "E0218"),
    "E0219": add("table t(b: Box) -> int { A: 1 }  #!\n" + USE_T, "E0219"),
    "E0220-not-a-chance": add('table w -> int weighted {\n 50%: 1\n 50%: 2\n 3: 4  #!\n}\n' + USE_W,
                              "E0220"),
    "E0220-zero": add('table w -> int weighted {\n 0%: 1  #!\n 100%: 2\n}\n' + USE_W,
                      "E0220"),
    "E0221-short": add('table w -> int weighted {  #!\n 50%: 1\n 40%: 2\n}\n' + USE_W,
                       "E0221", "add 10%"),
    "E0221-over": add('table w -> int weighted {  #!\n 60%: 1\n 50%: 2\n}\n' + USE_W,
                      "E0221", "remove 10%"),
    "E0221-thirds": add('table w -> int weighted {  #!\n 33.3%: 1\n 33.3%: 2\n 33.3%: 3\n}\n' + USE_W,
                        "E0221", "add 0.1%"),
    "E0222": add("table t(b: Box) -> int {  #!\n below 1: 1\n from 1: 2\n}\n" + USE_T, "E0222"),
    "E0223": add("table t(x: int) -> int {\n below 1: 0\n 5 to 3: 1  #!\n from 6: 2\n}\nphase q { let v = t(1) }\n",
                 "E0223"),
    "E0224-int": add("table t(x: int) -> int {\n below 1: 0\n 1 to 3: 1\n 3 to 5: 2  #!\n from 6: 3\n}\n"
                     "phase q { let v = t(1) }\n", "E0224"),
    "E0224-decimal": add("table t(x: decimal) -> int {\n below 1: 0\n 1 to 2: 1\n from 2: 2  #!\n}\n"
                         "phase q { let v = t(1) }\n", "E0224"),
    "E0225-int": add("table t(x: int) -> int {\n below 1: 0\n 1 to 3: 1\n from 5: 2  #!\n}\n"
                     "phase q { let v = t(1) }\n", "E0225"),
    "E0225-decimal": add("table t(x: decimal) -> int {\n below 1.5: 0\n from 2: 2  #!\n}\n"
                         "phase q { let v = t(1) }\n", "E0225"),
    "E0226": add("table t(x: int) -> int {\n below 1: 0\n 1 to 3: 1\n 2: 2  #!\n from 4: 3\n}\n"
                 "phase q { let v = t(1) }\n", "E0226"),
    "E0226-two-rows": add("table t(x: decimal) -> int {\n below 1: 0\n from 1 below 2: 1\n from 2: 2\n"
                          " 1.5 to 2.5: 3  #!\n}\nphase q { let v = t(1) }\n", "E0226"),
    # ------------------------------------------------------------ expressions and statements
    "E0301-money-for-int": add("phase q { for each b in Box { b.stones = money(3) } }  #!\n", "E0301",
                               "money and counts do not mix"),
    "E0301-int-for-money": add("define f(b: Box) -> money = b.stones  #!\n" + USE_F, "E0301",
                               "money and counts do not mix"),
    "E0302": add("phase q { for each b in Box { b.name = -b.name } }  #!\n", "E0302"),
    "E0303": add('define f(b: Box) -> int = if b.stones > 1 then 1 else "x"  #!\n' + USE_F,
                 "E0303"),
    "E0304": add("define f() = {a: 1, a: 2}  #!\nphase q { let v = f() }\n", "E0304"),
    "E0305": add('phase q { news "{[1, 2]}" }  #!\n', "E0305"),
    "E0306-function": add("define f() -> text = me.name  #!\nphase q { let v = f() }\n", "E0306"),
    "E0306-phase": add('phase q { news "{me.name}" }  #!\n', "E0306"),
    "E0306-procedure": add("procedure pr() { me.cash += money(1) }  #!\nphase q { pr() }\n", "E0306"),
    "E0307-direct": report_field("h = hidden", "E0307", "secret param hidden: int = 3\n"),
    "E0307-via-function": report_field("h = shown()", "E0307", "secret param hidden: int = 3\n"
                                       "define shown() -> int = sum(b.stones for b in Box) + hidden\n"),
    "E0307-via-two-functions": report_field("h = outer()", "E0307", "secret param hidden: int = 3\n"
                                            "define inner() -> int = hidden * 2\n"
                                            "define outer() -> int = inner() + 1\n"),
    "E0307-in-text": report_field('h = "{shown()} stones"', "E0307", "secret param hidden: int = 3\n"
                                  "define shown() -> int = sum(b.stones for b in Box) + hidden\n"),
    "E0307-in-comprehension": report_field("h = [b.stones * hidden for b in Box]", "E0307",
                                           "secret param hidden: int = 3\n"),
    "E0308": add("table t(x: int) -> int { 1: 2 }\nphase q { let v = t + 1 }  #!\n", "E0308"),
    "E0309-local": add("phase q {\n let alpha = 1\n let v = alpah  #!\n}\n", "E0309", "did you mean `alpha`?"),
    "E0309-param": add("param alpha: int = 1\nphase q { let v = alpah }  #!\n", "E0309", "did you mean `alpha`?"),
    "E0310": add("thing Pad keyed by code { boss: Player? }\ndata Pad(code, boss) { X: none }\n"
                 "define f(c: Pad) -> text = c.boss.name  #!\n"
                 "phase q { for each c in Pad { let v = f(c) } }\n", "E0310"),
    "E0311": add("define f(b: Box) -> int = b.stonse  #!\n" + USE_F, "E0311",
                 "did you mean `stones`?"),
    "E0312": add("define f(b: Box) -> int = b.stones[1]  #!\n" + USE_F, "E0312"),
    "E0313": add('table w -> int weighted { 50%: 1\n 50%: 2 }\nphase q { let v = w(1) }  #!\n', "E0313"),
    "E0314": add("table t(x: int) -> int { 1: 2 }\nphase q { let v = t(1, 2) }  #!\n", "E0314"),
    "E0315": add("phase q { for each b in Box { let v = b.stones == b.name } }  #!\n", "E0315"),
    "E0316": add("phase q { for each b in Box { let v = size(b.stones) } }  #!\n", "E0316"),
    "E0316-join": add('phase q { for each b in Box { let v = join(b.stones, "+") } }  #!\n', "E0316"),
    "E0301-join": add('phase q { let v = join([b.stones for b in Box], "+") }  #!\n', "E0301",
                      "make the texts first"),
    "E0317-money-plus-int": add("phase q { for each b in Box { let v = b.stones + money(1) } }  #!\n", "E0317"),
    "E0318": add("procedure pr(b: Box) { b.stones = 1 }\nphase q {\n for each b in Box { let v = pr(b) }  #!\n}\n",
                 "E0318"),
    "E0319": add("phase q { let v = orders(1) }  #!\n", "E0319"),
    "E0320-orders": add("phase q { let v = orders(putt) }  #!\n", "E0320", "did you mean `put`?"),
    "E0320-run": add("phase q: run putt  #!\n", "E0320", "did you mean `put`?"),
    "E0321-function": add("phase q { let v = sizee([1]) }  #!\n", "E0321", "did you mean `size`?"),
    "E0321-procedure": add("phase q { frob(1) }  #!\n", "E0321"),
    "E0322-builtin": add("phase q { let v = max(1) }  #!\n", "E0322"),
    "E0322-function": add("define g(x: int) -> int = x\nphase q { let v = g(1, 2) }  #!\n", "E0322"),
    "E0322-procedure": add("procedure pr(b: Box) { b.stones = 1 }\nphase q { pr() }  #!\n", "E0322"),
    "E0323": add("define f(x: int) = f(x)  #!\nphase q { let v = f(1) }\n", "E0323"),
    "E0324": add('define f() -> bool = chance(50, "x")  #!\nphase q { let v = f() }\n', "E0324"),
    "E0325": add('phase q { if chance(50) { news "x" } }  #!\n', "E0325"),
    "E0326": add('table t(x: int) -> int { 1: 2 }\nphase q { let v = draw(t, "x") }  #!\n', "E0326"),
    "E0327": add("phase q { let v = size(b for b in Box) }  #!\n", "E0327"),
    "E0328": add("phase q { let v = sorted(b for b in Box by b.near) }  #!\n", "E0328"),
    "E0329": add("phase q { let v = best(b for b in Box) }  #!\n", "E0329"),
    "E0330": add("phase q { let Box = 1 }  #!\n", "E0330"),
    "E0330-world": add("phase q { let world = 1 }  #!\n", "E0330"),
    "E0331": add("phase q { let x = none }  #!\n", "E0331"),
    "E0332": add("define g() -> int = 1\nphase q { g() }  #!\n", "E0332"),
    "E0333": add("procedure pr() { run put }  #!\nphase q { pr() }\n", "E0333"),
    "E0334": add('phase q { fail "no" }  #!\n', "E0334"),
    "E0375": add('phase q {\n  for each p in players { overrule p "no" }  #!\n}\n', "E0375", hint="orders(KIND)"),
    "E0335": add("phase q { x = 1 }  #!\n", "E0335"),
    "E0335-instance": add("phase q { Box.A = Box.B }  #!\n", "E0335"),
    "E0337": add("world { round: int = 0 }\nphase q { let v = world }  #!\n", "E0337", "world.round"),
    "E0311-world-field": add("world { round: int = 0 }\nphase q { world.rund += 1 }  #!\n", "E0311",
                             "did you mean `round`?"),
    "E0311-no-world": add("phase q { world.round += 1 }  #!\n", "E0311", "world { round: TYPE }"),
    "E0316-remove": add("phase q { for each b in Box { remove 1 from b.stones } }  #!\n", "E0316"),
    "E0301-remove": add('phase q { for each b in Box { remove "A" from b.near } }  #!\n', "E0301"),
    "E0336": add('phase q { for each b in Box { b.code = "Z" } }  #!\n', "E0336"),
    "E0339": add("table t(x: int) -> int { 1: 2, 2: 3 }\nphase q { let v = t(3) }  #!\n", "E0339"),
    "E0339-range": add("table t(x: int) -> int { 0 to 4: 1, 5 to 9: 2 }\nphase q { let v = t[12] }  #!\n", "E0339"),
    "E0339-text": add('table t(x: text) -> int { "a": 1 }\ndefine f() -> int = t("A")  #!\nphase q { let v = f() }\n',
                      "E0339"),
    "E0340": add("phase q { for each b in Box { let v = [b][-1] } }  #!\n", "E0340", "size(L) - 1"),
    "E0341": add("phase q { for each i in 1..9 by i descending { news \"{i}\" } }  #!\n", "E0341", "`10 - i`"),
    "E0230-grid-twice": add(GRID + 'grid Sea {  #!\n  size 2 by 2\n  numbered "CR"\n}\n' + USE_SEC, "E0230"),
    "E0231-grid-data": add(GRID + "data Sec(t) { a: L }  #!\n" + USE_SEC, "E0231"),
    "E0232-grid-size": grid("  size 4 by 3\n", "  size 0 by 3  #!\n", "E0232", "1 or more"),
    "E0232-grid-size-param": grid("  size 4 by 3\n", "  size wide by 3  #!\n", "E0232", "declare it"),
    "E0233-grid-wrap": grid("  numbered", "  wrap east south  #!\n  numbered", "E0233", "wrap east west"),
    "E0234-grid-numbered": grid('  numbered "CR"\n', '  numbered "C1R"  #!\n', "E0234"),
    "E0235-grid-numbered-room": Case("E0235", BASE + GRID.replace("  size 4 by 3\n", "  size 40 by 3\n").replace(
        '  numbered "CR"\n', '  numbered "CR"  #!\n') + USE_SEC, hint="one more `C`"),
    "E0236-grid-draw": grid("  draw t with symbol\n", "  draw t with name  #!\n", "E0236"),
    "E0237-grid-symbol": Case("E0237", BASE + GRID.replace('L: "."  S: "~" }', 'L: "."  S: "~"\n  W: "~"  #!\n}')
                              + USE_SEC, hint="its own character"),
    "E0238-no-grid": add("phase q { for each b in Box { let v = distance(b, b) } }  #!\n", "E0238"),
    "E0239-sector-name": add(GRID + "phase q { let v = Sec.a1 }  #!\n", "E0239", "sector_at"),
    "E0342-path-cost": add(GRID + "phase q { for each s in Sec { let v = path(x.t for x from s to s) } }  #!\n",
                           "E0342"),
    "E0342-not-path": add(GRID + "phase q { for each s in Sec { let v = route(1 for x from s to s) } }  #!\n",
                          "E0342", "path(COST for x from A to B)"),
    "E0360-path-within-text": add(GRID + 'phase q { for each s in Sec { let v = path(1 for x from s to s within "far") '
                                  '} }  #!\n', "E0360", "within 20"),
    "E0361-path-within-zero": add(GRID + "phase q { for each s in Sec { let v = path(1 for x from s to s within 0) "
                                  "} }  #!\n", "E0361", "1 or more steps"),
    "W0211-path-cost-same": add(GRID + "phase q { for each s in Sec { let v = path(if s.t == Ter.L then 1 else none "
                                "for x from s to s) } }  #!\n", "W0211", "price the sector entered"),
    "E0350-reachable-call": add(GRID + "phase q { for each s in Sec { let v = reachable(s, s) } }  #!\n", "E0350",
                                "reachable(x for x from home"),
    "E0350-not-reachable": add(GRID + "phase q { for each s in Sec { let v = flood(x for x from s where x.t == Ter.L) "
                               "} }  #!\n", "E0350", "reachable(x for x from SEEDS where COND)"),
    "E0350-reachable-to": add(GRID + "phase q { for each s in Sec { let v = reachable(x for x from s to s) } }  #!\n",
                              "E0350", "path(COST for x from A to B)"),
    "E0351-reachable-body": add(GRID + "phase q { for each s in Sec { let v = reachable(x.t for x from s where x.t == "
                                "Ter.L) } }  #!\n", "E0351", "reachable(x for x from ...)"),
    "E0352-reachable-seeds": add(GRID + "phase q { let v = reachable(x for x from 3 where x.t == Ter.L) }  #!\n",
                                 "E0352"),
    "E0352-reachable-no-via": add(GRID + "phase q { for each b in Box { let v = reachable(x for x from b where x.stones"
                                  " > 0) } }  #!\n", "E0352", "via x.adjacent"),
    "E0353-reachable-via": add(GRID + "phase q { for each s in Sec { let v = reachable(x for x from s via x.t) } }"
                               "  #!\n", "E0353", "via neighbours(x)"),
    "W0209-reachable-where": add(GRID + "phase q { for each s in Sec { let v = reachable(x for x from s where s.t == "
                                 "Ter.L) } }  #!\n", "W0209", "x.owner == me"),
    "W0206-grid-size-default": Case("W0206", BASE.replace("player {", "param wide: int = 12  #!\nplayer {", 1)
                                    + GRID.replace("  size 4 by 3\n", "  size wide by 3\n") + USE_SEC,
                                    hint="one more `C`"),
    # ------------------------------------------------------------ numbered things
    "E0240": add("thing Unit numbered { size: int = 1 }\ndata Unit(number, size)  #!\n{ X: 1 }\n", "E0240",
                 "new Unit(...)"),
    "E0240-links": add("thing Unit numbered { near: set of Unit }\nlinks Unit.near { X: Y }  #!\n", "E0240"),
    "E0241-required": add("thing Unit numbered { size: int = 1 }\nthing Pad keyed by code {\n u: Unit  #!\n}\n"
                          "data Pad(code, u) { X: none }\n", "E0241", "`u: Unit?`"),
    "E0241-map-key": add("thing Unit numbered { size: int = 1 }\nplayer { m: Unit -> int  #!\n}\n", "E0241"),
    "E0242": add("thing Unit numbered {\n size: int indexed  #!\n}\n", "E0242"),
    "E0243": edit("  moves: int = 0\n", "  moves: int = 0\n  home: Box? indexed  #!\n", "E0243"),
    "E0244": add("thing Unit numbered { size: int = 1 }\norder drill \"D,{u}\" {\n u: Unit\n"
                 " valid u.size > 0 else \"empty\"  #!\n}\nphase drilling: run drill\n", "E0244", "`require`"),
    "E0245": add("thing Unit numbered per owner { size: int = 1 }\nphase q {\n new Unit(owner: none)  #!\n}\n",
                 "E0245", "numbered per owner or none"),
    "E0346": add("phase q { new Box(name: \"x\") }  #!\n", "E0346"),
    "E0346-destroy": add("phase q { for each b in Box { destroy b } }  #!\n", "E0346"),
    "E0347": add("thing Unit numbered { size: int = 1 }\nphase q { new Unit(sise: 2) }  #!\n", "E0347",
                 "did you mean `size`?"),
    "E0347-number": add("thing Unit numbered { size: int = 1 }\nphase q { new Unit(number: 2) }  #!\n", "E0347"),
    "E0348": add("thing Unit numbered per owner { size: int }\nphase q { new Unit(size: 1) }  #!\n", "E0348",
                 "owner: ..."),
    "E0349": add("thing Unit numbered { size: int = 1 }\ndefine f() -> Unit = new Unit()  #!\n"
                 "phase q { let v = f() }\n", "E0349"),
    # ------------------------------------------------------------ control flow
    "E0365": add("procedure p(b: Box) {\n  return b.stones  #!\n}\nphase q { p(Box.A) }\n", "E0365", "-> int"),
    "E0365-effect": edit("  effect { box.stones += n }\n", "  effect {\n    box.stones += n\n    return n  #!\n  }\n",
                         "E0365", "`return` alone"),
    "E0365-phase": add('phase q {\n  return "x"  #!\n}\n', "E0365", "the phase ends here"),
    "E0366": add("procedure p(b: Box) -> int {\n  return  #!\n}\nphase q { let v = p(Box.A) }\n", "E0366"),
    "E0367": add("procedure p(b: Box) -> int {\n  if b.stones > 1 { return 1 }\n}  #!\nphase q { let v = p(Box.A) }\n",
                 "E0367", "`else`"),
    "E0367-loop": add("procedure p(b: Box) -> int {\n  for each c in Box { return c.stones }\n}  #!\n"
                      "phase q { let v = p(Box.A) }\n", "E0367", "after it"),
    "E0368": add("procedure p(b: Box) -> int {\n  b.stones += 1\n  return b.stones\n}\n"
                 "define f(b: Box) -> int = p(b)  #!\nphase q { let v = f(Box.A) }\n", "E0368", "function"),
    "E0368-report": report_field("n = p(Box.A)", "E0368",
                                 "procedure p(b: Box) -> int {\n  b.stones += 1\n  return b.stones\n}\n", "a field"),
    "E0369": add("procedure p(b: Box) -> int {\n  b.stones += 1\n  return b.stones\n}\n"
                 "phase q { let v = count(b for b in Box where p(b) > 1)  #!\n}\n", "E0369", "for each"),
    "E0369-where": add("procedure p(b: Box) -> int {\n  b.stones += 1\n  return b.stones\n}\n"
                       "phase q { for each b in Box where p(b) > 1 { news \"x\" }  #!\n}\n", "E0369"),
    "E0370": add("phase q { skip }  #!\n", "E0370", "`return`"),
    "E0371": add('phase q {\n  while true {  #!\n    news "x"\n  }\n}\n', "E0371", "`break`"),
    "E0372": add("define f() -> int = size(distinct(b.near for b in Box))  #!\n", "E0372", "names each one"),
    "E0373": add('phase q { for each b in Box { b.stones = roll(6, "s", b.near) }  #!\n}\n', "E0373"),
    "E0432": add('order o2 "O {x}" { x: int spaced }  #!\nphase q: run o2\n', "E0432", "list of int spaced"),
    "E0432-not-last": add('order o2 "O {x} {y}" {  #!\n x: list of int spaced\n y: int\n}\nphase q: run o2\n',
                          "E0432", "put `{x}` last"),
    "E0246": add(CAL + "calendar {  #!\n  starts 1 kinds a cycle { S: a }\n}\n", "E0246", "line"),
    "E0247": add(CAL.replace("W: c\n", "W: d  #!\n"), "E0247", "the calendar's kinds are a, b, c"),
    "E0248": add(CAL.replace("W: c\n", "W: c\n    S: a  #!\n"), "E0248", "already at line"),
    "E0249": add(CAL.replace("S: a, b", "January: a, b  #!"), "E0249", "add February"),
    "E0250": add(CAL.replace("starts 1901 S", "starts 1901 X  #!"), "E0250", "S, F, W"),
    "E0251": add(CAL.replace("kinds a, b, c", "kinds a, b, c, d")
                 + 'order o2 "O" {\n  only in d turns  #!\n}\nphase q: run o2\n', "E0251", "in a row of the cycle"),
    "E0252": add("calendar {  #!\n  starts 1901 kinds a cycle { }\n}\n", "E0252", "a row for each period"),
    "E0254": add(CAL + "phase q at start in a turns { }  #!\n", "E0254", "take out `in ... turns`"),
    "E0253": add("phase q in a turns { }  #!\n", "E0253", "declare the kinds"),
    "E0255": edit('ruleset "T" { version "1" turn "turn" }', 'ruleset "T" { version "1" turn "turn" money "0.5" }  #!',
                  "E0255", "for cents"),
    "E0374": Case(
        "E0374", BASE.replace('turn "turn" }', 'turn "turn" money "0.1" }', 1)
        + "param fee: money = 2.25  #!\nphase q { for each b in Box { let v = fee } }\n", hint="1 decimal place"),
    "E0317-amount-places": Case("E0317", BASE.replace('turn "turn" }', 'turn "turn" money "0.1" }', 1)
                                + "param fee: money = 2.5\nphase q { let v = amount(fee)  #!\n}\n",
                                hint="floor(fee / money(1))"),
    "E0433": add('personal order o2 "O" {\n  default { me.moves += 1 }  #!\n}\n', "E0433", "make it a `gm order`"),
    "E0433-world": add('personal world order o2 "O" {  #!\n  effect { }\n}\n', "E0433",
                       "write `gm world order`"),
    "E0433-world-game": add('world order o2 "O" {  #!\n  effect { }\n}\nphase q: run o2\n', "E0433",
                            "write `gm world order`"),
    "E0433-twice": add('gm order o2 "O" {\n  default { }\n  default { }  #!\n}\n', "E0433", "join them"),
    "E0434": add('gm order o2 "O {n}" {\n  n: 1..9\n  default { me.moves += n }  #!\n}\n', "E0434",
                 "from the game's state"),
    "E0434-run": add('gm world order o2 "O" {\n  default { run put }  #!\n}\n', "E0434", "in a phase"),
    "E0306-world": add('gm world order o2 "O" {\n  effect { me.moves += 1 }  #!\n}\n', "E0306",
                       "a world GM order is given for no position"),
    "E0306-world-default": add('gm world order o2 "O" {\n  default { me.moves += 1 }  #!\n}\n', "E0306",
                               "for each p in players"),
    "W0212": add('phase q {\n  for each b in Box {\n    skip\n    news "x"  #!\n  }\n}\n', "W0212", "remove it"),
    "E0207-numbered": add("thing Unit numbered { size: int = 1 }\nphase q { let u = Unit.X  #!\n}\n", "E0207",
                          "by its number"),
    "W0207": add("thing Unit numbered { at: Box? }\n"
                 "phase q { for each b in Box { let v = count(u for u in Unit where u.at == b) } }  #!\n", "W0207",
                 "indexed"),
    "W0205": Case("W0205", BASE.replace("  cost money(n)\n", "  cost price(n)  #!\n", 1)
                  + "table price(k: int) -> money { 1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 7: 2, 8: 2, 9: 2 }\n",
                  hint="limit `n`"),
    "E0338": add("define f(b: Box) -> decimal = b.stones / 0  #!\n" + USE_F, "E0338"),
    "E0338-div": add("phase q { for each b in Box { b.stones = b.stones div (0) } }  #!\n", "E0338"),
    "E0338-remainder": add("phase q { for each b in Box { b.stones = b.stones % 0 } }  #!\n", "E0338"),
    # ------------------------------------------------------------ orders, phases, victory
    "E0401": add("orders { pay from cash }  #!\n", "E0401"),
    "E0402": edit('  header "{account}", "{code}"\n', '  header "{account}", "{cod}"  #!\n', "E0402"),
    "E0403": edit("  pay from cash\n", "  pay from cash\n  budget cash starts at 3 plus 1 each turn  #!\n", "E0403"),
    "E0404": edit("  pay from cash\n", "  pay from moves  #!\n", "E0404"),
    "E0405": add('order o2 "O,{x}" { x: bool }  #!\nphase q: run o2\n', "E0405"),
    "E0406": add('stop order halt "HALT {x}"  #!\n', "E0406"),
    "E0407": add('order o2 "O,{x},{y}"  #!\n{ x: int }\nphase q: run o2\n', "E0407"),
    "E0408": add('order o2 "O,{x}" {\n x: int\n y: int  #!\n}\nphase q: run o2\n', "E0408"),
    "E0409-keyword": add('order o2 "{x}"  #!\n{ x: int }\nphase q: run o2\n', "E0409"),
    "E0409-adjacent": add('order o2 "O {x}{y}"  #!\n{ x: int\n y: int }\nphase q: run o2\n', "E0409"),
    "E0410": add('order o2 "O,{x}" {\n x: int\n once per turn per z  #!\n}\nphase q: run o2\n', "E0410"),
    "E0410-personal-counts-as": Case("E0410", COUNTED + 'personal order o2 "O" {\n counts as heavy  #!\n}\n'),
    "E0410-personal-ends-turn": add('personal order o2 "O" {\n ends turn  #!\n}\n', "E0410"),
    "E0419": Case("E0419", COUNTED.replace("counts as heavy\n", "counts as hevy  #!\n"), hint="did you mean `heavy`?"),
    "E0419-no-group": Case("E0419", BASE.replace("  cost money(n)\n", "  cost money(n)\n  counts as heavy  #!\n", 1),
                           hint="at most 1 heavy per turn"),
    "W0204": edit("  pay from cash\n", GROUP.replace('turn"\n', 'turn"  #!\n'), "W0204", "counts as heavy"),
    "E0203-group": Case("E0203", COUNTED.replace(GROUP, GROUP + '  at most 2 heavy per turn else "x"  #!\n')),
    "E0301-ends-turn": add('order o2 "O,{x}" {\n x: int\n ends turn when x  #!\n}\nphase q: run o2\n', "E0301"),
    "E0324-ends-turn": add('order o2 "O" {\n ends turn when chance(50, "end")  #!\n}\nphase q: run o2\n', "E0324"),
    "E0420": edit("  n: 1..9\n", "  n: 9..1  #!\n", "E0420", "`n: 1..9`"),
    "E0420-money": edit("  n: 1..9\n", "  n: money from 5 to -5  #!\n", "E0420", "`n: money from -5 to 5`"),
    "E0421": add('order one "P,A,{n}"  #!\n{ n: 1..5 }\nphase q: run one\n', "E0421", "declare `one` before `put`"),
    "E0421-same-syntax": add('order again "p,{b},{k}"  #!\n{\n b: Box\n k: 2..3\n}\nphase q: run again\n', "E0421"),
    "E0421-wider-comma": add('order again "p, {b}, {k}"  #!\n{\n b: Box\n k: 2..3\n}\nphase q: run again\n', "E0421"),
    "E0422": Case("E0422", BASE.replace('version "1" turn "turn"', 'version "1" turn "turn" game "T-{number}"', 1)
                  .replace('  header "{account}", "{code}"\n', '  header "X-{game}", "{account}", "{code}"  #!\n', 1),
                  hint='write `header "T-{game}", "{account}", "{code}"`'),
    "E0423": add('order o2 "O {r}" {\n r: digits 0..10  #!\n}\nphase q: run o2\n', "E0423", "`r: list of int`"),
    "E0420-digits": add('order o2 "O {r}" {\n r: digits 8..1  #!\n}\nphase q: run o2\n', "E0420", "`r: digits 1..8`"),
    "E0424": add('order o2 "O {b}" {\n b: Box\n once per turn per b as box_order\n}\n'
                 'order o3 "Q {x}" {\n x: int\n once per turn per x as box_order  #!\n}\n'
                 "phase q: run o2\nphase q2: run o3\n", "E0424"),
    "W0208": add('order o2 "O {b}" {\n b: Box\n once per turn per b as box_order  #!\n}\nphase q: run o2\n',
                 "W0208"),
    "E0428": add('order o2 "O {b}" {\n b: Box\n standing per b as hold\n}\n'
                 'order o3 "Q {x}" {\n x: int\n standing per x as hold  #!\n}\n'
                 "phase q: run o2\nphase q2: run o3\n", "E0428"),
    "E0428-per-and-not": add('order o2 "O {b}" {\n b: Box\n standing per b as hold\n}\n'
                             'order o3 "Q" {\n standing as hold  #!\n}\n'
                             "phase q: run o2\nphase q2: run o3\n", "E0428", "leave `per` out"),
    "W0208-standing": add('order o2 "O {b}" {\n b: Box\n standing per b as hold  #!\n}\nphase q: run o2\n',
                          "W0208"),
    "E0425": add('personal order o2 "O {b}" {\n b: Box\n standing per b  #!\n}\n', "E0425"),
    "E0426": add('order o2 "O {b}" {\n b: Box\n standing per box  #!\n}\nphase q: run o2\n', "E0426",
                 "write one of its arguments (`b`)"),
    "E0301-until": add('order o2 "O {b}" {\n b: Box\n standing per b until b  #!\n}\nphase q: run o2\n', "E0301"),
    "E0324-until": add('order o2 "O {b}" {\n b: Box\n standing until chance(50, "x")  #!\n}\nphase q: run o2\n',
                       "E0324"),
    "E0427-run": add("phase q at start {\n run put  #!\n}\n", "E0427"),
    "E0427-news": add('phase q at start {\n news "made"  #!\n}\n', "E0427"),
    "E0306-start-phase": add("phase q at start {\n me.cash = 1  #!\n}\n", "E0306"),
    "E0405-list": add('order o2 "O,{x}" { x: list of text }  #!\nphase q: run o2\n', "E0405"),
    "E0411": Case("E0411", BASE.replace("  pay from cash\n", "", 1).replace("  cost money(n)\n",
                                                                            "  cost money(n)  #!\n", 1)),
    "E0416-no-block": Case("E0416", BASE.replace('orders {\n  header "{account}", "{code}"\n  pay from cash\n}\n', "")
                           .replace('order put "P,{box},{n}" {\n', 'order put "P,{box},{n}" {  #!\n', 1)),
    "E0416-no-header": edit('orders {\n  header "{account}", "{code}"\n', "orders {  #!\n", "E0416"),
    "E0417-run-in-loop": add("phase q {\n for each b in Box {\n  run put  #!\n }\n}\n", "E0417"),
    "E0418": add('order o2 "O,{x}" {\n x: int\n effect {\n  me.moves += x\n  fail "too late"  #!\n }\n}\n'
                 "phase q: run o2\n", "E0418"),
    "E0412": add('personal order o2 "O,{x}" {\n x: int\n cost money(1)  #!\n}\n', "E0412"),
    "E0413": add("phase again: run put  #!\n", "E0413"),
    "W0102": add('order o2 "O,{x}" { x: int }  #!\n', "W0102", "phase o2: run o2"),
    # `run ... together`: each kind is run there (E0413 for another run of one), named once, with `together`
    "E0413-together": add('order o2 "O,{x}" { x: int }\nphase q: run o2, put together  #!\n', "E0413"),
    "E0429": Case("E0429", BASE.replace("phase putting: run put", "phase putting: run put, put together  #!")),
    "E0431-without-together": add('order o2 "O,{x}" { x: int }\norder o3 "Q,{x}" { x: int }\n'
                                  'phase q {\n run o2, o3  #!\n}\n', "E0431", "run o2, o3 together"),
    "E0431-together-alone": Case("E0431", BASE.replace("phase putting: run put",
                                                       "phase putting: run put together  #!"), "write `run put`"),
    "E0431-comma-before-together": Case("E0431", BASE.replace("phase putting: run put", 'order o2 "O,{x}" { x: int }\n'
                                       "phase putting: run put, o2, together  #!"), "write `run put, o2 together`"),
    "E0431-together-alone-no-order": Case("E0431", BASE.replace("phase putting: run put",
                                                                "phase putting: run put\nphase q: run together  #!")),
    "E0320-together": add('order o2 "O,{x}" { x: int }\nphase q: run o2, pot together  #!\n', "E0320",
                          "did you mean `put`?"),
    "E0417-together-in-loop": add('order o2 "O,{x}" { x: int }\norder o3 "Q,{x}" { x: int }\n'
                                  'phase q {\n for each b in Box {\n  run o2, o3 together  #!\n }\n}\n', "E0417"),
    # `halt`: in phases and procedures, never where one player's order would stop every player's turn
    "E0430": add('order o2 "O,{x}" {\n x: int\n effect {\n  halt "no {x}"  #!\n }\n}\nphase q: run o2\n',
                 "E0430", "fail"),
    "E0430-through-a-procedure": add('procedure stuck(x: int) {\n if x > 3 { halt "stuck at {x}" }\n}\n'
                                     'procedure step(x: int) { stuck(x) }\n'
                                     'order o2 "O,{x}" {\n x: int\n effect {\n  step(x)  #!\n }\n}\n'
                                     "phase q: run o2\nphase r { step(1) }\n", "E0430"),
    "E0415": add("victory v for p { when p.active held for 0 turns }  #!\n", "E0415"),
    # ------------------------------------------------------------ the report
    "E0501": add('report { template "t.report.j2" }  #!\n', "E0501"),
    "E0502": Case("E0502", BASE.split("report {")[0].replace('ruleset "T"', 'ruleset "T"  #!\n', 1)),
    "E0502-after-comments": Case("E0502", "# a game\n\n" + BASE.split("report {")[0].replace(
        'ruleset "T" { version "1" turn "turn" }', 'ruleset "T" { version "1" turn "turn" }  #!', 1)),
    "E0503": edit('report {\n  cash = me.cash\n  template "t.report.j2"\n', "report {  #!\n  cash = me.cash\n",
                  "E0503"),
    "E0504": edit('  template "t.report.j2"\n', '  template "missing.report.j2"  #!\n', "E0504"),
    "E0510": edit('  template "t.report.j2"\n', '  template "../t.report.j2"  #!\n', "E0510",
                  'template "t.report.j2"'),
    "E0505": template("Cash {{ cash }}\n{% for x in %}\n", "E0505", 2),
    "E0506": template("Cash {{ cash }}\nMoney {{ cahs }}\n", "E0506", 2, "did you mean `cash`?"),
    "E0507-builtin": template("{{ game.tilte }}\n", "E0507", 1, "did you mean `title`?"),
    "E0507-loop": template("{{ cash }}\n{% for u in orders.used %}\n{{ u.txt }}\n{% endfor %}\n", "E0507", 3,
                           "did you mean `text`?"),
    "E0507-player": Case("E0507", BASE.replace("  cash = me.cash\n", "  cash = me.cash\n  who = me\n", 1),
                         template="{{ cash }} {{ who.name }}\n", template_line=1,
                         hint="make the report field a record"),
    "E0507-text": template("{% for w in winners %}\n{{ w.name }}\n{% endfor %}\n", "E0507", 2),
    "E0508-filter": template("{{ cash|uper }}\n", "E0508", 1, "did you mean `upper`?"),
    "E0508-test": template("{% if cash is evne %}even{% endif %}\n", "E0508", 1, "did you mean `even`?"),
    "E0509": template("{{ cash }}\n{{ cycler.__init__.__globals__ }}\n", "E0509", 2, "Python's own attributes"),
    # ------------------------------------------------------------ the simulation block
    "E0450": add("simulation { weight put 2 }\nsimulation { weight put 3 }  #!\n", "E0450", "first block"),
    "E0451-weight": add("simulation {\n  weight pt 2  #!\n}\n", "E0451", "did you mean `put`?"),
    "E0451-choose": add("simulation {\n  choose pt.n from [1, 2]  #!\n}\n", "E0451", "did you mean `put`?"),
    "E0452": add('stop order stop "STOP"\nsimulation {\n  weight stop 1  #!\n}\n', "E0452",
                 "game and personal orders"),
    "E0453": add("simulation {\n  weight put -1  #!\n}\n", "E0453", "0 never written"),
    "E0454-weight": add("simulation {\n  weight put 2\n  weight put 3  #!\n}\n", "E0454", "keep one"),
    "E0454-invariant": add("simulation {\n  invariant rich: all(p.cash >= 0 for p in all_players)\n"
                           "  invariant rich: all(p.moves >= 0 for p in all_players)  #!\n}\n", "E0454"),
    "E0455": add("simulation {\n  choose put.boxes from [Box.A]  #!\n}\n", "E0455", "did you mean `box`?"),
    "E0456": add("simulation {\n  choose put.box from [1, 2]  #!\n}\n", "E0456", "Box"),
    "E0457-not-bool": add("simulation {\n  invariant stones: sum(b.stones for b in Box)  #!\n}\n", "E0457",
                          "`unchanged`"),
    "E0457-unchanged-things": add("simulation {\n  invariant boxes: [b for b in Box] unchanged  #!\n}\n", "E0457",
                                  "size("),
    "E0458-player": add("simulation {\n  hidden p.cahs from q  #!\n}\n", "E0458", "did you mean `cash`?"),
    "E0458-not-per-player": add("simulation {\n  hidden b.stones[p] for b in Box from q  #!\n}\n", "E0458",
                                "per-player field"),
    "E0459-same-name": add("simulation {\n  hidden p.cash from p  #!\n}\n", "E0459", "a name of its own"),
    "E0459-not-the-variable": add("simulation {\n  hidden x.owner[p] for b in Box from q  #!\n}\n", "E0459",
                                  "b.owner[p]"),
    "E0460": Case("E0460", BASE.replace("  moves: int = 0\n", "  moves: int = 0\n  motto: text = \"\"\n", 1)
                  + "simulation {\n  hidden p.motto from q  #!\n}\n", hint="a number (changed by one)"),
    "E0306-invariant": add("simulation {\n  invariant mine: me.cash >= 0  #!\n}\n", "E0306", "all_players"),
    "E0324-invariant": add('simulation {\n  invariant lucky: chance(50, "x")  #!\n}\n', "E0324"),
    # ------------------------------------------------------------ warnings
    "W0101-param": add("param unused_one: int = 3  #!\n", "W0101"),
    "W0101-table": add("table t(x: int) -> int { 1: 2 }  #!\n", "W0101"),
    "W0101-function": add("define lonely() -> int = 1  #!\n", "W0101"),
    "W0101-procedure": add("procedure lonely() { }  #!\n", "W0101"),
    "W0201": edit('ruleset "T" { version "1" turn "turn" }', 'ruleset "T" { versoin "1" turn "turn" }  #!', "W0201",
                  "did you mean `version`?"),
    "W0202": add("thing Crate keyed by code { name: text }  #!\n", "W0202"),
    "W0203-below": add("table t(x: int) -> int {\n 1 to 3: 1  #!\n from 4: 2\n}\nphase q { let v = t(1) }\n", "W0203"),
    "W0203-above": add("table t(x: int) -> int {\n below 1: 0\n 1 to 3: 1  #!\n}\nphase q { let v = t(1) }\n",
                       "W0203"),
}


@functools.cache
def emitted_codes() -> frozenset[str]:
    """Every code the checker's source names (codes are added as the language grows)."""
    codes: set[str] = set()
    for f in (ROOT / "rulesdsl" / "checker").glob("*.py"):
        codes |= set(re.findall(r'"([EW]0\d{3})"', f.read_text(encoding="utf-8")))
    return frozenset(codes)


def _where(case: Case) -> tuple[str, int]:
    if case.template_line:
        return "t.report.j2", case.template_line
    return "t.rules", marked_line(case.text)


def test_the_base_ruleset_is_clean(tmp_path: Path) -> None:
    checked = check_text(tmp_path, BASE)
    assert checked.ok and not checked.diagnostics, show(checked.diagnostics)


@pytest.mark.parametrize("name", sorted(CASES))
def test_diagnostic(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    code = case.code
    assert code in emitted_codes(), f"the checker has no {code}"
    checked = check_text(tmp_path, case.text, case.template)
    file, line = _where(case)
    hits = [d for d in checked.diagnostics if d.code == code and d.span.file == file and d.span.line == line]
    assert hits, f"no {code} at {file}:{line}; got:\n{show(checked.diagnostics)}"
    d = hits[0]
    assert d.span.col >= 1
    assert d.severity == ("warning" if case.code.startswith("W") else "error")
    assert checked.ok == (not any(x.severity == "error" for x in checked.diagnostics))
    if case.code.startswith("E"):
        assert not checked.ok
    if case.hint is not None:
        assert d.help is not None and case.hint in d.help, show([d])


def test_every_checker_code_has_a_case() -> None:
    covered = {c.code for c in CASES.values()}
    assert emitted_codes() - covered == set()


# ---------------------------------------------------------------- diagnostics that say too much or the wrong thing

def test_a_hint_never_suggests_the_name_already_written(tmp_path: Path) -> None:
    # `pay from moves`: `moves` exists but is an int; "did you mean `moves`?" would send the designer in circles.
    checked = check_text(tmp_path, BASE.replace("  pay from cash\n", "  pay from moves\n", 1))
    [d] = [d for d in checked.diagnostics if d.code == "E0404"]
    assert "`moves`?" not in (d.help or "")


def test_wrong_first_data_column_is_one_error(tmp_path: Path) -> None:
    crate = 'thing Crate keyed by code { name: text }\ndata Crate(name, code) { X: "x" }\n'
    checked = check_text(tmp_path, BASE + crate)
    errors = [d for d in checked.diagnostics if d.severity == "error"]
    assert [d.code for d in errors] == ["E0210"], show(errors)


def test_secret_parameter_outside_reports_is_fine(tmp_path: Path) -> None:
    text = BASE + 'secret param hidden: int = 3\nphase q { for each b in Box { b.stones += hidden } }\n'
    checked = check_text(tmp_path, text)
    assert checked.ok and not checked.diagnostics, show(checked.diagnostics)


def test_me_is_known_in_orders_and_reports(tmp_path: Path) -> None:
    text = BASE.replace("  effect { box.stones += n }\n",
                        "  require me.moves >= 0 else \"{me.name} cannot move\"\n"
                        "  effect {\n    box.stones += n\n    me.moves += 1\n  }\n", 1)
    text = text.replace("  cash = me.cash\n", "  cash = me.cash\n  moves = me.moves\n", 1)
    checked = check_text(tmp_path, text)
    assert checked.ok and not checked.diagnostics, show(checked.diagnostics)


def test_me_in_a_victory_is_refused_without_contradiction(tmp_path: Path) -> None:
    # A victory names its own player (`for p`); `me` is refused there, so the message must not say
    # that victory rules know `me`.
    checked = check_text(tmp_path, BASE + "victory v for p { when me.active }\n")
    [d] = [d for d in checked.diagnostics if d.code == "E0306"]
    assert d.span.line == BASE_LINES + 1
    assert "victory" not in d.message, d.message


WORLD_EVERYWHERE = BASE.replace("  pay from cash\n", GROUP, 1).replace(
    "  cost money(n)\n", "  valid box != Box.b or world.open else \"{Box.B} is shut in round {world.round}\"\n"
    "  require world.round >= 0 else \"not yet\"\n  cost money(n)\n  counts as heavy\n"
    "  ends turn when box == Box.A and world.open\n", 1).replace(
    "  effect { box.stones += n }\n", "  effect {\n    box.stones += n\n    world.last = box\n"
    "    remove box from world.shut\n    me.moves += 1\n  }\n", 1).replace(
    "  cash = me.cash\n", "  cash = me.cash\n  round = world.round\n  shut = world.shut\n"
    "  here = last_box() == Box.A\n", 1) + '''world {
  round: int = 0
  open: bool = true reset each turn
  last: Box = Box.B
  shut: list of Box = [Box.A, Box.B]
  marks: Box -> int = 1
}
thing Pad keyed by code { near: Box? }
data Pad(code, near) { P: Box.a }
table lid(b: Box) -> Box { A: Box.B, B: Box.A }
define last_box() -> Box = lid(world.last)
procedure close(b: Box) { add b to world.shut }
phase turning {
  world.round += 1
  world.marks[Box.A] += 1
  if world.round > 2 and Box.A in world.shut { close(lid(Box.A)) }
  for each p in Pad where p.near == Box.A { remove Box.A from world.shut }
}
victory v for p { when world.round > 9 and world.last == Box.B }
'''


def test_world_and_instance_literals_are_usable_everywhere(tmp_path: Path) -> None:
    checked = check_text(tmp_path, WORLD_EVERYWHERE)
    assert checked.ok and not checked.diagnostics, show(checked.diagnostics)


def test_unused_parameter_is_only_a_warning(tmp_path: Path) -> None:
    checked = check_text(tmp_path, BASE + "param spare: money = 3\n")
    assert checked.ok
    [d] = checked.diagnostics
    assert (d.code, d.severity, d.span.line) == ("W0101", "warning", BASE_LINES + 1)
    assert "`spare`" in d.message


@pytest.mark.parametrize("decl", ["param p: int = 1", "table p(x: int) -> int { 1: 2 }", "define p() -> int = 1",
                                  "procedure p() { }"])
def test_a_duplicate_is_not_also_reported_unused(decl: str, tmp_path: Path) -> None:
    # The second declaration has its E0203; "never used" belongs to the first one alone.
    checked = check_text(tmp_path, BASE + f"{decl}\n{decl}\n")
    got = [(d.code, d.span.line) for d in checked.diagnostics]
    assert got == [("W0101", BASE_LINES + 1), ("E0203", BASE_LINES + 2)], show(checked.diagnostics)


def _table_diagnostics(tmp_path: Path, key: str, rows: list[str]) -> list[tuple[str, int, str]]:
    text = BASE + f"table t(x: {key}) -> int {{\n" + "".join(f" {r}: {i}\n" for i, r in enumerate(rows)) \
        + "}\nphase q { for each b in Box { let v = t(b.stones) } }\n"
    checked = check_text(tmp_path, text)
    return [(d.code, d.span.line - BASE_LINES - 1, d.message) for d in checked.diagnostics]


def test_a_gap_names_the_rows_on_both_sides_and_the_missing_keys(tmp_path: Path) -> None:
    # `2 to 2` lies inside `1 to 3`: it can never be used, and the gap is key 4 alone, between rows 1 and 2.
    got = _table_diagnostics(tmp_path, "int", ["below 1", "1 to 3", "5 to 6", "2 to 2", "from 7"])
    b = BASE_LINES + 1
    assert got == [
        ("E0225", 3, f"`t` has no row for key 4, between the rows at lines {b + 2} and {b + 3}"),
        ("E0226", 4, f"this row of `t` can never be used: the row at line {b + 2} already covers its key 2"),
    ]


def test_an_unreachable_row_names_every_row_that_covers_it(tmp_path: Path) -> None:
    got = _table_diagnostics(tmp_path, "int", ["below 1", "1 to 3", "4 to 6", "2 to 5", "from 7"])
    b = BASE_LINES + 1
    assert got == [("E0226", 4, f"this row of `t` can never be used: the rows at lines {b + 2} and {b + 3} "
                                "already cover its keys 2 to 5")]


def test_rows_on_one_line_are_named_by_their_keys(tmp_path: Path) -> None:
    text = BASE + 'table t(x: int) -> text { below 0: "a", 0 to 4: "b", 2: "c", from 10: "d" }\n' \
        + "phase q { for each b in Box { let v = t(b.stones) } }\n"
    checked = check_text(tmp_path, text)
    line = BASE_LINES + 1
    assert [d.message for d in checked.diagnostics] == [
        f"this row of `t` can never be used: the row for keys 0 to 4 (line {line}) already covers its key 2",
        f"`t` has no row for keys 5 to 9, between the rows for keys 0 to 4 (line {line}) and for keys from 10 "
        f"(line {line})",
    ], show(checked.diagnostics)


def test_of_two_equal_rows_the_second_is_the_one_never_used(tmp_path: Path) -> None:
    got = _table_diagnostics(tmp_path, "int", ["below 1", "1 to 3", "1 to 3", "from 4"])
    assert [(code, row) for code, row, _ in got] == [("E0226", 3)]


def test_overlaps_and_gaps_say_which_keys(tmp_path: Path) -> None:
    got = _table_diagnostics(tmp_path, "int", ["below 1", "1 to 3", "3 to 5", "from 8"])
    assert [(code, row, msg.split(": ", 1)[-1]) for code, row, msg in got] == [
        ("E0224", 3, "key 3 would match both"),
        ("E0225", 4, f"`t` has no row for keys 6 to 7, between the rows at lines {BASE_LINES + 4} and "
                     f"{BASE_LINES + 5}")]
    got = _table_diagnostics(tmp_path, "decimal", ["1.5 to 2.5", "from 2 below 3", "from 3.5"])
    assert [(code, row, msg) for code, row, msg in got] == [
        ("W0203", 1, "`t` has no row for keys below 1.5; such a key stops the turn"),
        ("E0224", 2, f"this row of `t` overlaps the row at line {BASE_LINES + 2}: keys 2 to 2.5 would match both"),
        ("E0225", 3, f"`t` has no row for keys from 3 below 3.5, between the rows at lines {BASE_LINES + 3} and "
                     f"{BASE_LINES + 4}")]
    got = _table_diagnostics(tmp_path, "decimal", ["below 1", "from 1 below 2", "from 2 below 2.75"])
    assert got == [("W0203", 3, "`t` has no row for keys from 2.75; such a key stops the turn")]


@pytest.mark.parametrize("order", [
    'order one "P,C,{n}" { n: 1..5 }',  # C is no Box: `put` cannot read it
    'order one "P,A,{n}" { n: 1..20 }',  # 12 is not 1..9
    'order one "P,{b},{n}" {\n b: text\n n: 1..9\n}',  # any text, not only a Box
    'order one "P,{b},{n},{m}" {\n b: Box\n n: int\n m: int\n}',  # "5,6" is not a number
    'order one "P {b},{n}" {\n b: Box\n n: 1..9\n}',  # a space is not a comma
    'personal order one "P,{b},{n}" {\n b: Box\n n: 1..9\n}',  # `put` is run nowhere: it takes no line
])
def test_an_order_that_some_lines_reach_is_not_shadowed(order: str, tmp_path: Path) -> None:
    text = BASE + order + "\nphase q: run one\n" if order.startswith("order") else \
        BASE.replace("phase putting: run put\n", "") + order + "\n"
    checked = check_text(tmp_path, text)
    assert not [d for d in checked.diagnostics if d.code == "E0421"], show(checked.diagnostics)


def test_a_general_syntax_declared_first_shadows_the_particular_one(tmp_path: Path) -> None:
    general = 'order any "P,{b},{n}" {\n b: text\n n: int\n}\n'
    checked = check_text(tmp_path, BASE + general + "phase q: run any\n")
    assert not [d for d in checked.diagnostics if d.code == "E0421"], show(checked.diagnostics)
    first = BASE.replace('order put "P,{box},{n}" {', general + 'order put "P,{box},{n}" {', 1)
    checked = check_text(tmp_path, first + "phase q: run any\n")
    [d] = [d for d in checked.diagnostics if d.code == "E0421"]
    assert d.message.startswith("order `put` can never be given") and "read as order `any`" in d.message, show([d])


@pytest.mark.parametrize(("text", "code", "line", "col", "width"), [
    ("Cash {{ cash }}\nMoney {{ cahs }}\n", "E0506", 2, 10, 4),
    ("{{ cash }}\n  {% for u in orders.used %}\n  {{ u.text }} {{ u.txt }}\n  {% endfor %}\n", "E0507", 3, 21, 3),
    ("{{ game.title }} {{ game.tilte }}\n", "E0507", 1, 26, 5),
    ("Cash {{ cash }}\n{% for x in %}\n", "E0505", 2, 13, 2),
    ("{{ cash }\n", "E0505", 1, 9, 1),
    ('{{ cash }} {{ "abc }}\n', "E0505", 1, 15, 1),
    ("{{ cash }}\n{% if cash %}\nfoo\n", "E0505", 2, 1, 5),
])
def test_template_diagnostics_point_at_the_name_or_the_mistake(text: str, code: str, line: int, col: int, width: int,
                                                                tmp_path: Path) -> None:
    checked = check_text(tmp_path, BASE, text)
    [d] = checked.diagnostics
    assert (d.code, d.span.file, d.span.line, d.span.col, d.span.end_line, d.span.end_col) == \
        (code, "t.report.j2", line, col, line, col + width), show([d])


def test_an_unknown_filter_does_not_hide_the_other_template_mistakes(tmp_path: Path) -> None:
    # Jinja's own walk over the template stops at an unknown filter; the checker still reports all.
    checked = check_text(tmp_path, BASE, "{{ cash|fromat }}\n{{ csh }}\n{{ cash|fromat }}\n")
    got = [(d.code, d.span.line, d.span.col) for d in checked.diagnostics]
    assert got == [("E0508", 1, 9), ("E0506", 2, 4), ("E0508", 3, 9)], show(checked.diagnostics)


def test_a_template_block_left_open_says_which_and_how_to_close_it(tmp_path: Path) -> None:
    checked = check_text(tmp_path, BASE, "{{ cash }}\n{% for u in orders.used %}\n{% if u %}\n{% endfor %}\n")
    [d] = checked.diagnostics
    assert (d.code, d.span.line) == ("E0505", 4)
    assert d.notes == ("the `if` block opened at line 3 is still open here",)
    checked = check_text(tmp_path, BASE, "{{ cash }}\n{% for u in orders.used %}\n{{ u.text }}\n")
    [d] = checked.diagnostics
    assert (d.span.line, d.message, d.help) == (2, "template syntax error: the template ends inside this `for` block",
                                                "close it with `{% endfor %}`")


def test_reads_that_a_local_name_or_a_condition_makes_safe_are_not_reported(tmp_path: Path) -> None:
    text = BASE.replace("  cost money(n)\n", "  cost price(n)\n", 1).replace("  n: 1..9\n", "  n: 1..6\n", 1) + (
        "table price(k: int) -> money { below 1: 0, 1 to 5: 1, from 6: 2 }\n"
        "table t(x: int) -> int { 1: 2 }\n"
        "phase q {\n let t = [1, 2]\n let v = t[1] + t[0]\n let w = [3][0]\n}\n"
        "define f(x: int) -> int = t(1) + [x][0]\nphase r { let v = f(1) }\n")
    checked = check_text(tmp_path, text)
    assert checked.ok and not checked.diagnostics, show(checked.diagnostics)


def test_an_argument_a_table_does_not_cover_names_the_missing_keys(tmp_path: Path) -> None:
    text = BASE.replace("  cost money(n)\n", "  cost price(n)\n", 1) \
        + "table price(k: int) -> money { 1: 1, 2: 2, 3: 2, 4: 2, 5: 2, 8: 3 }\n"
    checked = check_text(tmp_path, text)
    [d] = checked.diagnostics
    assert d.message == ("`n` of order `put` may be 6, 7 and 9, and table `price` has no row for them: such an "
                         "order would stop the turn"), show([d])


def test_an_argument_read_with_brackets_is_checked_too(tmp_path: Path) -> None:
    text = BASE.replace("  cost money(n)\n", "  cost price[n]\n", 1) \
        + "table price(k: int) -> money { 1: 1, 2: 2, 3: 2, 4: 2, 5: 2, 6: 3, 7: 3, 8: 3 }\n"
    checked = check_text(tmp_path, text)
    assert [(d.code, d.message.split(",")[0]) for d in checked.diagnostics] == [
        ("W0205", "`n` of order `put` may be 9")], show(checked.diagnostics)


def test_one_mistake_in_a_table_read_is_reported_once(tmp_path: Path) -> None:
    # A key of the wrong type is E0301 alone, not also "no row for it".
    checked = check_text(tmp_path, BASE + 'table t(x: int) -> int { 1: 2 }\nphase q { let v = t("1") }\n')
    assert [d.code for d in checked.diagnostics] == ["E0301"], show(checked.diagnostics)


# ---------------------------------------------------------------- all at once, in order

MANY = BASE.replace("  moves: int = 0\n", "  moves: intt = 0\n", 1) + '''param spare: int = 1
define price(b: Box) -> money = b.stones
phase later {
  for each b in Box {
    b.stones += stonez
  }
  news "{me.name} waits"
}
table chances -> int weighted {
  50%: 1
  30%: 2
}
order lost "L,{x}" { x: int }
'''


def test_every_mistake_is_reported_in_one_run_sorted_by_position(tmp_path: Path) -> None:
    checked = check_text(tmp_path, MANY, "{{ cash }} {{ nothing }}\n")
    got = [(d.span.file, d.span.line, d.code) for d in checked.diagnostics]
    b = BASE_LINES
    expected = [
        ("t.rules", 14, "E0201"),
        ("t.rules", b + 1, "W0101"),
        ("t.rules", b + 2, "W0101"),
        ("t.rules", b + 2, "E0301"),
        ("t.rules", b + 5, "E0309"),
        ("t.rules", b + 7, "E0306"),
        ("t.rules", b + 9, "E0221"),
        ("t.rules", b + 9, "W0101"),
        ("t.rules", b + 13, "W0102"),
        ("t.report.j2", 1, "E0506"),
    ]
    assert got == expected, show(checked.diagnostics)
    # The ruleset first, then its template, each in the order of its lines.
    keys = [(d.span.file != "t.rules", d.span.file, d.span.line, d.span.col) for d in checked.diagnostics]
    assert keys == sorted(keys)
    assert not checked.ok


def test_check_command_reports_them_all_in_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = tmp_path / "t.rules"
    rules.write_text(MANY, encoding="utf-8")
    (tmp_path / "t.report.j2").write_text("{{ cash }}\n", encoding="utf-8")
    assert main(["check", str(rules)]) == 1
    out = capsys.readouterr().out
    assert "5 error(s), 4 warning(s)" in out
    for code in ("E0201", "E0301", "E0309", "E0306", "E0221", "W0102", "W0101"):
        assert f"[{code}]" in out
    first = out.index(f"{rules}:14:")
    assert first < out.index(f"{rules}:{BASE_LINES + 5}:") < out.index(f"{rules}:{BASE_LINES + 13}:")


# ---------------------------------------------------------------- JSON output

def _json_check(paths: list[Path], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    status = main(["check", *map(str, paths), "--format", "json"])
    out = capsys.readouterr().out
    return status, json.loads(out)


def _schema() -> dict[str, object]:
    schema = ROOT / "rulesdsl" / "schemas" / "diagnostics.schema.json"
    result: dict[str, object] = json.loads(schema.read_text(encoding="utf-8"))
    return result


def test_json_output_validates_against_the_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "t.rules").write_text(MANY, encoding="utf-8")
    (bad / "t.report.j2").write_text("{{ cash }} {{ nothing }}\n", encoding="utf-8")
    broken = tmp_path / "broken.rules"
    broken.write_text('ruleset "X" {\n  version "1"\n', encoding="utf-8")
    status, data = _json_check([bad / "t.rules", broken], capsys)
    assert status == 1
    jsonschema.validate(data, _schema())
    diags = data["diagnostics"]
    assert isinstance(diags, list)
    codes = [d["code"] for d in diags]
    assert {"E0201", "E0309", "E0506", "W0101", "E0101"} <= set(codes)
    assert all(d["line"] >= 1 and d["column"] >= 1 for d in diags)
    eof = next(d for d in diags if d["code"] == "E0101")
    assert (eof["file"], eof["line"], eof["column"]) == (str(broken), 2, 14)


def test_json_output_of_a_clean_ruleset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, data = _json_check([ROOT / "rulesets" / "covert.rules"], capsys)
    assert status == 0
    jsonschema.validate(data, _schema())
    assert data == {"diagnostics": []}


def test_diagnostic_to_json_has_every_field() -> None:
    from rulesdsl.source import Span

    d = Diagnostic(Span("x.rules", 3, 4, 3, 9), "E0309", "unknown name `y`", notes=("n",), help="h")
    jsonschema.validate({"diagnostics": [d.to_json()]}, _schema())


def test_a_loop_finding_a_field_no_index_can_hold_is_not_told_to_index_it(tmp_path: Path) -> None:
    """W0207 told a loop over a numbered thing `where u.task == "B"` (a text field) to mark `task: text indexed`,
    which is E0242: a warning with no way to follow it. It is given only for a field an index can hold."""
    text = BASE + ('thing Unit numbered { task: text  at: Box? }\n'
                   'phase q { for each u in Unit where u.task == "B" { news "x" } }\n')
    checked = check_text(tmp_path, text)
    assert checked.ok and not checked.diagnostics, show(checked.diagnostics)
    # A test of a field that can be indexed, after the text one, is still warned of, and named.
    text = BASE + ('thing Unit numbered { task: text  at: Box }\n'
                   'phase q { for each b in Box {\n'
                   '  let v = count(u for u in Unit where u.task == "B" and u.at == b)\n} }\n')
    [d] = check_text(tmp_path, text).diagnostics
    assert d.code == "W0207" and "`at`" in d.message, show([d])
