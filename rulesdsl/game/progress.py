"""The stages of a long run (a turn, a new game, an intake) -> what the GM waiting for it sees on stderr: a
progress bar on a terminal, a plain line per stage otherwise, or nothing.

The folder and intake report to a `Progress`: `stage(name, total)` starts a stage (and ends the one before),
`advance()` counts one thing of it done, `done()` ends the last. Their default is `NULL`, which does nothing:
a run nobody watches (a test, a benchmark, the library called from Python) pays a method call per stage
and per report, no more. Only the command line (`progress_for`) chooses another, and rich, the terminal's
bar, is imported only when a bar is shown: `rulesdsl turn` on a pipe never loads it.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any, Protocol, TextIO

MODES = ("auto", "bar", "lines", "none")


class Progress(Protocol):
    def stage(self, name: str, total: int | None = None) -> None: ...

    def advance(self, n: int = 1) -> None: ...

    def done(self) -> None: ...


class NullProgress:
    """Tells nobody: the default."""

    __slots__ = ()

    def stage(self, name: str, total: int | None = None) -> None:
        pass

    def advance(self, n: int = 1) -> None:
        pass

    def done(self) -> None:
        pass


NULL = NullProgress()


class _Stages:
    """The stages so far, each with its count and wall seconds, for the lines and the bar's summary."""

    def __init__(self) -> None:
        self.name: str | None = None
        self.total: int | None = None
        self.count = 0
        self.started = 0.0

    def start(self, name: str, total: int | None) -> None:
        self.name, self.total, self.count = name, total, 0
        self.started = time.perf_counter()

    def line(self, seconds: bool) -> str:
        """`name: count/total (seconds)`: the count only for a stage that counts, the seconds only if asked."""
        counted = ""
        if self.total is not None:
            counted = f": {self.count}/{self.total}"
        elif self.count:
            counted = f": {self.count}"
        took = f" ({time.perf_counter() - self.started:.2f} s)" if seconds else ""
        return f"{self.name}{counted}{took}"


class LineProgress:
    """A line per stage as it ends, for a log or a pipe: never a line per report. `seconds` False leaves out
    the times, which differ from run to run."""

    def __init__(self, file: TextIO, prefix: str = "", seconds: bool = True) -> None:
        self.file = file
        self.prefix = prefix
        self.seconds = seconds
        self.current = _Stages()

    def stage(self, name: str, total: int | None = None) -> None:
        self._end()
        self.current.start(name, total)

    def advance(self, n: int = 1) -> None:
        self.current.count += n

    def done(self) -> None:
        self._end()

    def _end(self) -> None:
        if self.current.name is None:
            return
        line = self.current.line(self.seconds)
        self.current.name = None
        # stderr gone: the run goes on, and its exit status still tells.
        with contextlib.suppress(OSError, ValueError):
            print(f"{self.prefix}{line}", file=self.file, flush=True)


class BarProgress:
    """rich's progress bar on the terminal (stderr): a bar for the stage under way, gone when the run ends,
    which leaves one summary line: each stage's count and seconds."""

    def __init__(self, console: Any = None, prefix: str = "") -> None:
        # Imported here and only here: loading rich costs more than a small game's whole turn.
        from rich.console import Console
        from rich.progress import BarColumn, ProgressColumn, Task, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as RichProgress
        from rich.text import Text

        class Count(ProgressColumn):
            """`done/total` for a stage that counts; nothing for one that does not (loading the state)."""

            def render(self, task: Task) -> Text:
                return Text("" if task.total is None else f"{task.completed:.0f}/{task.total:.0f}", style="green")

        self.console = console if console is not None else Console(stderr=True)
        self.prefix = prefix
        self.bar = RichProgress(TextColumn("{task.description}"), BarColumn(), Count(), TimeElapsedColumn(),
                                console=self.console, transient=True)
        self.task: Any = None
        self.current = _Stages()
        self.ended: list[str] = []
        self.started = time.perf_counter()
        self.bar.start()

    def stage(self, name: str, total: int | None = None) -> None:
        self._end()
        self.current.start(name, total)
        self.task = self.bar.add_task(name, total=total)

    def advance(self, n: int = 1) -> None:
        self.current.count += n
        self.bar.advance(self.task, n)

    def done(self) -> None:
        self._end()
        self.bar.stop()
        if self.ended:
            took = time.perf_counter() - self.started
            self.console.print(f"{self.prefix}done in {took:.2f} s: {'; '.join(self.ended)}",
                               highlight=False, markup=False, soft_wrap=True)
            self.ended = []

    def _end(self) -> None:
        if self.current.name is None:
            return
        self.ended.append(self.current.line(seconds=True))
        self.current.name = None
        self.bar.update(self.task, visible=False)


def progress_for(mode: str, stderr: TextIO, prefix: str = "") -> Progress:
    """What the command line shows for `--progress MODE`: `auto` is the bar when stderr is a terminal and the
    lines otherwise."""
    if mode == "none":
        return NULL
    if mode == "auto":
        try:
            mode = "bar" if stderr.isatty() else "lines"
        except (AttributeError, ValueError):
            mode = "lines"
    if mode == "bar":
        from rich.console import Console

        # Asked for on a pipe too: then rich is told it is a terminal, as the GM asked.
        return BarProgress(Console(file=stderr, force_terminal=True), prefix)
    return LineProgress(stderr, prefix)
