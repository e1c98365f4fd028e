"""WCG's hidden submarines (R69, W5a): the same game played with Bob's submarines hidden or not, and with a hidden
one waiting off the United States or not there -> Ann's report and the news, compared byte for byte."""

from __future__ import annotations

import shutil
from pathlib import Path

from rulesdsl.game.folder import GameFolder

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rulesets" / "wcg.rules"
WORLD = (ROOT / "tests" / "golden" / "wcg" / "_world" / "scenario-base.yaml").read_text(encoding="utf-8")


def play(tmp: Path, name: str, scenario: str, bob: list[list[str]]) -> tuple[str, str, str]:
    """Plays one turn per item of `bob` (Bob's order lines); gives Ann's last report, Bob's, and the news."""
    start = tmp / f"start-{len(scenario)}"
    if not start.exists():
        path = tmp / f"{start.name}.yaml"
        path.write_text(scenario, encoding="utf-8")
        GameFolder.create(RULES, start, path, None)
    shutil.copytree(start, tmp / name)
    folder = GameFolder(tmp / name)
    for turn, lines in enumerate(bob):
        mail = []
        if lines:
            path = tmp / f"{name}-{turn}-bob.txt"
            path.write_text("WCG-1\n2 B2\n" + "".join(f"{line}\n" for line in lines), encoding="utf-8")
            mail.append(path)
        result = folder.process_turn(mail)
    reports = {path.stem: path.read_text(encoding="utf-8") for _, path in result.reports}
    assert result.news is not None
    return reports["1-ann"], reports["2-bob"], result.news.read_text(encoding="utf-8")


def test_w5a_private_hide(tmp_path: Path) -> None:
    # January's budget turn, then its action turn with or without HIDE: hiding tells Ann nothing.
    plain = play(tmp_path, "plain", WORLD, [[], []])
    hidden = play(tmp_path, "hidden", WORLD, [[], ["HIDE MEX,2"]])
    assert "HIDE MEX,2" in hidden[1] and "done" in hidden[1].split("HIDE MEX,2")[1].splitlines()[0]
    assert hidden[1] != plain[1]
    assert hidden[0] == plain[0]
    assert hidden[2] == plain[2]


# Bob's hidden submarine waiting off the United States through a month's end, or not there at all: Ann, whose
# battleships are in those waters, reads the same.
WAITING = WORLD.replace(
    '  - {owner: "2", country: MEX, kind: SUB, count: 2, free: true}\n',
    '  - {owner: "2", country: MEX, kind: SUB, count: 2, free: true}\n'
    '  - {owner: "2", country: USA, kind: SUB, count: 1, free: true, hidden: true}\n',
)


def test_w5a_private_waiting_submarine(tmp_path: Path) -> None:
    assert WAITING != WORLD
    absent = play(tmp_path, "absent", WORLD, [[], [], []])
    waiting = play(tmp_path, "waiting", WAITING, [[], [], []])
    assert "United States: 1 submarine" in waiting[1] and "United States: 1 submarine" not in absent[1]
    assert waiting[0] == absent[0]
    assert waiting[2] == absent[2]
