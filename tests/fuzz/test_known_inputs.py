"""Hand-picked hostile mail (each a kind of input that has broken a turn) and the largest mail the suite allows
-> the same properties as the fuzzed mail, on every run, whatever hypothesis happens to draw."""

from __future__ import annotations

import pytest

from tests.fuzz.properties import check_header_mail, check_order_mail, play_mail
from tests.fuzz.strategies import Submission, header_kind
from tests.fuzz.world import MAX_LINE, TURN_SECONDS, Context

ORDER_LINES = {
    "covert": [
        "B,SAF," + "9" * 5000,  # past int()'s 4,300-digit limit
        "A,SAF,1" + "0" * 4300,
        "B,SAF,-" + "9" * 4301,
        "C," + " " * 5000 + "x",  # a run of spaces where a pattern backtracks
        "W,SAF," + ", " * 3000 + "1",
        "\u212a,UKR,5",  # Kelvin sign for K
        "B,\u017fAF,3",  # long s for S
        "\u0131,SAF",  # dotless i for I
        "B,SAF,\u0663",  # Arabic-Indic 3
        "B,SAF,\uff19",  # fullwidth 9
        "B\uff0cSAF\uff0c9",  # fullwidth commas
        "B,SAF,9\x0cB,EAF,6",  # a form feed, where splitlines() would make two lines
        "B,SAF,9\u2028B,EAF,6",
        "B,SAF,9\x85B,EAF,6",
        "B,SAF,9\x1b[2J",  # a terminal escape
        "\u202eB,SAF,9",  # a bidi override
        "\ufeffB,SAF,9",  # a BOM inside the mail
        "B,SAF\x00,9",
        "EMAIL,\x1b]0;owned\x07x@example.org",  # free text: the player's own e-mail, shown to others by M
        "EMAIL,{{ player.code }}",
        "CODE,\u0663\u0663\u0663",
        "\x00",
        "\u200b",
    ],
    "nukecards": [
        "PLAY " + " " * 5000 + "x",
        "LAUNCH M200 WITH " + " " * 5000 + "AT x",
        "GIVE P100 TO " + "9" * 5000,
        "P\u0131CK M",  # dotless i
        "PICK \u041c",  # Cyrillic M
        "PREP M\u0662\u0660\u0660",  # Arabic-Indic 200
        "DEFEND D200\x0cPICK M",
        "DEFEND D200\u2029PICK M",
        "PROPAGANDA P100 AT \u202eAVALON",
        "PICK M\x1b[2J",
        "\ufeffPICK M",
        "\x00",
    ],
}


def _world(worlds: list[Context]) -> tuple[Context, str]:
    """The second turn, and the first player who wrote in it: their orders are the mail around the line."""
    ctx = worlds[1]
    account = next(a for a, _, _ in ctx.players if ctx.bodies.get(a))
    return ctx, account


def _cases() -> list[tuple[str, int]]:
    return [(name, i) for name, lines in ORDER_LINES.items() for i in range(len(lines))]


@pytest.mark.parametrize(("ruleset", "index"), _cases(), ids=[f"{n}-{i}" for n, i in _cases()])
def test_known_order_lines(request: pytest.FixtureRequest, ruleset: str, index: int) -> None:
    ctx, account = _world(request.getfixturevalue(ruleset))
    line = ORDER_LINES[ruleset][index]
    body = [*ctx.bodies[account], line, *ctx.bodies[account][:1]]
    check_order_mail(Submission(ctx, account, ctx.header(account), [ln for ln in body if ln.strip()]))


LOOKALIKE = {"S": "\u017f", "I": "\u0131"}  # long s, dotless i: str.upper() makes them S and I


def _header_case(ctx: Context, index: int) -> tuple[str, list[str]]:
    """(account, header lines) of a hand-made header; the look-alike cases take a player whose code has a
    letter that a look-alike upper-cases to."""
    account, _, code = next(((a, n, c) for a, n, c in ctx.players if any(ch in c for ch in LOOKALIKE)),
                            ctx.players[0])
    game, acc, code = ctx.header(account)
    twin = "".join(LOOKALIKE.get(ch, ch) for ch in code)
    cases = [
        ["\ufeff" + game, acc, code],  # a UTF-8 BOM first: the header is still the player's
        [game.lower(), acc, code.lower()],
        [game[:-1] + "6LEAK", acc, "WRONGCODE"],  # another game and a wrong code: the game is not quoted back
        [game + "\x1b[2J", acc, code],
        [game, acc, twin],  # look-alikes that upper() turns into the code
        [game, acc, twin.lower()],
        [game, "".join(chr(0x660 + int(d)) if d.isdigit() else d for d in acc), code],
        [game, acc + "\x00", code],
        [game, acc, code + "\u200b"],
        [game, acc, "\u202e" + code],
    ]
    return account, cases[index]


@pytest.mark.parametrize("ruleset", ["covert", "nukecards"])
@pytest.mark.parametrize("index", range(10))
def test_known_headers(request: pytest.FixtureRequest, ruleset: str, index: int) -> None:
    ctx = request.getfixturevalue(ruleset)[1]
    account, header = _header_case(ctx, index)
    kind = header_kind(header, ctx.header(account), ctx.spec.policy.header)
    body = [ln for ln in ctx.bodies.get(account, []) if ln.strip()] or ctx.corpus[:2]
    check_header_mail(Submission(ctx, account, header, body, kind=kind))


@pytest.mark.parametrize("ruleset", ["covert", "nukecards"])
def test_largest_mail_in_time(request: pytest.FixtureRequest, ruleset: str) -> None:
    """50 lines of MAX_LINE characters, each a real order's opening and then a run that never fits."""
    ctx, account = _world(request.getfixturevalue(ruleset))
    lines = [(o.pattern.split("{", 1)[0] + run * MAX_LINE)[:MAX_LINE - 1] + "x"
             for run in (" ", ", ", "9", " ,") for o in ctx.spec.orders]
    out = play_mail(Submission(ctx, account, ctx.header(account), (lines * 50)[:50]))
    assert out.seconds < TURN_SECONDS, f"50 lines of {MAX_LINE} characters took {out.seconds:.1f} s"
