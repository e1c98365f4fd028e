"""Reviewers' tools: a game's turns -> replays, diffs, and the provenance of each outcome (trace, explain)."""
