"""history.yaml of a game folder -> its entries: the GM's actions and the game's marks, appended one by one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from rulesdsl.game import yamlio
from rulesdsl.game.disk import append_file
from rulesdsl.game.errors import GameError

HISTORY = "history.yaml"


def append_history(root: Path, entry: dict[str, Any]) -> None:
    """Adds one entry to history.yaml by one appended, synced write: a crash leaves the entry whole or
    absent (a torn last entry is dropped when read). No clock is read: the entry names the turn it
    followed, so the same actions give the same file."""
    append_file(root / HISTORY, yamlio.dump_text([entry]).encode("utf-8"))


def read_history(root: Path) -> list[dict[str, Any]]:
    try:
        text = (root / HISTORY).read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as e:
        raise GameError(f"{HISTORY}: cannot read: {e}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        # A crash mid-append: keep every whole entry before the torn one.
        data = yaml.safe_load(text[: text.rstrip("\n").rfind("\n- ") + 1] or "[]")
    return [e for e in data or [] if isinstance(e, dict)]
