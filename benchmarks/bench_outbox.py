"""Warlord's 100-player game -> the time its turn spends writing the report mails, and `rulesdsl send`'s time
to send them to an SMTP server on loopback (aiosmtpd, the tests' server).

Run: python benchmarks/bench_outbox.py [--players 100] [--repeat 5]

`rulesdsl new` makes the game (each player with an address); then outbox.Mailer, given each starting report
as a turn's write_reports gives it, is timed --repeat times into fresh staging folders (the best of them, wall
and CPU); then the starting mails are sent once through aiosmtpd on 127.0.0.1.

Figures on this machine (2 cores, Python 3.11), 100 players, seed 1, while other runs loaded it:
  mails: 0.07 s CPU, 0.11 s wall (1.66 MB of mail; a turn 2 of bench_warlord.py --divisions 5000 is
  some 2.1 s CPU); send: 0.8 s wall for the 100 mails, 8 ms each (the server in the same process)
With Warlord part 2 (the starting reports hold the world's outline, 99 x 320, as text and page), at the end
of issue 13: mails 0.19 s CPU, 15.3 MB; send 0.91 s wall.
The turn as a whole, `python benchmarks/bench_warlord.py --turns 2 --divisions 5000`, turn 2's CPU, 3 runs
alternating with the branch's base at load 5.5: base 2.16, 2.19, 2.33 s; with the mails 2.11, 2.38, 2.20 s.
"""

from __future__ import annotations

import argparse
import socket
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from rulesdsl.game.disk import Staging
from rulesdsl.game.folder import GameFolder
from rulesdsl.game.names import report_base
from rulesdsl.game.outbox import Mailer
from rulesdsl.game.send import Server, send

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "rulesets" / "warlord.rules"


class _Sink:
    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        return "250 OK"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        players = [{"name": f"Player {i}", "account": str(i), "code": f"C{i}", "email": f"p{i}@example.org"}
                   for i in range(1, args.players + 1)]
        (base / "scenario.yaml").write_text(yaml.safe_dump({"game": {"number": 1}, "seed": 1, "players": players}),
                                            encoding="utf-8")
        folder = GameFolder.create(RULES, base / "game", base / "scenario.yaml", None, gm_email="gm@example.org")
        game = folder.load_game()
        start = folder.turns_dir / "turn-000"
        active = [p for p in game.all_players if p.active]
        best_wall = best_cpu = float("inf")
        size = 0
        (base / "mails").mkdir()
        for _ in range(args.repeat):
            staging = Staging(base / "mails", ".bench-")
            # The reports as write_reports hands them to the mailer: made before the clock starts.
            reports = [(p, (start / "reports" / f"{report_base(p.account, p.name)}.txt").read_text(encoding="utf-8"),
                        (start / "reports" / f"{report_base(p.account, p.name)}.html").read_text(encoding="utf-8"))
                       for p in active]
            wall, cpu = time.perf_counter(), time.process_time()
            mailer = Mailer(folder.root, game, staging)
            for p, text, page in reports:
                mailer.write(p, text, page)
            best_wall = min(best_wall, time.perf_counter() - wall)
            best_cpu = min(best_cpu, time.process_time() - cpu)
            size = sum(p.stat().st_size for p in (staging.path / "mail").iterdir())
            staging.discard()
        print(f"mails, {len(active)} players: {best_wall:.3f} s wall, {best_cpu:.3f} s CPU (best of "
              f"{args.repeat}); {size / 1e6:.2f} MB of mail")
        from aiosmtpd.controller import Controller

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        controller = Controller(_Sink(), hostname="127.0.0.1", port=port)
        controller.start()
        try:
            wall, cpu = time.perf_counter(), time.process_time()
            result = send(folder.root, Server("127.0.0.1", port))
            print(f"send, {len(result.sent)} mails to aiosmtpd on loopback: {time.perf_counter() - wall:.2f} s wall, "
                  f"{time.process_time() - cpu:.2f} s CPU (this process: the server's thread too)")
        finally:
            controller.stop()


if __name__ == "__main__":
    main()
