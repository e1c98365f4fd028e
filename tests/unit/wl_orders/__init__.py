"""The full-size Warlord test's order makers, one module a part of the rules (see land.py)."""
