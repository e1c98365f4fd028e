"""WCG's private facts of W3 (monthly actions and spending): two games on the test world differing in one hidden
fact -> the reports of every player who may not know it, and the news, compared byte for byte."""

from __future__ import annotations

from pathlib import Path

from tests.golden.harness import GOLDEN, Scenario, play

ACCOUNTS = {"ann": ("1", "A1"), "bob": ("2", "B2"), "carol": ("3", "C3")}


def _world(tmp: Path) -> str:
    """The test world with Canada a third starting position (Carol's), Ann ruling Cuba, and savings to spend."""
    base = (GOLDEN / "wcg" / "_world" / "scenario-base.yaml").read_text(encoding="utf-8")
    base = base.replace('home: MEX}', 'home: MEX, saved: 10.0}\n  - {name: "Carol", account: "3", code: "C3", '
                                      'home: CAN}')
    base = base.replace('home: USA}', 'home: USA, saved: 10.0}')
    base = base.replace("CAN: {start: false", "CAN: {start: true")
    base = base.replace("ports: 1}", 'ports: 1, ruler: "1"}')
    assert base.count("saved: 10.0") == 2 and 'ruler: "1"' in base
    return base


def _reports(tmp: Path, name: str, turns: dict[int, dict[str, list[str]]]) -> dict[tuple[int, str], str]:
    folder = tmp / name
    folder.mkdir()
    (folder / "scenario.yaml").write_text(_world(tmp), encoding="utf-8")
    for turn in range(1, max(turns) + 1):
        (folder / f"turn-{turn}").mkdir()
        for who, lines in turns.get(turn, {}).items():
            account, code = ACCOUNTS[who]
            (folder / f"turn-{turn}" / f"0{account}-{who}.txt").write_text(
                "\n".join(["WCG-1", f"{account} {code}", *lines]) + "\n", encoding="utf-8")
    return {(turn, out): text for turn, out, text in play(Scenario("wcg", name, folder), tmp / f"{name}-game")}


def _same_for(a: dict[tuple[int, str], str], b: dict[tuple[int, str], str], outputs: list[str]) -> None:
    assert a.keys() == b.keys()
    for key in sorted(a):
        if key[1] in outputs:
            assert a[key] == b[key], key


def test_w3_private_move_between_own_countries(tmp_path: Path) -> None:
    # Ann's battleship sails between the United States and Cuba, both hers, or stays home.
    moved = _reports(tmp_path, "moved", {2: {"ann": ["MOVE BAT,1,USA,CUB"]}})
    stayed = _reports(tmp_path, "stayed", {2: {"ann": []}})
    assert "Cuba: 1 battleship" in moved[(2, "1-ann")] and "Cuba: 1 battleship" not in stayed[(2, "1-ann")]
    _same_for(moved, stayed, ["2-bob", "3-carol", "news"])


def test_w3_private_payer_of_fund_and_build(tmp_path: Path) -> None:
    # 3 infantry bought in Carol's Canada with Ann's money or with Bob's: Carol and the news cannot tell who paid.
    lines = ["FUND CAN,2.5", "BUILD CAN,INF,3"]
    by_ann = _reports(tmp_path, "by-ann", {1: {"ann": lines}})
    by_bob = _reports(tmp_path, "by-bob", {1: {"bob": lines}})
    assert "3 new infantry appear in Canada" in by_ann[(1, "news")]
    _same_for(by_ann, by_bob, ["3-carol", "news"])


def test_w3_private_give(tmp_path: Path) -> None:
    # Ann gives Bob $3.0M, or nothing: Carol and the news cannot tell.
    given = _reports(tmp_path, "given", {2: {"ann": ["GIVE 2,3.0"]}})
    kept = _reports(tmp_path, "kept", {2: {"ann": []}})
    assert "Ann gives you $3.0M" in given[(2, "2-bob")]
    _same_for(given, kept, ["3-carol", "news"])
