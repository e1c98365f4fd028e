"""Mailboxes (Maildir, mbox) -> orders filed in a game folder for the coming turn, a receipt for each mail
accepted, and replies in the game's outbox.

Layout, beside the turns (see game/folder.py):
    inbox/turn-NNN/           what intake filed for turn NNN (the turn after the newest), kept after the turn:
        SSS-ACCOUNT.eml       a mail accepted, byte for byte as it arrived (SSS: its place, 001 on)
        SSS-ACCOUNT.txt       its submission as the turn reads it: the header lines and the order lines,
                              UTF-8, with what came before the header, quoted lines and the signature left out
        SSS-ACCOUNT.receipt.txt   the receipt: every order line accepted or refused, with the reason
        SSS-refused.eml       a mail not accepted (no player, a wrong access code, a header not read)
        intake.tsv            one line per mail read: place, what became of it, account, its identity, file;
                              appended to (inbox.py: a later line changes an earlier mail, `replaced`)
    outbox/                   replies to send: turn-NNN-SSS-receipt.eml, turn-NNN-SSS-refused.eml
`rulesdsl turn GAMEDIR` with no files gives the turn the .txt files listed as filed, in the order received.

Nothing here changes the game: intake only reads the state to judge the orders, under the game's lock so
that it never interleaves with a turn. The mailboxes are only read (a mail read again is known by its
Message-ID, or without one by the sha256 of its bytes, and filed once).
"""

from __future__ import annotations

import hashlib
import mailbox
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.utils import getaddresses
from html.parser import HTMLParser
from pathlib import Path

from rulesdsl.game.disk import LOCK_NAME, GameLock, Wait, fsync_dir, make_dir, write_file
from rulesdsl.game.errors import GameError
from rulesdsl.game.inbox import (
    FILED,
    INBOX,
    INDEX,
    OTHER_GAME,
    REFUSED,
    REPLACED,
    Entry,
    append_index,
    filed_files,
    inbox_dir,
    next_place,
    open_index,
    read_index,
    record_filed,
)
from rulesdsl.game.progress import NULL, Progress
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.mail import LINE_END, Refusal, by_account
from rulesdsl.runtime.orders import shown

OUTBOX = "outbox"

# Where a mail client starts the message it forwards or answers without quoting it: nothing after is orders.
_ORIGINAL = re.compile(r"^\s*(-{2,}\s*(Original Message|Forwarded message)\s*-{2,}|Begin forwarded message:)",
                       re.IGNORECASE)
_BLOCK_TAGS = frozenset({"br", "p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "table", "ul",
                         "ol", "hr"})

# What a mail that is not accepted is told: nothing about the game, its players or why, which a stranger
# guessing accounts and codes could use. The GM sees the reason in intake's summary.
REFUSED_TEXT = """Your mail was received, but no orders in it were accepted.

Orders are accepted only from a mail whose first lines are the header lines
the game asks for, with your account and your access code, written as your
GM gave them to you. Please check them and send the orders again, or write
to your GM.
"""








@dataclass
class IntakeResult:
    turn: int
    unit: str  # the ruleset's word for a turn
    filed: list[tuple[str, Path]] = field(default_factory=list)  # (account, receipt)
    refused: list[str] = field(default_factory=list)  # for the GM: which mail and why
    other_game: list[str] = field(default_factory=list)
    duplicates: int = 0
    replies: list[Path] = field(default_factory=list)


# ------------------------------------------------------------------ reading mail
class _HtmlText(HTMLParser):
    """The text of an HTML mail, a line for each block; quoted blocks (a report quoted back), scripts and
    styles left out."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0
        self.pre = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("blockquote", "script", "style", "head"):
            if tag == "blockquote" and not self.skip:
                self._drop_introduction()
            self.skip += 1
        elif tag in _BLOCK_TAGS:
            self.pre += tag == "pre"
            self.parts.append("\n")

    def _drop_introduction(self) -> None:
        # A mail client's "On ..., X wrote:" above the quote (Gmail puts it in a div of its own) is not an
        # order either, as in a plain mail (submission).
        lines = "".join(self.parts).split("\n")
        end = len(lines)
        while end and not lines[end - 1].strip():
            end -= 1
        if end and lines[end - 1].strip().endswith("wrote:"):
            self.parts = ["\n".join(lines[:end - 1]), "\n"]

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("blockquote", "script", "style", "head"):
            self.skip = max(0, self.skip - 1)
        elif tag in _BLOCK_TAGS:
            self.pre = max(0, self.pre - (tag == "pre"))
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        data = data.replace("\xa0", " ")
        if self.pre:
            self.parts.append(data.replace("\r\n", "\n").replace("\r", "\n"))
        else:
            # Outside <pre>, a line break in the source is a space, as a browser shows it.
            self.parts.append(data.replace("\r", " ").replace("\n", " "))


def html_text(html: str) -> str:
    parser = _HtmlText()
    parser.feed(html)
    parser.close()
    # Each block ends a line: the blank lines between blocks are layout, not what was written.
    return "\n".join(line.strip() for line in "".join(parser.parts).split("\n") if line.strip())


def _content(part: Message) -> str:
    try:
        text = part.get_content()  # type: ignore[attr-defined]
        return text if isinstance(text, str) else ""
    except (LookupError, UnicodeError, AssertionError, KeyError):
        # An unknown or wrong charset: the bytes as UTF-8, what cannot be read replaced, so the lines that
        # can still be read are.
        payload = part.get_payload(decode=True)
        return payload.decode("utf-8", errors="replace") if isinstance(payload, bytes) else ""


def body_text(msg: EmailMessage) -> str:
    """The text a player wrote: the text/plain part (format=flowed lines joined again), or an HTML-only
    mail's text, in any charset and transfer encoding; attachments are not read."""
    plain = msg.get_body(preferencelist=("plain",))
    if plain is not None:
        text = _content(plain)
        if str(plain.get_param("format", "")).lower() == "flowed":
            return _unflowed(text, str(plain.get_param("delsp", "")).lower() == "yes")
        return text
    html = msg.get_body(preferencelist=("html",))
    if html is not None:
        return html_text(_content(html))
    return ""


def _unflowed(text: str, delsp: bool) -> str:
    """RFC 3676: a line ending in a space (but the signature line "-- ") goes on in the next line of the same
    quote depth; a space after the quote marks was added by the sender (space-stuffing)."""
    out: list[str] = []
    depth, line, flowing = -1, "", False
    for raw in LINE_END.split(text):
        marks = len(raw) - len(raw.lstrip(">"))
        body = raw[marks:].removeprefix(" ")
        soft = body.endswith(" ") and body != "-- "
        if soft and delsp:
            body = body[:-1]
        if flowing and marks == depth:
            line += body
        else:
            if depth >= 0:
                out.append(line)
            depth, line = marks, ">" * marks + (" " if marks else "") + body
        flowing = soft
    if depth >= 0:
        out.append(line)
    return "\n".join(out)


def _replied_below(lines: list[str], i: int) -> bool:
    """Where Outlook puts the mail it answers, with no '>' before its lines: below a line of underscores
    (Outlook on the web), or a "From:" line followed by "Sent:" (Outlook for Windows)."""
    line = lines[i].strip()
    if re.fullmatch(r"_{10,}", line):
        after = next((x.strip() for x in lines[i + 1:] if x.strip()), "")
        return after.lower().startswith("from:")
    return line.lower().startswith("from:") and i + 1 < len(lines) and \
        lines[i + 1].strip().lower().startswith("sent:")


def submission(text: str, game: Game) -> str:
    """The submission in a mail's text: from where its header starts (`_header_start`), without quoted
    lines (`>`) and the line that introduces them ("On ... wrote:"), and up to a signature (`-- `) or a
    forwarded or answered message (Outlook's too)."""
    lines = LINE_END.split(text.removeprefix("\ufeff"))
    kept: list[str] = []
    for i, line in enumerate(lines):
        if (line.rstrip(" \t") in ("--", "-- ") and line.startswith("--")) or _ORIGINAL.match(line) or \
                _replied_below(lines, i):
            break
        if line.lstrip(" \t").startswith(">"):
            # A mail client's "On ..., X wrote:" before the quote is not an order either.
            while kept and not kept[-1].strip():
                kept.pop()
            if kept and kept[-1].rstrip().endswith("wrote:"):
                kept.pop()
            continue
        kept.append(line)
    start = _header_start(kept, game)
    if start is not None:
        kept = kept[start:]
    while kept and not kept[-1].strip():
        kept.pop()
    return "\n".join(kept) + "\n"


def _header_start(lines: list[str], game: Game) -> int | None:
    """Where the header starts: the first line from which the header reads as a player's, account and
    access code matching (as the turn will read it); else the first from which it names a player; else
    the first line the first header line reads; None if none does. A header line such as "{account}"
    also reads a line of chatter: only the whole header tells."""
    patterns = game.mail.header
    if not patterns:
        return None
    accounts = by_account(game.all_players)
    number, game_id = str(game.meta.get("number", "")), str(game.meta.get("id", ""))
    first = named = None
    tried = 0
    for i, line in enumerate(lines):
        if patterns[0].match(line.strip(" \t")) is None:
            continue
        first = i if first is None else first
        tried += 1
        if tried > 20:
            break  # each try reads the rest of the mail: a mail of such lines is not read without end
        mail = game.mail.read("mail", "\n".join(lines[i:]), accounts, number, game_id)
        if mail.player is not None and mail.notice is None:
            return i
        if mail.player is not None and named is None:
            named = i
    return named if named is not None else first


def subject_text(msg: EmailMessage) -> str:
    """The subject as its sender wrote it. An old client may write accents as raw bytes of the body's
    charset (ISO-8859-1 mostly), which the email package reads as U+FFFD: those are read in that charset."""
    subject = str(msg.get("Subject", "") or "").strip()
    raw = next((str(v) for k, v in msg.raw_items() if k.lower() == "subject"), "")
    if "\ufffd" not in subject or not any("\udc80" <= c <= "\udcff" for c in raw):
        return subject
    data = raw.encode("ascii", "surrogateescape")
    for charset in ("utf-8", msg.get_content_charset() or "iso-8859-1", "iso-8859-1"):
        try:
            return " ".join(data.decode(charset).split())
        except (LookupError, UnicodeDecodeError):
            continue
    return subject


def read_mailbox(path: Path, progress: Progress = NULL) -> Iterator[bytes]:
    """Each mail of a Maildir (its new/ and cur/, by name) or an mbox file, as its bytes; never changed.
    `progress` is told a stage of as many mails as the mailbox holds; the caller counts them."""
    if path.is_dir():
        subdirs = [path / sub for sub in ("new", "cur") if (path / sub).is_dir()]
        if not subdirs:
            raise GameError(f"{path}: not a Maildir (it has no cur/ or new/)")
        yield from _maildir_mail(path, subdirs, progress)
        return
    if not path.is_file():
        raise GameError(f"{path}: no such mailbox")
    box = mailbox.mbox(path, create=False)
    try:
        keys = list(box.keys())
        progress.stage(f"reading {path.name or path}", len(keys))
        for key in keys:
            yield box.get_bytes(key)
    except OSError as e:
        raise GameError(f"{path}: cannot read the mailbox: {e.strerror or e}") from None
    finally:
        box.close()


def _maildir_mail(path: Path, subdirs: list[Path], progress: Progress) -> Iterator[bytes]:
    # Read here rather than by mailbox.Maildir, which fails on a Maildir without cur/ (a copy made by a tool
    # that keeps no empty folders, git among them). In the order of the names without their flags
    # (":2,S"), as mailbox.Maildir's sorted keys gave it: a delivery's name starts with its time.
    try:
        names = sorted((p.name.split(":")[0], p) for sub in subdirs for p in sub.iterdir()
                       if not p.name.startswith(".") and p.is_file())
        progress.stage(f"reading {path.name or path}", len(names))
        for _, p in names:
            yield p.read_bytes()
    except OSError as e:
        raise GameError(f"{path}: cannot read the mailbox: {e.strerror or e}") from None


def identity(raw: bytes, msg: Message) -> str:
    """What tells one mail from another: its Message-ID, or the sha256 of its bytes."""
    mid = str(msg.get("Message-ID", "") or "").strip()
    mid = re.sub(r"\s+", "", mid)
    return mid if mid else "sha256:" + hashlib.sha256(raw).hexdigest()


# ------------------------------------------------------------------ the inbox's record



def _records(root: Path) -> dict[str, list[Entry]]:
    """Every inbox folder's record, by the folder's name, each read once: an intake reads them all (the
    mail already filed, for any turn), so the cost grows with the record, never with its square."""
    try:
        folders = sorted(p for p in (root / INBOX).iterdir() if p.is_dir())
    except FileNotFoundError:
        return {}
    return {f.name: read_index(f) for f in folders if (f / INDEX).is_file()}


def _clear_unrecorded(root: Path, records: dict[str, list[Entry]]) -> None:
    """Under the lock: removes the files of mail that a killed intake wrote but never recorded (in an inbox
    folder whose record exists, the files of a place it does not list; in the outbox, their replies), so
    the next intake files that mail again from the mailbox, in the same place, and its player gets one
    receipt, not two. An inbox folder without a record is left alone: its files are not intake's."""
    places = {name: {e.seq for e in entries} for name, entries in records.items()}
    for name, recorded in places.items():
        folder = root / INBOX / name
        # A file the record names is no orphan, whatever its number (orders filed back by a rollback).
        named = {e.file for e in records[name]}
        _remove(folder, [p for p in folder.iterdir()
                         if (seq := _place(p.name)) is not None and seq not in recorded and p.name not in named])
    try:
        replies = list((root / OUTBOX).iterdir())
    except FileNotFoundError:
        return
    stale = []
    for p in replies:
        m = _REPLY.fullmatch(p.name)
        if m and m[1] in places and int(m[2]) not in places[m[1]]:
            stale.append(p)
    _remove(root / OUTBOX, stale)


_FILE = re.compile(r"([0-9]{3,})-[^/]*\.(eml|txt)")
_REPLY = re.compile(r"(turn-[0-9]{3,})-([0-9]{3,})-(receipt|refused)\.eml")


def _place(name: str) -> int | None:
    m = _FILE.fullmatch(name)
    return int(m[1]) if m else None


def _remove(folder: Path, paths: list[Path]) -> None:
    if not paths:
        return
    for p in paths:
        try:
            p.unlink()
        except OSError as e:
            raise GameError(f"{p}: cannot remove what a killed intake left: {e.strerror or e}") from None
    fsync_dir(folder)


def _account_of(path: Path, game: Game) -> str:
    """The account whose orders a file filed by other than intake holds, read as the turn reads it ("-": none)."""
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError as e:
        raise GameError(f"{path}: cannot read the orders: {e.strerror or e}") from None
    mail = game.mail.read(path.name, text, by_account(game.all_players), str(game.meta.get("number", "")),
                          str(game.meta.get("id", "")))
    return mail.player.account if mail.player is not None and mail.notice is None else "-"


def _mkdirs(path: Path) -> None:
    missing = []
    while not path.is_dir():
        missing.append(path)
        path = path.parent
    for p in reversed(missing):
        make_dir(p)


# ------------------------------------------------------------------ receipts and replies
def receipt_lines(game: Game, text: str) -> tuple[list[str], str | None]:
    """Each order line of an accepted submission with what becomes of it, read as the turn reads it and
    judged by its `valid` against the state now; and the account of its player (None: not accepted)."""
    accounts = by_account(game.all_players)
    mail = game.mail.read("mail", text, accounts, str(game.meta.get("number", "")), str(game.meta.get("id", "")))
    if mail.player is None or mail.notice is not None:
        return [], None
    player = mail.player
    out = []
    unit = game.spec.turn_unit
    hidden = [player.code]
    for line, written in mail.lines:
        got = game.mail.order(game, player, line, written)
        if isinstance(got, Refusal):
            out.append(f"  line {line}: {_masked(got.text, hidden)}\n      refused: {_masked(got.reason, hidden)}")
            continue
        kind = got.spec.kind
        # A personal order may set a new access code (Covert's CODE): its words are not repeated in a mail.
        secrets = hidden + ([str(v) for v in got.rec.args.values() if isinstance(v, str)] if kind == "personal"
                            else [])
        if kind == "stop":
            what = f"accepted: a stop; the orders after it wait for the next {unit}"
        elif kind == "discard":
            what = "accepted: a discard; at the turn it drops the orders on file and those before it"
        else:
            reason = None
            try:
                reason = game.judge_now(got.spec, got.rec)
            except Exception:
                reason = None  # it depends on what the turn does first: the turn judges it
            when = "carried out at the turn, as its mail is read" if kind == "personal" else \
                "will be checked at the turn"
            what = (f"refused as things stand: {reason}; checked again at the turn" if reason is not None
                    else f"accepted; {when}")
        out.append(f"  line {line}: {_masked(got.text, secrets)}\n      {_masked(what, secrets)}")
    return out, player.account


def _masked(text: str, secrets: list[str]) -> str:
    for secret in sorted({s for s in secrets if s.strip()}, key=len, reverse=True):
        text = re.sub(re.escape(secret), "***", text, flags=re.IGNORECASE)
    return text


def _reply(msg: EmailMessage, ident: str, kind: str, body: str) -> bytes:
    reply = EmailMessage(policy=policy.default)
    to = msg.get_all("Reply-To") or msg.get_all("From") or []
    addresses = [a for _, a in getaddresses([str(x) for x in to]) if a]
    if addresses:
        reply["To"] = ", ".join(addresses)
    subject = subject_text(msg)
    reply["Subject"] = subject if subject.lower().startswith("re:") else f"Re: {subject or 'your orders'}"
    if not ident.startswith("sha256:"):
        reply["In-Reply-To"] = ident
        reply["References"] = ident
    digest = hashlib.sha256(f"{kind}\0{ident}".encode()).hexdigest()[:24]
    reply["Message-ID"] = f"<{kind}-{digest}@rulesdsl.invalid>"
    reply.set_content(body)
    return reply.as_bytes()


# ------------------------------------------------------------------ intake
def intake(root: Path, mailboxes: list[Path], progress: Progress = NULL, wait: Wait | None = None) -> IntakeResult:
    """Reads every mail of the mailboxes and files the accepted ones for the coming turn, under the lock (with
    `wait`, waited for while another command holds it: a cron'ed intake that meets a turn). `progress` is
    told of the state loaded, then of each mailbox and each of its mails read."""
    from rulesdsl.game.folder import GameFolder  # folder.py reads the filed orders from here

    folder = GameFolder(root)
    folder.latest_turn()
    with (GameLock(root / LOCK_NAME, "another `rulesdsl intake` or `rulesdsl turn` is running on this game", wait),
          ThreadPoolExecutor(max_workers=4) as pool):
        progress.stage("loading the state")
        game = folder.load_game()
        if game.game_over:
            raise GameError(f"{root}: the game is over (turn {game.turn}); no more orders are filed")
        coming = game.turn + 1
        unit = game.spec.turn_unit
        # `valid` is asked as in the coming turn: `turn` reads its number.
        game.turn = coming
        box = inbox_dir(root, coming)
        _mkdirs(box)
        _mkdirs(root / OUTBOX)
        records = _records(root)
        _clear_unrecorded(root, records)
        # Orders filed here without a record (by a rollback of a turn run from named files) are the turn's:
        # recorded first, since once the record exists it alone says what is filed. Files named as intake
        # names them are a killed intake's from before the record came first, and are never read.
        adopt = [] if box.name in records else [p.name for p in filed_files(root, coming)
                                                 if not _FILE.fullmatch(p.name)]
        open_index(box)
        entries = records[box.name] if box.name in records else record_filed(box, adopt)
        filed: dict[str, list[Entry]] = {}
        for e in entries:
            if e.status == FILED:
                filed.setdefault(e.account if e.account != "-" else _account_of(box / e.file, game), []).append(e)
        seen = {e.ident for entries_of in records.values() for e in entries_of}
        result = IntakeResult(coming, unit)
        parser = BytesParser(policy=policy.default)
        title = f"{game.spec.title} {game.meta.get('id', '')}".strip()
        writes: list[tuple[Path, bytes]] = []
        seq = next_place(box, entries) - 1
        changed: list[Entry] = []  # earlier mails this one replaces, recorded with it
        for path in mailboxes:
            for raw in read_mailbox(path, progress):
                msg = parser.parsebytes(raw)
                assert isinstance(msg, EmailMessage)
                ident = identity(raw, msg)
                if ident in seen:
                    result.duplicates += 1
                    progress.advance()
                    continue
                seen.add(ident)
                seq += 1
                text = submission(body_text(msg), game)
                label = f"{seq:03d}"
                mail = game.mail.read(label, text, by_account(game.all_players), str(game.meta.get("number", "")),
                                      str(game.meta.get("id", "")))
                sender = shown(str(msg.get("From", "") or "?"))
                if mail.game is not None and not mail.game[1]:
                    # Another game's mail in a shared mailbox: not this game's to answer.
                    name = f"{seq:03d}-other-game.eml"
                    writes.append((box / name, raw))
                    entries.append(Entry(seq, OTHER_GAME, "-", ident, name))
                    result.other_game.append(f"mail {label} from {sender} is for game {mail.game[0]}")
                elif mail.player is None or mail.notice is not None:
                    name = f"{seq:03d}-refused.eml"
                    writes.append((box / name, raw))
                    why = (mail.notice or "; ".join(mail.unrouted) or "no header").rstrip(".")
                    why = why.removeprefix(f"Your orders in {label} were not processed: ")
                    result.refused.append(f"mail {label} from {sender}: {why}")
                    out = root / OUTBOX / f"turn-{coming:03d}-{seq:03d}-refused.eml"
                    writes.append((out, _reply(msg, ident, "refused", REFUSED_TEXT)))
                    result.replies.append(out)
                    entries.append(Entry(seq, REFUSED, "-", ident, name))
                else:
                    account = mail.player.account
                    base = f"{seq:03d}-{account}"
                    earlier = filed.setdefault(account, [])
                    note = ""
                    if earlier and game.spec.policy.later_mail == "replaces":
                        note = (f"This mail replaces your earlier mail{'s' if len(earlier) > 1 else ''} for "
                                f"{unit} {coming}: only the orders below are given to the turn.\n\n")
                        for e in earlier:
                            e.status = REPLACED
                        changed += earlier
                        earlier.clear()
                    elif earlier:
                        note = (f"This mail adds to your earlier mail{'s' if len(earlier) > 1 else ''} for "
                                f"{unit} {coming}: the turn reads them all, in the order received.\n\n")
                    lines, _ = receipt_lines(game, text)
                    receipt = (f"Receipt: your orders for {title}, {unit} {coming}, from account {account} "
                               f"({mail.player.name}), filed as mail {label}.\n\n{note}"
                               + ("\n".join(lines) if lines else "  (no order lines)") + "\n\n"
                               f"Orders are carried out when {unit} {coming} is processed; what an order needs "
                               "then (its cost, limits, the state at that time) is checked at the turn, and "
                               "your report says what was done.\n")
                    writes += [(box / f"{base}.eml", raw), (box / f"{base}.txt", text.encode("utf-8")),
                               (box / f"{base}.receipt.txt", receipt.encode("utf-8"))]
                    out = root / OUTBOX / f"turn-{coming:03d}-{seq:03d}-receipt.eml"
                    writes.append((out, _reply(msg, ident, "receipt", receipt)))
                    result.replies.append(out)
                    result.filed.append((account, box / f"{base}.receipt.txt"))
                    entry = Entry(seq, FILED, account, ident, f"{base}.txt")
                    earlier.append(entry)
                    entries.append(entry)
                # A mail's files are written and synced together (syncs issued at once share the file
                # system's journal commits), its reply's folder synced, and only then recorded: a killed
                # intake loses at most the mail it was filing, and a file not recorded is never read (the
                # next intake removes it: _clear_unrecorded). One appended line (and one for each mail it
                # replaces): the record grows with the mailbox, never rewritten whole.
                list(pool.map(lambda w: write_file(*w), writes))
                writes.clear()
                fsync_dir(root / OUTBOX)
                append_index(box, [*changed, entries[-1]])
                changed.clear()
                progress.advance()
        return result
