"""A game folder's mail not yet sent (each turn's turns/turn-NNN/mail/, intake's outbox/) -> an SMTP server,
each mail once, recorded in GAMEDIR/sent.tsv.

Layout this module adds to GAMEDIR (see folder.py):
    sent.tsv          append-only: one line per mail the server accepted (Message-ID, the file, the
                      recipients), written and synced right after the server took it; a mail whose
                      Message-ID is in it is never sent again

What is sent, in order: for each turn, intake's replies for it (outbox/turn-NNN-*.eml), then its report
mails (turns/turn-NNN/mail/*.eml). A mail file is never changed: at send time it gets a Date and the
GM's From (--from, else game.yaml's `gm_email`), and a report mail goes to its player's address in the
newest state, whatever address the file names (`rulesdsl gm GAMEDIR email` after the turn re-addresses
it); sent.tsv records where it went. A report mail whose player has no address now waits, unsent, until
the player has one. The game's lock is held from the first read to the last record, so a turn, an intake
or another send never runs meanwhile.
"""

from __future__ import annotations

import os
import re
import smtplib
import ssl
from dataclasses import dataclass, field
from email import policy
from email.headerregistry import Address
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import formatdate, getaddresses
from pathlib import Path
from typing import Any

from rulesdsl.game import inbox
from rulesdsl.game.disk import LOCK_NAME, GameLock, Wait, append_file
from rulesdsl.game.errors import GameError
from rulesdsl.game.intake import OUTBOX, identity
from rulesdsl.game.outbox import ACCOUNT_HEADER, MAIL, gm_address, usable

SENT = "sent.tsv"
PASSWORD_VARIABLE = "RULESDSL_SMTP_PASSWORD"
_OUTBOX_TURN = re.compile(r"turn-([0-9]{3,})-(?:([0-9]{3,})-)?")


@dataclass
class Server:
    host: str
    port: int
    starttls: bool = False
    user: str | None = None
    password: str | None = None
    cafile: Path | None = None  # the certificates the server's is checked against, besides the system's
    timeout: float = 60.0


def parse_server(text: str) -> tuple[str, int]:
    """HOST:PORT (an IPv6 address in brackets) -> (host, port); HOST alone is port 25."""
    host, port = text, "25"
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest.removeprefix(":") or "25"
    elif text.count(":") == 1:
        host, _, port = text.partition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise GameError(f"--smtp {text!r}: give the server as HOST:PORT, as smtp.example.org:587")
    return host, int(port)


@dataclass
class Mail:
    rel: str  # the file, from GAMEDIR
    ident: str  # its Message-ID
    msg: EmailMessage
    to: list[str]  # where it goes
    note: str = ""  # for the summary: re-addressed
    account: str = ""  # a report mail's player


@dataclass
class SendResult:
    sent: list[Mail] = field(default_factory=list)
    already: int = 0  # sent before, by an earlier send
    waiting: list[tuple[str, str]] = field(default_factory=list)  # (file, why): no address to send it to
    no_address: list[str] = field(default_factory=list)  # active players of the newest state with no address
    not_sent: list[Mail] = field(default_factory=list)  # left when the server failed, or in a dry run
    failure: str | None = None
    sender: str = ""


def read_sent(root: Path) -> tuple[set[str], bool]:
    """The Message-IDs recorded as sent, and whether the record ends with a whole line."""
    try:
        text = (root / SENT).read_text(encoding="utf-8")
    except FileNotFoundError:
        return set(), True
    except (OSError, UnicodeDecodeError) as e:
        raise GameError(f"{root / SENT}: cannot read: {e}") from None
    # A line torn by a crash still names its Message-ID whole when its first tab was written.
    return {line.split("\t", 1)[0] for line in text.splitlines() if line.strip()}, text.endswith("\n") or not text


def _record(root: Path, line: str) -> None:
    append_file(root / SENT, line.encode("utf-8"))


def _mail_files(root: Path, turns: list[int]) -> list[tuple[Path, bool]]:
    """(file, is a report mail) of every mail to send, in the order they are sent."""
    keyed: list[tuple[tuple[int, int, str], Path, bool]] = []
    records: dict[int, set[int]] = {}
    for path in inbox.files_in(root / OUTBOX):
        if path.suffix != ".eml":
            continue
        m = _OUTBOX_TURN.match(path.name)
        if m and m[2] is not None:
            turn = int(m[1])
            if turn not in records:
                records[turn] = {e.seq for e in inbox.read_index(inbox.inbox_dir(root, turn))}
            if int(m[2]) not in records[turn]:
                # A reply a killed intake wrote before it recorded the mail: the next intake removes it and
                # files that mail again, with the same reply. Sent now, it would answer a mail filed nowhere.
                continue
        keyed.append(((int(m[1]) if m else 1 << 62, 0, path.name), path, False))
    for turn in turns:
        for path in inbox.files_in(root / "turns" / f"turn-{turn:03d}" / MAIL):
            if path.suffix == ".eml":
                keyed.append(((turn, 1, path.name), path, True))
    return [(path, report) for _, path, report in sorted(keyed)]


def _players(root: Path, turn: int) -> dict[str, dict[str, Any]]:
    from rulesdsl.game.folder import read_yaml, turn_name

    data = read_yaml(root / "turns" / turn_name(turn) / "state.yaml", f"turns/{turn_name(turn)}/state.yaml")
    players = data.get("players", []) if isinstance(data, dict) else []
    return {str(p.get("account", "")): p for p in players if isinstance(p, dict)}


def pending(root: Path, sender_option: str | None) -> tuple[list[Mail], SendResult]:
    """Under the lock: the mails to send now, addressed, and what the summary says of the others."""
    from rulesdsl.game.folder import GameFolder

    folder = GameFolder(root)
    turns = folder.turn_numbers()
    players = _players(root, turns[-1])
    done, _ = read_sent(root)
    result = SendResult()
    parser = BytesParser(policy=policy.default)
    mails: list[Mail] = []
    for path, report in _mail_files(root, turns):
        rel = path.relative_to(root).as_posix()
        try:
            raw = path.read_bytes()
        except OSError as e:
            raise GameError(f"{path}: cannot read: {e.strerror or e}") from None
        # The headers alone tell a mail sent before, most of them in a long game: the body is read only to send.
        ident = identity(raw, parser.parsebytes(raw, headersonly=True))
        if ident in done:
            result.already += 1
            continue
        msg = parser.parsebytes(raw)
        assert isinstance(msg, EmailMessage)
        named = [a for _, a in getaddresses([str(x) for x in msg.get_all("To", [])]) if a]
        account = str(msg.get(ACCOUNT_HEADER, "") or "")
        if report and account in players:
            p = players[account]
            now = usable(str(p.get("email", "") or ""))
            if now is None:
                why = "no e-mail address" if not str(p.get("email", "") or "").strip() else \
                    f"the e-mail address {str(p['email'])!r}, which is not one"
                result.waiting.append((rel, f"{account} ({p.get('name', '')}) has {why}"))
                continue
            mail = Mail(rel, ident, msg, [now], account=account)
            if named != [now]:
                # The player's address changed since the turn (or had none then): the newest state's counts.
                mail.note = f"re-addressed: the mail names {', '.join(named)}" if named else "addressed now"
                del msg["To"]
                msg["To"] = str(Address(display_name=str(p.get("name", "")), addr_spec=now))
        else:
            good = [a for a in named if usable(a)]
            if not good:
                result.waiting.append((rel, "it names no address to send it to"))
                continue
            mail = Mail(rel, ident, msg, good)
            if msg["Auto-Submitted"] is None:
                # Intake's replies are answers a program wrote: no vacation responder answers them (RFC 3834).
                msg["Auto-Submitted"] = "auto-replied"
        mails.append(mail)
        done.add(ident)  # the same mail in two files is sent once
    result.no_address = [f"{a} ({p.get('name', '')})" for a, p in players.items()
                         if p.get("active", True) and usable(str(p.get("email", "") or "")) is None]
    sender = sender_option if sender_option is not None else gm_address(root)
    if sender_option is not None and usable(sender_option) is None:
        raise GameError(f"--from {sender_option!r}: not an e-mail address (name@example.org, or "
                        "\"GM Name <name@example.org>\"); nothing was sent")
    if mails and not sender:
        raise GameError(f"{len(mails)} mail(s) wait to be sent, but no one to send them from: give --from ADDRESS, "
                        f"or name the GM's address in {root / 'game.yaml'} as `gm_email: ADDRESS`; nothing was sent")
    result.sender = sender or ""
    return mails, result


def send(root: Path, server: Server | None, sender_option: str | None = None, dry_run: bool = False,
         wait: Wait | None = None) -> SendResult:
    """Sends every mail not yet sent; with `dry_run` (or no server), says what would be sent and sends
    nothing. A server that fails stops it: the result says what was sent and what was not. With `wait`, the
    game's lock held by another command is waited for (a cron'ed send that meets a turn)."""
    from rulesdsl.game.folder import GameFolder

    if server is not None and server.user is not None and not server.starttls:
        raise GameError("--user: a password is sent only over an encrypted connection; give --starttls")
    GameFolder(root).latest_turn()  # not a game folder: say so before making a lock file in it
    with GameLock(root / LOCK_NAME, "another command (a turn, an intake, a send) is running on this game", wait):
        inbox.finish_rollbacks(root)
        mails, result = pending(root, sender_option)
        if dry_run or server is None or not mails:
            result.not_sent = mails
            return result
        _, whole = read_sent(root)
        envelope = usable(result.sender)
        assert envelope is not None
        try:
            smtp = _connect(server)
        except GameError as e:
            result.not_sent = mails
            result.failure = str(e)
            return result
        try:
            for i, mail in enumerate(mails):
                del mail.msg["From"]
                del mail.msg["Date"]
                mail.msg["From"] = result.sender
                mail.msg["Date"] = formatdate(localtime=True)
                data = mail.msg.as_bytes(policy=policy.SMTP)
                try:
                    smtp.sendmail(envelope, mail.to, data)
                except smtplib.SMTPRecipientsRefused as e:
                    refused = "; ".join(f"{a}: {_reply(code, text)}" for a, (code, text) in e.recipients.items())
                    fix = (f"`rulesdsl gm {root} email ACCOUNT ADDRESS` corrects a player's address" if mail.account
                           else f"a reply to an address that takes no mail can be removed from {root / OUTBOX}")
                    result.failure = f"the server refused the recipient of {mail.rel} ({refused}); {fix}"
                except smtplib.SMTPSenderRefused as e:
                    result.failure = f"the server refused the sender {envelope} ({_reply(e.smtp_code, e.smtp_error)})"
                except smtplib.SMTPResponseException as e:
                    result.failure = f"the server refused {mail.rel} ({_reply(e.smtp_code, e.smtp_error)})"
                except (smtplib.SMTPException, OSError) as e:
                    result.failure = f"the connection to the server failed while sending {mail.rel} ({e})"
                if result.failure is not None:
                    result.not_sent = mails[i:]
                    return result
                _record(root, ("" if whole else "\n") + f"{mail.ident}\t{mail.rel}\t{', '.join(mail.to)}\n")
                whole = True
                result.sent.append(mail)
        finally:
            try:
                smtp.quit()
            except (smtplib.SMTPException, OSError):
                smtp.close()
    return result


def _reply(code: int, text: bytes | str) -> str:
    return f"{code} {text.decode('utf-8', 'replace') if isinstance(text, bytes) else text}".strip()


def _connect(server: Server) -> smtplib.SMTP:
    where = f"{server.host}:{server.port}"
    try:
        smtp = smtplib.SMTP(server.host, server.port, timeout=server.timeout)
    except (OSError, smtplib.SMTPException) as e:
        raise GameError(f"cannot connect to the SMTP server {where}: {getattr(e, 'strerror', None) or e}") from None
    try:
        smtp.ehlo()
        if server.starttls:
            context = ssl.create_default_context(cafile=str(server.cafile) if server.cafile else None)
            try:
                smtp.starttls(context=context)
            except smtplib.SMTPNotSupportedError:
                raise GameError(f"the SMTP server {where} does not offer STARTTLS") from None
            except ssl.SSLCertVerificationError as e:
                raise GameError(f"the SMTP server {where}: its certificate is not trusted ({e.verify_message}); "
                                "give the certificate that signed it with --cafile") from None
            smtp.ehlo()
        if server.user is not None:
            try:
                smtp.login(server.user, server.password or "")
            except smtplib.SMTPAuthenticationError as e:
                raise GameError(f"the SMTP server {where} refused the login of {server.user} "
                                f"({_reply(e.smtp_code, e.smtp_error)})") from None
            except smtplib.SMTPNotSupportedError:
                raise GameError(f"the SMTP server {where} offers no login (AUTH)") from None
    except GameError:
        smtp.close()
        raise
    except (OSError, smtplib.SMTPException) as e:
        smtp.close()
        raise GameError(f"the SMTP server {where} failed: {e}") from None
    return smtp


def password(file: Path | None) -> str | None:
    """The password from `file` (its first line), else from $RULESDSL_SMTP_PASSWORD; None when neither."""
    if file is not None:
        try:
            lines = file.read_text(encoding="utf-8").splitlines()
        except OSError as e:
            raise GameError(f"{file}: cannot read the password: {e.strerror or e}") from None
        return lines[0] if lines else ""
    return os.environ.get(PASSWORD_VARIABLE)

