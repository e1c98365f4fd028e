"""A variant's AST and its base's -> one program's AST: `extends`, `override` and `remove` merged away.

A variant is a `.rules` file whose `extends "PATH"` names another ruleset, its base (PATH is relative to the
variant's own file). The variant's declarations are read against the base's, by kind and name:

- a declaration with a name the base does not have is added, after the base's declarations;
- `override DECL` replaces the base's declaration of that kind and name where the base wrote it, so phases,
  victories, order syntaxes and data rows keep the base's order. Most kinds are replaced whole (a parameter,
  table, function, procedure, order, phase, victory, grid, links, calendar, the `simulation` block); five
  merge by name instead, since a designer changes one part of them at a time: the `ruleset` header (its title,
  and the settings written), a thing, the player and the world (the fields written; the others are kept), the
  `orders` block (the settings written, by kind: a group's limit by its group), and the report (the fields
  written, and `template` or `html` if written);
- `override data THING { KEY: ... }` replaces the base's rows of those keys, or adds them;
- `remove KIND NAME`, `remove data THING KEY` and `remove report field NAME` drop the base's (a thing
  removed takes its `data` and `links` with it, an order its `weight` and `choose` in the `simulation` block).

A base may itself be a variant (a chain), never in a cycle. Every node keeps the span of the file it was
written in, so the checker, which sees one program and knows nothing of variants, points each diagnostic at
the file it belongs to. A file that neither extends nor overrides is returned as it is.

In a game folder (`rulesdsl new`), the variant, its bases and their templates are copied side by side into
`rules/`: so a base not found at its path is looked for by its file name beside the variant, and no two
files of a chain may share a file name (E0447).

Diagnostics: E0440 (the base is not found), E0441 (a cycle), E0442 (a base's name declared again without
`override`), E0443 (`override` of a name the base lacks), E0444 (`remove` of a name the base lacks), E0445
(`override` or `remove` in a file that extends nothing), E0446 (a second `extends`), E0447 (two files of a
chain with one file name), E0448 (one name overridden or removed twice in a variant).
"""

from __future__ import annotations

import dataclasses
import difflib
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TypeVar

from rulesdsl import nodes as n
from rulesdsl.diagnostics import Diagnostic
from rulesdsl.source import Source, Span, base_path

T = TypeVar("T")

Reader = Callable[[Path, str], tuple[Source, Diagnostic | None]]
Parser = Callable[[Source], tuple[n.Module | None, list[Diagnostic]]]

_KINDS: dict[type[n.Decl], str] = {
    n.RulesetDecl: "ruleset", n.ParamDecl: "param", n.ThingDecl: "thing", n.PlayerDecl: "player",
    n.WorldDecl: "world", n.GridDecl: "grid", n.DataDecl: "data", n.LinksDecl: "links", n.TableDecl: "table",
    n.DefineDecl: "define", n.ProcedureDecl: "procedure", n.OrdersDecl: "orders", n.OrderDecl: "order",
    n.PhaseDecl: "phase", n.CalendarDecl: "calendar", n.ReportDecl: "report", n.VictoryDecl: "victory",
    n.SimulationDecl: "simulation",
}
# Kinds a ruleset has at most one of: named by the kind alone (a ruleset's `name` is its title).
_SINGLE = {"ruleset", "player", "world", "orders", "calendar", "report", "simulation"}


@dataclass
class Loaded:
    """A ruleset read with its bases: the merged module (None after an error), every diagnostic, every file's
    source by its display name, and the folders where templates are looked for, the variant's first."""

    module: n.Module | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    sources: dict[str, Source] = field(default_factory=dict)
    files: dict[str, Path] = field(default_factory=dict)
    folders: list[Path] = field(default_factory=list)


def is_variant(module: n.Module) -> bool:
    return any(isinstance(d, (n.ExtendsDecl, n.OverrideDecl, n.OverrideRows, n.RemoveDecl)) for d in module.decls)


def load(path: Path, source: Source, module: n.Module, read: Reader, parse: Parser) -> Loaded:
    """`module` (parsed from `source`, the file at `path`) with its chain of bases merged into it."""
    out = Loaded(None, sources={source.name: source}, files={source.name: path}, folders=[path.parent])
    out.module = _load(path, source.name, module, [path.resolve()], out, read, parse)
    return out


def _load(path: Path, display: str, module: n.Module, seen: list[Path], out: Loaded, read: Reader,
          parse: Parser) -> n.Module | None:
    diags = out.diagnostics
    extends = [d for d in module.decls if isinstance(d, n.ExtendsDecl)]
    for extra in extends[1:]:
        diags.append(Diagnostic(_head(extra), "E0446", "a ruleset extends one base: this is its second `extends`",
                                notes=(f"the first is at {extends[0].span}",),
                                help="to build on two rulesets, let one of them extend the other"))
    if not extends:
        for d in module.decls:
            if isinstance(d, (n.OverrideDecl, n.OverrideRows, n.RemoveDecl)):
                word = "override" if not isinstance(d, n.RemoveDecl) else "remove"
                diags.append(Diagnostic(_word(d, word), "E0445", f"`{word}` in a ruleset that extends nothing",
                                        help="a variant names its base first, as in `extends \"../covert.rules\"`; "
                                             f"in a ruleset of its own, drop `{word}`"))
        return None if any(d.severity == "error" for d in diags) else module
    ext = extends[0]
    found = base_path(path.parent, ext.name)
    if found is None:
        folder = (path.parent / ext.name).parent
        written = PurePosixPath(ext.name).parent
        near = sorted(str(written / f.name) if str(written) != "." else f.name
                      for f in (folder.glob("*.rules") if folder.is_dir() else ()))
        close = difflib.get_close_matches(ext.name, near, n=1)
        looked = posixpath.normpath(posixpath.join(posixpath.dirname(display), ext.name))
        diags.append(Diagnostic(ext.path_span, "E0440", f"no ruleset `{ext.name}` to extend",
                                notes=(f"looked for {looked}",),
                                help=f"did you mean `{close[0]}`?" if close else
                                "the path is relative to this file's folder, as in `extends \"../covert.rules\"`"))
        return None
    real = found.resolve()
    if real in seen:
        chain = " extends ".join([*(p.name for p in seen[seen.index(real):]), found.name])
        diags.append(Diagnostic(ext.path_span, "E0441", f"`extends` makes a cycle: {chain}",
                                help="a ruleset cannot be its own base, directly or through its bases: "
                                     "remove one of these `extends`"))
        return None
    written_here = found.parent == (path.parent / PurePosixPath(ext.name).parent)
    shown = posixpath.normpath(posixpath.join(posixpath.dirname(display),
                                              ext.name if written_here else PurePosixPath(ext.name).name))
    clash = next((name for name in out.files if PurePosixPath(name).name == found.name), None)
    if clash is not None:
        diags.append(Diagnostic(ext.path_span, "E0447", f"this chain of variants has two files named `{found.name}`",
                                notes=(f"{clash} is the other",),
                                help="a game copies a variant and its bases into one folder: rename one of them"))
        return None
    source, problem = read(found, shown)
    out.sources[shown] = source
    out.files[shown] = found
    out.folders.append(found.parent)
    if problem is not None:
        diags.append(problem)
        return None
    base, parsed = parse(source)
    diags.extend(parsed)
    if base is None or any(d.severity == "error" for d in parsed):
        return None
    merged_base = _load(found, shown, base, [*seen, real], out, read, parse)
    if merged_base is None:
        return None
    return merge(merged_base, module, diags)


def kind_of(d: n.Decl) -> str:
    return _KINDS.get(type(d), "")


def key_of(d: n.Decl) -> tuple[str, str]:
    kind = kind_of(d)
    if kind in _SINGLE:
        return kind, ""
    if isinstance(d, n.LinksDecl):
        return kind, f"{d.name}.{d.field}"
    return kind, d.name


def merge(base: n.Module, variant: n.Module, diags: list[Diagnostic]) -> n.Module | None:
    """The base's declarations with the variant's overrides and removals applied in place, then the variant's
    new declarations; None if any of them is an error."""
    decls: list[n.Decl | None] = list(base.decls)
    where: dict[tuple[str, str], int] = {}
    for i, d in enumerate(base.decls):
        where.setdefault(key_of(d), i)
    touched: dict[tuple[str, str], n.Decl] = {}
    added: list[n.Decl] = []
    errors = len([d for d in diags if d.severity == "error"])

    def error(span: Span, code: str, message: str, help: str | None = None, notes: tuple[str, ...] = ()) -> None:
        diags.append(Diagnostic(span, code, message, help=help, notes=notes))

    def once(key: tuple[str, str], d: n.Decl) -> bool:
        if key in touched:
            verb = "removes" if isinstance(touched[key], n.RemoveDecl) else "overrides"
            error(_head(d), "E0448", f"this variant already {verb} {_named(key)}",
                  notes=(f"at {touched[key].span}",), help="keep one of the two")
            return False
        touched[key] = d
        return True

    for d in variant.decls:
        if isinstance(d, n.ExtendsDecl):
            continue
        if isinstance(d, n.OverrideDecl):
            key = key_of(d.decl)
            if key not in where or decls[where[key]] is None:
                _unknown(d, key, base, "E0443", "override", error)
            elif once(key, d):
                old = decls[where[key]]
                assert old is not None
                decls[where[key]] = _replace(old, d.decl)
        elif isinstance(d, n.OverrideRows):
            _override_rows(d, decls, where, base, error, once)
        elif isinstance(d, n.RemoveDecl):
            _remove(d, decls, where, base, error, once)
        else:
            key = key_of(d)
            if key in where:
                old = base.decls[where[key]]
                how = f"override data {d.name} {{ KEY: ... }}" if key[0] == "data" else \
                    f"override {key[0]} {key[1]} ...".replace("  ", " ")
                error(_head(d), "E0442", f"the base already declares {_named(key)}",
                      notes=(f"declared at {old.span}",),
                      help=f"write `{how}` to replace the base's, or give this one another name")
            else:
                added.append(d)
    if len([d for d in diags if d.severity == "error"]) > errors:
        return None
    return n.Module(variant.span, variant.file, tuple([*(d for d in decls if d is not None), *added]))


def _replace(old: n.Decl, new: n.Decl) -> n.Decl:
    """The declaration an `override` leaves: `new` whole, or merged by name into `old` for the five kinds
    that merge."""
    if isinstance(old, n.RulesetDecl) and isinstance(new, n.RulesetDecl):
        return dataclasses.replace(new, settings=_by_name(old.settings, new.settings, lambda s: s.name))
    if isinstance(old, (n.ThingDecl, n.PlayerDecl, n.WorldDecl)) and type(new) is type(old):
        fields = _by_name(old.fields, new.fields, lambda f: f.name)
        return dataclasses.replace(new, fields=fields)
    if isinstance(old, n.OrdersDecl) and isinstance(new, n.OrdersDecl):
        settings = _by_name(old.settings, new.settings, lambda s: f"{s.kind} {s.name if s.kind == 'group' else ''}")
        return dataclasses.replace(new, settings=settings)
    if isinstance(old, n.ReportDecl) and isinstance(new, n.ReportDecl):
        return dataclasses.replace(
            new, fields=_by_name(old.fields, new.fields, lambda f: f.name),
            template=new.template if new.template is not None else old.template,
            template_span=new.template_span if new.template is not None else old.template_span,
            html=new.html if new.html is not None else old.html,
            html_span=new.html_span if new.html is not None else old.html_span)
    return new


def _by_name(old: tuple[T, ...], new: tuple[T, ...], name: Callable[[T], str]) -> tuple[T, ...]:
    """`old`'s items, each replaced in place by the `new` item of its name; then `new`'s other items."""
    given = {name(x): x for x in new}
    kept = [given.pop(name(x), x) for x in old]
    return tuple([*kept, *(x for x in new if name(x) in given)])


def _override_rows(d: n.OverrideRows, decls: list[n.Decl | None], where: dict[tuple[str, str], int],
                   base: n.Module, error: Callable[..., None], once: Callable[[tuple[str, str], n.Decl], bool]) -> None:
    spots = [i for i, x in enumerate(decls) if isinstance(x, n.DataDecl) and x.name == d.name]
    if not spots:
        _unknown(d, ("data", d.name), base, "E0443", "override", error)
        return
    for row in d.rows:
        if not once(("row", f"{d.name}.{row.key}"), d):
            continue
        home = next((i for i in spots if any(r.key == row.key for r in decls[i].rows)),  # type: ignore[union-attr]
                    spots[-1])
        data = decls[home]
        assert isinstance(data, n.DataDecl)
        decls[home] = dataclasses.replace(data, rows=_by_name(data.rows, (row,), lambda r: r.key))


def _remove(d: n.RemoveDecl, decls: list[n.Decl | None], where: dict[tuple[str, str], int], base: n.Module,
            error: Callable[..., None], once: Callable[[tuple[str, str], n.Decl], bool]) -> None:
    if d.kind == "row":
        spots = [i for i, x in enumerate(decls) if isinstance(x, n.DataDecl) and x.name == d.name]
        if not spots:
            _unknown(d, ("data", d.name), base, "E0444", "remove", error)
            return
        keys = [r.key for i in spots for r in decls[i].rows]  # type: ignore[union-attr]
        if d.key not in keys:
            close = difflib.get_close_matches(d.key, keys, n=1)
            error(d.key_span or _head(d), "E0444", f"the base's data of {d.name} has no row `{d.key}`",
                  help=f"did you mean `{close[0]}`?" if close else f"the rows are {_listed(keys)}")
            return
        if once(("row", f"{d.name}.{d.key}"), d):
            for i in spots:
                data = decls[i]
                assert isinstance(data, n.DataDecl)
                decls[i] = dataclasses.replace(data, rows=tuple(r for r in data.rows if r.key != d.key))
        return
    if d.kind == "report field":
        at = where.get(("report", ""))
        report = decls[at] if at is not None else None
        names = [f.name for f in report.fields] if isinstance(report, n.ReportDecl) else []
        if not isinstance(report, n.ReportDecl) or d.name not in names:
            close = difflib.get_close_matches(d.name, names, n=1)
            error(d.name_span or _head(d), "E0444", f"the base's report has no field `{d.name}`",
                  help=f"did you mean `{close[0]}`?" if close else None)
            return
        if at is not None and once(("report field", d.name), d):
            decls[at] = dataclasses.replace(report, fields=tuple(f for f in report.fields if f.name != d.name))
        return
    key = (d.kind, d.name)
    if key not in where or decls[where[key]] is None:
        _unknown(d, key, base, "E0444", "remove", error)
    elif once(key, d):
        decls[where[key]] = None
        if d.kind == "thing":
            # Its data rows and links are its instances and their ties: they go with it.
            for i, x in enumerate(decls):
                if isinstance(x, (n.DataDecl, n.LinksDecl)) and x.name == d.name:
                    decls[i] = None
        elif d.kind == "order":
            # How random players write it (`weight`, `choose`) is about it alone: it goes with it.
            for i, x in enumerate(decls):
                if isinstance(x, n.SimulationDecl):
                    decls[i] = dataclasses.replace(x, items=tuple(
                        item for item in x.items
                        if not (isinstance(item, (n.SimWeight, n.SimChoose)) and item.order == d.name)))


def _unknown(d: n.Decl, key: tuple[str, str], base: n.Module, code: str, word: str,
             error: Callable[..., None]) -> None:
    kind, name = key
    same = [key_of(x)[1] for x in base.decls if key_of(x)[0] == kind]
    close = difflib.get_close_matches(name, same, n=1)
    other = next((kind_of(x) for x in base.decls if kind_of(x) != kind and key_of(x)[1] == name and name), None)
    notes = (f"the base has a {other} named `{name}`",) if other else ()
    help = f"did you mean `{close[0]}`?" if close else \
        f"to add a new {kind}, drop `{word}`" if word == "override" else None
    error(d.name_span or _head(d), code, f"`{word}` of {_named(key)}, which the base does not declare",
          help=help, notes=notes)


def _named(key: tuple[str, str]) -> str:
    kind, name = key
    if kind == "row":
        thing, _, row = name.partition(".")
        return f"the row `{row}` of data {thing}"
    return f"the {kind}" if not name else f"{kind} `{name}`"


def _listed(names: list[str]) -> str:
    shown = ", ".join(f"`{x}`" for x in names[:8])
    return shown + (", ..." if len(names) > 8 else "")


def _head(d: n.Decl) -> Span:
    """The first line of a declaration, up to its name where the name is on that line: where its caret goes."""
    s, name = d.span, d.name_span
    if name is not None and name.file == s.file and name.line == s.line:
        return Span(s.file, s.line, s.col, s.line, name.end_col)
    return Span(s.file, s.line, s.col, s.line, s.col + 1)


def _word(d: n.Decl, word: str) -> Span:
    s = d.span
    return Span(s.file, s.line, s.col, s.line, s.col + len(word))
