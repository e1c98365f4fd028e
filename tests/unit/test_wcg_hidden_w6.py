"""WCG's yearly results page (R17): one game played twice from the same scenario, differing only in an
investment (a 20% refusing an extreme change of the United States' population, or none) with the public result
forced equal (no change) -> the other player's reports and the news, compared byte for byte."""

from __future__ import annotations

from pathlib import Path

from tests.golden.harness import GOLDEN, Scenario, play

# The test world from the turn before December 1960's action turn (its first-year rolls, forced calm, moved to
# the start turn): the yearly steps run at the end of turn 25, and its report and turn 26's carry the page.
BASE = (GOLDEN / "wcg" / "_world" / "scenario-base.yaml").read_text(encoding="utf-8").replace(
    "seed: 14\n", "seed: 14\nturn: 23\n").replace("{turn: 0, stream", "{turn: 23, stream")


def _draw(nature: int) -> str:
    keys = '["Measure:POPULATION", null, "Country:USA"]'
    return f'  - {{turn: 25, stream: "nature", keys: {keys}, values: [{nature}]}}\n'


def _reports(tmp: Path, name: str, ann: str, nature: int) -> dict[tuple[int, str], str]:
    folder = tmp / name
    folder.mkdir()
    (folder / "scenario.yaml").write_text(BASE + _draw(nature), encoding="utf-8")
    (folder / "turn-24").mkdir()
    (folder / "turn-24" / "01-ann.txt").write_text(f"WCG-1\n1 A1\n{ann}", encoding="utf-8")
    (folder / "turn-24" / "02-bob.txt").write_text("WCG-1\n2 B2\nSAVE 2.2\n", encoding="utf-8")
    for turn in (25, 26):
        (folder / f"turn-{turn}").mkdir()
        (folder / f"turn-{turn}" / ".keep").touch()
    return {(t, n): text for t, n, text in play(Scenario("wcg", name, folder), tmp / f"{name}-game")}


def _row(text: str, country: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(f"  {country} "))


def test_w6_refused_extreme_is_the_investors_alone(tmp_path: Path) -> None:
    # Ann's 20% with REFUSE turns a natural 10 (extreme) into no change; without it a 5 is no change.
    refused = _reports(tmp_path, "refused", "INVEST POPULATION,20,UP,REFUSE\nSAVE 57.6\n", 10)
    calm = _reports(tmp_path, "calm", "SAVE 72.0\n", 5)
    assert "extreme, refused 0%" in _row(refused[(25, "1-ann")], "United States")
    assert "extreme" not in _row(calm[(25, "1-ann")], "United States")
    assert "none 0%" in _row(refused[(25, "2-bob")], "United States")
    others = {k: v for k, v in refused.items() if k[1] != "1-ann"}
    assert others == {k: v for k, v in calm.items() if k[1] != "1-ann"}
    assert len(others) == 6
