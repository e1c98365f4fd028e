"""WCG's private facts of Z2 (transport, boarding): two games on the test world differing in one hidden fact -> the
other player's reports and the news, compared byte for byte."""

from __future__ import annotations

from pathlib import Path

from tests.golden.harness import GOLDEN, Scenario, play

ACCOUNTS = {"ann": ("1", "A1"), "bob": ("2", "B2")}


def _world() -> str:
    """The test world with Ann ruling Cuba and holding a cargo ship, a carrier and 2 I.C.B.M.s at home."""
    base = (GOLDEN / "wcg" / "_world" / "scenario-base.yaml").read_text(encoding="utf-8")
    base = base.replace("ports: 1}", 'ports: 1, ruler: "1"}')
    ships = ('  - {owner: "1", country: USA, kind: BAT, count: 2, free: true}\n'
             '  - {owner: "1", country: USA, kind: CGO, count: 1, free: true}\n'
             '  - {owner: "1", country: USA, kind: CAR, count: 1, free: true}\n'
             '  - {owner: "1", country: USA, kind: ICBM, count: 2, free: true}\n')
    base = base.replace('  - {owner: "1", country: USA, kind: BAT, count: 2, free: true}\n', ships)
    assert 'ruler: "1"' in base and "kind: ICBM" in base
    return base


def _reports(tmp: Path, name: str, lines: list[str]) -> dict[tuple[int, str], str]:
    folder = tmp / name
    folder.mkdir()
    (folder / "scenario.yaml").write_text(_world(), encoding="utf-8")
    for turn in (1, 2):
        (folder / f"turn-{turn}").mkdir()
    account, code = ACCOUNTS["ann"]
    (folder / "turn-2" / "01-ann.txt").write_text("\n".join(["WCG-1", f"{account} {code}", *lines]) + "\n",
                                                  encoding="utf-8")
    return {(turn, out): text for turn, out, text in play(Scenario("wcg", name, folder), tmp / f"{name}-game")}


def _same_for_bob(a: dict[tuple[int, str], str], b: dict[tuple[int, str], str]) -> None:
    assert a.keys() == b.keys()
    for key in sorted(a):
        if key[1] in ("2-bob", "news"):
            assert a[key] == b[key], key


def test_z2_boarding_is_private(tmp_path: Path) -> None:
    # Ann's I.C.B.M.s go aboard her carrier, or stay ashore: Bob and the news cannot tell.
    boarded = _reports(tmp_path, "boarded", ["BOARD USA,ICBM,2"])
    ashore = _reports(tmp_path, "ashore", [])
    assert "2 I.C.B.M.s go aboard your carriers in United States" in boarded[(2, "1-ann")]
    _same_for_bob(boarded, ashore)


def test_z2_troops_by_sea_between_own_countries_are_private(tmp_path: Path) -> None:
    # Ann's cargo ship carries 12 infantry from the United States to Cuba, both hers, or nothing moves.
    sailed = _reports(tmp_path, "sailed", ["MOVE CGO,1,USA,CUB", "MOVE INF,12,USA,CUB"])
    stayed = _reports(tmp_path, "stayed", [])
    assert "Cuba: 12 infantry" in sailed[(2, "1-ann")]
    _same_for_bob(sailed, stayed)
