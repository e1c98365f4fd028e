"""rulesdsl send against a real SMTP server on loopback (aiosmtpd, in this process): every mail once, to the
player's current address, with Date and From; a failing server stops it and the next send sends the rest;
STARTTLS and a login with a wrong and a right password."""

from __future__ import annotations

import mailbox
import shutil
import socket
import ssl
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from rulesdsl.cli import main
from rulesdsl.game import store
from rulesdsl.game.folder import GameFolder
from rulesdsl.game.send import Server, send
from tests.unit.rulestools import COVERT, ROOT

SCENARIO = ROOT / "examples" / "covert" / "scenario.yaml"
DAY1 = sorted((ROOT / "examples" / "covert" / "day1").glob("*.txt"))
GM = "Covert GM <gm@example.org>"


@dataclass
class Got:
    sender: str
    to: list[str]
    msg: EmailMessage


@dataclass
class Handler:
    got: list[Got] = field(default_factory=list)
    refuse_once: set[str] = field(default_factory=set)

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:
        if address in self.refuse_once:
            self.refuse_once.discard(address)
            return "550 5.1.1 mailbox unavailable"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        wire: bytes = envelope.original_content
        assert wire.count(b"\n") == wire.count(b"\r\n"), "on the wire every line ends CRLF"
        # As a mail store keeps it: with the machine's line ends.
        msg = BytesParser(policy=policy.default).parsebytes(wire.replace(b"\r\n", b"\n"))
        assert isinstance(msg, EmailMessage)
        self.got.append(Got(envelope.mail_from, list(envelope.rcpt_tos), msg))
        return "250 Message accepted"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def smtp() -> Iterator[tuple[Handler, Server]]:
    handler = Handler()
    controller = Controller(handler, hostname="127.0.0.1", port=_port())
    controller.start()
    try:
        yield handler, Server("127.0.0.1", controller.port, timeout=5)
    finally:
        controller.stop()


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("send")
    GameFolder.create(COVERT, base / "game", SCENARIO, None, gm_email=GM)
    return base / "game"


def _game(started: Path, tmp_path: Path) -> Path:
    game = tmp_path / "game"
    shutil.copytree(started, game)
    return game


def _intake_and_turn(game: Path, tmp_path: Path) -> None:
    """Two mails through intake (one accepted, one refused), then turn 1 from the filed orders."""
    from rulesdsl.game.intake import intake

    box = mailbox.Maildir(tmp_path / "mail")
    for i, (sender, body) in enumerate([("Spectre <spectre@example.org>", "CO-175\n20408\nALPHA789\nB,NAF,5\n"),
                                        ("mallory@example.org", "CO-175\n20408\nWRONG\nB,NAF,5\n")]):
        mail = EmailMessage()
        mail["From"], mail["Subject"], mail["Message-ID"] = sender, "orders", f"<in{i}@example.org>"
        mail.set_content(body)
        box.add(mail.as_bytes())
    intake(game, [tmp_path / "mail"])
    GameFolder(game).process_turn(None, force=True)


def test_send_delivers_each_mail_once_with_its_parts(started: Path, tmp_path: Path,
                                                     smtp: tuple[Handler, Server]) -> None:
    handler, server = smtp
    game = _game(started, tmp_path)
    _intake_and_turn(game, tmp_path)
    result = send(game, server)
    assert result.failure is None and result.waiting == []
    # Turn 0's six reports, intake's two replies for turn 1, then turn 1's six reports.
    assert [g.msg["Subject"] for g in handler.got][5:10] == [
        "Demo game CO-175: day 0 report", "Re: orders", "Re: orders", "Demo game CO-175: day 1 report",
        "Demo game CO-175: day 1 report"]
    assert len(handler.got) == 14
    assert {g.sender for g in handler.got} == {"gm@example.org"}
    day1 = [g for g in handler.got if g.msg["Subject"] == "Demo game CO-175: day 1 report"]
    spectre = next(g for g in day1 if g.to == ["spectre@example.org"])
    assert spectre.msg["To"] == "Spectre <spectre@example.org>" and spectre.msg["From"] == GM
    assert spectre.msg["Date"] is not None
    eml = game / "turns" / "turn-001" / "mail" / "20408-spectre.eml"
    assert spectre.msg["Message-ID"] == BytesParser(policy=policy.default).parsebytes(eml.read_bytes())["Message-ID"]
    plain, html = spectre.msg.get_body(("plain",)), spectre.msg.get_body(("html",))
    assert plain is not None and html is not None
    assert plain.get_content() == (game / "turns" / "turn-001" / "reports" / "20408-spectre.txt").read_text()
    assert html.get_content() == (game / "turns" / "turn-001" / "reports" / "20408-spectre.html").read_text()
    receipts = [p.get_content() for p in spectre.msg.iter_attachments()]
    assert len(receipts) == 1 and receipts[0].startswith("Receipt: your orders for Covert Operations CO-175")
    replies = {g.to[0]: g.msg for g in handler.got if g.msg["Subject"] == "Re: orders"}
    assert set(replies) == {"spectre@example.org", "mallory@example.org"}
    assert replies["mallory@example.org"]["From"] == GM and replies["mallory@example.org"]["Date"] is not None
    assert replies["mallory@example.org"]["Auto-Submitted"] == "auto-replied"
    assert spectre.msg["Auto-Submitted"] == "auto-generated"
    # The record: one line per mail, the Message-ID first.
    lines = (game / "sent.tsv").read_text().splitlines()
    assert len(lines) == 14 and lines[8].split("\t")[1:] == ["turns/turn-001/mail/1001-the-illuminati.eml",
                                                             "eye@example.org"]
    # Sent twice: nothing the second time.
    again = send(game, server)
    assert (len(again.sent), again.already, len(handler.got)) == (0, 14, 14)


def test_a_refused_recipient_stops_it_and_the_next_send_sends_the_rest(
        started: Path, tmp_path: Path, smtp: tuple[Handler, Server], capsys: pytest.CaptureFixture[str]) -> None:
    handler, server = smtp
    game = _game(started, tmp_path)
    GameFolder(game).process_turn(DAY1)
    handler.refuse_once.add("ink@example.org")  # Octopus: the fifth mail of turn 0
    code = main(["send", str(game), "--smtp", f"127.0.0.1:{server.port}"])
    out, err = capsys.readouterr()
    assert code == 2
    assert "4 mail(s) sent" in out
    assert ("error: the server refused the recipient of turns/turn-000/mail/4321-octopus-holdings.eml "
            f"(ink@example.org: 550 5.1.1 mailbox unavailable); `rulesdsl gm {game} email ACCOUNT ADDRESS` "
            "corrects a player's address. 4 mail(s) were sent") in err
    assert "8 mail(s) were not: turns/turn-000/mail/4321-octopus-holdings.eml, " in err
    assert err.endswith("Run `rulesdsl send` again to send them\n")
    assert len(handler.got) == 4
    assert main(["send", str(game), "--smtp", f"127.0.0.1:{server.port}"]) == 0
    assert "8 mail(s) sent, 4 sent before" in capsys.readouterr().out
    ids = [g.msg["Message-ID"] for g in handler.got]
    assert len(ids) == 12 and len(set(ids)) == 12


def test_a_lost_connection_stops_it_and_says_what_was_sent(started: Path, tmp_path: Path,
                                                            smtp: tuple[Handler, Server]) -> None:
    handler, server = smtp
    game = _game(started, tmp_path)
    result = send(game, Server("127.0.0.1", _port(), timeout=5))
    assert result.failure is not None and result.failure.startswith("cannot connect to the SMTP server 127.0.0.1:")
    assert result.sent == [] and len(result.not_sent) == 6 and not (game / "sent.tsv").exists()
    assert send(game, server).failure is None and len(handler.got) == 6


def test_gm_email_after_the_turn_readdresses_the_unsent_mail(started: Path, tmp_path: Path,
                                                              smtp: tuple[Handler, Server]) -> None:
    handler, server = smtp
    game = _game(started, tmp_path)
    assert send(game, server).failure is None
    GameFolder(game).process_turn(DAY1)
    store.gm_action(game, "email", "20408", email="new-spectre@example.org")
    store.gm_action(game, "email", "1001", email="")
    result = send(game, server)
    assert result.failure is None and result.already == 6
    spectre = next(m for m in result.sent if m.rel.endswith("20408-spectre.eml"))
    assert spectre.to == ["new-spectre@example.org"]
    assert spectre.note == "re-addressed: the mail names spectre@example.org"
    assert [g.msg["To"] for g in handler.got if g.to == ["new-spectre@example.org"]] == \
        ["Spectre <new-spectre@example.org>"]
    assert result.waiting == [("turns/turn-001/mail/1001-the-illuminati.eml",
                               "1001 (The Illuminati) has no e-mail address")]
    assert result.no_address == ["1001 (The Illuminati)"]
    assert "\tturns/turn-001/mail/20408-spectre.eml\tnew-spectre@example.org" in (game / "sent.tsv").read_text()
    # Given an address, the waiting mail goes, and only it.
    store.gm_action(game, "email", "1001", email="eye2@example.org")
    later = send(game, server)
    assert [(m.rel, m.to) for m in later.sent] == [("turns/turn-001/mail/1001-the-illuminati.eml",
                                                    ["eye2@example.org"])]


def test_a_rollback_and_the_same_turn_again_send_nothing_new(started: Path, tmp_path: Path,
                                                              smtp: tuple[Handler, Server]) -> None:
    handler, server = smtp
    game = _game(started, tmp_path)
    inbox = game / "inbox" / "turn-001"
    inbox.mkdir(parents=True)
    for f in DAY1:
        shutil.copy(f, inbox / f.name)
    GameFolder(game).process_turn(None)
    assert len(send(game, server).sent) == 12
    store.rollback(game)
    GameFolder(game).process_turn(None)
    assert send(game, server).sent == [] and len(handler.got) == 12
    # Run again after a change: Spectre's report is another, and goes; the others are the same.
    store.rollback(game)
    (inbox / "spectre.txt").write_text((inbox / "spectre.txt").read_text() + "B,SAF,1\n")
    GameFolder(game).process_turn(None)
    assert [m.rel for m in send(game, server).sent] == ["turns/turn-001/mail/20408-spectre.eml"]


def test_no_from_is_refused_before_anything_is_sent(tmp_path: Path, smtp: tuple[Handler, Server],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    handler, server = smtp
    GameFolder.create(COVERT, tmp_path / "game", SCENARIO, None)
    assert main(["send", str(tmp_path / "game"), "--smtp", f"127.0.0.1:{server.port}"]) == 2
    assert "6 mail(s) wait to be sent, but no one to send them from: give --from ADDRESS" in capsys.readouterr().err
    assert main(["send", str(tmp_path / "game"), "--dry-run", "--from", "gm@example.org"]) == 0
    out = capsys.readouterr().out
    assert "a dry run; 6 mail(s) would be sent from gm@example.org" in out
    assert "  turns/turn-000/mail/20408-spectre.eml  to spectre@example.org" in out
    assert handler.got == [] and not (tmp_path / "game" / "sent.tsv").exists()
    assert main(["send", str(tmp_path / "game"), "--smtp", f"127.0.0.1:{server.port}", "--from", GM]) == 0
    assert len(handler.got) == 6 and handler.got[0].msg["From"] == GM


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1, made by the openssl command."""
    base = tmp_path_factory.mktemp("tls")
    cert, key = base / "cert.pem", base / "key.pem"
    if shutil.which("openssl") is None:
        pytest.fail("the openssl command is needed to make the test server's certificate")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    return cert, key


@pytest.mark.parametrize("mechanism", ["LOGIN", "PLAIN"])
def test_starttls_and_a_login_with_a_wrong_then_the_right_password(
        started: Path, tmp_path: Path, certificate: tuple[Path, Path], mechanism: str,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    cert, key = certificate
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    tried: list[tuple[str, str]] = []

    def authenticator(server: Any, session: Any, envelope: Any, used: str, data: Any) -> AuthResult:
        assert isinstance(data, LoginPassword)
        tried.append((used, data.password.decode()))
        ok = data.login == b"gm" and data.password == b"s3cret pass"
        return AuthResult(success=ok, handled=False)  # not handled: the server answers 535 itself

    handler = Handler()
    controller = Controller(handler, hostname="127.0.0.1", port=_port(), tls_context=context, require_starttls=True,
                            authenticator=authenticator, auth_require_tls=True,
                            auth_exclude_mechanism=[["LOGIN", "PLAIN"][mechanism == "LOGIN"]])
    controller.start()
    try:
        game = _game(started, tmp_path)
        where = f"127.0.0.1:{controller.port}"
        wrong, right = tmp_path / "wrong", tmp_path / "right"
        wrong.write_text("guess\n")
        right.write_text("s3cret pass\n")
        args = ["send", str(game), "--smtp", where, "--starttls", "--user", "gm"]
        # The certificate is not one the system trusts: refused, until --cafile names it.
        assert main([*args, "--password-file", str(right)]) == 2
        assert "its certificate is not trusted" in capsys.readouterr().err
        assert main([*args, "--password-file", str(wrong), "--cafile", str(cert)]) == 2
        err = capsys.readouterr().err
        assert f"the SMTP server {where} refused the login of gm (535 5.7.8 Authentication credentials invalid)" in err
        assert ". nothing was sent; 6 mail(s) were not: turns/turn-000/mail/1001-the-illuminati.eml, " in err
        assert handler.got == []
        monkeypatch.setenv("RULESDSL_SMTP_PASSWORD", "s3cret pass")
        assert main([*args, "--cafile", str(cert)]) == 0
        assert len(handler.got) == 6
        assert tried == [(mechanism, "guess"), (mechanism, "s3cret pass")]
        # A password is never sent in the clear.
        assert main(["send", str(game), "--smtp", where, "--user", "gm"]) == 2
        assert "give --starttls" in capsys.readouterr().err
    finally:
        controller.stop()


def test_send_holds_the_lock_and_a_torn_record_line_still_counts(started: Path, tmp_path: Path,
                                                                   smtp: tuple[Handler, Server]) -> None:
    from rulesdsl.game.disk import LOCK_NAME, GameLock, Wait
    from rulesdsl.game.folder import GameError

    handler, server = smtp
    game = _game(started, tmp_path)
    with GameLock(game / LOCK_NAME), pytest.raises(GameError, match="holds this lock; nothing was done"):
        send(game, server)
    told: list[str] = []
    with GameLock(game / LOCK_NAME), pytest.raises(GameError, match=r"still holds this lock after 0\.1 s of waiting"):
        send(game, server, wait=Wait(0.1, told.append))
    assert len(told) == 1 and "waiting up to 0.1 s" in told[0]
    assert handler.got == []
    # A crash mid-append left a line without its end: its Message-ID was written whole, so that mail is sent.
    eml = game / "turns" / "turn-000" / "mail" / "1001-the-illuminati.eml"
    ident = BytesParser(policy=policy.default).parsebytes(eml.read_bytes())["Message-ID"]
    (game / "sent.tsv").write_text(f"{ident}\tturns/turn-000/mail/1001-th")
    result = send(game, server)
    assert (result.already, len(result.sent)) == (1, 5)
    lines = (game / "sent.tsv").read_text().split("\n")
    assert lines[0] == f"{ident}\tturns/turn-000/mail/1001-th" and lines[1].split("\t")[1:] == [
        "turns/turn-000/mail/13579-hydra-trading-company.eml", "hydra@example.org"]


def test_a_reply_a_killed_intake_left_unrecorded_is_not_sent(started: Path, tmp_path: Path,
                                                             smtp: tuple[Handler, Server]) -> None:
    """A reply written before its mail's record line (an intake killed between the two) answers a mail filed
    nowhere: the next intake removes it and files the mail again. Sent meanwhile, the player would hear of
    orders that no turn will read."""
    handler, server = smtp
    game = _game(started, tmp_path)
    _intake_and_turn(game, tmp_path)
    outbox = game / "outbox"
    kept = sorted(outbox.glob("turn-001-*.eml"))[0]
    stray = outbox / "turn-001-009-receipt.eml"
    stray.write_bytes(kept.read_bytes().replace(b"Message-ID: <", b"Message-ID: <stray-"))
    result = send(game, server)
    assert result.failure is None
    assert len(handler.got) == 14
    assert "outbox/turn-001-009-receipt.eml" not in (game / "sent.tsv").read_text()
