"""rulesdsl intake: realistic mails in a Maildir -> orders filed for the coming turn, receipts and replies;
the turn run from the filed orders is the turn run from the same files given by name."""

from __future__ import annotations

import mailbox
import shutil
from email import policy
from email.message import EmailMessage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.parser import BytesParser
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from rulesdsl.cli import main
from rulesdsl.game.folder import GameError, GameFolder
from rulesdsl.game.inbox import filed_orders, inbox_dir, read_index
from rulesdsl.game.intake import body_text, intake

ROOT = Path(__file__).resolve().parents[2]
COVERT = ROOT / "rulesets" / "covert.rules"
NUKECARDS = ROOT / "rulesets" / "nukecards.rules"


def _plain(sender: str, subject: str, body: str, mid: str | None, charset: str = "utf-8",
           cte: str | None = None) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "gm@example.org"
    msg["Subject"] = subject
    if mid:
        msg["Message-ID"] = mid
    msg.set_content(body, charset=charset, cte=cte)
    return msg.as_bytes()


def _alternative(sender: str, body: str, html: str, mid: str) -> bytes:
    msg = MIMEMultipart("alternative")
    msg["From"] = sender
    msg["Subject"] = "orders"
    msg["Message-ID"] = mid
    msg.attach(MIMEText(body, "plain", "utf-8"))
    msg.attach(MIMEText(html, "html", "utf-8"))
    return msg.as_bytes()


def _html_only(sender: str, html: str, mid: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["Subject"] = "my orders"
    msg["Message-ID"] = mid
    msg.set_content(html, subtype="html", cte="quoted-printable")
    return msg.as_bytes()


def _covert_mails() -> list[bytes]:
    return [
        # multipart/alternative, chatter before the header, a signature after the orders
        _alternative("Hydra <hydra@example.org>",
                     "Hi GM, here are mine.\n\nCO-175\n13579\nHEADS2\nB,SAF,9\nB,EAF,6\nZ,SAF,3\nB,XYZ,4\n"
                     "-- \nHydra Trading\nB,SAF,99\n",
                     "<p>Hi GM</p><p>CO-175<br>13579<br>HEADS2<br>B,SAF,9</p>", "<h1@example.org>"),
        # HTML only, quoted-printable, a report quoted back in a blockquote
        _html_only("spectre@example.org",
                   "<html><body><div>CO-175</div><div>20408</div><div>ALPHA789</div><div>B,NAF,5</div>"
                   "<blockquote>CO-175 day 0 report<br>B,XXX,1</blockquote></body></html>", "<s1@example.org>"),
        # latin-1, quoted-printable, a forwarded report quoted back with '>'
        _plain("Octopus <ink@example.org>", "Re: your report",
               "CO-175\n4321\nINK8\nB,SAF,2\n\n> Covert Operations: report of day 0 for Octopus Holdings\n"
               "> B,SAF,50\nMerci, \u00e0 bient\u00f4t\n", "<o1@example.org>", charset="latin-1",
               cte="quoted-printable"),
        # a wrong access code
        _plain("mallory@example.org", "orders", "CO-175\n9999\nNOTBIRD\nB,SAF,9\n", "<m1@example.org>"),
        # the first mail again (the same Message-ID)
        _alternative("Hydra <hydra@example.org>", "CO-175\n13579\nHEADS2\nB,SAF,9\n", "<p>x</p>",
                     "<h1@example.org>"),
        # a mail for another game
        _plain("other@example.org", "orders", "CO-176\n2468\nQ42\nB,SAF,1\n", "<x1@example.org>"),
        # no Message-ID: known by its bytes; a later mail of Hydra that replaces the first
        _plain("hydra@example.org", "orders again", "CO-175\n13579\nHEADS2\nB,SAF,8\nEMAIL,new@example.org\n",
               None),
    ]


def _maildir(path: Path, mails: list[bytes]) -> Path:
    box = mailbox.Maildir(path, create=True)
    for i, raw in enumerate(mails):
        msg = mailbox.MaildirMessage(raw)
        key = box.add(msg)
        # Maildir names hold the time and a random part: named here in order, so the test reads them in order.
        box.lock()
        src = Path(path) / "new" / key
        src.rename(Path(path) / "new" / f"{i:04d}.mail")
        box.unlock()
    box.close()
    return path


def _game(tmp_path: Path, rules: Path, name: str = "game") -> Path:
    scen = ROOT / "examples" / rules.stem / "scenario.yaml"
    GameFolder.create(rules, tmp_path / name, scen, None)
    return tmp_path / name


def test_html_text_keeps_blocks_and_drops_quotes() -> None:
    msg = EmailMessage()
    msg.set_content("<div>A</div><div>B&amp;C<br>D</div><blockquote>E</blockquote><style>x</style>",
                    subtype="html")
    assert [x for x in body_text(msg).split("\n") if x] == ["A", "B&C", "D"]


def test_intake_files_receipts_and_replies(tmp_path: Path, snapshot: SnapshotAssertion) -> None:
    game = _game(tmp_path, COVERT)
    mails = _covert_mails()  # once: a multipart mail's boundary is drawn at random
    box = _maildir(tmp_path / "Maildir", mails)
    result = intake(game, [box])
    assert result.turn == 1
    assert result.duplicates == 1
    assert [a for a, _ in result.filed] == ["13579", "20408", "4321", "13579"]
    assert len(result.refused) == 1 and "access code" in result.refused[0]
    assert len(result.other_game) == 1 and "CO-176" in result.other_game[0]
    folder = inbox_dir(game, 1)
    # The later mail of Hydra replaced the first: the turn reads Spectre, Octopus, Hydra's second.
    assert [p.name for p in filed_orders(game, 1)] == ["002-20408.txt", "003-4321.txt", "006-13579.txt"]
    assert [e.status for e in read_index(folder)] == ["replaced", "filed", "filed", "refused", "other-game",
                                                      "filed"]
    first = (folder / "001-13579.txt").read_text(encoding="utf-8")
    assert first == "CO-175\n13579\nHEADS2\nB,SAF,9\nB,EAF,6\nZ,SAF,3\nB,XYZ,4\n"
    assert (folder / "002-20408.txt").read_text(encoding="utf-8") == "CO-175\n20408\nALPHA789\nB,NAF,5\n"
    assert (folder / "003-4321.txt").read_text(encoding="utf-8") == "CO-175\n4321\nINK8\nB,SAF,2\nMerci, " \
        "\u00e0 bient\u00f4t\n"
    receipt = (folder / "001-13579.receipt.txt").read_text(encoding="utf-8")
    assert "HEADS2" not in receipt
    assert receipt == snapshot
    # The raw mail is kept byte for byte.
    assert (folder / "001-13579.eml").read_bytes() == mails[0]
    # The refused mail's reply says nothing about the game.
    refused = (game / "outbox" / "turn-001-004-refused.eml").read_text(encoding="utf-8")
    assert "To: mallory@example.org" in refused
    for secret in ("CO-175", "9999", "Thrush", "BIRD9", "Covert"):
        assert secret not in refused
    assert sorted(p.name for p in (game / "outbox").iterdir()) == [
        "turn-001-001-receipt.eml", "turn-001-002-receipt.eml", "turn-001-003-receipt.eml",
        "turn-001-004-refused.eml", "turn-001-006-receipt.eml"]
    # Read again: nothing new.
    again = intake(game, [box])
    assert (again.duplicates, again.filed, again.refused) == (7, [], [])
    octopus = (folder / "003-4321.receipt.txt").read_text(encoding="utf-8")
    assert "Merci" in octopus and "refused" in octopus


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(("rules", "refused"), [(COVERT, 1), (NUKECARDS, 0)], ids=["covert", "nukecards"])
def test_turn_from_filed_orders_equals_turn_from_files(tmp_path: Path, rules: Path, refused: int) -> None:
    first = ROOT / "examples" / rules.stem / ("day1" if rules == COVERT else "round1")
    mails = [_plain(f"p{i}@example.org", "orders", f.read_text(encoding="utf-8"), f"<{i}@example.org>")
             for i, f in enumerate(sorted(first.iterdir()))]
    a = _game(tmp_path, rules, "a")
    result = intake(a, [_maildir(tmp_path / "Maildir", mails)])
    # Covert's day 1 holds a wrong access code: answered at intake, and never given to the turn.
    assert len(result.refused) == refused
    files = filed_orders(a, 1)
    assert len(files) == len(mails) - refused
    b = _game(tmp_path, rules, "b")
    given = tmp_path / "given"
    given.mkdir()
    for f in files:
        shutil.copy(f, given / f.name)
    assert main(["turn", str(a)]) == 0
    assert main(["turn", str(b), *[str(given / f.name) for f in files]]) == 0
    ta, tb = _tree(a / "turns" / "turn-001"), _tree(b / "turns" / "turn-001")
    # Only the report mails differ: a turn from intake's filed mail sends each player its receipts too.
    assert ta.keys() == tb.keys()
    assert {k: v for k, v in ta.items() if not k.startswith("mail/")} == \
        {k: v for k, v in tb.items() if not k.startswith("mail/")}
    # The filed orders stay with the turn they were for; the next intake files for the next turn.
    assert filed_orders(a, 1) == files
    assert intake(a, []).turn == 2


def test_intake_waits_for_no_turn(tmp_path: Path) -> None:
    from rulesdsl.game.disk import LOCK_NAME, GameLock

    game = _game(tmp_path, COVERT)
    with GameLock(game / LOCK_NAME), pytest.raises(GameError, match="holds this lock"):
        intake(game, [])


def test_later_mail_adds(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    text = COVERT.read_text(encoding="utf-8").replace("  pay from cash\n", "  pay from cash\n  later mail adds\n")
    (rules / "covert.rules").write_text(text, encoding="utf-8")
    shutil.copy(COVERT.with_name("covert.report.j2"), rules)
    shutil.copy(COVERT.with_name("covert.report.html.j2"), rules)
    GameFolder.create(rules / "covert.rules", tmp_path / "game", ROOT / "examples" / "covert" / "scenario.yaml",
                      None)
    game = tmp_path / "game"
    result = intake(game, [_maildir(tmp_path / "Maildir", _covert_mails())])
    assert [p.name for p in filed_orders(game, 1)] == ["001-13579.txt", "002-20408.txt", "003-4321.txt",
                                                       "006-13579.txt"]
    assert "adds to your earlier mail" in result.filed[-1][1].read_text(encoding="utf-8")


def test_mbox_unknown_charset_state_checks_and_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = _game(tmp_path, COVERT)
    odd = _plain("thrush@example.org", "orders", "x", "<t0@example.org>").replace(
        b"x\n", b"CO-175\n9999\nBIRD9\nB,SAF,1\n").replace(b'charset="utf-8"', b'charset="x-no-such"')
    box = mailbox.mbox(tmp_path / "mbox")
    box.add(odd)
    box.add(_plain("thrush@example.org", "more", "CO-175\n9999\nBIRD9\nC,SAF,JPN,3\nCODE,SECRET77\nB,SAF,2 BIRD9\n",
                   "<t1@example.org>"))
    box.close()
    assert main(["intake", str(game), str(tmp_path / "mbox")]) == 0
    out = capsys.readouterr().out
    assert "2 mail(s) filed for day 1, 0 refused" in out
    folder = inbox_dir(game, 1)
    assert (folder / "001-9999.txt").read_text(encoding="utf-8") == "CO-175\n9999\nBIRD9\nB,SAF,1\n"
    receipt = (folder / "002-9999.receipt.txt").read_text(encoding="utf-8")
    # `valid` is asked against the state now; a check failing is told, and the turn asks it again.
    assert "refused as things stand: Japan is not adjacent to South Africa; checked again at the turn" in receipt
    # Neither the access code nor a new one is written back.
    assert "BIRD9" not in receipt and "SECRET77" not in receipt
    assert "line 5: CODE,***" in receipt


def test_intake_refuses_what_is_not_a_mailbox(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = _game(tmp_path, COVERT)
    (tmp_path / "plain").mkdir()
    assert main(["intake", str(game), str(tmp_path / "plain")]) == 2
    assert main(["intake", str(game), str(tmp_path / "nothing")]) == 2
    err = capsys.readouterr().err
    assert "not a Maildir" in err and "no such mailbox" in err


def test_header_found_after_chatter_that_reads_like_its_first_line(tmp_path: Path) -> None:
    game = GameFolder(_game(tmp_path, COVERT)).load_game()
    from rulesdsl.game.intake import submission

    # "CO-1" reads as the first header line, but no account and code follow it: the header is further down.
    text = "CO-1 was fun\nCO-1\nthanks\n\nCO-175\n\n13579\nHEADS2\nB,SAF,9\n"
    assert submission(text, game) == "CO-175\n\n13579\nHEADS2\nB,SAF,9\n"


def test_order_files_given_while_mail_is_filed_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = _game(tmp_path, COVERT)
    intake(game, [_maildir(tmp_path / "Maildir", _covert_mails()[:1])])
    other = ROOT / "examples" / "covert" / "day1" / "spectre.txt"
    assert main(["turn", str(game), str(other)]) == 2
    assert "1 mail(s) filed by `rulesdsl intake` wait for this turn" in capsys.readouterr().err
    assert GameFolder(game).turn_numbers() == [0]
    assert main(["turn", str(game), str(other), "--force"]) == 0
    assert GameFolder(game).turn_numbers() == [0, 1]


def test_pre_keeps_its_lines_and_a_quote_its_introduction(tmp_path: Path) -> None:
    msg = EmailMessage()
    msg.set_content("<p>Hi</p><pre>CO-175\n13579\r\nHEADS2\nB,SAF,9</pre>", subtype="html")
    assert body_text(msg) == "Hi\nCO-175\n13579\nHEADS2\nB,SAF,9"
    game = GameFolder(_game(tmp_path, COVERT)).load_game()
    from rulesdsl.game.intake import submission

    text = "CO-175\n13579\nHEADS2\nB,SAF,9\n\nOn Mon, 23 Nov 2026, GM <gm@example.org> wrote:\n\n> report\n"
    assert submission(text, game) == "CO-175\n13579\nHEADS2\nB,SAF,9\n"


def test_warlord_receipt_tells_a_division_missing_now(tmp_path: Path) -> None:
    movement = ROOT / "tests" / "golden" / "warlord" / "movement"
    GameFolder.create(ROOT / "rulesets" / "warlord.rules", tmp_path / "game", movement / "scenario.yaml", None)
    orders = (movement / "turn-1" / "01-ann.txt").read_text(encoding="utf-8")
    result = intake(tmp_path / "game", [_maildir(tmp_path / "Maildir", [
        _plain("ann@example.org", "orders", f"Hello\n{orders}A 99 3\n", "<a@example.org>")])])
    receipt = result.filed[0][1].read_text(encoding="utf-8")
    assert "A 99 3\n      refused as things stand: you have no division 99; checked again at the turn" in receipt
    assert "A 1 00503\n      accepted; will be checked at the turn" in receipt


def test_intake_is_deterministic(tmp_path: Path) -> None:
    mails = _covert_mails()
    trees = []
    for name in ("a", "b"):
        game = _game(tmp_path, COVERT, name)
        intake(game, [_maildir(tmp_path / f"Maildir-{name}", mails)])
        trees.append({k: v for k, v in _tree(game).items() if k.startswith(("inbox", "outbox"))})
    assert trees[0] == trees[1]
    assert len(trees[0]) == 20


def test_files_a_killed_intake_left_unrecorded_are_never_read_nor_written_over(tmp_path: Path) -> None:
    game = _game(tmp_path, COVERT)
    folder = inbox_dir(game, 1)
    folder.mkdir(parents=True)
    (folder / "001-13579.txt").write_bytes(b"half")
    (folder / f".{'intake.tsv'}.tmp").write_bytes(b"half")
    intake(game, [_maildir(tmp_path / "Maildir", _covert_mails()[1:2])])
    assert [p.name for p in filed_orders(game, 1)] == ["002-20408.txt"]
    assert (folder / "001-13579.txt").read_bytes() == b"half"


def test_html_quote_leaves_out_its_introduction(tmp_path: Path) -> None:
    # Gmail's reply: the "On ... wrote:" line sits in a div of its own above the blockquote; it is not an order.
    msg = EmailMessage()
    msg.set_content('<div dir="ltr"><div>CO-175</div><div>13579</div><div>HEADS2</div><div>B,SAF,9</div></div><br>'
                    '<div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Mon, 9 Nov 2026, GM &lt;<a '
                    'href="mailto:gm@example.org">gm@example.org</a>&gt; wrote:<br></div><blockquote '
                    'class="gmail_quote">report<br>B,SAF,50</blockquote></div><div>Thanks</div>', subtype="html")
    assert body_text(msg) == "CO-175\n13579\nHEADS2\nB,SAF,9\nThanks"


def test_maildir_with_new_alone_is_read(tmp_path: Path) -> None:
    # A Maildir copied without its empty folders (git keeps none) has new/ alone; it is still a Maildir.
    game = _game(tmp_path, COVERT)
    box = _maildir(tmp_path / "Maildir", _covert_mails()[1:3])
    (box / "cur").rmdir()
    (box / "tmp").rmdir()
    result = intake(game, [box])
    assert [a for a, _ in result.filed] == ["20408", "4321"]


def test_format_flowed_is_read_as_written(tmp_path: Path) -> None:
    # Thunderbird wraps a long line with a space before each soft break (RFC 3676): the quote's "On ...
    # wrote:" line, wrapped in two, is left out whole, and a wrapped line of orders is one line again.
    raw = (b"From: eye@example.org\nSubject: Re: report\nMIME-Version: 1.0\n"
           b"Content-Type: text/plain; charset=UTF-8; format=flowed\nContent-Transfer-Encoding: 7bit\n\n"
           b"Hello GM, a long line that the mail client wraps \nat seventy-two characters.\n\nCO-175\n1001\nEYE1776\n"
           b" B,FRA,10\nB,GER,8\n\n-- \nThe Illuminati\n\n"
           b"On 09/11/2026 06:00, The Covert Operations Game Master of the Demo Game \n<gm@example.org> wrote:\n"
           b"> Demo game -- turn \n> result\n")
    msg = BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(msg, EmailMessage)
    assert body_text(msg) == ("Hello GM, a long line that the mail client wraps at seventy-two characters.\n\n"
                              "CO-175\n1001\nEYE1776\nB,FRA,10\nB,GER,8\n\n-- \nThe Illuminati\n\n"
                              "On 09/11/2026 06:00, The Covert Operations Game Master of the Demo Game "
                              "<gm@example.org> wrote:\n> Demo game -- turn result\n")
    game = GameFolder(_game(tmp_path, COVERT)).load_game()
    from rulesdsl.game.intake import submission

    text = body_text(msg).replace("\n-- \nThe Illuminati\n", "")
    assert submission(text, game) == "CO-175\n1001\nEYE1776\nB,FRA,10\nB,GER,8\n"


def test_outlook_reply_without_quote_marks_ends_the_orders(tmp_path: Path) -> None:
    # Outlook quotes the mail it answers below its header block, with no '>': a line of underscores
    # (Outlook on the web) or "From:" then "Sent:" (Outlook for Windows).
    game = GameFolder(_game(tmp_path, COVERT)).load_game()
    from rulesdsl.game.intake import submission

    report = "From: Game Master <gm@example.org>\nSent: Monday, November 9, 2026 6:00 AM\nTo: Hydra\n" \
             "Subject: CO-175 report\n\nDemo game -- turn result\n  Access code: HEADS2\n  B,SAF,9\n"
    orders = "CO-175\n13579\nHEADS2\nB,SAF,4\n"
    assert submission(f"{orders}\n________________________________\n{report}", game) == orders
    assert submission(f"{orders}\n{report}", game) == orders


def test_raw_latin1_subject_is_answered_in_its_words(tmp_path: Path) -> None:
    # An old client writes the subject's accents as raw ISO-8859-1 bytes, the body's charset: the reply's
    # subject keeps them (it was "ge\ufffdndert").
    game = _game(tmp_path, COVERT)
    raw = (b"From: thrush@example.org\r\nSubject: Ordres \xe0 jour\r\nMessage-ID: <l1@example.org>\r\n"
           b"Content-Type: text/plain; charset=iso-8859-1\r\n\r\nCO-175\r\n9999\r\nBIRD9\r\nB,CRU,5\r\n")
    result = intake(game, [_maildir(tmp_path / "Maildir", [raw])])
    reply = BytesParser(policy=policy.default).parsebytes(result.replies[0].read_bytes())
    assert str(reply["Subject"]) == "Re: Ordres \u00e0 jour"


def test_the_record_is_appended_to_and_read_by_its_last_line_for_each_mail(tmp_path: Path) -> None:
    game = _game(tmp_path, COVERT)
    mails = _covert_mails()
    folder = inbox_dir(game, 1)
    intake(game, [_maildir(tmp_path / "first", mails[:3])])
    before = (folder / "intake.tsv").read_bytes()
    intake(game, [_maildir(tmp_path / "rest", mails[3:])])
    after = (folder / "intake.tsv").read_text(encoding="utf-8")
    # What was recorded stays as it was; Hydra's first mail is replaced by a line of its own, before the new one's.
    assert after.encode("utf-8").startswith(before)
    assert [line.split("\t")[:3] for line in after.splitlines()] == [
        ["001", "filed", "13579"], ["002", "filed", "20408"], ["003", "filed", "4321"], ["004", "refused", "-"],
        ["005", "other-game", "-"], ["001", "replaced", "13579"], ["006", "filed", "13579"]]
    assert [(e.seq, e.status) for e in read_index(folder)] == [
        (1, "replaced"), (2, "filed"), (3, "filed"), (4, "refused"), (5, "other-game"), (6, "filed")]
    # A line a crash cut short is no record: never read, and cut off before the next mail's line.
    with (folder / "intake.tsv").open("ab") as f:
        f.write(b"007\tfiled\t20408\t<torn")
    assert [p.name for p in filed_orders(game, 1)] == ["002-20408.txt", "003-4321.txt", "006-13579.txt"]
    late = _plain("spectre@example.org", "more", "CO-175\n20408\nALPHA789\nB,NAF,4\n", "<s2@example.org>")
    intake(game, [_maildir(tmp_path / "late", [late])])
    assert (folder / "intake.tsv").read_text(encoding="utf-8").endswith(
        "002\treplaced\t20408\t<s1@example.org>\t002-20408.txt\n007\tfiled\t20408\t<s2@example.org>\t007-20408.txt\n")
    assert [p.name for p in filed_orders(game, 1)] == ["003-4321.txt", "006-13579.txt", "007-20408.txt"]


def test_what_a_killed_intake_wrote_beside_its_record_is_filed_again_once(tmp_path: Path) -> None:
    mails = _covert_mails()
    whole = _game(tmp_path, COVERT, "whole")
    intake(whole, [_maildir(tmp_path / "all", mails)])
    game = _game(tmp_path, COVERT)
    intake(game, [_maildir(tmp_path / "first", mails[:2])])
    # Killed after writing the third mail's files and reply, before its line: unrecorded, so never read.
    folder = inbox_dir(game, 1)
    for name in ("003-4321.eml", "003-4321.txt", "003-4321.receipt.txt"):
        (folder / name).write_bytes(b"half")
    (game / "outbox" / "turn-001-003-receipt.eml").write_bytes(b"half")
    assert [p.name for p in filed_orders(game, 1)] == ["001-13579.txt", "002-20408.txt"]
    intake(game, [_maildir(tmp_path / "again", mails)])
    # Filed again in its place from the mailbox: one receipt, one reply, as if intake had never been killed.
    assert _tree(game / "inbox") == _tree(whole / "inbox")
    assert _tree(game / "outbox") == _tree(whole / "outbox")


def test_a_killed_intakes_files_are_cleared_after_a_turn_and_its_mail_filed_for_the_next(tmp_path: Path) -> None:
    mails = _covert_mails()
    game = _game(tmp_path, COVERT)
    intake(game, [_maildir(tmp_path / "first", mails[:2])])
    # Killed while filing the third mail; a turn then ran (from the two recorded) before intake ran again.
    folder = inbox_dir(game, 1)
    for name in ("003-4321.eml", "003-4321.txt", "003-4321.receipt.txt"):
        (folder / name).write_bytes(b"half")
    (game / "outbox" / "turn-001-003-receipt.eml").write_bytes(b"half")
    GameFolder(game).process_turn(None, force=True)
    result = intake(game, [_maildir(tmp_path / "again", mails)])
    assert result.turn == 2 and [a for a, _ in result.filed] == ["4321", "13579"]
    # No receipt is left for a mail filed nowhere: Octopus hears of its mail once, for day 2.
    assert sorted(p.name for p in folder.iterdir()) == ["001-13579.eml", "001-13579.receipt.txt", "001-13579.txt",
                                                       "002-20408.eml", "002-20408.receipt.txt", "002-20408.txt",
                                                       "intake.tsv"]
    assert sorted(p.name for p in (game / "outbox").iterdir() if p.name.startswith("turn-001")) == [
        "turn-001-001-receipt.eml", "turn-001-002-receipt.eml"]
