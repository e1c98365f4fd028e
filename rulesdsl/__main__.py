"""`python -m rulesdsl`: the command line."""

from rulesdsl.cli import main

raise SystemExit(main())
