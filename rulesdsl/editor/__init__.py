"""Editor support: `.rules` text -> colours (Pygments, TextMate) and answers to an editor (the language server)."""
