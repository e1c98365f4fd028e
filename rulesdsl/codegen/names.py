"""Rules names -> Python names: user names get a prefix so they never clash with Python or the runtime."""

from __future__ import annotations

import keyword


def local(name: str) -> str:
    return f"v_{name}"


def attr(name: str) -> str:
    return f"{name}_" if keyword.iskeyword(name) or keyword.issoftkeyword(name) else name


def function(name: str) -> str:
    return f"fn_{name}"


def procedure(name: str) -> str:
    return f"proc_{name}"


def table(name: str) -> str:
    return f"tbl_{name}"


def order(name: str, part: str) -> str:
    return f"order_{name}_{part}"


def phase(name: str) -> str:
    return f"phase_{name}"


def victory(name: str, part: str) -> str:
    return f"victory_{name}_{part}"


def group(name: str) -> str:
    return f"group_{name}"
