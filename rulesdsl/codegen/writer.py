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
        self._last_src = 0

    def line(self, text: str = "", src: int | None = None) -> None:
        if src is not None and src > 0 and src != self._last_src:
            self.line_map.append((len(self.lines) + 1, src))
            self._last_src = src
        self.lines.append(("    " * self.level + text) if text else "")

    def section(self, src: int | None = None, rule: str | None = None) -> None:
        """Two blank lines before a top-level block, its `.rules` marker when it has one, and the rule the
        block belongs to when it is given."""
        self.line()
        self.line()
        if src:
            self.mark(src)
        if rule is not None:
            self.rule(rule)

    def mark(self, src: int) -> None:
        """A comment naming the `.rules` line of the block that follows."""
        self._last_src = 0  # each marker starts an entry of the map, even when the block above had its line
        self.line(f"# {comment_text(self.source_name)}:{src}", src)

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
