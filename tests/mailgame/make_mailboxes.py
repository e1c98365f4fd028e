"""The demo games' orders (examples/covert/dayN, examples/nukecards/roundN) -> Maildirs of mail as real mail
clients send it, one a week, in tests/mailgame/GAME/weekN/new/, for test_mailgame.py.

Run once (`python tests/mailgame/make_mailboxes.py`) and commit what it writes: the mail is test data a
reviewer reads, .eml by .eml. The script writes the same bytes each time (fixed dates, boundaries and file
names); a quoted report is the one the demo's order files give, taken from a game run here.

Each client is written as its mail looks on the wire, headers included, rather than with email.message,
whose output would be one tidy style: the mess is the point.
"""

from __future__ import annotations

import base64
import quopri
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
GM = "Game Master <gm@example.org>"


@dataclass
class Mail:
    """One mail: its place in the week's Maildir (the file name's time), its name and bytes."""

    when: int  # seconds since the week's Monday 00:00 UTC: the Maildir name sorts by it
    name: str  # a short label, in the file name too, so a reader sees which mail is which
    raw: bytes


def _date(week: int, when: int) -> str:
    # Mondays from 2 November 2026: week 1's mail arrives in the week before turn 1.
    day = 2 + 7 * (week - 1) + when // 86400
    days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    month, mday = ("Nov", day) if day <= 30 else ("Dec", day - 30)
    hh, mm, ss = when % 86400 // 3600, when % 3600 // 60, when % 60
    return f"{days[(when // 86400) % 7]}, {mday} {month} 2026 {hh:02d}:{mm:02d}:{ss:02d} +0000"


def _qp(text: str, charset: str) -> str:
    return quopri.encodestring(text.encode(charset)).decode("ascii")


def _b64(text: str, charset: str) -> str:
    data = base64.b64encode(text.encode(charset)).decode("ascii")
    return "\n".join(data[i:i + 76] for i in range(0, len(data), 76))


def _finish(headers: list[str], body: str, crlf: bool = False) -> bytes:
    text = "\n".join(headers) + "\n\n" + body
    if not text.endswith("\n"):
        text += "\n"
    return (text.replace("\n", "\r\n") if crlf else text).encode("latin-1")


def _flowed(text: str) -> str:
    """Thunderbird's format=flowed: a long line is wrapped at 72 with a space before each soft break, and a
    line starting with a space or "From " is space-stuffed (RFC 3676)."""
    out = []
    for line in text.split("\n"):
        if line.startswith((" ", "From ")):
            line = " " + line
        while len(line) > 72 and " " in line[:72] and line != "-- ":
            cut = line.rfind(" ", 0, 72)
            out.append(line[:cut + 1])
            line = line[cut + 1:]
        out.append(line)
    return "\n".join(out)


# ------------------------------------------------------------------ mail clients
def thunderbird(sender: str, subject: str, body: str, mid: str, date: str, reply_to: str | None = None) -> bytes:
    """Thunderbird: text/plain, UTF-8, format=flowed, 8bit when it needs it."""
    headers = [f"Message-ID: <{mid}@example.org>", f"Date: {date}", "MIME-Version: 1.0",
               "User-Agent: Mozilla Thunderbird", "Content-Language: en-GB", f"To: {GM}", f"From: {sender}",
               f"Subject: {subject}"]
    if reply_to:
        headers += [f"In-Reply-To: <{reply_to}@rulesdsl.invalid>", f"References: <{reply_to}@rulesdsl.invalid>"]
    eight = any(ord(c) > 127 for c in body)
    headers += ["Content-Type: text/plain; charset=UTF-8; format=flowed",
                f"Content-Transfer-Encoding: {'8bit' if eight else '7bit'}"]
    return ("\n".join(headers) + "\n\n" + _flowed(body) + "\n").encode("utf-8")


def outlook(sender: str, subject: str, body: str, mid: str, date: str) -> bytes:
    """Outlook: multipart/alternative, a quoted-printable plain part and Word's HTML for the same text, with
    CRLF line ends as Exchange stores them."""
    boundary = f"_000_{mid}_"
    html_lines = "".join(f'<p class="MsoNormal">{line or "&nbsp;"}<o:p></o:p></p>\n' for line in body.split("\n"))
    html = ('<html xmlns:o="urn:schemas-microsoft-com:office:office">\n<head>\n<meta http-equiv="Content-Type" '
            'content="text/html; charset=us-ascii">\n<style><!-- p.MsoNormal {margin:0cm; font-size:11.0pt;'
            'font-family:"Calibri",sans-serif;} --></style>\n</head>\n<body lang="EN-GB">\n'
            f'<div class="WordSection1">\n{html_lines}</div>\n</body>\n</html>\n')
    headers = [f"From: {sender}", f"To: {GM}", f"Subject: {subject}", f"Date: {date}",
               f"Message-ID: <{mid}@EXCH01.corp.example.invalid>", "Accept-Language: en-GB, en-US",
               "Content-Language: en-GB", "X-MS-Has-Attach:", "X-Mailer: Microsoft Outlook 16.0",
               f'Content-Type: multipart/alternative; boundary="{boundary}"', "MIME-Version: 1.0"]
    parts = (f"--{boundary}\nContent-Type: text/plain; charset=\"us-ascii\"\n"
             f"Content-Transfer-Encoding: quoted-printable\n\n{_qp(body, 'ascii')}\n"
             f"--{boundary}\nContent-Type: text/html; charset=\"us-ascii\"\n"
             f"Content-Transfer-Encoding: quoted-printable\n\n{_qp(html, 'ascii')}\n--{boundary}--\n")
    return _finish(headers, parts, crlf=True)


def webmail_html(sender: str, subject: str, html: str, mid: str, date: str) -> bytes:
    """A webmail that sends HTML alone, quoted-printable, a line of markup a paragraph (Gmail-like divs)."""
    headers = ["MIME-Version: 1.0", f"Date: {date}", f"Message-ID: <{mid}@mail.example.org>",
               f"Subject: {subject}", f"From: {sender}", f"To: {GM}",
               'Content-Type: text/html; charset="UTF-8"', "Content-Transfer-Encoding: quoted-printable"]
    return _finish(headers, _qp(html, "utf-8"))


def phone(sender: str, subject: str, body: str, mid: str, date: str) -> bytes:
    """An Android mail app (K-9 Mail): text/plain in UTF-8, base64, its signature below the orders."""
    headers = [f"From: {sender}", "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: base64",
               "MIME-Version: 1.0", f"Subject: {subject}", f"Date: {date}",
               f"Message-Id: <{mid}@phone.example.org>", f"To: {GM}", "User-Agent: K-9 Mail for Android"]
    signature = "-- \nSent from my Android device with K-9 Mail. Please excuse my brevity.\n"
    return _finish(headers, _b64(f"{body}\n\n{signature}", "utf-8"))


def eudora(sender: str, subject: str, body: str, mid: str, date: str) -> bytes:
    """An old European client: ISO-8859-1, quoted-printable, CRLF line ends, accents in the From name."""
    headers = [f"Message-Id: <{mid}@pop.example.org>", "X-Mailer: QUALCOMM Windows Eudora Version 7.1.0.9",
               f"Date: {date}", f"To: {GM}", f"From: {sender}", f"Subject: {subject}", "Mime-Version: 1.0",
               'Content-Type: text/plain; charset="iso-8859-1"', "Content-Transfer-Encoding: quoted-printable"]
    return _finish(headers, _qp(body, "iso-8859-1"), crlf=True)


def gmail(sender: str, subject: str, body: str, mid: str, date: str) -> bytes:
    """Gmail: multipart/alternative, a plain part and div-per-line HTML; a forward keeps its own marker."""
    boundary = f"0000000000{mid[:16]}"
    lines = body.split("\n")
    html = '<div dir="ltr">' + "".join(f"<div>{line or '<br>'}</div>" for line in lines) + "</div>\n"
    headers = ["MIME-Version: 1.0", f"Date: {date}", f"Message-ID: <{mid}@mail.example.org>",
               f"Subject: {subject}", f"From: {sender}", f"To: {GM}",
               f'Content-Type: multipart/alternative; boundary="{boundary}"']
    parts = (f"--{boundary}\nContent-Type: text/plain; charset=\"UTF-8\"\n\n{body}\n\n"
             f"--{boundary}\nContent-Type: text/html; charset=\"UTF-8\"\nContent-Transfer-Encoding: "
             f"quoted-printable\n\n{_qp(html, 'utf-8')}\n\n--{boundary}--\n")
    return _finish(headers, parts)


def plain(sender: str, subject: str, body: str, mid: str, date: str) -> bytes:
    headers = [f"From: {sender}", f"To: {GM}", f"Subject: {subject}", f"Date: {date}",
               f"Message-ID: <{mid}@example.invalid>", "MIME-Version: 1.0",
               "Content-Type: text/plain; charset=us-ascii", "Content-Transfer-Encoding: 7bit"]
    return _finish(headers, body)


# ------------------------------------------------------------------ quoting last week's report
def _quoted(report: str, lines: int = 12) -> str:
    return "\n".join(("> " + line).rstrip() for line in report.split("\n")[:lines])


def _forwarded(report: str, date: str, player: str, lines: int = 14) -> str:
    head = ("---------- Forwarded message ---------\n"
            f"From: {GM}\nDate: {date}\nSubject: Your report\nTo: {player}\n\n")
    return head + "\n".join(report.split("\n")[:lines])


def _html_quote(report: str, date: str, lines: int = 10) -> str:
    text = "<br>\n".join(report.split("\n")[:lines]).replace("  ", "&nbsp; ")
    gm = GM.replace("<", "&lt;").replace(">", "&gt;")
    return (f'<div class="gmail_quote"><div dir="ltr" class="gmail_attr">On {date}, {gm} '
            f'wrote:<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;'
            f'border-left:1px solid rgb(204,204,204);padding-left:1ex">{text}</blockquote></div>')


def _orders(path: Path) -> str:
    return path.read_text(encoding="utf-8").rstrip("\n")


def _reports(rules: str, folder: str, weeks: int) -> dict[tuple[int, str], str]:
    """The text reports of the demo run from its order files: (turn, account) -> report."""
    tmp = Path(tempfile.mkdtemp())
    try:
        game = tmp / "game"
        ex = ROOT / "examples" / folder

        def run(*args: str) -> None:
            subprocess.run([sys.executable, "-m", "rulesdsl", *args], check=True, cwd=ROOT,
                           stdout=subprocess.DEVNULL, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})

        run("new", f"rulesets/{rules}", str(game), "--scenario", str(ex / "scenario.yaml"))
        out = {}
        stem = "day" if folder == "covert" else "round"
        for week in range(1, weeks + 1):
            run("turn", str(game), *sorted(str(p) for p in (ex / f"{stem}{week}").iterdir()))
            for p in (game / "turns" / f"turn-{week:03d}" / "reports").glob("*.txt"):
                out[(week, p.name.split("-", 1)[0])] = p.read_text(encoding="utf-8")
        return out
    finally:
        shutil.rmtree(tmp)


# ------------------------------------------------------------------ Covert Operations, days 1 to 3
HYDRA = "Hydra Trading <hydra@example.org>"
EYE = "The Illuminati <eye@example.org>"
INK = "Octopus Holdings <ink@example.org>"
QUANTUM = "Quantum Group <quantum@example.org>"
SPECTRE = "Spectre <spectre@example.org>"
THRUSH = "=?iso-8859-1?q?H=E9l=E8ne_Dupr=E9_=28Thrush=29?= <thrush@example.org>"


def covert() -> dict[int, list[Mail]]:
    day = ROOT / "examples" / "covert"
    reports = _reports("covert.rules", "covert", 2)

    def o(week: int, who: str) -> str:
        return _orders(day / f"day{week}" / f"{who}.txt")

    weeks: dict[int, list[Mail]] = {}
    w = 1
    weeks[w] = [
        Mail(3600 * 9, "illuminati-thunderbird", thunderbird(
            EYE, "CO-175 orders, day 1",
            "Hello GM,\n\nhere are our orders for the first day. We are looking forward to a long and fruitful "
            f"game, and to a world that knows its place.\n\n{o(w, 'illuminati')}\n\n-- \nThe Illuminati\n"
            "Novus ordo seclorum", "c2f1a3b4-1e01-4b7a-9d11-0a1b2c3d4e5f", _date(w, 3600 * 9))),
        Mail(3600 * 10, "hydra-outlook", outlook(
            HYDRA, "Orders", f"Hi,\n\nPlease find our orders below.\n\n{o(w, 'hydra')}\n\n-- \nHydra Trading Company\n"
            "B,SAF,99 is what we would do with more money", "DB9PR01MB1001", _date(w, 36000))),
        Mail(3600 * 11, "spectre-gmail-first", gmail(
            SPECTRE, "CO-175", "CO-175\n20408\nALPHA789\nB,MEX,12", "CAF1spectre0001", _date(w, 3600 * 11))),
        Mail(3600 * 12, "octopus-html", webmail_html(
            INK, "day 1",
            "<div dir=\"ltr\"><div>Our orders:</div><div><br></div><div>"
            + "</div><div>".join(o(w, "octopus").split("\n")) + "</div></div>\n",
            "CAKo2x9octopus", _date(w, 3600 * 12))),
        Mail(3600 * 13, "stranger-no-header", plain(
            "Curious Reader <reader@example.invalid>", "Joining your game?",
            "Hello,\n\nI saw your game on a forum. Is there a free position? What is the access code?\n\nThanks\n",
            "stranger-1", _date(w, 3600 * 13))),
        Mail(86400 + 3600 * 8, "thrush-latin1", eudora(
            THRUSH, "Ordres pour le jour 1",
            f"Bonjour,\nvoici mes ordres. Amiti\u00e9s \u00e0 tous !\n\n{o(w, 'thrush')}\n\n-- \n"
            "H\u00e9l\u00e8ne Dupr\u00e9, Thrush\nB,CRU,99 (pas un ordre : la signature)\n",
            "5.2.0.9.20261103080000.00a1b2c0", _date(w, 86400 + 3600 * 8))),
        Mail(86400 + 3600 * 9, "quantum-phone-wrong-code", phone(
            QUANTUM, "Orders", o(w, "quantum"), "7F3A9C2E-QUANTUM-0001", _date(w, 86400 + 3600 * 9))),
        Mail(86400 + 3600 * 10, "other-game", plain(
            "Someone Else <else@example.invalid>", "CO-176 orders", "CO-176\n2468\nQ42\nB,BRA,20\n",
            "co176-orders-1", _date(w, 86400 + 3600 * 10))),
        Mail(86400 + 3600 * 11, "spectre-gmail-second", gmail(
            SPECTRE, "Re: CO-175",
            f"Sorry, I sent that too early: these are all of my orders.\n\n{o(w, 'spectre')}\n\n-- \nSpectre",
            "CAF1spectre0002", _date(w, 86400 + 3600 * 11))),
    ]
    # The octopus mail delivered twice (a list and the GM's own address): the same bytes, another file name.
    weeks[w].append(Mail(86400 + 3600 * 12, "octopus-html-again", weeks[w][3].raw))

    w = 2
    weeks[w] = [
        Mail(3600 * 8, "illuminati-reply-quoting", thunderbird(
            EYE, "Re: CO-175 report, day 1",
            f"{o(w, 'illuminati')}\n\nOn 09/11/2026 06:00, Game Master wrote:\n"
            f"{_quoted(reports[(1, '1001')])}\n\n-- \nThe Illuminati",
            "c2f1a3b4-1e01-4b7a-9d11-0a1b2c3d4e60", _date(w, 3600 * 8), reply_to="report-1-1001")),
        Mail(3600 * 9, "spectre-forward", gmail(
            SPECTRE, "Fwd: Your report",
            f"Forwarding my report so you see what I mean about Mexico. Orders:\n\n{o(w, 'spectre')}\n\n"
            f"{_forwarded(reports[(1, '20408')], _date(w, 0), SPECTRE)}",
            "CAF1spectre0003", _date(w, 3600 * 9))),
        Mail(3600 * 10, "hydra-outlook", outlook(
            HYDRA, "RE: CO-175 report, day 1",
            f"{o(w, 'hydra')}\n\n-----Original Message-----\nFrom: {GM}\nSent: Monday, November 9, 2026 6:00 AM\n"
            f"To: {HYDRA}\nSubject: CO-175 report, day 1\n\n"
            + "\n".join(reports[(1, "13579")].split("\n")[:12]), "DB9PR01MB1002", _date(w, 3600 * 10))),
        Mail(3600 * 11, "quantum-phone-new-code", phone(
            QUANTUM, "Orders day 2", o(w, "quantum"), "7F3A9C2E-QUANTUM-0002", _date(w, 3600 * 11))),
        Mail(3600 * 12, "octopus-html-quoting", webmail_html(
            INK, "Re: CO-175 report, day 1",
            "<div dir=\"ltr\">" + "".join(f"<div>{x}</div>" for x in o(w, "octopus").split("\n")) + "</div><br>"
            + _html_quote(reports[(1, "4321")], _date(w, 0)) + "\n", "CAKo2x9octopus2", _date(w, 3600 * 12))),
        Mail(3600 * 13, "guessing-thrush-code", plain(
            "Mallory <mallory@example.invalid>", "orders", "CO-175\n9999\nBIRD\nB,CRU,50\n",
            "guess-1", _date(w, 3600 * 13))),
        Mail(86400 + 3600 * 7, "thrush-latin1", eudora(
            THRUSH, "Ordres, jour 2",
            f"J'ai mis un STOP : la suite attendra demain.\n\n{o(w, 'thrush')}\n-- \nH\u00e9l\u00e8ne",
            "5.2.0.9.20261110070000.00a1b2c1", _date(w, 86400 + 3600 * 7))),
    ]
    # Hydra's mail again, as the GM's mail client fetched it twice into new/.
    weeks[w].append(Mail(86400 + 3600 * 9, "hydra-outlook-again", weeks[w][2].raw))

    w = 3
    weeks[w] = [
        Mail(3600 * 8, "quantum-phone-old-code", phone(
            QUANTUM, "Orders day 3", o(w, "quantum").replace("QUANTUM7", "Q42"), "7F3A9C2E-QUANTUM-0003",
            _date(w, 3600 * 8))),
        Mail(3600 * 9, "quantum-phone-new-code", phone(
            QUANTUM, "Orders day 3 (new code)", o(w, "quantum"), "7F3A9C2E-QUANTUM-0004", _date(w, 3600 * 9))),
        Mail(3600 * 10, "illuminati-thunderbird", thunderbird(
            EYE, "CO-175 orders, day 3", f"{o(w, 'illuminati')}\n\n-- \nThe Illuminati",
            "c2f1a3b4-1e01-4b7a-9d11-0a1b2c3d4e61", _date(w, 36000))),
        Mail(3600 * 11, "thrush-latin1-first", eudora(
            THRUSH, "Ordres, jour 3", "CO-175\n9999\nBIRD9\nB,CRU,5\n", "5.2.0.9.20261117110000.00a1b2c2",
            _date(w, 3600 * 11))),
        Mail(3600 * 12, "hydra-outlook", outlook(
            HYDRA, "CO-175", f"{o(w, 'hydra')}\n\nRegards,\nHydra", "DB9PR01MB1003", _date(w, 3600 * 12))),
        Mail(3600 * 13, "spectre-gmail", gmail(
            SPECTRE, "day 3", o(w, "spectre"), "CAF1spectre0004", _date(w, 3600 * 13))),
        Mail(3600 * 14, "octopus-html", webmail_html(
            INK, "orders", "<div dir=\"ltr\">" + "<br>".join(o(w, "octopus").split("\n")) + "</div>\n",
            "CAKo2x9octopus3", _date(w, 3600 * 14))),
        Mail(86400 + 3600 * 9, "thrush-latin1-second", eudora(
            THRUSH, "Ordres, jour 3 (complets)",
            f"Pardon, voici tous mes ordres de la journ\u00e9e.\n\n{o(w, 'thrush')}\n\nH\u00e9l\u00e8ne",
            "5.2.0.9.20261118090000.00a1b2c3", _date(w, 86400 + 3600 * 9))),
        Mail(86400 + 3600 * 10, "other-game", plain(
            "Someone Else <else@example.invalid>", "CO-176 orders", "CO-176\n2468\nQ42\nB,BRA,4\n",
            "co176-orders-3", _date(w, 86400 + 3600 * 10))),
    ]
    return weeks


# ------------------------------------------------------------------ the card game, rounds 1 to 4
def nukecards() -> dict[int, list[Mail]]:
    ex = ROOT / "examples" / "nukecards"
    reports = _reports("nukecards.rules", "nukecards", 3)

    def o(week: int, who: str) -> str:
        return _orders(ex / f"round{week}" / f"{who}.txt")

    avalon, borduria = "Arthur <avalon@example.org>", "Borduria <borduria@example.org>"
    carpathia, dorne = "Carpathia <carpathia@example.org>", "Dorne <dorne@example.org>"
    elbonia = "=?iso-8859-1?q?Elbonia_=28Z=F6e_M=FCller=29?= <elbonia@example.org>"
    freedonia = "Rufus T. Firefly <freedonia@example.org>"
    weeks: dict[int, list[Mail]] = {}
    w = 1
    weeks[w] = [
        Mail(3600, "avalon-thunderbird", thunderbird(avalon, "NC-42 round 1", f"{o(w, 'avalon')}\n\n-- \nArthur",
                                                     "nc-avalon-1", _date(w, 3600))),
        Mail(7200, "borduria-outlook", outlook(borduria, "round 1", f"Hello,\n\n{o(w, 'borduria')}",
                                               "NC2BORD0001", _date(w, 7200))),
        Mail(10800, "carpathia-html", webmail_html(
            carpathia, "orders", "<div>" + "<br>".join(o(w, "carpathia").split("\n")) + "</div>\n", "nc-carp-1",
            _date(w, 10800))),
        Mail(14400, "dorne-phone", phone(dorne, "NC-42", o(w, "dorne"), "NC-DORNE-0001", _date(w, 14400))),
        Mail(18000, "elbonia-latin1", eudora(
            elbonia, "Befehle Runde 1", f"Gr\u00fc\u00dfe aus Elbonien!\n\n{o(w, 'elbonia')}\n\n-- \nZ\u00f6e",
            "nc-elb-1", _date(w, 18000))),
        Mail(21600, "freedonia-gmail", gmail(freedonia, "Orders", f"Hail Freedonia!\n\n{o(w, 'freedonia')}",
                                             "nc-free-1", _date(w, 21600))),
        Mail(25200, "other-game", plain("Other Player <other@example.invalid>", "NC-43",
                                        "NC-43\n1\nAPPLE\nPICK M\n", "nc43-1", _date(w, 25200))),
    ]
    w = 2
    weeks[w] = [
        Mail(3600, "avalon-reply-quoting", thunderbird(
            avalon, "Re: NC-42 report, round 1",
            f"{o(w, 'avalon')}\n\nOn 09/11/2026 06:00, Game Master wrote:\n{_quoted(reports[(1, '1')])}",
            "nc-avalon-2", _date(w, 3600), reply_to="report-1-1")),
        Mail(7200, "carpathia-html", webmail_html(
            carpathia, "round 2", "<div>" + "</div><div>".join(o(w, "carpathia").split("\n")) + "</div><br>"
            + _html_quote(reports[(1, "3")], _date(w, 0)) + "\n", "nc-carp-2", _date(w, 7200))),
        Mail(10800, "dorne-phone", phone(dorne, "NC-42", o(w, "dorne"), "NC-DORNE-0002", _date(w, 10800))),
        Mail(14400, "borduria-wrong-code", outlook(borduria, "round 2", "NC-42\n2\nBAER\nPICK W\n\nBorduria",
                                                   "NC2BORD0002", _date(w, 14400))),
    ]
    w = 3
    weeks[w] = [
        Mail(3600, "avalon-thunderbird", thunderbird(avalon, "NC-42 round 3", o(w, "avalon"), "nc-avalon-3",
                                                     _date(w, 3600))),
        Mail(7200, "borduria-outlook-reply", outlook(
            borduria, "RE: NC-42 report, round 2",
            f"{o(w, 'borduria')}\n\n________________________________\nFrom: {GM}\n"
            f"Sent: Monday, November 16, 2026 6:00 AM\nTo: {borduria}\nSubject: NC-42 report, round 2\n\n"
            + "\n".join(reports[(2, "2")].split("\n")[:14]), "NC2BORD0003", _date(w, 7200))),
        Mail(10800, "carpathia-html", webmail_html(
            carpathia, "round 3", "<p>" + "<br>\n".join(o(w, "carpathia").split("\n")) + "</p>\n", "nc-carp-3",
            _date(w, 10800))),
        Mail(14400, "dorne-phone-forward", phone(
            dorne, "Fwd: NC-42 report",
            f"{o(w, 'dorne')}\n\n{_forwarded(reports[(2, '4')], _date(w, 0), dorne)}", "NC-DORNE-0003",
            _date(w, 14400))),
        Mail(18000, "elbonia-latin1-first", eudora(elbonia, "Runde 3", "NC-42\n5\nMUD\nPICK D\n", "nc-elb-3a",
                                                   _date(w, 18000))),
        Mail(21600, "freedonia-gmail", gmail(freedonia, "Orders", o(w, "freedonia"), "nc-free-3",
                                             _date(w, 21600))),
        Mail(25200, "elbonia-latin1-second", eudora(
            elbonia, "Runde 3, ge\u00e4ndert", f"Doch lieber ein Geschenk f\u00fcr Avalon.\n\n{o(w, 'elbonia')}",
            "nc-elb-3b", _date(w, 25200))),
    ]
    w = 4
    weeks[w] = [
        # The line before the quote is longer than Thunderbird's 72 characters: it is sent in two.
        Mail(3600, "avalon-reply-quoting", thunderbird(
            avalon, "Re: NC-42 report, round 3",
            f"{o(w, 'avalon')}\n\nOn 23/11/2026 06:00, Game Master of the Demo nukes game, NC-42 "
            f"<gm@example.org> wrote:\n{_quoted(reports[(3, '1')])}", "nc-avalon-4", _date(w, 3600),
            reply_to="report-3-1")),
        Mail(7200, "borduria-outlook", outlook(borduria, "round 4", o(w, "borduria"), "NC2BORD0004",
                                               _date(w, 7200))),
        Mail(10800, "carpathia-html", webmail_html(
            carpathia, "round 4", "<div>" + "<br>".join(o(w, "carpathia").split("\n")) + "</div>\n",
            "nc-carp-4", _date(w, 10800))),
        Mail(14400, "dorne-phone", phone(dorne, "NC-42", o(w, "dorne"), "NC-DORNE-0004", _date(w, 14400))),
        Mail(18000, "freedonia-gmail", gmail(freedonia, "Orders", o(w, "freedonia"), "nc-free-4",
                                             _date(w, 18000))),
        Mail(21600, "stranger-no-header", plain("Curious Reader <reader@example.invalid>", "NC-42?",
                                                "Hi, how do I join NC-42?\n", "nc-stranger-4", _date(w, 21600))),
    ]
    weeks[w].append(Mail(25200, "freedonia-gmail-again", weeks[w][4].raw))
    return weeks


def write(game: str, weeks: dict[int, list[Mail]]) -> None:
    for week, mails in weeks.items():
        new = HERE / game / f"week{week}" / "new"
        shutil.rmtree(new.parent, ignore_errors=True)
        new.mkdir(parents=True)
        (new.parent / "cur").mkdir()
        (new.parent / "tmp").mkdir()
        for mail in mails:
            # Maildir names: the delivery time first, so that the name order is the order of arrival.
            stamp = 1_793_577_600 + (week - 1) * 7 * 86400 + mail.when
            (new / f"{stamp}.M{mail.when % 1000:03d}P4242.{mail.name}.mx.example.invalid").write_bytes(mail.raw)


WRITERS: dict[str, Callable[[], dict[int, list[Mail]]]] = {"covert": covert, "nukecards": nukecards}

if __name__ == "__main__":
    for name, make in WRITERS.items():
        write(name, make())
