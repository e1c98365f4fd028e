"""WCG's private budgets (R17, R18): one game played twice from the same scenario, differing only in one
player's budget (an investment made or not; a budget refused or accepted) -> the other player's reports and
the news, compared byte for byte."""

from __future__ import annotations

from pathlib import Path

from tests.golden.harness import GOLDEN, Scenario, play

# The test world from the turn before December 1960's action turn: the yearly steps run at the end of turn 25.
BASE = (GOLDEN / "wcg" / "_world" / "scenario-base.yaml").read_text(encoding="utf-8").replace(
    "seed: 14\n", "seed: 14\nturn: 23\n")
# The United States' population forced to no change in both games: nature 5 alone (no investment), or nature 5
# moved one toward a rise by a modifying roll of 3 to 6, still no change (with Ann's 20%).
CALM = """\
draws:
  - {turn: 25, stream: "nature", keys: ["Measure:POPULATION", null, "Country:USA"], values: [5]}
"""
SHIFT = '  - {turn: 25, stream: "nature_shift", keys: ["Measure:POPULATION", null, "Country:USA"], values: [3]}\n'
BOB = "WCG-1\n2 B2\nINVEST POPULATION,10,UP,ALLOW\nSAVE 10.8\n"


def _reports(tmp: Path, name: str, ann: str, draws: str) -> dict[tuple[int, str], str]:
    folder = tmp / name
    folder.mkdir()
    (folder / "scenario.yaml").write_text(BASE + draws, encoding="utf-8")
    (folder / "turn-24").mkdir()
    (folder / "turn-24" / "01-ann.txt").write_text(f"WCG-1\n1 A1\n{ann}", encoding="utf-8")
    (folder / "turn-24" / "02-bob.txt").write_text(BOB, encoding="utf-8")
    for turn in (25, 26):
        (folder / f"turn-{turn}").mkdir()
        (folder / f"turn-{turn}" / ".keep").touch()
    return {(t, n): text for t, n, text in play(Scenario("wcg", name, folder), tmp / f"{name}-game")}


def _others(reports: dict[tuple[int, str], str]) -> dict[tuple[int, str], str]:
    return {k: v for k, v in reports.items() if k[1] != "1-ann"}


def test_w2_private_investment(tmp_path: Path) -> None:
    made = _reports(tmp_path, "made", "INVEST POPULATION,20,UP,ALLOW\nSAVE 57.6\n", CALM + SHIFT)
    not_made = _reports(tmp_path, "none", "SAVE 72.0\n", CALM)
    assert made[(24, "1-ann")] != not_made[(24, "1-ann")]          # Ann saved 57.6 or 72.0
    def population(text: str) -> str:
        return next(line for line in text.splitlines() if "Population:" in line)
    # the public result forced equal: the 20% moved nature 5 to 6, still no change
    assert population(made[(25, "1-ann")]) == population(not_made[(25, "1-ann")])
    assert population(made[(24, "1-ann")]) == population(made[(25, "1-ann")])
    assert _others(made) == _others(not_made)
    assert len(_others(made)) == 6


def test_w2_private_budget_refused(tmp_path: Path) -> None:
    refused = _reports(tmp_path, "refused", "SAVE 72.3\n", CALM)
    accepted = _reports(tmp_path, "accepted", "SAVE 72.0\n", CALM)
    assert "Budget refused" in refused[(24, "1-ann")]
    assert "Budget approved" in accepted[(24, "1-ann")]
    assert _others(refused) == _others(accepted)
