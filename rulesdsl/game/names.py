"""Accounts, player names and mailed file names -> file names that stay inside their folder.

Every file name in a game folder that is made from something a player or a scenario chose is derived
here, and nowhere else. A derived name is one path component of letters, digits, `.`, `_` and `-`,
never starting with a dot (so never `.`, `..` nor hidden), bounded in length.
"""

from __future__ import annotations

import re

from rulesdsl.game.errors import GameError

# The scenario and state schemas hold accounts to this, so a report's name keeps the account as it is.
ACCOUNT = re.compile(r"[A-Za-z0-9_-]{1,32}")
_SAFE = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}")
_MAX_ORDER_NAME = 80


def _checked(name: str) -> str:
    if not _SAFE.fullmatch(name):
        # Unreachable from checked input: the schemas refuse such accounts first. A guard, not a message.
        raise GameError(f"unsafe file name {name!r}")
    return name


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "player"


def report_base(account: str, player_name: str) -> str:
    """`ACCOUNT-slug-of-name`: the report's .txt and .json are this plus their suffix."""
    if not ACCOUNT.fullmatch(account):
        raise GameError(f"account {account!r} cannot name a file")
    return _checked(f"{account}-{slug(player_name)}")


def order_file(number: int, received_name: str) -> str:
    """`NN-name` for the number-th submission of a turn: the mailed file's name with every character
    other than letters, digits, `.`, `_` and `-` made `_`, its length bounded (keeping its suffix)."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", received_name)
    if len(name) > _MAX_ORDER_NAME:
        _, dot, suffix = name.rpartition(".")
        keep = f"{dot}{suffix}" if dot and len(suffix) <= 10 else ""
        name = name[:_MAX_ORDER_NAME - len(keep)] + keep
    return _checked(f"{number:02d}-{name or 'mail'}")

