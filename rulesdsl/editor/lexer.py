"""`.rules` text -> Pygments tokens: `RulesLexer`, registered as the `rules` lexer (pyproject.toml's entry point).

Its words come from editor/words.py, as the TextMate grammar's do. A text's `{...}` is an expression and is
lexed as one, quoted texts inside it included ("{join(names, ", ")}"), as the grammar's STRING reads it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pygments.lexer import RegexLexer, bygroups, include, words
from pygments.token import (
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Text,
    Whitespace,
)

from rulesdsl.editor import words as w
from rulesdsl.editor.textmate import DECLARERS, NAME


class RulesLexer(RegexLexer):
    """Lexer for rulesdsl rulesets (`.rules`): play-by-mail game rules."""

    name = "rulesdsl"
    aliases: ClassVar[list[str]] = ["rules", "rulesdsl"]
    filenames: ClassVar[list[str]] = ["*.rules"]
    mimetypes: ClassVar[list[str]] = ["text/x-rulesdsl"]
    url = "https://github.com/rulesdsl/rulesdsl"

    tokens: ClassVar[dict[str, list[Any]]] = {
        "root": [
            (r"\s+", Whitespace),
            (r"#.*?$", Comment.Single),
            (r'"""', String, "triple"),
            (r'"', String, "string"),
            (r"[0-9]+(?:\.[0-9]+)?%?", Number),
            (r"\b(" + "|".join(DECLARERS) + r")(\s+)(" + NAME + ")",
             bygroups(Keyword.Declaration, Whitespace, Name.Class)),
            (words(w.builtin_functions(), prefix=r"\b", suffix=r"(?=\s*\()"), Name.Builtin),
            (words(w.CONSTANTS, prefix=r"\b", suffix=r"\b"), Keyword.Constant),
            (words(w.word_operators(), prefix=r"\b", suffix=r"\b"), Operator.Word),
            (words(w.keywords(), prefix=r"\b", suffix=r"\b"), Keyword),
            (words(w.types(), prefix=r"\b", suffix=r"\b"), Keyword.Type),
            (words(w.specials(), prefix=r"\b", suffix=r"\b"), Name.Builtin.Pseudo),
            (NAME, Name),
            (words(w.operators()), Operator),
            (r"[{}()\[\],:]", Punctuation),
        ],
        "string": [
            (r'[^"\\{\n]+', String),
            (r"\\.", String.Escape),
            (r"\{", String.Interpol, "interpolation"),
            (r'"', String, "#pop"),
            # A text never runs past its line: the checker says so; the lexer starts afresh on the next.
            (r"\n", Text, "#pop"),
        ],
        "triple": [
            (r'[^"\\{]+', String),
            (r"\\.", String.Escape),
            (r"\{", String.Interpol, "interpolation"),
            (r'"""', String, "#pop"),
            (r'"', String),
        ],
        "interpolation": [
            (r"\}", String.Interpol, "#pop"),
            (r"\{", Punctuation, "#push"),
            include("root"),
        ],
    }
