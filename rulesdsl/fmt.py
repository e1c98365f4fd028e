"""`.rules` source text -> the same text in its canonical layout (or the parser's diagnostic, unchanged).

A token-stream formatter, not an AST printer: the AST keeps no comments, no blank lines and none of the
designer's line breaks, and a printer would have to invent all three back. Here the tokens are the
grammar's own (rulesdsl/grammar/rules.lark, parsed with every token kept), so a keyword is a keyword
exactly where the parser says so, and a `-` is a sign exactly where it parses as one. Comments are what
lies between two tokens besides white space (the grammar ignores only WS and COMMENT there), found by
that one regular expression rather than by Lark's `lexer_callbacks`, which are fixed when the cached
parser is built; each stays on its line, after the token it followed.

The layout:
- Line breaks are the designer's: a line is never joined or split, and long lines are not re-wrapped.
  Blank lines are kept, at most one in a row.
- A line that starts an item of a block (a declaration, a field, an order's clause, a statement, a data
  or table row) or that starts with its closing `}` is indented 2 spaces per open `{`. A line that
  continues an item begun on an earlier line keeps its indent relative to that item's first line, so a
  hand-aligned expression stays aligned; it stands at least 2 spaces in (a closing bracket, at least 0).
  A comment line is indented as the line after it, or goes on under the trailing comment above it.
- Within a line: one space after a comma and around binary operators, `=`, `->` and `in`; none inside
  `( )`, `[ ]` and a record's `{ }`, none around `.`, `..` and before `:`, `,`, `?`; one inside an
  inline block's `{ }`; two or more, as written, between items written on one line (`INF: "I"  ENG: "E"`).
- Alignment is kept, not flattened (as gofmt keeps struct fields and comments aligned): trailing
  comments, and tokens the designer padded with extra spaces to line up with the same column on the
  next or previous line (a token of the same kind), stay in one column. The column stays where it was
  unless the text before one of them grew, and then they all move right together. Columns are counted
  as an editor shows them, tabs every 8.
- Comments are kept exactly, trailing spaces dropped; every line loses its trailing spaces; the text
  ends with one newline.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedInput

from rulesdsl import parser
from rulesdsl.diagnostics import Diagnostic
from rulesdsl.source import Source


class Unformattable(Exception):
    """The text does not parse: it is left as it is, and these are the parser's diagnostics."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__("the text does not parse")
        self.diagnostics = diagnostics


# Braces that hold a value, written tight like brackets: `{code: c.code}`.
_RECORD = "record_lit"
# Values that may be indexed like a name: `[` right after them is an index, elsewhere a list.
_VALUE_WORDS = frozenset({"true", "false", "none"})
_TIGHT_BEFORE = frozenset({",", ")", "]", ".", "..", "?", ":"})
_TIGHT_AFTER = frozenset({"(", "[", ".", ".."})
_COMMENT = re.compile(r"#[^\n]*")


@cache
def _lark() -> Lark:
    # The parser's grammar with every token kept: punctuation and keywords are the layout's landmarks.
    grammar = resources.files("rulesdsl").joinpath("grammar/rules.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", start="start", maybe_placeholders=True, keep_all_tokens=True)


@cache
def _containers() -> frozenset[str]:
    """Nodes whose parts are laid out one per line, each indented by the braces around it: every rule
    with braces but a record's (read from the grammar, so a declaration added to it is laid out too), the
    file, and `if` (its `else` lines stand under its `if`)."""
    braced = {str(r.alias or r.origin.name) for r in _lark().rules if any(s.name == "LBRACE" for s in r.expansion)}
    return frozenset(braced - {_RECORD} | {"start", "if_stmt"})


@dataclass
class _Tok:
    text: str
    kind: str  # the terminal's name, or "COMMENT"
    line: int
    col: int  # 0-based
    end_line: int
    end_col: int
    start: int  # offset in the source
    end: int
    parent: str = ""  # the rule that holds the token
    item_start: bool = False  # the first token of a part of a container (a line of its own)
    in_container: bool = False  # a token of the container itself: `}`, `else`, a victory's `when`
    body_start: bool = False  # the first token of an item inside a container's braces


@dataclass
class _Line:
    toks: list[_Tok]
    blank_before: int
    orig_indent: int
    indent: int = 0
    hangs: bool = False  # a comment that goes on with the trailing comment of the line above
    gaps: list[int] = field(default_factory=list)  # spaces before each token after the first


def format_text(text: str, name: str = "<text>") -> str:
    """The canonical layout of `text`; raises Unformattable with the parser's diagnostics if it does not parse."""
    try:
        toks = _tokens(text)
    except UnexpectedInput:
        # The same grammar refuses it: the parser says why, in the designer's words.
        _, diagnostics = parser.parse(Source(name, text))
        raise Unformattable(diagnostics) from None
    if not toks:
        return ""
    lines = _lines(toks)
    _indent(lines)
    _space(lines)
    _align(lines)
    _hang(lines)
    return _render(lines)


# ---------------------------------------------------------------- tokens
def _tokens(text: str) -> list[_Tok]:
    tree = _lark().parse(text)
    toks: list[_Tok] = []
    _walk(tree, toks, container=True)
    toks.sort(key=lambda t: t.start)
    source = Source("", text)
    out: list[_Tok] = []
    pos = 0
    for t in toks:
        out.extend(_comments(source, pos, t.start))
        out.append(t)
        pos = t.end
    out.extend(_comments(source, pos, len(text)))
    if "\t" in text:
        for t in out:
            t.col = _column_seen(source, t.line, t.col)
            t.end_col = _column_seen(source, t.end_line, t.end_col)
    return out


def _column_seen(source: Source, line: int, col: int) -> int:
    # Columns as an editor shows them, tabs every 8: what a designer lined up with tabs stays lined up.
    before = source.line_text(line)[:col]
    return len(before.expandtabs(8)) if "\t" in before else col


def _walk(tree: Tree[Token], toks: list[_Tok], *, container: bool, body: bool = False) -> None:
    """`container`: the tree is a container, or the first part of one of a container's items; `body`: the
    first part of an item inside a container's braces (not of its header, like a table's `weighted`)."""
    is_container = tree.data in _containers()
    inside = tree.data == "start"
    first = True
    for child in tree.children:
        if child is None:
            continue
        starts = not is_container and container and first
        if isinstance(child, Token):
            toks.append(_Tok(str(child), child.type, child.line or 0, (child.column or 1) - 1,
                             child.end_line or 0, (child.end_column or 1) - 1, child.start_pos or 0,
                             child.end_pos or 0, str(tree.data), item_start=starts, in_container=is_container,
                             body_start=starts and body))
            inside = inside or (is_container and child.type == "LBRACE")
        else:
            _walk(child, toks, container=is_container or starts,
                  body=(is_container and inside) or (starts and body))
        first = False


def _comments(source: Source, start: int, end: int) -> Iterator[_Tok]:
    # Between two tokens there is only what the grammar ignores: white space and comments.
    for m in _COMMENT.finditer(source.text, start, end):
        line, col = source.position(m.start())
        yield _Tok(m.group().rstrip(), "COMMENT", line, col - 1, line, col - 1 + len(m.group()), m.start(), m.end())


# ---------------------------------------------------------------- lines
def _lines(toks: list[_Tok]) -> list[_Line]:
    lines: list[_Line] = []
    prev_end_line = 0
    for t in toks:
        if lines and t.line == prev_end_line:
            lines[-1].toks.append(t)
        else:
            blank = max(0, t.line - prev_end_line - 1) if lines else 0
            lines.append(_Line([t], min(blank, 1), t.col))
        prev_end_line = t.end_line if t.kind != "COMMENT" else t.line
    return lines


def _indent(lines: list[_Line]) -> None:
    depth = 0
    anchor: _Line | None = None  # the line the current item started on
    for k, ln in enumerate(lines):
        first = ln.toks[0]
        if first.kind == "COMMENT" and k and not ln.blank_before and _hangs_under(lines[k - 1], first):
            ln.hangs = True
        elif first.kind == "COMMENT":
            # A comment stands with the item after it, or last in its block; within an item, as continued.
            nxt = next((m for m in lines[k + 1:] if m.toks[0].kind != "COMMENT"), None)
            if nxt is None or _own_line(nxt.toks[0]):
                ln.indent = 2 * depth
            else:
                ln.indent = _continued(ln, anchor)
        elif first.text == "}" and first.in_container:
            ln.indent = 2 * max(depth - 1, 0)
            anchor = ln
        elif _own_line(first):
            ln.indent = 2 * depth
            anchor = ln
        else:
            ln.indent = _continued(ln, anchor)
        for t in ln.toks:
            if t.text == "{" and t.kind == "LBRACE":
                depth += 1
            elif t.text == "}" and t.kind == "RBRACE":
                depth -= 1


def _hangs_under(above: _Line, comment: _Tok) -> bool:
    last = above.toks[-1]
    return last.kind == "COMMENT" and last.col == comment.col and (len(above.toks) > 1 or above.hangs)


def _hang(lines: list[_Line]) -> None:
    for k, ln in enumerate(lines):
        if ln.hangs:
            above = lines[k - 1]
            ln.indent = above.indent if len(above.toks) == 1 else _column(above, len(above.toks) - 1)


def _own_line(t: _Tok) -> bool:
    return t.item_start or t.in_container


def _continued(ln: _Line, anchor: _Line | None) -> int:
    if anchor is None:
        return ln.orig_indent
    # At least one level in, so that it reads as going on; a closing bracket may stand under its line's start.
    least = 0 if ln.toks[0].text in (")", "]", "}") else 2
    return anchor.indent + max(least, ln.orig_indent - anchor.orig_indent)


# ---------------------------------------------------------------- spaces within a line
def _space(lines: list[_Line]) -> None:
    for ln in lines:
        ln.gaps = [_gap(a, b) for a, b in zip(ln.toks, ln.toks[1:], strict=False)]


def _gap(a: _Tok, b: _Tok) -> int:
    if b.kind == "COMMENT":
        return 1
    if b.body_start and not a.in_container and a.text != ",":
        # Items written on one line, like a short table's rows: the designer's spacing, two spaces at least,
        # sets them apart.
        return max(2, b.col - a.end_col) if a.end_line == b.line else 2
    if (a.text == "{" and a.parent == _RECORD) or (b.text == "}" and b.parent == _RECORD):
        return 0
    if a.text == "{" and b.text == "}":
        return 0
    if b.text in _TIGHT_BEFORE and b.kind not in ("NAME", "STRING"):
        return 0
    if a.text in _TIGHT_AFTER and a.kind not in ("NAME", "STRING"):
        return 0
    if a.kind == "MINUS" and a.parent in ("neg", "sim_number"):
        return 0
    if b.text == "(" and b.kind == "LPAR":
        return 0 if a.kind in ("NAME", "KEYWORD_NAME") else 1
    if b.text == "[" and b.kind == "LSQB":
        return 0 if a.kind in ("NAME", "RPAR", "RSQB", "STRING") or a.text in _VALUE_WORDS else 1
    return 1


# ---------------------------------------------------------------- alignment
def _align(lines: list[_Line]) -> None:
    """Keeps columns the designer lined up: trailing comments, and padded tokens over padded tokens."""
    start = 0
    for k in range(len(lines) + 1):
        if k == len(lines) or (k > start and lines[k].blank_before):
            _align_paragraph(lines[start:k])
            start = k


def _align_paragraph(par: list[_Line]) -> None:
    # Tokens the designer put more space before than the layout would ("padded"), by original column.
    padded: set[tuple[int, int, str]] = set()
    comments: dict[int, list[tuple[int, int]]] = {}
    for i, ln in enumerate(par):
        for j in _comparable(ln):
            t = ln.toks[j]
            if t.kind == "COMMENT":
                comments.setdefault(t.col, []).append((i, j))
            elif ln.gaps[j - 1] and t.col - ln.toks[j - 1].end_col > ln.gaps[j - 1]:
                padded.add((i, t.col, t.kind))
    # A code token lines up with a padded token of its kind next to it, in the same column, whether padded
    # itself or not (the widest of a column has the layout's own spacing). Space is never added where the
    # layout has none, as inside brackets.
    groups: dict[tuple[str, int], list[tuple[int, int]]] = {("#", c): m for c, m in comments.items()}
    for i, ln in enumerate(par):
        for j in _comparable(ln):
            t = ln.toks[j]
            near = {(i, t.col, t.kind), (i - 1, t.col, t.kind), (i + 1, t.col, t.kind)}
            if t.kind != "COMMENT" and ln.gaps[j - 1] and near & padded:
                groups.setdefault(("t", t.col), []).append((i, j))
    # Code tokens align only with the line next to them; comments across their paragraph.
    chains: list[list[tuple[int, int]]] = []
    for (kind, _col), members in sorted(groups.items()):
        if kind == "#":
            chains.append(members)
            continue
        run = [members[0]]
        for m in members[1:]:
            if m[0] == run[-1][0] + 1:
                run.append(m)
            else:
                chains.append(run)
                run = [m]
        chains.append(run)
    # Left to right, so that a column moved by an earlier one is measured after the move.
    for chain in sorted(chains, key=lambda c: min(par[i].toks[j].col for i, j in c)):
        lone_code = len(chain) == 1 and par[chain[0][0]].toks[chain[0][1]].kind != "COMMENT"
        if lone_code:
            continue  # extra space that lines up with nothing: the layout's own spacing stands
        want = max(par[i].toks[j].col + par[i].indent - par[i].orig_indent for i, j in chain)
        need = max(_column(par[i], j) for i, j in chain)
        col = max(want, need)
        for i, j in chain:
            par[i].gaps[j - 1] += col - _column(par[i], j)


def _comparable(ln: _Line) -> range:
    """The tokens after the first whose columns move with the line's indent: not those after a text of
    several lines, which stand where that text's last line ends."""
    for j, t in enumerate(ln.toks):
        if "\n" in t.text:
            return range(1, j + 1)
    return range(1, len(ln.toks))


def _column(ln: _Line, j: int) -> int:
    """The column token `j` of the line starts at, as the line is laid out now."""
    col = ln.indent
    for k in range(j):
        text = ln.toks[k].text
        col = len(text) - text.rfind("\n") - 1 if "\n" in text else col + len(text)
        col += ln.gaps[k]
    return col


# ---------------------------------------------------------------- output
def _render(lines: list[_Line]) -> str:
    out: list[str] = []
    for ln in lines:
        if ln.blank_before and out:
            out.append("")
        parts = [" " * ln.indent]
        for k, t in enumerate(ln.toks):
            if k:
                parts.append(" " * ln.gaps[k - 1])
            parts.append(t.text)
        out.append("".join(parts).rstrip())
    return "\n".join(out) + "\n"
