"""Seeded random hostile order lines, by the hundred thousand -> per ruleset: lines, crashes, refusals, lines a
second, and every property of the fuzz suite (tests/fuzz/) that broke, with its shortest input.

The long run behind the quick hypothesis suite: the same mutations (tests/fuzz/mutations.py) and the same
checks (tests/fuzz/world.py), fed as mail of 50 lines from one player, with every other player's example
mail, to both shipped rulesets through Game.process_turn and the reports. Lines a second count the whole
turn: reading the mail, the phases, and every player's report.

Run:  python benchmarks/fuzz_orders.py                      # 100,000 lines per ruleset
      python benchmarks/fuzz_orders.py --lines 5000 --max-line 300 --seed 7 --ruleset covert
Exit status: 1 if any turn crashed or ran past the suite's time limit (world.TURN_SECONDS); with
--strict, also if any other property broke. 0 otherwise.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.fuzz import mutations  # noqa: E402
from tests.fuzz.world import (  # noqa: E402
    LABEL,
    MAX_LINE,
    RULESETS,
    TURN_SECONDS,
    Context,
    Crash,
    Outcome,
    TurnTooSlow,
    accounting_problems,
    build,
    control_problems,
    describe,
    lookalike_problems,
    play,
    processed,
    reason_problems,
)


@dataclass
class Tally:
    lines: int = 0
    turns: int = 0
    crashes: int = 0
    slow: int = 0
    refused: int = 0
    seconds: float = 0.0
    # property -> (times broken, the shortest mail that broke it, what was wrong)
    broken: dict[str, tuple[int, str, str]] = field(default_factory=dict)

    def note(self, what: str, mail: str, detail: str, count: int = 1) -> None:
        times, shortest, first = self.broken.get(what, (0, mail, detail))
        if len(mail) < len(shortest):
            shortest, first = mail, detail
        self.broken[what] = (times + count, shortest, first)


def problems_of(ctx: Context, out: Outcome, account: str, lines: list[str], body_start: int) -> dict[str, str]:
    checks = {
        "control characters in the output": control_problems(out),
        "a refusal without a reason": reason_problems(out),
        "lines not accounted for": accounting_problems(ctx, out, account, lines, body_start)
        if processed(out, account) else ["the mail was not processed"],
        "look-alikes taken for ASCII": lookalike_problems(ctx, out, account, lines),
    }
    return {what: problems[0] for what, problems in checks.items() if problems}


def broken(ctx: Context, account: str, lines: list[str], body_start: int) -> dict[str, str]:
    """Property -> what is wrong, for one mail of the player sent with everybody else's example mail."""
    try:
        out = play(ctx, [*ctx.others(account), (LABEL, "\n".join(lines) + "\n")])
    except Crash as exc:
        return {"crash": str(exc)}
    except TurnTooSlow as exc:
        return {"slow": str(exc)}
    return problems_of(ctx, out, account, lines, body_start)


def one_turn(ctx: Context, pick: mutations.RandomPicker, per_mail: int, cap: int, tally: Tally) -> None:
    account = pick.choice([a for a, _, _ in ctx.players])
    header = ctx.header(account)
    body = [mutations.fuzz_line(pick, ctx.corpus, cap) for _ in range(per_mail)]
    lines = header + body
    tally.lines += len(body)
    tally.turns += 1
    start = time.perf_counter()
    try:
        out = play(ctx, [*ctx.others(account), (LABEL, "\n".join(lines) + "\n")])
        found = problems_of(ctx, out, account, lines, len(header))
        tally.refused += len(out.reports[account][1]["orders"]["refused"]) if account in out.reports else 0
    except Crash as exc:
        tally.crashes += 1
        found = {"crash": str(exc)}
    except TurnTooSlow as exc:
        tally.slow += 1
        found = {"slow": str(exc)}
    finally:
        tally.seconds += time.perf_counter() - start
    for what, detail in found.items():
        tally.note(what, "\n".join(body), detail)
        known = tally.broken[what][1]
        if "\n" not in known:
            continue
        # One line alone that breaks it too, the shortest: the input to read and to reproduce with.
        for line in sorted(body, key=len):
            again = broken(ctx, account, [*header, line], len(header))
            if what in again:
                tally.note(what, line, again[what], count=0)
                break


def shortest_lines(text: str) -> str:
    """The mail's order lines, as Python expressions."""
    return "\n".join(f"      {describe(line)}" for line in text.split("\n"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=100_000, help="order lines per ruleset (default 100000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random lines (default 1)")
    parser.add_argument("--max-line", type=int, default=MAX_LINE, help=f"longest line (default {MAX_LINE})")
    parser.add_argument("--per-mail", type=int, default=50, help="order lines in one mail (default 50)")
    parser.add_argument("--ruleset", choices=sorted(RULESETS), action="append", help="only this ruleset")
    parser.add_argument("--strict", action="store_true", help="exit 1 when any property broke, not only on "
                                                              "crashes and slow turns")
    args = parser.parse_args(argv)
    failed = False
    with tempfile.TemporaryDirectory(prefix="fuzz-orders-") as cache:
        for ruleset in args.ruleset or sorted(RULESETS):
            contexts = build(ruleset, Path(cache))
            pick = mutations.RandomPicker(args.seed)
            tally = Tally()
            while tally.lines < args.lines:
                per_mail = min(args.per_mail, args.lines - tally.lines)
                one_turn(pick.choice(contexts), pick, per_mail, args.max_line, tally)
            rate = tally.lines / tally.seconds if tally.seconds else 0.0
            print(f"{ruleset}: {tally.lines} lines in {tally.turns} mails, {tally.crashes} crashes, "
                  f"{tally.slow} turns over {TURN_SECONDS:g} s, {tally.refused} lines refused, "
                  f"{rate:,.0f} lines/s")
            for what, (count, text, detail) in sorted(tally.broken.items()):
                print(f"  {what}: {count} mails; the shortest: {detail}\n{shortest_lines(text)}")
            failed = failed or bool(tally.crashes or tally.slow) or (args.strict and bool(tally.broken))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
