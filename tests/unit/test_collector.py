"""`rulesdsl new` and `rulesdsl turn` run with Python's cycle collector paused, and leave it as it was, also
when the command fails."""

from __future__ import annotations

import gc

import pytest

from rulesdsl import cli
from rulesdsl.game.folder import GameError


@pytest.mark.parametrize("command", ["cmd_new", "cmd_turn"])
def test_a_game_command_pauses_the_cycle_collector_and_restores_it(monkeypatch: pytest.MonkeyPatch,
                                                                   command: str) -> None:
    seen: list[bool] = []

    def run(args: object) -> int:
        seen.append(gc.isenabled())
        raise GameError("no such game")

    monkeypatch.setattr(cli, command, run)
    assert gc.isenabled()
    argv = ["turn", "nowhere"] if command == "cmd_turn" else ["new", "x.rules", "nowhere"]
    assert cli.main(argv) == 2
    assert seen == [False] and gc.isenabled()


def test_check_leaves_the_collector_running(tmp_path: object) -> None:
    seen: list[bool] = []
    real = cli.cmd_check

    def run(args: object) -> int:
        seen.append(gc.isenabled())
        return real(args)  # type: ignore[arg-type]

    mp = pytest.MonkeyPatch()
    mp.setattr(cli, "cmd_check", run)
    try:
        cli.main(["check", "nowhere.rules"])
    finally:
        mp.undo()
    assert seen == [True] and gc.isenabled()
