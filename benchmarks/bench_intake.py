"""rulesets/warlord.rules at full size, a Maildir of every player's mail -> times of `rulesdsl intake` and of
the turn run from the filed orders.

Run: python benchmarks/bench_intake.py
     python benchmarks/bench_intake.py --players 100 --seed 1
     python benchmarks/bench_intake.py --players 100 --each 10     (a mailbox of 1,000 mails)

A generated 320 x 99 world with --players players; a Maildir with one mail from each (multipart/alternative,
chatter before the header, a signature, an A order for each of its divisions and three C orders), and a
second mail from every tenth player that replaces its first. Intake reads them all (state load, each mail
read, its receipt judged, its files written and synced), then once more (every mail known: nothing filed);
then `rulesdsl turn GAMEDIR` runs the filed orders (GameFolder.process_turn(None)).

Figures on this machine (2 cores, Python 3.11, load average 5 from other jobs), 100 players, seed 1:
  intake of 110 mails: 2.6 to 2.7 s wall, 0.9 s CPU (110 filed). The wall is the syncs: each mail's four
      files synced together, then the outbox folder, then the record renamed into place and its folder
      synced, so that a killed intake loses at most the mail it was filing (one file after another: 3.25 s)
  intake again: 0.6 to 0.7 s wall, 0.45 s CPU (the state loaded; 110 already read)
  turn 1 from the filed orders: 1.0 to 1.8 s wall, 1.0 s CPU, as bench_warlord's turn 1 from files
--each 10 (1,000 mails, each replacing the one before; load 4.5 to 6.6 from other jobs): intake 7.2 to 8.0 s
wall, 4.0 s CPU, the record's writes 1.1 to 1.3 s wall (1,000 synced appends); when the record was
rewritten whole after each mail, 22.7 to 30.0 s wall, 7.4 to 8.0 s CPU, the record's writes 10.2 to 12.9 s.
"""

from __future__ import annotations

import argparse
import mailbox
import random
import tempfile
import time
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from pathlib import Path
from typing import Any

from warlord_game import divisions, new_game

from rulesdsl.game import intake as intake_module
from rulesdsl.game.intake import intake

ROOT = Path(__file__).resolve().parents[1]


def mail(i: int, n: int, body: str) -> bytes:
    msg = MIMEMultipart("alternative")
    msg["From"] = f"Player {i} <p{i}@example.org>"
    msg["Subject"] = "orders"
    msg["Message-ID"] = f"<{i}.{n}@example.org>"
    msg.attach(MIMEText(body, "plain", "utf-8"))
    msg.attach(MIMEText("<p>" + body.replace("\n", "<br>") + "</p>", "html", "utf-8"))
    return msg.as_bytes()


def timed_record() -> list[float]:
    """Times intake's writes of its record (append_index; _write_index before the record was appended to),
    so that its share of an intake is seen apart from the mail's own files and the receipts."""
    spent = [0.0, 0.0]
    name = "append_index" if hasattr(intake_module, "append_index") else "_write_index"
    real = getattr(intake_module, name)

    def wrapped(*args: Any) -> None:
        start = time.perf_counter()
        real(*args)
        spent[0] += time.perf_counter() - start
        spent[1] += 1

    setattr(intake_module, name, wrapped)
    return spent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--each", type=int, default=0,
                    help="mails from every player, each replacing the one before (default: one, and a second "
                         "from every tenth player)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        folder = new_game(base, args.players, args.seed)
        units = divisions(folder.turns_dir / "turn-000" / "state.yaml")
        box = mailbox.Maildir(base / "Maildir", create=True)
        count = 0
        for n in range(1, (args.each or 2) + 1):
            for i in range(1, args.players + 1):
                if not args.each and n == 2 and i % 10:
                    continue
                lines = ["Hello GM,", "", "WL-1", f"{i} C{i}"]
                lines += [f"A {u} {rng.randint(1, 8)}" for u in units.get(str(i), [])]
                lines += [f"C {i} 1"] * 3 + ["-- ", f"Player {i}"]
                box.add(mail(i, n, "\n".join(lines) + "\n"))
                count += 1
        box.close()
        record = timed_record()
        wall, cpu = time.perf_counter(), time.process_time()
        result = intake(folder.root, [base / "Maildir"])
        print(f"intake of {count} mails: {time.perf_counter() - wall:.2f} s wall, {time.process_time() - cpu:.2f} s "
              f"CPU; {len(result.filed)} filed, {len(result.refused)} refused; the record's writes "
              f"{record[0]:.2f} s wall ({record[1]:.0f})")
        wall, cpu = time.perf_counter(), time.process_time()
        again = intake(folder.root, [base / "Maildir"])
        print(f"intake again: {time.perf_counter() - wall:.2f} s wall, {time.process_time() - cpu:.2f} s CPU; "
              f"{again.duplicates} already read")
        wall, cpu = time.perf_counter(), time.process_time()
        turn = folder.process_turn(None)
        print(f"turn {turn.turn} from the filed orders: {time.perf_counter() - wall:.2f} s wall, "
              f"{time.process_time() - cpu:.2f} s CPU")


if __name__ == "__main__":
    main()
