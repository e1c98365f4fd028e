"""Language features beyond Covert Operations, run end to end: two-way, weighted and range tables,
draws from named streams, phases with `when`, sets, sorting, typed order ranges with money."""

from __future__ import annotations

from pathlib import Path

import yaml

from rulesdsl.game.folder import GameFolder
from rulesdsl.runtime.core import weighted_pick

DATA = Path(__file__).resolve().parent / "data"


def start(tmp: Path, seed: int = 1) -> GameFolder:
    tmp.mkdir(parents=True, exist_ok=True)
    scenario = tmp / "scenario.yaml"
    scenario.write_text(yaml.safe_dump({
        "game": {"number": 3}, "seed": seed,
        "players": [{"name": "Ann", "account": "A1", "code": "X1"}, {"name": "Bob", "account": "B2", "code": "Y2"}],
    }), encoding="utf-8")
    return GameFolder.create(DATA / "features.rules", tmp / "game", scenario, None)


def submit(tmp: Path, name: str, lines: list[str]) -> Path:
    p = tmp / name
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


def test_features_over_three_rounds(tmp_path: Path) -> None:
    folder = start(tmp_path)
    ann = submit(tmp_path, "ann.txt", ["GAME 3", "PLAYER A1 X1", "BOOST INF 4", "BOOST ARM 9", "BOOST ARM 2",
                                        "BOOST ARM 1"])
    r1 = folder.process_turn([ann])
    text = (r1.folder / "reports" / "A1-ann.txt").read_text()
    # Two-way table sums per unit: INF 1+2, ARM 1+3. INF 3+4=7 beats ARM 5+2=7? Ties keep list order.
    assert "costs 3 4" in text
    assert "strongest INF ARM" in text
    # Money ranges are checked as the order is read; "at most 2 per turn" leaves the last on file.
    assert "refused line 4: amount must be at most 5 and at least 1" in text
    assert "BOOST INF 4: done" in text and "BOOST ARM 2: done" in text
    state = yaml.safe_load((r1.folder / "state.yaml").read_text())
    assert state["engine"]["on_file"] == {"A1": ["BOOST ARM 1"]}
    assert state["players"][0]["cash"] == 10 - 4 - 2
    # A set keeps one "boosted" however often it is added.
    assert state["Unit"]["INF"]["tags"] == ["boosted"]
    # Each round every player draws one card from the weighted table.
    assert all(len(p["drawn"]) == 1 and p["drawn"][0] in (200, 500, 700, 1000, 1500, 2000) for p in state["players"])
    # Scoring runs on even rounds only.
    assert all(p["score"] == 0 for p in state["players"])
    r2 = folder.process_turn([])
    state2 = yaml.safe_load((r2.folder / "state.yaml").read_text())
    # Round 2: the order on file ran; scoring = sum of move costs of units with a terrain: INF on CLEAR
    # costs 1, ARM on FOREST costs 3.
    assert state2["Unit"]["ARM"]["strength"] == 5 + 2 + 1
    assert all(p["score"] == 4 for p in state2["players"])
    assert "score 4 (low)" in (r2.folder / "reports" / "B2-bob.txt").read_text()
    folder.process_turn([])
    state3 = yaml.safe_load((folder.turns_dir / "turn-003" / "state.yaml").read_text())
    assert all(p["score"] == 4 and len(p["drawn"]) == 3 for p in state3["players"])


def test_draws_depend_on_seed_and_purpose_only(tmp_path: Path) -> None:
    a = start(tmp_path / "a", seed=7)
    b = start(tmp_path / "b", seed=7)
    c = start(tmp_path / "c", seed=8)
    ra, rb, rc = (f.process_turn([]) for f in (a, b, c))
    draws = [yaml.safe_load((r.folder / "state.yaml").read_text())["players"] for r in (ra, rb, rc)]
    assert draws[0] == draws[1]
    # Another seed draws otherwise for at least one of the draws (true for these seeds).
    assert draws[0] != draws[2]


def test_weighted_pick_follows_the_weights() -> None:
    import random
    from fractions import Fraction

    rng = random.Random(3)
    rows = [(Fraction(50), "a"), (Fraction(30), "b"), (Fraction(20), "c")]
    counts = {"a": 0, "b": 0, "c": 0}
    for _ in range(10_000):
        counts[weighted_pick(rng, rows)] += 1
    assert 4700 < counts["a"] < 5300 and 2700 < counts["b"] < 3300 and 1700 < counts["c"] < 2300
