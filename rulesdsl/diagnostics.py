"""Diagnostic records -> text and JSON: how every user-facing error of rulesdsl is reported."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from rulesdsl.source import Source, Span

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Diagnostic:
    """One problem in a user's file: where, a stable code, what, and how to fix it."""

    span: Span
    code: str
    message: str
    severity: Severity = "error"
    notes: tuple[str, ...] = ()
    help: str | None = None

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.span.file, self.span.line, self.span.col, self.code)

    def to_json(self) -> dict[str, object]:
        return {
            "file": self.span.file,
            "line": self.span.line,
            "column": self.span.col,
            "end_line": self.span.end_line,
            "end_column": self.span.end_col,
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "notes": list(self.notes),
            "help": self.help,
        }


@dataclass
class DiagnosticBag:
    """Collects diagnostics from every pass so that one run reports them all."""

    items: list[Diagnostic] = field(default_factory=list)

    def error(self, span: Span, code: str, message: str, *, help: str | None = None,
              notes: Iterable[str] = ()) -> None:
        self.items.append(Diagnostic(span, code, message, "error", tuple(notes), help))

    def warning(self, span: Span, code: str, message: str, *, help: str | None = None,
                notes: Iterable[str] = ()) -> None:
        self.items.append(Diagnostic(span, code, message, "warning", tuple(notes), help))

    def sorted(self) -> list[Diagnostic]:
        unique = {(d.sort_key(), d.message): d for d in self.items}
        return sorted(unique.values(), key=lambda d: (d.sort_key(), d.message))


class CompileError(Exception):
    """Raised by the front end when a ruleset has errors; carries every diagnostic."""

    def __init__(self, diagnostics: list[Diagnostic], sources: dict[str, Source]) -> None:
        self.diagnostics = diagnostics
        self.sources = sources
        super().__init__(render_text(diagnostics, sources))


def render_one(d: Diagnostic, sources: dict[str, Source]) -> str:
    lines = [f"{d.span}: {d.severity}[{d.code}]: {d.message}"]
    src = sources.get(d.span.file)
    if src is not None and d.span.line > 0:
        text = src.line_text(d.span.line).replace("\t", " ")
        gutter = f"{d.span.line:>4} | "
        lines.append(gutter + text)
        end = d.span.end_col if d.span.end_line == d.span.line else len(text) + 1
        width = max(1, end - d.span.col)
        lines.append(" " * (len(gutter) + d.span.col - 1) + "^" * width)
    for note in d.notes:
        lines.append(f"  note: {note}")
    if d.help:
        lines.append(f"  help: {d.help}")
    return "\n".join(lines)


def render_text(diagnostics: Iterable[Diagnostic], sources: dict[str, Source]) -> str:
    parts = [render_one(d, sources) for d in diagnostics]
    diags = list(diagnostics)
    errors = sum(1 for d in diags if d.severity == "error")
    warnings = len(diags) - errors
    if diags:
        parts.append(f"{errors} error(s), {warnings} warning(s)")
    return "\n".join(parts)


def render_json(diagnostics: Iterable[Diagnostic]) -> str:
    return json.dumps({"diagnostics": [d.to_json() for d in diagnostics]}, indent=2)
