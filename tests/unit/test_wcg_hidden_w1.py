"""WCG's 1960 world and what each player cannot see of it (issue 14, package W1): two games on the 1960 world
differing in one hidden fact of the start -> every other player's reports (starting and the first turn's),
and the news, compared byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulesdsl.game.folder import GameFolder

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rulesets" / "wcg.rules"

# Three players of the 1960 world (world_1960 left true: the garrisons are the data's).
PLAYERS = """\
game: {number: 7}
seed: 7
players:
  - {name: "Ann", account: "1", code: "A1", home: USA}
  - {name: "Bob", account: "2", code: "B2", home: RUS}
  - {name: "Hal", account: "3", code: "H3", home: EGY}
"""


def outputs(tmp: Path, name: str, extra: str) -> dict[str, bytes]:
    """A game made from PLAYERS + extra and its first turn played with no mail -> every report file and the
    news, by turn and file name."""
    scenario = tmp / f"{name}.yaml"
    scenario.write_text(PLAYERS + extra, encoding="utf-8")
    folder = GameFolder.create(RULES, tmp / name, scenario, None)
    result = folder.process_turn([], force=True)
    assert result.news is not None
    out = {"news": result.news.read_bytes()}
    for turn in ("turn-000", "turn-001"):
        for path in sorted((folder.turns_dir / turn / "reports").iterdir()):
            out[f"{turn}/{path.name}"] = path.read_bytes()
    return out


def differing(a: dict[str, bytes], b: dict[str, bytes]) -> set[str]:
    assert a.keys() == b.keys()
    return {k for k in a if a[k] != b[k]}


@pytest.fixture(scope="module")
def same(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    return outputs(tmp_path_factory.mktemp("wcg-hidden-w1"), "same", "")


def test_w1_private_starting_army(same: dict[str, bytes], tmp_path: Path) -> None:
    # Egypt's starting army (rb 11) is its ruler's to know: 29 infantry or 40, nobody else's report moves.
    more = outputs(tmp_path, "b", "Garrison:\n  EGY_INF: {count: 40}\n")
    changed = differing(same, more)
    assert changed and all(k.split("/")[1].startswith("3-") for k in changed), sorted(changed)


def test_w1_private_neutral_garrison(same: dict[str, bytes], tmp_path: Path) -> None:
    # A country no player rules keeps its army to itself (Canada: 127 infantry or 20): no report moves.
    fewer = outputs(tmp_path, "b", "Garrison:\n  CAN_INF: {count: 20}\n")
    assert differing(same, fewer) == set()
