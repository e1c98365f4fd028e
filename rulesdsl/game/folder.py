"""A game folder on disk <-> games and turns: start a game, process a turn atomically, read the state.

Layout of GAMEDIR:
    game.yaml                 which ruleset (a copy lives in rules/), made once by `new`; `gm_email`, the GM's
                              address (outbox.py); `no_orders_limit` (store.py)
    rulesdsl.lock             locked (fcntl.flock) by a `turn` or an `intake` from start to end: one at a time
    inbox/, outbox/           mail filed by `rulesdsl intake` for the coming turn, and replies (game/intake.py)
    rules/                    the ruleset and its templates, as the game was started with them
    turns/turn-000/           the starting state.yaml, and reports/ (each player's starting position,
                              written as a turn writes its reports) and mail/; a scenario that starts the game at
                              a later turn (`turn: 19`) has its starting state in that turn's folder
    turns/turn-NNN/           one folder per processed turn (NNN: three digits or more): orders/ (the
                              submissions byte for byte as received, as NN-name), received.sha256 (the
                              sha256 of each), reports/ (ACCOUNT-name.txt per player, its data as
                              .json and its page as .html), mail/ (ACCOUNT-name.eml per player: its report
                              mail, see outbox.py), news.txt, state.yaml (the whole state after the turn),
                              and submitted.txt (whose orders were taken)
    history.yaml              the GM's actions: see store.py
    sent.tsv                  the mails `rulesdsl send` sent, one a line: see send.py
The newest turn folder is the current state, so a turn is committed by one rename: it happens whole
or not at all.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from rulesdsl.compiler import cache_dir, check_path, load_html_template, load_module, load_template
from rulesdsl.diagnostics import CompileError
from rulesdsl.game import history, inbox, outbox, yamlio
from rulesdsl.game.disk import LOCK_NAME, GameLock, Staging, Wait, lock_new_staging, remove_abandoned, write_file
from rulesdsl.game.errors import GameError
from rulesdsl.game.names import order_file, report_base
from rulesdsl.game.progress import NULL, Progress
from rulesdsl.game.schemafit import fits
from rulesdsl.runtime.core import PlayerBase, RulesError, unchanging
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.html import render_html
from rulesdsl.runtime.orders import shown
from rulesdsl.runtime.report import checking_reports, render, report_data, validate_report
from rulesdsl.runtime.spec import RulesetSpec
from rulesdsl.runtime.state import StateError, broken, dump, load, new_game

__all__ = ["GameError", "GameFolder", "TurnResult", "read_yaml", "validate", "write_yaml"]

RECEIVED = "received.sha256"
# A scenario's sections that are not the state's sections of the ruleset: how the game starts, and the draws it
# forces (runtime/draws.py; the state keeps them in `engine`).
_SCENARIO_ONLY = ("game", "seed", "turn", "draws")
_TURN_DIR = re.compile(r"turn-([0-9]{3,})")


def _schema(name: str) -> dict[str, Any]:
    text = resources.files("rulesdsl").joinpath(f"schemas/{name}").read_text(encoding="utf-8")
    result: dict[str, Any] = json.loads(text)
    return result


def json_path(parts: Any) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts)


def validate(data: Any, schema: dict[str, Any], what: str, fields: bool = False) -> None:
    """Refuses `data` with the JSON path of every fault, one line each, so that a scenario's writer fixes
    them all in one go. With `fields`, the schema is the ruleset's own (fields of players, things, the
    world; parameters), and an unknown name is named in the path."""
    # Imported here: a turn whose state fits its schemas (schemafit.fits) never needs jsonschema, and its
    # import costs more than the turn's own check.
    import jsonschema

    cls = jsonschema.validators.validator_for(schema)
    errors = sorted(cls(schema).iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    lines: list[str] = []
    for err in errors:
        for line in _fault_lines(err, what, fields):
            if line not in lines:
                lines.append(line)
    if lines:
        raise GameError("\n".join(lines))


def _fault_lines(err: Any, what: str, fields: bool) -> list[str]:
    parts = list(err.absolute_path)
    message = err.message
    if "propertyNames" in err.schema_path:
        # An unknown key: name it in the path, and suggest the key that was probably meant.
        parts.append(err.instance)
        known = err.schema.get("enum", []) if isinstance(err.schema, dict) else []
        close = difflib.get_close_matches(str(err.instance).upper(), [str(k) for k in known], n=1)
        message = f"no such key{f'; did you mean {close[0]}?' if close else ''}"
    elif fields and err.validator == "additionalProperties" and isinstance(err.instance, dict):
        known = sorted(err.schema.get("properties", {}))
        unknown = sorted(str(k) for k in err.instance if k not in known)
        if unknown:
            what_name = "parameter" if parts == ["parameters"] else "field"
            out = []
            for name in unknown:
                close = difflib.get_close_matches(name, known, n=1)
                out.append(f"{what}: {json_path([*parts, name])}: no such {what_name}"
                           f"{f'; did you mean {close[0]}?' if close else ''}")
            return out
    elif err.validator == "required" and isinstance(err.instance, dict):
        # A missing key is the key's fault, not its mapping's: name it in the path, as for any other value.
        missing = [str(k) for k in err.validator_value if k not in err.instance]
        why = "every scenario must set it" if fields else "it is needed here"
        return [f"{what}: {json_path([*parts, name])}: missing: {why}" for name in missing]
    elif err.validator == "pattern" and isinstance(err.schema, dict) and err.schema.get("description"):
        # The pattern is for the schema's reader; the GM reads what it means.
        shown = repr(err.instance)
        shown = shown if len(shown) <= 60 else f"{shown[:57]}..."
        message = f"{shown} is not accepted: {err.schema['description']}"
    return [f"{what}: {json_path(parts)}: {message}"]


def read_scenario(path: Path) -> dict[str, Any]:
    """A scenario file's data, checked against the scenario schema (not yet against a ruleset's)."""
    loaded = read_yaml(path, path.name)
    if not isinstance(loaded, dict):
        raise GameError(f"{path.name}: $: a scenario is a mapping with at least `players`")
    validate(loaded, _schema("scenario.schema.json"), path.name)
    return loaded


def check_players(data: dict[str, Any], where: str) -> None:
    """Refuses a scenario without players, or with an account twice (accounts are told apart in any case)."""
    if not data.get("players"):
        raise GameError(f"{where}: $.players: a game needs players")
    accounts = [str(p["account"]).upper() for p in data["players"]]
    for i, a in enumerate(accounts):
        if accounts.index(a) != i:
            raise GameError(f"{where}: $.players[{i}].account: account {a} is already player "
                            f"{accounts.index(a) + 1}")


def check_scenario(spec: RulesetSpec, data: dict[str, Any], where: str) -> None:
    """Refuses, with every fault's JSON path, a scenario whose sections the ruleset does not have or whose
    values its state schema does not accept."""
    world = {k: v for k, v in data.items() if k in spec.state_schema["properties"]}
    unknown = [k for k in data if k not in spec.state_schema["properties"] and k not in _SCENARIO_ONLY]
    faults = [f"{where}: $.{k}: \"{spec.title}\" has no such section" for k in unknown]
    try:
        validate(world, spec.state_schema, where, fields=True)
    except GameError as e:
        faults += str(e).splitlines()
    if faults:
        raise GameError("\n".join(faults))


def read_yaml(path: Path, what: str) -> Any:
    """The data of a YAML file from outside, bounded (see yamlio); every refusal starts with `what`."""
    try:
        return yamlio.load_text(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GameError(f"{what}: no such file") from None
    except OSError as e:
        raise GameError(f"{what}: cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise GameError(f"{what}: not UTF-8 text (at byte {e.start}); save it as UTF-8") from None
    except yamlio.YamlRefused as e:
        raise GameError(f"{what}: {e.path}: {e.message}") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise GameError(f"{what}: not valid YAML{where}") from None
    except (ValueError, OverflowError) as e:
        # A scalar that resolved to a type whose constructor refused it (a date like 2001-02-30).
        raise GameError(f"{what}: a value cannot be read: {e}") from None


def yaml_bytes(data: Any) -> bytes:
    return yamlio.dump_text(data).encode("utf-8")


def write_yaml(path: Path, data: Any) -> None:
    write_file(path, yaml_bytes(data))


def turn_name(turn: int) -> str:
    return f"turn-{turn:03d}"




def ruleset_files(rules: Path) -> list[tuple[str, bytes]]:
    """The ruleset checked, and its file and the templates it names (a variant's: and its bases and theirs,
    side by side), as (name in rules/, bytes): what a game keeps of the rules it started with. Rules with
    errors are refused (CompileError)."""
    checked = check_path(rules)
    if not checked.ok:
        raise CompileError([d for d in checked.diagnostics if d.severity == "error"], checked.sources)
    files = []
    for name in sorted(checked.sources):
        src = checked.files.get(name) or (rules if name == rules.name else rules.parent / name)
        try:
            content = src.read_bytes()
        except OSError as e:
            raise GameError(f"{src}: cannot read: {e.strerror or e}") from None
        files.append((src.name, content))
    return files


class _Laps:
    """Wall seconds between marks, added into `into` by the name of the part each mark ends. With `into` None
    (every turn but a benchmark's) a mark only asks that and returns: timing costs a turn nothing."""

    __slots__ = ("into", "last")

    def __init__(self, into: dict[str, float] | None) -> None:
        self.into = into
        self.last = time.perf_counter() if into is not None else 0.0

    def mark(self, part: str) -> None:
        if self.into is None:
            return
        now = time.perf_counter()
        self.into[part] = self.into.get(part, 0.0) + now - self.last
        self.last = now


@dataclass
class TurnResult:
    folder: Path
    turn: int
    reports: list[tuple[str, Path]] = field(default_factory=list)  # (player name, path)
    news: Path | None = None
    unrouted_file: Path | None = None
    unrouted: list[str] = field(default_factory=list)
    game_over: bool = False
    winners: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # about the disk, after the commit
    dry_run: bool = False  # then `folder` is in a temporary folder, the caller's to remove


@dataclass(frozen=True)
class _Mail:
    path: Path
    data: bytes
    sha256: str


class GameFolder:
    def __init__(self, root: Path) -> None:
        self.root = root
        # Set to a dict, and each turn processed adds the seconds of its parts to it: "mail" (read and
        # compared with the mail of earlier turns), "load" (the state read, checked and made a game),
        # "engine" (the turn's phases and the `where` checks), "reports" (the reports and the news), "save"
        # (the state written) and "commit" (the turn folder renamed into place). benchmarks/bench_warlord.py
        # reads it; None times nothing.
        self.timings: dict[str, float] | None = None
        # Set by `create`: the game turn 0 starts from, as read back from its state file. `rulesdsl new`
        # prints its summary from it rather than reading the state a second time (0.3 s at Warlord's size).
        self.started: Game | None = None

    # ------------------------------------------------------------ reading
    @property
    def turns_dir(self) -> Path:
        return self.root / "turns"

    def turn_numbers(self) -> list[int]:
        """The processed turns, in number order (turn-999 before turn-1000)."""
        try:
            entries = list(os.scandir(self.turns_dir))
        except OSError:
            return []
        numbers = []
        for entry in entries:
            m = _TURN_DIR.fullmatch(entry.name)
            # turn-0007 is not a name we write: only the canonical spelling of a number counts.
            if m and entry.name == turn_name(int(m[1])) and entry.is_dir(follow_symlinks=False):
                numbers.append(int(m[1]))
        return sorted(numbers)

    def latest_turn(self) -> int:
        turns = self.turn_numbers()
        if not turns:
            raise GameError(f"{self.root}: not a game folder (no turns/turn-NNN); start one with `rulesdsl new`")
        return turns[-1]

    def rules_path(self) -> Path:
        if not (self.root / "game.yaml").is_file():
            raise GameError(f"{self.root}: not a game folder (it has no game.yaml); start one with `rulesdsl new`")
        meta = read_yaml(self.root / "game.yaml", "game.yaml")
        if not isinstance(meta, dict) or "rules" not in meta:
            raise GameError("game.yaml: $.rules: the game's ruleset is not named")
        rel = PurePosixPath(str(meta["rules"]))
        # The game runs the copy it was started with: never a file outside the game folder.
        if len(rel.parts) != 2 or rel.parts[0] != "rules" or rel.name == ".." or "\x00" in rel.name:
            raise GameError(f"game.yaml: $.rules: {str(meta['rules'])!r} is not a file in the game's rules/ "
                            "folder, as `rulesdsl new` writes it")
        return self.root / "rules" / rel.name

    def load_spec(self, traced: bool = False) -> tuple[RulesetSpec, str]:
        # The compiled module is cached by content hash outside the folder: a failed turn writes nothing here.
        try:
            module, spec = load_module(self.rules_path(), traced=traced)
        except OSError as e:
            # A failed write() carries no file name: then it was the cache's.
            raise GameError(f"{e.filename or cache_dir()}: cannot read or write the compiled ruleset: "
                            f"{e.strerror or e}") from None
        return spec, str(module.__file__)

    def load_game(self, traced: bool = False) -> Game:
        """The newest turn's game; `traced`: loaded with the traced build's spec, to be recorded (game/trace.py)."""
        spec, module_file = self.load_spec(traced)
        turn = self.latest_turn()
        what = f"turns/{turn_name(turn)}/state.yaml"
        data = read_yaml(self.turns_dir / turn_name(turn) / "state.yaml", what)
        # validate() finds and words a fault; fits() tells without jsonschema that there is none.
        schema = _schema("state.schema.json")
        if not fits(data, schema):
            validate(data, schema, what)
        world = {k: v for k, v in data.items() if k in spec.state_schema["properties"]}
        if not fits(world, spec.state_schema):
            validate(world, spec.state_schema, what, fields=True)
        if data["ruleset"]["title"] != spec.title:
            raise GameError(f"{what}: $.ruleset.title: this state is of \"{data['ruleset']['title']}\", "
                            f"not \"{spec.title}\"")
        if data["turn"] != turn:
            # The next turn's folder is named after the state's turn: a mismatch would write over history.
            raise GameError(f"{what}: $.turn: this state is of turn {data['turn']}, but it is in "
                            f"turns/{turn_name(turn)}")
        try:
            return load(spec, data, module_file)
        except StateError as e:
            raise GameError(f"{what}: {e}") from None

    # ------------------------------------------------------------ starting
    @classmethod
    def create(cls, rules: Path, root: Path, scenario: Path | None, seed: int | None,
               progress: Progress = NULL, gm_email: str | None = None) -> GameFolder:
        """Starts a game in the new folder `root`; `gm_email` is the GM's address, the From of its mails."""
        if root.exists() and any(root.iterdir()):
            raise GameError(f"{root}: already exists and is not empty; choose a new folder for the game")
        if gm_email is not None and outbox.usable(gm_email) is None:
            raise GameError(f"{gm_email!r} is not an e-mail address (name@example.org, or \"GM Name "
                            "<name@example.org>\"); the game was not made")
        where = scenario.name if scenario else "scenario"
        data: dict[str, Any] = {"players": []}
        if scenario is not None:
            data = read_scenario(scenario)
        if seed is not None:
            data["seed"] = seed
        check_players(data, where)
        progress.stage("checking the rules")
        files = ruleset_files(rules)
        made = _missing_parents(root)
        for parent in reversed(made):
            try:
                os.mkdir(parent, 0o777)
            except FileExistsError:
                pass
            except OSError as e:
                _remove_empty(made)
                raise GameError(f"{parent}: cannot make the folder: {e.strerror or e}") from None
        remove_abandoned(root.parent, ".new-", locked=False)
        try:
            staging = Staging(root, ".new-")
        except BaseException:
            _remove_empty(made)
            raise
        try:
            with lock_new_staging(staging):
                staging.mkdir("rules")
                for name, content in files:
                    staging.write(f"rules/{name}", content)
                meta = {"rules": f"rules/{rules.name}"} | ({outbox.GM_EMAIL: gm_email.strip()} if gm_email else {})
                staging.write("game.yaml", yaml_bytes(meta))
                spec, module_file = cls(staging.path).load_spec()
                check_scenario(spec, data, where)
                progress.stage("making the world")
                try:
                    game = new_game(spec, data, module_file)
                except StateError as e:
                    raise GameError("\n".join(f"{where}: {x}" for x in e.errors)) from None
                except RulesError as e:  # a phase `at start` that fails
                    raise GameError(f"the game was not made: {e}") from None
                progress.stage("saving the state")
                start = turn_name(game.turn)
                staging.mkdir("turns")
                staging.mkdir(f"turns/{start}")
                staging.write(f"turns/{start}/state.yaml", yaml_bytes(dump(game)))
                # Players see where they start before their first orders. The game is read back as a turn
                # reads it, so these reports are what turn 1 starts from.
                progress.stage("reading the state back")
                started = cls(staging.path).load_game()
                starting = [p for p in started.all_players if p.active]
                write_reports(started, starting, staging, f"turns/{start}/reports", "the game was not made", progress,
                              outbox.Mailer(staging.path, started, staging, f"turns/{start}/"))
                if root.exists():
                    root.rmdir()
                staging.commit()
                if game.forced:
                    # A game with forced draws is a test game: its history says so from the start.
                    history.append_history(root, {"action": "new", "turn": game.turn, "test": "forced draws",
                                                "draws": len(game.forced)})
                    _record_draws(root, game, game.turn)
        except BaseException:
            staging.discard()
            _remove_empty(made)
            raise
        folder = cls(root)
        folder.started = started
        return folder

    # ------------------------------------------------------------ a turn
    def process_turn(self, order_files: list[Path] | None, force: bool = False, dry_run: bool = False,
                     progress: Progress = NULL, wait: Wait | None = None, trace: bool = False) -> TurnResult:
        """Processes the next turn from the mailed files, in the order given, and commits it. With
        `order_files` None, from the orders filed for it in GAMEDIR/inbox/turn-NNN (see inbox.py), which
        stay there: a rollback then a turn reads them again.

        Unless `force`, refused before anything is written: mail holding a file whose bytes were already
        processed in an earlier turn (or twice in this mail), since the same mail given twice would make a
        second turn; mail whose headers name only other games (at least one), since it is most likely
        another game's mail; files given while `rulesdsl intake` has filed mail for the turn, which would
        never be read; and, for filed orders, no orders filed at all (the turn already run from them) or
        more active positions without orders than game.yaml's `no_orders_limit` allows.

        With `dry_run`, the turn is written to a new temporary folder (TurnResult.folder; the caller removes
        its parent) and nothing in the game folder changes. `progress` is told of each stage: the state loaded,
        the turn's phases, each report written, the state saved. With `wait`, a lock held by another
        command is waited for (disk.GameLock). With `trace`, the turn runs the ruleset's traced build and writes
        what it did, rule by rule, to the turn folder's trace.jsonl (game/trace.py); nothing else it writes
        differs."""
        self.latest_turn()  # not a game folder: say so before making a lock file in it
        with GameLock(self.root / LOCK_NAME, wait=wait):
            # Under the lock, any staging folder is one a killed turn left (with access codes in it).
            remove_abandoned(self.turns_dir, ".turn-", locked=True)
            inbox.finish_rollbacks(self.root)
            coming = self.latest_turn() + 1
            if order_files is None:
                gm = inbox.gm_files(self.root, coming)
                return self._process_turn(self._filed_orders(force or bool(gm)), force, True, dry_run, gm, progress,
                                          trace)
            waiting = inbox.filed_orders(self.root, coming)
            if waiting and not force:
                # The next intake files for the turn after: mail filed for this one would never be read.
                raise GameError(f"{len(waiting)} mail(s) filed by `rulesdsl intake` wait for this turn "
                                f"({waiting[0].parent}); nothing was done. Run `rulesdsl turn {self.root}` "
                                "without order files to process them, or use --force to process only the "
                                "files given")
            # The GM's filed orders are carried out first whichever way the players' mail comes.
            return self._process_turn(order_files, force, False, dry_run, inbox.gm_files(self.root, coming),
                                      progress, trace)

    def _filed_orders(self, force: bool) -> list[Path]:
        files = inbox.filed_files(self.root, self.latest_turn() + 1)
        if not files and not force:
            latest = self.latest_turn()
            raise GameError(f"{self.root}: no orders are filed for turn {latest + 1} "
                            f"({inbox.inbox_dir(self.root, latest + 1).relative_to(self.root)}/); nothing was done. "
                            f"Was turn {latest} just run? To run a turn with no orders at all, use --force")
        return files

    def received(self) -> dict[str, tuple[int, str]]:
        """sha256 of each submission processed -> (the turn, its file in that turn folder); the first."""
        seen: dict[str, tuple[int, str]] = {}
        for turn in self.turn_numbers():
            try:
                text = (self.turns_dir / turn_name(turn) / RECEIVED).read_text(encoding="utf-8")
            except FileNotFoundError:
                continue  # the starting turn, or a turn from before these records were kept
            except (OSError, UnicodeDecodeError) as e:
                raise GameError(f"turns/{turn_name(turn)}/{RECEIVED}: cannot read: {e}") from None
            for line in text.splitlines():
                digest, _, name = line.partition("  ")
                seen.setdefault(digest, (turn, name))
        return seen

    def _read_mail(self, order_files: list[Path]) -> list[_Mail]:
        mail = []
        for f in order_files:
            try:
                data = f.read_bytes()
            except OSError as e:
                raise GameError(f"{f}: cannot read the orders: {e.strerror or e}") from None
            mail.append(_Mail(f, data, hashlib.sha256(data).hexdigest()))
        return mail

    def _process_turn(self, order_files: list[Path], force: bool, filed: bool, dry_run: bool,
                      gm_files: list[Path] | None = None, progress: Progress = NULL,
                      trace: bool = False) -> TurnResult:
        laps = _Laps(self.timings)
        mail = self._read_mail(order_files)
        # The GM's submissions (inbox.gm_files) are read first, so a GM order is carried out before the
        # players' orders; the same GM order given two turns running is no repeated mail.
        gm_mail = self._read_mail(gm_files or [])
        # Filed orders were known once each as they were filed (intake), and stay filed after the turn.
        if not force and mail and not filed:
            seen = self.received()
            given: dict[str, Path] = {}
            for m in mail:
                if m.sha256 in seen:
                    turn, name = seen[m.sha256]
                    raise GameError(f"{m.path}: these orders were already processed in turn {turn} "
                                    f"(turns/{turn_name(turn)}/{name}); nothing was done. Is this the mail of "
                                    "an earlier turn? To process it again all the same, use --force")
                if m.sha256 in given:
                    raise GameError(f"{m.path}: the same orders as {given[m.sha256]}, given before it in this "
                                    "mail; nothing was done. To process both all the same, use --force")
                given[m.sha256] = m.path
        laps.mark("mail")
        progress.stage("loading the state")
        game = self.load_game(traced=trace)
        recorder = None
        if trace:
            from rulesdsl.game.trace import traced  # a turn not traced never imports it

            recorder = traced(game).trace
        laps.mark("load")
        if game.game_over:
            raise GameError(f"{self.root}: the game is over (turn {game.turn}); no more turns")
        # The engine reads lines itself (a BOM, \r\n and bad bytes included): no newline translation here. It
        # also shows the file's name (the label) with its control characters escaped wherever it echoes it.
        submissions = [(f"gm/{m.path.name}", m.data.decode("utf-8", errors="replace")) for m in gm_mail]
        game.gm_labels = frozenset(label for label, _ in submissions)
        submissions += [(m.path.name, m.data.decode("utf-8", errors="replace")) for m in mail]
        progress.stage("running the turn", game.turn_phases)
        try:
            game.process_turn(submissions, progress.advance)
        except RulesError as e:
            raise GameError(f"the turn was not processed, and the game is as it was: {e}") from None
        if faults := broken(game):
            # A rule made a value its field's `where` forbids: a mistake in the rules, never written down.
            raise GameError("the turn was not processed, and the game is as it was: after it, "
                            + "; ".join(str(f) for f in faults))
        laps.mark("engine")
        if filed and not force:
            self._gate(game)
        named = [(m.path, g) for m, g in zip(gm_mail + mail, game.games_named, strict=True) if g is not None]
        if not force and named and not any(this for _, (_, this) in named):
            # Every header that names a game names another one: most likely that game's mail, given here.
            others: dict[str, list[str]] = {}
            for path, (other, _) in named:
                others.setdefault(other, []).append(shown(str(path)))  # a file name may hold any character
            listed = []
            for other, paths in others.items():
                more = f" and {len(paths) - 10} more" if len(paths) > 10 else ""
                listed.append(f"{', '.join(paths[:10])}{more} {'is' if len(paths) == 1 else 'are'} for game {other}")
            raise GameError(f"no mail of this turn is for this game, {game.meta.get('id', '')}: {'; '.join(listed)}; "
                            "nothing was done. Is this another game's mail? To process it all the same, use --force")
        turn = game.turn
        final = self.turns_dir / turn_name(turn)
        if dry_run:
            final = Path(tempfile.mkdtemp(prefix="rulesdsl-dry-run-")) / turn_name(turn)
        if final.exists():
            raise GameError(f"{final}: already exists; the game folder is inconsistent")
        result = TurnResult(final, turn, unrouted=list(game.unrouted), game_over=game.game_over,
                            winners=list(game.winners), dry_run=dry_run)
        staging = Staging(final, f".{turn_name(turn)}-")
        try:
            staging.mkdir("orders")
            record = []
            for i, m in enumerate(mail, 1):
                name = order_file(i, m.path.name)
                staging.write(f"orders/{name}", m.data)
                record.append(f"{m.sha256}  orders/{name}\n")
            if gm_mail:
                staging.mkdir("gm")
            for i, m in enumerate(gm_mail, 1):
                name = order_file(i, m.path.name)
                staging.write(f"gm/{name}", m.data)
                record.append(f"{m.sha256}  gm/{name}\n")
            staging.write(RECEIVED, "".join(record).encode("ascii"))
            sent = [p.account for p in game.all_players if game.turns[p._key].submitted]
            staging.write(inbox.SUBMITTED, "".join(f"{a}\n" for a in sent).encode("utf-8"))
            laps.mark("mail")
            players = [p for p in game.all_players if p.active or game.turns[p._key].was_active]
            mailer = None if dry_run else outbox.Mailer(self.root, game, staging, receipts=filed)
            result.reports = write_reports(game, players, staging, "reports",
                                           "the turn was not processed, and the game is as it was", progress, mailer)
            news = [f"{game.spec.title} {game.meta.get('id', '')}: news of {game.spec.turn_unit} {turn}", ""]
            news += [f"  {item}" for item in game.news_items()] or [f"  A quiet {game.spec.turn_unit}."]
            result.news = staging.write("news.txt", ("\n".join(news) + "\n").encode("utf-8"))
            if game.unrouted:
                # For the GM: mail that reached no player, so it is answered by hand, never lost.
                lines = [f"Mail of {game.spec.turn_unit} {turn} that was not processed:", ""]
                lines += [f"  {u}" for u in game.unrouted]
                result.unrouted_file = staging.write("unrouted.txt", ("\n".join(lines) + "\n").encode("utf-8"))
            laps.mark("reports")
            progress.stage("saving the state")
            staging.write("state.yaml", yaml_bytes(dump(game)))
            if recorder is not None:
                from rulesdsl.game.trace import FILE_NAME

                staging.write(FILE_NAME, recorder.lines())
            laps.mark("save")
            result.warnings = staging.commit()
            laps.mark("commit")
            if not dry_run:
                _record_draws(self.root, game, turn)
        except BaseException:
            staging.discard()
            if dry_run:
                shutil.rmtree(final.parent, ignore_errors=True)
            raise
        return result

    def _gate(self, game: Game) -> None:
        """The no-moves-received gate: more active positions silent than the GM allows is most likely mail
        not yet filed (an intake not run), not players who all chose to sit the turn out."""
        active = [p for p in game.all_players if game.turns[p._key].was_active]
        silent = [p for p in active if not game.turns[p._key].submitted]
        limit = no_orders_limit(self.root)
        if active and len(silent) * 100 > limit * len(active):
            more = f" and {len(silent) - 10} more" if len(silent) > 10 else ""
            names = ", ".join(p.account for p in silent[:10]) + more
            raise GameError(f"{len(silent)} of {len(active)} active positions sent no orders ({names}), more than "
                            f"game.yaml's no_orders_limit of {limit}%; nothing was done. Is the mail all filed? "
                            "To run the turn all the same, use --force")


def write_reports(game: Game, players: list[PlayerBase], staging: Staging, folder: str,
                  failed: str, progress: Progress = NULL,
                  mailer: outbox.Mailer | None = None) -> list[tuple[str, Path]]:
    """Each player's report, its text (ACCOUNT-name.txt), its data (.json) and its page (.html), into `folder`
    of the staging folder, and with `mailer` its mail (game/outbox.py); returns (player name, path once
    committed). A report that fails stops it all: `failed` says what that leaves undone, as the error's first
    words. `progress` counts the reports as they are written."""
    staging.mkdir(folder)
    progress.stage("writing the reports", len(players))
    written = []
    template = load_template(game.spec)
    page_template = load_html_template(game.spec) if game.spec.html else None
    # One window for all the reports: the state does not change while they are written, so a function every
    # report calls (a country's controller) is worked out once for the turn, not once per player.
    with unchanging(game):
        for p in players:
            try:
                data = report_data(game, p)
                if checking_reports():
                    validate_report(game.spec, data)
                text = render(game.spec, data, template)
            except RulesError as e:
                raise GameError(f"{failed}: {e}") from None
            except Exception as e:
                raise GameError(f"{failed}: the report of {p.name} failed: {e}") from None
            base = report_base(p.account, p.name)
            path = staging.write(f"{folder}/{base}.txt", text.encode("utf-8"))
            as_json = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
            staging.write(f"{folder}/{base}.json", as_json.encode("utf-8"))
            try:
                page = render_html(game.spec, data, page_template)
            except Exception as e:
                raise GameError(f"{failed}: the HTML report of {p.name} failed: {e}") from None
            staging.write(f"{folder}/{base}.html", page.encode("utf-8"))
            if mailer is not None:
                mailer.write(p, text, page)
            written.append((p.name, path))
            progress.advance()
    return written


def _record_draws(root: Path, game: Game, turn: int) -> None:
    """history.yaml's record of a turn some of whose draws a scenario forced: its results were not left to
    chance, and whoever reads the game's history must know it."""
    used = [f"$.draws[{e.at}]" for e in game.forced if e.turn == turn]
    if used:
        history.append_history(root, {"action": "draws", "turn": turn, "forced": used})


def _missing_parents(root: Path) -> list[Path]:
    """The folders above `root` that do not exist yet, nearest first."""
    missing = []
    parent = root.parent
    while not parent.exists() and parent != parent.parent:
        missing.append(parent)
        parent = parent.parent
    return missing


def _remove_empty(folders: list[Path]) -> None:
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return


DEFAULT_NO_ORDERS_LIMIT = 50


def no_orders_limit(root: Path) -> int:
    """The GM's setting in game.yaml: the percent of active positions that may send nothing before a turn
    from filed orders is refused without --force."""
    meta = read_yaml(root / "game.yaml", "game.yaml")
    value = meta.get("no_orders_limit", DEFAULT_NO_ORDERS_LIMIT) if isinstance(meta, dict) else DEFAULT_NO_ORDERS_LIMIT
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 100:
        raise GameError(f"game.yaml: $.no_orders_limit: {value!r} is not a percent, a whole number 0 to 100")
    return value
