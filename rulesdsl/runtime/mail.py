"""A player's mailed submission (header lines, then order lines) -> who sent it and each line's order, or the
reason it is refused.

Reading only: nothing here changes the game. The engine decides what an accepted order does to the turn
(a personal order is carried out at once, a discard drops orders, others are filed for choosing).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from rulesdsl.runtime.core import OrderRec, PlayerBase
from rulesdsl.runtime.orders import GameView, OrderReader, header_patterns, line_problem, shown
from rulesdsl.runtime.spec import OrderSpec, RulesetSpec
from rulesdsl.runtime.syntax import SPACES, ascii_upper

# Lines end only where mail ends them: str.splitlines() would also split at a form feed, \x1c-\x1e, \x85
# and U+2028/U+2029, so one line written could be read as two orders.
LINE_END = re.compile(r"\r\n|\r|\n")
# The account and code in the header of the GM's submission for no position (game/store.py writes it).
WORLD_ACCOUNT = "*"


@dataclass
class Refusal:
    line: int
    text: str
    reason: str


@dataclass
class Mail:
    """One submission, its header read."""

    label: str
    # The game id its header names (shown) and whether it is this game; None where the header names no game.
    game: tuple[str, bool] | None = None
    player: PlayerBase | None = None  # whose orders they are, when the header says
    unrouted: list[str] = field(default_factory=list)  # what is wrong with its header, for the GM
    notice: str | None = None  # why the player's orders in it are not processed, for the player
    lines: list[tuple[int, str]] = field(default_factory=list)  # (line number, text as written), none blank
    world: bool = False  # the GM's submission for no position (`rulesdsl gm GAMEDIR order --world`)


@dataclass
class Accepted:
    """An order line read: the line as written without the spaces round it, and its order."""

    line: int
    text: str
    spec: OrderSpec
    rec: OrderRec


def by_account(players: list[PlayerBase]) -> dict[str, PlayerBase]:
    """Players by account in ASCII capitals, as a header's account is read; the first where two are alike."""
    return {ascii_upper(p.account): p for p in reversed(players)}


class MailReader:
    """Reads submissions with the ruleset's header lines and order syntaxes."""

    def __init__(self, spec: RulesetSpec, reader: OrderReader) -> None:
        self.spec = spec
        self.reader = reader
        self.header = header_patterns(spec.policy)

    def read(self, label: str, text: str, accounts: Mapping[str, PlayerBase], number: str, game_id: str,
             world: bool = False) -> Mail:
        """The header of a submission to game `number` (`game_id` as players see it): whose orders follow,
        found in `accounts` (each player by account in ASCII capitals, as `by_account` gives them).

        Nothing the sender wrote reaches a report before the account and access code match; what reaches
        the GM (the label, a header line) is shown with its control characters escaped."""
        mail = Mail(label)
        lines = LINE_END.split(text.removeprefix("\ufeff"))
        slots: dict[str, str] = {}
        pos = 0
        for form, pat in zip(self.spec.policy.header, self.header, strict=True):
            while pos < len(lines) and not lines[pos].strip(SPACES):
                pos += 1
            if pos >= len(lines):
                mail.unrouted.append(f"{shown(label)}: the header lines are missing")
                return mail
            problem = line_problem(lines[pos])
            m = None if problem is not None else pat.match(lines[pos])
            if m is None:
                why = f" ({problem})" if problem is not None else ""
                mail.unrouted.append(f"{shown(label)}: line {pos + 1} \"{shown(lines[pos].strip(SPACES))}\" is not "
                                     f"a header line like \"{form}\"{why}")
                # Try still to find whose orders they are, so the player hears why nothing happened.
                slots.setdefault("_bad", str(pos + 1))
            else:
                slots.update(m)
            pos += 1
        # Which game the mail is for is told by its header alone, whoever sent it: the GM is warned of a
        # turn of another game's mail even when that game's accounts and codes are not this game's.
        this_game = "game" in slots and ascii_upper(slots["game"]) == ascii_upper(number)
        named = shown(self.spec.game_id.replace("{number}", slots["game"])) if "game" in slots else ""
        mail.game = (named, this_game) if "game" in slots else None
        account = ascii_upper(slots.get("account", ""))
        if world and account == WORLD_ACCOUNT and "_bad" not in slots:
            # The GM's own file, for no position: `*` is no account (letters, digits, `_`, `-`), so no
            # player's mail can be read as it; `world` only for the GM's files.
            mail.world = True
            mail.lines = [(i + 1, lines[i]) for i in range(pos, len(lines)) if lines[i].strip(SPACES)]
            return mail
        player = accounts.get(account)
        if player is None:
            if "account" not in slots and mail.unrouted:
                return mail  # the header lines not read say why: no account was written where one goes
            mail.unrouted.append(f"{shown(label)}: no player has account \"{shown(slots.get('account', '?'))}\"")
            return mail
        mail.player = player
        not_processed = f"Your orders in {shown(label)} were not processed:"
        if "_bad" in slots:
            mail.notice = f"{not_processed} line {slots['_bad']} of the header is not in the form the game expects."
        elif ascii_upper(slots.get("code", "")) != ascii_upper(player.code):
            mail.notice = f"{not_processed} the access code does not match."
        elif "game" in slots and not this_game:
            mail.notice = f"{not_processed} they are for game {named}, and this is game {game_id}."
        elif not player.active:
            mail.notice = f"{not_processed} you have left the game."
        else:
            mail.lines = [(i + 1, lines[i]) for i in range(pos, len(lines)) if lines[i].strip(SPACES)]
        return mail

    def order(self, g: GameView, player: PlayerBase, line: int, text: str) -> Accepted | Refusal:
        """One order line of `player`'s mail, as written: its order, or why it is refused."""
        raw = text.strip(SPACES)
        problem = line_problem(text)
        if problem is not None:
            return Refusal(line, shown(raw), problem)
        if not player.active:
            return Refusal(line, raw, "you have left the game")
        parsed = self.reader.read(g, player, raw, line)
        if parsed.rec is None or parsed.spec is None:
            return Refusal(line, raw, parsed.reason or "not an order of this game")
        return Accepted(line, raw, parsed.spec, parsed.rec)
