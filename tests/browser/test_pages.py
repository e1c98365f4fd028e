"""Demo games' HTML reports -> headless Chromium: each page loads with no console error, and its screenshot is
the window's size, not blank, and shows its map's colours."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from rulesdsl.cli import main

ROOT = Path(__file__).resolve().parents[2]
WIDTH, HEIGHT = 900, 1000
# Screenshots at half scale: a quarter of the pixels for the test to decode, and the map's cells and the
# legend's swatches still have solid insides.
SCALE = 0.5

# The demo pages: (ruleset, scenario, orders of the first turn or None for the starting reports, the colours
# its map must show). The colours are those the ruleset's HTML template gives: Covert's own countries, and
# Warlord's sea, own city and own units (a start with generals, so the page holds tactical maps too).
DEMOS = {
    "covert": ("covert", ROOT / "examples/covert/scenario.yaml", ROOT / "examples/covert/day1",
               [(0x59, 0xA1, 0x4F), (0xD9, 0xD9, 0xD9)]),
    "nukecards": ("nukecards", ROOT / "examples/nukecards/scenario.yaml", ROOT / "examples/nukecards/round1", []),
    "warlord": ("warlord", ROOT / "tests/golden/warlord/generals/scenario.yaml", None,
                [(0x4F, 0x81, 0xBD), (0xC0, 0x00, 0x00), (0xFF, 0x8C, 0x00)]),
}


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.fail("Debian's chromium is needed for the HTML report tests and is not installed: "
                    "apt-get install -y chromium (.ci/run installs it)")
    return found


def shoot(pages: list[Path], out: Path) -> list[tuple[Path, subprocess.CompletedProcess[str]]]:
    """Screenshots of `pages`, taken side by side (a browser each takes most of a second to start)."""
    exe = chromium()
    procs = []
    for i, page in enumerate(pages):
        png = out / f"shot-{i}.png"
        # --enable-logging=stderr: the page's console messages come out as "CONSOLE" lines, to be read below.
        cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
               "--enable-logging=stderr", "--v=0", f"--user-data-dir={out / f'profile-{i}'}",
               f"--force-device-scale-factor={SCALE}", f"--window-size={WIDTH},{HEIGHT}", f"--screenshot={png}",
               page.as_uri()]
        procs.append((png, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
    done = []
    for png, proc in procs:
        stdout, stderr = proc.communicate(timeout=60)
        done.append((png, subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)))
    return done


def console_errors(stderr: str) -> list[str]:
    """The page's own errors in Chromium's log: console messages, uncaught exceptions, failed loads (the
    browser's own complaints about D-Bus and the GPU on a headless machine are not the page's)."""
    return [line for line in stderr.splitlines()
            if "CONSOLE" in line or "Uncaught" in line or "Failed to load resource" in line
            or "net::ERR_" in line]


def read_png(path: Path) -> tuple[int, int, list[bytes]]:
    """A PNG's width, height and rows of RGB pixels: enough of PNG for Chromium's 8-bit RGB(A) screenshots,
    so that the test needs no imaging library."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = chunk
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in (2, 6) and interlace == 0, f"{path}: an unexpected PNG kind"
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        prev = line
        rows.append(bytes(line) if bpp == 3 else bytes(v for j, v in enumerate(line) if j % 4 != 3))
    return width, height, rows


def colours(rows: list[bytes]) -> set[tuple[int, int, int]]:
    return {(r[i], r[i + 1], r[i + 2]) for r in rows for i in range(0, len(r), 3)}


@pytest.fixture(scope="module")
def demo_pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each demo game started (and Covert's and the card game's first turn run): one report page each."""
    base = tmp_path_factory.mktemp("demos")
    pages = {}
    for name, (ruleset, scenario, orders, _) in DEMOS.items():
        game = base / name
        assert main(["new", str(ROOT / "rulesets" / f"{ruleset}.rules"), str(game), "--scenario", str(scenario)]) == 0
        reports = game / "turns" / "turn-000" / "reports"
        if orders is not None:
            assert main(["turn", str(game), *map(str, sorted(orders.glob("*.txt")))]) == 0
            reports = game / "turns" / "turn-001" / "reports"
        pages[name] = sorted(reports.glob("*.html"))[0]
    return pages


BROKEN = "<!DOCTYPE html><html><body><p>x</p><script>no_such_function();</script></body></html>\n"


@pytest.fixture(scope="module")
def shots(demo_pages: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[
        Path, subprocess.CompletedProcess[str]]]]:
    """The screenshots of the demo pages, and of a page whose script fails, all taken at once."""
    out = tmp_path_factory.mktemp("shots")
    broken = out / "broken.html"
    broken.write_text(BROKEN, encoding="utf-8")
    pages = {**demo_pages, "broken": broken}
    yield dict(zip(pages, shoot(list(pages.values()), out), strict=True))


@pytest.mark.parametrize("name", list(DEMOS))
def test_demo_page_loads_and_shows_its_map(name: str, shots: dict[str, tuple[Path, subprocess.CompletedProcess[str]]]
                                           ) -> None:
    png, done = shots[name]
    assert done.returncode == 0, done.stderr
    assert console_errors(done.stderr) == []
    width, height, rows = read_png(png)
    assert (width, height) == (int(WIDTH * SCALE), int(HEIGHT * SCALE))
    seen = colours(rows)
    assert len(seen) > 8, f"the {name} page looks blank: {len(seen)} colours"
    missing = [c for c in DEMOS[name][3] if c not in seen]
    assert missing == [], f"the {name} page's map lacks the colours {missing}"


def test_a_page_with_a_script_error_is_caught(shots: dict[str, tuple[Path, subprocess.CompletedProcess[str]]]) -> None:
    # The console check above must be able to fail: a page whose script throws is reported.
    png, done = shots["broken"]
    assert any("no_such_function" in line for line in console_errors(done.stderr)), done.stderr
    assert png.is_file()
