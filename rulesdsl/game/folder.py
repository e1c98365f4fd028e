"""A game folder on disk <-> games and turns: start a game, process a turn atomically, read the state.

Layout of GAMEDIR:
    game.yaml                 which ruleset (a copy lives in rules/), made once by `new`
    rules/                    the ruleset and its templates, as the game was started with them
    turns/turn-000/state.yaml the starting state
    turns/turn-NNN/           one folder per processed turn: orders/ (submissions as received),
                              reports/ (one text file per player, and its data as JSON), news.txt,
                              state.yaml (the whole state after the turn)
The newest turn folder is the current state, so a turn is committed by one rename: it happens whole
or not at all.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from rulesdsl.compiler import check_path, load_module
from rulesdsl.diagnostics import CompileError
from rulesdsl.runtime.core import RulesError
from rulesdsl.runtime.engine import Game
from rulesdsl.runtime.report import render, report_data, validate_report
from rulesdsl.runtime.spec import RulesetSpec
from rulesdsl.runtime.state import StateError, dump, load, new_game

# LibYAML when PyYAML has it (several times faster on state files); the pure-Python safe classes otherwise.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class GameError(Exception):
    """A refusal a GM can act on: bad input, a rules error, a game that is over."""


def _schema(name: str) -> dict[str, Any]:
    text = resources.files("rulesdsl").joinpath(f"schemas/{name}").read_text(encoding="utf-8")
    result: dict[str, Any] = json.loads(text)
    return result


def json_path(parts: Any) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts)


def validate(data: Any, schema: dict[str, Any], what: str, fields: bool = False) -> None:
    """Refuses `data` with the JSON path of its first fault. With `fields`, the schema is the ruleset's
    own (fields of players, things, the world; parameters), and an unknown name is named in the path."""
    cls = jsonschema.validators.validator_for(schema)
    errors = sorted(cls(schema).iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        err = errors[0]
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
                close = difflib.get_close_matches(unknown[0], known, n=1)
                parts.append(unknown[0])
                message = f"no such {what_name}{f'; did you mean {close[0]}?' if close else ''}"
        raise GameError(f"{what}: {json_path(parts)}: {message}")


def read_yaml(path: Path, what: str) -> Any:
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)
    except FileNotFoundError:
        raise GameError(f"{what}: no such file") from None
    except UnicodeDecodeError as e:
        raise GameError(f"{what}: not UTF-8 text (at byte {e.start}); save it as UTF-8") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise GameError(f"{what}: not valid YAML{where}") from None


def write_yaml(path: Path, data: Any) -> None:
    text = yaml.dump(data, Dumper=_DUMPER, sort_keys=False, allow_unicode=True, width=100)
    path.write_text(text, encoding="utf-8")


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "player"


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


class GameFolder:
    def __init__(self, root: Path) -> None:
        self.root = root

    # ------------------------------------------------------------ reading
    @property
    def turns_dir(self) -> Path:
        return self.root / "turns"

    def latest_turn(self) -> int:
        turns = [int(p.name[5:]) for p in self.turns_dir.glob("turn-[0-9][0-9][0-9]") if p.is_dir()]
        if not turns:
            raise GameError(f"{self.root}: not a game folder (no turns/turn-000); start one with `rulesdsl new`")
        return max(turns)

    def rules_path(self) -> Path:
        if not (self.root / "game.yaml").is_file():
            raise GameError(f"{self.root}: not a game folder (it has no game.yaml); start one with `rulesdsl new`")
        meta = read_yaml(self.root / "game.yaml", "game.yaml")
        if not isinstance(meta, dict) or "rules" not in meta:
            raise GameError("game.yaml: $.rules: the game's ruleset is not named")
        return self.root / str(meta["rules"])

    def load_spec(self) -> tuple[RulesetSpec, str]:
        # The compiled module is cached by content hash outside the folder: a failed turn writes nothing here.
        module, spec = load_module(self.rules_path())
        return spec, str(module.__file__)

    def load_game(self) -> Game:
        spec, module_file = self.load_spec()
        turn = self.latest_turn()
        path = self.turns_dir / f"turn-{turn:03d}" / "state.yaml"
        data = read_yaml(path, str(path.relative_to(self.root)))
        what = f"turns/turn-{turn:03d}/state.yaml"
        validate(data, _schema("state.schema.json"), what)
        validate({k: v for k, v in data.items() if k in spec.state_schema["properties"]}, spec.state_schema, what,
                 fields=True)
        if data["ruleset"]["title"] != spec.title:
            raise GameError(f"{what}: $.ruleset.title: this state is of \"{data['ruleset']['title']}\", "
                            f"not \"{spec.title}\"")
        try:
            return load(spec, data, module_file)
        except StateError as e:
            raise GameError(f"{what}: {e}") from None

    # ------------------------------------------------------------ starting
    @classmethod
    def create(cls, rules: Path, root: Path, scenario: Path | None, seed: int | None) -> GameFolder:
        if root.exists() and any(root.iterdir()):
            raise GameError(f"{root}: already exists and is not empty; choose a new folder for the game")
        data: dict[str, Any] = {"players": []}
        if scenario is not None:
            loaded = read_yaml(scenario, scenario.name)
            if not isinstance(loaded, dict):
                raise GameError(f"{scenario.name}: $: a scenario is a mapping with at least `players`")
            data = loaded
            validate(data, _schema("scenario.schema.json"), scenario.name)
        if seed is not None:
            data["seed"] = seed
        if not data.get("players"):
            raise GameError(f"{scenario.name if scenario else 'scenario'}: $.players: a game needs players")
        accounts = [str(p["account"]).upper() for p in data["players"]]
        for i, a in enumerate(accounts):
            if accounts.index(a) != i:
                raise GameError(f"{scenario.name if scenario else 'scenario'}: $.players[{i}].account: "
                                f"account {a} is already player {accounts.index(a) + 1}")
        staging = Path(tempfile.mkdtemp(prefix=".new-", dir=root.parent if root.parent.exists() else None))
        try:
            rules_dir = staging / "rules"
            rules_dir.mkdir()
            checked = check_path(rules)
            if not checked.ok:
                raise CompileError([d for d in checked.diagnostics if d.severity == "error"], checked.sources)
            # The ruleset and the templates it names: the game keeps the rules it started with.
            for name in sorted(checked.sources):
                src = rules if name == rules.name else rules.parent / name
                shutil.copy2(src, rules_dir / src.name)
            write_yaml(staging / "game.yaml", {"rules": f"rules/{rules.name}"})
            folder = cls(staging)
            spec, _ = folder.load_spec()
            world = {k: v for k, v in data.items() if k in spec.state_schema["properties"]}
            unknown = [k for k in data if k not in spec.state_schema["properties"] and k not in ("game", "seed")]
            if unknown:
                raise GameError(f"{scenario.name if scenario else 'scenario'}: $.{unknown[0]}: "
                                f"\"{spec.title}\" has no such section")
            validate(world, spec.state_schema, scenario.name if scenario else "scenario", fields=True)
            try:
                game = new_game(spec, data)
            except StateError as e:
                raise GameError(f"{scenario.name if scenario else 'scenario'}: {e}") from None
            turn0 = staging / "turns" / "turn-000"
            turn0.mkdir(parents=True)
            write_yaml(turn0 / "state.yaml", dump(game))
            root.parent.mkdir(parents=True, exist_ok=True)
            if root.exists():
                root.rmdir()
            os.replace(staging, root)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return cls(root)

    # ------------------------------------------------------------ a turn
    def process_turn(self, order_files: list[Path]) -> TurnResult:
        game = self.load_game()
        if game.game_over:
            raise GameError(f"{self.root}: the game is over (turn {game.turn}); no more turns")
        submissions = []
        for f in order_files:
            try:
                submissions.append((f.name, f.read_text(encoding="utf-8", errors="replace")))
            except OSError as e:
                raise GameError(f"{f}: cannot read the orders: {e.strerror}") from None
        try:
            game.process_turn(submissions)
        except RulesError as e:
            raise GameError(f"the turn was not processed, and the game is as it was: {e}") from None
        turn = game.turn
        final = self.turns_dir / f"turn-{turn:03d}"
        if final.exists():
            raise GameError(f"{final}: already exists; the game folder is inconsistent")
        staging = Path(tempfile.mkdtemp(prefix=f".turn-{turn:03d}-", dir=self.turns_dir))
        result = TurnResult(final, turn, unrouted=list(game.unrouted), game_over=game.game_over,
                            winners=list(game.winners))
        try:
            (staging / "orders").mkdir()
            for i, (name, text) in enumerate(submissions, 1):
                (staging / "orders" / f"{i:02d}-{name}").write_text(text, encoding="utf-8")
            (staging / "reports").mkdir()
            for p in game.all_players:
                if not p.active and not game.turns[p._key].was_active:
                    continue
                try:
                    data = report_data(game, p)
                    validate_report(game.spec, data)
                    text = render(game.spec, data)
                except RulesError as e:
                    raise GameError(f"the turn was not processed, and the game is as it was: {e}") from None
                except Exception as e:
                    raise GameError(f"the turn was not processed, and the game is as it was: the report of "
                                    f"{p.name} failed: {e}") from None
                base = f"{p.account}-{_slug(p.name)}"
                (staging / "reports" / f"{base}.txt").write_text(text, encoding="utf-8")
                (staging / "reports" / f"{base}.json").write_text(
                    json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
                result.reports.append((p.name, final / "reports" / f"{base}.txt"))
            news = [f"{game.spec.title} {game.meta.get('id', '')}: news of {game.spec.turn_unit} {turn}", ""]
            news += [f"  {item}" for item in game.news_items()] or [f"  A quiet {game.spec.turn_unit}."]
            (staging / "news.txt").write_text("\n".join(news) + "\n", encoding="utf-8")
            result.news = final / "news.txt"
            if game.unrouted:
                # For the GM: mail that reached no player, so it is answered by hand, never lost.
                lines = [f"Mail of {game.spec.turn_unit} {turn} that was not processed:", ""]
                lines += [f"  {u}" for u in game.unrouted]
                (staging / "unrouted.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
            if game.unrouted:
                result.unrouted_file = final / "unrouted.txt"
            write_yaml(staging / "state.yaml", dump(game))
            os.replace(staging, final)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return result
