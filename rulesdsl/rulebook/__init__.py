"""Checked program and its sources -> the player's rulebook, in Markdown or HTML (`rulesdsl doc`).

build.py makes one document model from the rules (model.py); render.py writes it through a Jinja2 template
per format, so that the Markdown and the HTML always say the same.
"""

from __future__ import annotations

from collections.abc import Mapping

from rulesdsl import ir
from rulesdsl.rulebook.build import build
from rulesdsl.rulebook.render import html, markdown
from rulesdsl.source import Source

__all__ = ["build", "html", "markdown", "rulebook"]


def rulebook(program: ir.Program, sources: Mapping[str, Source] | str, as_html: bool = False) -> str:
    """The rulebook of a checked program, from its sources by name (a variant's bases among them), as Markdown
    (or an HTML page)."""
    book = build(program, sources)
    return html(book) if as_html else markdown(book)
