"""A turn's report mails (turns/turn-NNN/mail/*.eml), parsed back: addressed from the state, both alternatives,
the receipts of the mail the turn took, the same bytes for the same turn, and none for a dry run."""

from __future__ import annotations

import mailbox
import shutil
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import pytest

from rulesdsl.cli import main
from rulesdsl.game import store
from rulesdsl.game.folder import GameError, GameFolder
from rulesdsl.game.intake import intake
from rulesdsl.game.outbox import usable
from tests.unit.rulestools import COVERT, ROOT

SCENARIO = ROOT / "examples" / "covert" / "scenario.yaml"
DAY1 = sorted((ROOT / "examples" / "covert" / "day1").glob("*.txt"))


def parse(path: Path) -> EmailMessage:
    msg = BytesParser(policy=policy.default).parsebytes(path.read_bytes())
    assert isinstance(msg, EmailMessage)
    return msg


def alternatives(msg: EmailMessage) -> tuple[str, str]:
    plain, html = msg.get_body(("plain",)), msg.get_body(("html",))
    assert plain is not None and html is not None
    assert plain.get_content_charset() == html.get_content_charset() == "utf-8"
    return plain.get_content(), html.get_content()


def test_covert_mails_are_addressed_from_the_state_with_both_reports(tmp_path: Path) -> None:
    folder = GameFolder.create(COVERT, tmp_path / "game", SCENARIO, None, gm_email="Covert GM <gm@example.org>")
    assert "gm_email: Covert GM <gm@example.org>" in (tmp_path / "game" / "game.yaml").read_text()
    start = sorted(p.name for p in (folder.turns_dir / "turn-000" / "mail").iterdir())
    assert start == [p.stem + ".eml" for p in sorted((folder.turns_dir / "turn-000" / "reports").glob("*.txt"))]
    result = folder.process_turn(DAY1)
    reports = folder.turns_dir / "turn-001" / "reports"
    msg = parse(folder.turns_dir / "turn-001" / "mail" / "20408-spectre.eml")
    assert msg["To"] == "Spectre <spectre@example.org>"
    assert msg["From"] == "Covert GM <gm@example.org>"
    assert msg["Subject"] == "Demo game CO-175: day 1 report"
    assert msg["Date"] is None  # added when sent
    assert msg["Message-ID"].startswith("<CO-175.1.20408.") and msg["Message-ID"].endswith("@example.org>")
    assert msg.get_content_type() == "multipart/alternative"
    text, page = alternatives(msg)
    assert text == (reports / "20408-spectre.txt").read_text(encoding="utf-8")
    assert page == (reports / "20408-spectre.html").read_text(encoding="utf-8")
    # Named files, not intake's: no receipts.
    assert [p.get_filename() for p in msg.iter_attachments()] == []
    assert len(list((folder.turns_dir / "turn-001" / "mail").iterdir())) == len(result.reports)


def test_receipts_of_the_mail_the_turn_took_are_attached(tmp_path: Path) -> None:
    GameFolder.create(COVERT, tmp_path / "game", SCENARIO, None)
    box = mailbox.Maildir(tmp_path / "mail")
    for i, (sender, body) in enumerate([
            ("spectre@example.org", "CO-175\n20408\nALPHA789\nB,NAF,5\n"),
            ("spectre@example.org", "CO-175\n20408\nALPHA789\nB,NAF,6\nB,XXX,1\n"),  # replaces the first
            ("ink@example.org", "CO-175\n4321\nINK8\nB,SAF,2\n")]):
        mail = EmailMessage()
        mail["From"], mail["Subject"], mail["Message-ID"] = sender, "orders", f"<m{i}@example.org>"
        mail.set_content(body)
        box.add(mail.as_bytes())
    intake(tmp_path / "game", [tmp_path / "mail"])
    folder = GameFolder(tmp_path / "game")
    folder.process_turn(None, force=True)
    msg = parse(folder.turns_dir / "turn-001" / "mail" / "20408-spectre.eml")
    assert msg.get_content_type() == "multipart/mixed"
    assert msg["From"] is None  # game.yaml names no GM: send gives one
    text, _ = alternatives(msg)
    assert text.startswith("Demo game -- turn result")
    attached = list(msg.iter_attachments())
    assert [p.get_filename() for p in attached] == ["002-20408.receipt.txt"]
    receipt = attached[0].get_content()
    assert receipt == (tmp_path / "game" / "inbox" / "turn-001" / "002-20408.receipt.txt").read_text()
    assert "B,XXX,1" in receipt and "ALPHA789" not in receipt
    other = parse(folder.turns_dir / "turn-001" / "mail" / "1001-the-illuminati.eml")
    assert list(other.iter_attachments()) == []


def test_nukecards_player_without_an_address_gets_the_file_without_to(tmp_path: Path) -> None:
    scenario = ROOT / "examples" / "nukecards" / "scenario.yaml"
    folder = GameFolder.create(ROOT / "rulesets" / "nukecards.rules", tmp_path / "game", scenario, None,
                               gm_email="gm@example.org")
    store.gm_action(tmp_path / "game", "email", "3", email="Carpathia <c\u00e9sar@example.org>")
    store.gm_action(tmp_path / "game", "drop", "6")
    folder.process_turn(sorted((ROOT / "examples" / "nukecards" / "round1").glob("*.txt")))
    mails = folder.turns_dir / "turn-001" / "mail"
    msg = parse(mails / "1-avalon.eml")
    assert msg["To"] is None and msg["X-Rulesdsl-Account"] == "1"
    assert msg["Subject"] == "Demo nukes NC-42: round 1 report"
    text, page = alternatives(msg)
    assert text == (folder.turns_dir / "turn-001" / "reports" / "1-avalon.txt").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    # An address the schema lets through but no mail can go to is no address.
    assert parse(mails / "3-carpathia.eml")["To"] is None
    # A dropped player gets no report, and no mail.
    assert sorted(p.name for p in mails.iterdir()) == [f"{n}.eml" for n in ("1-avalon", "2-borduria", "3-carpathia",
                                                                          "4-dorne", "5-elbonia")]


def test_a_gm_email_in_game_yaml_that_is_no_address_stops_the_turn(tmp_path: Path) -> None:
    folder = GameFolder.create(COVERT, tmp_path / "game", SCENARIO, None)
    with (tmp_path / "game" / "game.yaml").open("a") as f:
        f.write("gm_email: the gm\n")
    with pytest.raises(GameError, match=r"^game.yaml: \$.gm_email: 'the gm' is not an e-mail address .*; the mails "
                       "could not be written, and nothing was done$"):
        folder.process_turn(DAY1)
    assert folder.turn_numbers() == [0]


def test_warlord_mail_of_a_non_ascii_name_and_a_long_page(tmp_path: Path) -> None:
    scenario = tmp_path / "scenario.yaml"
    text = (ROOT / "tests" / "golden" / "warlord" / "movement" / "scenario.yaml").read_text(encoding="utf-8")
    scenario.write_text(text, encoding="utf-8")
    folder = GameFolder.create(ROOT / "rulesets" / "warlord.rules", tmp_path / "game", scenario, None)
    game = folder.load_game()
    account = game.all_players[0].account
    store.gm_action(tmp_path / "game", "email", account, email="j\u00f6rg@example.org")  # not ASCII: no address
    store.gm_action(tmp_path / "game", "replace", account, name="J\u00f6rg \u00c5str\u00f6m", email="jorg@example.org")
    folder.process_turn(sorted((ROOT / "tests" / "golden" / "warlord" / "movement" / "turn-1").glob("*.txt")),
                        force=True)
    mail = next((folder.turns_dir / "turn-001" / "mail").glob(f"{account}-*.eml"))
    raw = mail.read_bytes()
    assert raw.isascii() and max(len(line) for line in raw.split(b"\n")) <= 998
    msg = parse(mail)
    assert msg["To"] == "J\u00f6rg \u00c5str\u00f6m <jorg@example.org>"
    assert msg["Subject"] == "Warlord WL-11: turn 1 report"
    text, page = alternatives(msg)
    assert "J\u00f6rg" in text and "<svg" in page
    assert page == (folder.turns_dir / "turn-001" / "reports" / (mail.stem + ".html")).read_text(encoding="utf-8")


def test_the_same_turn_writes_the_same_mail_and_a_changed_turn_a_new_message_id(tmp_path: Path) -> None:
    folder = GameFolder.create(COVERT, tmp_path / "game", SCENARIO, None, gm_email="gm@example.org")
    folder.process_turn(DAY1)
    mail = folder.turns_dir / "turn-001" / "mail" / "20408-spectre.eml"
    first = mail.read_bytes()
    store.rollback(tmp_path / "game")
    folder.process_turn(None)
    assert mail.read_bytes() == first
    store.rollback(tmp_path / "game")
    spectre = tmp_path / "game" / "inbox" / "turn-001" / "spectre.txt"
    shutil.copy(next(p for p in DAY1 if p.name == "spectre.txt"), spectre)
    spectre.write_text(spectre.read_text() + "B,SAF,1\n")
    folder.process_turn(None)
    assert parse(mail)["Message-ID"] != BytesParser(policy=policy.default).parsebytes(first)["Message-ID"]


def test_a_dry_run_writes_no_mail(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = GameFolder.create(COVERT, tmp_path / "game", SCENARIO, None)
    result = folder.process_turn(DAY1, dry_run=True)
    try:
        assert (result.folder / "reports").is_dir() and not (result.folder / "mail").exists()
    finally:
        shutil.rmtree(result.folder.parent)
    assert folder.turn_numbers() == [0]


def test_from_must_be_an_address(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert usable("GM <gm@example.org>") == "gm@example.org"
    assert usable("not an address") is None and usable("") is None
    with pytest.raises(GameError, match="'gm at example' is not an e-mail address"):
        GameFolder.create(COVERT, tmp_path / "game", SCENARIO, None, gm_email="gm at example")
    assert not (tmp_path / "game").exists()
    assert main(["new", str(COVERT), str(tmp_path / "g2"), "--scenario", str(SCENARIO), "--from", "x"]) == 2
    assert "'x' is not an e-mail address" in capsys.readouterr().err
