"""Checked IR (every body, text and report field) -> E0307 wherever players would see a secret parameter.

A secret parameter stays with the GM. Players see two things a ruleset writes: the report's fields, and
texts (news, tells, refusals, anything a text may end up in: every text of a ruleset may reach a player).
A value shows a secret when it reads the parameter itself, calls a function that reads it (directly or
through other calls) or a procedure that returns a value reading it, or reads a table whose range bounds or
chances it sets.

- A report field may not use such a value at all: E0307 under the name, call or table read.
- A text may not show one: each `{...}` that does gets its own E0307, naming the function or table it
  goes through. A text inside a `{...}` reports its own, and the text around it does not repeat them.

This runs in phase 3, when every function's body is known, so a call's secrets are those of the whole
call graph (recursion included), whatever the order in which phase 2 checked the bodies.

A field's per-key default travels with each read of the field (`ir.MapGet.default`), but it was checked
where the field is declared: it is judged there, not at every read.
"""

from __future__ import annotations

from collections.abc import Iterator

from rulesdsl import ir
from rulesdsl.checker.env import Env
from rulesdsl.checker.state import Checking

_REPORT_HELP = "secret parameters stay with the GM; report only their effects"


def check(c: Checking) -> None:
    """E0307 for every report field and every text that would show a secret parameter."""
    secrets = _Secrets(c.env, c.program)
    c.program.secret_tables = _secret_tables(secrets, c.program)
    c.program.secret_functions = _secret_functions(secrets, c.program)
    for root, chance in _bodies(c.program):
        secrets.expr(root, chance)
    if c.program.report is not None:
        for _, value in c.program.report.fields:
            secrets.report(value)
    # What phase 2 refused and left out of the program (each has its error already) is still judged: a
    # text there would show its secret once the mistake is fixed, and it is better said now.
    for value, ctx in c.env.refused:
        if ctx.kind == "report":
            secrets.report(value)
        else:
            secrets.expr(value, ctx.allow_chance)


def _secret_tables(secrets: _Secrets, p: ir.Program) -> dict[str, tuple[str, ...]]:
    """Each table whose rows would show a secret parameter, with those parameters in name order: its bounds
    or chances set by one, or its values reading one (directly, through a function, or another such table).
    The rulebook prints every other table; a report may read none of these."""
    shown: dict[str, set[str]] = {}
    read: dict[str, set[str]] = {}
    for t in p.tables:
        values = [value for _, value in t.rows]
        mine, called = _reads(secrets.env, values, {})
        for name in called:
            mine |= secrets.reads.get(name, set())
        shown[t.name] = mine | set(secrets.table(t.name))
        read[t.name] = {x.table for x in ir.walk(values) if isinstance(x, ir.TableGet)}
    _close(shown, read)  # a table whose values read a secret table's shows its secrets too, however far
    return {name: tuple(sorted(s)) for name, s in shown.items() if s}


def _secret_functions(secrets: _Secrets, p: ir.Program) -> frozenset[str]:
    """The functions whose value would show a secret: it reads a secret parameter, or a secret table (bounds,
    chances or values), directly or through the functions it calls. A traced turn keeps their draws' odds and
    table rows from players (codegen/traced.py)."""
    shown: dict[str, set[str]] = {}
    calls: dict[str, set[str]] = {}
    for f in p.functions:
        nodes = list(ir.walk(f.body))
        tables = {x.table for x in nodes if isinstance(x, ir.TableGet)}
        shown[f.name] = set(secrets.reads.get(f.name, ())) | {s for t in tables for s in p.secret_tables.get(t, ())}
        calls[f.name] = {x.func for x in nodes if isinstance(x, ir.CallFn)}
    _close(shown, calls)
    return frozenset(name for name, s in shown.items() if s)


def _close(sets: dict[str, set[str]], edges: dict[str, set[str]]) -> None:
    """Grow each name's set by the sets of the names it reaches through `edges`, however far (cycles too)."""
    changed = True
    while changed:
        changed = False
        for name, others in edges.items():
            for other in others:
                extra = sets.get(other, set()) - sets[name]
                if extra:
                    sets[name] |= extra
                    changed = True


def _bodies(p: ir.Program) -> Iterator[tuple[ir.Node | tuple[ir.Node, ...], bool]]:
    """Every body outside the report, with whether it may draw at random (a draw elsewhere is E0324, and
    its table's secrets are not counted there)."""
    for f in p.functions:
        yield f.body, False
    sectors = p.grid.fields if p.grid is not None else ()
    for fd in (*(fd for t in p.things for fd in t.fields), *sectors, *p.player_fields, *p.world_fields):
        for e in (fd.default, fd.where):
            if e is not None:
                yield e, False
    for t in p.tables:
        yield tuple(value for _, value in t.rows), False
    for proc in p.procedures:
        yield proc.body, True
    for g in p.policy.groups:
        yield g.reason, False
    for o in p.orders:
        for a in o.args:
            yield a, False
        yield (*o.valids, *o.requires), False
        for e in (o.ends_turn, o.cost):
            if e is not None:
                yield e, False
        yield o.effect, True
        if o.default is not None:
            yield o.default.body, True
    for ph in p.phases:
        yield (*((ph.when,) if ph.when is not None else ()), *ph.body), True
    for v in p.victories:
        yield v, False


class _Secrets:
    def __init__(self, env: Env, program: ir.Program) -> None:
        self.env = env
        self.diags = env.diags
        self.reads = _function_reads(env, program)

    def _param(self, name: str) -> bool:
        p = self.env.params.get(name)
        return p is not None and p.secret

    def table(self, name: str) -> list[str]:
        """The secret parameters that set `name`'s bounds or chances, in the order written."""
        return [s for s in self.env.table_params.get(name, ()) if self._param(s)]

    def expr(self, node: ir.Node | tuple[ir.Node, ...], chance: bool) -> tuple[set[str], set[str]]:
        """The secret parameters `node` shows, and those its texts already reported (E0307 for each is out)."""
        if isinstance(node, tuple):
            shown: set[str] = set()
            reported: set[str] = set()
            for item in node:
                s, r = self.expr(item, chance)
                shown |= s
                reported |= r
            return shown, reported
        if isinstance(node, ir.Interp):
            return self.text(node, chance)
        if isinstance(node, ir.Halt):
            return set(), set()  # its reason is for the GM, who may read secrets; no player sees it
        shown, reported = set(), set()
        if isinstance(node, ir.ParamRef) and self._param(node.name):
            shown.add(node.name)
        elif isinstance(node, ir.CallFn):
            shown |= self.reads.get(node.func, set())
        elif isinstance(node, ir.CallProcValue):
            shown |= self.reads.get(node.proc, set())
        elif isinstance(node, ir.TableGet):
            shown.update(self.table(node.table))
        elif isinstance(node, ir.Builtin) and node.func == "draw" and chance:
            shown.update(self.table(node.extra[0]))
        for child in _children(node):
            s, r = self.expr(child, chance)
            shown |= s
            reported |= r
        return shown, reported

    def text(self, node: ir.Interp, chance: bool) -> tuple[set[str], set[str]]:
        shown: set[str] = set()
        reported: set[str] = set()
        for part in node.parts:
            if isinstance(part, str):
                continue
            before = set(reported)
            secrets, inner = self.expr(part, chance)
            reported |= inner
            shown |= secrets
            # A secret an earlier `{...}` of this text showed is shown again here: each one is underlined.
            for s in sorted(secrets - (reported - before)):
                self._shown(part, s)
                reported.add(s)
        return shown, reported

    def _shown(self, value: ir.Expr, secret: str) -> None:
        """E0307 under the `{...}` of a text that shows secret parameter `secret`, saying how."""
        inside = list(ir.walk(value))
        direct = any(isinstance(x, ir.ParamRef) and x.name == secret for x in inside)
        via = next((f"function `{x.func}`" for x in inside if isinstance(x, ir.CallFn)
                    and secret in self.reads.get(x.func, set())), None)
        via = via or next((f"procedure `{x.proc}`" for x in inside if isinstance(x, ir.CallProcValue)
                           and secret in self.reads.get(x.proc, set())), None)
        via = via or next((f"table `{x.table}`" for x in inside if isinstance(x, ir.TableGet)
                           and secret in self.env.table_params.get(x.table, ())), None)
        how = f", through {via}" if via is not None and not direct else ""
        assert value.span is not None
        self.diags.error(value.span, "E0307", f"this text shows secret parameter `{secret}` to players{how}",
                         help="secret parameters stay with the GM; say what happened, not the number")

    def report(self, node: ir.Node) -> None:
        """A report field: no secret at all, each read of one under its own E0307 (texts say nothing more)."""
        if isinstance(node, ir.ParamRef) and self._param(node.name):
            assert node.span is not None
            self.diags.error(node.span, "E0307", f"secret parameter `{node.name}` cannot be used in a report",
                             help=_REPORT_HELP)
        elif isinstance(node, ir.TableGet):
            for s in self.table(node.table):
                assert node.span is not None
                self.diags.error(node.span, "E0307", f"table `{node.table}` has rows set by secret parameter `{s}`, "
                                 "so a report cannot use it", help=_REPORT_HELP)
        elif isinstance(node, ir.CallFn):
            for s in sorted(self.reads.get(node.func, set())):
                assert node.span is not None
                self.diags.error(node.span, "E0307", f"`{node.func}` reads secret parameter `{s}`, so a report "
                                 "cannot use it", help=_REPORT_HELP)
        for child in _children(node):
            self.report(child)


def _children(node: ir.Node) -> Iterator[ir.Node]:
    """`node.children()`, but for a per-key value's default, which is judged where the field declares it,
    and with the parts of what phase 2 refused, which players see once the mistake is fixed."""
    if isinstance(node, ir.MapGet):
        yield node.obj
        yield node.key
    elif isinstance(node, ir.Refused):
        yield from node.refused
    else:
        yield from node.children()


def _returned_reads(env: Env, proc: ir.Procedure) -> tuple[set[str], set[str]]:
    """What a procedure declared `-> TYPE` gives away: the secret parameters its returned values read, directly
    or through the locals they read (whatever those were given anywhere in the body), and the functions and
    procedures those values call. What only decided which value it returns is not shown by the value."""
    given: dict[str, list[ir.Expr]] = {}
    todo: list[ir.Expr] = []
    for node in ir.walk(proc.body):
        if isinstance(node, ir.Let):
            given.setdefault(node.name, []).append(node.value)
        elif isinstance(node, ir.Assign) and isinstance(node.target, ir.Local):
            given.setdefault(node.target.name, []).append(node.value)
        elif isinstance(node, ir.Return) and node.value is not None:
            todo.append(node.value)
    return _reads(env, todo, given)


def _reads(env: Env, roots: list[ir.Expr], given: dict[str, list[ir.Expr]]) -> tuple[set[str], set[str]]:
    """The secret parameters `roots` read (directly, through the tables they read, and through the values
    `given` to the locals they read) and the functions and procedures they call."""
    mine: set[str] = set()
    called: set[str] = set()
    followed: set[str] = set()
    todo = list(roots)
    while todo:
        stack: list[ir.Node] = [todo.pop()]
        while stack:
            node = stack.pop()
            if isinstance(node, ir.ParamRef) and (p := env.params.get(node.name)) is not None and p.secret:
                mine.add(node.name)
            elif isinstance(node, ir.TableGet):
                mine.update(s for s in env.table_params.get(node.table, ()) if env.params[s].secret)
            elif isinstance(node, ir.CallFn):
                called.add(node.func)
            elif isinstance(node, ir.CallProcValue):
                called.add(node.proc)
            elif isinstance(node, ir.Local) and node.name not in followed:
                followed.add(node.name)
                todo.extend(given.get(node.name, ()))
            stack.extend(_children(node))
    return mine, called


def _function_reads(env: Env, program: ir.Program) -> dict[str, set[str]]:
    """The secret parameters each function reads: in its body, through the tables it reads, and through
    every function it calls, however far (recursive calls too); and those each procedure's value gives away
    (`_returned_reads`), likewise."""
    reads: dict[str, set[str]] = {}
    calls: dict[str, set[str]] = {}
    for f in program.functions:
        # A function's locals are its parameters and comprehension names: nothing is given to them to follow.
        reads[f.name], calls[f.name] = _reads(env, [f.body], {})
    for proc in program.procedures:
        if proc.result is not None:
            reads[proc.name], calls[proc.name] = _returned_reads(env, proc)
    _close(reads, calls)
    return reads
