"""The game store: turns from filed orders, status, rollback and rerun byte for byte, the guard against a
double turn, the no-orders gate, --dry-run, GM actions and their history, the lock, and killed runs."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest
import yaml

from rulesdsl.cli import main
from rulesdsl.compiler import check_path
from rulesdsl.game import history, inbox, store
from rulesdsl.game.disk import GameLock, Staging
from rulesdsl.game.folder import GameError, GameFolder
from tests.unit.rulestools import BASE, COVERT, ROOT, write_ruleset

DAY1 = sorted((ROOT / "examples" / "covert" / "day1").glob("*.txt"))
SCENARIO = ROOT / "examples" / "covert" / "scenario.yaml"


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("store")
    GameFolder.create(COVERT, base / "game", SCENARIO, None)
    return base / "game"


def _game(started: Path, tmp_path: Path, files: list[Path] = DAY1) -> Path:
    game = tmp_path / "game"
    shutil.copytree(started, game)
    inbox = game / "inbox" / "turn-001"
    inbox.mkdir(parents=True)
    for f in files:
        shutil.copy(f, inbox / f.name)
    return game


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _turns(game: Path) -> list[str]:
    return sorted(p.name for p in (game / "turns").iterdir())


def test_a_turn_from_filed_orders_keeps_them(started: Path, tmp_path: Path) -> None:
    game = _game(started, tmp_path)
    result = GameFolder(game).process_turn(None)
    assert result.turn == 1
    assert store.filed_files(game) == []  # the coming turn's, turn 2
    assert [f.name for f in store.filed_files(game, 1)] == [f.name for f in DAY1]
    kept = sorted(p.name for p in (game / "turns" / "turn-001" / "orders").iterdir())
    assert kept == [f"{i:02d}-{f.name}" for i, f in enumerate(DAY1, 1)]
    # Quantum's header is wrong in the example mail: it sent nothing the turn took, and still gets a report.
    assert (game / "turns" / "turn-001" / "submitted.txt").read_text().split() == \
        ["20408", "1001", "4321", "9999", "13579"]
    assert any(name == "Quantum Group" for name, _ in result.reports)


def test_the_same_turn_is_not_run_twice_from_filed_orders(started: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    game = _game(started, tmp_path)
    assert main(["turn", str(game)]) == 0
    capsys.readouterr()
    assert main(["turn", str(game)]) == 2
    assert "no orders are filed for turn 2" in capsys.readouterr().err
    assert _turns(game) == ["turn-000", "turn-001"]


def test_the_no_orders_gate_refuses_unless_forced(started: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    game = _game(started, tmp_path, DAY1[:2])  # hydra and illuminati: 4 of 6 silent
    assert main(["turn", str(game)]) == 2
    err = capsys.readouterr().err
    assert "4 of 6 active positions sent no orders (20408, 4321, 9999, 2468)" in err
    assert "no_orders_limit of 50%" in err
    assert _turns(game) == ["turn-000"]
    meta = yaml.safe_load((game / "game.yaml").read_text())
    (game / "game.yaml").write_text(yaml.safe_dump({**meta, "no_orders_limit": 70}))
    assert main(["turn", str(game)]) == 0
    assert _turns(game) == ["turn-000", "turn-001"]


def test_the_gate_is_passed_with_force(started: Path, tmp_path: Path) -> None:
    game = _game(started, tmp_path, DAY1[:1])
    assert main(["turn", str(game), "--force"]) == 0
    assert _turns(game) == ["turn-000", "turn-001"]


def test_a_bad_no_orders_limit_is_named(started: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = _game(started, tmp_path)
    (game / "game.yaml").write_text("rules: rules/covert.rules\nno_orders_limit: 150\n")
    assert main(["turn", str(game)]) == 2
    assert "game.yaml: $.no_orders_limit: 150 is not a percent" in capsys.readouterr().err


def test_dry_run_writes_nothing_and_shows_the_reports(started: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    game = _game(started, tmp_path)
    before = _tree(game)
    assert main(["turn", str(game), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "a dry run of turn 1; nothing was written" in out
    assert "=== Quantum Group ===" in out and "=== news ===" in out
    assert _tree(game) == before
    # What the dry run showed is what the turn writes.
    GameFolder(game).process_turn(None)
    report = (game / "turns" / "turn-001" / "reports" / "20408-spectre.txt").read_text(encoding="utf-8")
    assert report in out


def test_status_lists_orders_in_and_missed_turns(started: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    game = _game(started, tmp_path)
    GameFolder(game).process_turn(None)
    hydra = next(f for f in DAY1 if f.name == "hydra.txt")
    text = hydra.read_text().replace("DAY 1", "DAY 2")
    (game / "inbox" / "turn-002").mkdir()
    (game / "inbox" / "turn-002" / "hydra.txt").write_text(text)
    assert main(["status", str(game)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "Covert Operations CO-175: turn 1 played; 1 submission(s) filed for turn 2."
    assert "  13579  Hydra Trading Company: orders in\n" in out
    assert "  2468   Quantum Group: no orders yet; missed 1 turn(s) in a row\n" in out
    assert "  20408  Spectre: no orders yet\n" in out
    assert "1 of 6 active position(s) have sent orders." in out


def test_rollback_then_rerun_is_byte_identical(started: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    game = _game(started, tmp_path)
    assert main(["turn", str(game)]) == 0
    after = _tree(game / "turns")
    assert main(["rollback", str(game)]) == 0
    assert "turn 1 rolled back; its orders are still filed in" in capsys.readouterr().out
    assert _turns(game) == ["turn-000"]
    assert [f.name for f in store.filed_files(game)] == [f.name for f in DAY1]
    assert main(["turn", str(game)]) == 0
    assert _tree(game / "turns") == after
    assert history.read_history(game) == [{"action": "rollback", "turn": 1, "filed": []}]


def test_a_turn_from_named_files_is_filed_back_by_rollback(started: Path, tmp_path: Path) -> None:
    game = _game(started, tmp_path, [])
    GameFolder(game).process_turn(DAY1)
    after = _tree(game / "turns")
    turn, names, undone = store.rollback(game)
    assert (turn, names, undone) == (1, [f.name for f in DAY1], [])
    assert all((game / "inbox" / "turn-001" / f.name).read_bytes() == f.read_bytes() for f in DAY1)
    GameFolder(game).process_turn(None)
    assert _tree(game / "turns") == after


def test_files_filed_back_beside_intakes_record_are_recorded_and_run_again(started: Path, tmp_path: Path) -> None:
    from rulesdsl.game.intake import intake

    game = _game(started, tmp_path, [])
    # Intake filed nothing (a wrong access code): its record lists only a refused mail, so the turn takes
    # named files, and its rollback files them back where the record alone says what is filed.
    folder = game / "inbox" / "turn-001"
    inbox.open_index(folder)
    inbox.append_index(folder, [inbox.Entry(1, inbox.REFUSED, "-", "<m1@example.org>", "001-refused.eml")])
    (folder / "001-refused.eml").write_bytes(b"mail\n")
    named = [f for f in DAY1 if f.name not in ("thrush.txt", "hydra.txt")]
    # Named as intake names its files: recorded under its name, so no intake takes it for a killed one's.
    (tmp_path / "007-hydra.txt").write_bytes((DAY1[0].parent / "hydra.txt").read_bytes())
    named.append(tmp_path / "007-hydra.txt")
    GameFolder(game).process_turn(named)
    after = _tree(game / "turns")
    assert store.rollback(game)[1] == [f.name for f in named]
    intake(game, [])
    assert [f.name for f in store.filed_files(game)] == [f.name for f in named]
    GameFolder(game).process_turn(None)
    assert _tree(game / "turns") == after


def test_files_filed_back_are_kept_by_the_next_intake_and_replaced_by_a_later_mail(started: Path,
                                                                                    tmp_path: Path) -> None:
    from email.message import EmailMessage

    from rulesdsl.game.intake import intake

    game = _game(started, tmp_path, [])
    named = [f for f in DAY1 if f.name not in ("spectre.txt", "thrush.txt")]
    GameFolder(game).process_turn(named)
    store.rollback(game)
    # An intake with no mail, then one with Spectre's mail and Hydra's corrected orders: the orders filed
    # back stay filed (intake's record, made now, lists them), and Hydra's new mail replaces Hydra's.
    intake(game, [])
    assert [f.name for f in store.filed_files(game)] == [f.name for f in named]
    box = tmp_path / "Maildir"
    for sub in ("cur", "new", "tmp"):
        (box / sub).mkdir(parents=True)
    for i, (name, text) in enumerate([("spectre", (ROOT / "examples/covert/day1/spectre.txt").read_text()),
                                      ("hydra", "CO-175\n13579\nHEADS2\nB,SAF,8\n")]):
        msg = EmailMessage()
        msg["From"] = f"{name}@example.org"
        msg["Message-ID"] = f"<{name}@example.org>"
        msg.set_content(text)
        (box / "new" / f"{i}.mail").write_bytes(msg.as_bytes())
    result = intake(game, [box])
    assert "replaces your earlier mail" in result.filed[1][1].read_text(encoding="utf-8")
    assert [f.name for f in store.filed_files(game)] == ["illuminati.txt", "octopus.txt", "quantum.txt",
                                                         "005-20408.txt", "006-13579.txt"]


def test_rollback_is_refused_at_the_start(started: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = _game(started, tmp_path)
    assert main(["rollback", str(game)]) == 2
    assert "turn 0 is the game's start; there is no turn to roll back" in capsys.readouterr().err


def test_rollback_keeps_the_next_turns_orders_apart(started: Path, tmp_path: Path) -> None:
    game = _game(started, tmp_path)
    GameFolder(game).process_turn(None)
    (game / "inbox" / "turn-002").mkdir()
    (game / "inbox" / "turn-002" / "late.txt").write_text("late mail\n")
    store.rollback(game)
    assert [f.name for f in store.filed_files(game)] == [f.name for f in DAY1]
    assert [f.name for f in store.filed_files(game, 2)] == ["late.txt"]


def test_a_rollback_killed_after_its_rename_is_finished_by_the_next_command(
        started: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = _game(started, tmp_path, [])
    GameFolder(game).process_turn(DAY1)
    after = _tree(game / "turns")

    def killed(root: Path, undone: Path, turn: int) -> list[str]:
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(inbox, "file_back", killed)
        with pytest.raises(KeyboardInterrupt):
            store.rollback(game)
    assert store.filed_files(game) == []
    assert store.status(game).turn == 0  # finished the rollback first
    assert sorted(f.name for f in store.filed_files(game)) == [f.name for f in DAY1]
    GameFolder(game).process_turn(None)
    assert _tree(game / "turns") == after


def test_status_and_rollback_are_refused_while_a_turn_holds_the_lock(started: Path, tmp_path: Path) -> None:
    game = _game(started, tmp_path)
    GameFolder(game).process_turn(None)
    with GameLock(game / "rulesdsl.lock"):
        for run in (store.status, store.rollback):
            with pytest.raises(GameError, match="holds this lock; nothing was done"):
                run(game)
        with pytest.raises(GameError, match="holds this lock"):
            store.gm_action(game, "drop", "1001")
        with pytest.raises(GameError, match="holds this lock"):
            GameFolder(game).process_turn(None)
    assert _turns(game) == ["turn-000", "turn-001"]


def test_two_turns_started_together_make_one_turn(started: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    game = _game(started, tmp_path)
    inside = threading.Event()
    go_on = threading.Event()
    real = Staging.commit

    def slow(self: Staging) -> list[str]:
        inside.set()
        go_on.wait(30)
        return real(self)

    monkeypatch.setattr(Staging, "commit", slow)
    errors: list[BaseException] = []
    first = threading.Thread(target=lambda: GameFolder(game).process_turn(None))
    first.start()
    assert inside.wait(30)
    try:
        GameFolder(game).process_turn(None)
    except GameError as e:
        errors.append(e)
    go_on.set()
    first.join(30)
    assert len(errors) == 1 and "holds this lock" in str(errors[0])
    assert _turns(game) == ["turn-000", "turn-001"]
    assert store.filed_files(game) == []


def test_a_turn_killed_after_staging_loses_nothing(started: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    whole = _game(started, tmp_path / "a")
    GameFolder(whole).process_turn(None)
    game = _game(started, tmp_path / "b")

    def killed(self: Staging) -> list[str]:
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(Staging, "commit", killed)
        with pytest.raises(KeyboardInterrupt):
            GameFolder(game).process_turn(None)
    assert _turns(game) == ["turn-000"]
    assert sorted(f.name for f in store.filed_files(game)) == [f.name for f in DAY1]
    GameFolder(game).process_turn(None)
    assert _tree(game / "turns") == _tree(whole / "turns")


def test_gm_actions_change_the_position_and_are_recorded(started: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    game = _game(started, tmp_path)
    assert main(["gm", str(game), "email", "1001", "new@example.org"]) == 0
    assert main(["gm", str(game), "drop", "9999"]) == 0
    assert main(["gm", str(game), "replace", "4321", "--name", "Kraken Ltd", "--email", "k@example.org",
                 "--code", "NEW42"]) == 0
    out = capsys.readouterr().out
    assert "4321 now played by Kraken Ltd; recorded in history.yaml" in out
    players = {p.account: p for p in GameFolder(game).load_game().all_players}
    assert players["1001"].email == "new@example.org"
    assert not players["9999"].active
    assert (players["4321"].name, players["4321"].code) == ("Kraken Ltd", "NEW42")
    entries = history.read_history(game)
    assert [h["action"] for h in entries] == ["email", "drop", "replace"]
    assert entries[2]["code"] == "changed" and "NEW42" not in (game / "history.yaml").read_text()
    # The dropped player's mail is no longer taken, nor is it reported to; the old code of the replaced
    # position is refused.
    GameFolder(game).process_turn(None, force=True)
    assert not (game / "turns" / "turn-001" / "reports" / "9999-thrush.txt").exists()
    sent = (game / "turns" / "turn-001" / "submitted.txt").read_text().split()
    assert "9999" not in sent and "4321" not in sent and "1001" in sent
    assert main(["status", str(game)]) == 0
    assert "  9999   Thrush: dropped" in capsys.readouterr().out


def test_gm_action_on_an_unknown_account_is_refused(started: Path, tmp_path: Path) -> None:
    game = _game(started, tmp_path)
    with pytest.raises(GameError, match="no player has account 'NOBODY'"):
        store.gm_action(game, "drop", "NOBODY")
    with pytest.raises(GameError, match=r"\$.players\[1\].email"):
        store.gm_action(game, "email", "1001", email="a\nb")
    assert not (game / "history.yaml").exists()


# ---------------------------------------------------------------- GM orders

GM_RULES = BASE + '''gm order grant "GRANT {amount}" {
  amount: 1..100
  effect { me.cash += money(amount) }
}
'''


def _gm_game(tmp_path: Path) -> Path:
    rules = write_ruleset(tmp_path / "src", GM_RULES)
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text("players:\n  - {name: Ann, account: A1, code: X1}\n  - {name: Bob, account: B2, code: Y2}\n")
    GameFolder.create(rules, tmp_path / "game", scenario, 1)
    return tmp_path / "game"


def _cash(game: Path) -> dict[str, int]:
    return {p.account: p.cash for p in GameFolder(game).load_game().all_players}


def test_a_gm_order_is_carried_out_at_the_next_turn_and_kept(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    game = _gm_game(tmp_path)
    assert main(["gm", str(game), "order", "b2", "GRANT 5"]) == 0
    assert "1 line(s) for b2 filed in" in capsys.readouterr().out
    (game / "inbox" / "turn-001" / "ann.txt").write_text("A1\nX1\nGRANT 50\n")
    GameFolder(game).process_turn(None)
    assert _cash(game) == {"A1": 10, "B2": 15}
    ann = (game / "turns" / "turn-001" / "reports" / "A1-ann.json").read_text()
    assert "only the game master gives this order" in ann
    assert (game / "turns" / "turn-001" / "gm" / "01-001-B2.txt").read_text() == "B2\nY2\nGRANT 5\n"
    assert store.filed_files(game) == [] and store.gm_files(game) == []
    assert history.read_history(game)[0] == {"action": "order", "turn": 0, "account": "B2", "lines": ["GRANT 5"]}
    after = _tree(game / "turns")
    store.rollback(game)
    assert [f.name for f in store.gm_files(game)] == ["001-B2.txt"]
    GameFolder(game).process_turn(None)
    assert _tree(game / "turns") == after


def test_a_gm_order_with_a_cost_or_a_limit_is_refused(tmp_path: Path) -> None:
    checked = check_path(write_ruleset(tmp_path, BASE + '''gm order fine "FINE {n}" {
  n: 1..9
  once per turn per n
  cost money(n)
}
'''))
    found = {(d.code, d.message) for d in checked.diagnostics}
    assert ("E0412", "a GM order costs nothing") in found
    assert ("E0410", "a GM order has no limits: it does not count") in found


def test_rollback_warns_of_the_gm_actions_it_undoes(started: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    game = _game(started, tmp_path)
    GameFolder(game).process_turn(None)
    store.gm_action(game, "email", "1001", email="x@example.org")
    assert main(["rollback", str(game)]) == 0
    assert "warning: the GM action `email 1001` made after turn 1 is undone with it" in capsys.readouterr().err


def test_a_mistyped_gm_order_is_refused_as_it_is_filed(tmp_path: Path) -> None:
    game = _gm_game(tmp_path)
    with pytest.raises(GameError, match=r'line 1 "GRANT 500": .*; nothing was filed'):
        store.gm_order(game, "A1", ["GRANT 500"])
    assert store.gm_files(game) == [] and history.read_history(game) == []


def test_a_gm_order_is_carried_out_when_the_turn_is_given_mail_files(tmp_path: Path) -> None:
    # `rulesdsl turn GAMEDIR FILES...` used to read only FILES: the GM's filed orders were dropped silently.
    game = _gm_game(tmp_path)
    assert main(["gm", str(game), "order", "b2", "GRANT 5"]) == 0
    mail = tmp_path / "ann.txt"
    mail.write_text("A1\nX1\n")
    GameFolder(game).process_turn([mail], force=True)
    assert _cash(game) == {"A1": 10, "B2": 15}
    assert (game / "turns" / "turn-001" / "gm" / "01-001-B2.txt").read_text() == "B2\nY2\nGRANT 5\n"
