"""A fuzzed submission -> the turn played with it, and an AssertionError naming the first property it breaks.

Each property is its own `assert`, so hypothesis tells the broken ones apart and reports each."""

from __future__ import annotations

import copy
from typing import Any

from rulesdsl.runtime.report import render
from tests.fuzz.strategies import Submission
from tests.fuzz.world import (
    LABEL,
    TURN_SECONDS,
    Crash,
    Outcome,
    TurnTooSlow,
    accounting_problems,
    ascii_upper,
    control_problems,
    differences,
    first_difference,
    lookalike_problems,
    play,
    processed,
    reason_problems,
    shorten,
    skeleton,
)

LEAK = 6  # characters of a mail in a row that must not appear in a report


def listed(problems: list[str], sub: Submission | None = None) -> str:
    shown = "\n  ".join(problems[:8]) + (f"\n  ... and {len(problems) - 8} more" if len(problems) > 8 else "")
    return f"\n  {shown}" + (f"\nfor {sub!r}" if sub is not None else "")


def play_mail(sub: Submission, text: str | None = None) -> Outcome:
    """The turn with the player's mail last; a crash or a turn past TURN_SECONDS fails the test."""
    subs = [*sub.ctx.others(sub.account), (LABEL, sub.text if text is None else text)]
    try:
        out = play(sub.ctx, subs)
    except Crash as exc:
        raise AssertionError(f"the turn crashed: {exc}\nfor {sub!r}") from exc
    except TurnTooSlow as exc:
        raise AssertionError(f"{exc} (a backtracking pattern?)\nfor {sub!r}") from None
    assert out.seconds < TURN_SECONDS, f"the turn took {out.seconds:.1f} s\nfor {sub!r}"
    return out


def _why_not(out: Outcome, account: str) -> str:
    notices = out.reports[account][1]["orders"]["notices"] if account in out.reports else []
    return f"notices {[shorten(n) for n in notices]}, unrouted {[shorten(u) for u in out.unrouted]}"


def check_order_mail(sub: Submission) -> None:
    """An authenticated player's mail with fuzzed order lines."""
    out = play_mail(sub)
    problems = control_problems(out)
    assert not problems, "control characters reached the output:" + listed(problems, sub)
    problems = reason_problems(out)
    assert not problems, "a refusal without a reason:" + listed(problems, sub)
    assert processed(out, sub.account), f"the player's mail was not processed: {_why_not(out, sub.account)}\n" \
                                        f"for {sub!r}"
    lines = sub.lines
    problems = accounting_problems(sub.ctx, out, sub.account, lines, sub.body_start)
    assert not problems, "lines of the mail are not accounted for:" + listed(problems, sub)
    problems = lookalike_problems(sub.ctx, out, sub.account, lines)
    assert not problems, "look-alike characters taken for ASCII:" + listed(problems, sub)
    check_refusals_change_nothing(sub, out)


def check_refusals_change_nothing(sub: Submission, out: Outcome) -> None:
    """The turn again with the refused lines blank (line numbers kept): nothing changes anywhere but the
    refused-lines section of the player's own report."""
    data = out.reports[sub.account][1]
    refused = {r["line"] for r in data["orders"]["refused"] if r["line"]}
    if not refused:
        return
    blanked = ["" if i + 1 in refused else line for i, line in enumerate(sub.lines)]
    newline = "\r\n" if sub.crlf else "\n"
    again = play_mail(sub, newline.join(blanked) + newline)
    problems = differences(out, again, skip={sub.account})
    if out.unrouted != again.unrouted:
        problems.append(f"the unrouted mail changed: {first_difference(out.unrouted, again.unrouted)}")
    assert not problems, f"refused lines {sorted(refused)} changed more than the player's report:" + \
        listed(problems, sub)
    expected = copy.deepcopy(data)
    expected["orders"]["refused"] = [r for r in data["orders"]["refused"] if not r["line"]]
    text, got = again.reports[sub.account]
    assert got == expected, f"refused lines {sorted(refused)} changed the player's report data beyond its " \
                            f"refused lines: {first_difference(expected, got)}\nfor {sub!r}"
    assert text == render(sub.ctx.spec, expected), \
        f"refused lines {sorted(refused)} changed the player's report text beyond its refused lines: " \
        f"{first_difference(render(sub.ctx.spec, expected), text)}\nfor {sub!r}"


def _all_strings(out: Outcome) -> list[str]:
    found: list[str] = list(out.news)
    for text, data in out.reports.values():
        found.append(text)
        found += list(_walk(data))
    return found


def _walk(value: Any) -> Any:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _walk(k)
            yield from _walk(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _walk(v)


def check_header_mail(sub: Submission) -> None:
    """A mail whose header was mutated: processed only when it names the player's account and code, and
    when it is not, nobody's report but a notice changes, and no text of the mail reaches a report."""
    out = play_mail(sub)
    problems = control_problems(out)
    assert not problems, "control characters reached the output:" + listed(problems, sub)
    problems = reason_problems(out)
    assert not problems, "a refusal without a reason:" + listed(problems, sub)
    was_processed = processed(out, sub.account)
    if sub.kind == "genuine":
        assert was_processed, f"a header that names the player's account and code was refused: " \
                              f"{_why_not(out, sub.account)}\nfor {sub!r}"
        problems = accounting_problems(sub.ctx, out, sub.account, sub.lines, sub.body_start)
        assert not problems, "lines of the mail are not accounted for:" + listed(problems, sub)
        return
    if sub.kind in ("hostile", "wrong-game"):
        assert not was_processed, f"a {sub.kind} header was accepted\nfor {sub!r}"
    if was_processed:
        return
    quiet = sub.ctx.quiet(sub.account)
    # Who may hear of the mail: the player, and any player whose account the mail names (told that the code
    # did not match); only in their notices.
    named = {a for a, _, _ in sub.ctx.players
             if any(ascii_upper(skeleton(line)) == ascii_upper(a) for line in sub.lines)}
    told = {sub.account} | named
    problems = differences(quiet, out, skip=told)
    assert not problems, f"a {sub.kind} header changed other players' reports, the news or the state:" + \
        listed(problems, sub)
    for account in sorted(told):
        before = copy.deepcopy(quiet.reports[account][1])
        text, data = out.reports[account]
        before["orders"]["notices"] = data["orders"]["notices"]
        assert data == before, f"a {sub.kind} header changed the report data of {account} beyond a notice: " \
                               f"{first_difference(before, data)}\nfor {sub!r}"
        assert text == render(sub.ctx.spec, before), \
            f"a {sub.kind} header changed the report text of {account} beyond a notice: " \
            f"{first_difference(render(sub.ctx.spec, before), text)}\nfor {sub!r}"
    # No text of an unauthenticated mail reaches a report; with the right account and code, the header may
    # be quoted to its own player (the game named in it, say), but not the orders.
    suspects = sub.lines if sub.kind == "hostile" else sub.lines[sub.body_start:]
    known = "\x00".join(_all_strings(quiet))
    shown = _all_strings(out)
    everything = "\x00".join(shown)
    leaks = []
    for line in suspects:
        text = line.strip()
        # Any 6 characters of it in a row, so that a quote cut short is found too.
        pieces = {text[i:i + LEAK] for i in range(len(text) - LEAK + 1)} if len(text) >= LEAK else {text}
        for piece in sorted(pieces):
            if len(piece) < 3 or piece in known or piece not in everything:
                continue
            where = next(s for s in shown if piece in s)
            at = where.index(piece)
            leaks.append(f"{shorten(piece)} of line {shorten(text)} appears in "
                         f"{shorten(where[max(0, at - 60):at + 60])}")
            break
    assert not leaks, f"text of a mail with a {sub.kind} header reached a report:" + listed(leaks, sub)
