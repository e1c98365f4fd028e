"""Warlord's 100-player starting position -> the time and size of its HTML report pages, against the text.

Run: python benchmarks/bench_html.py [--players 100] [--seed 1] [--repeat 3]

A generated 320 x 99 world (as bench_warlord.py makes it); then, for every player, over the same report data:
the text (the ruleset's Jinja template), the page (its HTML template, the strategic map an SVG) and the
default page (no template: what a ruleset without one gets). Best of --repeat runs, for all the players.

Figures on this machine (2 cores, Python 3.11, shared with other jobs), 100 players, seed 1, two runs:
  report data 0.04-0.09 s; text 0.01 s; HTML page 0.03-0.05 s (12 KB a page); default page 0.03-0.07 s
so the pages add some 0.05 s to a 100-player turn of 1.1 to 1.6 s (bench_warlord.py --turns 2 on the same
loaded machine: reports 0.55-0.83 s of it, text, data, JSON and pages). The map is drawn a run of one
symbol a rectangle, not a cell a rectangle.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from warlord_game import best, new_game

from rulesdsl.compiler import load_template
from rulesdsl.runtime.core import unchanging
from rulesdsl.runtime.html import default_page, render_html
from rulesdsl.runtime.report import render, report_data


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = new_game(Path(tmp), args.players, args.seed)
        game = folder.load_game()
        template = load_template(game.spec)
        with unchanging(game):
            datas = [report_data(game, p) for p in game.all_players]
            t_data = best(args.repeat, lambda: [report_data(game, p) for p in game.all_players])
        t_text = best(args.repeat, lambda: [render(game.spec, d, template) for d in datas])
        t_html = best(args.repeat, lambda: [render_html(game.spec, d) for d in datas])
        t_default = best(args.repeat, lambda: [default_page(d) for d in datas])
        size = sum(len(render_html(game.spec, d).encode()) for d in datas) / len(datas) / 1000
        dsize = sum(len(default_page(d).encode()) for d in datas) / len(datas) / 1000
        print(f"{len(datas)} players: report data {t_data:.2f} s; text {t_text:.2f} s; "
              f"HTML page {t_html:.2f} s ({size:.0f} KB a page); "
              f"default page {t_default:.2f} s ({dsize:.0f} KB a page)")


if __name__ == "__main__":
    main()
