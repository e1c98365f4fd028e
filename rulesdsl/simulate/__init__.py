"""`rulesdsl simulate`: a ruleset and a scenario -> many games of random legal orders, checked, and their statistics.

The modules, one stage each:
- lines.py: a game and a player -> random order lines the player could write (the order declarations' syntax,
  argument types and bounds; the ruleset's `simulation { weight ..., choose ... }` guidance);
- play.py: one game's seed -> its GameResult (turns played, winners, orders and refusals, problems found: a
  crash, a refusal without a reason, a broken invariant, a hidden fact that reached another player's report);
- run.py: N games -> Stats, in this process, in a local process pool or on a Dask cluster, with a progress bar;
  the same seed gives the same Stats whatever runs them;
- stats.py: Stats -> the text summary; plots.py: Stats -> PNG charts.
"""
