"""Warlord at full size: `rulesdsl new` of a generated 320 x 99 world with 100 players, then three turns of
scripted orders from every player, each through `rulesdsl turn` as a GM runs them -> the reports, the news
and the states, checked for what a real game would show when something is wrong.

Each player's orders are written from its own report of the turn before (its forces and cities), as a player
writes them: A, M, C, S, L, N and D, to units and to locations, and some lines that must be refused or fail,
each with the reason the rules give. A reason no rule gives (an engine's fault, a loop cut short) fails the
test. The first turn is played twice from two `rulesdsl new` of the same scenario: every file must be the same
byte for byte."""

from __future__ import annotations

import hashlib
import json
import random
import re
from importlib import import_module
from pathlib import Path
from typing import Any

import pytest
import yaml

from rulesdsl.cli import main
from rulesdsl.game.folder import GameFolder

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rulesets" / "warlord.rules"
PLAYERS = 100
TURNS = 3
ORDER_MAKERS = [import_module(f"tests.unit.wl_orders.{p.stem}")
                for p in sorted((Path(__file__).parent / "wl_orders").glob("*.py")) if p.stem != "__init__"]
# Every reason a line may be refused or fail with in this script: the rules' own words. Anything else (a
# Python error's text, "a loop ran too long", a reason the script did not expect) is a fault to look at.
EXPECTED_REASONS = tuple(r for m in ORDER_MAKERS for r in m.EXPECTED)
# The order letters of the rulebook's list of orders (rb 657-677), and those each maker's lines carry out.
ALL_LETTERS = frozenset(["A", "B", "C", "D", "E", "F", "I", "K", "L", "M", "N", "O", "P", "S", "V", "W", "Y", "--"])
# A maker's own LETTERS if it says, else what the design gives its package (w13-design.md, Part 3).
_PACKAGE_LETTERS = {"land": ["A", "C", "D", "L", "M", "N", "S"], "sea": [], "air": ["B", "F", "O", "V", "W"],
                    "staff": ["E", "I", "K", "P"], "talk": ["Y", "--"]}
MAKER_LETTERS = {name: frozenset(getattr(m, "LETTERS", _PACKAGE_LETTERS.get(name, [])))
                 for m in ORDER_MAKERS for name in [m.__name__.rsplit(".", 1)[1]]}
# Once every part-2 package's maker is here, every letter must be carried out in a long game.
ALL_MAKERS = {"land", "sea", "air", "staff", "talk"}


def _orders(report: dict[str, Any], turn: int, others: list[int],
            rngs: dict[str, random.Random]) -> tuple[list[str], dict[str, str]]:
    """A player's mail for `turn` -> every order maker's lines, in module name order, and the lines written to
    be refused or to fail. Each maker draws from its own stream, so that one added changes no other's lines."""
    lines: list[str] = []
    bad: dict[str, str] = {}
    for m in ORDER_MAKERS:
        name = m.__name__.rsplit(".", 1)[1]
        more, wrong = m.orders(report, turn, rngs[name], others)
        lines += more
        bad |= wrong
    return lines, bad


def _play(tmp: Path, name: str, turns: int,
          capsys: pytest.CaptureFixture[str]) -> tuple[Path, list[dict[str, dict[str, str]]]]:
    """A game played from `rulesdsl new` through `turns` turns -> its folder, and for each turn each player's
    lines written to be refused or to fail (by account), each with what its reason must say."""
    scenario = tmp / "scenario.yaml"
    players = [{"name": f"Player {i}", "account": str(i), "code": f"C{i}"} for i in range(1, PLAYERS + 1)]
    scenario.write_text(yaml.safe_dump({"game": {"number": 1}, "seed": 7, "players": players}), encoding="utf-8")
    game = tmp / name
    assert main(["new", str(RULES), str(game), "--scenario", str(scenario)]) == 0
    out = capsys.readouterr()
    assert out.err == ""
    assert f"{PLAYERS} starting report(s)" in out.out
    seen: list[dict[str, dict[str, str]]] = []
    for turn in range(1, turns + 1):
        before = game / "turns" / f"turn-{turn - 1:03d}" / "reports"
        # land.py keeps the stream it had before the makers were split, so part 1's mails are unchanged.
        rngs = {m.__name__.rsplit(".", 1)[1]: random.Random(f"orders {turn}" if m.__name__.endswith(".land")
                                                            else f"orders {turn} {m.__name__}")
                for m in ORDER_MAKERS}
        # The same file names in every game played: the turn folder keeps each file under its name.
        post = tmp / f"mail-{name}" / f"turn-{turn}"
        post.mkdir(parents=True)
        mail = []
        bad_lines: dict[str, dict[str, str]] = {}
        for i in range(1, PLAYERS + 1):
            report = json.loads((before / f"{i}-player-{i}.json").read_text(encoding="utf-8"))
            others = [i % PLAYERS + 1, (i + 1) % PLAYERS + 1]
            lines, bad = _orders(report, turn, others, rngs)
            bad_lines[str(i)] = bad
            path = post / f"{i}.txt"
            path.write_text("\n".join(["WL-1", f"{i} C{i}", *lines]) + "\n", encoding="utf-8")
            mail.append(path)
        assert main(["turn", str(game), *map(str, mail)]) == 0
        out = capsys.readouterr()
        assert out.err == "", out.err
        assert f"{PLAYERS} report(s) for turn {turn}" in out.out
        seen.append(bad_lines)
    return game, seen


def _outputs(game: Path, turns: range) -> dict[str, str]:
    """Every file of the given turns' folders -> its sha256."""
    out = {}
    for turn in turns:
        folder = game / "turns" / f"turn-{turn:03d}"
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                out[str(path.relative_to(game))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def check_game(game: Path, bad_by_turn: list[dict[str, dict[str, str]]], turns: int) -> set[str]:
    """A game played by `_play` -> the order letters carried out in it; every refusal and failure checked
    against the reasons the rules give, and against the lines written to be refused."""
    expected = re.compile("|".join(f"(?:{r})" for r in EXPECTED_REASONS))
    # Each turn loaded the state before it, and refuses one that does not pass its schemas (the state file's
    # and the ruleset's): the last state is loaded here the same way.
    last = GameFolder(game).load_game()
    assert last.turn == turns
    done: set[str] = set()
    letters = 0
    for turn in range(1, turns + 1):
        folder = game / "turns" / f"turn-{turn:03d}"
        reports = sorted(p.name for p in (folder / "reports").glob("*.txt"))
        assert len(reports) == PLAYERS, f"turn {turn}: {len(reports)} reports"
        bad = bad_by_turn[turn - 1]
        taken = unplanned = 0
        for i in range(1, PLAYERS + 1):
            report = json.loads((folder / "reports" / f"{i}-player-{i}.json").read_text(encoding="utf-8"))
            lines = {r["text"]: r["reason"] for r in report["orders"]["refused"]}
            lines |= {r["text"]: r["reason"] for r in report["orders"]["used"] if r["status"] == "failed"}
            for text, reason in lines.items():
                assert expected.fullmatch(reason), f"turn {turn}, player {i}: {text!r} refused: {reason}"
            for text, why in bad[str(i)].items():
                assert text in lines, f"turn {turn}, player {i}: {text!r} was taken"
                assert why in lines[text], f"turn {turn}, player {i}: {text!r} refused: {lines[text]}"
            # An A order to a random sector across the sea fails as the rules say (no route), and so does an O
            # at a reported city beyond the fighters' range (air.py): judged, not turned down for want of
            # reading it.
            unplanned += sum(1 for t in set(lines) - set(bad[str(i)])
                             if not lines[t].startswith(("no route from", "no fighters of yours free within")))
            taken += sum(1 for r in report["orders"]["used"] if r["status"] == "done")
            done |= {r["text"].split()[0] for r in report["orders"]["used"] if r["status"] == "done"}
            letters += len(report.get("letters", []))
        # Every other line is carried out but for a few the rules turn down (a unit linked away, an A order to
        # where the unit is): a turn that refuses what it should take is as wrong as one that takes everything.
        assert taken > 20 * unplanned, (turn, taken, unplanned)
    if "talk" in MAKER_LETTERS:
        assert letters > PLAYERS, letters  # the messages sent reach the players they are for
    return done


def test_a_full_size_game_of_100_players(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game, bad_by_turn = _play(tmp_path, "a", TURNS, capsys)
    done = check_game(game, bad_by_turn, TURNS)
    # Part 1's orders and the messages are all carried out within three turns; the other makers' letters
    # in benchmarks/warlord_long.py's twenty.
    for maker in ("land", "talk"):
        if maker in MAKER_LETTERS:
            assert MAKER_LETTERS[maker] <= done, (maker, sorted(MAKER_LETTERS[maker] - done))
    # The same seed and mail give the same game: a second game, new and its first turn, byte for byte.
    again, _ = _play(tmp_path, "b", 1, capsys)
    assert _outputs(again, range(2)) == _outputs(game, range(2))
