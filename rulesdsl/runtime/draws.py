"""A scenario's `draws:` section -> forced draws: the values the first draws of a stream (and keys) take in a turn.

A golden scenario that needs a sneak attack detected at range 2 and not at 1 forces those rolls instead of
searching for a seed that happens to give them. Each entry names a turn, a stream, its keys as key_text
writes them (`Country:USA`, `Force:ann/12`, `int:3`) and the values. While a turn runs, the engine wraps the
stream of each (stream, keys) that has values in a ForcedStream (runtime/engine.py, only when the stream is
first asked for, so that a game with no forced draws pays nothing): each draw draws from the seeded stream as
it always would, so that every later draw is what it would have been, and then returns the forced value.

The entries stay in the game (the state's `engine.draws`, as given, so that a fault names the scenario's
`$.draws[i]`) and every turn takes its own; a turn that leaves one of its values undrawn stops: a golden that
forces a value nothing draws would say something that is not so.
"""

from __future__ import annotations

import difflib
from typing import Any

from rulesdsl.runtime.codec import StateError, shown
from rulesdsl.runtime.forced import Forced

# The chance builtins that draw from one stream a draw at a time: their draws can be forced. The world
# generation builtins (continents, patches, ...) draw hundreds of numbers for one result: they cannot.
FORCEABLE = frozenset({"chance", "roll", "pick", "shuffle", "draw"})
KEYS_MOST = 3


def read(g: Any, raw: Any, start: int, errors: list[StateError], checked: bool = True) -> list[Forced]:
    """The entries of a `draws:` section (the scenario's, or the state's `engine.draws`), each fault added to
    `errors` at its path. `start` is the game's starting turn: a turn before it can never come. With `checked`
    (a scenario), the streams and keyed things are checked against the ruleset."""
    out: list[Forced] = []
    if raw is None:
        return out
    if not isinstance(raw, list):
        errors.append(StateError("$.draws", "expected a list of {turn, stream, keys, values}"))
        return out
    for i, item in enumerate(raw):
        path = f"$.draws[{i}]"
        before = len(errors)
        if not isinstance(item, dict):
            errors.append(StateError(path, "expected a mapping {turn: N, stream: NAME, keys: [...], values: [...]}"))
            continue
        for name in item:
            if name not in ("turn", "stream", "keys", "values"):
                errors.append(StateError(f"{path}.{name}", "no such key; an entry has turn, stream, keys and values"))
        turn: Any = item.get("turn")
        if not isinstance(turn, int) or isinstance(turn, bool):
            errors.append(StateError(f"{path}.turn", f"expected a turn number, not {shown(turn)}"))
        elif turn < start:
            errors.append(StateError(f"{path}.turn", f"turn {turn} is before the game's start (turn {start}); "
                                                     "it would never come"))
        stream: Any = item.get("stream")
        if not isinstance(stream, str) or not stream:
            errors.append(StateError(f"{path}.stream", f"expected a stream's name, not {shown(stream)}"))
        elif checked:
            _check_stream(g, stream, f"{path}.stream", errors)
        keys = item.get("keys", [])
        texts: list[str] = []
        if not isinstance(keys, list):
            errors.append(StateError(f"{path}.keys", "expected a list of keys"))
        elif len(keys) > KEYS_MOST:
            errors.append(StateError(f"{path}.keys", f"a draw takes at most {KEYS_MOST} keys, not {len(keys)}"))
        else:
            for j, key in enumerate(keys):
                text = key_of(g, key, f"{path}.keys[{j}]", errors) if checked else str(key)
                texts.append(text or "")
        values = item.get("values")
        got: list[Any] = []
        if not isinstance(values, list) or not values:
            errors.append(StateError(f"{path}.values", "expected a list of at least one value"))
        else:
            for j, v in enumerate(values):
                if _whole(v):
                    got.append(v)
                elif isinstance(v, list) and v and all(_whole(x) for x in v):
                    got.append(tuple(v))  # a shuffle's order
                else:
                    errors.append(StateError(f"{path}.values[{j}]", f"expected a whole number (or, for a shuffle, a "
                                                                    f"list of them), not {shown(v)}"))
        if len(errors) == before:
            out.append(Forced(i, int(turn), str(stream), tuple(texts), tuple(got)))
    return out


def _whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_stream(g: Any, stream: str, path: str, errors: list[StateError]) -> None:
    """A stream the ruleset never draws from, or draws from only to generate a world, can take no forced value."""
    streams: tuple[tuple[str, tuple[str, ...]], ...] | None = getattr(g.spec, "streams", None)
    if streams is None:  # a module compiled before streams were listed: nothing to check against
        return
    by_name = dict(streams)
    if stream not in by_name:
        close = difflib.get_close_matches(stream, sorted(by_name), n=1)
        hint = f"; did you mean {close[0]}?" if close else (f"; its streams are {', '.join(sorted(by_name))}"
                                                             if by_name else "; it draws nothing at random")
        errors.append(StateError(path, f"the ruleset draws nothing from stream {shown(stream)}{hint}"))
    elif not set(by_name[stream]) & FORCEABLE:
        errors.append(StateError(path, f"stream {shown(stream)} is drawn only by {', '.join(by_name[stream])}, whose "
                                       "draws cannot be forced (only chance, roll, pick, shuffle and draw)"))


def spec_things(g: Any) -> list[Any]:
    """The ruleset's keyed things, whose instances a scenario names by key."""
    return [t for t in g.spec.things if not t.numbered]


def key_of(g: Any, raw: Any, path: str, errors: list[StateError]) -> str | None:
    """A key as key_text writes it (runtime/core.py), from a key as a scenario writes it: a whole number, true or
    false, null, `text:WORDS`, `int:N`, or `KIND:KEY` for a player (`Player:ACCOUNT`), a keyed thing
    (`Country:USA`), a sector (`Sector:NAME`) or a numbered thing (`Force:12`, `Force:ann/12`). Instances of
    keyed things, players and sectors must exist; numbered ones may be made later in the game."""
    if isinstance(raw, bool):
        return "bool:yes" if raw else "bool:no"
    if raw is None:
        return "none"
    if isinstance(raw, int):
        return f"int:{raw}"
    if not isinstance(raw, str):
        errors.append(StateError(path, f"expected a key, not {shown(raw)}"))
        return None
    kind, colon, key = raw.partition(":")
    if not colon:
        # Most likely a thing's key or an account without its kind: name the one it would be.
        meant = [f"{t.name}:{obj._key}" for t in spec_things(g) if (obj := g.lookup[t.name].get(raw.upper()))]
        meant += [f"Player:{p._key}"] if (p := g.lookup["Player"].get(raw.upper())) else []
        hint = f"; did you mean {' or '.join(meant)}?" if meant else ""
        errors.append(StateError(path, f"{shown(raw)} is not a key: write KIND:KEY (a thing's name and key, "
                                       "Country:USA; Player:ACCOUNT; Force:ann/12), a whole number, or "
                                       f"text:WORDS{hint}"))
        return None
    if kind == "text":
        return raw
    if kind == "int":
        try:
            return f"int:{int(key)}"
        except ValueError:
            errors.append(StateError(path, f"{shown(key)} is not a whole number"))
            return None
    if kind == "bool" and key in ("yes", "no"):
        return raw
    if kind == "Player":
        p = g.lookup["Player"].get(key.upper())
        if p is None:
            errors.append(StateError(path, f"no player has account {shown(key)}"))
            return None
        return f"Player:{p._key}"
    spec = g.spec
    grid = spec.grid.name if spec.grid is not None else None
    things = {t.name: t for t in spec.things}
    if kind == grid:
        names = g.sector_names
        found = next((s for s in g.sectors if s._key.upper() == key.upper()), None) if names is not None else None
        if found is None:
            errors.append(StateError(path, f"{shown(key)} is not a sector of {grid}"))
            return None
        return f"{kind}:{found._key}"
    t = things.get(kind)
    if t is None:
        known = sorted([*things, "Player", "text", "int", "bool", *([grid] if grid else [])])
        close = difflib.get_close_matches(kind, known, n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        errors.append(StateError(path, f"{shown(kind)} is no kind of key{hint} (a thing, Player, text, int or bool)"))
        return None
    if not t.numbered:
        obj = g.lookup[kind].get(key.upper())
        if obj is None:
            close = difflib.get_close_matches(key.upper(), sorted(g.lookup[kind]), n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            errors.append(StateError(path, f"{kind} has no key {shown(key)}{hint}"))
            return None
        return f"{kind}:{obj._key}"
    owner, slash, number = key.rpartition("/")
    if not number.isdigit() or int(number) < 1:
        errors.append(StateError(path, f"{shown(key)} is not a {kind}'s number (`{kind}:12`, or `{kind}:ACCOUNT/12` "
                                       "for one numbered per owner)"))
        return None
    if t.numbered != "owner" or not slash:
        if t.numbered == "owner" and not t.ownerless:
            errors.append(StateError(path, f"a {kind} is numbered per owner: write {kind}:ACCOUNT/{number}"))
            return None
        if slash:
            errors.append(StateError(path, f"a {kind} has no owner: write {kind}:{number}"))
            return None
        return f"{kind}:{int(number)}"
    p = g.lookup["Player"].get(owner.upper())
    if p is None:
        errors.append(StateError(path, f"no player has account {shown(owner)}"))
        return None
    return f"{kind}:{p._key}/{int(number)}"


