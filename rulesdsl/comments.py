"""Source text -> its comments: the `#` lines above a line, the comment at a line's end, and designer's notes.

The one home of how a ruleset's comments are read, for every tool that shows them (`check --defaults`, the
generated rulebook): a comment documents what it stands above, or the line it ends. A `#` inside a text
(`"#1"`) is part of the text, not a comment.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import overload

from rulesdsl.source import Source

# How a ruleset marks its designer's notes: `# Designer's note: ...`, and the shipped rulesets' older form,
# "Rulebook is silent on ...; we ...", which their headers declare to be designer's notes.
NOTE_MARKERS = re.compile(r"Designer's note:\s*|(?<![\"'])(?=Rulebook is silent)")


# A section's rule (`# ------ orders`) heads a part of the file: it describes no declaration.
SECTION_RULE = re.compile(r"^#\s*-{4,}")


class Lines(Sequence[str]):
    """A source's lines, 0-based, read from the source as asked (no copy of the text for each question)."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.size = source.text.count("\n") + 1

    def __len__(self) -> int:
        return self.size

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[str]: ...

    def __getitem__(self, i: int | slice) -> str | Sequence[str]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self.size))]
        if not 0 <= i < self.size:
            raise IndexError(i)
        return self.source.line_text(i + 1)


def comment_above(lines: Sequence[str], line: int, until_rule: bool = False) -> list[str]:
    """The `#` lines right above 1-based `line` (no blank line between), their text without `#`, in order;
    `until_rule`: only those below a section's rule."""
    out: list[str] = []
    i = line - 2
    while i >= 0 and lines[i].strip().startswith("#"):
        if until_rule and SECTION_RULE.match(lines[i].strip()):
            break
        out.append(lines[i].strip()[1:].strip())
        i -= 1
    return out[::-1]


def comment_at(lines: Sequence[str], line: int, follow: bool = True) -> str:
    """The comment that ends 1-based `line` (`units: 1..5   # how many`), without `#`, "" if none; `follow`:
    with the comment lines below it whose `#` stands in the same column, which go on with it."""
    if not 1 <= line <= len(lines):
        return ""
    start = _comment_start(lines[line - 1])
    if start < 0 or not lines[line - 1][:start].strip():
        return ""
    out = [lines[line - 1][start + 1:].strip()]
    for i in range(line, len(lines) if follow else line):
        below = lines[i]
        if below[:start].strip() or below[start:start + 1] != "#":
            break
        out.append(below[start + 1:].strip())
    return " ".join(out)


def _comment_start(text: str) -> int:
    """Where the line's comment starts, -1 if it has none: the first `#` outside a text."""
    quoted = False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and quoted:
            i += 2
            continue
        if ch == '"':
            quoted = not quoted
        elif ch == "#" and not quoted:
            return i
        i += 1
    return -1


@dataclass(frozen=True)
class Note:
    """A designer's note: its text (from the marker to the end of its comment) and where it is written."""

    text: str
    line: int  # the line its marker stands on
    end_line: int  # the comment's last line
    trailing: bool  # written at the end of a line of code, about that line


def designer_notes(lines: list[str]) -> list[Note]:
    """Every designer's note, in the order written. A note runs from its marker to the end of its block of
    `#` lines (or of its line, at the end of a line of code); a block may hold several notes."""
    notes: list[Note] = []
    i = 0
    while i < len(lines):
        start = _comment_start(lines[i])
        if start < 0:
            i += 1
            continue
        if lines[i][:start].strip():  # a comment at the end of a line of code
            text = lines[i][start + 1:].strip()
            notes += [Note(t, i + 1, i + 1, True) for t in _split_notes(text)]
            i += 1
            continue
        first = i
        block: list[str] = []
        while i < len(lines) and lines[i].strip().startswith("#"):
            block.append(lines[i].strip()[1:].strip())
            i += 1
        joined = "\n".join(block)
        for at, text in _note_texts(joined):
            notes.append(Note(text, first + 1 + joined.count("\n", 0, at), i, False))
    return notes


def _notes_in(text: str) -> list[tuple[int, int]]:
    """Where each note's marker starts and its text starts; "Designer's note: Rulebook is silent" is one note."""
    out: list[tuple[int, int]] = []
    for m in NOTE_MARKERS.finditer(text):
        if out and m.start() == out[-1][1]:
            continue
        out.append((m.start(), m.end()))
    return out


def _note_texts(text: str) -> list[tuple[int, str]]:
    """Each note's text, from its marker to the next note's marker or the end, with where its marker stands."""
    found = _notes_in(text)
    if not found:
        return []
    ends = [start for start, _ in found[1:]] + [len(text)]
    return [(start, " ".join(text[begin:end].split())) for (start, begin), end in zip(found, ends, strict=True)]


def _split_notes(text: str) -> list[str]:
    return [t for _, t in _note_texts(text)]
