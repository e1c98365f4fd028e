"""Source text -> positions: source files and the spans that every AST node carries."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath


@dataclass(frozen=True)
class Source:
    """One source file: its display name (never an absolute path) and its text."""

    name: str
    text: str
    _line_starts: list[int] = field(default_factory=list, compare=False, repr=False)

    def __post_init__(self) -> None:
        starts = [0]
        for i, ch in enumerate(self.text):
            if ch == "\n":
                starts.append(i + 1)
        object.__setattr__(self, "_line_starts", starts)

    def line_text(self, line: int) -> str:
        """The text of 1-based line `line`, without its newline."""
        if line < 1 or line > len(self._line_starts):
            return ""
        start = self._line_starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset."""
        lo, hi = 0, len(self._line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self._line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, offset - self._line_starts[lo] + 1

    def end_span(self) -> Span:
        """A span at the real end of the file: where end-of-input errors point."""
        text = self.text.rstrip()
        line, col = self.position(len(text))
        return Span(self.name, line, col, line, col + 1)


@dataclass(frozen=True, order=True)
class Span:
    """A region of a source file; lines and columns are 1-based, end column exclusive."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


def plain_file_name(name: str) -> bool:
    """A template is named by a plain file name: `rulesdsl new` copies the ruleset and its templates into
    the game's flat rules/ folder, so a folder in the name (`../x.j2`, `/srv/x.j2`, `sub/x.j2`) would name
    a file the game either never copies or copies somewhere the ruleset no longer finds it. Game folders
    need POSIX (fcntl), where a backslash is a character of a file name like any other."""
    return name not in ("", ".", "..") and "/" not in name and "\x00" not in name


def base_path(folder: Path, written: str) -> Path | None:
    """The file a variant's `extends "WRITTEN"` names from a file in `folder`: at that path, else by its file
    name in the same folder (a game's rules/ folder, where `rulesdsl new` copies a chain's files side by
    side). Here, not in variants.py, because a turn computes its cache key with it and imports no compiler."""
    for candidate in (folder / written, folder / PurePosixPath(written).name):
        if candidate.is_file():
            return candidate
    return None
