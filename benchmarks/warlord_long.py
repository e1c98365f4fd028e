"""Warlord's full-size game played long: tests/unit/test_warlord_fullsize.py's 100 players and scripted orders
(every tests/unit/wl_orders/*.py maker) through --turns turns (20 unless given) -> the time of the game, and
with --check the test's own checks: every refusal and failure one of the rules' reasons, the lines written to
be refused refused, and every order letter of the rulebook's list (A B C D E F I K L M N O P S V W Y --)
carried out at least once once every part-2 package's maker is in (before that, each present maker's own).

Run: python benchmarks/warlord_long.py --check          (.ci/run runs it after pytest)
     python benchmarks/warlord_long.py --turns 5

The pytest test plays 3 turns (the suite's time: 13 s wall, 9 s CPU); 20 turns with the land and talk makers
took 30 s CPU (82 s wall on a machine loaded by other work) on this machine (2 cores, Python 3.11); with the
land, sea, staff and talk makers, 34 s; with all five (air too), 34 s and every letter carried out.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.unit import test_warlord_fullsize as full


class _Captured(NamedTuple):
    out: str
    err: str


class _Capture:
    """What pytest's capsys gives `_play`: the output written since the last read."""

    def __init__(self) -> None:
        self.out = io.StringIO()
        self.err = io.StringIO()

    def readouterr(self) -> _Captured:
        got = _Captured(self.out.getvalue(), self.err.getvalue())
        self.out.seek(0)
        self.out.truncate()
        self.err.seek(0)
        self.err.truncate()
        return got


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=20)
    ap.add_argument("--check", action="store_true", help="check the game as the test does; exit 1 if wrong")
    args = ap.parse_args()
    os.environ["RULESDSL_PROGRESS"] = "none"  # as tests/conftest.py: the test reads stderr for faults
    cap = _Capture()
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        with contextlib.redirect_stdout(cap.out), contextlib.redirect_stderr(cap.err):
            game, bad = full._play(Path(tmp), "long", args.turns, cap)  # type: ignore[arg-type]
        played = time.perf_counter() - start
        print(f"{full.PLAYERS} players, {args.turns} turns: {played:.1f} s")
        if not args.check:
            return 0
        done = full.check_game(game, bad, args.turns)
        makers = set(full.MAKER_LETTERS)
        wanted = full.ALL_LETTERS if makers >= full.ALL_MAKERS else frozenset().union(*full.MAKER_LETTERS.values())
        missing = sorted(wanted - done)
        print(f"makers: {', '.join(sorted(makers))}; letters carried out: {' '.join(sorted(done))}")
        if missing:
            print(f"never carried out: {' '.join(missing)}")
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
