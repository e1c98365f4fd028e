"""A `Player` argument as a line writes it (account or name, any case) -> the player, found in a table kept
for the game rather than by going through every player for each argument."""

from __future__ import annotations

from typing import Any

from rulesdsl.runtime.core import PlayerBase, Thing
from rulesdsl.runtime.orders import players_written, read_arg


class _Game:
    def __init__(self, players: list[PlayerBase]) -> None:
        self.all_players = players
        self.lookup: dict[str, dict[str, Thing]] = {}


def _player(key: str, name: str, ordinal: int) -> PlayerBase:
    p = PlayerBase(key, ordinal)
    p.name = name
    return p


def _read(g: Any, raw: str) -> tuple[Any, str | None]:
    return read_arg(g, ("thing", "Player"), raw, "target")


def test_a_player_is_read_by_account_or_name_in_any_case_and_the_first_wins() -> None:
    ann, bob, cat = _player("101", "Ann", 0), _player("102", "101", 1), _player("103", "Cat", 2)
    g = _Game([ann, bob, cat])
    assert _read(g, "ann") == (ann, None)
    assert _read(g, "103") == (cat, None)
    # Bob's name is Ann's account: Ann comes first, as going through the players in order finds her.
    assert _read(g, "101") == (ann, None)
    assert _read(g, "Dan") == (None, 'there is no player "Dan"')


def test_the_table_is_made_once_per_list_of_players_and_follows_a_new_one() -> None:
    ann = _player("101", "Ann", 0)
    g = _Game([ann])
    first = players_written(g)
    assert players_written(g) is first
    dan = _player("104", "Dan", 1)
    g.all_players.append(dan)
    assert _read(g, "dan") == (dan, None)
    g.all_players = [dan]
    assert _read(g, "ann") == (None, 'there is no player "ann"')
