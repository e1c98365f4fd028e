"""Shipped rulesets -> their generated modules, checked by ruff with the project's config: they read as code
written by hand (negated conditions, only the arguments used, sorted slots and imports), not as output."""

from __future__ import annotations

import ast
import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rulesdsl.compiler import compile_path
from rulesdsl.runtime import spec
from tests.unit.rulestools import ROOT, RULESETS

SHIPPED = ("covert", "nukecards")


@pytest.fixture(scope="module", params=SHIPPED)
def generated(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    name: str = request.param
    text = compile_path(RULESETS / f"{name}.rules")
    target = tmp_path_factory.mktemp("generated") / f"{name}_generated.py"
    target.write_text(text, encoding="utf-8")
    return name, target


def test_ruff_finds_nothing_in_a_shipped_generated_module(generated: tuple[str, Path]) -> None:
    _, target = generated
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"),
         "--output-format", "concise", str(target)],
        capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_no_condition_is_negated_by_hand(generated: tuple[str, Path]) -> None:
    """No `not not x`, `not a == b`, `not x in y`, `not x is not None`: the operator flips instead."""
    tree = ast.parse(generated[1].read_text(encoding="utf-8"))
    flippable = (ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Is, ast.IsNot)
    clumsy = [ast.unparse(node) for node in ast.walk(tree)
              if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
              and ((isinstance(node.operand, ast.UnaryOp) and isinstance(node.operand.op, ast.Not))
                   or (isinstance(node.operand, ast.Compare) and len(node.operand.ops) == 1
                       and isinstance(node.operand.ops[0], flippable)))]
    assert clumsy == []


def test_every_generated_block_is_marked_with_its_rules_line(generated: tuple[str, Path]) -> None:
    name, target = generated
    text = target.read_text(encoding="utf-8")
    lines = text.splitlines()
    tree = ast.parse(text)
    marker = re.compile(rf"^# {name}\.rules:\d+$")
    blocks: list[ast.stmt] = [b for b in tree.body
                              if isinstance(b, (ast.FunctionDef, ast.ClassDef)) and b.name != "_ruleset"]
    blocks += [b for b in tree.body if isinstance(b, ast.Assign)
               and all(isinstance(t, ast.Name) and t.id.startswith("rows_") for t in b.targets)]
    unmarked = [getattr(b, "name", None) or ast.unparse(b)[:40] for b in blocks
                if not marker.match(lines[b.lineno - 2])]
    assert unmarked == []


def test_an_order_function_unpacks_only_the_arguments_it_reads(generated: tuple[str, Path]) -> None:
    tree = ast.parse(generated[1].read_text(encoding="utf-8"))
    unread = []
    for fn in tree.body:
        if not (isinstance(fn, ast.FunctionDef) and fn.name.startswith("order_")):
            continue
        stored = {t.id for node in ast.walk(fn) if isinstance(node, ast.Assign) for t in node.targets
                  if isinstance(t, ast.Name)}
        loaded = {node.id for node in ast.walk(fn) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
        unread += [(fn.name, v) for v in stored - loaded]
    assert unread == []


# Modules compiled before the spec classes were called with keywords pass their fields by position: these
# orders are their contract. A field may be added at the end, with a default; none moves or leaves.
POSITIONAL = {
    "FieldSpec": ("name", "attr", "type", "default", "reset_each_turn"),
    "ThingSpec": ("name", "cls", "key", "fields", "instances"),
    "ParamSpec": ("name", "type", "default", "secret"),
    "ArgSpec": ("name", "type", "low", "high"),
    "OrderSpec": ("name", "kind", "pattern", "args", "valid", "require", "cost", "effect", "once_per", "line",
                  "counts_as", "ends_turn"),
    "GroupSpec": ("name", "limit", "reason"),
    "PolicySpec": ("header", "budget_field", "budget_start", "budget_plus", "limit", "new_limit", "pay_field",
                   "groups"),
    "PhaseSpec": ("name", "run", "when", "line", "before_orders"),
    "VictorySpec": ("name", "when", "held_for", "warn", "line"),
}


@pytest.mark.parametrize("name", sorted(POSITIONAL))
def test_the_spec_classes_keep_the_positional_order_older_modules_use(name: str) -> None:
    fields = tuple(f.name for f in dataclasses.fields(getattr(spec, name)))
    assert fields[:len(POSITIONAL[name])] == POSITIONAL[name]
