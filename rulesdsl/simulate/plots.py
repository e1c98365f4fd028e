"""A run's Stats -> PNG charts in a folder: wins by seat, game length, orders written and carried out, the top
refusal reasons.

matplotlib is imported here and only when charts are asked for (a run without --plots never loads it), and
only its object API with the Agg canvas: no pyplot, so no global figure state and no display needed. The files
are the same bytes for the same Stats: no timestamp, no version in the PNG's metadata.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rulesdsl.game.errors import GameError
from rulesdsl.simulate.stats import Stats

FILES = ("wins.png", "length.png", "orders.png", "refusals.png")
LABEL = 60  # a refusal reason longer than this is cut, so that the chart keeps room for its bars
DPI = 100
WIDTH = 8.0  # inches


def write_plots(stats: Stats, folder: Path, title: str = "") -> list[Path]:
    """Writes FILES into `folder` (made if missing) and returns their paths. A chart of nothing (no order
    written, no refusal) says so in place of bars."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise GameError("--plots needs matplotlib: pip install 'rulesdsl[simulate]' (or pip install matplotlib)") \
            from None
    folder.mkdir(parents=True, exist_ok=True)
    prefix = f"{title}: " if title else ""
    charts = (_wins, _length, _orders, _refusals)
    written = []
    for name, chart in zip(FILES, charts, strict=True):
        fig = Figure(figsize=(WIDTH, 4.5), dpi=DPI)
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        chart(fig, ax, stats, prefix)
        fig.tight_layout()
        path = folder / name
        # The PNG's metadata would name matplotlib's version: charts of the same run would differ between
        # machines, and a reviewer's diff would show a file that did not change.
        fig.savefig(path, format="png", dpi=DPI, metadata={"Software": None})
        written.append(path)
    return written


def _wins(fig: Any, ax: Any, stats: Stats, prefix: str) -> None:
    seats = max([len(stats.seats), *(s + 1 for s in stats.wins)])
    labels = [stats.seats[s] if s < len(stats.seats) and stats.seats[s] else f"seat {s + 1}" for s in range(seats)]
    labels.append("no winner")
    counts = [stats.wins.get(s, 0) for s in range(seats)] + [stats.no_winner]
    bars = ax.bar(range(len(labels)), counts, color=["tab:blue"] * seats + ["tab:gray"])
    ax.bar_label(bars, labels=[f"{n:,}" for n in counts], padding=2)
    ax.set_xticks(range(len(labels)), labels, rotation=30 if len(labels) > 6 else 0, ha="right" if len(labels) > 6
                  else "center")
    ax.set_ylabel("games won")
    ax.set_title(f"{prefix}wins by seat ({stats.games:,} games)")


def _length(fig: Any, ax: Any, stats: Stats, prefix: str) -> None:
    from matplotlib.ticker import MaxNLocator

    turns = sorted(stats.lengths)
    ax.bar(turns, [stats.lengths[t] for t in turns], width=0.8, color="tab:green")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # turns are whole
    ax.set_xlabel("turns played")
    ax.set_ylabel("games")
    _, median, mean, _ = stats.length_summary()
    ax.set_title(f"{prefix}game length (median {median:g}, mean {mean:.1f} turns)")
    if not turns:
        _nothing(ax, "no games")


def _orders(fig: Any, ax: Any, stats: Stats, prefix: str) -> None:
    rows = stats.orders()
    fig.set_size_inches(WIDTH, max(3.0, 1.2 + 0.4 * len(rows)))
    names = [name for name, _, _ in reversed(rows)]  # the first order at the top
    places = list(range(len(names)))
    ax.barh([p + 0.2 for p in places], [w for _, w, _ in reversed(rows)], height=0.4, label="written",
            color="tab:blue")
    ax.barh([p - 0.2 for p in places], [d for _, _, d in reversed(rows)], height=0.4, label="carried out",
            color="tab:orange")
    ax.set_yticks(places, names)
    ax.set_xlabel("lines")
    ax.set_title(f"{prefix}orders written and carried out", loc="left")
    if rows:
        # Above the bars at the right, beside the title: never over a bar (the longest reaches the right edge).
        ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=2, frameon=False, borderaxespad=0.2)
    else:
        _nothing(ax, "no orders written")


def _refusals(fig: Any, ax: Any, stats: Stats, prefix: str) -> None:
    top = stats.top_reasons()
    fig.set_size_inches(WIDTH + 2, max(3.0, 1.2 + 0.3 * len(top)))
    labels = [_cut(reason) for reason, _ in reversed(top)]
    ax.barh(range(len(top)), [n for _, n in reversed(top)], color="tab:red")
    ax.set_yticks(range(len(top)), labels, fontsize=8)
    ax.set_xlabel("lines refused")
    ax.set_title(f"{prefix}top refusal reasons")
    if not top:
        _nothing(ax, "no refusals")


def _cut(text: str) -> str:
    return text if len(text) <= LABEL else f"{text[:LABEL - 3]}..."


def _nothing(ax: Any, what: str) -> None:
    ax.text(0.5, 0.5, what, ha="center", va="center", transform=ax.transAxes)
