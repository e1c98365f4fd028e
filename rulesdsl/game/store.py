"""A game folder -> what a GM runs a game with: the filed orders of the coming turn, its status, the
rollback of the last turn, GM actions on the players, and the game's history of them.

Layout this module adds to GAMEDIR (see folder.py for the rest, and inbox.py for the filed orders, the
GM's submissions in inbox/turn-NNN/gm/ and each turn's submitted.txt):
    history.yaml      append-only: one YAML list item per GM action (rollback, email, drop, replace, order), and
                      for a test game its start and each turn with forced draws (new, draws)
    game.yaml         `no_orders_limit: N` (percent, default 50): the share of active positions that may
                      send nothing before a turn from filed orders is refused without --force (folder.py)

Every change here is made under the game's lock, as a turn is, and is one rename (or one appended write):
a killed command leaves the game as it was before it, or as after it, never half of it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rulesdsl.game import inbox
from rulesdsl.game.disk import LOCK_NAME, GameLock, fsync_dir, write_file
from rulesdsl.game.errors import GameError
from rulesdsl.game.history import append_history, read_history
from rulesdsl.runtime.mail import WORLD_ACCOUNT, Refusal, by_account


def coming_turn(root: Path) -> int:
    from rulesdsl.game.folder import GameFolder

    return GameFolder(root).latest_turn() + 1


def filed_dir(root: Path, turn: int | None = None) -> Path:
    """Where the orders of `turn` (by default the coming one) are filed: inbox/turn-NNN (game/inbox.py)."""
    return inbox.inbox_dir(root, coming_turn(root) if turn is None else turn)


def filed_files(root: Path, turn: int | None = None) -> list[Path]:
    """The submissions filed for `turn` (by default the coming one), in the order they are processed."""
    return inbox.filed_files(root, coming_turn(root) if turn is None else turn)


def gm_files(root: Path, turn: int | None = None) -> list[Path]:
    """The GM's submissions for `turn` (by default the coming one), in name order."""
    return inbox.gm_files(root, coming_turn(root) if turn is None else turn)











def filed_accounts(root: Path, game: Any) -> set[str]:
    """Accounts (as the game spells them) with a filed submission whose header the turn would take: the
    account known, the access code matching, the game this one. The one place that says who has sent
    orders for the coming turn; intake files into inbox/turn-NNN and nothing else needs changing here."""
    accounts = by_account(game.all_players)
    number, game_id = str(game.meta.get("number", "")), str(game.meta.get("id", ""))
    sent: set[str] = set()
    for path in filed_files(root):
        try:
            text = path.read_bytes().decode("utf-8", errors="replace")
        except OSError as e:
            raise GameError(f"{path}: cannot read the orders: {e.strerror or e}") from None
        mail = game.mail.read(path.name, text, accounts, number, game_id)
        if mail.player is not None and mail.notice is None:
            sent.add(mail.player.account)
    return sent





def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ------------------------------------------------------------ history

# ------------------------------------------------------------ status

@dataclass
class Position:
    account: str
    name: str
    active: bool
    sent: bool  # a filed submission for the coming turn
    missed: int  # turns in a row, up to the last one played, whose orders did not come


@dataclass
class Status:
    title: str
    game_id: str
    turn: int
    game_over: bool
    winners: list[str]
    positions: list[Position] = field(default_factory=list)
    filed: int = 0
    forced: list[int] = field(default_factory=list)  # the turns to come whose draws the scenario forces


def status(root: Path) -> Status:
    from rulesdsl.game.folder import GameFolder, turn_name

    folder = GameFolder(root)
    with GameLock(root / LOCK_NAME, "a turn or another command is running on this game"):
        inbox.finish_rollbacks(root)
        game = folder.load_game()
        sent = filed_accounts(root, game)
        record = []
        for turn in reversed(folder.turn_numbers()):
            path = folder.turns_dir / turn_name(turn) / inbox.SUBMITTED
            if not path.is_file():
                break  # the starting turn, or a turn from before this record was kept
            record.append(set(path.read_text(encoding="utf-8").split()))
        result = Status(game.spec.title, str(game.meta.get("id", "")), game.turn, game.game_over,
                        list(game.winners), filed=len(filed_files(root)),
                        forced=sorted({e.turn for e in game.forced if e.turn > game.turn}))
        for p in game.all_players:
            missed = 0
            for accounts in record:
                if p.account in accounts:
                    break
                missed += 1
            result.positions.append(Position(p.account, p.name, p.active, p.account in sent, missed))
    return result


def status_text(s: Status) -> str:
    lines = [f"{s.title} {s.game_id}: turn {s.turn} played; "
             + ("the game is over." + (f" Winner: {', '.join(s.winners)}." if s.winners else "")
                if s.game_over else f"{s.filed} submission(s) filed for turn {s.turn + 1}.")]
    width = max((len(p.account) for p in s.positions), default=0)
    for p in s.positions:
        if not p.active:
            what = "dropped"
        else:
            what = "orders in" if p.sent else "no orders yet"
        missed = f"; missed {p.missed} turn(s) in a row" if p.missed else ""
        lines.append(f"  {p.account:<{width}}  {p.name}: {what}{missed}")
    active = [p for p in s.positions if p.active]
    if not s.game_over:
        lines.append(f"{sum(p.sent for p in active)} of {len(active)} active position(s) have sent orders.")
    if s.forced:
        # A test game: say so where the GM looks first, and which turns will not be left to chance.
        turns = ", ".join(map(str, s.forced))
        lines.append(f"A test game: its scenario forces draws of turn(s) {turns} (history.yaml records each).")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------ rollback

def rollback(root: Path) -> tuple[int, list[str], list[dict[str, Any]]]:
    """Undoes the newest turn: its folder goes by one rename; its orders stay filed (or are filed back, when
    it ran from named files) for the turn to be run again. Returns (the turn undone, the names filed back, and
    the GM actions made on its state, which go with it)."""
    from rulesdsl.game.folder import GameFolder, turn_name

    folder = GameFolder(root)
    folder.latest_turn()
    with GameLock(root / LOCK_NAME, "a turn or another command is running on this game"):
        inbox.finish_rollbacks(root)
        turns = folder.turn_numbers()
        if len(turns) < 2:
            raise GameError(f"{root}: turn {turns[-1]} is the game's start; there is no turn to roll back")
        last = turns[-1]
        final = folder.turns_dir / turn_name(last)
        away = folder.turns_dir / f"{inbox.ROLLING}{turn_name(last)}"
        try:
            os.rename(final, away)
        except OSError as e:
            raise GameError(f"{final}: cannot roll back: {e.strerror or e}") from None
        fsync_dir(folder.turns_dir)
        names = inbox.file_back(root, away, last)
        undone = [h for h in read_history(root)
                  if h.get("turn") == last and h.get("action") not in ("rollback", "draws")]
        append_history(root, {"action": "rollback", "turn": last, "filed": names})
        shutil.rmtree(away, ignore_errors=True)
        fsync_dir(folder.turns_dir)
    return last, names, undone


# ------------------------------------------------------------ GM actions on players

def gm_action(root: Path, action: str, account: str, *, email: str | None = None, name: str | None = None,
              code: str | None = None) -> str:
    """Changes a position in the newest state (email, drop, replace) by one rename, records it in the
    history, and returns what was done in words."""
    from rulesdsl.game.folder import GameFolder, _schema, read_yaml, turn_name, validate, yaml_bytes

    folder = GameFolder(root)
    folder.latest_turn()
    with GameLock(root / LOCK_NAME, "a turn or another command is running on this game"):
        inbox.finish_rollbacks(root)
        turn = folder.latest_turn()
        path = folder.turns_dir / turn_name(turn) / "state.yaml"
        data = read_yaml(path, f"turns/{turn_name(turn)}/state.yaml")
        players = data.get("players", []) if isinstance(data, dict) else []
        matches = [p for p in players if str(p.get("account", "")).upper() == account.upper()]
        if not matches:
            raise GameError(f"no player has account {account!r}; `rulesdsl status` lists them")
        p = matches[0]
        entry: dict[str, Any] = {"action": action, "turn": turn, "account": p["account"]}
        if action == "email":
            entry.update({"was": p.get("email", ""), "now": email})
            p["email"] = email
            done = f"{p['account']} ({p['name']}): e-mail now {email}"
        elif action == "drop":
            if not p.get("active", True):
                raise GameError(f"{p['account']} ({p['name']}) has already left the game")
            p["active"] = False
            done = f"{p['account']} ({p['name']}) dropped: no more orders are taken from it"
        elif action == "replace":
            now_email = email if email is not None else p.get("email", "")
            entry.update({"was": {"name": p["name"], "email": p.get("email", "")},
                          "now": {"name": name or p["name"], "email": now_email}})
            p["name"] = name or p["name"]
            if email is not None:
                p["email"] = email
            if code is not None:
                p["code"] = code
                entry["code"] = "changed"  # never the code itself: the history is the GM's, not a secret
            p["active"] = True
            done = f"{p['account']} now played by {p['name']}"
        else:
            raise GameError(f"no GM action {action!r}")
        tmp = path.with_name(".state.yaml.tmp")
        tmp.unlink(missing_ok=True)
        write_file(tmp, yaml_bytes(data))
        try:
            # The changed state must fit the state's schema (an e-mail with a line break does not) before
            # it replaces the old one.
            validate(read_yaml(tmp, "the changed state"), _schema("state.schema.json"),
                     f"turns/{turn_name(turn)}/state.yaml")
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        fsync_dir(path.parent)
        append_history(root, entry)
    return done


def gm_order(root: Path, account: str | None, lines: list[str]) -> Path:
    """Files a GM submission for the position `account` holding `lines`, carried out at the next turn before
    the players' mail (a `gm order` only there: runtime/engine.py); its header is the position's own, so
    `me` in the order is that position. `account` None files world GM orders, for no position: the header's
    account and code are `*`, which no account is. Returns the file written."""
    from rulesdsl.game.folder import GameFolder

    folder = GameFolder(root)
    folder.latest_turn()
    with GameLock(root / LOCK_NAME, "a turn or another command is running on this game"):
        inbox.finish_rollbacks(root)
        game = folder.load_game()
        player = None
        if account is not None:
            player = by_account(game.all_players).get(account.upper())
            if player is None:
                raise GameError(f"no player has account {account!r}; `rulesdsl status` lists them")
        if any(c in line for line in lines for c in "\r\n"):
            raise GameError("an order is one line; give each line as its own argument")
        # Read now as the turn will read it, so a mistyped line is told to the GM, not found in a report.
        for i, line in enumerate(lines, 1):
            if player is not None:
                got = game.mail.order(game, player, i, line)
                if isinstance(got, Refusal):
                    raise GameError(f"line {i} \"{got.text}\": {got.reason}; nothing was filed")
                if got.spec.world:
                    raise GameError(f"line {i} \"{got.text}\": a world order is for no position: give it with "
                                    "--world; nothing was filed")
                continue
            parsed = game.reader.read(game, None, line.strip(), i)  # type: ignore[arg-type]
            if parsed.spec is None or parsed.rec is None:
                raise GameError(f"line {i} \"{line.strip()}\": {parsed.reason or 'not an order of this game'}; "
                                "nothing was filed")
            if not parsed.spec.world:
                raise GameError(f"line {i} \"{line.strip()}\": not a world GM order: give it for a position "
                                "(ACCOUNT in place of --world); nothing was filed")
        who = player.account if player is not None else WORLD_ACCOUNT
        values = {"game": str(game.meta.get("number", "")), "account": who,
                  "code": player.code if player is not None else WORLD_ACCOUNT}
        header = []
        for form in game.spec.policy.header:
            for key, value in values.items():
                form = form.replace("{" + key + "}", value)
            header.append(form)
        folder_gm = filed_dir(root) / inbox.GM
        folder_gm.mkdir(parents=True, exist_ok=True)
        number = len(gm_files(root)) + 1
        name = player.account if player is not None else "world"
        while (path := folder_gm / f"{number:03d}-{name}.txt").exists():
            number += 1
        tmp = folder_gm / f".{path.name}.tmp"
        tmp.unlink(missing_ok=True)
        write_file(tmp, ("\n".join(header + lines) + "\n").encode("utf-8"))
        os.replace(tmp, path)
        fsync_dir(folder_gm)
        entry: dict[str, Any] = {"action": "order", "turn": game.turn}
        # The GM's own orders for no position name none: `world` says so.
        entry |= {"account": player.account} if player is not None else {"world": True}
        append_history(root, entry | {"lines": lines})
    return path
