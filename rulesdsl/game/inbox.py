"""A game folder and a turn -> the orders filed for that turn: the inbox's layout and record, which intake
writes and the turn, the store and the status read.

Layout (beside the turns; see game/folder.py):
    inbox/turn-NNN/           the orders filed for turn NNN, kept after the turn (a rollback leaves them, and
                              the turn run again reads the same orders); intake.py says what it writes there
        intake.tsv            intake's record, appended to: a line per mail read (place, what became of it,
                              account, identity, file), and a line for each later change (`replaced`);
                              where it exists it alone says what is filed
        gm/                   the GM's submissions (`rulesdsl gm GAMEDIR order`, game/store.py)
    turns/turn-NNN/submitted.txt   the accounts whose orders were taken in that turn, one a line
    turns/.rollback-NNN       a turn being rolled back (game/store.py): finished under the next lock

A module of its own, below the folder, the intake and the store, because all three read the same files.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from rulesdsl.game.disk import append_file, fsync_dir, write_file
from rulesdsl.game.errors import GameError
from rulesdsl.runtime.orders import shown

INBOX = "inbox"
INDEX = "intake.tsv"
GM = "gm"
SUBMITTED = "submitted.txt"
ROLLING = ".rollback-"
_NUMBERED = re.compile(r"([0-9]{3,})-")  # a place, as intake numbers its files (past 999 too)
FILED, REPLACED, REFUSED, OTHER_GAME = "filed", "replaced", "refused", "other-game"


def inbox_dir(root: Path, turn: int) -> Path:
    return root / INBOX / f"turn-{turn:03d}"


@dataclass
class Entry:
    """One mail read for a turn, as intake.tsv lists it."""

    seq: int
    status: str
    account: str
    ident: str
    file: str


def _line(e: Entry) -> str:
    return f"{e.seq:03d}\t{e.status}\t{e.account}\t{e.ident}\t{e.file}\n"


def read_index(folder: Path) -> list[Entry]:
    """The mails of intake.tsv, in the order received, each as its last line says: the record is appended
    to, and a later line about the same place changes what became of it (`replaced`). A last line with no
    line end is an append that a kill or a crash cut short: that mail was never recorded."""
    try:
        data = (folder / INDEX).read_bytes()
    except FileNotFoundError:
        return []
    except OSError as e:
        raise GameError(f"{folder / INDEX}: cannot read: {e.strerror or e}") from None
    try:
        text = data[: data.rfind(b"\n") + 1].decode("utf-8")
    except UnicodeDecodeError as e:
        raise GameError(f"{folder / INDEX}: cannot read: {e}") from None
    entries: dict[int, Entry] = {}
    for line in text.split("\n")[:-1]:
        parts = line.split("\t")
        if len(parts) != 5 or not parts[0].isdigit():
            raise GameError(f"{folder / INDEX}: line \"{shown(line)}\" is not in the form intake writes")
        entry = Entry(int(parts[0]), parts[1], parts[2], parts[3], parts[4])
        was = entries.get(entry.seq)
        if was is not None and (was.ident, was.file) != (entry.ident, entry.file):
            raise GameError(f"{folder / INDEX}: line \"{shown(line)}\" gives place {parts[0]} to another mail "
                            f"than {was.file}")
        entries[entry.seq] = entry  # the place keeps its first line's position: the order received
    return list(entries.values())


def open_index(folder: Path) -> None:
    """Under the lock, before intake writes a mail's files: the record exists (so every file beside it that
    it does not list is known for a killed intake's), and ends with a whole line (a torn last line is cut
    off, so the next append starts a line of its own)."""
    path = folder / INDEX
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as e:
        raise GameError(f"{path}: cannot write: {e.strerror or e}") from None
    try:
        size = os.fstat(fd).st_size
        if size:
            # A torn line is at most one mail's line: read back far enough to find the last line end.
            back = min(size, 65536)
            tail = os.pread(fd, back, size - back)
            end = tail.rfind(b"\n")
            keep = size - back + end + 1 if end >= 0 else (0 if back == size else size)
            if keep != size:
                os.ftruncate(fd, keep)
                os.fsync(fd)
    except OSError as e:
        raise GameError(f"{path}: cannot write: {e.strerror or e}") from None
    finally:
        os.close(fd)
    fsync_dir(folder)


def append_index(folder: Path, entries: list[Entry]) -> None:
    """Records `entries` by one appended, synced write. Lines that change an earlier mail come before the
    new mail's own line: a write cut short then leaves the new mail unrecorded (filed again by the next
    intake, from the mailbox), never two mails filed where one replaces the other."""
    # open_index made the record: it is never made here, where a missing one would be a fault.
    append_file(folder / INDEX, "".join(_line(e) for e in entries).encode("utf-8"), create=False)


def filed_orders(root: Path, turn: int) -> list[Path]:
    """The submissions intake filed for `turn`, in the order received, without those a later mail replaced."""
    folder = inbox_dir(root, turn)
    return [folder / e.file for e in read_index(folder) if e.status == FILED]


def filed_files(root: Path, turn: int) -> list[Path]:
    """The submissions filed for `turn`, in the order they are processed. Intake's record says which (a mail
    a later one replaced is not); without it (orders filed back by a rollback of a turn run from named
    files), every .txt file there (not a receipt), in name order. Hidden files are work in progress, never
    orders."""
    folder = inbox_dir(root, turn)
    listed = filed_orders(root, turn)
    # Where intake keeps its record, it alone says what is filed (a replaced mail is a .txt there too).
    if listed or (folder / INDEX).exists():
        return listed
    return [f for f in files_in(folder) if f.suffix == ".txt" and not f.name.endswith(".receipt.txt")]


def files_in(folder: Path) -> list[Path]:
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return []
    except OSError as e:
        raise GameError(f"{folder}: cannot read: {e.strerror or e}") from None
    return sorted(Path(e.path) for e in entries if not e.name.startswith(".") and e.is_file(follow_symlinks=False))


def gm_files(root: Path, turn: int) -> list[Path]:
    """The GM's submissions for `turn` (inbox/turn-NNN/gm/, written by `rulesdsl gm GAMEDIR order`), in
    name order: the only mail whose `gm order`s are carried out."""
    return files_in(inbox_dir(root, turn) / GM)


# ------------------------------------------------------------ orders of an undone turn filed back

def finish_rollbacks(root: Path) -> None:
    """Under the lock: a rollback killed after its turn folder was renamed away, its orders not yet all
    filed back, is finished now, so no order of the undone turn is lost."""
    turns = root / "turns"
    try:
        entries = sorted(e.name for e in os.scandir(turns) if e.name.startswith(ROLLING))
    except OSError:
        return
    for name in entries:
        file_back(root, turns / name, int(name.rsplit("-", 1)[1]))
        shutil.rmtree(turns / name, ignore_errors=True)
        fsync_dir(turns)


def _received_name(stored: str) -> str:
    """The name a submission had when received: its stored `NN-name` without the number."""
    number, _, rest = stored.partition("-")
    return rest if number.isdigit() and rest else stored


def file_back(root: Path, undone: Path, turn: int) -> list[str]:
    """Files the orders of an undone turn back for it under their received names, unless they are filed
    there still (the turn ran from inbox/turn-NNN, which is kept): a turn run from named files has its
    files nowhere else. Where intake's record is kept (it filed only mail it refused), they are recorded
    in it as filed, since it alone says what is. Returns the names filed back."""
    if filed_files(root, turn) or gm_files(root, turn):
        return []
    folder = inbox_dir(root, turn)
    names = []
    for kept, filed, prefix in ((undone / "orders", folder, ""), (undone / GM, folder / GM, f"{GM}/")):
        back = _file_back_from(kept, filed)
        names += [prefix + name for name in back]
        if not prefix and (folder / INDEX).exists():
            record_filed(folder, back)
    return names


def record_filed(folder: Path, names: list[str]) -> list[Entry]:
    """Records files that were put in `folder` by other than intake (filed back by a rollback) as filed, in
    the order given, each known by the sha256 of its bytes; its account is not read here ("-"). Returns the
    entries recorded."""
    entries = read_index(folder)
    place = next_place(folder, entries)
    try:
        new = [Entry(place + i, FILED, "-", "sha256:" + hashlib.sha256((folder / name).read_bytes()).hexdigest(),
                     name) for i, name in enumerate(names)]
    except OSError as e:
        raise GameError(f"{e.filename}: cannot read the orders: {e.strerror or e}") from None
    if new:
        append_index(folder, new)
    return new


def next_place(folder: Path, entries: list[Entry]) -> int:
    """The place of the next mail filed in `folder`: after every place recorded and every numbered file
    (files beside no record are not intake's, and are never written over)."""
    used = [e.seq for e in entries]
    used += [int(m[1]) for p in folder.iterdir() if (m := _NUMBERED.match(p.name))]
    return max(used, default=0) + 1


def _file_back_from(kept: Path, filed: Path) -> list[str]:
    if not kept.is_dir():
        return []
    filed.mkdir(parents=True, exist_ok=True)
    names = []
    for src in sorted(kept.iterdir()):
        name = _received_name(src.name)
        tmp = filed / f".{name}.tmp"
        tmp.unlink(missing_ok=True)
        write_file(tmp, src.read_bytes())
        os.replace(tmp, filed / name)
        names.append(name)
    fsync_dir(filed)
    return names
