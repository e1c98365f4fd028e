"""An editor's requests over LSP (stdio) -> the checker's diagnostics, hover, definitions and completions.

`rulesdsl lsp` runs it. Each open `.rules` text is checked whole by `check_source` (the parser and the checker
that `rulesdsl check` runs), as the file it is in its folder, so templates beside it are read as a game would
read them. A text that does not parse still gets its diagnostics; hover, definitions and completion then read
the last text of it that did, so that completing `country.` in a half-written line still knows `country`.
"""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import TextDocument

from rulesdsl import __version__
from rulesdsl.diagnostics import Diagnostic
from rulesdsl.editor.analysis import Analysis, Symbol, analyse, completions, symbol_at
from rulesdsl.source import Source, Span

# Checking Warlord takes a second: a change waits this long for the next one before the text is checked, so
# that typing a word checks it once. Opening and saving check at once.
DEBOUNCE_SECONDS = 0.3

_KINDS = {
    "param": lsp.CompletionItemKind.Constant, "secret param": lsp.CompletionItemKind.Constant,
    "thing": lsp.CompletionItemKind.Class, "field": lsp.CompletionItemKind.Field,
    "table": lsp.CompletionItemKind.Struct, "function": lsp.CompletionItemKind.Function,
    "procedure": lsp.CompletionItemKind.Method, "builtin function": lsp.CompletionItemKind.Function,
    "phase": lsp.CompletionItemKind.Event, "victory": lsp.CompletionItemKind.Event,
    "instance": lsp.CompletionItemKind.EnumMember, "type": lsp.CompletionItemKind.TypeParameter,
    "keyword": lsp.CompletionItemKind.Keyword, "aggregate": lsp.CompletionItemKind.Function,
}


class RulesServer(LanguageServer):
    """The language server, with each open document's latest analysis that parsed."""

    def __init__(self) -> None:
        super().__init__("rulesdsl", __version__)
        self.good: dict[str, Analysis] = {}
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.published: dict[str, set[str]] = {}  # a ruleset's URI -> the template URIs given diagnostics


server = RulesServer()


def _place(uri: str) -> tuple[str, Path]:
    """The file name a diagnostic shows for `uri`, and the folder its templates are read from."""
    path = to_fs_path(uri) if uri.startswith("file:") else None
    if path is None:
        return uri.rsplit("/", 1)[-1] or "untitled.rules", Path.cwd()
    return Path(path).name, Path(path).parent


def check(ls: RulesServer, uri: str) -> None:
    """Checks the document's text now and publishes its diagnostics (and its templates')."""
    ls.pending.pop(uri, None)
    doc = ls.workspace.get_text_document(uri)
    name, folder = _place(uri)
    try:
        a = analyse(doc.source, name, folder, hashlib.sha256(doc.source.encode()).hexdigest())
    except Exception as e:  # a bug of ours: say so where the designer looks, and keep serving
        bug = lsp.Diagnostic(range=lsp.Range(start=lsp.Position(line=0, character=0),
                                             end=lsp.Position(line=0, character=0)),
                             message=f"rulesdsl could not check this text: internal error ({type(e).__name__}: {e}); "
                                     "this is a bug in rulesdsl, please report it with the file",
                             source="rulesdsl", severity=lsp.DiagnosticSeverity.Error)
        ls.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[bug], version=doc.version))
        return
    if a.ok:
        ls.good[uri] = a
    by_file: dict[str, list[lsp.Diagnostic]] = {}
    for d in a.checked.diagnostics:
        by_file.setdefault(d.span.file, []).append(_diagnostic(doc if d.span.file == name else None, d))
    ls.text_document_publish_diagnostics(
        lsp.PublishDiagnosticsParams(uri=uri, diagnostics=by_file.pop(name, []), version=doc.version))
    # A template's mistakes are its own file's: shown there, and cleared there once mended.
    others = {from_fs_path(str(folder / f)) or f: ds for f, ds in by_file.items()}
    for other in sorted(ls.published.get(uri, set()) - set(others)):
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=other, diagnostics=[]))
    for other, ds in sorted(others.items()):
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=other, diagnostics=ds))
    ls.published[uri] = set(others)


def _range(doc: TextDocument | None, span: Span) -> lsp.Range:
    """A span (1-based, end column exclusive) as an LSP range (0-based, in the client's units)."""
    start = lsp.Position(line=max(span.line - 1, 0), character=max(span.col - 1, 0))
    end = lsp.Position(line=max(span.end_line - 1, 0), character=max(span.end_col - 1, 0))
    if doc is None:
        return lsp.Range(start=start, end=end)
    return doc.position_codec.range_to_client_units(doc.lines, lsp.Range(start=start, end=end))


def _diagnostic(doc: TextDocument | None, d: Diagnostic) -> lsp.Diagnostic:
    """The message `rulesdsl check` prints, then its notes and help, without the quoted line and caret (the
    editor underlines the range itself). `doc` is the text the span is in when it is open here (a template's
    is not: its columns are taken as they are)."""
    lines = [f"{d.severity}[{d.code}]: {d.message}", *(f"note: {x}" for x in d.notes)]
    if d.help:
        lines.append(f"help: {d.help}")
    return lsp.Diagnostic(
        range=_range(doc, d.span), message="\n".join(lines), code=d.code, source="rulesdsl",
        severity=lsp.DiagnosticSeverity.Error if d.severity == "error" else lsp.DiagnosticSeverity.Warning)


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: RulesServer, params: lsp.DidOpenTextDocumentParams) -> None:
    check(ls, params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: RulesServer, params: lsp.DidSaveTextDocumentParams) -> None:
    check(ls, params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: RulesServer, params: lsp.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    old = ls.pending.pop(uri, None)
    if old is not None:
        old.cancel()
    ls.pending[uri] = asyncio.get_running_loop().call_later(DEBOUNCE_SECONDS, check, ls, uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: RulesServer, params: lsp.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    old = ls.pending.pop(uri, None)
    if old is not None:
        old.cancel()
    ls.good.pop(uri, None)


def _at(ls: RulesServer, uri: str, pos: lsp.Position) -> tuple[Analysis | None, TextDocument, int, int]:
    """The analysis to answer from, the document, and the position as 1-based line and column."""
    doc = ls.workspace.get_text_document(uri)
    here = doc.position_codec.position_from_client_units(doc.lines, pos)
    return ls.good.get(uri), doc, here.line + 1, here.character + 1


def hover_text(s: Symbol) -> str:
    """Markdown: what the name is, its type, its signature, and the comment on its declaration."""
    head = f"**{s.kind}** `{s.name}`" + (f": `{s.shown_type()}`" if s.ty is not None else "")
    parts = [head]
    if s.detail:
        parts.append(f"```rulesdsl\n{s.detail}\n```")
    if s.doc:
        parts.append(s.doc)
    return "\n\n".join(parts)


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
def hover(ls: RulesServer, params: lsp.HoverParams) -> lsp.Hover | None:
    a, _doc, line, col = _at(ls, params.text_document.uri, params.position)
    s = symbol_at(a, line, col) if a is not None else None
    if s is None:
        return None
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=hover_text(s)))


@server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
def definition(ls: RulesServer, params: lsp.DefinitionParams) -> lsp.Location | None:
    a, doc, line, col = _at(ls, params.text_document.uri, params.position)
    s = symbol_at(a, line, col) if a is not None else None
    if s is None or s.span is None:
        return None
    return lsp.Location(uri=params.text_document.uri, range=_range(doc, s.span))


@server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["."]))
def completion(ls: RulesServer, params: lsp.CompletionParams) -> lsp.CompletionList:
    a, doc, line, col = _at(ls, params.text_document.uri, params.position)
    found = completions(a, Source(doc.filename or "", doc.source), line, col) if a is not None else []
    items = [lsp.CompletionItem(label=s.name, kind=_KINDS.get(s.kind, lsp.CompletionItemKind.Variable),
                                detail=f"{s.kind}" + (f": {s.shown_type()}" if s.ty is not None else ""),
                                documentation=s.doc or None)
             for s in found]
    return lsp.CompletionList(is_incomplete=False, items=items)


def main(argv: Any = None) -> int:
    """Serves one editor over stdin and stdout until it says exit."""
    server.start_io()
    return 0
