"""runtime.core's `pure` and `unchanging`: a decorated function -> the same values as the plain function, each
call computed once inside a window of its game and every time outside one.

The wrapper has one form per number of arguments (one, two, any other) and a cache per function that belongs
to one window at a time; these tests hold each form to the plain reading."""

from __future__ import annotations

import collections
from typing import Any

import pytest

from rulesdsl.runtime.core import pure, unchanging


class FakeGame:
    """What `pure` and `unchanging` read of a game: its `window`, and here a value the functions read."""

    def __init__(self, base: int) -> None:
        self.window = None
        self.base = base


calls: collections.Counter[str] = collections.Counter()


def plain0(g: Any) -> int:
    calls["0"] += 1
    return int(g.base)


def plain1(g: Any, a: int) -> int:
    calls["1"] += 1
    return int(g.base) + a


def plain2(g: Any, a: int, b: str) -> str:
    calls["2"] += 1
    return f"{g.base}/{a}/{b}"


def plain3(g: Any, a: int, b: int, c: int | None) -> int:
    calls["3"] += 1
    return int(g.base) + a * b + (c or 0)


CASES: list[tuple[str, Any, list[tuple[Any, ...]]]] = [
    ("0", plain0, [()]),
    ("1", plain1, [(1,), (2,), (1,)]),
    ("2", plain2, [(1, "x"), (1, "y"), (1, "x")]),
    ("3", plain3, [(1, 2, None), (2, 1, None), (1, 2, 0), (1, 2, None)]),
]


@pytest.mark.parametrize(("name", "plain", "args"), CASES)
def test_inside_a_window_each_call_is_computed_once_with_the_plain_value(name: str, plain: Any,
                                                                         args: list[tuple[Any, ...]]) -> None:
    fn = pure(plain)
    g = FakeGame(10)
    calls.clear()
    for a in args:
        assert fn(g, *a) == plain(g, *a)
    assert calls[name] == 2 * len(args)  # outside a window: every call computed
    calls.clear()
    with unchanging(g):
        for a in args * 2:
            assert fn(g, *a) == plain(g, *a)
            with unchanging(g):  # a window inside another one is the same window
                assert fn(g, *a) == plain(g, *a)
    # each distinct call once by the wrapper, and every call of the plain function itself
    assert calls[name] == len(set(args)) + 2 * 2 * len(args)


@pytest.mark.parametrize(("name", "plain", "args"), CASES)
def test_a_value_is_never_read_outside_the_window_that_computed_it(name: str, plain: Any,
                                                                  args: list[tuple[Any, ...]]) -> None:
    fn = pure(plain)
    g, h = FakeGame(10), FakeGame(20)
    with unchanging(g):
        before = [fn(g, *a) for a in args]
        g.base = 11  # breaks the window's promise: the remembered values show it
        assert [fn(g, *a) for a in args] == before
        with unchanging(h):  # another game's window, open at the same time: its own values
            assert [fn(h, *a) for a in args] == [plain(h, *a) for a in args]
            assert [fn(g, *a) for a in args] == [plain(g, *a) for a in args]  # g's cache was given up for h's
    assert [fn(g, *a) for a in args] == [plain(g, *a) for a in args]  # after the window: computed again
    with unchanging(g):  # a later window: nothing of the earlier one
        g.base = 12
        assert [fn(g, *a) for a in args] == [plain(g, *a) for a in args]


def test_a_closed_window_leaves_no_value_behind() -> None:
    fn = pure(plain1)
    g = FakeGame(1)
    with unchanging(g):
        window = g.window
        assert window is not None
        fn(g, 1)
        fn(g, 2)
        assert [len(c) for c in window.caches] == [2]
    assert g.window is None
    assert [len(c) for c in window.caches] == [0]


def test_a_value_without_a_window_attribute_is_computed_every_time() -> None:
    fn = pure(plain1)

    class Bare:
        base = 5

    calls.clear()
    assert [fn(Bare(), 1), fn(Bare(), 1)] == [6, 6]
    assert calls["1"] == 2
