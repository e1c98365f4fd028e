"""YAML text from outside -> plain data, bounded; plain data -> YAML text without anchors or aliases.

Scenarios, state files and game.yaml may come from strangers. The document's node graph is composed
from the parser's events, and checked as it is composed, before anything is constructed: no alias, so
a few kilobytes cannot expand into gigabytes ("billion laughs"); no integer of more than 18 digits, so
none costs seconds to convert (or fails past Python's digit limit); no nesting deeper than 64, so none
exhausts a stack. Every refusal names the JSON path of the node.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import yaml

from rulesdsl.runtime.codec import Amount
from rulesdsl.runtime.gridstate import Rows, Runs
from rulesdsl.runtime.unitstate import Row

# LibYAML when PyYAML has it (several times faster on state files); the pure-Python safe classes otherwise.
LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DUMPER: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

MAX_DIGITS = 18  # fits a 64-bit integer: larger is never a sane count, amount or seed
MAX_DEPTH = 64  # a state file nests about 5 levels deep
_INT_TAG = "tag:yaml.org,2002:int"


class YamlRefused(Exception):
    """YAML that is not accepted; `path` is the JSON path of the node at fault."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}")


def _key_part(node: yaml.Node) -> str:
    return str(node.value) if isinstance(node, yaml.ScalarNode) else "?"


class _Open:
    """A collection being composed: its node, JSON path, and for a mapping the key waiting for its value."""

    __slots__ = ("key", "node", "path")

    def __init__(self, node: yaml.Node, path: str) -> None:
        self.node, self.path = node, path
        self.key: yaml.Node | None = None


def _compose(loader: Any) -> yaml.Node | None:
    """The document's node graph, composed from the parser's events without recursion (LibYAML's own
    composer overflows the C stack on deep nesting), refusing as it goes aliases (which include merge
    keys and cycles), whole numbers of more than MAX_DIGITS digits and nesting deeper than MAX_DEPTH. The
    parser is stopped at the first fault, so a crafted document costs no more than its first bad node."""
    get, resolve = loader.get_event, loader.resolve
    get()  # stream start
    if loader.check_event(yaml.StreamEndEvent):
        get()
        return None
    start = get()  # document start
    root: yaml.Node | None = None
    stack: list[_Open] = []
    while True:
        event: Any = get()
        kind = type(event)
        node: yaml.Node
        if kind is yaml.ScalarEvent:
            tag = event.tag
            if tag is None or tag == "!":
                tag = resolve(yaml.ScalarNode, event.value, event.implicit)
            if tag == _INT_TAG and len(re.sub(r"[^0-9a-fA-F]", "", event.value)) > MAX_DIGITS:
                raise YamlRefused(_where(stack, event),
                                  f"a whole number of more than {MAX_DIGITS} digits is out of range")
            node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style)
        elif kind is yaml.SequenceEndEvent or kind is yaml.MappingEndEvent:
            stack.pop()
            continue
        elif kind is yaml.SequenceStartEvent or kind is yaml.MappingStartEvent:
            node_class = yaml.SequenceNode if kind is yaml.SequenceStartEvent else yaml.MappingNode
            tag = event.tag if event.tag not in (None, "!") else resolve(node_class, None, event.implicit)
            node = node_class(tag, [], event.start_mark, None, flow_style=event.flow_style)
        elif kind is yaml.AliasEvent:
            raise YamlRefused(_where(stack, event),
                              "YAML aliases (*name) are not accepted here; write the value out in full")
        elif kind is yaml.DocumentEndEvent:
            break
        else:
            raise yaml.composer.ComposerError(None, None, f"unexpected {kind.__name__}", event.start_mark)
        if not stack:
            root = node
        else:
            top = stack[-1]
            if top.key is None and isinstance(top.node, yaml.MappingNode):
                top.key = node
            elif top.key is None:
                top.node.value.append(node)
            else:
                top.node.value.append((top.key, node))
                top.key = None
        if node.__class__ is not yaml.ScalarNode:
            path = _where(stack, event, attached=True)
            if len(stack) >= MAX_DEPTH:
                raise YamlRefused(path, f"nested more than {MAX_DEPTH} levels deep")
            stack.append(_Open(node, path))
    if not loader.check_event(yaml.StreamEndEvent):
        extra: Any = get()
        raise yaml.composer.ComposerError("expected a single document in the stream", start.start_mark,
                                          "but found another document", extra.start_mark)
    return root


def _where(stack: list[_Open], event: Any, attached: bool = False) -> str:
    """The JSON path of the node `event` makes: about to be attached to the top of `stack`, or, with
    `attached`, just attached to it."""
    if not stack:
        return "$"
    top = stack[-1]
    if isinstance(top.node, yaml.SequenceNode):
        return f"{top.path}[{len(top.node.value) - (1 if attached else 0)}]"
    if attached:
        # A collection just attached as a key is waiting in top.key; as a value, it is the last pair's.
        return f"{top.path}.?" if top.key is not None else f"{top.path}.{_key_part(top.node.value[-1][0])}"
    if top.key is not None:
        return f"{top.path}.{_key_part(top.key)}"
    return f"{top.path}.{event.value if isinstance(event, yaml.ScalarEvent) else '?'}"


@contextmanager
def _no_collection() -> Iterator[None]:
    """Python's cycle collector paused: reading or writing a big state makes a node per value, and the
    collector, run every 700 of them, walks every object alive each time it reaches the oldest generation:
    a state of 50,000 units took 2.7 s where 1.1 s do. Nodes and values form no cycles to collect."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def load_text(text: str) -> Any:
    """The data of one YAML document (None for an empty one). Raises YamlRefused, or yaml.YAMLError for
    text that is not YAML at all."""
    with _no_collection():
        return _load(text)


def _load(text: str) -> Any:
    loader = LOADER(text)
    try:
        node = _compose(loader)
        if node is None:
            return None
        return loader.construct_document(node)
    finally:
        loader.dispose()


class _Dumper(_DUMPER):
    """Never writes an anchor: a value shared inside the data is written out each time, so that what we
    write is always something load_text accepts."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _rows(dumper: Any, data: Rows) -> Any:
    # A drawn layer reads as the map it is: one line of the file per row.
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(data), style="|")


_Dumper.add_representer(Rows, _rows)


def _flow_runs(dumper: Any, runs: Runs) -> yaml.Node:
    # A member's sectors in a by-member grid layer: a flow list, a few runs a line.
    return dumper.represent_sequence("tag:yaml.org,2002:seq", list(runs), flow_style=True)


_Dumper.add_representer(Runs, _flow_runs)


def _flow_row(dumper: Any, row: Row) -> yaml.Node:
    # A numbered thing's instance in a state file: one line, so that 5,000 units are 5,000 lines.
    return dumper.represent_sequence("tag:yaml.org,2002:seq", list(row), flow_style=True)


_Dumper.add_representer(Row, _flow_row)


def _amount(dumper: Any, amount: Amount) -> yaml.Node:
    # An amount with places is written as the designer writes it, a plain number (`7.4`), not a quoted text.
    return dumper.represent_scalar("tag:yaml.org,2002:float", str(amount))


_Dumper.add_representer(Amount, _amount)


def dump_text(data: Any) -> str:
    with _no_collection():
        text: str = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    return text
