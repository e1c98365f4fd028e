"""Reviewers' tools: a game's turns -> replays compared (diff, its pages, the golden workflow; replay itself is
rulesdsl/game/replay.py) and the provenance of each outcome (trace, explain)."""
