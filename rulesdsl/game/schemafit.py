"""Data and a JSON Schema -> whether the data surely fits, by a plain walk that needs no jsonschema import.

A turn reads a state file and checks it against two schemas. Almost always it fits, and importing
jsonschema to say so cost more than the check: `fits` answers that case alone. It is never the last word
on a fault: False means "not sure", and the caller then asks jsonschema, which finds the fault and words it
as before. So `fits` may say False wrongly (it does for any keyword, type or value it does not know), but
must never say True of data that jsonschema refuses.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

# Keywords that say nothing about validity.
_ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "title", "description", "default", "examples"})
_SCALARS = (str, int, bool, type(None))


def fits(data: Any, schema: Any) -> bool:
    """True only if `data` fits `schema` (a draft 7 to 2020-12 schema of the keywords below)."""
    try:
        return _fits(data, schema, 0)
    except RecursionError:
        return False


def _fits(data: Any, schema: Any, depth: int) -> bool:
    if schema is True:
        return True
    if not isinstance(schema, dict) or depth > 100:
        return False
    for key, value in schema.items():
        if key in _ANNOTATIONS:
            continue
        check = _KEYWORDS.get(key)
        if check is None or not check(data, value, schema, depth + 1):
            return False
    return True


def _is_type(data: Any, name: str) -> bool:
    # Only Python's own JSON types, exactly; a float where an integer is asked, a tuple, a date: not sure.
    if name == "object":
        return type(data) is dict
    if name == "array":
        return type(data) is list
    if name == "string":
        return type(data) is str
    if name == "integer":
        return type(data) is int
    if name == "number":
        return type(data) is int or type(data) is float
    if name == "boolean":
        return type(data) is bool
    if name == "null":
        return data is None
    return False


def _type(data: Any, value: Any, schema: dict[str, Any], depth: int) -> bool:
    if isinstance(value, str):
        return _is_type(data, value)
    return isinstance(value, list) and any(isinstance(v, str) and _is_type(data, v) for v in value)


def _same(a: Any, b: Any) -> bool:
    # JSON Schema tells 1 from true and 1 from 1.0 apart: so does this, for scalars only.
    return type(a) is type(b) and isinstance(a, _SCALARS) and a == b


def _enum(data: Any, value: Any, schema: dict[str, Any], depth: int) -> bool:
    return isinstance(value, list) and any(_same(data, v) for v in value)


def _const(data: Any, value: Any, schema: dict[str, Any], depth: int) -> bool:
    return _same(data, value)


@cache
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)  # jsonschema uses Python's re too


def _pattern(data: Any, value: Any, schema: dict[str, Any], depth: int) -> bool:
    if type(data) is not str:
        return isinstance(data, _SCALARS) or type(data) in (dict, list, float)
    return isinstance(value, str) and _regex(value).search(data) is not None


def _min_length(data: Any, value: Any, schema: dict[str, Any], depth: int) -> bool:
    return type(data) is not str or (type(value) is int and len(data) >= value)


def _max_length(data: Any, value: Any, schema: dict[str, Any], depth: int) -> bool:
    return type(data) is not str or (type(value) is int and len(data) <= value)


def _min_items(data: Any, value: Any, schema: dict[str, Any], depth: int) -> bool:
    return type(data) is not list or (type(value) is int and len(data) >= value)


def _minimum(data: Any, value: Any, schema: dict[str, Any], depth: int) -> bool:
    if type(data) is not int and type(data) is not float:
        return type(data) in (str, bool, dict, list) or data is None
    return type(value) in (int, float) and data >= value


def _properties(data: Any, value: Any, schema: dict[str, Any], depth: int) -> bool:
    if type(data) is not dict:
        return True
    if not isinstance(value, dict):
        return False
    return all(k not in data or _fits(data[k], sub, depth) for k, sub in value.items())


def _required(data: Any, value: Any, schema: dict[str, Any], depth: int) -> bool:
    return type(data) is not dict or (isinstance(value, list) and all(k in data for k in value))


def _additional(data: Any, value: Any, schema: dict[str, Any], depth: int) -> bool:
    if type(data) is not dict:
        return True
    if "patternProperties" in schema:
        return False
    known = schema.get("properties", {})
    if not isinstance(known, dict):
        return False
    return all(_fits(v, value, depth) for k, v in data.items() if k not in known)


def _property_names(data: Any, value: Any, schema: dict[str, Any], depth: int) -> bool:
    return type(data) is not dict or all(_fits(k, value, depth) for k in data)


def _items(data: Any, value: Any, schema: dict[str, Any], depth: int) -> bool:
    if type(data) is not list:
        return True
    # A list of schemas (draft 7's tuples) means another thing in 2020-12: not sure.
    return isinstance(value, (dict, bool)) and all(_fits(v, value, depth) for v in data)


def _any_of(data: Any, value: Any, schema: dict[str, Any], depth: int) -> bool:
    return isinstance(value, list) and any(_fits(data, sub, depth) for sub in value)


_KEYWORDS: dict[str, Any] = {
    "type": _type, "enum": _enum, "const": _const, "pattern": _pattern, "minLength": _min_length,
    "maxLength": _max_length, "minItems": _min_items, "minimum": _minimum, "properties": _properties,
    "required": _required, "additionalProperties": _additional, "propertyNames": _property_names,
    "items": _items, "anyOf": _any_of,
}
