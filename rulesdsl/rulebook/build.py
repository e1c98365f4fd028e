"""Checked program (`ir.Program`) and its sources -> the rulebook's document model (model.Book).

Everything a player reads comes from the rules: an order's line from its syntax (the text the runtime reads
lines with and refusals echo), its arguments' types and ranges, cost, limits and refusal reasons from the IR,
meanings from the comments beside them (comments.py), which tables are secret from the checker's secrets
analysis (`Program.secret_tables`). Expressions are shown as the ruleset writes them, cut from the source by
their spans. A variant's rulebook reads each declaration's comments and text from the file its span names:
the base's orders with the base's comments, the variant's overrides with the variant's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from pathlib import PurePath
from typing import Any

from rulesdsl import comments, ir
from rulesdsl import types as T
from rulesdsl.rulebook import model as m
from rulesdsl.runtime.core import fmt_money
from rulesdsl.runtime.syntax import split
from rulesdsl.source import Source, Span


def build(program: ir.Program, sources: Mapping[str, Source] | str) -> m.Book:
    """The book of a checked program, from its sources by display name (as the checker keeps them), or from
    the text of a ruleset of one file."""
    if isinstance(sources, str):
        sources = {program.source_name: Source(program.source_name, sources)}
    return _Builder(program, sources).book()


def slug(*words: str) -> str:
    return "-".join(re.sub(r"[^a-z0-9]+", "-", w.lower()).strip("-") for w in words)


def prose(words: str) -> m.Inline:
    """A comment's text: `quoted` parts are code, as the rulesets write them."""
    out: list[m.Piece] = []
    for i, part in enumerate(words.split("`")):
        if part:
            out.append(("code" if i % 2 else "text", part))
    return tuple(out)


def join(*parts: m.Inline) -> m.Inline:
    out: list[m.Piece] = []
    for part in parts:
        out.extend(part)
    return tuple(out)


_ALIGNED = re.compile(r"\S {3,}\S")  # columns lined up with spaces: a table drawn in the comment


def blocks(lines: list[str]) -> tuple[m.Para | m.Pre, ...]:
    """Comment lines as paragraphs (an empty line, a rule line or a numbered line begins a new one), and runs
    of lines indented or laid out in columns, as they are written."""
    out: list[m.Para | m.Pre] = []
    words: list[str] = []
    drawn: list[str] = []

    def flush() -> None:
        if words:
            out.append(m.Para(prose(" ".join(words))))
            words.clear()
        if drawn:
            out.append(m.Pre(tuple(drawn)))
            drawn.clear()

    for line in lines:
        if (line.startswith("  ") and line.strip()) or _ALIGNED.search(line.strip()):
            if words:
                flush()
            drawn.append(line.rstrip())
            continue
        if drawn:
            flush()
        if not line.strip() or line.strip().startswith("---") or re.match(r"\d+[.)]\s", line.strip()):
            flush()
        if line.strip() and not line.strip().startswith("---"):
            words.append(line.strip())
    flush()
    return tuple(out)


def _head_lines(lines: list[str]) -> list[str]:
    """The text of the comment a file starts with, without its `#` marks."""
    out: list[str] = []
    for line in lines:
        if not line.strip().startswith("#"):
            break
        out.append(line.strip()[1:].rstrip()[1:] if line.strip()[1:2] == " " else line.strip()[1:])
    return out


def paragraphs(lines: list[str]) -> tuple[m.Inline, ...]:
    """Comment lines as paragraphs of text, a table drawn in them a line each."""
    out: list[m.Inline] = []
    for b in blocks(lines):
        out += [b.body] if isinstance(b, m.Para) else [prose(" ".join(x.split())) for x in b.lines]
    return tuple(out)


class _Builder:
    def __init__(self, program: ir.Program, sources: Mapping[str, Source]) -> None:
        self.p = program
        self.sources = sources
        self.main = program.source_name
        # The ruleset's own file first, then its bases as its declarations name them: the variant's
        # `data` block and notes come before the base's.
        self.files = list(dict.fromkeys([self.main, *(x.span.file for x in program.nodes()
                                                      if x.span is not None and x.span.file in sources)]))
        self.texts = {name: sources[name].text.splitlines() for name in self.files}
        self.lines = self.texts[self.main]
        self.money_places = _places(program.settings.get("money"))
        self.unit = str(program.settings.get("turn", "turn"))
        self.secret_params = {x.name for x in program.params if x.secret}
        self.blocks: dict[tuple[str, str], tuple[str, int]] = {}
        for name in self.files:
            for key, line in _data_lines(self.texts[name]).items():
                self.blocks.setdefault(key, (name, line))
        self.numbered = {t.name for t in program.things if t.numbered}
        self.runs: dict[str, list[str]] = {}
        for ph in program.phases:
            for node in ir.walk(ph.body):
                if isinstance(node, ir.Run):
                    for name in node.orders:
                        self.runs.setdefault(name, []).append(ph.name)
        self.tables_shown = [t for t in program.tables if t.name not in program.secret_tables]

    # ---------------------------------------------------------------- text from the source

    def src(self, node: ir.Node) -> str:
        """The expression as the ruleset writes it, on one line."""
        span = node.span
        if span is None:
            return "..."
        return " ".join(_slice(self.sources.get(span.file, self.sources[self.main]), span).split())

    def file_of(self, node: ir.Node | None) -> str:
        """The file a declaration is written in: a variant's base holds what the variant does not override."""
        span = node.span if node is not None else None
        return span.file if span is not None and span.file in self.texts else self.main

    def above(self, node: ir.Node, line: int | None = None) -> list[str]:
        """The comment above a declaration (at `line` of its file, or its own), from below the last rule line
        (`# ---- orders`) that heads a part of the file, not the declaration."""
        return comments.comment_above(self.texts[self.file_of(node)], line if line is not None else _line(node),
                                      until_rule=True)

    def at(self, node: ir.Node, line: int | None = None) -> str:
        return comments.comment_at(self.texts[self.file_of(node)], line if line is not None else _line(node))

    def value(self, v: Any, ty: T.Ty | None = None) -> str:
        if isinstance(v, bool):
            return "yes" if v else "no"
        if v is None:
            return "none"
        if isinstance(ty, T.Num) and ty.unit == "money" and self.money_places:
            return fmt_money(v, self.money_places)  # as a report writes an amount
        if isinstance(v, Fraction):
            return str(v.numerator) if v.denominator == 1 else f"{float(v):g}"
        if isinstance(v, (list, tuple, set, frozenset)):
            return ", ".join(self.value(x) for x in v) or "none"
        return str(v)

    def expr(self, e: ir.Expr, args: frozenset[str] = frozenset()) -> m.Inline:
        """A value as shown in the book: a literal by its value, a public parameter by its name and value, an
        argument by its name, anything else as the ruleset writes it."""
        if isinstance(e, ir.Local) and e.name in args:
            return (("arg", e.name),)
        if isinstance(e, ir.Const):
            return m.text(self.value(e.value, e.ty))
        if isinstance(e, ir.InstanceRef):
            return m.text(e.key)
        if isinstance(e, ir.MakeList) and all(isinstance(x, (ir.Const, ir.InstanceRef)) for x in e.items):
            return m.text(", ".join(text for x in e.items for _, text in self.expr(x)) or "none")
        if isinstance(e, ir.ParamRef) and e.name not in self.secret_params:
            param = next(x for x in self.p.params if x.name == e.name)
            return join(m.code(e.name), m.text(f" ({self.value(param.default, param.ty)})"))
        return m.code(self.src(e))

    def message(self, e: ir.Expr, args: set[str], given: dict[str, m.Inline] | None = None) -> m.Inline:
        """A refusal's text, its `{...}` shown as the argument it names or the expression it shows. In a text
        a function gives, `given` shows each of the function's parameters as the call's value for it."""
        given = given or {}
        if isinstance(e, ir.Const):
            return m.text(str(e.value))
        whole = e.parts[0] if isinstance(e, ir.Interp) and len(e.parts) == 1 else e
        if isinstance(whole, ir.CallFn):
            return self.reasons_of(whole, args, given)
        if not isinstance(e, ir.Interp):
            return self.shown(e, args, given)
        out: list[m.Piece] = []
        for part in e.parts:
            out += m.text(part) if isinstance(part, str) else self.shown(part, args, given)
        return tuple(out)

    def shown(self, e: ir.Expr, args: set[str], given: dict[str, m.Inline]) -> m.Inline:
        """One `{...}` of a text: an argument by its name, a choice of two words as both (`ally/allies`) and
        words said only sometimes in brackets, anything else as written."""
        named = _arg_named(e, args | set(given))
        if named is not None:
            return given.get(named, (("arg", named),))
        if isinstance(e, ir.ParamRef):
            return self.expr(e)
        if isinstance(e, ir.Cond) and all(isinstance(x, ir.Const) and isinstance(x.value, str)
                                          for x in (e.then, e.otherwise)):
            then, otherwise = e.then.value, e.otherwise.value  # type: ignore[attr-defined]
            if not then or not otherwise:  # words said only sometimes: in brackets
                said = then or otherwise
                return m.text(said[:len(said) - len(said.lstrip())] + f"[{said.strip()}]")
            return m.text(f"{then}/{otherwise}")
        return m.code(self.src(e))

    def reasons_of(self, call: ir.CallFn, args: set[str], given: dict[str, m.Inline]) -> m.Inline:
        """A reason a function gives (`else "{why_not(me)}"`): the texts its `if`s choose among, so that a
        player reads the reasons, not the function's name."""
        f = next((x for x in self.p.functions if x.name == call.func), None)
        leaves: list[ir.Expr] = []
        todo: list[ir.Expr] = [f.body] if f is not None else []
        while todo:
            e = todo.pop(0)
            if isinstance(e, ir.Cond):
                todo[:0] = [e.then, e.otherwise]
            else:
                leaves.append(e)
        texts = [x for x in leaves if isinstance(x, (ir.Const, ir.Interp))]
        if not texts or f is None:
            return self.shown(call, args, given)
        inner = {name: self.shown(a, args, given) for (name, _), a in zip(f.params, call.args, strict=True)}
        out: list[m.Piece] = []
        for i, leaf in enumerate(texts):
            if i:
                out.append(("text", "; or "))
            out += self.message(leaf, set(), inner)
        if len(texts) < len(leaves):
            out += [("text", "; or another reason, which the refusal names")]
        return tuple(out)

    # ---------------------------------------------------------------- the book

    def book(self) -> m.Book:
        p = self.p
        head = self.head_comment()
        bits = [f"version {p.settings['version']}"] if "version" in p.settings else []
        if self.unit != "turn":
            bits.append(f"one turn is one {self.unit}")
        sections = [self.sequence(), self.sending(), self.orders_section()]
        gm = self.gm_section()
        if gm is not None:
            sections.append(gm)
        sections += [s for s in (self.winning(), self.params_section(), self.tables_section(),
                                 self.data_section(), self.notes_section()) if s is not None]
        # The file by its name alone: the book says the same wherever the command ran.
        return m.Book(p.title, m.text(", ".join(bits)), head, tuple(sections), PurePath(p.source_name).name)

    def head_comment(self) -> tuple[m.Para | m.Pre, ...]:
        """The comment the file starts with, up to its first blank line or declaration; for a variant, then each
        base's, introduced by the base's file name, since a variant's players play the base's game too."""
        out = list(blocks(_head_lines(self.lines)))
        for name in self.files[1:]:
            head = blocks(_head_lines(self.texts[name]))
            if head:
                out.append(m.Para(m.text(f"From the game it varies ({PurePath(name).name}):")))
                out += head
        return tuple(out)

    # ---------------------------------------------------------------- the turn

    def sequence(self) -> m.Section:
        p = self.p
        blocks: list[m.Block] = []
        start = [ph for ph in p.phases if ph.at_start]
        before = [ph for ph in p.phases if ph.before_orders and not ph.at_start]
        main = [ph for ph in p.phases if not ph.before_orders and not ph.at_start]
        if p.calendar is not None:
            cal = p.calendar
            kinds = list(dict.fromkeys(k for _, k in cal.steps))
            blocks.append(m.Para(m.text(
                f"The game keeps a calendar: it starts in {cal.steps[cal.start][0]} {cal.year}, and each turn is "
                f"one of {len(kinds)} kinds ({', '.join(kinds)}). One year goes through these turns, in order:")))
            rows: dict[str, list[str]] = {}
            for period, kind in cal.steps:
                rows.setdefault(period, []).append(kind)
            blocks.append(m.Table("", m.text("The turns of a year"), ("month", "turns, in order"),
                                  tuple((m.text(k), m.text(", ".join(v))) for k, v in rows.items())))
            taken = []
            for kind in kinds:
                given = [o.name for o in p.orders if o.kind == "game" and not _gm(o)
                         and (not o.only_in or kind in o.only_in)]
                taken.append(join(m.text(f"In {_a(kind)} {kind} turn: "), _codes(given) or m.text("no orders")))
            blocks.append(m.Para(m.text("The orders each kind of turn takes:")))
            blocks.append(m.Bullets(tuple(taken)))
        if start:
            blocks.append(m.Para(m.text("When the game begins (before the first turn):")))
            blocks.append(m.Bullets(tuple(self.phase_item(ph) for ph in start)))
        blocks.append(m.Para(m.text(f"Each {self.unit} runs in these steps, in order:")))
        steps = [self.phase_item(ph) for ph in before]
        steps.append(join(m.text("Your mail is read: personal orders are carried out at once, and the game orders "
                                 "are chosen (see "), _ref("sending-orders", "Sending orders"), m.text(").")))
        steps += [self.phase_item(ph) for ph in main]
        defaults = [o for o in p.orders if o.default is not None]
        if defaults:
            steps.append(join(m.text("The game master's orders not given this turn take their defaults: "),
                              _codes([o.name for o in defaults]), m.text(".")))
        if p.victories:
            steps.append(join(m.text("The game checks whether anyone has won (see "), _ref("winning", "Winning"),
                              m.text(").")))
        blocks.append(m.Bullets(tuple(steps), numbered=True))
        return m.Section("the-turn", f"The {self.unit}", tuple(blocks))

    def phase_item(self, ph: ir.Phase) -> m.Inline:
        said: list[m.Inline] = []
        orders = list(dict.fromkeys(o for node in ir.walk(ph.body) if isinstance(node, ir.Run) for o in node.orders))
        about = " ".join(re.sub(r"^\d+\.\s*", "", line) for line in self.above(ph))
        if about:
            said.append(prose(about + ("" if about.endswith((".", '."', ".)")) else ".")))
        if orders:
            said.append(join(m.text("Carries out the "), _links(orders), m.text(" orders.")))
        if ph.kinds:
            said.append(m.text(f"Only in {' and '.join(ph.kinds)} turns."))
        if ph.when is not None:
            said.append(join(m.text("Only when "), m.code(self.src(ph.when)), m.text(".")))
        out = join(m.code(ph.name), m.text(": " if said else "."))
        for i, part in enumerate(said):
            out = join(out, m.text(" ") if i else (), part)
        return out

    # ---------------------------------------------------------------- sending orders

    def sending(self) -> m.Section:
        pol = self.p.policy
        blocks: list[m.Block] = []
        if pol.header:
            blocks.append(m.Para(m.text("Send your orders by mail. The mail starts with these lines:")))
            blocks.append(m.Bullets(tuple(_syntax(line) for line in pol.header)))
            names = {"game": "the game's number", "account": "your account", "code": "your access code"}
            used = [(k, v) for k, v in names.items() if any("{" + k + "}" in h for h in pol.header)]
            blocks.append(m.Para(join(
                m.text("where "),
                *(join(m.text(", " if i else ""), (("arg", k),), m.text(f" is {v}")) for i, (k, v) in enumerate(used)),
                m.text(". Then one order a line. Capitals and small letters are read alike, and spaces "
                       "around a comma do not matter."))))
        limits: list[m.Inline] = []
        if pol.limit is not None:
            limits.append(m.text(f"At most {pol.limit} of your orders are carried out each {self.unit}, orders on "
                                 f"file included; the rest stay on file for the next {self.unit}, in front."))
        if pol.budget_field is not None:
            limits.append(join(m.text("Each order carried out uses one of your "), m.code(pol.budget_field),
                               m.text(f": you start with {pol.budget_start} and gain {pol.budget_plus} each "
                                      f"{self.unit}.")))
        if pol.new_limit is not None:
            limits.append(m.text(f"At most {pol.new_limit} new orders are accepted from you in one {self.unit}."))
        if pol.pay_field is not None:
            limits.append(join(m.text("Orders with a cost are paid from your "), m.code(pol.pay_field),
                               m.text(": an order you cannot pay for is refused.")))
        for g in pol.groups:
            members = [o.name for o in self.p.orders if g.name in o.counts_as]
            limits.append(join(m.text(f"At most {g.limit} of the orders "), _codes(members),
                               m.text(f" each {self.unit}; a further one is refused: “"),
                               self.message(g.reason, set()), m.text("”.")))
        limits.append(m.text(f"A second mail for the same {self.unit} replaces the first."
                             if pol.later_mail == "replaces" else
                             f"A second mail for the same {self.unit} adds its orders to the first's."))
        blocks.append(m.Bullets(tuple(limits)))
        return m.Section("sending-orders", "Sending orders", tuple(blocks))

    # ---------------------------------------------------------------- orders

    def orders_section(self) -> m.Section:
        game = [o for o in self.p.orders if o.kind == "game" and not _gm(o)]
        personal = [o for o in self.p.orders if o.kind == "personal" and not _gm(o)]
        other = [o for o in self.p.orders if o.kind in ("stop", "discard")]
        subs = [m.Section("game-orders", "Game orders", (
            m.Para(m.text(f"Game orders are chosen when your mail is read and carried out later in the {self.unit}, "
                          "each in its step. An order whose line does not read, or that breaks a rule marked "
                          "“refused when given”, is refused at once; the others can still be refused when "
                          "their step comes.")),
            *(self.order(o) for o in game)))]
        if personal:
            subs.append(m.Section("personal-orders", "Personal orders", (
                m.Para(m.text("A personal order is carried out at once, as its line is read, before any order "
                              "is chosen. It does not count against any limit, and costs nothing.")),
                *(self.order(o) for o in personal))))
        if other:
            subs.append(m.Section("stop-and-discard", "Stop and discard", tuple(self.order(o) for o in other)))
        return m.Section("orders", "Orders", (), tuple(subs))

    def gm_section(self) -> m.Section | None:
        gm = [o for o in self.p.orders if _gm(o)]
        if not gm:
            return None
        return m.Section("gm-orders", "The game master's orders", (
            m.Para(m.text("Players do not give these: the game master does, to rule what the rules leave to "
                          "judgement. They are listed so that you know what the game master may do.")),
            *(self.order(o) for o in gm)))

    def order(self, o: ir.Order) -> m.Order:
        names = {a.name for a in o.args}
        facts: list[m.Inline] = []
        if _gm(o):
            facts.append(m.text("Given by the game master " + ("for the whole world." if o.world
                                                               else "for one position.")))
        if o.kind == "game":
            if o.name in self.p.unrun_orders:
                facts.append(m.text("Not used in this game: no step carries it out."))
            elif o.name in self.runs:
                phases = list(dict.fromkeys(self.runs[o.name]))
                facts.append(join(m.text("Carried out in the step "), _links(phases, "step"), m.text(".")))
        elif o.kind == "stop":
            facts.append(m.text(f"Ends your orders for this {self.unit}: the lines after it are kept on file for "
                                f"the next {self.unit}."))
        elif o.kind == "discard":
            facts.append(m.text("Removes every order you have on file and every order given before it in this "
                                f"{self.unit}'s mail; the lines after it are read as usual."))
        if o.only_in:
            facts.append(m.text(f"Only in {' and '.join(o.only_in)} turns; refused in any other."))
        if o.cost is not None:
            pay = self.p.policy.pay_field
            facts.append(join(m.text("Costs "), self.expr(o.cost, frozenset(names)),
                              m.text(f", paid from your {pay}: refused when you have less." if pay else ".")))
        for arg, shared in zip(o.once_per, o.once_as or ("",) * len(o.once_per), strict=False):
            also = [x.name for x in self.p.orders if x is not o and shared and shared in x.once_as]
            facts.append(join(m.text(f"At most once a {self.unit} for the same "), (("arg", arg),),
                              join(m.text(", counting the orders "), _codes(also)) if also else (), m.text(".")))
        for g in o.counts_as:
            group = next(x for x in self.p.policy.groups if x.name == g)
            facts.append(join(m.text(f"Counts as a {g} order: at most {group.limit} a {self.unit} (see "),
                              _ref("sending-orders", "Sending orders"), m.text(").")))
        if o.ends_turn is not None:
            when = (m.text("") if isinstance(o.ends_turn, ir.Const) else
                    join(m.text(" when "), m.code(self.src(o.ends_turn))))
            facts.append(join(m.text("Ends your turn"), when,
                              m.text(": the orders after it are refused and not kept on file.")))
        if o.standing:
            per = f" for each {o.standing_per}" if o.standing_per else ""
            until = join(m.text(" It ends when you give another with "), m.code(self.src(o.until)),
                         m.text(".")) if o.until is not None else m.text("")
            facts.append(join(m.text(f"A standing order{per}: once taken it is carried out again every "
                                     f"{self.unit}, until you replace it or it no longer reads."), until))
        refusals: list[m.Inline] = []
        for check in o.valids:
            refusals.append(join(self.message(check.message, names), m.text(" (refused when given)")))
        for check in o.requires:
            refusals.append(self.message(check.message, names))
        for fail in self._fails(o.effect):
            refusals.append(self.message(fail.text, names))
        about = paragraphs(self.above(o))
        return m.Order(slug("order", o.name), o.name, _syntax(o.pattern), about, tuple(facts),
                       self.args_table(o) if o.args else None, tuple(dict.fromkeys(refusals)))

    def _fails(self, body: tuple[ir.Stmt, ...]) -> list[ir.Fail]:
        """The `fail`s of an effect (a procedure may not fail: E0334)."""
        return [node for node in ir.walk(body) if isinstance(node, ir.Fail)]

    def args_table(self, o: ir.Order) -> m.Table:
        rows = []
        for a in o.args:
            said = self.at(a, a.span.line) if a.span is not None else self.at(o)
            rows.append(((("arg", a.name),), self.arg_type(a), self.arg_range(a), prose(said)))
        columns = ["argument", "what to write", "values", "meaning"]
        # A column no argument fills says nothing: left out.
        keep = [i for i in range(len(columns)) if i < 2 or any(text for row in rows for _, text in row[i])]
        return m.Table("", (), tuple(columns[i] for i in keep), tuple(tuple(r[i] for i in keep) for r in rows))

    def arg_type(self, a: ir.Arg) -> m.Inline:
        if a.digits:
            return m.text("digits written together, each one number")
        return self.type_text(a.ty, a.spaced)

    def type_text(self, ty: T.Ty, spaced: bool = False) -> m.Inline:
        if isinstance(ty, T.OptT):
            return self.type_text(ty.inner)
        if isinstance(ty, T.ListT):
            joined = "+ or spaces" if spaced else "+"
            return join(m.text("one or more of: "), self.type_text(ty.item), m.text(f", joined by {joined}"))
        if isinstance(ty, T.Num):
            if ty.unit == "money":
                return m.text(f"an amount of money, like {'12.' + '5'.rjust(self.money_places, '0')}"
                              if self.money_places else "a whole amount of money")
            return m.text("a number" if ty.decimal else "a whole number")
        if isinstance(ty, T.ThingT):
            name = ty.name
            if name == "Player":
                return m.text("a player, by account or name")
            if self.p.grid is not None and self.p.grid.name == name:
                return m.text(f"a sector of the map, written {self.p.grid.pattern} (C a column digit, R a row digit)")
            if name in self.numbered:
                return m.text(f"the number of a {name.lower()}")
            keys = [i.key for i in self.p.instances.get(name, [])]
            if 0 < len(keys) <= 8:
                return m.text(f"one of {', '.join(keys)}")
            if keys:
                return join(m.text("one of the "), (("link", f"data-{slug(name)}|{name}"),), m.text(" codes"))
            return m.text(f"a {name.lower()}")
        if isinstance(ty, T.Simple) and ty.name == "text":
            return m.text("text")
        return m.text(ty.show())

    def arg_range(self, a: ir.Arg) -> m.Inline:
        if a.low is not None and a.high is not None:
            return join(m.text("from "), self.expr(a.low), m.text(" to "), self.expr(a.high))
        if a.low is not None:
            return join(m.text("at least "), self.expr(a.low))
        if a.high is not None:
            return join(m.text("at most "), self.expr(a.high))
        return m.text("")

    # ---------------------------------------------------------------- winning

    def winning(self) -> m.Section | None:
        if not self.p.victories:
            return None
        items = []
        for v in self.p.victories:
            held = f", and it holds for {v.held_for} {self.unit}s in a row" if v.held_for > 1 else ""
            about = " ".join(self.above(v))
            items.append(join(m.code(v.name), m.text(": a player "), m.code(v.var), m.text(" wins when "),
                              m.code(self.src(v.when)),
                              m.text(held + "."), (("text", " "), *prose(about)) if about else ()))
        return m.Section("winning", "Winning", (m.Para(m.text(f"After each {self.unit}, a player wins when:")),
                                                m.Bullets(tuple(items))))

    # ---------------------------------------------------------------- parameters, tables and data

    def params_section(self) -> m.Section | None:
        shown = [x for x in self.p.params if not x.secret]
        if not shown:
            return None
        # Written as a scenario sets them: true and false, not yes and no.
        rows = tuple((m.code(x.name), m.text(str(x.default).lower() if isinstance(x.default, bool)
                                             else self.value(x.default, x.ty)),
                      prose(self.at(x) or " ".join(self.above(x)))) for x in shown)
        blocks: list[m.Block] = [
            m.Para(m.text("The numbers the rules are built on. A game may set other values: its game master "
                          "says so when it starts.")),
            m.Table("", (), ("parameter", "value", "meaning"), rows)]
        if self.secret_params:
            blocks.append(m.Para(m.text(f"The rules have {len(self.secret_params)} secret numbers more, which "
                                        "only the game master knows.")))
        return m.Section("parameters", "Parameters", tuple(blocks))

    def tables_section(self) -> m.Section | None:
        if not self.tables_shown:
            return None
        blocks: list[m.Block] = [self.table(t) for t in self.tables_shown]
        if self.p.secret_tables:
            blocks.append(m.Para(m.text(f"The rules have {len(self.p.secret_tables)} secret tables more, which "
                                        "only the game master knows.")))
        return m.Section("tables", "Tables", tuple(blocks))

    def table(self, t: ir.Table) -> m.Table:
        keys = list(t.keys) or [f"key {i + 1}" for i in range(len(t.param_types))]
        rows: list[tuple[m.Inline, ...]] = []
        for key, value in t.rows:
            shown = self.expr(value)
            if t.kind == "weighted":
                weight = key if not isinstance(key, ir.Node) else None
                chance = self.value(weight) + "%" if weight is not None else self.src(key)
                rows.append((m.text(chance), shown))
            elif t.kind == "range":
                rows.append((m.text(self.bounds(key)), shown))
            else:
                rows.append((*(m.text(self.value(k, ty)) for k, ty in zip(key, t.param_types, strict=True)), shown))
        columns = ("chance", "result") if t.kind == "weighted" else (*keys, "result")
        sig = f"{t.name}({', '.join(keys)})" if keys else t.name
        return m.Table(slug("table", t.name), m.code(sig), columns, tuple(rows), paragraphs(self.above(t)))

    def bounds(self, b: Any) -> str:
        low, low_open, high, high_open = b
        if low is not None and low == high and not low_open and not high_open:
            return self._bound(low)
        parts = []
        if low is not None:
            parts.append(("above " if low_open else "from ") + self._bound(low))
        if high is not None:
            parts.append(("below " if high_open else "to ") + self._bound(high))
        return " ".join(parts) or "any"

    def _bound(self, v: Any) -> str:
        if isinstance(v, ir.ParamRef):
            return v.name
        return self.value(v)

    def data_section(self) -> m.Section | None:
        blocks: list[m.Block] = []
        for thing in self.p.things:
            rows = self.p.instances.get(thing.name)
            if not rows:
                continue
            types = {f.name: f.ty for f in thing.fields}
            columns = [c for c in types if any(c in r.values for r in rows)]
            block = self.blocks.get(("data", thing.name))
            about = paragraphs(comments.comment_above(self.texts[block[0]], block[1], until_rule=True)) if block else ()
            body = tuple((m.text(r.key), *(m.text(self.value(r.values.get(c), types[c])) if c in r.values
                                          else m.text("") for c in columns)) for r in rows)
            blocks.append(m.Table(f"data-{slug(thing.name)}", m.text(thing.name), (thing.key, *columns), body, about))
        return m.Section("data", "Data", tuple(blocks)) if blocks else None

    # ---------------------------------------------------------------- designer's notes

    def notes_section(self) -> m.Section | None:
        items: list[m.Inline] = []
        # The book opens with the file's head comment: a note there (or a marker it quotes) is read already.
        head = next((i for i, line in enumerate(self.lines) if not line.strip().startswith("#")), len(self.lines))
        for name in self.files:
            decls = self.declarations(name)
            for note in comments.designer_notes(self.texts[name]):
                if name == self.main and note.line <= head:
                    continue
                what = self.note_place(note, decls, self.texts[name], base=name != self.main)
                if what is None:
                    continue  # about a secret (only the game master reads it), or what a variant replaced
                items.append(join(what, m.text(": "), prose(note.text)))
        if not items:
            return None
        return m.Section("designers-notes", "Designer's notes", (
            m.Para(m.text("Where the rules decide a point for a reason, the designer says why.")),
            m.Bullets(tuple(items))))

    def declarations(self, file: str) -> list[tuple[int, str, m.Inline | None]]:
        """(line, keyword, label) for each declaration written in `file`, by line; label None for a secret one."""
        p = self.p
        out: list[tuple[int, str, m.Inline | None]] = []
        player_file = self.file_of(p.player_fields[0] if p.player_fields else None)
        world_file = self.file_of(p.world_fields[0] if p.world_fields else None)
        for x in p.params:
            out.append((x.line, "param", None if x.secret else join(m.text("parameter "), m.code(x.name))))
        for thing in p.things:
            out.append((thing.line, "thing", join(m.text("thing "), m.code(thing.name))))
        if p.grid is not None:
            out.append((p.grid.line, "grid", join(m.text("the map "), m.code(p.grid.name))))
        if p.player_line and player_file == file:
            out.append((p.player_line, "player", m.text("the player")))
        if p.world_line and world_file == file:
            out.append((p.world_line, "world", m.text("the world")))
        for t in p.tables:
            # A note on a secret table is about the secret: only the game master reads it.
            link = join(m.text("table "), (("link", f"table-{slug(t.name)}|{t.name}"),))
            out.append((t.line, "table", None if t.name in p.secret_tables else link))
        for f in p.functions:
            out.append((f.line, "define", join(m.text("function "), m.code(f.name))))
        for pr in p.procedures:
            out.append((pr.line, "procedure", join(m.text("procedure "), m.code(pr.name))))
        for o in p.orders:
            out.append((o.line, "order", join(m.text("order "), (("link", f"order-{slug(o.name)}|{o.name}"),))))
        for ph in p.phases:
            out.append((ph.line, "phase", join(m.text("step "), (("link", f"the-turn|{ph.name}"),))))
        for v in p.victories:
            out.append((v.line, "victory", join(m.text("victory "), m.code(v.name))))
        if p.report is not None:
            out.append((p.report.line, "report", m.text("the report")))
        if p.simulation is not None and self.file_of(p.simulation) == file:
            # The block is the designer's, for `rulesdsl simulate`: a note on it or in it is not the player's.
            out.append((p.simulation.line, "simulation", None))
        for (word, name), line in _data_lines(self.texts[file]).items():
            if self.blocks.get((word, name)) == (file, line):
                out.append((line, word, join(m.text(f"{word} "), m.code(name))))
        return sorted(out, key=lambda x: x[0])

    def merged_label(self, kind: str, name: str) -> m.Inline | None:
        if kind == "thing":
            return join(m.text("thing "), m.code(name))
        return {"player": m.text("the player"), "world": m.text("the world"), "report": m.text("the report")}[kind]

    def note_place(self, note: comments.Note, decls: list[tuple[int, str, m.Inline | None]], text: list[str],
                   base: bool = False) -> m.Inline | None:
        """Where a note belongs: the declaration right below it, or the one it stands in. In a variant's base,
        a note on a declaration the variant overrides or removes goes with it (None): the variant's own
        comments say what holds."""
        lines = {line: label for line, _, label in decls}
        after = note.line if note.trailing else note.end_line + 1
        while after <= len(text) and not note.trailing and not text[after - 1].strip():
            after += 1
        if after in lines:
            return lines[after]
        if base:
            # A declaration starts at the line's first column (the layout `rulesdsl fmt` keeps): the
            # declaration a note stands in or above is the nearest such line at or above where it points.
            top = next((i for i in range(min(after, len(text)), 0, -1) if _starts_declaration(text[i - 1])), 0)
            if top in lines:
                return lines[top]
            words = text[top - 1].replace("{", " ").split() if top else []
            if words and words[0] in _MERGED:
                # A variant's override of these adds to the base's: what the base says of it still holds.
                return self.merged_label(words[0], words[1] if len(words) > 1 else "")
            if words and words[0] not in _UNLISTED:
                return None
        inside = [label for line, _, label in decls if line <= note.line]
        if not inside:
            return m.text("the rules")
        return inside[-1]


_DATA_LINE = re.compile(r"(data|links)\s+([A-Za-z_][\w.]*)")


def _data_lines(lines: list[str]) -> dict[tuple[str, str], int]:
    """Where each `data THING` and `links THING.FIELD` block starts: the IR keeps their rows, not the block."""
    out: dict[tuple[str, str], int] = {}
    for i, line in enumerate(lines):
        found = _DATA_LINE.match(line)
        if found is not None:
            out.setdefault((found.group(1), found.group(2)), i + 1)
    return out


# The blocks the notes section names no declaration for: a note in one goes with the declaration above it.
_UNLISTED = ("calendar", "discard", "extends", "orders", "ruleset", "stop")
# The declarations a variant's override adds to rather than replaces (docs/language.md §18).
_MERGED = ("thing", "player", "world", "report")


def _starts_declaration(line: str) -> bool:
    return bool(line[:1].strip()) and line[:1] not in "#}"


def _line(node: ir.Node) -> int:
    """A declaration's line: the IR keeps it beside the span, which expressions alone may lack."""
    line = getattr(node, "line", None)
    if isinstance(line, int):
        return line
    return node.span.line if node.span is not None else 0


def _slice(source: Source, span: Span) -> str:
    if span.line == span.end_line:
        return source.line_text(span.line)[span.col - 1:span.end_col - 1]
    parts = [source.line_text(span.line)[span.col - 1:]]
    parts += [source.line_text(i) for i in range(span.line + 1, span.end_line)]
    parts.append(source.line_text(span.end_line)[:span.end_col - 1])
    return "\n".join(parts)


def _arg_named(e: ir.Expr, args: set[str]) -> str | None:
    """The argument a `{...}` shows, when it shows one by itself, its name or its code."""
    if isinstance(e, ir.Local) and e.name in args:
        return e.name
    if isinstance(e, ir.Field) and e.name in ("name", "code") and isinstance(e.obj, ir.Local) and e.obj.name in args:
        return e.obj.name
    return None


def _syntax(pattern: str) -> m.Inline:
    out: list[m.Piece] = []
    for piece in split(pattern.strip()):
        if piece.kind == "slot":
            out.append(("arg", piece.text))
        elif out and out[-1][0] == "code":
            out[-1] = ("code", out[-1][1] + piece.text)
        else:
            out.append(("code", piece.text))
    return tuple(out)


def _codes(names: list[str]) -> m.Inline:
    out: list[m.Piece] = []
    for i, name in enumerate(names):
        if i:
            out.append(("text", " and " if i == len(names) - 1 else ", "))
        out.append(("code", name))
    return tuple(out)


def _links(names: list[str], kind: str = "order") -> m.Inline:
    out: list[m.Piece] = []
    for i, name in enumerate(names):
        if i:
            out.append(("text", " and " if i == len(names) - 1 else ", "))
        # Steps are items of one numbered list: a link goes to the list.
        out.append(("link", f"{'the-turn' if kind == 'step' else kind + '-' + slug(name)}|{name}"))
    return tuple(out)


def _ref(target: str, label: str) -> m.Inline:
    """A link to a part of the book, by its title."""
    return (("ref", f"{target}|{label}"),)


def _gm(o: ir.Order) -> bool:
    return o.kind == "gm" or o.world


def _a(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _places(setting: Any) -> int:
    if setting is None:
        return 0
    text = str(setting)
    return len(text.split(".")[1]) if "." in text else 0
