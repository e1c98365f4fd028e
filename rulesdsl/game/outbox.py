"""A turn's reports and intake's receipts -> one mail per player (RFC 5322 .eml), written with the turn.

Layout this module adds to a turn folder (see folder.py):
    turns/turn-NNN/mail/ACCOUNT-name.eml   the mail of each player who gets a report: the text report
                              (text/plain) and its page (text/html) as alternatives and, when the turn
                              ran from the orders intake filed, the receipts of the player's mail that
                              the turn took (inbox/turn-NNN/SSS-ACCOUNT.receipt.txt) as text/plain
                              attachments; written in the staging folder, so committed (and rolled back)
                              with the turn

A mail file is the same bytes for the same turn: no Date (send adds it), boundaries and a Message-ID
derived from the game, the turn, the account and a hash of the content. So a turn rolled back and run
again unchanged writes the mail `rulesdsl send` already sent (known by its Message-ID, never sent twice),
and a turn run again after a fix writes a new one. Every player who gets a report gets the file, with
a To only when the state has an address: `send` addresses each mail to the player's address at the time
it sends (game/send.py), so one set later (`rulesdsl gm GAMEDIR email`) still gets it.

game.yaml may name the GM's address, `gm_email: ADDRESS` (`rulesdsl new --from ADDRESS` writes it): the
mails' From.
"""

from __future__ import annotations

import binascii
import hashlib
import re
from email import policy
from email.errors import HeaderParseError
from email.header import Header
from email.headerregistry import Address
from email.message import Message
from email.utils import formataddr, parseaddr
from pathlib import Path

from rulesdsl.game.disk import Staging
from rulesdsl.game.errors import GameError
from rulesdsl.game.inbox import FILED, inbox_dir, read_index
from rulesdsl.game.names import report_base
from rulesdsl.game.yamlio import YamlRefused, load_text
from rulesdsl.runtime.core import PlayerBase
from rulesdsl.runtime.engine import Game

MAIL = "mail"
ACCOUNT_HEADER = "X-Rulesdsl-Account"
GM_EMAIL = "gm_email"


def usable(address: str) -> str | None:
    """The address itself (`name@domain`) when `address` is one a mail can go to, else None."""
    address = address.strip()
    if not address or any(c in address for c in "\r\n"):
        return None
    _, spec = parseaddr(address)
    try:
        parsed = Address(addr_spec=spec)
    except (ValueError, HeaderParseError, IndexError, TypeError):
        return None
    if not parsed.username or "." not in parsed.domain:
        return None
    return parsed.addr_spec


def gm_address(root: Path) -> str | None:
    """game.yaml's `gm_email`, checked; None when it names none."""
    try:
        meta = load_text((root / "game.yaml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, YamlRefused, ValueError) as e:
        raise GameError(f"game.yaml: cannot read: {e}") from None
    value = meta.get(GM_EMAIL) if isinstance(meta, dict) else None
    if value is None:
        return None
    if not isinstance(value, str) or usable(value) is None:
        raise GameError(f"game.yaml: $.{GM_EMAIL}: {value!r} is not an e-mail address (name@example.org, "
                        "or \"GM Name <name@example.org>\")")
    return value.strip()


def _encoded(text: str) -> tuple[str, str]:
    """(transfer encoding, body) of a text part. ASCII text with lines a server takes goes as it is, so the
    file reads as the report does, unless it holds `=_`, with which every boundary starts; any other text
    is quoted-printable (binascii's, in C: the email package's own is some 50 times slower on a page)."""
    if text.isascii() and "=_" not in text and all(len(line) <= 998 for line in text.split("\n")):
        return "7bit", text
    return "quoted-printable", binascii.b2a_qp(text.encode("utf-8"), istext=True).decode("ascii")


def _part(text: str, subtype: str, filename: str | None = None) -> Message:
    part = Message()
    cte, body = _encoded(text)
    part["Content-Type"] = f'text/{subtype}; charset="utf-8"'
    part["Content-Transfer-Encoding"] = cte
    if filename is not None:
        part["Content-Disposition"] = f'attachment; filename="{filename}"'
    part.set_payload(body)
    return part


def _multipart(msg: Message, subtype: str, boundary: str, parts: list[Message]) -> Message:
    # A boundary starts `=_`: no part holds that (quoted-printable writes `=` as `=3D`; see _encoded).
    msg["Content-Type"] = f'multipart/{subtype}; boundary="{boundary}"'
    for part in parts:
        msg.attach(part)
    return msg


def _header(text: str) -> str:
    return text if text.isascii() else Header(text, "utf-8").encode()


def _mailbox(name: str, address: str) -> str:
    return formataddr((name, address), charset="utf-8")


def report_mail(game: Game, player: PlayerBase, text: str, page: str, receipts: list[tuple[str, str]],
                sender: str | None) -> bytes:
    """The mail of one player's report: `text` and its `page` as alternatives, then each (file name, text)
    of `receipts` attached; addressed to the player's address in the state, if usable."""
    title = f"{game.meta.get('name', game.spec.title)} {game.meta.get('id', '')}".strip()
    subject = f"{title}: {game.spec.turn_unit} {game.turn} report"
    spec = usable(player.email)
    to = _mailbox(player.name, spec) if spec is not None else ""
    digest = hashlib.sha256()
    for piece in (str(game.meta.get("id", "")), str(game.turn), player.account, sender or "", to, subject, text,
                  page, *(x for pair in receipts for x in pair)):
        data = piece.encode("utf-8")
        digest.update(len(data).to_bytes(8, "big") + data)
    h = digest.hexdigest()
    # The email package's older Message takes headers as written (encoded here when not ASCII): EmailMessage
    # parses each header set, five times the cost, 0.2 s of a 100-player turn.
    msg = Message()
    if sender:
        msg["From"] = _mailbox(*parseaddr(sender))
    if to:
        msg["To"] = to
    msg["Subject"] = _header(subject)
    game_part = re.sub(r"[^A-Za-z0-9-]+", "-", str(game.meta.get("id", ""))).strip("-") or "game"
    msg["Message-ID"] = f"<{game_part}.{game.turn}.{player.account}.{h[:24]}@{sender_domain(sender)}>"
    msg[ACCOUNT_HEADER] = player.account
    # Vacation responders answer no mail that says it was sent by a program (RFC 3834).
    msg["Auto-Submitted"] = "auto-generated"
    msg["MIME-Version"] = "1.0"
    alternatives = [_part(text, "plain"), _part(page, "html")]
    if receipts:
        body = _multipart(Message(), "alternative", f"=_alt_{h[:32]}", alternatives)
        _multipart(msg, "mixed", f"=_mix_{h[:32]}", [body, *(_part(t, "plain", name) for name, t in receipts)])
    else:
        _multipart(msg, "alternative", f"=_alt_{h[:32]}", alternatives)
    return msg.as_bytes(policy=policy.compat32)


def sender_domain(sender: str | None) -> str:
    spec = usable(sender or "")
    return spec.rpartition("@")[2] if spec else "rulesdsl.invalid"


def receipts_taken(root: Path, turn: int) -> dict[str, list[tuple[str, str]]]:
    """account -> (file name, text) of each receipt of the mail intake filed for `turn` that the turn takes
    (a mail a later one replaced is not taken), in the order received."""
    folder = inbox_dir(root, turn)
    out: dict[str, list[tuple[str, str]]] = {}
    for entry in read_index(folder):
        if entry.status != FILED:
            continue
        name = entry.file.removesuffix(".txt") + ".receipt.txt"
        try:
            text = (folder / name).read_text(encoding="utf-8")
        except FileNotFoundError:
            continue  # filed by hand, or by a GM: no receipt was written
        except (OSError, UnicodeDecodeError) as e:
            raise GameError(f"{folder / name}: cannot read the receipt: {e}") from None
        out.setdefault(entry.account, []).append((name, text))
    return out


class Mailer:
    """Each player's report mail into `under`mail/ of the staging folder, given the report's text and page as
    folder.write_reports makes them (so they are not read back). `root` is the game folder (its game.yaml and
    inbox); with `receipts`, the turn ran from the orders intake filed, whose receipts go with the mails."""

    def __init__(self, root: Path, game: Game, staging: Staging, under: str = "", receipts: bool = False) -> None:
        try:
            self.sender = gm_address(root)
        except GameError as e:
            raise GameError(f"{e}; the mails could not be written, and nothing was done") from None
        self.game = game
        self.staging = staging
        self.folder = f"{under}{MAIL}"
        self.taken = receipts_taken(root, game.turn) if receipts else {}
        staging.mkdir(self.folder)

    def write(self, player: PlayerBase, text: str, page: str) -> None:
        data = report_mail(self.game, player, text, page, self.taken.get(player.account, []), self.sender)
        self.staging.write(f"{self.folder}/{report_base(player.account, player.name)}.eml", data)
