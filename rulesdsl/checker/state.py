"""A ruleset being checked (its AST, names and the IR built so far) -> handed from pass to pass of the checker."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rulesdsl import ir
from rulesdsl import nodes as n
from rulesdsl.checker.env import Env
from rulesdsl.checker.exprs import ExprChecker

# Reads a report template named in the ruleset: (the name to show, its text), or None if it is not there.
TemplateLoader = Callable[[str], "tuple[str, str] | None"]


@dataclass
class Checking:
    """What every pass reads and adds to: each pass is a plain function of it."""

    module: n.Module
    env: Env
    exprs: ExprChecker
    program: ir.Program
    load_template: TemplateLoader
    simulation: Any = None  # the `simulation` block's entries, from phase 1 to phase 2 (checker/simulation.py)


Pass = Callable[[Checking], None]
