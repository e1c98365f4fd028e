"""Long order lines (runs of spaces, commas, digits after a real order's opening) -> a turn in bounded time."""

from __future__ import annotations

from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from tests.fuzz.properties import play_mail
from tests.fuzz.strategies import slow_mail
from tests.fuzz.world import Context


# Not shrunk: each try of a slow input takes the whole time limit, and a failure already prints its long runs
# short (`' ' * 5000`).
@settings(max_examples=max(3, settings().max_examples // 10), phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(st.data())
def test_long_lines_finish_in_time(worlds: list[Context], data: st.DataObject) -> None:
    play_mail(data.draw(slow_mail(worlds), label="mail"))  # it fails past world.TURN_SECONDS
