"""Statements that change where a body goes next (`while`, `return`, `break`, `skip`) -> IR and their diagnostics.

Phase 2 (CHECK_BODIES) checks them as `ExprChecker` meets them; this module also answers the questions the
rest of the checker asks about a block's flow: which statement ends it (W0212 for what follows, narrowing
past `if x == none { return }`), whether a procedure declared `-> TYPE` returns on every path (E0367), and
whether a `while true` can ever be left (E0371).
"""

from __future__ import annotations

import dataclasses

from rulesdsl import ir
from rulesdsl import nodes as n
from rulesdsl import types as T
from rulesdsl.checker.env import Context, Env, ExprChecks, Scope
from rulesdsl.source import Span

# What each place that may not ask a procedure's value is, for E0368 (the places chance is refused too).
NO_CHANGE = {
    "function": "a function",
    "order": "an order's `valid`, `require`, `cost` or `ends turn`",
    "report": "a report",
    "victory": "a victory rule",
    "static": "a default, a table, a bound or a field's `where`",
}


def while_(x: ExprChecks, node: n.While, scope: Scope, ctx: Context) -> ir.Stmt:
    """`while COND { ... }`: COND is a condition asked before each round (and after `skip`); inside the body it
    narrows as an `if` would. A condition that is the literal `true` needs a way out (E0371)."""
    cond = x.cond(node.cond, scope, ctx)
    narrow = x.narrowing(node.cond, scope, ctx)
    with scope.push(narrow, f"the `while` at line {node.span.line}"):
        body = x.loop_body(node.body, scope, ctx)
    if isinstance(cond, ir.Const) and cond.value is True and not _leaves(body):
        x.err(node.cond.span, "E0371", "this loop never ends: its condition is always `true` and nothing in it "
              "leaves the loop", help="end it with `break` (or `return`) when its work is done, or write the "
              "condition that keeps it going, like `while size(frontier) > 0`")
    return ir.While(node.span.line, cond, body)


def return_(x: ExprChecks, node: n.Return, scope: Scope, ctx: Context) -> ir.Stmt:
    """`return` ends a procedure, an order's effect (which has then succeeded) or a phase; `return VALUE` only a
    procedure declared `-> TYPE` (E0365), which must give one (E0366)."""
    line = node.span.line
    value = x.expr(node.value, scope, ctx) if node.value is not None else None
    if ctx.result is not None:
        if value is None:
            x.err(node.span, "E0366", f"`{ctx.proc}` gives {T.describe(ctx.result)}, so its `return` needs a value",
                  help=f"write the {ctx.result.show()} it gives after the word: `return VALUE`")
            return ir.Return(line, None)
        assert node.value is not None
        x.expect(value, ctx.result, node.value.span, f"the value `{ctx.proc}` returns")
        return ir.Return(line, value)
    if value is not None:
        assert node.value is not None
        if ctx.kind == "procedure":
            shown = x.shown(node.value)
            what = f"`{ctx.proc}` is declared without a result"
            hint = (f"declare what it gives after its parameters, `procedure {ctx.proc}(...) -> "
                    f"{_shown_type(value.ty)} {{`, or write `return` alone to end it here")
        else:
            what = ("an order's effect gives no value" if ctx.kind == "order" else "a phase gives no value")
            shown = x.shown(node.value)
            hint = ("write `return` alone: the effect ends here and the order has succeeded; to refuse the "
                    "order, write `fail \"...\"`" if ctx.kind == "order" else "write `return` alone: the phase "
                    "ends here")
        given = f"`{shown}`" if shown else "a value"
        x.err(node.value.span, "E0365", f"{what}, so `return` cannot give {given}", help=hint)
    return ir.Return(line, None)


_BODIES = {"procedure": "the procedure", "order": "the order's effect", "phase": "the phase"}


def _shown_type(ty: T.Ty) -> str:
    return ty.show() if ty not in (T.ANY, T.NONE) else "TYPE"


def loop_exit(x: ExprChecks, node: n.Break | n.Skip, ctx: Context) -> ir.Stmt | None:
    """`break` and `skip` belong in a loop's body (E0370)."""
    word = "break" if isinstance(node, n.Break) else "skip"
    if not ctx.loop:
        extra = " (the order is then done; `fail \"...\"` refuses it instead)" if ctx.kind == "order" else ""
        x.err(node.span, "E0370", f"`{word}` belongs in the body of a loop (`for each` or `while`), and this is "
              "not in one", help=f"to end {_BODIES[ctx.kind]} early, write `return`{extra}"
              if ctx.kind in _BODIES else None)
        return None
    return ir.Break(node.span.line) if word == "break" else ir.Skip(node.span.line)


# ---------------------------------------------------------------- how a block ends

def ends(s: ir.Stmt) -> ir.Stmt | None:
    """The statement that keeps anything written after `s` in the same block from running: `s` itself (a
    `return`, `break`, `skip`, `fail` or `halt`), or an `if` with an `else` whose every branch ends; else None.
    A loop never ends its block: its body may run no round at all."""
    if isinstance(s, (ir.Return, ir.Break, ir.Skip, ir.Fail, ir.Halt)):
        return s
    if isinstance(s, ir.If) and s.otherwise is not None and all(
            any(ends(b) is not None for b in body) for body in (*(b for _, b in s.branches), s.otherwise)):
        return s
    return None


def what_ends(s: ir.Stmt, ctx: Context) -> str:
    """W0212's reason, in the designer's words: what the statement that ends the block does."""
    if isinstance(s, ir.Return):
        return f"the `return` at line {s.line} ends {_BODIES.get(ctx.kind, 'the body')} first"
    if isinstance(s, ir.Break):
        return f"the `break` at line {s.line} leaves the loop first"
    if isinstance(s, ir.Skip):
        return f"the `skip` at line {s.line} goes on to the next round first"
    if isinstance(s, ir.Fail):
        return f"the `fail` at line {s.line} ends the order first"
    if isinstance(s, ir.Halt):
        return f"the `halt` at line {s.line} stops the turn first"
    return f"every branch of the `if` at line {s.line} ends before it"


def returns(body: tuple[ir.Stmt, ...]) -> bool:
    """Every path through `body` ends in `return` (or `halt`, after which no turn goes on to want a value):
    its statements include one, or an `if` with an `else` whose every branch does. Loops do not count, not
    even `while true`: the rule stays one a designer can check by eye, and a `return` after such a loop costs
    one line."""
    for s in body:
        if isinstance(s, (ir.Return, ir.Halt)):
            return True
        if isinstance(s, ir.If) and s.otherwise is not None and all(
                returns(b) for b in (*(b for _, b in s.branches), s.otherwise)):
            return True
    return False


def must_return(env: Env, decl: n.ProcedureDecl, body: tuple[ir.Stmt, ...]) -> None:
    """E0367: a procedure declared `-> TYPE` whose end some path reaches without a `return`; reported at its
    closing brace, where that path falls out."""
    if returns(body):
        return
    s = decl.span
    brace = Span(s.file, s.end_line, max(1, s.end_col - 1), s.end_line, s.end_col)
    last = body[-1] if body else None
    if isinstance(last, ir.If) and last.otherwise is None and all(returns(b) for _, b in last.branches):
        hint = (f"the `if` at line {last.line} returns, but when its test fails nothing does: give it an `else` "
                "that returns, or end the procedure with `return VALUE`")
    elif isinstance(last, (ir.For, ir.While)):
        hint = (f"the loop at line {last.line} may run no round, or end without returning: end the procedure with "
                "`return VALUE` after it")
    else:
        hint = "end it with `return VALUE`, or give the last `if` an `else` that returns"
    assert decl.result is not None
    env.diags.error(brace, "E0367", f"`{decl.name}` gives {T.describe(env.procedures[decl.name].result or T.ANY)}, "
                    "but can reach its end without a `return`", help=hint)


def _leaves(body: tuple[ir.Stmt, ...]) -> bool:
    """Whether anything in a loop's body leaves it: a `break` of this loop (not of a loop inside it), a `return`,
    a `fail` or a `halt`."""
    stack: list[ir.Node] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ir.Return, ir.Fail, ir.Halt, ir.Break)):
            return True
        if isinstance(node, ir.If):
            stack.extend(s for _, b in node.branches for s in b)
            stack.extend(node.otherwise or ())
        elif isinstance(node, (ir.For, ir.While)):
            # A `break` in there leaves that loop; a `return` or `fail` leaves this one too.
            stack.extend(s for s in ir.walk(node.body) if isinstance(s, (ir.Return, ir.Fail, ir.Halt)))
    return False


_ELSEWHERE = {
    "function": "call it from a phase, a procedure or an order's `effect`; to compute a value from the state "
                "without changing it, make it a function too: `define NAME(...) -> TYPE = ...`",
    "order": "call it in the order's `effect`, which may change the game; `valid`, `require` and `cost` only judge",
    "report": "call it in a phase, keep what it gives in a field, and show the field",
    "victory": "call it in a phase, keep what it gives in a field, and let the victory read the field",
}


def call_value(x: ExprChecks, node: n.Call, scope: Scope, ctx: Context) -> ir.Expr:
    """A procedure declared `-> TYPE`, called for its value: only where the state may change (E0368), and not
    inside an aggregate or a loop's `where` or `by` (E0369), which may ask for an item's value in another
    order, through an index, or not at all."""
    env = x.env
    info = env.procedures[node.func]
    env.used.add(node.func)
    args = tuple(x.expr(a, scope, ctx) for a in node.args)
    x.arguments(node.func, args, node.args, info.params, node.span)
    assert info.result is not None
    if not ctx.allow_chance:
        x.err(node.func_span, "E0368", f"`{node.func}` is a procedure: it may change the game or draw at random, "
              f"and {NO_CHANGE.get(ctx.kind, 'this place')} changes nothing",
              help=_ELSEWHERE.get(ctx.kind, "call it in a phase, a procedure or an order's `effect`"))
    elif ctx.no_calls:
        call = x.shown(node) or f"{node.func}(...)"
        x.err(node.func_span, "E0369", f"`{node.func}` is a procedure, and its value cannot be asked inside "
              f"{ctx.no_calls}: it may be asked of the items in another order, or not of all of them",
              help=f"go through the items with `for each` and call it in the body, like `let result = {call}`, "
                   "then add up or keep what it gives")
    return ir.CallProcValue(info.result, node.span.line, node.func, args)


def no_calls(ctx: Context, where: str) -> Context:
    """`ctx` inside an aggregate or a loop's `where` or `by` (E0369); unchanged where E0368 will speak instead."""
    return dataclasses.replace(ctx, no_calls=where) if ctx.allow_chance and not ctx.no_calls else ctx
