"""Code generator: deterministic text, imports only the runtime's exported names, marked blocks, it runs."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rulesdsl import nodes as n
from rulesdsl.compiler import compile_path
from rulesdsl.parser import parse
from rulesdsl.runtime import exported
from rulesdsl.runtime.spec import RulesetSpec
from rulesdsl.source import Source
from tests.unit.rulestools import BASE, COVERT, ROOT, write_ruleset


@pytest.fixture(scope="module")
def covert_py() -> str:
    return compile_path(COVERT)


@pytest.fixture(scope="module")
def covert_tree(covert_py: str) -> ast.Module:
    return ast.parse(covert_py, filename="covert_generated.py")


def test_generating_twice_gives_identical_text(covert_py: str) -> None:
    assert compile_path(COVERT) == covert_py


def test_generated_text_does_not_depend_on_the_hash_seed(covert_py: str, tmp_path: Path) -> None:
    out = tmp_path / "covert_again.py"
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-m", "rulesdsl", "compile", str(COVERT), "-o", str(out)],
                   check=True, env=env, cwd=ROOT, capture_output=True)
    assert out.read_text(encoding="utf-8") == covert_py


def test_generated_module_imports_only_the_runtime(covert_tree: ast.Module) -> None:
    imports = [node for node in ast.walk(covert_tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert imports, "the module imports the runtime"
    for node in imports:
        assert isinstance(node, ast.ImportFrom), ast.unparse(node)
        assert node.module == "rulesdsl.runtime" and node.level == 0, ast.unparse(node)
    names = {alias.name for node in imports if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert names <= exported, names - exported
    assert all(alias.asname is None for node in imports for alias in node.names)


def test_generated_module_has_no_dynamic_imports(covert_tree: ast.Module) -> None:
    called = {node.func.id for node in ast.walk(covert_tree)
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert not called & {"__import__", "eval", "exec", "open", "compile", "globals", "getattr", "setattr"}
    attrs = {node.attr for node in ast.walk(covert_tree) if isinstance(node, ast.Attribute)}
    assert "import_module" not in attrs


def test_every_free_name_is_imported_defined_or_builtin(covert_tree: ast.Module) -> None:
    import builtins

    defined = {node.name for node in covert_tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    defined |= {t.id for node in covert_tree.body if isinstance(node, ast.Assign) for t in node.targets
                if isinstance(t, ast.Name)}
    imported = {a.name for node in covert_tree.body if isinstance(node, ast.ImportFrom) for a in node.names}
    bound: set[str] = set()
    for node in ast.walk(covert_tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    loaded = {node.id for node in ast.walk(covert_tree)
              if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    free = loaded - defined - imported - bound - set(dir(builtins))
    assert free == set()


def _declarations(path: Path) -> dict[tuple[str, str], n.Decl]:
    module, errors = parse(Source(path.name, path.read_text(encoding="utf-8")))
    assert module is not None and not errors
    kinds = {n.ThingDecl: "thing", n.PlayerDecl: "player", n.TableDecl: "table", n.DefineDecl: "define",
             n.ProcedureDecl: "procedure", n.OrderDecl: "order", n.PhaseDecl: "phase", n.VictoryDecl: "victory",
             n.ReportDecl: "report", n.SimulationDecl: "simulation"}
    return {(kinds[type(d)], d.name): d for d in module.decls if type(d) in kinds}


def _origin(name: str, orders: set[str], phases: set[str], victories: set[str]) -> tuple[str, str]:
    """The declaration a generated top-level name comes from."""
    for prefix, kind in (("tbl_", "table"), ("ratio_", "table"), ("fn_", "define"), ("proc_", "procedure")):
        if name.startswith(prefix):
            return kind, name[len(prefix):]
    if name == "report_data":
        return "report", "report"
    if name.startswith("sim_"):
        return "simulation", "simulation"
    if name.startswith("order_"):
        return "order", next(o for o in sorted(orders, key=len, reverse=True) if name.startswith(f"order_{o}_"))
    if name.startswith("phase_"):
        return "phase", next(p for p in sorted(phases, key=len, reverse=True)
                             if name in (f"phase_{p}", f"phase_{p}_when"))
    if name.startswith("victory_"):
        return "victory", next(v for v in sorted(victories, key=len, reverse=True)
                               if name.startswith(f"victory_{v}_"))
    if name == "Player":
        return "player", "Player"
    return "thing", name


def test_every_generated_block_is_marked_with_its_rules_line(covert_py: str, covert_tree: ast.Module) -> None:
    decls = _declarations(COVERT)
    orders = {name for kind, name in decls if kind == "order"}
    phases = {name for kind, name in decls if kind == "phase"}
    victories = {name for kind, name in decls if kind == "victory"}
    lines = covert_py.splitlines()
    marker = re.compile(r"^# covert\.rules:(\d+)$")
    unmarked, misplaced = [], []
    blocks = [b for b in covert_tree.body if isinstance(b, (ast.FunctionDef, ast.ClassDef)) and b.name != "_ruleset"]
    assert len(blocks) > 60
    for block in blocks:
        above = lines[block.lineno - 2] if block.lineno >= 2 else ""
        m = marker.match(above)
        if m is None:
            unmarked.append(block.name)
            continue
        decl = decls[_origin(block.name, orders, phases, victories)]
        src = int(m.group(1))
        if not decl.span.line <= src <= decl.span.end_line:
            misplaced.append((block.name, src, decl.span.line, decl.span.end_line))
    assert misplaced == []
    assert unmarked == [], f"blocks without a `# covert.rules:N` line: {unmarked}"


def test_markers_point_at_the_declaration_line(covert_py: str) -> None:
    rules_lines = COVERT.read_text(encoding="utf-8").splitlines()
    marks = [int(x) for x in re.findall(r"^# covert\.rules:(\d+)$", covert_py, flags=re.M)]
    assert len(marks) > 40
    for src in marks:
        # A declaration's first line, or the exact `cost` or `warn` line a small function comes from, or the
        # `simulation` entry a simulation function comes from.
        assert re.match(r"\s*(thing|player|table|define|procedure|(personal )?order|phase|victory|report|cost|warn"
                        r"|choose|invariant|hidden)\b",
                        rules_lines[src - 1]), (src, rules_lines[src - 1])


def test_the_line_map_points_into_the_rules_file(covert_py: str) -> None:
    namespace: dict[str, object] = {}
    exec(compile(covert_py, "covert_generated.py", "exec"), namespace)
    line_map = namespace["LINE_MAP"]
    assert isinstance(line_map, tuple) and line_map
    py_lines = covert_py.count("\n")
    rules_lines = COVERT.read_text(encoding="utf-8").count("\n")
    starts = [py for py, _ in line_map]
    assert starts == sorted(starts)
    assert all(1 <= py <= py_lines and 1 <= src <= rules_lines for py, src in line_map)
    # Each marker comment is where its own entry of the map starts.
    for i, line in enumerate(covert_py.splitlines(), 1):
        m = re.match(r"^# covert\.rules:(\d+)$", line)
        if m:
            assert (i, int(m.group(1))) in line_map


def test_the_rule_map_names_the_declaration_of_every_generated_function(covert_py: str,
                                                                        covert_tree: ast.Module) -> None:
    namespace: dict[str, object] = {}
    exec(compile(covert_py, "covert_generated.py", "exec"), namespace)
    rule_map = namespace["RULE_MAP"]
    assert isinstance(rule_map, tuple) and namespace["RULESET"].rule_map == rule_map  # type: ignore[attr-defined]
    decls = _declarations(COVERT)
    orders = {name for kind, name in decls if kind == "order"}
    phases = {name for kind, name in decls if kind == "phase"}
    victories = {name for kind, name in decls if kind == "victory"}
    words = {"table": "table", "define": "function", "procedure": "procedure", "order": "order", "phase": "phase",
             "victory": "victory"}
    blocks = [b for b in covert_tree.body if isinstance(b, ast.FunctionDef) and b.name != "_ruleset"]
    assert len(blocks) > 60
    for block in blocks:
        rule = [label for start, label in rule_map if start <= block.lineno][-1]
        kind, name = _origin(block.name, orders, phases, victories)
        assert rule == ("the report" if kind == "report" else "the simulation block" if kind == "simulation"
                        else f"{words[kind]} {name}"), block.name


def test_the_generated_module_runs(covert_py: str) -> None:
    namespace: dict[str, object] = {"__name__": "covert_generated"}
    exec(compile(covert_py, "covert_generated.py", "exec"), namespace)
    spec = namespace["RULESET"]
    assert isinstance(spec, RulesetSpec)
    assert spec.title == "Covert Operations" and spec.turn_unit == "day" and spec.source == "covert.rules"
    [country] = spec.things
    assert country.name == "Country" and len(country.instances) == 33
    assert [p.name for p in spec.phases][:3] == ["dawn", "messages", "superspies"]
    assert {o.name for o in spec.orders} >= {"arms", "bribe", "kill", "stop", "discard", "resign"}
    assert spec.template_name == "covert.report.j2" and spec.template
    assert spec.line_map == namespace["LINE_MAP"]


def test_a_small_ruleset_generates_and_runs(tmp_path: Path) -> None:
    path = write_ruleset(tmp_path, BASE)
    text = compile_path(path)
    assert text == compile_path(path)
    assert text.startswith("# @generated by rulesdsl")
    namespace: dict[str, object] = {}
    exec(compile(text, "t_generated.py", "exec"), namespace)
    spec = namespace["RULESET"]
    assert isinstance(spec, RulesetSpec)
    assert [o.name for o in spec.orders] == ["put"] and spec.policy.pay_field == "cash"
    assert re.search(r"^# t\.rules:20$", text, flags=re.M), "the order `put` (line 20) is marked"


def test_an_and_or_condition_keeps_its_meaning_under_not(tmp_path: Path) -> None:
    # `valid C` is emitted as "refuse if not C": an `or` inside must stay whole.
    rules = BASE.replace("  cost money(n)\n", '  valid n == 1 or n > 5 else "one, or more than five"\n'
                                              "  cost money(n)\n", 1)
    text = compile_path(write_ruleset(tmp_path, rules))
    assert "if not (v_n == 1 or v_n > 5):" in text
    namespace: dict[str, object] = {}
    exec(compile(text, "t_generated.py", "exec"), namespace)
    spec = namespace["RULESET"]
    assert isinstance(spec, RulesetSpec)
    valid = spec.orders[0].valid
    assert valid is not None

    class Order:
        def __init__(self, n: int) -> None:
            self.args = {"box": None, "n": n}

    assert [valid(None, None, Order(k)) for k in (1, 3, 7)] == [None, "one, or more than five", None]


def _valid_of(text: str) -> Any:
    namespace: dict[str, object] = {}
    exec(compile(text, "t_generated.py", "exec"), namespace)
    spec = namespace["RULESET"]
    assert isinstance(spec, RulesetSpec)
    return spec.orders[0].valid


class _Order:
    def __init__(self, box: object, n: int) -> None:
        self.args = {"box": box, "n": n}


def test_a_negated_comparison_flips_its_operator_and_keeps_its_meaning(tmp_path: Path) -> None:
    rules = BASE.replace("  cost money(n)\n", '  valid n <= 5 else "at most five"\n'
                                              '  valid n != 3 else "not three"\n'
                                              '  valid not (n == 4) else "not four"\n'
                                              '  valid not not (n != 2) else "not two"\n'
                                              "  cost money(n)\n", 1)
    text = compile_path(write_ruleset(tmp_path, rules))
    for flipped in ("if v_n > 5:", "if v_n == 3:", "if v_n == 4:", "if v_n == 2:"):
        assert flipped in text
    assert "if not" not in text
    valid = _valid_of(text)
    assert [valid(None, None, _Order(None, k)) for k in (1, 2, 3, 4, 6)] == [
        None, "not two", "not three", "not four", "at most five"]


def test_an_order_function_unpacks_only_the_arguments_it_reads(tmp_path: Path) -> None:
    rules = BASE.replace("  cost money(n)\n", '  valid n > 1 else "more than one"\n  cost money(n)\n', 1)
    text = compile_path(write_ruleset(tmp_path, rules))
    valid = text[text.index("def order_put_valid"):text.index("def order_put_cost")]
    assert "v_n = o.args['n']" in valid
    assert "v_box" not in valid


def test_an_exact_table_of_literals_is_a_module_constant_and_one_of_things_is_not(tmp_path: Path) -> None:
    rules = BASE + '''table price(n: int) -> int {
  1: 10
  2: 20
}
table neighbour(n: int) -> Box {
  1: Box.A
  2: Box.B
}
'''
    text = compile_path(write_ruleset(tmp_path, rules))
    assert re.search(r"^rows_price = \{$", text, flags=re.M)
    assert "return lookup('price', rows_price, (k0,))" in text
    assert "rows_neighbour" not in text  # a thing is looked up in the game at each call
    namespace: dict[str, Any] = {}
    exec(compile(text, "t_generated.py", "exec"), namespace)
    assert namespace["tbl_price"](None, 2) == 20
