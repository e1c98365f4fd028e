"""The `simulation { ... }` block's AST -> `ir.Simulation` and its diagnostics (E0450-E0460).

`declare` (phase 1, after the orders' signatures) checks what each entry names: the block itself (one), the
orders weighted and chosen and their arguments, the invariants' names, the hidden facts' fields and the names
p, q and c. `bodies` (phase 2) checks the expressions: a choice's options (for `me`), an invariant (no `me`, no
chance), a hidden fact's `unless` (p, q and c). No turn runs any of it: only `rulesdsl simulate` does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from rulesdsl import ir
from rulesdsl import nodes as n
from rulesdsl import types as T
from rulesdsl.checker.env import Context, Env, Scope, and_, suggest
from rulesdsl.checker.exprs import show_expr
from rulesdsl.checker.state import Checking
from rulesdsl.source import Span

# What a random player never writes: the GM's orders, and the stop and discard lines the engine reads itself.
_UNWRITTEN = {"gm": "a GM order", "stop": "a stop order", "discard": "a discard order"}
# How the simulator changes a hidden fact of each type (the docs' list, §19); anything else it cannot change.
CHANGEABLE = "a number (changed by one), a bool (flipped), an optional thing or player (another, or none), " \
             "or a list or set of things, players, numbers or texts (given or losing an item)"


@dataclass
class _Entries:
    """What `declare` found sound, for `bodies` to check the expressions of."""

    block: n.SimulationDecl | None = None
    weights: dict[str, int] = field(default_factory=dict)
    choices: list[tuple[n.SimChoose, T.Ty]] = field(default_factory=list)  # with the type each option must have
    invariants: list[n.SimInvariant] = field(default_factory=list)
    hidden: list[tuple[n.SimHidden, T.Ty]] = field(default_factory=list)  # with the fact's type


def declare(c: Checking) -> None:
    env = c.env
    blocks = [d for d in c.module.decls if isinstance(d, n.SimulationDecl)]
    found = c.simulation = _Entries()
    for extra in blocks[1:]:
        env.diags.error(_head(extra), "E0450", "a ruleset has one `simulation { ... }` block: this is its second",
                        notes=(f"the first is at {blocks[0].span}",),
                        help="move these entries into the first block")
    if not blocks:
        return
    block = found.block = blocks[0]
    chosen: dict[tuple[str, str], n.SimChoose] = {}
    weighted: dict[str, n.SimWeight] = {}
    invariants: dict[str, n.SimInvariant] = {}
    for item in block.items:
        if isinstance(item, n.SimWeight):
            if _order(env, item.order, item.order_span, "weight") is None:
                continue
            if item.order in weighted:
                _twice(env, item.order_span, f"order `{item.order}` is weighted", weighted[item.order].span)
                continue
            weighted[item.order] = item
            if isinstance(item.weight, Fraction) or item.weight < 0:
                env.diags.error(item.weight_span, "E0453",
                                f"a weight is a whole number, 0 or more, not {_num(item.weight)}",
                                help="every order's weight is 1 unless given; 3 makes it three times as likely, "
                                     "0 never written")
                continue
            found.weights[item.order] = item.weight
        elif isinstance(item, n.SimChoose):
            d = _order(env, item.order, item.order_span, "choose")
            if d is None:
                continue
            args = env.order_args.get(item.order, {})
            if item.arg not in args:
                hint = suggest(item.arg, args) or (f"its arguments are {and_(f'`{a}`' for a in args)}" if args else
                                                   f"`{item.order}` takes no arguments")
                env.diags.error(item.arg_span, "E0455", f"order `{item.order}` has no argument `{item.arg}`",
                                help=hint)
                continue
            key = (item.order, item.arg)
            if key in chosen:
                _twice(env, item.span, f"`{item.order}.{item.arg}` is chosen", chosen[key].span)
                continue
            chosen[key] = item
            arg = args[item.arg]
            found.choices.append((item, arg.item if isinstance(arg, (T.ListT, T.SetT)) else arg))
        elif isinstance(item, n.SimInvariant):
            if item.name in invariants:
                _twice(env, item.name_span, f"invariant `{item.name}` is declared", invariants[item.name].span)
                continue
            invariants[item.name] = item
            found.invariants.append(item)
        else:
            fact = _hidden(env, item)
            if fact is not None:
                found.hidden.append((item, fact))


def bodies(c: Checking) -> None:
    env, checker = c.env, c.exprs
    found = c.simulation
    if not isinstance(found, _Entries) or found.block is None:
        return
    choices = []
    for item, want in found.choices:
        ctx = Context("simulation", me=True, allow_chance=False)
        options = checker.expr(item.options, Scope(), ctx)
        have = options.ty
        fits = have == T.ANY or (isinstance(have, (T.ListT, T.SetT)) and T.assignable(have.item, want))
        if not fits:
            env.diags.error(item.options.span, "E0456", f"the options for `{item.order}.{item.arg}` should be a list "
                            f"or set of {want.show()}, but this is {have.show()}",
                            help=f"write the values it may take, like `[x for x in ... where ...]` giving {want.show()}"
                            if not isinstance(have, (T.ListT, T.SetT)) else
                            f"the argument takes {want.show()}: give a list of those")
            continue
        choices.append(ir.Choice(item.order, item.arg, options, item.span.line, span=item.span))
    invariants = []
    for inv in found.invariants:
        ctx = Context("invariant", allow_chance=False)
        value = checker.expr(inv.value, Scope(), ctx)
        ty = T.concrete(value.ty)
        if inv.unchanged and not _comparable(ty):
            env.diags.error(inv.value.span, "E0457", f"`unchanged` compares the value after each turn with the one at "
                            f"the start, and {ty.show()} cannot be compared so: a turn makes its players and things "
                            "anew",
                            help="watch numbers, bools or texts (or lists or sets of them): a count like "
                                 f"`size({show_expr(inv.value) or '...'})`, or the things' keys")
            continue
        if not inv.unchanged and ty not in (T.BOOL, T.ANY):
            env.diags.error(inv.value.span, "E0457", f"an invariant is a condition (bool), but this is {ty.show()}",
                            help="to require that this value never changes, write `unchanged` after it"
                            if _comparable(ty) else "compare it, like `... >= 0`")
            continue
        invariants.append(ir.Invariant(inv.name, value, inv.unchanged, inv.span.line, span=inv.span))
    hidden = []
    for h, ty in found.hidden:
        unless = None
        if h.unless is not None:
            scope = Scope()
            scope.declare(h.owner[0], T.PLAYER)
            scope.declare(h.viewer[0], T.PLAYER)
            if h.var is not None and h.thing is not None:
                scope.declare(h.var[0], T.ThingT(h.thing[0]))
            unless = checker.cond(h.unless, scope, Context("hidden fact", allow_chance=False))
        thing = h.thing[0] if h.thing is not None else ""
        var = h.var[0] if h.var is not None else ""
        hidden.append(ir.Hidden(thing, h.field[0], ty, h.owner[0], h.viewer[0], var, unless, h.span.line,
                                span=h.span))
    block = found.block
    c.program.simulation = ir.Simulation(tuple(found.weights.items()), tuple(choices), tuple(invariants),
                                         tuple(hidden), block.span.line, span=block.span)


def _order(env: Env, name: str, span: Span, word: str) -> n.OrderDecl | None:
    """The order `name`, if a random player may write it; else the error, and None."""
    d = env.orders.get(name)
    if d is None:
        env.diags.error(span, "E0451", f"`{word}` names no order `{name}`",
                        help=suggest(name, env.orders) or "name an order declared with `order` or `personal order`")
        return None
    if d.kind in _UNWRITTEN:
        env.diags.error(span, "E0452", f"`{name}` is {_UNWRITTEN[d.kind]}: random players never write it",
                        help="only game and personal orders are written by the simulator's players; remove this "
                             f"`{word}`")
        return None
    return d


def _hidden(env: Env, h: n.SimHidden) -> T.Ty | None:
    """The type of the fact `h` hides, or None after its error."""
    # In the order written, so that the caret goes under the second use of a name.
    names = [(h.owner, "the player the fact belongs to")]
    if h.var is not None:
        names.append((h.var, "the thing it is a field of"))
    names.append((h.viewer, "the player it is hidden from"))
    seen: dict[str, str] = {}
    ok = True
    for (name, span), role in names:
        if name in seen:
            env.diags.error(span, "E0459", f"`{name}` names both {seen[name]} and {role}",
                            help="each needs a name of its own, as in `hidden p.cash from q` or "
                                 "`hidden c.spy[p] for c in Country from q`")
            ok = False
        seen.setdefault(name, role)
    if h.obj is not None and h.var is not None and h.obj[0] != h.var[0]:
        env.diags.error(h.obj[1], "E0459", f"`{h.obj[0]}` is not the thing this `hidden` goes through, `{h.var[0]}`",
                        help=f"write `{h.var[0]}.{h.field[0]}[{h.owner[0]}]`")
        ok = False
    fname, fspan = h.field
    if h.thing is None:
        fd = env.player_fields.get(fname)
        if fd is None:
            env.diags.error(fspan, "E0458", f"the player has no field `{fname}`",
                            help=suggest(fname, env.player_fields) or
                            "a hidden fact is a field of the `player { ... }` block, or a thing's per-player field: "
                            "`hidden c.FIELD[p] for c in THING from q`")
            return None
        ty = fd.ty
        owner = "the player's"
    else:
        tname, tspan = h.thing
        info = env.things.get(tname)
        if info is None:
            env.diags.error(tspan, "E0458", f"no thing `{tname}`", help=suggest(tname, env.things))
            return None
        fd = info.fields.get(fname)
        if fd is None or not (isinstance(fd.ty, T.MapT) and fd.ty.key == T.PLAYER):
            what = f"{tname} has no field `{fname}`" if fd is None else \
                f"`{tname}.{fname}` is {fd.ty.show()}, not a value per player"
            env.diags.error(fspan, "E0458", what,
                            help=suggest(fname, info.fields) if fd is None else
                            f"a thing's hidden fact is a per-player field, like `{fname}: Player -> {fd.ty.show()}`; "
                            "for a player's own field write `hidden p.FIELD from q`")
            return None
        ty = fd.ty.value
        owner = f"{tname}'s"
    if not _changeable(ty):
        env.diags.error(fspan, "E0460", f"the simulator cannot change {owner} `{fname}`, which is {ty.show()}",
                        help=f"a hidden fact is {CHANGEABLE}")
        return None
    # Player fields and per-player values are never `indexed` (E0242, E0243): changing one in place, as the
    # simulator does, leaves no index behind.
    return ty if ok else None


def _changeable(ty: T.Ty) -> bool:
    if isinstance(ty, T.Num) or ty in (T.BOOL, T.ANY):
        return True
    if isinstance(ty, T.OptT):
        return isinstance(ty.inner, T.ThingT)
    if isinstance(ty, (T.ListT, T.SetT)):
        return isinstance(ty.item, (T.ThingT, T.Num)) or ty.item == T.TEXT
    return False


def _comparable(ty: T.Ty) -> bool:
    """Whether values of `ty` from two turns compare as values: no thing or player inside (a turn loads its
    instances anew), nothing nested."""
    if ty in (T.BOOL, T.TEXT, T.ANY) or isinstance(ty, T.Num):
        return True
    if isinstance(ty, T.OptT):
        return ty.inner in (T.BOOL, T.TEXT) or isinstance(ty.inner, T.Num)
    if isinstance(ty, (T.ListT, T.SetT)):
        return ty.item in (T.BOOL, T.TEXT) or isinstance(ty.item, T.Num)
    return False


def _twice(env: Env, span: Span, what: str, first: Span) -> None:
    env.diags.error(span, "E0454", f"{what} twice in the `simulation` block",
                    notes=(f"the first is at {first}",), help="keep one of the two")


def _num(value: int | Fraction) -> str:
    return str(value) if not isinstance(value, Fraction) else str(float(value)).rstrip("0").rstrip(".")


def _head(d: n.Decl) -> Span:
    s = d.span
    return Span(s.file, s.line, s.col, s.line, s.col + len("simulation"))
