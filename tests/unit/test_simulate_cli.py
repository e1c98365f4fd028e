"""`rulesdsl simulate` on the command line -> its exit status, the statistics on stdout, the faults of the rules
or the scenario on stderr."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulesdsl.cli import main

ROOT = Path(__file__).resolve().parents[2]
COVERT = ROOT / "rulesets" / "covert.rules"


def test_rules_that_do_not_check_exit_2_with_the_diagnostics(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    rules = tmp_path / "broken.rules"
    rules.write_text(COVERT.read_text().replace("order bribe ", "order bribe bribe ", 1))
    assert main(["simulate", str(rules), "--games", "2"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and f"{rules}:" in err and ": error[" in err and "1 error(s)" in err


def test_a_bad_scenario_names_its_json_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "two.yaml"
    bad.write_text("players:\n  - {name: Ann, account: '1', code: A}\n  - {name: Bob, account: 2, code: 'B B'}\n")
    assert main(["simulate", str(COVERT), "--scenario", str(bad), "--games", "2"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: two.yaml: $.players[1].code: 'B B' does not match")


def test_a_missing_file_and_bad_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "nowhere.rules"]) == 2
    assert capsys.readouterr().err == "error: nowhere.rules: no such file\n"
    with pytest.raises(SystemExit) as e:
        main(["simulate", str(COVERT), "--games", "0"])
    assert e.value.code == 2 and "--games: 0: at least 1" in capsys.readouterr().err
