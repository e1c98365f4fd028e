"""WCG's long game's order makers (benchmarks/wcg_long.py), one module a package of the rules -> MAKERS.

Each package adds its own module here (budget.py W2, months.py W3, un.py W4, war.py W5a, war_land.py W5b,
transport.py Z2, story.py Z4: the five-year game's script on the 1960 world, whose helpers the others read), with:
- `ORDERS`: the names of the rules' orders its lines carry out (`invest`, `move`, ...);
- `EXPECTED`: every reason a line of its may be refused or fail with, as regular expressions (the rules' words);
- `orders(report, turn, rng, others) -> (lines, bad)`: a player's mail for `turn` from the JSON of its report
  of the turn before (`report["kind"]` is the turn's kind of the report's turn), `others` the accounts of some
  other players; `bad` maps each line written to be refused or to fail to what its reason must say.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from types import ModuleType

# Sorted by file name, so that every run asks the makers in the same order (determinism).
MAKERS: list[ModuleType] = [import_module(f"{__name__}.{p.stem}")
                            for p in sorted(Path(__file__).parent.glob("*.py")) if p.stem != "__init__"]
