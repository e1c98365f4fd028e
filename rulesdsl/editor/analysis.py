"""An editor's text -> what the language server answers: the name at a position (its kind, type, comment and
declaration) and the names that may be written there.

Nothing here parses a second time: names come from the checker's environment (`Env`), positions from the AST's
spans, and the types of local names from the typed IR, all made by one `check_source` of the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path

from rulesdsl import comments, ir
from rulesdsl import nodes as n
from rulesdsl import types as T
from rulesdsl.builtins import BUILTINS
from rulesdsl.checker.env import PLAYER_BUILTINS, Env
from rulesdsl.checker.exprs import AGGREGATES
from rulesdsl.compiler import Checked, check_source
from rulesdsl.editor import words
from rulesdsl.source import Source, Span

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# The names the language gives a meaning, with their types where they have one (`calendar` and `game` are
# read through their fields only).
SPECIALS: dict[str, tuple[T.Ty | None, str]] = {
    "me": (T.PLAYER, "the player whose order, report or victory this is"),
    "turn": (T.INT, "the number of the turn being processed"),
    "players": (T.ListT(T.PLAYER), "the active players, in the order of their accounts"),
    "all_players": (T.ListT(T.PLAYER), "every player, dropped ones too"),
    "world": (T.WORLD, "the game-wide state of `world { ... }`"),
    "game_over": (T.BOOL, "whether a victory has ended the game"),
    "game": (None, "the game as a whole (`game.name`)"),
    "calendar": (None, "the calendar's date of the turn (`calendar.year`, `calendar.kind`)"),
}


@dataclass(frozen=True)
class Symbol:
    """A name as the editor shows it: what it is, its type, where it is declared, and the comment on it."""

    name: str
    kind: str  # param, thing, field, table, function, procedure, order, phase, victory, local, builtin, ...
    ty: T.Ty | None = None
    span: Span | None = None  # the declared name; None for the language's own names
    detail: str = ""  # a signature or a pattern, shown as code
    doc: str = ""

    def shown_type(self) -> str:
        return self.ty.show() if self.ty is not None else ""


@dataclass
class Analysis:
    """One check of one text, and the names read from it."""

    source: Source
    checked: Checked
    symbols: dict[str, Symbol] = field(default_factory=dict)  # top-level names, and `Thing.field` fields
    # The types the IR gives local names: where each is read (name -> line, column, type, in the order
    # written), and the type a `let` or a `for` binds (by the statement's name and place).
    uses: dict[str, list[tuple[int, int, T.Ty]]] = field(default_factory=dict)
    binds: dict[tuple[str, int, int], T.Ty] = field(default_factory=dict)
    binders: dict[int, list[Binder]] = field(default_factory=dict)  # by id of the declaration, made when asked

    @property
    def module(self) -> n.Module | None:
        return self.checked.module

    @property
    def env(self) -> Env | None:
        return self.checked.env

    @property
    def ok(self) -> bool:
        """Whether it parsed and was checked: hover, definitions and completion can read it."""
        return self.checked.module is not None and self.checked.env is not None


def analyse(text: str, name: str, folder: Path, source_hash: str = "") -> Analysis:
    """`text` checked as the file `name` in `folder`, and its names indexed."""
    source = Source(name, text)
    checked = check_source(source, folder, source_hash, keep_names=True)
    a = Analysis(source, checked)
    if a.ok:
        _index(a)
    return a


# ---------------------------------------------------------------- the index of names


def _index(a: Analysis) -> None:
    assert a.module is not None and a.env is not None
    env, src = a.env, a.source
    for decl in _own(a.module):
        at = decl.name_span or _name_after(src, decl.span, decl.name)
        doc = comment_on(src, decl.span.line)
        if isinstance(decl, n.ParamDecl) and decl.name in env.params:
            p = env.params[decl.name]
            _add(a, Symbol(decl.name, "secret param" if decl.secret else "param", p.ty, at, doc=doc))
        elif isinstance(decl, (n.ThingDecl, n.GridDecl)):
            info = env.things.get(decl.name)
            how = "grid" if isinstance(decl, n.GridDecl) else \
                f"keyed by {decl.key}" if decl.key else "numbered per owner" if decl.numbered == "owner" else "numbered"
            _add(a, Symbol(decl.name, "thing", T.ThingT(decl.name), at, f"thing {decl.name} {how}", doc))
            _fields(a, decl.name, decl.fields, info.fields if info else {})
            if isinstance(decl, n.ThingDecl) and decl.key:
                _add(a, Symbol(f"{decl.name}.{decl.key}", "field", T.TEXT, _name_after(src, decl.span, decl.key),
                               doc=f"the key of every {decl.name}"))
            if info is not None and info.numbered == "owner":
                _add(a, Symbol(f"{decl.name}.owner", "field", info.owner_ty, _name_after(src, decl.span, "owner"),
                               doc="the player it belongs to"))
        elif isinstance(decl, n.PlayerDecl):
            _fields(a, "Player", decl.fields, env.player_fields)
        elif isinstance(decl, n.WorldDecl):
            _fields(a, "world", decl.fields, env.world_fields)
        elif isinstance(decl, n.TableDecl) and decl.name in env.table_types:
            keys, result = env.table_types[decl.name]
            shown = ", ".join(f"{p.name}: {k.show()}" for p, k in zip(decl.params, keys, strict=False))
            _add(a, Symbol(decl.name, "table", result, at, f"table {decl.name}({shown}) -> {result.show()}", doc))
        elif isinstance(decl, n.DefineDecl) and decl.name in env.functions:
            f = env.functions[decl.name]
            _add(a, Symbol(decl.name, "function", f.result, at, _signature("define", decl.name, f.params, f.result),
                           doc))
        elif isinstance(decl, n.ProcedureDecl) and decl.name in env.procedures:
            pr = env.procedures[decl.name]
            _add(a, Symbol(decl.name, "procedure", pr.result, at,
                           _signature("procedure", decl.name, pr.params, pr.result), doc))
        elif isinstance(decl, n.OrderDecl):
            kind = _ORDER_KINDS.get(decl.kind, f"{decl.kind} order")
            _add(a, Symbol(decl.name, kind, None, at, f'{kind} {decl.name} "{decl.pattern}"', doc))
        elif isinstance(decl, n.PhaseDecl):
            _add(a, Symbol(decl.name, "phase", None, at, doc=doc))
        elif isinstance(decl, n.VictoryDecl):
            _add(a, Symbol(decl.name, "victory", None, at, doc=doc))
    for key, ty in PLAYER_BUILTINS.items():
        a.symbols.setdefault(f"Player.{key}", Symbol(f"Player.{key}", "field", ty, doc="every player has it"))
    if a.checked.program is not None:
        _local_types(a, a.checked.program)


_ORDER_KINDS = {"game": "order", "personal": "personal order", "gm": "gm order"}


def _add(a: Analysis, s: Symbol) -> None:
    a.symbols.setdefault(s.name, s)  # the first declaration is the one; a second is the checker's error


def _fields(a: Analysis, owner: str, decls: tuple[n.FieldDecl, ...], defs: dict[str, ir.FieldDef]) -> None:
    for f in decls:
        at = Span(f.span.file, f.span.line, f.span.col, f.span.line, f.span.col + len(f.name))
        ty = defs[f.name].ty if f.name in defs else None
        _add(a, Symbol(f"{owner}.{f.name}", "field", ty, at, doc=comment_on(a.source, f.span.line)))


def _signature(word: str, name: str, params: tuple[tuple[str, T.Ty], ...], result: T.Ty | None) -> str:
    shown = f"{word} {name}(" + ", ".join(f"{p}: {t.show()}" for p, t in params) + ")"
    return shown + (f" -> {result.show()}" if result is not None else "")


def _local_types(a: Analysis, program: ir.Program) -> None:
    """The type of each local name where the IR reads or binds it: what hovering over a local shows."""
    for node in ir.walk(list(program.nodes())):
        if node.span is None:
            continue
        if isinstance(node, ir.Local):
            a.uses.setdefault(node.name, []).append((node.span.line, node.span.col, node.ty))
        elif isinstance(node, ir.Let):
            a.binds.setdefault((node.name, node.span.line, node.span.col), node.value.ty)
        elif isinstance(node, ir.For):
            item = node.source.ty
            ty = item.item if isinstance(item, (T.ListT, T.SetT)) else T.INT if isinstance(
                node.source, ir.CountRange) else item
            a.binds.setdefault((node.var, node.span.line, node.span.col), ty)
    for uses in a.uses.values():
        uses.sort(key=lambda u: u[:2])


# ---------------------------------------------------------------- comments and names in the text


def comment_on(src: Source, line: int) -> str:
    """The comment lines right above `line` (below a section's rule) and the comment at its end, without their
    `#`: read as every tool reads comments (comments.py)."""
    lines = comments.Lines(src)
    above = comments.comment_above(lines, line, until_rule=True)
    trailing = comments.comment_at(lines, line, follow=False)
    return "\n".join([*above, *([trailing] if trailing else [])]).strip()


def _name_after(src: Source, span: Span, name: str) -> Span:
    """Where `name` is first written as a whole word in `span` (a phase's or a victory's name, a loop's
    variable, which the AST keeps no span of)."""
    for line in range(span.line, span.end_line + 1):
        text = src.line_text(line)
        start = span.col - 1 if line == span.line else 0
        for m in WORD.finditer(text, start):
            if m.group() == name:
                return Span(span.file, line, m.start() + 1, line, m.end() + 1)
    return span


def _loop_var(src: Source, span: Span, var: str) -> Span:
    """Where a loop names its variable: `for each VAR` or `(... for VAR in ...)`, whose body comes first."""
    pattern = re.compile(r"\bfor\s+(?:each\s+)?(" + re.escape(var) + r")\b")
    for line in range(span.line, span.end_line + 1):
        text = src.line_text(line)
        m = pattern.search(text, span.col - 1 if line == span.line else 0)
        if m is not None:
            return Span(span.file, line, m.start(1) + 1, line, m.end(1) + 1)
    return _name_after(src, span, var)


def word_at(src: Source, line: int, col: int) -> tuple[str, Span] | None:
    """The name under (or just before) 1-based `line`, `col`, with its span."""
    text = src.line_text(line)
    for m in WORD.finditer(text):
        if m.start() < col <= m.end() + 1:
            return m.group(), Span(src.name, line, m.start() + 1, line, m.end() + 1)
    return None


def _chain_before(src: Source, span: Span) -> list[str] | None:
    """`a.b` for the word at `span` in `a.b.word`, as ["a", "b"]; None when no `.` is before the word."""
    text = src.line_text(span.line)[:span.col - 1]
    m = re.search(r"((?:[A-Za-z_][A-Za-z0-9_]*\s*\.\s*)+)$", text)
    if m is None:
        return None
    return [w.strip() for w in m.group(1).split(".")[:-1]]


def _within(span: Span, line: int, col: int) -> bool:
    return (span.line, span.col) <= (line, col) <= (span.end_line, span.end_col)


# ---------------------------------------------------------------- the AST around a position


def _nodes(value: object) -> Iterator[object]:
    """Every AST node inside `value`, parents first."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, (tuple, list)):
            stack.extend(reversed(v))
        elif is_dataclass(v) and not isinstance(v, (Span, type)):
            yield v
            stack.extend(reversed([getattr(v, f.name) for f in fields(v) if f.name != "span"]))


def enclosing(module: n.Module, line: int, col: int) -> n.Decl | None:
    for decl in _own(module):
        if _within(decl.span, line, col):
            return decl
    return None


def _own(module: n.Module) -> Iterator[n.Decl]:
    """The declarations written in this file; a variant's `override` stands for the declaration it holds (its
    base's declarations are in other files, and not indexed here)."""
    for decl in module.decls:
        yield decl.decl if isinstance(decl, n.OverrideDecl) else decl


@dataclass(frozen=True)
class Binder:
    """A local name as bound: its symbol, and the span of text in which it means that (its scope)."""

    symbol: Symbol
    scope: Span


def binders(a: Analysis, decl: n.Decl) -> list[Binder]:
    """The local names a declaration binds: parameters, arguments, `let`s and loops' variables."""
    cached = a.binders.get(id(decl))
    if cached is None:
        cached = a.binders[id(decl)] = [_typed(a, b) for b in _binders(a, decl)]
    return cached


def _binders(a: Analysis, decl: n.Decl) -> Iterator[Binder]:
    env, src = a.env, a.source
    assert env is not None
    whole = decl.span
    if isinstance(decl, (n.DefineDecl, n.ProcedureDecl, n.TableDecl)):
        sig = dict(env.functions[decl.name].params if isinstance(decl, n.DefineDecl) and decl.name in env.functions
                   else env.procedures[decl.name].params if isinstance(decl, n.ProcedureDecl)
                   and decl.name in env.procedures else ())
        for p in decl.params:
            at = Span(p.span.file, p.span.line, p.span.col, p.span.line, p.span.col + len(p.name))
            yield Binder(Symbol(p.name, "parameter", sig.get(p.name) or _written_type(p.type), at), whole)
    if isinstance(decl, n.OrderDecl):
        types = env.order_args.get(decl.name, {})
        for arg in decl.args:
            at = Span(arg.span.file, arg.span.line, arg.span.col, arg.span.line, arg.span.col + len(arg.name))
            # An order's arguments are known in all of it, its pattern before them included.
            yield Binder(Symbol(arg.name, "argument", types.get(arg.name), at, doc=comment_on(src, arg.span.line)),
                         whole)
    if isinstance(decl, n.VictoryDecl):
        yield Binder(Symbol(decl.var, "local", T.PLAYER, _name_after(src, decl.span, decl.var)), whole)
    for node in _nodes(decl):
        if isinstance(node, n.Let):
            at = node.name_span or _name_after(src, node.span, node.name)
            # Known from its `let` on (to the end of the declaration: near enough for an editor).
            yield Binder(Symbol(node.name, "local", a.binds.get((node.name, node.span.line, node.span.col)), at,
                                doc=comment_on(src, node.span.line)),
                         Span(at.file, at.line, at.col, whole.end_line, whole.end_col))
        elif isinstance(node, n.For):
            at = _loop_var(src, node.span, node.var)
            yield Binder(Symbol(node.var, "loop variable", a.binds.get((node.var, node.span.line, node.span.col)),
                                at), node.span)
        elif isinstance(node, (n.Comprehension, n.Route, n.Reach)):
            yield Binder(Symbol(node.var, "loop variable", None, _loop_var(src, node.span, node.var)), node.span)


def _written_type(ref: n.TypeRef) -> T.Ty | None:
    return T.BASE_TYPES.get(ref.name) if isinstance(ref, n.NamedType) else None


def _typed(a: Analysis, b: Binder) -> Binder:
    """`b` with the type the IR gives its first reading in its scope, when its binding gave none."""
    s = b.symbol
    if s.ty is not None:
        return b
    for line, col, ty in a.uses.get(s.name, []):
        if _within(b.scope, line, col):
            return Binder(Symbol(s.name, s.kind, ty, s.span, s.detail, s.doc), b.scope)
    return b


def local(a: Analysis, decl: n.Decl | None, name: str, line: int, col: int) -> Symbol | None:
    """The binding of local `name` seen at `line`, `col`: of those whose scope holds it, the innermost."""
    if decl is None:
        return None
    best: Binder | None = None
    for b in binders(a, decl):
        if b.symbol.name == name and _within(b.scope, line, col) and (
                best is None or (b.scope.line, b.scope.col) >= (best.scope.line, best.scope.col)):
            best = b
    return best.symbol if best is not None else None


# ---------------------------------------------------------------- what is at a position


def symbol_at(a: Analysis, line: int, col: int) -> Symbol | None:
    """The name at 1-based `line`, `col` of the analysed text, resolved as the checker resolves it."""
    if not a.ok or a.module is None:
        return None
    found = word_at(a.source, line, col)
    if found is None:
        return None
    word, span = found
    decl = enclosing(a.module, line, col)
    if isinstance(decl, n.LinksDecl) and line == decl.span.line and word == decl.field:
        return a.symbols.get(f"{decl.name}.{word}")
    chain = _chain_before(a.source, span)
    if chain is not None:
        return member(a, _chain_type(a, chain, span.line, span.col), chain, word)
    if isinstance(decl, n.DataDecl) and line == decl.columns_span.line and word in decl.columns:
        return a.symbols.get(f"{decl.name}.{word}")
    # A row's key and a link's targets are instances; a row's values are expressions.
    if isinstance(decl, (n.DataDecl, n.LinksDecl)) and line != decl.span.line and (
            isinstance(decl, n.LinksDecl) or any(r.span.line == line and r.span.col == span.col for r in decl.rows)):
        row = instance(a, decl.name, word)
        if row is not None:
            return row
    if isinstance(decl, (n.ThingDecl, n.GridDecl, n.PlayerDecl, n.WorldDecl)):
        owner = "Player" if isinstance(decl, n.PlayerDecl) else "world" if isinstance(decl, n.WorldDecl) else decl.name
        for f in decl.fields:
            if f.span.line == line and f.name == word and f.span.col == span.col:
                return a.symbols.get(f"{owner}.{word}")
    for node in _nodes(decl) if decl is not None else ():
        # `new Division(owner: p, ...)`: a field of the thing made.
        if isinstance(node, n.New) and _within(node.span, line, col):
            for name, at, _value in node.fields:
                if name == word and at.line == line and at.col == span.col:
                    return a.symbols.get(f"{node.thing}.{word}")
    return name_symbol(a, decl, word, line, col)


def name_symbol(a: Analysis, decl: n.Decl | None, word: str, line: int, col: int) -> Symbol | None:
    """A plain name: a local first, then a declaration, then the language's own names."""
    found = local(a, decl, word, line, col)
    if found is not None:
        return found
    if word in a.symbols:
        return a.symbols[word]
    if word in BUILTINS:
        b = BUILTINS[word]
        return Symbol(word, "builtin function", None, None, b.signature, b.doc)
    if word in AGGREGATES:
        return Symbol(word, "aggregate", None, None, f"{word}(VALUE for NAME in LIST [where COND])")
    if word in SPECIALS:
        ty, doc = SPECIALS[word]
        return Symbol(word, "the language's name", ty, None, doc=doc)
    if word in T.BASE_TYPES or word == "Player":
        return Symbol(word, "type", T.BASE_TYPES.get(word, T.PLAYER), None)
    return None


def _chain_type(a: Analysis, chain: list[str], line: int, col: int) -> T.Ty | None:
    """The type of `a.b.c` written before `line`, `col`; a thing's name alone is the thing (`Country.USA`)."""
    assert a.module is not None
    head = name_symbol(a, enclosing(a.module, line, col), chain[0], line, col)
    if head is None:
        return None
    ty = head.ty
    if head.kind == "thing" and len(chain) == 1:
        return T.ThingT(chain[0])  # instances: `member` tells them from fields by the chain
    for name in chain[1:]:
        found = member(a, ty, [], name)
        ty = found.ty if found is not None else None
    return ty


def _owner(ty: T.Ty | None) -> str | None:
    while isinstance(ty, T.OptT):
        ty = ty.inner
    if isinstance(ty, T.WorldT):
        return "world"
    if isinstance(ty, T.ThingT):
        return ty.name
    return None


def _order_fields(a: Analysis, ty: T.Ty | None) -> list[Symbol]:
    """The fields of one given order (`o` of `orders(bribe)`): its arguments and the player who gave it."""
    if not isinstance(ty, T.OrderT) or a.module is None:
        return []
    out = [Symbol("player", "field", T.PLAYER, None, doc="the player who gave the order")]
    for decl in a.module.decls:
        if isinstance(decl, n.OrderDecl) and decl.name == ty.order:
            out += [b.symbol for b in binders(a, decl) if b.symbol.kind == "argument"]
    return out


def member(a: Analysis, ty: T.Ty | None, chain: list[str], word: str) -> Symbol | None:
    """`word` after `.` on a value of type `ty`: a field, or an instance of a thing named alone."""
    for s in _order_fields(a, ty):
        if s.name == word:
            return s
    owner = _owner(ty)
    if owner is None:
        return None
    if len(chain) == 1 and a.symbols.get(chain[0], Symbol("", "")).kind == "thing":
        return instance(a, owner, word)
    return a.symbols.get(f"{owner}.{word}")


def instance(a: Analysis, thing: str, key: str) -> Symbol | None:
    """`Country.USA`: the data row that makes the instance."""
    assert a.module is not None
    for decl in a.module.decls:
        if isinstance(decl, n.DataDecl) and decl.name == thing:
            for row in decl.rows:
                if row.key == key:
                    at = Span(row.span.file, row.span.line, row.span.col, row.span.line, row.span.col + len(key))
                    return Symbol(f"{thing}.{key}", "instance", T.ThingT(thing), at,
                                  doc=comment_on(a.source, row.span.line))
    return None


def members(a: Analysis, ty: T.Ty | None, chain: list[str]) -> list[Symbol]:
    """What may follow `.` on a value of type `ty` (the instances after a thing's name alone)."""
    if isinstance(ty, T.OrderT):
        return _order_fields(a, ty)
    owner = _owner(ty)
    if owner is None:
        return []
    if len(chain) == 1 and a.symbols.get(chain[0], Symbol("", "")).kind == "thing" and a.env is not None:
        info = a.env.things.get(owner)
        return [s for k in (info.keys if info else []) if (s := instance(a, owner, k)) is not None]
    prefix = f"{owner}."
    return [Symbol(name[len(prefix):], s.kind, s.ty, s.span, s.detail, s.doc)
            for name, s in sorted(a.symbols.items()) if name.startswith(prefix)]


def completions(a: Analysis, text: Source, line: int, col: int) -> list[Symbol]:
    """The names that may be written at `line`, `col` of `text` (the editor's text now, which may not parse:
    the names come from `a`, the last text that did)."""
    if not a.ok or a.module is None:
        return []
    before = text.line_text(line)[:col - 1]
    m = re.search(r"((?:[A-Za-z_][A-Za-z0-9_]*\s*\.\s*)+)[A-Za-z0-9_]*$", before)
    if m is not None:
        chain = [w.strip() for w in m.group(1).split(".")[:-1]]
        return members(a, _chain_type(a, chain, line, col), chain)
    decl = enclosing(a.module, line, col)
    seen: dict[str, Symbol] = {}
    for bound in sorted(binders(a, decl) if decl is not None else [], key=lambda x: (x.scope.line, x.scope.col),
                        reverse=True):
        at = bound.symbol.span
        if _within(bound.scope, line, col) and (
                bound.symbol.kind == "argument" or (at is not None and (at.line, at.col) < (line, col))):
            seen.setdefault(bound.symbol.name, bound.symbol)
    for name, s in sorted(a.symbols.items()):
        if "." not in name:
            seen.setdefault(name, s)
    for name, b in sorted(BUILTINS.items()):
        seen.setdefault(name, Symbol(name, "builtin function", None, None, b.signature, b.doc))
    for name in sorted(AGGREGATES):
        seen.setdefault(name, Symbol(name, "aggregate", None, None, f"{name}(VALUE for NAME in LIST [where COND])"))
    for name, (ty, doc) in SPECIALS.items():
        seen.setdefault(name, Symbol(name, "the language's name", ty, None, doc=doc))
    for name in sorted({*words.keywords(), *words.word_operators(), *words.CONSTANTS}):
        seen.setdefault(name, Symbol(name, "keyword"))
    return list(seen.values())
