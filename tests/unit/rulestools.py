"""Small rulesets written into a test's folder, and helpers to check, compile and play them."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from rulesdsl import ir
from rulesdsl.compiler import Checked, check_path, load_module
from rulesdsl.diagnostics import Diagnostic
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.spec import RulesetSpec
from rulesdsl.runtime.state import new_game

ROOT = Path(__file__).resolve().parents[2]
RULESETS = ROOT / "rulesets"
COVERT = RULESETS / "covert.rules"

# A clean ruleset (no error, no warning) that the checker tests add one mistake to. The mistakes are
# appended after its last line, so they start at line BASE_LINES + 1.
BASE = '''ruleset "T" { version "1" turn "turn" }
thing Box keyed by code {
  name: text
  stones: int = 0
  near: set of Box
  owner: Player -> int
}
data Box(code, name) {
  A: "Alpha"
  B: "Beta"
}
player {
  cash: money = 10
  moves: int = 0
}
orders {
  header "{account}", "{code}"
  pay from cash
}
order put "P,{box},{n}" {
  box: Box
  n: 1..9
  cost money(n)
  effect { box.stones += n }
}
phase putting: run put
report {
  cash = me.cash
  template "t.report.j2"
}
'''
BASE_LINES = BASE.count("\n")
BASE_TEMPLATE = "Cash {{ cash }}\n"


def write_ruleset(folder: Path, text: str, template: str = BASE_TEMPLATE, name: str = "t") -> Path:
    """Writes NAME.rules and NAME.report.j2 into `folder`; returns the .rules path."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.report.j2").write_text(template, encoding="utf-8")
    path = folder / f"{name}.rules"
    path.write_text(text, encoding="utf-8")
    return path


def check_text(folder: Path, text: str, template: str = BASE_TEMPLATE) -> Checked:
    return check_path(write_ruleset(folder, text, template))


def marked_line(text: str, marker: str = "#!") -> int:
    """The 1-based line of `text` that carries `marker` (a comment, so the ruleset still reads the same)."""
    lines = [i for i, ln in enumerate(text.splitlines(), 1) if marker in ln]
    assert len(lines) == 1, f"expected one line marked {marker!r}, found {lines}"
    return lines[0]


def show(diags: list[Diagnostic]) -> str:
    return "\n".join(f"{d.span} {d.severity}[{d.code}] {d.message} (help: {d.help})" for d in diags)


# ---------------------------------------------------------------- a ruleset to play

@dataclass
class Loaded:
    module: ModuleType
    spec: RulesetSpec

    def new_game(self, players: int = 2, **scenario: Any) -> Game:
        """A game at turn 0 with players Ann (account 1, code A), Bob (2, B), ..."""
        names = ["Ann", "Bob", "Cid", "Dee"]
        data: dict[str, Any] = {
            "players": [{"name": names[i], "account": str(i + 1), "code": chr(ord("A") + i)}
                        for i in range(players)],
            **scenario,
        }
        g = new_game(self.spec, data)
        g.module_file = str(self.module.__file__)
        return g


def load_text(folder: Path, text: str, template: str, name: str, cache: Path) -> Loaded:
    path = write_ruleset(folder, text, template, name)
    checked = check_path(path)
    assert checked.ok, show(checked.diagnostics)
    module, spec = load_module(path, cache)
    return Loaded(module, spec)


def file_tree(root: Path) -> dict[str, str]:
    """Every file and folder under `root`: relative path -> sha256 of its bytes (or "<dir>")."""
    out: dict[str, str] = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        out[rel] = "<dir>" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
    return out


@cache
def program_of(path: Path) -> ir.Program:
    """The checked IR of a shipped ruleset, once per test process (the seams tests read it many times)."""
    checked = check_path(path)
    assert checked.program is not None, [d.message for d in checked.diagnostics]
    return checked.program


def walk_ir(node: object) -> Iterator[object]:
    """Every IR node under `node`, itself first."""
    yield node
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        for f in dataclasses.fields(node):
            yield from walk_ir(getattr(node, f.name))
    elif isinstance(node, (tuple, list)):
        for item in node:
            yield from walk_ir(item)
