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


def check_nodes(root: yaml.Node) -> None:
    """Refuses aliases (a node reached twice, which includes merge keys and cycles), integers of more than
    MAX_DIGITS digits and nesting deeper than MAX_DEPTH. Iterative, and each node is visited once."""
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, str, int]] = [(root, "$", 0)]
    while stack:
        node, path, depth = stack.pop()
        if id(node) in seen:
            raise YamlRefused(path, "YAML aliases (*name) are not accepted here; write the value out in full")
        seen.add(id(node))
        if depth > MAX_DEPTH:
            raise YamlRefused(path, f"nested more than {MAX_DEPTH} levels deep")
        if isinstance(node, yaml.ScalarNode):
            if node.tag == _INT_TAG and len(re.sub(r"[^0-9a-fA-F]", "", str(node.value))) > MAX_DIGITS:
                raise YamlRefused(path, f"a whole number of more than {MAX_DIGITS} digits is out of range")
        elif isinstance(node, yaml.SequenceNode):
            # Pushed in reverse so the first fault in document order is the one named.
            for i in reversed(range(len(node.value))):
                stack.append((node.value[i], f"{path}[{i}]", depth + 1))
        elif isinstance(node, yaml.MappingNode):
            for key, value in reversed(node.value):
                part = f"{path}.{_key_part(key)}"
                stack.append((value, part, depth + 1))
                stack.append((key, part, depth + 1))


def load_text(text: str) -> Any:
    """The data of one YAML document (None for an empty one). Raises YamlRefused, or yaml.YAMLError for
    text that is not YAML at all."""
    loader = LOADER(text)
    try:
        try:
            node = loader.get_single_node()
        except RecursionError:
            # The pure-Python composer recurses once per level: deep nesting is refused, not a crash.
            raise YamlRefused("$", f"nested more than {MAX_DEPTH} levels deep") from None
        if node is None:
            return None
        check_nodes(node)
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
