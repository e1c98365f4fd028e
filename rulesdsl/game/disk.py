"""Bytes and folders -> durable files: synced writes, a staging folder committed by one rename, the game's
lock, and the removal of staging folders that killed runs left; every OSError becomes a GameError that
names the file or folder it was about.

Folders and files are made with the modes mkdir and open give (the umask decides), so a turn folder
reads like turn-000. A staging folder is renamed into place only after every file in it, and the
folder itself, is synced; the rename is synced through the parent folder after.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import shutil
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from rulesdsl.game.errors import GameError

LOCK_NAME = "rulesdsl.lock"


def _why(e: OSError) -> str:
    return e.strerror or str(e)


def _sync(path: Path, shown: Path, folder: bool) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if folder else 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as e:
        doing = "sync the folder" if folder else "write"
        raise GameError(f"{shown}: cannot {doing}: {_why(e)}") from None


def fsync_dir(path: Path, shown: Path | None = None) -> None:
    _sync(path, shown or path, folder=True)


def make_dir(path: Path, shown: Path | None = None) -> None:
    try:
        os.mkdir(path, 0o777)
    except OSError as e:
        raise GameError(f"{shown or path}: cannot make the folder: {_why(e)}") from None


def _write(path: Path, data: bytes, shown: Path, sync: bool) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as e:
        raise GameError(f"{shown}: cannot write: {_why(e)}") from None


def write_file(path: Path, data: bytes, shown: Path | None = None) -> None:
    """A new file holding `data`, synced to disk. An error names `shown` or `path`."""
    _write(path, data, shown or path, sync=True)


def append_file(path: Path, data: bytes, create: bool = True) -> None:
    """Appends `data` to `path` by one synced write (looping over short writes), and syncs the folder when
    the file is new: a crash leaves the record as it was or with the whole of `data`, or at worst a torn
    last line that its reader drops. The one way the game's append-only records (history.yaml, sent.tsv,
    intake.tsv) grow."""
    new = create and not path.exists()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | (os.O_CREAT if create else 0), 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as e:
        raise GameError(f"{path}: cannot write: {_why(e)}") from None
    if new:
        fsync_dir(path.parent)


class Staging:
    """A hidden folder beside `final` (named `prefix` + random) that becomes `final` by one rename.
    Errors name the path a file or folder is meant to have once committed."""

    def __init__(self, final: Path, prefix: str) -> None:
        self.final = final
        for _ in range(100):
            path = final.parent / f"{prefix}{secrets.token_hex(4)}"
            try:
                os.mkdir(path, 0o777)
            except FileExistsError:
                continue
            except OSError as e:
                raise GameError(f"{final.parent}: cannot make a folder there: {_why(e)}") from None
            self.path = path
            break
        else:
            raise GameError(f"{final.parent}: cannot make a staging folder there")
        self._dirs = [self.path]
        self._files: list[Path] = []

    def _shown(self, path: Path) -> Path:
        return self.final / path.relative_to(self.path)

    def mkdir(self, rel: str) -> Path:
        make_dir(self.path / rel, self.final / rel)
        self._dirs.append(self.path / rel)
        return self.path / rel

    def write(self, rel: str, data: bytes) -> Path:
        """Writes the file (synced at commit); returns the path it will have once committed."""
        _write(self.path / rel, data, self.final / rel, sync=False)
        self._files.append(self.path / rel)
        return self.final / rel

    def commit(self) -> list[str]:
        """Syncs every file and folder written, renames the staging folder to `final`, and syncs the
        parent. Returns warnings about what failed after the rename: from then on the folder is
        committed, and is not undone."""
        targets = [(f, False) for f in self._files] + [(d, True) for d in self._dirs]
        # Syncs issued together share the file system's journal commits: several times faster than one by one.
        with ThreadPoolExecutor(max_workers=8) as pool:
            for _ in pool.map(lambda t: _sync(t[0], self._shown(t[0]), t[1]), targets):
                pass
        try:
            os.replace(self.path, self.final)
        except OSError as e:
            raise GameError(f"{self.final}: cannot rename {self.path.name} to it: {_why(e)}") from None
        try:
            fsync_dir(self.final.parent)
        except GameError as e:
            return [f"{e}; the rename may not survive a crash of the machine"]
        return []

    def discard(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


@dataclass(frozen=True)
class Wait:
    """How long a command waits for the game's lock held by another (`--wait SECONDS`), and how it tells that
    it is waiting (once, when it starts to)."""

    seconds: float
    tell: Callable[[str], None] = lambda message: None


# Between two tries of a lock held by another: short beside a turn, long beside the cost of a try.
_POLL = 0.05


class GameLock:
    """An exclusive lock on `path` (fcntl.flock), held until exit. When another process holds it, refused at
    once, or with `wait` tried again until it is free or `wait.seconds` have passed, then refused. The file
    is never removed: removing a lock file lets two processes lock different files."""

    def __init__(self, path: Path,
                 what: str = "another `rulesdsl turn` or `rulesdsl intake` is running on this game",
                 wait: Wait | None = None) -> None:
        self.path = path
        self.what = what
        self.wait = wait
        self.fd = -1

    def __enter__(self) -> GameLock:
        if self.fd >= 0:
            return self  # already held (lock_new_staging takes it before its `with`)
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as e:
            raise GameError(f"{self.path}: cannot open the game's lock: {_why(e)}") from None
        try:
            self._take(fd)
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd
        return self

    def _take(self, fd: int) -> None:
        deadline = None
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                pass
            except OSError as e:
                raise GameError(f"{self.path}: cannot lock: {_why(e)}") from None
            now = time.monotonic()
            if deadline is None and self.wait is not None and self.wait.seconds > 0:
                deadline = now + self.wait.seconds
                self.wait.tell(f"{self.path}: {self.what}; waiting up to {self.wait.seconds:g} s for it to finish")
            if deadline is None or now >= deadline:
                held = (f"still holds this lock after {self.wait.seconds:g} s of waiting"
                        if deadline is not None and self.wait is not None else "holds this lock")
                raise GameError(f"{self.path}: {self.what} and {held}; nothing was done. "
                                "Wait for it to finish, then look at the newest turn before running again")
            time.sleep(min(_POLL, deadline - now))

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing releases the lock
            self.fd = -1


def lock_new_staging(staging: Staging) -> GameLock:
    """Locks the lock file of a game being made in `staging`. The file appears under its name already
    locked, so a cleaner never takes a folder that is still being made for abandoned."""
    tmp = staging.path / f".{LOCK_NAME}.tmp"
    lock = GameLock(tmp, "another `rulesdsl new` is making this game").__enter__()
    try:
        os.rename(tmp, staging.path / LOCK_NAME)
    except OSError as e:
        lock.__exit__(None, None, None)
        raise GameError(f"{staging.final / LOCK_NAME}: cannot write: {_why(e)}") from None
    lock.path = staging.path / LOCK_NAME
    return lock


def remove_abandoned(folder: Path, prefix: str, locked: bool) -> None:
    """Removes staging folders `prefix*` in `folder` that a killed run left. With `locked`, the caller
    holds the lock that every writer of such folders holds, so each is abandoned. Otherwise only a folder
    holding our lock file that no process holds any more is ours and abandoned; others are left alone."""
    try:
        entries = [e for e in os.scandir(folder) if e.name.startswith(prefix) and e.is_dir(follow_symlinks=False)]
    except OSError:
        return
    for entry in entries:
        path = Path(entry.path)
        if locked:
            shutil.rmtree(path, ignore_errors=True)
            continue
        if not (path / LOCK_NAME).is_file():
            continue
        try:
            with GameLock(path / LOCK_NAME):
                shutil.rmtree(path, ignore_errors=True)
        except GameError:
            continue  # still being made
