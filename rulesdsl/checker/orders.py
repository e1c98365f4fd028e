"""Order, phase and victory AST -> IR: syntax patterns, arguments, refusals, costs, limits, sequence."""

from __future__ import annotations

import difflib

from rulesdsl import ir
from rulesdsl import nodes as n
from rulesdsl import types as T
from rulesdsl.checker import calendar
from rulesdsl.checker.decls import const_value
from rulesdsl.checker.env import Context, Env, Scope, suggest
from rulesdsl.checker.exprs import ExprChecker, literal_number
from rulesdsl.checker.state import Checking
from rulesdsl.runtime import syntax
from rulesdsl.source import Span

HEADER_SLOTS = {"game", "account", "code"}


def policy(c: Checking) -> None:
    """The `orders { ... }` block: header, budget, limits, groups and what pays."""
    c.program.policy = _policy(c.env, c.exprs, c.module)


def _policy(env: Env, checker: ExprChecker, module: n.Module) -> ir.OrderPolicy:
    decls = [d for d in module.decls if isinstance(d, n.OrdersDecl)]
    for extra in decls[1:]:
        env.diags.error(extra.span, "E0401", "only one `orders { ... }` block per file",
                        help=f"move its lines into the first `orders` block (line {decls[0].span.line})")
    if not decls:
        first = next(iter(env.orders.values()), None)
        if first is not None:
            env.diags.error(first.span, "E0416", "orders need an `orders { header ... }` block saying how a "
                            "player's submission starts", help='like `orders { header "{account}", "{code}" }`')
        return ir.OrderPolicy()
    # The settings of a second block (E0401) still count, so that nothing else is reported for them.
    settings = [s for d in decls for s in d.settings]
    header: tuple[str, ...] = ()
    budget, start, plus, limit, new_limit, pay = None, 0, 0, None, None, None
    groups: list[ir.Group] = []
    later_mail = "replaces"
    if env.orders and not any(s.kind == "header" for s in settings):
        env.diags.error(decls[0].span, "E0416", "the `orders` block needs a `header` saying how a player's "
                        "submission starts", help='like `header "{account}", "{code}"`')
    for s in settings:
        if s.kind == "header":
            header = s.strings
            slots = [m for line in header for m in syntax.placeholders(line)]
            unknown = [slot for slot in slots if slot not in HEADER_SLOTS]
            missing = [need for need in ("account", "code") if need not in slots]
            for slot in unknown:
                close = difflib.get_close_matches(slot, missing, n=1)
                if close or (len(unknown) == 1 and len(missing) == 1):
                    # The usual mistake is one placeholder misspelt or misnamed: one error, saying which.
                    meant = close[0] if close else missing[0]
                    missing.remove(meant)
                    env.diags.error(s.span, "E0402", f"`{{{slot}}}` is not a header placeholder, and the header "
                                    f"needs `{{{meant}}}`", help=f"write `{{{meant}}}` in its place" if not close
                                    else f"did you mean `{{{meant}}}`?")
                else:
                    env.diags.error(s.span, "E0402", f"`{{{slot}}}` is not a header placeholder",
                                    help="header lines may hold {game}, {account} and {code}")
            for need in missing:
                env.diags.error(s.span, "E0402", f"the header must hold `{{{need}}}` to know who writes",
                                help='like `header "{account}", "{code}"`: the account number, then the '
                                     "player's code")
            _game_in_header(env, module, s)
        elif s.kind == "budget":
            fd = env.player_fields.get(s.name)
            if fd is None or not isinstance(fd.ty, T.Num) or fd.ty.unit:
                env.diags.error(s.span, "E0403", f"`budget {s.name}` needs a player field `{s.name}: int`",
                                help=suggest(s.name, env.player_fields))
            budget = s.name
            start = const_value(env, s.exprs[0], T.INT, "the starting budget")
            plus = const_value(env, s.exprs[1], T.INT, "the budget added each turn")
        elif s.kind == "limit":
            limit = const_value(env, s.exprs[0], T.INT, "the limit")
        elif s.kind == "new_limit":
            new_limit = const_value(env, s.exprs[0], T.INT, "the limit of new orders")
        elif s.kind == "group":
            n_max = const_value(env, s.exprs[0], T.INT, f"the limit of group `{s.name}`")
            # The reason is read when an order is refused: it may name the player, not the order.
            ctx = Context("order", me=True, allow_chance=False)
            assert s.reason is not None
            reason = checker.text(s.reason, Scope(), ctx)
            if s.name in env.groups:
                env.diags.error(s.span, "E0203", f"order group `{s.name}` is declared twice",
                                notes=[f"first declared at {env.groups[s.name]}"])
                env.refused.append((reason, ctx))
                continue
            env.groups[s.name] = s.span
            groups.append(ir.Group(s.name, n_max, reason, s.span.line, span=s.span))
        elif s.kind == "pay":
            fd = env.player_fields.get(s.name)
            if fd is None or fd.ty != T.MONEY:
                env.diags.error(s.span, "E0404", f"`pay from {s.name}` needs a player field `{s.name}: money`",
                                help=suggest(s.name, env.player_fields))
            pay = s.name
        elif s.kind == "later_mail":
            later_mail = s.name
    return ir.OrderPolicy(header, budget, start, plus, limit, new_limit, pay, tuple(groups), later_mail,
                          span=decls[0].span)


# What ends the word that holds `{game}` in a header line: the separators of a syntax, or a placeholder.
_WORD_END = frozenset(" \t,{}")


def _game_in_header(env: Env, module: n.Module, s: n.OrdersSetting) -> None:
    """E0422 where the header writes the game otherwise than the `game` setting names it.

    The game is named once, by `game "CO-{number}"`; a header line writes it as `CO-{game}` (the word
    holding `{game}` is the setting with `{game}` for `{number}`) or asks for the number alone with a bare
    `{game}` word. Any other text joined to `{game}` would have players who write the game their
    reports name refused, every one of them.
    """
    if not any("{game}" in line for line in s.strings):
        return
    ruleset = next((d for d in module.decls if isinstance(d, n.RulesetDecl)), None)
    setting = next((x for x in ruleset.settings if x.name == "game"), None) if ruleset is not None else None
    if setting is None or not isinstance(setting.value, str):
        return  # without a `game` setting the game is its number: the header's text is the only name it has
    named = setting.value
    written = named.replace("{number}", "{game}")
    fixed, wrong = [], []
    for line in s.strings:
        out = line
        for start, end in reversed(_game_words(line)):
            word = line[start:end]
            if word == "{game}" or _ascii_fold(word) == _ascii_fold(written):
                continue
            wrong.append(word)
            out = out[:start] + written + out[end:]
        fixed.append(out)
    if not wrong:
        return
    word = wrong[0]
    notes = [f"the `game` setting is at {setting.span}"]
    if "{number}" not in named:
        env.diags.error(s.span, "E0422", f"the header writes the game as \"{word}\", but the game is named "
                        f"\"{named}\" (the `game` setting), which holds no `{{number}}` for `{{game}}` to be",
                        help=f'write `game "{word.replace("{game}", "{number}")}"` in the `ruleset` header, '
                             "or leave `{game}` out of the header", notes=notes)
        return
    header = ", ".join(f'"{line}"' for line in fixed)
    env.diags.error(s.span, "E0422", f"the header writes the game as \"{word}\", but the `game` setting names it "
                    f"\"{named}\": players who write the game as their reports name it would all be refused",
                    help=f"write `header {header}`, or, if the header is right, "
                         f'`game "{word.replace("{game}", "{number}")}"`', notes=notes)


def _game_words(line: str) -> list[tuple[int, int]]:
    """Where each word that holds `{game}` starts and ends: up to a space, a comma or another placeholder,
    as the words of a syntax are separated."""
    out = []
    at = line.find("{game}")
    while at >= 0:
        start, end = at, at + len("{game}")
        while start > 0 and line[start - 1] not in _WORD_END:
            start -= 1
        while end < len(line) and line[end] not in _WORD_END:
            end += 1
        out.append((start, end))
        at = line.find("{game}", at + 1)
    return out


def _ascii_fold(text: str) -> str:
    """Header lines are read ignoring ASCII case only."""
    return "".join(c.lower() if c.isascii() else c for c in text)


def _decimal_arg(env: Env, a: n.ArgDecl, span: Span) -> None:
    """E0405 for a decimal argument: players write whole numbers, and a fraction is a whole number in a range."""
    env.diags.error(span, "E0405", "an order argument cannot be a decimal: orders take whole numbers (`int`) "
                    "or `money`", help=f"for a rate, take a whole percentage, like `{a.name}: 0..100`, and divide "
                    "by 100 in the effect")


def _digits_arg(env: Env, checker: ExprChecker, a: n.ArgDecl) -> ir.Arg:
    """`digits A..B`: each character one number, so the bounds are single digits."""
    scope, ctx = Scope(), Context("static", allow_chance=False)
    bounds: list[ir.Expr] = []
    for node in (a.low, a.high):
        assert node is not None
        e = checker.expr(node, scope, ctx)
        checker.expect(e, T.INT, node.span, "a bound")
        value = literal_number(e)
        if value is not None and not 0 <= value <= 9:
            env.diags.error(node.span, "E0423", f"`digits` reads each digit as one number, so a bound is a single "
                            f"digit from 0 to 9, not {value}",
                            help=f"for numbers above 9, take a whole number, like `{a.name}: 0..{value}`, or a "
                                 f"list of them: `{a.name}: list of int`")
        bounds.append(e)
    low, high = literal_number(bounds[0]), literal_number(bounds[1])
    if low is not None and high is not None and 0 <= high < low <= 9:
        env.diags.error(a.span, "E0420", f"`{a.name}` can never be given: no digit is at least {low} and at most "
                        f"{high}", help=f"write the smaller bound first: `{a.name}: digits {high}..{low}`")
    return ir.Arg(a.name, T.ListT(T.INT), bounds[0], bounds[1], digits=True, span=a.span,
                  decided_by=tuple(_decided_by(b) for b in bounds))


# What a bound may hold and still be fixed for the whole game once the scenario's parameters are known.
_FIXED = (ir.Const, ir.ParamRef, ir.BinOp, ir.UnaryOp, ir.Cond)
_FIXED_BUILTINS = frozenset({"min", "max", "clamp", "abs", "round", "floor", "ceil"})


def _decided_by(e: ir.Expr) -> tuple[str, ...] | None:
    """The parameters that alone decide a bound, in the order written (() for a literal); None when the bound
    reads the game's state (a world field, a table, a function), which may change as the game is played: only
    a bound fixed for the whole game can be judged once, when the game starts."""
    nodes = list(ir.walk(e))
    if not all(isinstance(x, _FIXED) or (isinstance(x, ir.Builtin) and x.func in _FIXED_BUILTINS) for x in nodes):
        return None
    return tuple(dict.fromkeys(x.name for x in nodes if isinstance(x, ir.ParamRef)))


def _arg_type(env: Env, checker: ExprChecker, a: n.ArgDecl) -> ir.Arg:
    if a.digits:
        return _digits_arg(env, checker, a)
    scope, ctx = Scope(), Context("static", allow_chance=False)
    if a.type is not None and a.low is None:
        ty = env.resolve_type(a.type)
        if isinstance(ty, T.ListT):
            # Items joined by `+`, each read like an argument of its own: a list of what one item can be.
            if not (isinstance(ty.item, T.ThingT) or ty.item in (T.INT, T.ANY)):
                env.diags.error(a.type.span, "E0405", f"a list argument is a list of a thing, of Player or of int, "
                                f"not {ty.show()}")
        elif ty == T.DECIMAL:
            _decimal_arg(env, a, a.type.span)
        elif not (isinstance(ty, T.ThingT) or ty in (T.TEXT, T.INT, T.MONEY, T.ANY)):
            env.diags.error(a.type.span, "E0405", f"an order argument is a thing, a Player, a number, a text or "
                            f"a list, not {ty.show()}")
        if a.spaced and not isinstance(ty, T.ListT) and ty != T.ANY:
            env.diags.error(a.span, "E0432", f"`spaced` is for a list argument, and `{a.name}` is {T.describe(ty)}",
                            help=f"for several values write `{a.name}: list of {ty.show()} spaced`, or drop `spaced`")
        return ir.Arg(a.name, ty, None, None, span=a.span, spaced=a.spaced and isinstance(ty, T.ListT))
    ty = env.resolve_type(a.type) if a.type is not None else T.INT
    if ty == T.DECIMAL:
        _decimal_arg(env, a, a.type.span if a.type is not None else a.span)
    elif ty not in (T.INT, T.MONEY, T.ANY):
        env.diags.error(a.span, "E0405", f"a range needs int or money, not {ty.show()}")
    lo = checker.expr(a.low, scope, ctx) if a.low is not None else None
    hi = checker.expr(a.high, scope, ctx) if a.high is not None else None
    for e, node in ((lo, a.low), (hi, a.high)):
        if e is not None and node is not None:
            checker.expect(e, ty, node.span, "a bound")
    low, high = (literal_number(lo) if lo is not None else None), (literal_number(hi) if hi is not None else None)
    if low is not None and high is not None and low > high:
        env.diags.error(a.span, "E0420", f"`{a.name}` can never be given: no number is at least {low} and at most "
                        f"{high}", help="write the smaller bound first: " + (
                            f"`{a.name}: {high}..{low}`" if a.type is None
                            else f"`{a.name}: {ty.show()} from {high} to {low}`"))
    return ir.Arg(a.name, ty, lo, hi, span=a.span)


def signatures(c: Checking) -> None:
    """Argument types of every order, so that functions may read `o.cash` of `orders(kind)`."""
    env = c.env
    for name, d in env.orders.items():
        types: dict[str, T.Ty] = {}
        for a in d.args:
            types[a.name] = T.ListT(T.INT) if a.digits else env.resolve_type(a.type) if a.type is not None else T.INT
        env.order_args[name] = types


def orders(c: Checking) -> None:
    """Each order: its syntax, arguments, refusals, limits, cost and effect."""
    env, checker, pol = c.env, c.exprs, c.program.policy
    out = []
    for name, d in env.orders.items():
        placeholders = syntax.placeholders(d.pattern)
        if d.kind in ("stop", "discard"):
            if placeholders:
                env.diags.error(d.pattern_span, "E0406", f"a {d.kind} order takes no arguments")
            out.append(ir.Order(name, d.kind, d.pattern, (), (), (), (), None, (), d.span.line, span=d.span))
            continue
        args = []
        arg_names = [a.name for a in d.args]
        for a in d.args:
            if arg_names.count(a.name) > 1 and a is not d.args[arg_names.index(a.name)]:
                env.diags.error(a.span, "E0203", f"argument `{a.name}` is declared twice")
                continue
            args.append(_arg_type(env, checker, a))
        for ph in placeholders:
            if ph not in arg_names:
                env.diags.error(_in_pattern(d, "{" + ph + "}"), "E0407",
                                f"`{{{ph}}}` in the order's syntax is not an argument",
                                help=suggest(ph, arg_names) or f"declare it: `{ph}: TYPE`")
        spaced = {x.name for x in args if x.spaced}  # a list: `spaced` on anything else is refused already
        for a in d.args:
            if placeholders.count(a.name) == 0:
                env.diags.error(a.span, "E0408", f"argument `{a.name}` does not appear in the syntax \"{d.pattern}\"",
                                help=f"write `{{{a.name}}}` where the player gives it")
            elif placeholders.count(a.name) > 1:
                env.diags.error(_in_pattern(d, "{" + a.name + "}", second=True), "E0407",
                                f"`{{{a.name}}}` appears twice in the syntax")
            elif a.name in spaced and not d.pattern.rstrip(" \t").endswith("{" + a.name + "}"):
                # Its items take every word up to the line's end: a word after them would be one more item.
                env.diags.error(_in_pattern(d, "{" + a.name + "}"), "E0432", f"`{a.name}` is read with spaces "
                                "between its items, so nothing can follow it in the syntax",
                                help=f"put `{{{a.name}}}` last in \"{d.pattern}\", or join its items with `+` "
                                "and drop `spaced`")
        if not syntax.starts_with_keyword(d.pattern):
            env.diags.error(d.pattern_span, "E0409", "an order's syntax starts with its keyword, like \"A,{country}\"")
        for _ in syntax.touching_placeholders(d.pattern):
            env.diags.error(_in_pattern(d, "}{"), "E0409", "two arguments need something between them",
                            help="separate them with a comma or a space")
        env.order_args[name] = {arg.name: arg.ty for arg in args}
        scope = Scope()
        for arg in args:
            scope.declare(arg.name, arg.ty)
        world = d.world_span is not None  # only a GM order's: on others the parser says E0433
        me_hint = ("a world GM order is given for no position: name the player or the thing it acts on as an "
                   "argument, or make it a positional `gm order`, given for a position") if world else ""
        ctx = Context("order", me=not world, order=name, allow_chance=False, me_hint=me_hint)
        valids = tuple(ir.Check(checker.cond(v.cond, scope, ctx), checker.text(v.message, scope, ctx), v.span.line,
                                span=v.span) for v in d.valids)
        requires = tuple(ir.Check(checker.cond(r.cond, scope, ctx), checker.text(r.message, scope, ctx),
                                  r.span.line, span=r.span) for r in d.requires)
        once, once_as = [], []
        # A GM order is carried out as it is read, as a personal order is: the same limits hold for both.
        at_once = d.kind in ("personal", "gm")
        what = "a GM order" if d.kind == "gm" else "a personal order"
        if at_once and d.once_per:
            env.diags.error(d.once_per[0][1], "E0410", f"{what} has no limits: it does not count")
        if at_once and d.counts_as:
            env.diags.error(d.counts_as[0][1], "E0410", f"{what} has no limits: it counts in no group",
                            help="only game orders count against the limits of the `orders` block")
        if at_once and d.ends_turn is not None:
            env.diags.error(d.ends_turn.span, "E0410", f"{what} cannot end the turn's orders: it is "
                            "carried out as it is read", help="make it a game order to end the turn with it")
        counts: list[str] = []
        for gname, gspan in d.counts_as if d.kind == "game" else ():
            if gname not in env.groups:
                env.diags.error(gspan, "E0419", f"no order group `{gname}`: the `orders` block has no "
                                f"`at most N {gname} per turn`",
                                help=suggest(gname, env.groups)
                                or f"declare it there: `at most 1 {gname} per turn else \"...\"`")
            elif gname not in counts:
                counts.append(gname)
        ends: ir.Expr | None = None
        if d.ends_turn is not None and d.kind == "game":
            if d.ends_turn.when is None:
                ends = ir.Const(T.BOOL, d.ends_turn.span.line, True, span=d.ends_turn.span)
            else:
                ends = checker.cond(d.ends_turn.when, scope, ctx)
        for oname, ospan in d.once_per:
            if oname not in arg_names:
                env.diags.error(ospan, "E0410", f"`once per turn per {oname}`: `{oname}` is not an argument",
                                help=suggest(oname, arg_names) or (
                                    f"write one of its arguments ({', '.join(f'`{a}`' for a in arg_names)}), or "
                                    "`once per turn` alone to allow the order once a turn" if arg_names else
                                    "write `once per turn` alone to allow the order once a turn"))
            once.append(oname)
        for shared in d.once_as or ((None,) * len(d.once_per)):
            once_as.append(shared[0] if shared is not None else "")
        standing_per, until = None, None
        if d.standing is not None:
            if d.kind != "game":
                env.diags.error(d.standing.span, "E0425", f"{what} cannot be standing: it is carried out "
                                "once, as it is read", help=f"make it a game order (drop `{d.kind}`) and run it in "
                                "a phase; a standing order runs there again every turn")
            if d.standing.per is not None:
                pname, pspan = d.standing.per
                if pname not in arg_names:
                    env.diags.error(pspan, "E0426", f"`standing per {pname}`: `{pname}` is not an argument",
                                    help=suggest(pname, arg_names) or (
                                        f"write one of its arguments ({', '.join(f'`{a}`' for a in arg_names)}), "
                                        "or `standing` alone for one standing order of the kind per player"
                                        if arg_names else "write `standing` alone: one standing order of the kind "
                                        "per player"))
                standing_per = pname
            if d.standing.until is not None:
                until = checker.cond(d.standing.until, scope, ctx)
        cost = None
        if d.cost is not None:
            cost = checker.expr(d.cost, scope, ctx)
            checker.expect(cost, T.MONEY, d.cost.span, "a cost")
            if pol.pay_field is None:
                purses = [f for f, fd in env.player_fields.items() if fd.ty == T.MONEY]
                env.diags.error(d.cost.span, "E0411", "orders cost money but nothing says what pays",
                                help=f"add `pay from {purses[0]}` to the `orders {{ ... }}` block" if purses else
                                "give players a money field, like `cash: money = 10` in `player { ... }`, and "
                                "add `pay from cash` to the `orders { ... }` block")
            if at_once:
                env.diags.error(d.cost.span, "E0412", f"{what} costs nothing",
                                help="personal orders are carried out as they are read, free; to charge for it, "
                                "make it a game order (drop `personal`) and run it in a phase" if d.kind == "personal"
                                else "GM orders are carried out as they are read, free; to take money from the "
                                "position, change its field in the `effect`")
        effect: tuple[ir.Stmt, ...] = ()
        if d.effect is not None:
            ectx = Context("order", me=not world, order=name, allow_fail=True, me_hint=me_hint)
            with scope.push():
                effect = checker.stmts(d.effect, scope, ectx)
            _fail_after_change(env, effect, False)
        default = _default(c, d, name, world)
        if d.kind == "game":  # a personal order is carried out as it is read: its `valid` sees the instance
            _judged_early(env, args, valids, ends, until)
        standing_as = d.standing.shared[0] if d.standing is not None and d.standing.shared is not None else ""
        out.append(ir.Order(name, d.kind, d.pattern, tuple(args), valids, requires, tuple(once), cost, effect,
                            d.span.line, tuple(counts), ends, tuple(once_as) if any(once_as) else (),
                            d.standing is not None and d.kind == "game", standing_per, until, standing_as,
                            calendar.kinds_of(c, d.only_in, f"order `{name}`"), world, default, span=d.span))
    c.program.orders = out


_WHAT = {"game": "a game order", "personal": "a personal order", "gm": "a GM order"}


def _default(c: Checking, d: n.OrderDecl, name: str, world: bool) -> ir.OrderDefault | None:
    """A GM order's `default { ... }`: checked like a phase's body, with `me` the position for a positional
    order; the order's arguments are not known there, and it runs no orders (E0434)."""
    env = c.env
    if not d.defaults:
        return None
    if d.kind != "gm":
        env.diags.error(d.defaults[0].span, "E0433", f"`default` in {_WHAT.get(d.kind, 'this order')}: only a GM "
                        "order has one, what happens when the GM gives none",
                        help="make it a `gm order`, or write what happens every turn in a phase")
        return None
    for extra in d.defaults[1:]:
        env.diags.error(extra.span, "E0433", f"order `{name}` has a second `default`",
                        help="join them in one `default { ... }`; `if calendar.kind == ...` inside tells turns apart",
                        notes=[f"the first is at {d.defaults[0].span}"])
    first = d.defaults[0]
    ctx = Context("phase", me=not world, default_of=name,
                  me_hint="a world GM order's default is for no position: go through them, `for each p in players "
                  "{ ... }`" if world else "")
    body = c.exprs.stmts(first.body, Scope(), ctx)
    kinds = calendar.kinds_of(c, first.kinds, f"the default of `{name}`")
    return ir.OrderDefault(body, first.span.line, kinds, span=first.span)


def _judged_early(env: Env, args: list[ir.Arg], valids: tuple[ir.Check, ...], ends: ir.Expr | None,
                  until: ir.Expr | None) -> None:
    """E0244 where what is judged as the order is chosen, before any phase runs, reads an argument that names
    a numbered thing: the instance is found only as the order is carried out (a phase before it may make the
    unit it names), so there is none to read yet."""
    late = {a.name: a.ty for a in args if env.numbered(a.ty.item if isinstance(a.ty, T.ListT) else a.ty)}
    if not late:
        return
    judged: list[tuple[str, ir.Node]] = [("valid", v) for v in valids]
    judged += [("ends turn when", ends)] if ends is not None and not isinstance(ends, ir.Const) else []
    judged += [("until", until)] if until is not None else []
    for word, node in judged:
        # Two such arguments compared with each other (`valid unit != other`), and one written into the
        # refusal's text, read only the numbers the line gave: those are known as the order is chosen.
        numbers: set[int] = set()
        for x in ir.walk(node):
            if isinstance(x, ir.BinOp) and x.op in ("==", "!=") and all(
                    isinstance(side, ir.Local) and side.name in late for side in (x.left, x.right)):
                numbers |= {id(x.left), id(x.right)}
            elif isinstance(x, ir.Interp):
                numbers |= {id(p) for p in x.parts if isinstance(p, ir.Local) and p.name in late}
        for x in ir.walk(node):
            if isinstance(x, ir.Local) and x.name in late and x.span is not None and id(x) not in numbers:
                thing = late[x.name]
                env.diags.error(x.span, "E0244", f"`{word}` is judged as the order is chosen, before the phases "
                                f"run, and `{x.name}` ({thing.show()}) is found only when the order is carried out",
                                help=f"check it in `require` instead: `require ... else \"...\"` is judged "
                                f"when the order runs, with the {thing.show()} as it is then")
                break


def shared_sets(c: Checking) -> None:
    """`once per turn per ARG as NAME` and `standing per ARG as NAME`: the orders of a set name one thing by
    their ARGs, so those have one type (E0424 for a once set, E0428 for a standing set, whose orders are also
    all kept per an argument or all not); a set only one order names shares nothing (W0208), most likely a
    name misspelt."""
    env = c.env
    once: dict[str, list[tuple[ir.Order, str | None, Span]]] = {}
    standing: dict[str, list[tuple[ir.Order, str | None, Span]]] = {}
    for o in c.program.orders:
        d = env.orders.get(o.name)
        if d is None or o.kind != "game":
            continue
        for (arg, _), shared in zip(d.once_per, d.once_as, strict=False):
            if shared is not None:
                once.setdefault(shared[0], []).append((o, arg, shared[1]))
        if d.standing is not None and d.standing.shared is not None:
            standing.setdefault(d.standing.shared[0], []).append((o, o.standing_per, d.standing.shared[1]))
    for word, code, sets in (("once per turn ... as", "E0424", once), ("standing ... as", "E0428", standing)):
        for sname, held in sets.items():
            _same_types(env, word, code, sname, held)
            if len({o.name for o, _, _ in held}) == 1:
                others = sorted(set(sets) - {sname})
                env.diags.warning(held[0][2], "W0208", f"only order `{held[0][0].name}` is `{word} {sname}`, so "
                                  "the set shares nothing with another order",
                                  help=suggest(sname, others) or f"add `as {sname}` to each order that shares it, "
                                  "or leave `as` out")


def _same_types(env: Env, word: str, code: str, sname: str, held: list[tuple[ir.Order, str | None, Span]]) -> None:
    first, first_arg, _ = held[0]
    first_ty = env.order_args.get(first.name, {}).get(first_arg) if first_arg is not None else None
    for o, arg, span in held[1:]:
        ty = env.order_args.get(o.name, {}).get(arg) if arg is not None else None
        if (arg is None) != (first_arg is None):
            keyed, unkeyed = (o, first) if arg is not None else (first, o)
            env.diags.error(span, code, f"the orders that are `{word} {sname}` are kept all per an argument or all "
                            f"not: order `{keyed.name}` is kept per `{keyed.standing_per}`, order `{unkeyed.name}` "
                            "per nothing", help=f"write `standing per ARG as {sname}` in each, or leave `per` out "
                            "of each")
            continue
        if first_ty is None or ty is None or ty == first_ty or T.ANY in (ty, first_ty):
            continue
        env.diags.error(span, code, f"the orders that are `{word} {sname}` must name the same kind of value: `{arg}` "
                        f"here is {ty.show()}, but `{first_arg}` of order `{first.name}` (line {first.line}) is "
                        f"{first_ty.show()}", help=f"give `{sname}` only to orders whose argument names the same "
                        "thing, or name another set")


def unused_groups(c: Checking) -> None:
    """A group no order counts as limits nothing: usually a `counts as` left out or misspelt."""
    counted = {g for o in c.program.orders for g in o.counts_as}
    for gname, span in c.env.groups.items():
        if gname not in counted:
            c.env.diags.warning(span, "W0204", f"no order counts as `{gname}`, so this limit never applies",
                              help=f"add `counts as {gname}` to the orders it limits")


def phases(c: Checking) -> None:
    """The turn's sequence: each phase's condition and body, and which phase runs each order."""
    env, checker, module = c.env, c.exprs, c.module
    out = []
    seen: dict[str, Span] = {}
    runs: dict[str, Span] = {}
    for d in module.decls:
        if not isinstance(d, n.PhaseDecl):
            continue
        if d.name in seen:
            env.diags.error(d.span, "E0203", f"phase `{d.name}` is declared twice", notes=[f"first at {seen[d.name]}"])
            continue
        seen[d.name] = d.span
        scope = Scope()
        ctx = Context("phase", allow_run=True)
        when = checker.cond(d.when, scope, ctx) if d.when is not None else None
        body = checker.stmts(d.body, scope, ctx)
        looped = {id(r) for loop in ir.walk(body) if isinstance(loop, (ir.For, ir.While)) for r in ir.walk(loop.body)}
        for stmt in ir.walk(body):
            if not isinstance(stmt, ir.Run):
                continue
            assert stmt.span is not None
            in_loop = id(stmt) in looped
            shown = ", ".join(stmt.orders) + (" together" if len(stmt.orders) > 1 else "")
            if d.before_orders:
                env.diags.error(stmt.span, "E0417", "a phase `before orders` runs before any order is read",
                                help="run orders in a phase of the sequence proper")
            if d.at_start:
                env.diags.error(stmt.span, "E0427", "a phase `at start` runs once, when the game is made, "
                                "before any order exists", help="run orders in a phase of the turn")
                continue  # not a place the order is run: its run in a phase of the turn is no second one
            if in_loop:
                env.diags.error(stmt.span, "E0417", f"`run {shown}` inside `for each` would carry out the "
                                "same orders again and again", help="run the orders once, then go through "
                                f"`orders({stmt.orders[0]})`")
            # Each kind of a `run ... together` is run there: a second run of it anywhere is E0413.
            for order, span in zip(stmt.orders, stmt.spans or (stmt.span,) * len(stmt.orders), strict=True):
                if order in runs:
                    env.diags.error(span, "E0413", f"order `{order}` is already run at {runs[order]}",
                                    help="an order runs in one phase")
                runs[order] = span
        if d.at_start:
            # Nothing written now reaches a player: the starting reports carry no news and no messages.
            for stmt in ir.walk(body):
                if isinstance(stmt, (ir.News, ir.Tell)):
                    assert stmt.span is not None
                    word = "news" if isinstance(stmt, ir.News) else "tell"
                    env.diags.error(stmt.span, "E0427", f"`{word}` in a phase `at start`: the game is being "
                                    "made, and its starting reports carry no news or messages",
                                    help="say it in the first turn's news, or show it in the report's own fields")
        if d.at_start and d.kinds:
            env.diags.error(d.kinds[0][1], "E0254", f"phase `{d.name}` runs `at start`, when the game is made: "
                            "it runs in no turn, so no kind of turn", help="take out `in ... turns`, or read "
                            "`calendar.kind` in its body (turn 1's)")
        out.append(ir.Phase(d.name, when, body, d.span.line, d.before_orders, d.at_start,
                            calendar.kinds_of(c, d.kinds, f"phase `{d.name}`"), span=d.span))
    env.runs = runs
    c.program.phases = out


def _in_pattern(d: n.OrderDecl, piece: str, second: bool = False) -> Span:
    """Where `piece` stands inside the order's quoted syntax; the whole syntax if that cannot be told."""
    at = d.pattern.find(piece)
    if second and at >= 0:
        at = d.pattern.find(piece, at + 1)
    whole = d.pattern_span
    if at < 0 or whole.line != whole.end_line or whole.end_col - whole.col != len(d.pattern) + 2:
        return whole
    col = whole.col + 1 + at
    return Span(whole.file, whole.line, col, whole.line, col + len(piece))


def unrun(c: Checking) -> None:
    """Game orders that no phase runs: the game refuses their lines, so that none waits on file for ever."""
    env = c.env
    out = []
    for name, o in env.orders.items():
        if o.kind == "game" and name not in env.runs and name not in env.meant_runs:
            env.diags.warning(o.name_span or o.span, "W0102", f"order `{name}` is never run by a phase, so the "
                              "game refuses it as not used",
                              help=f"add `phase {name}: run {name}` where it belongs in the sequence, "
                                   "or remove the order")
            out.append(name)
    c.program.unrun_orders = tuple(out)


def halts_in_effects(c: Checking) -> None:
    """E0430 where an order's effect calls a procedure that can `halt`, itself or through the procedures it
    calls: one player's line would stop every player's turn. (A `halt` in the effect itself is E0430 as it is
    checked.) Runs once every procedure's body is known, so the call graph is whole, recursion included."""
    procs = c.program.procedures
    calls = {p.name: [s.proc for s in ir.walk(p.body) if isinstance(s, ir.CallProc)] for p in procs}
    halting: dict[str, ir.Halt] = {}  # each procedure that can halt, and the `halt` it reaches
    for p in procs:
        first = next((s for s in ir.walk(p.body) if isinstance(s, ir.Halt)), None)
        if first is not None:
            halting[p.name] = first
    changed = True
    while changed:
        changed = False
        for p in procs:
            callee = next((x for x in calls[p.name] if x in halting), None) if p.name not in halting else None
            if callee is not None:
                halting[p.name] = halting[callee]
                changed = True
    for o in c.program.orders:
        for s in ir.walk(o.effect):
            if isinstance(s, ir.CallProc) and s.proc in halting:
                assert s.span is not None
                c.env.diags.error(s.span, "E0430", f"procedure `{s.proc}` can `halt`, and this order's effect "
                                  "calls it: one player's order would stop every player's turn",
                                  help="end the order with `fail \"...\"` instead, or call the procedure from a phase",
                                  notes=[f"the `halt` is at {halting[s.proc].span}"])


# `new` and `destroy` change the game as an assignment does: a `fail` after them would leave the instance
# made (or gone) while the player reads that the order failed.
_CHANGES = (ir.Assign, ir.Add, ir.Remove, ir.Clear, ir.CallProc, ir.News, ir.Tell, ir.Overrule, ir.NewStmt,
            ir.Destroy)


def _changes_in_expressions(s: ir.Stmt) -> bool:
    """A statement whose expressions change the game: one that asks a procedure for its value (`let r =
    fight(s)`), which may change it, or makes an instance (`let d = new Division(...)`)."""
    heads: tuple[object, ...] = (
        tuple(c for c, _ in s.branches) if isinstance(s, ir.If) else (s.source, s.where) if isinstance(s, ir.For)
        else (s.cond,) if isinstance(s, ir.While) else (s,))
    return any(isinstance(x, (ir.CallProcValue, ir.New)) for h in heads if isinstance(h, ir.Node)
               for x in ir.walk(h))


def _fail_after_change(env: Env, stmts: tuple[ir.Stmt, ...], changed: bool) -> bool:
    """Reports a `fail` that some path reaches after a change: the change would stay."""
    for s in stmts:
        if isinstance(s, ir.Fail) and changed:
            assert s.span is not None
            env.diags.error(s.span, "E0418", "`fail` after a change: the order fails but the change stays",
                            help="check the condition first, with `require` or before any change")
        elif isinstance(s, _CHANGES) or (_changes_in_expressions(s) and not isinstance(s, (ir.If, ir.For, ir.While))):
            changed = True
        elif isinstance(s, ir.If):
            changed = changed or _changes_in_expressions(s)
            branches = [_fail_after_change(env, body, changed) for _, body in s.branches]
            if s.otherwise is not None:
                branches.append(_fail_after_change(env, s.otherwise, changed))
            changed = changed or any(branches)
        elif isinstance(s, (ir.For, ir.While)):
            changed = changed or _changes_in_expressions(s)
            # A later round of the loop comes after the changes of an earlier one.
            body_changes = _fail_after_change(env, s.body, changed)
            if body_changes and not changed:
                _fail_after_change(env, s.body, True)  # repeated reports are merged by the bag
            changed = changed or body_changes
    return changed


def victories(c: Checking) -> None:
    env, checker, module = c.env, c.exprs, c.module
    out = []
    for d in module.decls:
        if not isinstance(d, n.VictoryDecl):
            continue
        scope = Scope()
        scope.declare(d.var, T.PLAYER)
        ctx = Context("victory", allow_chance=False)
        when = checker.cond(d.when, scope, ctx)
        held = 1
        if d.held_for is not None:
            held = const_value(env, d.held_for, T.INT, "the number of turns")
            if held < 1:
                env.diags.error(d.held_for.span, "E0415", "a victory must hold for at least 1 turn",
                                help="to win at the end of the first turn the condition holds, leave out `held for`")
        warn = checker.text(d.warn, scope, ctx) if d.warn is not None else None
        out.append(ir.Victory(d.name, d.var, when, held, warn, d.span.line, span=d.span))
    c.program.victories = out
