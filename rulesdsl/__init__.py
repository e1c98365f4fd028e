"""rulesdsl: a declarative rules language for play-by-mail strategy games, compiled to Python."""

__version__ = "0.1.0"
