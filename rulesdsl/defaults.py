"""A checked program and its source -> the listing of its GM orders' defaults (`rulesdsl check --defaults`):
each order's name, syntax and kinds of turn, and the `#` comment lines written just above its `default` (or,
with none there, above the order), so that the documentation of each of the GM's discretions is generated
from the rules, not copied beside them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulesdsl.comments import comment_above

if TYPE_CHECKING:  # `rulesdsl turn` imports the CLI, and must not import the compiler's parts
    from rulesdsl import ir


def listing(program: ir.Program, text: str, shown: str) -> str:
    """Every default in the order declared (the order they run in), for the file shown as `shown`."""
    lines = text.splitlines()
    entries: list[str] = []
    for o in program.orders:
        if o.default is None:
            continue
        what = "world GM order" if o.world else "GM order, once for each position without one"
        when = "in " + ", ".join(o.default.kinds) + " turns" if o.default.kinds else "in every turn"
        doc = comment_above(lines, o.default.line) or comment_above(lines, o.line)
        entries.append(f"{o.name} \"{o.pattern}\" ({what}), {when}, line {o.default.line}:\n"
                       + "".join(f"  {d}\n" for d in doc or ["(no comment above the default or the order)"]))
    count = f"{len(entries)} default{'s' if len(entries) != 1 else ''}"
    return f"{shown}: {count} of GM orders, run after the turn's last phase when the GM gave none\n" + \
        ("\n" if entries else "") + "\n".join(entries)
