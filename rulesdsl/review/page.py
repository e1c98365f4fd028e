"""Diffs (review/diff.py's `GameDiff`s) -> one self-contained HTML page: a table of contents by turn and player,
each changed report's hunks with removed lines in red and added lines in green, the state's changed values, the
lines no longer read, and the summaries.

Like a report's page (runtime/html.py, whose style it shares) it needs no network and no JavaScript, and the
same diffs give the same bytes. Everything shown from the games is escaped: a report line is a player's text
as much as the rules'.
"""

from __future__ import annotations

import re

from markupsafe import escape

from rulesdsl.game.folder import turn_name
from rulesdsl.review.changes import FileChange, GameDiff, Line, ValueChange
from rulesdsl.review.diff import summary
from rulesdsl.runtime.html import STYLE

__all__ = ["page"]

_DIFF_STYLE = """.diff{font-family:monospace;white-space:pre-wrap;width:100%}.diff td{border:none;padding:0 .4em}
.diff td.n{color:#888;text-align:right;width:3em;user-select:none}.del{background:#fdd}
.add{background:#dfd}.diff tr.hunk td{background:#eef;color:#555}.why{color:#555;font-style:italic}
.summary{background:#f6f6f6;border:1px solid #ccc;padding:.4em .6em}nav ul{margin:.2em 0}
h3 small{font-weight:normal;color:#666}"""

_ID = re.compile(r"[^A-Za-z0-9_-]+")


def _anchor(*parts: object) -> str:
    return "-".join(_ID.sub("_", str(p)) for p in parts)


def _why(items: tuple[str, ...]) -> str:
    return "".join(f'<div class="why">{escape(item)}</div>' for item in items)


def _row(line: Line) -> str:
    cls = {"-": "del", "+": "add"}.get(line.sign, "ctx")
    old = str(line.old) if line.old else ""
    new = str(line.new) if line.new else ""
    return (f'<tr class="{cls}"><td class="n">{old}</td><td class="n">{new}</td>'
            f"<td>{escape(line.sign)}{escape(line.text)}{_why(line.why)}</td></tr>")


def _file(d: GameDiff, f: FileChange, anchor: str) -> list[str]:
    what = {"added": f" (only in {d.new})", "removed": f" (only in {d.old})"}.get(f.status, "")
    out = [f'<h3 id="{anchor}">{escape(f.name)} <small>{escape(f.path)}{escape(what)}</small></h3>',
           '<table class="diff">']
    for hunk in f.hunks:
        out.append(f'<tr class="hunk"><td colspan="3">{escape(hunk.header)}</td></tr>')
        out += [_row(line) for line in hunk.lines]
    out.append("</table>")
    return out


def _values(turn: int, values: list[ValueChange], anchor: str) -> list[str]:
    out = [f'<h3 id="{anchor}">state <small>turns/{turn_name(turn)}/state.yaml</small></h3>',
           "<table><tr><th>JSON path</th><th>before</th><th>after</th></tr>"]
    for v in values:
        player = f" <small>({escape(v.player)})</small>" if v.player else ""
        out.append(f"<tr><td><code>{escape(v.path)}</code>{player}{_why(v.why)}</td>"
                   f'<td class="del"><code>{escape(v.old if v.old is not None else "(none)")}</code></td>'
                   f'<td class="add"><code>{escape(v.new if v.new is not None else "(none)")}</code></td></tr>')
    out.append("</table>")
    return out


def page(diffs: list[GameDiff], title: str) -> str:
    """The page of `diffs` under the heading `title`."""
    toc: list[str] = []
    body: list[str] = []
    for n, d in enumerate(diffs, 1):
        scope = f"g{n}"
        if d.title:
            body.append(f'<h2 id="{scope}">{escape(d.title)}</h2>')
            toc.append(f'<li><a href="#{scope}">{escape(d.title)}</a>' + ("" if d.differs else " (nothing differs)"))
        body.append(f'<p class="summary">{escape(summary(d))}</p>')
        body += [f"<p>note: {escape(note)}</p>" for note in d.notes]
        turns = []
        for turn, files, values, unread in d.by_turn():
            t_anchor = _anchor(scope, "turn", turn)
            body.append(f'<h2 id="{t_anchor}">Turn {turn}</h2>')
            entries = []
            for f in files:
                anchor = _anchor(scope, turn, f.kind, f.name)
                entries.append(f'<li><a href="#{anchor}">{escape(f.name)}</a></li>')
                body += _file(d, f, anchor)
            if values:
                anchor = _anchor(scope, turn, "state")
                entries.append(f'<li><a href="#{anchor}">state: {len(values)} value(s)</a></li>')
                body += _values(turn, values, anchor)
            if unread:
                anchor = _anchor(scope, turn, "unread")
                entries.append(f'<li><a href="#{anchor}">{len(unread)} line(s) no longer read</a></li>')
                body.append(f'<h3 id="{anchor}">no longer read</h3><ul>')
                body += [f"<li><code>{escape(str(u))}</code></li>" for u in unread]
                body.append("</ul>")
            turns.append(f'<li><a href="#{t_anchor}">Turn {turn}</a><ul>{"".join(entries)}</ul></li>')
        if d.title:
            toc.append(f"<ul>{''.join(turns)}</ul></li>" if turns else "</li>")
        else:
            toc += turns
    head = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f"<style>{STYLE}\n{_DIFF_STYLE}</style></head><body>")
    nav = f"<nav><h2>Contents</h2><ul>{''.join(toc)}</ul></nav>" if toc else "<p>Nothing differs.</p>"
    return "\n".join([head, f"<h1>{escape(title)}</h1>", nav, *body, "</body></html>"]) + "\n"
