"""YAML text from outside -> plain data, bounded; plain data -> YAML text without anchors or aliases.

Scenarios, state files and game.yaml may come from strangers. The document is composed into its node
graph first and walked before anything is constructed, so that a few kilobytes cannot expand into
gigabytes ("billion laughs"), an integer cannot cost seconds to convert (or fail past Python's digit
limit), and nesting cannot exhaust the stack. Every refusal names the JSON path of the node.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

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
    loader.get_event()  # stream start
    if loader.check_event(yaml.StreamEndEvent):
        loader.get_event()
        return None
    start = loader.get_event()  # document start
    root: yaml.Node | None = None
    stack: list[_Open] = []
    while not loader.check_event(yaml.DocumentEndEvent):
        event: Any = loader.get_event()
        if isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            stack.pop()
            continue
        # Where the new node goes, and its path.
        top = stack[-1] if stack else None
        if top is None:
            path = "$"
        elif isinstance(top.node, yaml.SequenceNode):
            path = f"{top.path}[{len(top.node.value)}]"
        else:
            path = f"{top.path}.{_key_part(top.key) if top.key is not None else _event_key(event)}"
        if isinstance(event, yaml.AliasEvent):
            raise YamlRefused(path, "YAML aliases (*name) are not accepted here; write the value out in full")
        node: yaml.Node
        mark: Any = event.start_mark
        if isinstance(event, yaml.ScalarEvent):
            tag = event.tag
            if tag is None or tag == "!":
                tag = loader.resolve(yaml.ScalarNode, event.value, event.implicit)
            if tag == _INT_TAG and len(re.sub(r"[^0-9a-fA-F]", "", event.value)) > MAX_DIGITS:
                raise YamlRefused(path, f"a whole number of more than {MAX_DIGITS} digits is out of range")
            node = yaml.ScalarNode(tag, event.value, mark, mark, style=event.style)
        elif isinstance(event, yaml.SequenceStartEvent):
            tag = event.tag if event.tag not in (None, "!") else loader.resolve(yaml.SequenceNode, None,
                                                                                 event.implicit)
            node = yaml.SequenceNode(tag, [], mark, None, flow_style=event.flow_style)
        elif isinstance(event, yaml.MappingStartEvent):
            tag = event.tag if event.tag not in (None, "!") else loader.resolve(yaml.MappingNode, None,
                                                                                event.implicit)
            node = yaml.MappingNode(tag, [], mark, None, flow_style=event.flow_style)
        else:
            raise yaml.composer.ComposerError(None, None, f"unexpected {type(event).__name__}", event.start_mark)
        if top is None:
            root = node
        elif isinstance(top.node, yaml.SequenceNode):
            top.node.value.append(node)
        elif top.key is None:
            top.key = node
        else:
            top.node.value.append((top.key, node))
            top.key = None
        if isinstance(node, (yaml.SequenceNode, yaml.MappingNode)):
            if len(stack) >= MAX_DEPTH:
                raise YamlRefused(path, f"nested more than {MAX_DEPTH} levels deep")
            stack.append(_Open(node, path))
    loader.get_event()  # document end
    if not loader.check_event(yaml.StreamEndEvent):
        extra: Any = loader.get_event()
        raise yaml.composer.ComposerError("expected a single document in the stream", start.start_mark,
                                          "but found another document", extra.start_mark)
    return root


def _event_key(event: Any) -> str:
    return str(event.value) if isinstance(event, yaml.ScalarEvent) else "?"


def load_text(text: str) -> Any:
    """The data of one YAML document (None for an empty one). Raises YamlRefused, or yaml.YAMLError for
    text that is not YAML at all."""
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


def dump_text(data: Any) -> str:
    text: str = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    return text
