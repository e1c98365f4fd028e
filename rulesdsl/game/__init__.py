"""Game folders: starting games and processing turns on disk."""
