"""Mutated header lines (a player's account, access code and game) -> only the player's own mail is read, and
a mail that does not authenticate changes nothing but a notice and quotes nothing of itself."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.properties import check_header_mail
from tests.fuzz.strategies import header_mail
from tests.fuzz.world import Context


@given(st.data())
def test_mutated_headers(worlds: list[Context], data: st.DataObject) -> None:
    check_header_mail(data.draw(header_mail(worlds), label="mail"))
