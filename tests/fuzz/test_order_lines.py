"""Random and mutated order lines, fed to both shipped rulesets -> the properties of properties.py hold."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.properties import check_order_mail
from tests.fuzz.strategies import order_mail
from tests.fuzz.world import Context


@given(st.data())
def test_fuzzed_order_lines(worlds: list[Context], data: st.DataObject) -> None:
    check_order_mail(data.draw(order_mail(worlds), label="mail"))
