"""Maildirs of mail as players' clients send it (tests/mailgame/GAME/weekN, made by make_mailboxes.py) -> the
bundled demos run for several weeks by the GM's commands alone: `rulesdsl intake`, `status`, `turn` with no
files, `rollback` and the turn again; the receipts, replies, status and the last week's reports as golden
outputs, and each turn's reports checked against the same orders given as the demo's order files."""

from __future__ import annotations

import re
import shutil
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import getaddresses
from pathlib import Path
from typing import Any

import pytest
import yaml
from aiosmtpd.controller import Controller
from syrupy.assertion import SnapshotAssertion

from rulesdsl.cli import main
from rulesdsl.game.inbox import filed_orders, inbox_dir

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


@dataclass
class Week:
    """What the GM should see of one week's mail."""

    filed: list[str]  # the accounts whose submissions the turn reads, in the order received
    mail_out: dict[str, list[str]]  # address -> the replies it is sent ("receipt", "refused"), in order
    refused: int = 0
    other_game: int = 0
    duplicates: int = 0  # mail read before (this week's twice delivered, and every earlier week's again)
    # Accounts whose filed submission is not the demo's order file: a sign-off below the orders with no
    # "-- " before it, which the receipt and the report show refused. Their reports differ from the files'.
    extra_lines: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class Demo:
    rules: str
    folder: str  # examples/FOLDER: scenario.yaml and the order files of each turn
    stem: str  # examples/FOLDER/STEMn: the order files of turn n
    weeks: list[Week]


SPECTRE, EYE, INK, THRUSH = "spectre@example.org", "eye@example.org", "ink@example.org", "thrush@example.org"
HYDRA, QUANTUM = "hydra@example.org", "quantum@example.org"

COVERT = Demo("covert.rules", "covert", "day", [
    # Quantum's access code is wrong (as in the demo's day 1): nothing of it reaches the turn.
    Week(["1001", "13579", "4321", "9999", "20408"],
         {EYE: ["receipt"], HYDRA: ["receipt"], SPECTRE: ["receipt", "receipt"], INK: ["receipt"],
          "reader@example.invalid": ["refused"], THRUSH: ["receipt"], QUANTUM: ["refused"]},
         refused=2, other_game=1, duplicates=1),
    # Week 1's mailbox read again with week 2's: known, not filed twice.
    Week(["1001", "20408", "13579", "2468", "4321", "9999"],
         {EYE: ["receipt"], SPECTRE: ["receipt"], HYDRA: ["receipt"], QUANTUM: ["receipt"], INK: ["receipt"],
          "mallory@example.invalid": ["refused"], THRUSH: ["receipt"]},
         refused=1, duplicates=10 + 1),
    # Quantum first writes the code it changed on day 2 by CODE: refused; then the new one.
    Week(["2468", "1001", "13579", "20408", "4321", "9999"],
         {QUANTUM: ["refused", "receipt"], EYE: ["receipt"], THRUSH: ["receipt", "receipt"], HYDRA: ["receipt"],
          SPECTRE: ["receipt"], INK: ["receipt"]},
         refused=1, other_game=1, duplicates=10 + 8,
         extra_lines={"13579": ["", "Regards,", "Hydra"], "9999": ["", "H\u00e9l\u00e8ne"]}),
])

AVALON, BORDURIA, CARPATHIA = "avalon@example.org", "borduria@example.org", "carpathia@example.org"
DORNE, ELBONIA, FREEDONIA = "dorne@example.org", "elbonia@example.org", "freedonia@example.org"

NUKECARDS = Demo("nukecards.rules", "nukecards", "round", [
    Week(["1", "2", "3", "4", "5", "6"],
         {a: ["receipt"] for a in (AVALON, BORDURIA, CARPATHIA, DORNE, ELBONIA, FREEDONIA)}, other_game=1),
    # Borduria's code mistyped: refused, and Borduria, Elbonia and Freedonia miss the round (as in the demo).
    Week(["1", "3", "4"],
         {AVALON: ["receipt"], CARPATHIA: ["receipt"], DORNE: ["receipt"], BORDURIA: ["refused"]},
         refused=1, duplicates=7),
    # Elbonia's second mail replaces its first.
    Week(["1", "2", "3", "4", "6", "5"],
         {AVALON: ["receipt"], BORDURIA: ["receipt"], CARPATHIA: ["receipt"], DORNE: ["receipt"],
          ELBONIA: ["receipt", "receipt"], FREEDONIA: ["receipt"]}, duplicates=7 + 4),
    Week(["1", "2", "3", "4", "6"],
         {AVALON: ["receipt"], BORDURIA: ["receipt"], CARPATHIA: ["receipt"], DORNE: ["receipt"],
          FREEDONIA: ["receipt"], "reader@example.invalid": ["refused"]},
         refused=1, duplicates=7 + 4 + 7 + 1),
])


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(list(args)) == 0, capsys.readouterr()
    out = capsys.readouterr()
    return out.out + out.err


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _demo_files(demo: Demo, turn: int) -> dict[str, Path]:
    """The demo's order files of `turn` by the account their header names."""
    folder = ROOT / "examples" / demo.folder / f"{demo.stem}{turn}"
    return {f.read_text(encoding="utf-8").split("\n")[1].strip(): f for f in sorted(folder.glob("*.txt"))}


def _codes(demo: Demo) -> list[str]:
    scenario = yaml.safe_load((ROOT / "examples" / demo.folder / "scenario.yaml").read_text(encoding="utf-8"))
    # Covert's Quantum changes its code on day 2 (CODE,QUANTUM7): the new one is as secret.
    return [str(p["code"]) for p in scenario["players"]] + ["QUANTUM7"]


def _replies(game: Path, turn: int) -> Iterator[tuple[str, str, EmailMessage]]:
    parser = BytesParser(policy=policy.default)
    for path in sorted((game / "outbox").glob(f"turn-{turn:03d}-*.eml")):
        msg = parser.parsebytes(path.read_bytes())
        assert isinstance(msg, EmailMessage)
        kind = path.stem.rsplit("-", 1)[1]
        for _, address in getaddresses([str(msg["To"])]):
            yield address, kind, msg


@dataclass
class Server:
    """An SMTP server on loopback (aiosmtpd): what it received, as a mail store keeps it."""

    port: int = 0
    got: list[tuple[list[str], EmailMessage]] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        msg = BytesParser(policy=policy.default).parsebytes(envelope.original_content.replace(b"\r\n", b"\n"))
        assert isinstance(msg, EmailMessage)
        self.got.append((list(envelope.rcpt_tos), msg))
        return "250 OK"


@pytest.fixture
def smtp() -> Iterator[Server]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        server = Server(s.getsockname()[1])
    controller = Controller(server, hostname="127.0.0.1", port=server.port)
    controller.start()
    try:
        yield server
    finally:
        controller.stop()


def mail_delivered(game: Path, smtp: Server, capsys: pytest.CaptureFixture[str]) -> dict[str, list[str]]:
    """What `rulesdsl send` delivers now: address -> kinds of mail ("receipt", "refused": intake's replies;
    "report": a turn's report mail), in the order sent. A second send delivers nothing."""
    before = len(smtp.got)
    _run(capsys, "send", str(game), "--smtp", f"127.0.0.1:{smtp.port}", "--from", "GM <gm@example.org>")
    sent: dict[str, list[str]] = {}
    for to, msg in smtp.got[before:]:
        assert msg["From"] == "GM <gm@example.org>" and msg["Date"] is not None
        kind = "report" if msg["X-Rulesdsl-Account"] else str(msg["Message-ID"]).removeprefix("<").split("-")[0]
        for address in to:
            sent.setdefault(address, []).append(kind)
    out = _run(capsys, "send", str(game), "--smtp", f"127.0.0.1:{smtp.port}", "--from", "GM <gm@example.org>")
    assert "0 mail(s) sent" in out and len(smtp.got) == before + sum(len(k) for k in sent.values())
    return sent


def _with_reports(game: Path, turn: int, replies: dict[str, list[str]]) -> dict[str, list[str]]:
    """The week's replies, then each report mail of the turn, to its player's address in the state."""
    state = yaml.safe_load((game / "turns" / f"turn-{turn:03d}" / "state.yaml").read_text(encoding="utf-8"))
    email = {str(p["account"]): str(p.get("email", "")) for p in state["players"]}
    out = {address: list(kinds) for address, kinds in replies.items()}
    for mail in sorted((game / "turns" / f"turn-{turn:03d}" / "mail").glob("*.eml")):
        account = str(BytesParser(policy=policy.default).parsebytes(mail.read_bytes())["X-Rulesdsl-Account"])
        out.setdefault(email[account], []).append("report")
    return out


def _check_secrets(game: Path, turn: int, demo: Demo, names: list[str], accounts: list[str]) -> None:
    """No access code in any reply or receipt; a refusal says nothing of the game (its id, title, players,
    accounts)."""
    codes = _codes(demo)
    title = "Covert" if demo.folder == "covert" else "Nuke"
    for _, kind, msg in _replies(game, turn):
        body = msg.get_content()
        assert isinstance(body, str)
        text = str(msg) + body
        for code in codes:
            assert not re.search(rf"\b{re.escape(code)}\b", text, re.IGNORECASE), (code, text)
        if kind == "refused":
            for word in [title, "CO-175", "NC-42", "Demo", *names, *accounts]:
                assert not re.search(rf"\b{re.escape(word)}\b", body, re.IGNORECASE), (word, body)
    for receipt in inbox_dir(game, turn).glob("*.receipt.txt"):
        text = receipt.read_text(encoding="utf-8")
        for code in codes:
            assert not re.search(rf"\b{re.escape(code)}\b", text, re.IGNORECASE), (code, receipt)


def _compare_with_files(demo: Demo, week: Week, turn: int, game: Path, files_game: Path) -> None:
    """The turn from the mailbox is the turn from the demo's order files, but for the reports of players whose
    mail held more than the file."""
    demo_files = _demo_files(demo, turn)
    for account, path in zip(week.filed, filed_orders(game, turn), strict=True):
        expected = demo_files[account].read_text(encoding="utf-8").rstrip("\n").split("\n")
        assert path.read_text(encoding="utf-8").rstrip("\n").split("\n") == expected + week.extra_lines.get(
            account, []), path
    a, b = _tree(game / "turns" / f"turn-{turn:03d}"), _tree(files_game / "turns" / f"turn-{turn:03d}")
    for tree in (a, b):
        # The orders' file names are the inbox's or the demo's; received.sha256 lists those names. The report
        # mails of the turn from the mailbox carry intake's receipts, which the files had none of.
        for name in [n for n in tree if n.startswith(("orders/", "mail/")) or n == "received.sha256"]:
            del tree[name]
    assert a.keys() == b.keys()
    differ = sorted(name for name in a if a[name] != b[name])
    assert differ == sorted(n for n in a if n.startswith("reports/") and n.split("/")[1].split("-")[0]
                            in week.extra_lines)


@pytest.mark.parametrize("demo", [COVERT, NUKECARDS], ids=["covert", "nukecards"])
def test_a_game_run_from_the_mailbox(demo: Demo, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     snapshot: SnapshotAssertion, monkeypatch: pytest.MonkeyPatch,
                                     smtp: Server) -> None:
    # The GM works in the folder that holds the game: the commands print paths from there.
    monkeypatch.chdir(tmp_path)
    game, files_game = Path("game"), Path("files")
    scenario = str(ROOT / "examples" / demo.folder / "scenario.yaml")
    for folder in (game, files_game):
        _run(capsys, "new", str(ROOT / "rulesets" / demo.rules), str(folder), "--scenario", scenario)
    players = yaml.safe_load(Path(scenario).read_text(encoding="utf-8"))["players"]
    names, accounts = [str(p["name"]) for p in players], [str(p["account"]) for p in players]
    for p in players:
        if not p.get("email"):
            # The card game's scenario names no addresses: the GM gives each player the one it writes from.
            for folder in (game, files_game):
                _run(capsys, "gm", str(folder), "email", str(p["account"]), f"{str(p['name']).lower()}@example.org")
    # The starting reports go out before the first week's mail comes in.
    assert mail_delivered(game, smtp, capsys) == {str(p.get("email") or f"{str(p['name']).lower()}@example.org"):
                                                  ["report"] for p in players}
    # The GM's own Maildir: each week's mail arrives in new/, and once read the mail client moves it to cur/
    # with its flags (":2,S"), where intake finds it again the next week and knows it.
    inbox = Path("Maildir")
    for sub in ("new", "cur", "tmp"):
        (inbox / sub).mkdir(parents=True)
    # What the GM reads each week: intake's summary and the status before the turn.
    intakes, statuses = [], []
    for turn, week in enumerate(demo.weeks, start=1):
        for mail in sorted((HERE / demo.folder / f"week{turn}" / "new").iterdir()):
            shutil.copyfile(mail, inbox / "new" / mail.name)
        intake = _run(capsys, "intake", str(game), str(inbox))
        for mail in sorted((inbox / "new").iterdir()):
            mail.rename(inbox / "cur" / f"{mail.name}:2,S")
        accepted = sum(kinds.count("receipt") for kinds in week.mail_out.values())
        assert (f"{accepted} mail(s) filed for {demo.stem} {turn}, {week.refused} refused, {week.other_game} for "
                f"another game, {week.duplicates} already read") in intake
        assert [p.name.split("-", 1)[1].removesuffix(".txt") for p in filed_orders(game, turn)] == week.filed
        _check_secrets(game, turn, demo, names, accounts)
        status = _run(capsys, "status", str(game))
        for account in _demo_files(demo, turn):
            sent = "orders in" if account in week.filed else "no orders yet"
            assert re.search(rf"^  {account} +[^\n]*: {sent}", status, re.MULTILINE), (account, status)
        assert f"{len(week.filed)} of 6 active position(s) have sent orders." in status
        intakes.append(intake)
        statuses.append(status)
        _run(capsys, "turn", str(game))
        assert mail_delivered(game, smtp, capsys) == _with_reports(game, turn, week.mail_out)
        files = _demo_files(demo, turn)
        _run(capsys, "turn", str(files_game), *[str(files[a]) for a in week.filed])
        _compare_with_files(demo, week, turn, game, files_game)
        if turn == 2:
            # The GM undoes the turn and runs it again from the same filed mail: the same bytes.
            done = _tree(game)
            _run(capsys, "rollback", str(game))
            assert not (game / "turns" / "turn-002").exists()
            assert [p.name.split("-", 1)[1].removesuffix(".txt") for p in filed_orders(game, 2)] == week.filed
            _run(capsys, "turn", str(game))
            again = _tree(game)
            # The rollback's own record is the only thing added (after the GM's e-mails for the card game).
            before = done.pop("history.yaml", b"")
            history = again.pop("history.yaml")
            assert history.startswith(before) and history[len(before):].startswith(b"- action: rollback")
            assert again == done
            # Nothing of the turn run again is new: its mails were all sent.
            assert mail_delivered(game, smtp, capsys) == {}
    last = len(demo.weeks)
    receipts = {p.name: p.read_text(encoding="utf-8") for p in sorted(inbox_dir(game, last).glob("*.receipt.txt"))}
    reports = {p.name: p.read_text(encoding="utf-8")
               for p in sorted((game / "turns" / f"turn-{last:03d}" / "reports").glob("*.txt"))}
    assert {"intake": intakes, "status": statuses, "receipts": receipts, "reports": reports} == snapshot
