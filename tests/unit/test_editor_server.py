"""`rulesdsl lsp` over stdio, driven by pygls's own client -> diagnostics, hover, definition and completion.

One server process serves every test of the module (starting it and checking Covert takes about a second).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

from rulesdsl.cli import main as cli
from tests.unit.rulestools import ROOT

COVERT = ROOT / "rulesets" / "covert.rules"
COVERT_URI = from_fs_path(str(COVERT)) or ""
WAIT = 30.0  # seconds; a server that answers nothing fails the test instead of hanging it


class Session:
    """A running server, its client, and the diagnostics published so far, by URI."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.client = LanguageClient("rulesdsl-tests", "1")
        self.diagnostics: dict[str, list[lsp.PublishDiagnosticsParams]] = {}
        self.arrived = asyncio.Event()

        @self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: lsp.PublishDiagnosticsParams) -> None:
            self.diagnostics.setdefault(params.uri, []).append(params)
            self.arrived.set()

    def run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(asyncio.wait_for(coro, WAIT))

    async def next_diagnostics(self, uri: str, count: int) -> lsp.PublishDiagnosticsParams:
        """The `count`-th publication for `uri` (1 for the first), waiting for it."""
        while len(self.diagnostics.get(uri, [])) < count:
            self.arrived.clear()
            await self.arrived.wait()
        return self.diagnostics[uri][count - 1]

    def open(self, uri: str, text: str) -> lsp.PublishDiagnosticsParams:
        count = len(self.diagnostics.get(uri, [])) + 1
        self.client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=uri, language_id="rulesdsl", version=1, text=text)))
        result: lsp.PublishDiagnosticsParams = self.run(self.next_diagnostics(uri, count))
        return result

    def change(self, uri: str, version: int, text: str) -> lsp.PublishDiagnosticsParams:
        count = len(self.diagnostics.get(uri, [])) + 1
        self.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)]))
        result: lsp.PublishDiagnosticsParams = self.run(self.next_diagnostics(uri, count))
        return result


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    s = Session()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    s.run(s.client.start_io(sys.executable, "-m", "rulesdsl", "lsp", cwd=str(ROOT), env=env))
    s.run(s.client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(),
                                                         root_uri=from_fs_path(str(ROOT)))))
    s.client.initialized(lsp.InitializedParams())
    s.open(COVERT_URI, COVERT.read_text(encoding="utf-8"))
    try:
        yield s
    finally:
        s.run(s.client.shutdown_async(None))
        s.client.exit(None)
        s.run(s.client.stop())
        s.loop.close()


def _where(text: str, line_text: str, word: str, nth: int = 0) -> lsp.Position:
    """The position of the `nth` `word` on the first line that holds `line_text`."""
    for i, line in enumerate(text.splitlines()):
        if line_text in line:
            col = -1
            for _ in range(nth + 1):
                col = line.index(word, col + 1)
            return lsp.Position(line=i, character=col + 1)
    raise AssertionError(f"no line holds {line_text!r}")


def _hover(s: Session, uri: str, pos: lsp.Position) -> str:
    answer = s.run(s.client.text_document_hover_async(
        lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=pos)))
    assert answer is not None and isinstance(answer.contents, lsp.MarkupContent)
    value: str = answer.contents.value
    return value


def _definition(s: Session, uri: str, pos: lsp.Position) -> lsp.Location:
    answer = s.run(s.client.text_document_definition_async(
        lsp.DefinitionParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=pos)))
    assert isinstance(answer, lsp.Location)
    return answer


def _labels(s: Session, uri: str, pos: lsp.Position) -> dict[str, lsp.CompletionItem]:
    answer = s.run(s.client.text_document_completion_async(
        lsp.CompletionParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=pos)))
    items = answer.items if isinstance(answer, lsp.CompletionList) else answer or []
    return {item.label: item for item in items}


# ---------------------------------------------------------------- diagnostics


def test_a_shipped_ruleset_has_no_diagnostics(session: Session) -> None:
    assert list(session.diagnostics[COVERT_URI][0].diagnostics) == []


BROKEN_FROM, BROKEN_TO = "  c.troops -= home\n", '  c.troops -= "home"\n'


def test_a_broken_file_gets_what_rulesdsl_check_says(session: Session, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    text = COVERT.read_text(encoding="utf-8")
    assert BROKEN_FROM in text
    broken = text.replace(BROKEN_FROM, BROKEN_TO, 1)
    path = tmp_path / "broken.rules"
    path.write_text(broken, encoding="utf-8")
    for template in ("covert.report.j2", "covert.report.html.j2"):
        shutil.copy(ROOT / "rulesets" / template, tmp_path / template)
    uri = from_fs_path(str(path)) or ""

    published = session.open(uri, broken)

    assert cli(["check", str(path)]) == 1
    printed = capsys.readouterr().out
    assert published.diagnostics, "no diagnostic for a broken file"
    for d in published.diagnostics:
        first = d.message.splitlines()[0]
        # `rulesdsl check` prints FILE:LINE:COL: then the same words; LSP lines and columns count from 0.
        assert f"{path}:{d.range.start.line + 1}:{d.range.start.character + 1}: {first}" in printed
        assert d.source == "rulesdsl" and d.code is not None and f"[{d.code}]" in first
    line = broken.splitlines().index(BROKEN_TO.rstrip("\n"))
    assert [(d.range.start.line, d.severity) for d in published.diagnostics] == [
        (line, lsp.DiagnosticSeverity.Error)]


def test_diagnostics_follow_the_text_as_it_changes(session: Session) -> None:
    # Never written: the server checks the editor's text, as a file beside Covert's templates.
    uri = from_fs_path(str(ROOT / "rulesets" / "being-typed.rules")) or ""
    text = COVERT.read_text(encoding="utf-8")
    assert list(session.open(uri, text).diagnostics) == []

    half = session.change(uri, 2, text.replace(BROKEN_FROM, "  c.troops -= \n", 1))
    line = text.splitlines().index(BROKEN_FROM.rstrip("\n")) + 1  # the syntax error is at the next line
    assert [(d.code, d.range.start.line) for d in half.diagnostics] == [("E0103", line)]

    mended = session.change(uri, 3, text)
    assert list(mended.diagnostics) == []


def test_a_templates_mistakes_are_shown_in_the_template(session: Session, tmp_path: Path) -> None:
    for name in ("covert.rules", "covert.report.html.j2"):
        shutil.copy(ROOT / "rulesets" / name, tmp_path / name)
    template = tmp_path / "covert.report.j2"
    template.write_text((ROOT / "rulesets" / "covert.report.j2").read_text(encoding="utf-8")
                        + "{{ player.name( }}\n", encoding="utf-8")
    uri, template_uri = from_fs_path(str(tmp_path / "covert.rules")) or "", from_fs_path(str(template)) or ""
    text = COVERT.read_text(encoding="utf-8")

    assert list(session.open(uri, text).diagnostics) == []
    shown = session.run(session.next_diagnostics(template_uri, 1))
    line = len(template.read_text(encoding="utf-8").splitlines()) - 1
    assert [(d.code, d.range.start.line) for d in shown.diagnostics] == [("E0505", line)]

    template.write_text((ROOT / "rulesets" / "covert.report.j2").read_text(encoding="utf-8"), encoding="utf-8")
    session.client.text_document_did_save(lsp.DidSaveTextDocumentParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri)))
    assert list(session.run(session.next_diagnostics(template_uri, 2)).diagnostics) == []  # mended: cleared


# ---------------------------------------------------------------- hover


def test_hover_gives_kind_type_and_the_comment_above(session: Session) -> None:
    text = COVERT.read_text(encoding="utf-8")
    field = _hover(session, COVERT_URI, _where(text, "let home = min(c.troops, left)", "troops"))
    assert field.startswith("**field** `Country.troops`: `int`")
    assert "home troops, in the country" in field  # its line's comment

    param = _hover(session, COVERT_URI, _where(text, "cash: money = starting_cash", "starting_cash"))
    assert param.startswith("**param** `starting_cash`: `money`")
    assert "Rulebook is silent on the economy" in param  # the comment lines above it

    function = _hover(session, COVERT_URI, _where(text, "require controls(me, country)", "controls"))
    assert "define controls(p: Player, c: Country) -> bool" in function


def test_hover_knows_local_names(session: Session) -> None:
    text = COVERT.read_text(encoding="utf-8")
    loop = _hover(session, COVERT_URI, _where(text, "let part = min(a.defending[c], left)", "a.", 0))
    assert loop.startswith("**loop variable** `a`: `Country`")


# ---------------------------------------------------------------- definition


def test_definition_goes_to_each_kind_of_declaration(session: Session) -> None:
    text = COVERT.read_text(encoding="utf-8")
    lines = text.splitlines()

    def target(line_text: str, word: str, nth: int = 0) -> str:
        loc = _definition(session, COVERT_URI, _where(text, line_text, word, nth))
        assert loc.uri == COVERT_URI
        here = lines[loc.range.start.line][loc.range.start.character:loc.range.end.character]
        assert here == word.rstrip("(.")
        return lines[loc.range.start.line].strip()

    assert target("let home = min(c.troops, left)", "troops").startswith("troops: int = 0")  # a field
    assert target("require controls(me, country)", "controls").startswith("define controls(")
    assert target("cash: money = starting_cash", "starting_cash").startswith("param starting_cash:")
    assert target("superspy: Country?", "Country").startswith("thing Country keyed by code")
    assert target("  cost arms_cost(units)", "arms_cost").startswith("table arms_cost(")
    assert target("      change_government(country)", "change_government").startswith("procedure change_government(")
    assert target("phase arms_smuggling: run arms", "arms", 1).startswith('order arms "A,')
    assert target("phase arms_smuggling: run arms", "arms_smuggling").startswith("phase arms_smuggling:")  # itself
    # A procedure's parameter, at its use: the parameter as the procedure's first line declares it.
    assert target("  let home = min(c.troops, left)", "c.").startswith("procedure take_defence_losses(c: Country")


# ---------------------------------------------------------------- completion


def test_completion_after_a_dot_lists_the_fields(session: Session) -> None:
    text = COVERT.read_text(encoding="utf-8")
    pos = _where(text, "me.superspy = country", "superspy")  # just after `me.`
    fields = _labels(session, COVERT_URI, pos)
    assert {"superspy", "cash", "income", "name", "account"} <= set(fields)
    assert "controls" not in fields
    assert fields["cash"].detail == "field: money"


def test_completion_lists_declarations_locals_and_builtins(session: Session) -> None:
    text = COVERT.read_text(encoding="utf-8")
    pos = _where(text, "  c.troops -= home", "c.troops")
    names = _labels(session, COVERT_URI, pos)
    assert {"arms_cost", "controls", "change_government", "starting_cash", "Country", "min", "roll", "me"} <= set(names)
    assert {"c", "loss", "left", "home"} <= set(names)  # the procedure's parameters and its `let`s so far
    assert "part" not in names  # declared further down
    assert names["min"].kind == lsp.CompletionItemKind.Function
