"""Rulebook document model (model.Book) -> Markdown or an HTML page, each through its Jinja2 template
(templates/rulebook.md.j2, templates/rulebook.html.j2). Inline text is rendered here, once per format."""

from __future__ import annotations

import re
from functools import cache

import jinja2
from markupsafe import Markup, escape

from rulesdsl.rulebook import model as m

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|#])")


def _md_code(words: str) -> str:
    fence = "``" if "`" in words else "`"
    pad = " " if words.startswith("`") or words.endswith("`") else ""
    return f"{fence}{pad}{words}{pad}{fence}"


def _merged(pieces: m.Inline) -> list[m.Piece]:
    """Code and arguments side by side as one code span (`CO-<game>`): Markdown cannot put two together."""
    out: list[m.Piece] = []
    for kind, words in pieces:
        shown = f"<{words}>" if kind == "arg" else words
        if kind in ("arg", "code") and out and out[-1][0] == "code":
            out[-1] = ("code", out[-1][1] + shown)
        else:
            out.append(("code", shown) if kind == "arg" else (kind, words))
    return out


def md_inline(pieces: m.Inline, cell: bool = False) -> str:
    """Markdown of inline text; in a table `cell`, `|` is escaped even inside code (GFM splits cells first)."""
    out: list[str] = []
    for kind, words in _merged(pieces):
        if kind == "text":
            out.append(_MD_SPECIAL.sub(r"\\\1", words))
        elif kind == "code":
            out.append(_md_code(words))
        else:  # a link to a name (shown as code) or to a part of the book
            target, label = words.split("|", 1)
            out.append(f"[{_md_code(label) if kind == 'link' else label}](#{target})")
    shown = "".join(out).replace("\n", " ")
    return shown.replace("|", "\\|") if cell else shown


def html_inline(pieces: m.Inline) -> Markup:
    out: list[str] = []
    for kind, words in pieces:
        if kind == "text":
            out.append(str(escape(words)))
        elif kind == "arg":
            out.append(f"<var>&lt;{escape(words)}&gt;</var>")
        elif kind == "code":
            out.append(f"<code>{escape(words)}</code>")
        else:
            target, label = words.split("|", 1)
            shown = f"<code>{escape(label)}</code>" if kind == "link" else str(escape(label))
            out.append(f'<a href="#{escape(target)}">{shown}</a>')
    return Markup("".join(out))


def syntax_md(pieces: m.Inline) -> str:
    """An order's line as one code span: `A,<country>,<units>`."""
    return _md_code("".join(f"<{w}>" if k == "arg" else w for k, w in pieces))


def syntax_html(pieces: m.Inline) -> Markup:
    return Markup("".join(f"<var>&lt;{escape(w)}&gt;</var>" if k == "arg" else str(escape(w)) for k, w in pieces))


@cache
def _env(autoescape: bool) -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader("rulesdsl.rulebook", "templates"), autoescape=autoescape,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                             undefined=jinja2.StrictUndefined)
    env.filters.update(md=md_inline, html=html_inline, syntax_md=syntax_md, syntax_html=syntax_html)
    return env


def markdown(book: m.Book) -> str:
    text = _env(False).get_template("rulebook.md.j2").render(book=book)
    return re.sub(r"\n{3,}", "\n\n", text).rstrip("\n") + "\n"


def html(book: m.Book) -> str:
    return _env(True).get_template("rulebook.html.j2").render(book=book)
