"""A cached ruleset's `rulesdsl turn` -> the modules it imports: only what a turn uses (issue 10 §5)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from rulesdsl.source import plain_file_name

ROOT = Path(__file__).resolve().parents[2]

# What compiles a ruleset: a turn whose compiled module is cached needs none of it.
NOT_IN_A_TURN = ("rulesdsl.parser", "rulesdsl.checker", "rulesdsl.codegen", "rulesdsl.nodes", "rulesdsl.ir",
                 "lark", "jsonschema")

_TURN = """
import json, sys
from rulesdsl.cli import main
code = main(sys.argv[1:])
print(json.dumps([code, sorted(sys.modules)]))
"""


def _run(args: list[str], cache: Path) -> tuple[int, list[str]]:
    # A fresh interpreter: what this test process imported must not hide what a turn imports.
    env = {**os.environ, "RULESDSL_CACHE": str(cache), "PYTHONPATH": str(ROOT)}
    env.pop("RULESDSL_CHECK_REPORTS", None)
    done = subprocess.run([sys.executable, "-c", _TURN, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, check=True)
    code, modules = json.loads(done.stdout.splitlines()[-1])
    return code, modules


def test_a_cached_turn_imports_no_compiler_part(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    game = tmp_path / "game"
    example = ROOT / "tests" / "golden" / "covert" / "military"
    mail = sorted((example / "turn-1").glob("*.txt"))
    code, made = _run(["new", str(ROOT / "rulesets" / "covert.rules"), str(game), "--scenario",
                       str(example / "scenario.yaml")], cache)
    assert code == 0
    assert "rulesdsl.checker" in made  # `new` compiles: the list below is not empty for lack of a check
    templates = sorted(cache.glob("template_*.py"))
    code, modules = _run(["turn", str(game), *map(str, mail)], cache)
    assert code == 0
    assert (game / "turns" / "turn-001" / "state.yaml").is_file()
    imported = [m for m in modules if any(m == n or m.startswith(f"{n}.") for n in NOT_IN_A_TURN)]
    assert imported == []
    # The templates came from the cache too: the text one and the HTML one, each compiled beside the module,
    # once, by `new`; the turn added none.
    assert len(templates) == 2
    assert sorted(cache.glob("template_*.py")) == templates


def test_a_plain_file_name_is_one_the_compiler_and_the_checker_both_accept() -> None:
    # One rule in rulesdsl.source, read by the checker (E0510) and by the compiler (which files it hashes).
    names = ["", ".", "..", "a.j2", "../a.j2", "/srv/a.j2", "sub/a.j2", "a\x00.j2", "a\\b.j2", "...", " ", ".j2"]
    assert [n for n in names if plain_file_name(n)] == ["a.j2", "a\\b.j2", "...", " ", ".j2"]
