"""Report data -> the player's HTML page: the ruleset's `html` template, else a default page; maps as inline SVG.

The page is built from the same data as the text report, needs no network and no JavaScript, and is the same
bytes for the same data (colours are given in order of first appearance, never by hash)."""

from __future__ import annotations

import math
import re
from functools import cache
from typing import Any

import jinja2
from jinja2 import sandbox
from markupsafe import Markup, escape

from rulesdsl.runtime.spec import RulesetSpec

# Colours for symbols and groups a template gives none for, in the order they first appear: far apart, and
# readable under dark text. Many more groups than colours repeat them; the legend still names each.
PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
           "#9c755f", "#bab0ac", "#86bcb6", "#d4a6c8", "#8cd17d", "#f1ce63", "#a0cbe8", "#ffbe7d")
UNKNOWN = "#d9d9d9"  # a tile whose group is none: what the player does not know

# A colour a template gives is written into the SVG: only plain colour words and #hex, nothing that could
# close the attribute.
_COLOUR = re.compile(r"^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{1,30})$")

STYLE = """body{font-family:sans-serif;margin:1.5em;color:#222;max-width:70em}
h1{font-size:1.4em}h2{font-size:1.15em;border-bottom:1px solid #ccc;margin-top:1.4em}
table{border-collapse:collapse;margin:.4em 0}th,td{border:1px solid #ccc;padding:.15em .5em;text-align:left;
vertical-align:top}th{background:#f0f0f0}dl{margin:.4em 0}dt{font-weight:bold}dd{margin-left:1.5em}
.none{color:#888}.map svg{border:1px solid #999;background:#fff}.legend{list-style:none;padding:0}
.legend li{display:inline-block;margin:0 1em .3em 0}.swatch{display:inline-block;width:1em;height:1em;
border:1px solid #666;vertical-align:middle;margin-right:.3em}code{font-size:1.05em}"""


def _colour(value: Any) -> str:
    text = str(value)
    return text if _COLOUR.match(text) else UNKNOWN


def _legend_entries(legend: Any) -> dict[str, tuple[str, str]]:
    """A template's legend, `{symbol: [colour, meaning]}` or `{symbol: colour}`, as symbol -> (colour, meaning)."""
    out: dict[str, tuple[str, str]] = {}
    for key, val in (legend or {}).items():
        if isinstance(val, (list, tuple)):
            out[str(key)] = (_colour(val[0]), str(val[1]) if len(val) > 1 else "")
        else:
            out[str(key)] = (_colour(val), "")
    return out


def _palette(taken: set[str]) -> list[str]:
    """The palette without the colours a legend gave: two things never share a colour while the palette
    lasts."""
    return [c for c in PALETTE if c.lower() not in taken] or list(PALETTE)


def _swatches(entries: list[tuple[str, str, str]]) -> str:
    items = "".join(f'<li><span class="swatch" style="background:{colour}"></span><code>{escape(sym)}</code>'
                    + (f" {escape(meaning)}" if meaning else "") + "</li>"
                    for sym, colour, meaning in entries)
    return f'<ul class="legend">{items}</ul>'


def symbol_map(rows: Any, legend: Any = None, cell: int = 12, marks: Any = None) -> Markup:
    """Rows of symbols (a report field of `list of text`, one character a cell) as coloured cells and a legend.
    A blank is off the map and left empty. Symbols without a colour in `legend` take the palette's, in the
    order they first appear. `marks`, rows of the same shape, writes on the cells: a row is a text (a
    character a cell) or a list of texts (one a cell, its lines written top to bottom: a city above, a unit,
    its owner below); a blank mark writes nothing."""
    lines = [str(r) for r in rows or []]
    given = _legend_entries(legend)
    colours = {sym: c for sym, (c, _) in given.items()}
    palette = _palette({c.lower() for c in colours.values()})
    seen: list[str] = []
    for line in lines:
        for ch in line:
            if ch != " " and ch not in colours:
                colours[ch] = palette[sum(1 for s in seen if s not in given) % len(palette)]
            if ch != " " and ch not in seen:
                seen.append(ch)
    width = max((len(r) for r in lines), default=0)
    cell = max(2, int(cell))
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width * cell}" height="{len(lines) * cell}" '
             f'viewBox="0 0 {width * cell} {len(lines) * cell}" role="img" aria-label="map">']
    for y, line in enumerate(lines):
        x = 0
        # One rectangle a run of the same symbol: a 100-player game writes a map a player, so keep it small.
        while x < len(line):
            ch = line[x]
            end = x + 1
            while end < len(line) and line[end] == ch:
                end += 1
            if ch != " ":
                parts.append(f'<rect x="{x * cell}" y="{y * cell}" width="{(end - x) * cell}" height="{cell}" '
                             f'fill="{colours[ch]}"/>')
            x = end
    parts += _marks(marks, cell)
    parts.append("</svg>")
    order = [s for s in given if s in seen] + [s for s in seen if s not in given]
    entries = [(s, colours[s], given[s][1] if s in given else "") for s in order]
    return Markup(f'<figure class="map">{"".join(parts)}{_swatches(entries)}</figure>')


def _marks(marks: Any, cell: int) -> list[str]:
    """The SVG text of `symbol_map`'s marks: each cell's lines centred in it, dark with a light edge so they
    read on any colour."""
    out = []
    for y, row in enumerate(marks or []):
        labels = list(row) if isinstance(row, str) else [str(m) for m in row]
        for x, label in enumerate(labels):
            lines = str(label).split("\n")
            if not any(line.strip() for line in lines):
                continue
            size = max(6, cell * 9 // 10 // len(lines) if len(lines) > 1 else cell * 2 // 3)
            top = y * cell + (cell - size * len(lines)) // 2
            for i, line in enumerate(lines):
                if line.strip():
                    out.append(f'<text x="{x * cell + cell // 2}" y="{top + (i + 1) * size - size // 5}" '
                               f'text-anchor="middle" font-family="monospace" font-size="{size}" fill="#000" '
                               f'stroke="#fff" stroke-width="{max(1, size // 6)}" paint-order="stroke">'
                               f"{escape(line.strip())}</text>")
    return out


def tiles(items: Any, label: str, group: str, title: str | None = None, legend: Any = None,
          cell: int = 64) -> Markup:
    """Records as a diagram: one tile each, in the order given, in rows of a square's side, coloured by the
    record's `group` value (none: unknown, grey) and marked with its `label`; `title` names a tile on hover."""
    records = [r for r in items or [] if isinstance(r, dict)]
    given = {k: c for k, (c, _) in _legend_entries(legend).items()}
    palette = _palette({c.lower() for c in given.values()})
    colours: dict[str, str] = {}
    for r in records:
        g = r.get(group)
        if g is not None and str(g) not in colours:
            colours[str(g)] = given.get(str(g), palette[sum(1 for k in colours if k not in given) % len(palette)])
    cols = max(1, math.ceil(math.sqrt(len(records))))
    rows = math.ceil(len(records) / cols)
    gap = 4
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{cols * (cell + gap)}" height="{rows * (cell + gap)}" '
             'role="img" aria-label="diagram">']
    for i, r in enumerate(records):
        x, y = (i % cols) * (cell + gap), (i // cols) * (cell + gap)
        g = r.get(group)
        fill = UNKNOWN if g is None else colours[str(g)]
        name = escape(str(r.get(title if title else label, "")))
        parts.append(f'<g><title>{name}</title><rect x="{x}" y="{y}" width="{cell}" height="{cell}" rx="6" '
                     f'fill="{fill}" stroke="#555"/><text x="{x + cell // 2}" y="{y + cell // 2 + 5}" '
                     f'text-anchor="middle" font-family="sans-serif" font-size="14">'
                     f'{escape(str(r.get(label, "")))}</text></g>')
    parts.append("</svg>")
    entries = [(k, c, "") for k, c in colours.items()]
    if any(r.get(group) is None for r in records):
        entries.append(("unknown", UNKNOWN, ""))
    return Markup(f'<figure class="map">{"".join(parts)}{_swatches(entries)}</figure>')


def is_map(name: str, value: Any) -> bool:
    """Whether the default page draws a field as a map: a `list of text` named `map` or `..._map` (one row of
    symbols a line), so a ruleset says "this is a map" by its name, with no Python and no template."""
    return (name == "map" or name.endswith("_map")) and isinstance(value, list) and bool(value) \
        and all(isinstance(v, str) for v in value)


def show(value: Any, name: str = "") -> Markup:
    """Any report value as HTML: text escaped, a list of records as a table, other lists as lists, a record as a
    table of its names and values, none as a dash."""
    if value is None:
        return Markup('<span class="none">&mdash;</span>')
    if isinstance(value, bool):
        return Markup("yes" if value else "no")
    if isinstance(value, list):
        if not value:
            return Markup('<span class="none">(none)</span>')
        if is_map(name, value):
            return symbol_map(value)
        if all(isinstance(v, dict) for v in value):
            cols: list[str] = []
            for v in value:
                cols += [k for k in v if k not in cols]
            head = "".join(f"<th>{escape(c)}</th>" for c in cols)
            body = "".join("<tr>" + "".join(f"<td>{show(v.get(c), c)}</td>" for c in cols) + "</tr>" for v in value)
            return Markup(f"<table><tr>{head}</tr>{body}</table>")
        return Markup("<ul>" + "".join(f"<li>{show(v)}</li>" for v in value) + "</ul>")
    if isinstance(value, dict):
        return Markup('<table class="record">' + "".join(f"<tr><th>{escape(k)}</th><td>{show(v, k)}</td></tr>"
                                                         for k, v in value.items()) + "</table>")
    return Markup(escape(str(value)))


def _title(data: dict[str, Any]) -> str:
    game, player = data.get("game") or {}, data.get("player") or {}
    when = "starting position" if game.get("start") else f"{game.get('unit', 'turn')} {game.get('turn', '')}"
    if game.get("date"):  # a ruleset with a calendar: the turn's date beside its number
        when += f" ({game['date']})"
    return f"{game.get('title', '')} -- game {game.get('id', '')}, {when}: {player.get('name', '')}"


def default_page(data: dict[str, Any]) -> str:
    """A page for any report data: a section a field, in the report's order."""
    sections = "".join(f'<section id="{escape(k)}"><h2>{escape(k.replace("_", " "))}</h2>{show(v, k)}</section>'
                       for k, v in data.items())
    title = escape(_title(data))
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
            f"<style>{STYLE}</style></head>\n<body><h1>{title}</h1>\n{sections}\n</body></html>\n")


def html_env() -> jinja2.Environment:
    """The Jinja2 environment of HTML templates: the text reports' sandbox, with autoescape on (a player's
    name or a city's is text, never markup), the map filters and `show`, and `style`, the default page's CSS."""
    env = sandbox.ImmutableSandboxedEnvironment(undefined=jinja2.StrictUndefined, autoescape=True,
                                                keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True)
    env.filters["ljust"] = lambda s, w: str(s).ljust(int(w))
    env.filters["rjust"] = lambda s, w: str(s).rjust(int(w))
    env.filters["symbol_map"] = symbol_map
    env.filters["tiles"] = tiles
    env.filters["show"] = show
    env.globals["style"] = Markup(STYLE)
    return env


@cache
def _template(text: str) -> jinja2.Template:
    return html_env().from_string(text)


def render_html(spec: RulesetSpec, data: dict[str, Any], template: jinja2.Template | None = None) -> str:
    """The report's page: the ruleset's HTML template when it names one, else the default page. `template`
    is that template already compiled (the compiler caches it: rulesdsl.compiler.load_html_template);
    without it, the template is compiled here."""
    if not spec.html:
        return default_page(data)
    page = (template or _template(spec.html)).render(**data)
    return "\n".join(line.rstrip() for line in page.splitlines()).rstrip("\n") + "\n"
