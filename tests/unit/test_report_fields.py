"""runtime/report.py's BUILTIN_FIELDS -> the one definition of a report's built-in fields, as the checker,
the report data and the language reference each read it."""

from __future__ import annotations

from pathlib import Path

from rulesdsl.checker.report import BUILTIN_FIELDS as CHECKED
from rulesdsl.runtime.report import BUILTIN_FIELDS, report_data
from tests.unit.rulestools import BASE, BASE_TEMPLATE, load_text

ROOT = Path(__file__).resolve().parents[2]


def test_the_language_reference_lists_the_built_in_fields_as_the_runtime_defines_them() -> None:
    docs = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    table = "| field | contents |\n| --- | --- |\n" + "\n".join(f"| `{n}` | {d} |" for n, _, d in BUILTIN_FIELDS)
    assert table + "\n\n" in docs


def test_the_checker_types_every_built_in_field_and_record_part() -> None:
    names = [n for n, _, _ in BUILTIN_FIELDS]
    assert list(CHECKED) == list(dict.fromkeys(n.split(".")[0] for n in names))
    orders = CHECKED["orders"]
    assert [f for f, _ in orders.fields] == ["used", "refused", "on_file", "notices", "standing"]  # type: ignore[attr-defined]
    assert [f for f, _ in CHECKED["game"].fields][-2:] == ["start", "date"]  # type: ignore[attr-defined]


def test_report_data_fills_exactly_the_built_in_fields(tmp_path: Path) -> None:
    loaded = load_text(tmp_path, BASE, BASE_TEMPLATE, "t", tmp_path / "cache")
    g = loaded.new_game()
    data = report_data(g, g.all_players[0])
    tops = list(dict.fromkeys(n.split(".")[0] for n, _, _ in BUILTIN_FIELDS))
    assert list(data)[:len(tops)] == tops
    assert set(data["orders"]) == {n.split(".")[1] for n, _, _ in BUILTIN_FIELDS if n.startswith("orders.")}
    assert data["game"]["start"] is True
