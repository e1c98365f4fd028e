"""Python source lines -> one module text, remembering which `.rules` line and which rule each block came from."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

# PEP 263: a comment on the first two lines that holds `coding:` or `coding=` chooses how Python decodes
# the module (a `utf-7` there would turn `+AAo-` inside a string into a line break).
_CODING = re.compile(r"coding([:=])")


def comment_text(text: str) -> str:
    """`text` made safe to follow `#`: the comment cannot end early nor name the module's encoding.

    Every character that is not printable is written escaped as in `repr` (`\\n`, `\\x0c`, `\\u2028`):
    the line breaks Python's tokenizer honours are among them, and so are the ones other tools split
    lines on (`str.splitlines`), a NUL (refused in a module) and lone surrogates (not UTF-8)."""
    safe = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
    return _CODING.sub(lambda m: "coding" + ("\\x3a" if m.group(1) == ":" else "\\x3d"), safe)


class Writer:
    """Writes indented Python and a map from generated lines to `.rules` lines (as Jinja2's debug map)."""

    def __init__(self, source_name: str) -> None:
        self.source_name = source_name
        self.lines: list[str] = []
        self.level = 0
        self.line_map: list[tuple[int, int]] = []
        # (first generated line, the rule that holds it: "function tax", "phase boom"; "" for none).
        self.rule_map: list[tuple[int, str]] = []
        # (first generated line, the file its `.rules` lines are in), when that is not `source_name`: a variant's
        # program holds declarations of its bases, each numbered in its own file.
        self.file_map: list[tuple[int, str]] = []
        self.file = source_name
        self._last_src = 0

    def line(self, text: str = "", src: int | None = None) -> None:
        if src is not None and src > 0 and src != self._last_src:
            self.line_map.append((len(self.lines) + 1, src))
            self._last_src = src
        self.lines.append(("    " * self.level + text) if text else "")

    def section(self, src: int | None = None, rule: str | None = None, file: str | None = None) -> None:
        """Two blank lines before a top-level block, its `.rules` marker when it has one, and the rule the
        block belongs to when it is given; `file`: the file the block was written in, if it is known."""
        self.line()
        self.line()
        self.in_file(file)
        if src:
            self.mark(src)
        if rule is not None:
            self.rule(rule)

    def mark(self, src: int) -> None:
        """A comment naming the `.rules` line of the block that follows."""
        self._last_src = 0  # each marker starts an entry of the map, even when the block above had its line
        self.line(f"# {comment_text(self.file)}:{src}", src)

    def in_file(self, name: str | None) -> None:
        """The `.rules` lines from the next generated line on are lines of the file `name` (None: unchanged)."""
        if name is None or name == self.file:
            return
        start = len(self.lines) + 1
        if self.file_map and self.file_map[-1][0] == start:
            self.file_map.pop()
        self.file = name
        self._last_src = 0  # the same line number in another file is another line
        self.file_map.append((start, name))

    def rule(self, label: str) -> None:
        """The lines from the next one on belong to the rule `label`, until the next call."""
        start = len(self.lines) + 1
        if self.rule_map and self.rule_map[-1][0] == start:
            self.rule_map.pop()  # nothing was written under the last one
        if not self.rule_map or self.rule_map[-1][1] != label:
            self.rule_map.append((start, label))

    @contextmanager
    def indent(self) -> Iterator[None]:
        self.level += 1
        try:
            yield
        finally:
            self.level -= 1

    def text(self) -> str:
        return "\n".join(self.lines).rstrip() + "\n"
