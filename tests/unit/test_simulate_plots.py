"""rulesdsl/simulate/plots.py: a run's Stats -> four PNG charts, the same bytes every time."""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import pytest

from rulesdsl.game.errors import GameError
from rulesdsl.simulate.plots import FILES, write_plots
from rulesdsl.simulate.run import run
from rulesdsl.simulate.stats import Stats
from tests.unit.test_simulate_run import SEATS, _jobs, fake_play

PNG = b"\x89PNG\r\n\x1a\n"


def _size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_four_charts_the_same_bytes_each_time(tmp_path: Path) -> None:
    stats = run(_jobs(30), SEATS, workers=1, play=fake_play)
    first = write_plots(stats, tmp_path / "a" / "plots", "Fake")
    second = write_plots(stats, tmp_path / "b", "Fake")
    assert [p.name for p in first] == [p.name for p in second] == list(FILES)
    for a, b in zip(first, second, strict=True):
        data = a.read_bytes()
        width, height = _size(data)
        assert width >= 600 and height >= 250 and len(data) > 5000
        assert data == b.read_bytes(), a.name
        assert b"matplotlib" not in data  # no version in the metadata
    # Another run's charts differ.
    other = write_plots(run(_jobs(30, seed=9), SEATS, workers=1, play=fake_play), tmp_path / "c", "Fake")
    assert other[0].read_bytes() != first[0].read_bytes()


def test_charts_of_nothing(tmp_path: Path) -> None:
    paths = write_plots(Stats(), tmp_path)
    assert all(_size(p.read_bytes())[0] > 0 for p in paths)


def test_without_matplotlib_it_says_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    monkeypatch.setitem(sys.modules, "matplotlib.backends.backend_agg", None)
    with pytest.raises(GameError, match=r"--plots needs matplotlib: pip install 'rulesdsl\[simulate\]'"):
        write_plots(Stats(), tmp_path)
    assert not any(tmp_path.iterdir())
