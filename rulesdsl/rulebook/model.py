"""The rulebook's document model: sections of paragraphs, lists, tables and order entries, with inline text
as (kind, text) pieces. Built once from a checked program (build.py); the Markdown and the HTML are both
rendered from it (render.py), so that the two never disagree."""

from __future__ import annotations

from dataclasses import dataclass

# Inline text: ("text", words), ("arg", an order argument's name), ("code", what a player writes or the rules
# write: an order's words, an expression), ("link", "id|name") to a name's entry (the name shown as code), ("ref",
# "id|title") to a part of the book.
Piece = tuple[str, str]
Inline = tuple[Piece, ...]


def text(words: str) -> Inline:
    return (("text", words),)


def code(words: str) -> Inline:
    return (("code", words),)


@dataclass(frozen=True)
class Para:
    body: Inline
    kind: str = "para"


@dataclass(frozen=True)
class Pre:
    """Lines kept as written: a table a comment draws with spaces."""

    lines: tuple[str, ...]
    kind: str = "pre"


@dataclass(frozen=True)
class Bullets:
    items: tuple[Inline, ...]
    numbered: bool = False
    kind: str = "bullets"


@dataclass(frozen=True)
class Table:
    id: str  # "" for a table nothing links to
    caption: Inline
    columns: tuple[str, ...]
    rows: tuple[tuple[Inline, ...], ...]
    about: tuple[Inline, ...] = ()  # paragraphs above the table: the comment above its declaration
    kind: str = "table"


@dataclass(frozen=True)
class Order:
    id: str
    name: str
    syntax: Inline  # the line as a player writes it: its words as code, its arguments as args
    about: tuple[Inline, ...]  # the comment above the declaration
    facts: tuple[Inline, ...]  # when it is carried out, its cost, its limits
    args: Table | None
    refusals: tuple[Inline, ...]
    kind: str = "order"


Block = Para | Pre | Bullets | Table | Order


@dataclass(frozen=True)
class Section:
    id: str
    title: str
    blocks: tuple[Block, ...]
    sections: tuple[Section, ...] = ()


@dataclass(frozen=True)
class Book:
    title: str
    subtitle: Inline
    about: tuple[Para | Pre, ...]
    sections: tuple[Section, ...]
    source: str  # the ruleset's file name, for the line saying where the book comes from
