"""Hypothesis draws -> fuzzed submissions of one player: hostile order lines, and headers that do or do not
authenticate."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from hypothesis import strategies as st

from tests.fuzz import mutations
from tests.fuzz.world import MAX_LINE, Context, ascii_upper, describe, skeleton

T = TypeVar("T")


class DrawPicker:
    """The mutations' choices, drawn by hypothesis so that a failure shrinks."""

    def __init__(self, draw: Any) -> None:
        self.draw = draw

    def integer(self, lo: int, hi: int) -> int:
        result: int = self.draw(st.integers(lo, hi))
        return result

    def choice(self, items: Sequence[T]) -> T:
        return items[self.draw(st.integers(0, len(items) - 1))]


class Submission:
    """One player's mail: header lines (blank lines among them), then order lines.

    Not a dataclass: hypothesis would print its game context field by field instead of its __repr__."""

    def __init__(self, ctx: Context, account: str, header: list[str], body: list[str], crlf: bool = False,
                 kind: str = "genuine", notes: list[str] | None = None) -> None:
        self.ctx = ctx
        self.account = account
        self.header = header
        self.body = body
        self.crlf = crlf
        self.kind = kind  # of the header: genuine, hostile, wrong-game or unsure
        self.notes = notes or []

    @property
    def lines(self) -> list[str]:
        return self.header + self.body

    @property
    def body_start(self) -> int:
        """The index of the first line after the header, as the engine finds it: blank lines skipped."""
        wanted, seen = len(self.ctx.spec.policy.header), 0
        for i, line in enumerate(self.lines):
            if (line.removeprefix("\ufeff") if i == 0 else line).strip():  # a BOM starts the text, not a line
                seen += 1
                if seen == wanted:
                    return i + 1
        return len(self.lines)

    @property
    def text(self) -> str:
        return ("\r\n" if self.crlf else "\n").join(self.lines) + ("\r\n" if self.crlf else "\n")

    def __repr__(self) -> str:
        shown = ",\n    ".join(describe(line) for line in self.lines)
        return (f"Submission({self.ctx.id}, account {self.account}, {self.kind} header, "
                f"{'CRLF' if self.crlf else 'LF'}, {'; '.join(self.notes) or 'no header changes'}):\n"
                f"  lines = [\n    {shown}]")


@st.composite
def contexts(draw: Any, worlds: Sequence[Context]) -> Context:
    return worlds[draw(st.integers(0, len(worlds) - 1))]


def _interleave(pick: DrawPicker, base: list[str], extra: list[str]) -> list[str]:
    out = list(base)
    for line in extra:
        out.insert(pick.integer(0, len(out)), line)
    return out


def genuine_header(pick: DrawPicker, ctx: Context, account: str, notes: list[str]) -> list[str]:
    """The player's own header, written in ways that must still authenticate: a UTF-8 BOM first, any case,
    spaces and tabs round the lines, blank lines before and between."""
    lines = ctx.header(account)
    out = []
    for i, line in enumerate(lines):
        if pick.integer(0, 3) == 0:
            how = pick.integer(0, 1)
            line = line.lower() if how else line.swapcase()
            notes.append(f"header line {i + 1} in another case")
        if pick.integer(0, 3) == 0:
            line = pick.choice([" ", "\t", "  "]) + line + pick.choice(["", " ", "\t "])
            notes.append(f"spaces round header line {i + 1}")
        if pick.integer(0, 4) == 0:
            out += [""] * pick.integer(1, 2)
            notes.append(f"blank lines before header line {i + 1}")
        out.append(line)
    if pick.integer(0, 4) == 0:
        out[0] = "\ufeff" + out[0]
        notes.append("a UTF-8 BOM first")
    return out


@st.composite
def order_mail(draw: Any, worlds: Sequence[Context], most_lines: int = 6) -> Submission:
    """An authenticated player's mail: their example orders with fuzzed lines among them."""
    pick = DrawPicker(draw)
    ctx = draw(contexts(worlds))
    account = pick.choice([a for a, _, _ in ctx.players])
    notes: list[str] = []
    header = genuine_header(pick, ctx, account, notes)
    base = [line for line in ctx.bodies.get(account, []) if line.strip()] if pick.integer(0, 3) else []
    extra = [mutations.fuzz_line(pick, ctx.corpus, MAX_LINE) for _ in range(pick.integer(1, most_lines))]
    return Submission(ctx, account, header, _interleave(pick, base, extra), crlf=pick.integer(0, 5) == 0,
                      notes=notes)


def _classify(line: str, genuine: str) -> str:
    stripped = line.strip(" \t")  # the spaces of docs/language.md §8; a no-break space is a character
    if ascii_upper(stripped) == ascii_upper(genuine):
        return "same"
    if ascii_upper(skeleton(line)) == ascii_upper(skeleton(genuine)):
        return "unsure"  # it differs by a control or format character, or a space inside
    return "other"


@st.composite
def mutated_header(draw: Any, worlds: Sequence[Context]) -> Submission:
    """A player's mutated header lines: lines changed, dropped, doubled or swapped, garbage before.
    Its kind says what the engine must do with it: `hostile` (the account or code is not the player's,
    or the header is not in its form) is not processed and shows no text of the mail to anyone;
    `wrong-game` (account and code right) is not processed; `unsure` is a change by a control character
    or inner space that the engine may take either way; `genuine` is processed."""
    pick = DrawPicker(draw)
    ctx = draw(contexts(worlds))
    account = pick.choice([a for a, _, _ in ctx.players])
    genuine = ctx.header(account)
    notes: list[str] = []
    header = list(genuine)
    for _ in range(pick.integer(1, 2)):
        op = pick.integer(0, 5)
        i = pick.integer(0, len(header) - 1)
        if op <= 2:
            header[i] = mutations.mutate(pick, header[i], min(MAX_LINE, 200), ctx.corpus, most=3)
            notes.append(f"header line {i + 1} mutated")
        elif op == 3:
            header[i] = mutations.fuzz_line(pick, ctx.corpus, min(MAX_LINE, 200))
            notes.append(f"header line {i + 1} replaced")
        elif op == 4:
            j = pick.integer(0, len(header) - 1)
            header[i], header[j] = header[j], header[i]
            notes.append(f"header lines {i + 1} and {j + 1} swapped")
        else:
            if pick.integer(0, 1) and len(header) > 1:
                del header[i]
                notes.append(f"header line {i + 1} dropped")
            else:
                header.insert(i, pick.choice([header[i], mutations.fuzz_line(pick, ctx.corpus, 200)]))
                notes.append(f"a line inserted before header line {i + 1}")
    header = [line.replace("\r", "").replace("\n", "") for line in header]
    return Submission(ctx, account, header, [], kind=header_kind(header, genuine, ctx.spec.policy.header),
                      notes=notes)


def header_kind(header: list[str], genuine: list[str], forms: Sequence[str]) -> str:
    """What the engine must make of these header lines (see mutated_header)."""
    if any(line.strip(" \t") and not skeleton(line) for line in header):
        return "unsure"  # a line of controls only: the engine may skip it as blank, or not
    written = [line for line in header if line.strip(" \t")]
    if len(written) < len(genuine):
        return "hostile"
    verdicts = [_classify(line, g) for line, g in zip(written, genuine, strict=False)]
    who = [v for v, form in zip(verdicts, forms, strict=True) if form in ("{account}", "{code}")]
    game = [v for v, form in zip(verdicts, forms, strict=True) if form not in ("{account}", "{code}")]
    if "other" in who:
        return "hostile"
    if "unsure" in who or "unsure" in game:
        return "unsure"
    if "other" in game:
        return "wrong-game"
    return "genuine"


@st.composite
def header_mail(draw: Any, worlds: Sequence[Context]) -> Submission:
    """A player's mail with a mutated header (see mutated_header), then their example orders and a few
    fuzzed lines."""
    pick = DrawPicker(draw)
    sub = draw(mutated_header(worlds))
    ctx, account = sub.ctx, sub.account
    base = [line for line in ctx.bodies.get(account, []) if line.strip()]
    extra = [mutations.fuzz_line(pick, ctx.corpus, 200) for _ in range(pick.integer(0, 2))]
    return Submission(ctx, account, sub.header, _interleave(pick, base, extra), kind=sub.kind, notes=sub.notes)


@st.composite
def slow_mail(draw: Any, worlds: Sequence[Context]) -> Submission:
    """An authenticated mail of up to 50 long lines made to trip a backtracking pattern."""
    pick = DrawPicker(draw)
    ctx = draw(contexts(worlds))
    account = pick.choice([a for a, _, _ in ctx.players])
    body = [mutations.long_line(pick, ctx.corpus, MAX_LINE) for _ in range(pick.integer(1, 50))]
    return Submission(ctx, account, ctx.header(account), body)
