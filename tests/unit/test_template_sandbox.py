"""Report templates run in Jinja's sandbox: no template reaches Python's internals, at check or at turn time."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from jinja2.sandbox import SecurityError

from rulesdsl.runtime.report import render, report_data, template_env
from tests.unit.rulestools import BASE, BASE_TEMPLATE, check_text, load_text, show

# Each reaches `os` (or the objects of the interpreter) from a value the template is given.
ESCAPES = [
    '{{ cycler.__init__.__globals__.os.system("touch MARK") }}',
    '{{ joiner.__init__.__globals__.os.system("touch MARK") }}',
    '{{ game.title.__class__.__mro__[1].__subclasses__() }}',
    '{{ game["__class__"] }}',
    '{{ cash|attr("__class__") }}',
    '{{ range.__self__ }}',
    '{{ lipsum.__globals__["os"].system("touch MARK") }}',
]


@pytest.mark.parametrize("escape", ESCAPES)
def test_check_refuses_pythons_internals(tmp_path: Path, escape: str) -> None:
    checked = check_text(tmp_path, BASE, "Cash {{ cash }}\n" + escape + "\n")
    codes = [(d.code, d.span.file, d.span.line) for d in checked.diagnostics]
    assert codes == [("E0509", "t.report.j2", 2)], show(checked.diagnostics)


@pytest.mark.parametrize("escape", [
    *(e for e in ESCAPES if "range" not in e),  # `range` has no `__self__` even outside the sandbox
    # Ways past the checker's eyes: a computed name, and str.format reading attributes itself.
    '{{ cycler|attr("__in" ~ "it__") }}',
    '{{ "{0.__class__.__init__.__globals__}".format(cycler) }}',
    '{{ (game.title|attr("__cl" ~ "ass__")).__name__ }}',
])
def test_a_template_that_slips_past_the_check_still_cannot_escape(tmp_path: Path, escape: str) -> None:
    """The rules of a game under way can't be changed, but its compiled module could be older than the
    checker's rule: the sandbox refuses at turn time whatever the check let through."""
    loaded = load_text(tmp_path / "rules", BASE, BASE_TEMPLATE, "t", tmp_path / "cache")
    g = loaded.new_game()
    g.process_turn([])
    data = report_data(g, g.all_players[0])
    payload = escape.replace("MARK", str(tmp_path / "MARK"))
    bad = dataclasses.replace(loaded.spec, template="Cash {{ cash }}\n" + payload)
    with pytest.raises(SecurityError):
        render(bad, data)
    assert not (tmp_path / "MARK").exists()


def test_a_template_cannot_change_the_report_data() -> None:
    """Immutable: one part of the report cannot alter what a later part shows."""
    tpl = template_env().from_string("{{ news.append('forged') }}{{ news }}")
    with pytest.raises(SecurityError):
        tpl.render(news=["real"])


def test_ordinary_templates_still_work() -> None:
    tpl = template_env().from_string('{{ name|upper }} {{ "%5s"|format(n) }} {{ items|join(", ") }}'
                                     "{% for k, v in rec.items() %} {{ k }}={{ v }}{% endfor %}"
                                     " {{ name.ljust(6) }}|{{ n|rjust(4) }}")
    assert tpl.render(name="ann", n=3, items=["a", "b"], rec={"x": 1}) == "ANN     3 a, b x=1 ann   |   3"
