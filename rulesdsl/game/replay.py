"""A game folder (and optionally another ruleset) -> a new game folder: the same game played again from its stored
inputs, turn by turn.

The new folder starts from the stored starting state (turns/turn-NNN/state.yaml of the first turn folder,
which holds the seed, the scenario's values and its forced draws), read under the ruleset given (by default
the game's own copy in rules/), and then plays every stored turn in order from what that turn was given:
    turns/turn-NNN/orders/    the players' submissions, byte for byte, under the names they were received with
                              (the stored `NN-name` without its number), in the order they were processed;
    turns/turn-NNN/gm/        the GM's submissions (`rulesdsl gm GAMEDIR order`), filed again in the new
                              folder's inbox/turn-NNN/gm/ so that the turn carries them out first, as it did;
    history.yaml              the GM's changes to a position made on a turn's state before the next turn:
                              `email`, `drop` and `replace` (a replaced position's new access code is read
                              from the stored state of that turn, since the history never holds a code), made
                              again on the same turn's state of the new game, unless a later `rollback` of that
                              turn undid them.
The other entries of history.yaml change nothing a turn does: an `order` is the filing of a GM submission
that is read from the turn folder it ran in; a `rollback` left no turn folder behind (the turn run again is
the one stored); `new` and `draws` record the scenario's forced draws, which come with the starting state and
are recorded again as the new game draws them.

With the same ruleset the new game's reports, news and states are byte for byte the original's (the mails
too, except that intake's receipts, which no turn reads, are not attached again). With another version:
- a starting state that no longer fits the ruleset (a field renamed) is refused with the JSON path of each
  fault, and no folder is made;
- a stored line the ruleset no longer reads is what any unreadable line is, that player's refused line with
  its reason; the replay lists each (`Unread`) as a line refused now that was not refused in the original;
- a game that the ruleset ends earlier stops there: the turns left are listed as not played.

With `trace`, each turn also writes its trace.jsonl, as `rulesdsl turn --trace` does (for `rulesdsl explain`
and a diff's provenance); nothing else it writes differs.

The new folder's history.yaml ends with a `replay` entry: the folder and the rules replayed, the turns played,
and the lines no longer read. The folder is built hidden beside the destination and renamed into place when
whole: a failed replay leaves nothing, and an existing folder is never written over.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rulesdsl.game import inbox, outbox
from rulesdsl.game.disk import LOCK_NAME, GameLock, Staging
from rulesdsl.game.errors import GameError
from rulesdsl.game.folder import (
    GameFolder,
    _record_draws,
    read_yaml,
    ruleset_files,
    turn_name,
    write_reports,
    yaml_bytes,
)
from rulesdsl.game.history import append_history, read_history
from rulesdsl.game.progress import NULL, Progress
from rulesdsl.game.store import gm_action
from rulesdsl.runtime.state import dump

__all__ = ["REPLAYED_ACTIONS", "ReplayResult", "Unread", "default_target", "newly_refused", "replay"]

# The history entries that change what a later turn does (see the module's docstring).
REPLAYED_ACTIONS = ("email", "drop", "replace")
# A renamed field faults in every instance: the first faults say what the others would.
_SHOWN = 10


@dataclass(frozen=True, order=True)
class Unread:
    """A stored line refused in a replay (or in the newer of two games) that the original took."""

    turn: int
    report: str  # the report's file name without suffix: ACCOUNT-name
    line: int
    text: str
    reason: str

    def __str__(self) -> str:
        return f"turn {self.turn}, {self.report} line {self.line}: no longer read: {self.reason} ({self.text!r})"


@dataclass
class ReplayResult:
    root: Path
    turns: list[int] = field(default_factory=list)  # the turns played again (the start not counted)
    not_played: list[int] = field(default_factory=list)  # stored turns after the replayed game ended
    unread: list[Unread] = field(default_factory=list)
    gm_actions: int = 0  # history entries made again


def default_target(source: Path) -> Path:
    """GAMEDIR-replay, beside GAMEDIR."""
    return source.with_name(f"{source.name}-replay")


def replay(source: Path, target: Path, rules: Path | None = None, progress: Progress = NULL,
           trace: bool = False) -> ReplayResult:
    """Plays the game in `source` again into the new folder `target`, under `rules` (by default the game's
    own copy). Refused (GameError) before anything is made when `target` exists or `source` is not a game.
    With `trace`, each turn is played as `rulesdsl turn --trace` plays it, writing its trace.jsonl (for
    `rulesdsl explain`, and for a diff's provenance); the rest of the new folder is the same."""
    original = GameFolder(source)
    turns = original.turn_numbers()
    if not turns:
        original.latest_turn()  # says what is wrong with `source`
    if target.exists() or target.is_symlink():
        raise GameError(f"{target}: already exists; a replay never writes over a folder: name a new one with -o")
    if not target.parent.is_dir():
        raise GameError(f"{target.parent}: no such folder")
    rules = rules if rules is not None else original.rules_path()
    progress.stage("checking the rules")
    files = ruleset_files(rules)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    mailed = Path(tempfile.mkdtemp(prefix="rulesdsl-replay-"))
    try:
        # The game is read under its lock: a turn, a rollback or a GM's change cannot move it meanwhile. A
        # folder this process cannot write (an archived game) no command can change either, and is read as it is.
        lock = GameLock(source / LOCK_NAME, "a turn or another command is running on the game replayed") \
            if os.access(source, os.W_OK) else contextlib.nullcontext()
        with lock:
            actions = _actions(source)
            turns = original.turn_numbers()
            result = _play(original, work, rules, files, turns, actions, mailed, progress, trace)
        # The new game's history says what it is a replay of, and what the rules no longer read.
        entry: dict[str, Any] = {"action": "replay", "of": str(source), "rules": str(rules), "turns": result.turns}
        if result.not_played:
            entry["not_played"] = result.not_played
        if result.unread:
            entry["no_longer_read"] = [str(u) for u in result.unread]
        append_history(work, entry)
        os.rename(work, target)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    finally:
        shutil.rmtree(mailed, ignore_errors=True)
    result.root = target
    return result


def _play(original: GameFolder, work: Path, rules: Path, files: list[tuple[str, bytes]], turns: list[int],
          actions: dict[int, list[dict[str, Any]]], mailed: Path, progress: Progress,
          trace: bool = False) -> ReplayResult:
    (work / "rules").mkdir()
    for name, content in files:
        (work / "rules" / name).write_bytes(content)
    meta = read_yaml(original.root / "game.yaml", "game.yaml")
    if not isinstance(meta, dict):
        raise GameError(f"{original.root}/game.yaml: $: not a mapping, as `rulesdsl new` writes it")
    (work / "game.yaml").write_bytes(yaml_bytes(meta | {"rules": f"rules/{rules.name}"}))
    start = turns[0]
    stored = original.turns_dir / turn_name(start) / "state.yaml"
    (work / "turns" / turn_name(start)).mkdir(parents=True)
    (work / "turns" / turn_name(start) / "state.yaml").write_bytes(stored.read_bytes())
    folder = GameFolder(work)
    progress.stage("reading the starting state")
    try:
        game = folder.load_game()
    except GameError as e:
        faults = str(e).splitlines()
        more = [f"... and {len(faults) - _SHOWN} more like these"] if len(faults) > _SHOWN else []
        raise GameError(f"{original.root}: its starting state does not fit {rules}; nothing was made:\n"
                        + "\n".join(faults[:_SHOWN] + more)) from None
    # Written back as the ruleset writes it (its name and hash), so that the new game is wholly of these rules.
    staging = Staging(work / "turns" / turn_name(start), f".{turn_name(start)}-")
    try:
        staging.write("state.yaml", yaml_bytes(dump(game)))
        starting = [p for p in game.all_players if p.active]
        write_reports(game, starting, staging, "reports", "the replay was not made", progress,
                      outbox.Mailer(work, game, staging))
        shutil.rmtree(work / "turns" / turn_name(start))
        staging.commit()
    except BaseException:
        staging.discard()
        raise
    if game.forced:
        append_history(work, {"action": "new", "turn": game.turn, "test": "forced draws", "draws": len(game.forced)})
        _record_draws(work, game, game.turn)
    result = ReplayResult(work)
    result.gm_actions += _redo(original, work, start, actions)
    over = game.game_over
    for turn in turns[1:]:
        stored_dir = original.turns_dir / turn_name(turn)
        progress.stage(f"replaying turn {turn}")
        if over:
            result.not_played = [t for t in turns if t >= turn]
            break
        gm = _stored(stored_dir / inbox.GM)
        if gm:
            filed = inbox.inbox_dir(work, turn) / inbox.GM
            filed.mkdir(parents=True)
            for path in gm:
                (filed / inbox._received_name(path.name)).write_bytes(path.read_bytes())
        given = []
        for i, path in enumerate(_stored(stored_dir / "orders")):
            # A folder each: two submissions received under one name stay two files, each under that name.
            (mailed / f"{turn}-{i}").mkdir()
            copy = mailed / f"{turn}-{i}" / inbox._received_name(path.name)
            copy.write_bytes(path.read_bytes())
            given.append(copy)
        try:
            over = folder.process_turn(given, force=True, trace=trace).game_over
        except GameError as e:
            raise GameError(f"turn {turn} of the replay: {e}") from None
        result.turns.append(turn)
        result.unread += newly_refused(stored_dir / "reports", work / "turns" / turn_name(turn) / "reports", turn)
        result.gm_actions += _redo(original, work, turn, actions)
    return result


def _stored(folder: Path) -> list[Path]:
    """A turn folder's stored submissions, in the order they were processed: by their number, since `NN-`
    grows past two digits (100-x after 99-x)."""
    files = inbox.files_in(folder)

    def place(path: Path) -> tuple[int, str]:
        number = path.name.partition("-")[0]
        return (int(number) if number.isdigit() else 0, path.name)

    return sorted(files, key=place)


def _actions(root: Path) -> dict[int, list[dict[str, Any]]]:
    """The GM's changes to positions that stand and the GM's orders filed, by the turn whose state they changed
(or after which they were filed), in the order made."""
    standing: list[dict[str, Any]] = []
    for entry in read_history(root):
        if entry.get("action") == "rollback":
            # The undone turn's state went, and the changes made on it with it.
            standing = [a for a in standing if a.get("turn") != entry.get("turn")]
        elif entry.get("action") in (*REPLAYED_ACTIONS, "order"):
            standing.append(entry)
    by_turn: dict[int, list[dict[str, Any]]] = {}
    for a in standing:
        by_turn.setdefault(int(a.get("turn", -1)), []).append(a)
    return by_turn


def _redo(original: GameFolder, work: Path, turn: int, actions: dict[int, list[dict[str, Any]]]) -> int:
    todo = actions.get(turn, [])
    if not todo:
        return 0
    redone = sum(1 for a in todo if a["action"] != "order")
    state = read_yaml(original.turns_dir / turn_name(turn) / "state.yaml", f"turns/{turn_name(turn)}/state.yaml")
    codes = {str(p.get("account")): p.get("code") for p in state.get("players", [])} if isinstance(state, dict) else {}
    for a in todo:
        account = str(a.get("account", ""))
        now = a.get("now")
        if a["action"] == "order":
            # Its submission is filed again from the turn folder it ran in: only the record is copied, and only
            # for a turn stored (a submission still waiting in the original's inbox is not replayed).
            if (original.turns_dir / turn_name(turn + 1)).is_dir():
                append_history(work, a)
        elif a["action"] == "email":
            gm_action(work, "email", account, email=str(now))
        elif a["action"] == "drop":
            gm_action(work, "drop", account)
        else:
            now = now if isinstance(now, dict) else {}
            was: dict[str, Any] = a["was"] if isinstance(a.get("was"), dict) else {}
            email = now.get("email") if now.get("email") != was.get("email") else None
            code = codes.get(account) if "code" in a else None
            gm_action(work, "replace", account, name=now.get("name"), email=email,
                      code=str(code) if code is not None else None)
    return redone


def _refused(path: Path) -> list[tuple[int, str, str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    refused = data.get("orders", {}).get("refused", []) if isinstance(data, dict) else []
    return [(int(r.get("line", 0)), str(r.get("text", "")), str(r.get("reason", ""))) for r in refused
            if isinstance(r, dict)]


def newly_refused(old_reports: Path, new_reports: Path, turn: int) -> list[Unread]:
    """The lines each report's data (ACCOUNT-name.json) in `new_reports` refuses that the same report in
    `old_reports` does not: by line number and text, so a reason reworded is not a line no longer read."""
    found = []
    for path in sorted(new_reports.glob("*.json")):
        before = old_reports / path.name
        if before.is_file() and before.read_bytes() == path.read_bytes():
            continue
        old = {(line, text) for line, text, _ in _refused(before)}
        found += [Unread(turn, path.stem, line, text, reason) for line, text, reason in _refused(path)
                  if (line, text) not in old]
    return found
