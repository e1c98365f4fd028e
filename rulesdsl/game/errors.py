"""A refusal a GM can act on -> the message `rulesdsl` prints (exit status 2)."""

from __future__ import annotations


class GameError(Exception):
    """A refusal a GM can act on: bad input, a rules error, a game that is over, a file that cannot be
    written (named)."""
