"""The nuclear card game (rulesets/nukecards.rules) played through game folders, as a GM would.

Hidden facts: each test plays the same rounds twice, changing only a fact some players may not know
(another player's hand, who stands behind an anonymous attack, who owns the spy satellite, whose
defence a warning system raised), and shows that those players' reports, text and data, are
byte-identical, while the two runs do differ for the player who may know.

A long game: six players, scripted moves, played until nobody or one player is left, checking the
periodic grants, the ULTIMATE card announcements and the end of the game; and the same game played
again gives the same bytes.
"""

from __future__ import annotations

import copy
import difflib
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from rulesdsl.game.folder import GameFolder, TurnResult

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rulesets" / "nukecards.rules"

# LibYAML when PyYAML has it: the long game reads every round's state, several times faster so.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# name -> (account, code). Report files are named "<account>-<name in lower case>.txt" / ".json".
ACCOUNTS: dict[str, tuple[str, str]] = {
    "Ann": ("201", "ANN"),
    "Bob": ("202", "BOB"),
    "Cat": ("203", "CAT"),
    "Dan": ("204", "DAN"),
    "Eve": ("205", "EVE"),
    "Fay": ("206", "FAY"),
}
GAME_NUMBER = 21

# One round of orders: player name -> order lines (a player missing from it sends nothing).
Round = dict[str, list[str]]


def scenario(hands: dict[str, list[str]], **extra: Any) -> dict[str, Any]:
    """A scenario with the named players, in the order of ACCOUNTS, each with the hand given."""
    players = [{"name": n, "account": a, "code": c, "hand": hands[n]} for n, (a, c) in ACCOUNTS.items() if n in hands]
    return {"game": {"number": GAME_NUMBER, "name": "Unit nukecards"}, "seed": 7, "players": players, **extra}


def order_file(folder: Path, name: str, lines: list[str]) -> Path:
    account, code = ACCOUNTS[name]
    path = folder / f"{name.lower()}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join([f"NC-{GAME_NUMBER}", account, code, *lines]) + "\n", encoding="utf-8")
    return path


@dataclass
class Played:
    """Every round's report files: file name -> text, the .txt and the .json of every player."""

    reports: list[dict[str, str]] = field(default_factory=list)

    def of(self, player: str) -> list[dict[str, str]]:
        """The player's report files, round by round."""
        prefix = f"{ACCOUNTS[player][0]}-"
        return [{k: v for k, v in r.items() if k.startswith(prefix)} for r in self.reports]


def start(tmp: Path, name: str, data: dict[str, Any]) -> GameFolder:
    path = tmp / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return GameFolder.create(RULES, tmp / f"{name}-game", path, None)


def play_round(folder: GameFolder, orders_dir: Path, orders: Round) -> TurnResult:
    # A player's orders may be the same two rounds running (PICK, PICK): played as a GM would, with --force.
    return folder.process_turn([order_file(orders_dir, n, lines) for n, lines in orders.items()], force=True)


def play(tmp: Path, name: str, data: dict[str, Any], rounds: list[Round]) -> Played:
    folder = start(tmp, name, data)
    out = Played()
    for i, orders in enumerate(rounds, 1):
        result = play_round(folder, tmp / f"{name}-orders" / f"round-{i}", orders)
        reports = result.folder / "reports"
        out.reports.append({p.name: p.read_text(encoding="utf-8") for p in sorted(reports.iterdir())})
    return out


def assert_hidden_from(a: Played, b: Played, blind: list[str], knows: str) -> None:
    """The players in `blind` read the same bytes in both runs; `knows` does not (so the change was real)."""
    for player in blind:
        ra, rb = a.of(player), b.of(player)
        assert all(r for r in ra), f"{player} got no report"
        for turn, (x, y) in enumerate(zip(ra, rb, strict=True), 1):
            assert x.keys() == y.keys()
            # The text first: its diff is the one a reader of the failure wants to see.
            for fname in sorted(x, key=lambda n: (not n.endswith(".txt"), n)):
                if x[fname] != y[fname]:
                    diff = difflib.unified_diff(x[fname].splitlines(), y[fname].splitlines(), "run 1", "run 2",
                                                lineterm="")
                    raise AssertionError(f"round {turn}: {fname} differs between the runs:\n" + "\n".join(diff))
    assert a.of(knows) != b.of(knows), f"the change did not reach {knows}'s reports: the test proves nothing"


# ---------------------------------------------------------------- hidden facts
def test_another_players_hand_stays_hidden(tmp_path: Path) -> None:
    # Dan's extra P500, S9 and N200 are never played. The N200 is below his N1000 and the M200 below
    # his M700, so the thefts of Ann (S3, best missile) and Bob (S1, best nuclear warhead) find the same
    # card in both runs: a theft shows the thief one card, never the rest of the hand.
    hands = {
        "Ann": ["M500", "N500", "S3", "P100"],
        "Bob": ["S1", "D200", "P100"],
        "Cat": ["D200", "P200"],
        "Dan": ["M700", "N1000", "D500", "P100"],
    }
    richer = copy.deepcopy(hands)
    richer["Dan"] += ["P500", "S9", "N200", "M200"]
    rounds: list[Round] = [
        {"Ann": ["PREP M500"], "Bob": ["PICK M"], "Cat": ["DEFEND D200"], "Dan": ["PICK W"]},
        {"Ann": ["PLAY S3 AT DAN", "LAUNCH M500 WITH N500 AT DAN"], "Bob": ["PLAY S1 AT DAN", "PICK D"],
         "Cat": ["PROPAGANDA P200 AT DAN"], "Dan": ["DEFEND D500"]},
        {"Ann": ["PROPAGANDA P100 AT DAN"], "Bob": ["PROPAGANDA P100 AT DAN"], "Cat": ["PICK P"],
         "Dan": ["PROPAGANDA P100 AT ANN"]},
    ]
    a = play(tmp_path, "a", scenario(hands), rounds)
    b = play(tmp_path, "b", scenario(richer), rounds)
    assert_hidden_from(a, b, ["Ann", "Bob", "Cat"], knows="Dan")
    # The thefts did happen (else they would prove nothing about the hand).
    ann = a.of("Ann")[1]["201-ann.txt"]
    bob = a.of("Bob")[1]["202-bob.txt"]
    assert "You stole Dan's M700 missile 700." in ann
    assert "You stole Dan's N1000 nuclear warhead 1000." in bob


# The anonymous cards: in run "cat" Cat plays them, in run "dan" Dan does. Both hold the cards in both
# runs, and both send the same visible move every round (a PICK and a DEFEND), so only the special
# card's line moves from one file to the other.
ANON_HANDS = {
    "Ann": ["M500", "N200", "D200", "P100"],
    "Bob": ["M700", "N500", "D200", "P100"],
    "Cat": ["S6", "S6", "N500", "N500", "S7", "S5", "D200", "D200"],
    "Dan": ["S6", "S6", "N500", "N500", "S7", "S5", "D200", "D200"],
}


def anonymous_rounds(attacker: str) -> list[Round]:
    other = "Dan" if attacker == "Cat" else "Cat"
    plays = ["PLAY S6 WITH N500 AT ANN", "PLAY S7 AT ANN", "PLAY S5 AT BOB", "PLAY S6 WITH N500 AT BOB"]
    moves = ["PICK M", "DEFEND D200", "PICK W", "DEFEND D200"]
    rounds: list[Round] = []
    for i, (card, move) in enumerate(zip(plays, moves, strict=True)):
        rounds.append({
            # Round 1 Ann prepares, round 2 she launches into the sabotage (S7); Bob prepares in round 2
            # and his launch of round 3 is ignored by the virus (S5).
            "Ann": [["PREP M500"], ["LAUNCH M500 WITH N200 AT BOB"], ["PICK D"], ["DEFEND D200"]][i],
            "Bob": [["PICK P"], ["PREP M700"], ["LAUNCH M700 WITH N500 AT ANN"], ["PICK M"]][i],
            attacker: [card, move],
            other: [move],
        })
    return rounds


def test_who_played_an_anonymous_card_stays_hidden(tmp_path: Path) -> None:
    # S6 (terrorists), S7 (sabotage), S5 (virus), and in round 4 S6 again: "Anonymous."
    a = play(tmp_path, "cat", scenario(ANON_HANDS), anonymous_rounds("Cat"))
    b = play(tmp_path, "dan", scenario(ANON_HANDS), anonymous_rounds("Dan"))
    assert_hidden_from(a, b, ["Ann", "Bob"], knows="Cat")
    # The cards did strike, so the victims had something to learn from.
    ann = [r["201-ann.txt"] for r in a.of("Ann")]
    bob = [r["202-bob.txt"] for r in a.of("Bob")]
    assert "Terrorists detonated warhead N500 in your country." in ann[0]
    assert "Mercenaries sabotaged your missile launch" in ann[1]
    assert "A computer virus thrashed your network" in bob[2]
    assert "Terrorists detonated warhead N500 in your country." in bob[3]


def test_who_played_an_anonymous_card_stays_hidden_in_a_killing_round(tmp_path: Path) -> None:
    # Ann has 600 people left. Cat's missile (N500, known: "launched a missile at Ann") and an
    # anonymous S6 with N500, from Bob in one run and from Dan in the other, together take more than
    # she has. Cat's points taken must not depend on which of the two sold the warhead: else Cat learns
    # whether the terrorist comes before or after him in the list of players. (The damage phase credits
    # the hits attacker by attacker in the order of the players, the first taking all they did.)
    hands = {
        "Ann": ["D200", "P100"],
        "Bob": ["S6", "N500", "P100"],
        "Cat": ["M500", "N500", "P100"],
        "Dan": ["S6", "N500", "P100"],
    }
    data = scenario(hands)
    data["players"][0]["population"] = 600

    def rounds(terrorist: str) -> list[Round]:
        other = "Dan" if terrorist == "Bob" else "Bob"
        return [
            {"Ann": ["PICK D"], "Bob": ["PICK P"], "Cat": ["PREP M500"], "Dan": ["PICK P"]},
            {"Ann": ["PICK D"], terrorist: ["PLAY S6 WITH N500 AT ANN", "PICK M"], other: ["PICK M"],
             "Cat": ["LAUNCH M500 WITH N500 AT ANN"]},
        ]

    a = play(tmp_path, "bob", data, rounds("Bob"))
    b = play(tmp_path, "dan", data, rounds("Dan"))
    assert "Ann is eliminated." in a.of("Cat")[1]["203-cat.txt"]
    assert_hidden_from(a, b, ["Ann", "Cat"], knows="Bob")


def test_the_spy_satellite_shows_only_its_owner(tmp_path: Path) -> None:
    # Cat or Dan launches the spy satellite (S9): the picks and preps it shows reach that player's
    # report, and no one else's. Both hold an S9 in both runs; PLAY S9 is not a visible move.
    hands = {
        "Ann": ["M500", "N200", "P100"],
        "Bob": ["M200", "N200", "D200"],
        "Cat": ["S9", "D200", "P100"],
        "Dan": ["S9", "D200", "P100"],
    }

    def rounds(owner: str) -> list[Round]:
        other = "Dan" if owner == "Cat" else "Cat"
        return [
            {"Ann": ["PREP M500"], "Bob": ["PICK W"], owner: ["PLAY S9", "PICK M"], other: ["PICK M"]},
            {"Ann": ["LAUNCH M500 WITH N200 AT BOB"], "Bob": ["PREP M200"], owner: ["PICK D"], other: ["PICK D"]},
            {"Ann": ["PICK M"], "Bob": ["LAUNCH M200 WITH N200 AT ANN"], owner: ["DEFEND D200"],
             other: ["DEFEND D200"]},
        ]

    a = play(tmp_path, "cat", scenario(hands), rounds("Cat"))
    b = play(tmp_path, "dan", scenario(hands), rounds("Dan"))
    assert_hidden_from(a, b, ["Ann", "Bob"], knows="Cat")
    assert "YOUR SPY SATELLITE SAW" in a.of("Cat")[0]["203-cat.txt"]
    assert "YOUR SPY SATELLITE SAW" in b.of("Dan")[0]["204-dan.txt"]


def test_a_warning_system_stays_hidden(tmp_path: Path) -> None:
    # S14: "Opponents are not warned that player used this card." Ann has one active in both runs. In
    # run "warned" she orders PREP M500 and the system, seeing Bob's missile, raises her D500 instead;
    # in run "plain" she orders DEFEND D500 herself. Both end the round with the same hand, the same
    # defence and the same visible move ("raised a defence"): Bob and Cat must not tell them apart, so
    # the news must not still say that Ann is preparing a missile launch.
    hands = {
        "Ann": ["S14", "M500", "D500", "P100"],
        "Bob": ["M200", "N200", "P100"],
        "Cat": ["P100", "D200"],
    }

    def rounds(move: str) -> list[Round]:
        return [
            {"Ann": ["PLAY S14", "PICK P"], "Bob": ["PREP M200"], "Cat": ["PICK M"]},
            {"Ann": [move], "Bob": ["LAUNCH M200 WITH N200 AT ANN"], "Cat": ["PICK W"]},
        ]

    a = play(tmp_path, "warned", scenario(hands), rounds("PREP M500"))
    b = play(tmp_path, "plain", scenario(hands), rounds("DEFEND D500"))
    assert "Your Advanced Warning System (S14) saw a missile coming" in a.of("Ann")[1]["201-ann.txt"]
    assert_hidden_from(a, b, ["Bob", "Cat"], knows="Ann")


# ---------------------------------------------------------------- a long game
# Six players with the printed periods (a special card every 5 rounds, an ULTIMATE roll every 20,
# announced 10 later). Until WAR_FROM they only build an arsenal (PICK, and propaganda when the hand is
# full) and play the special cards that are not aimed at anyone, so the game cannot end before it;
# then everyone attacks, with every card the script knows how to use (U1 excepted). 4,000 people
# each instead of 10,000 keeps the war, and the test's run time, short: the game ends in round 86.
LONG_SEED = 17          # its ULTIMATE rolls succeed at all of rounds 20, 40, 60 and 80
ULTIMATE_ROUNDS = [20, 40, 60, 80]
WAR_FROM = 40
LONG_POPULATION = 4000
MIN_ROUNDS, MAX_ROUNDS = 60, 150
HAND_LIMIT = 12         # the ruleset's default hand_limit: a PICK with a full hand is refused

# The special cards played "AT player" with no other argument, and those that wait idle once played.
AIMED = {"S1", "S2", "S3", "S4", "S5", "S7"}
WAITING = {"S10", "S13", "S16", "S20", "S21", "S22"}  # PLAY refuses one of these already idle


def value(card: str) -> int:
    return int(card[1:])


def active_in(p: dict[str, Any], card: str, turn: int) -> bool:
    # rounds_left counts this round too and runs down as the next round starts: a card works in round
    # `turn` if the state after round turn - 1 gives it more than one round.
    return int(p["rounds_left"].get(card, 0)) > 1


@dataclass
class Hand:
    """A hand as a multiset that the script spends from, so no card is ordered twice in a round."""

    cards: list[str]

    def of(self, kind: str) -> list[str]:
        # Nuclear and biological warheads are both "W" to the player; best (highest value) first.
        kinds = ("N", "B") if kind == "W" else (kind,)
        return sorted((c for c in self.cards if c[0] in kinds), key=lambda c: (-value(c), c))

    def take(self, card: str) -> str:
        self.cards.remove(card)
        return card


def special(p: dict[str, Any], hand: Hand, turn: int, target: str) -> list[str]:
    """At most one special or ultimate card a round: the lowest-numbered one that applies."""
    war = turn >= WAR_FROM
    for card in sorted({c for c in hand.cards if c[0] in "SU"}, key=lambda c: (c[0], value(c))):
        if card in WAITING and card in p["idle"]:
            continue
        if card in AIMED:
            if war:
                hand.take(card)
                return [f"PLAY {card} AT {target.upper()}"]
        elif card == "S6":
            warheads = hand.of("W")
            if war and warheads:
                hand.take(card)
                # The weakest warhead to the terrorists: the best ones are for missiles.
                return [f"PLAY S6 WITH {hand.take(warheads[-1])} AT {target.upper()}"]
        elif card == "S18":
            warheads = hand.of("W")
            if war and warheads:
                hand.take(card)
                return [f"PLAY S18 WITH {hand.take(warheads[0])} AT {target.upper()}"]
        elif card == "S19":
            fit = [(m, w) for m in hand.of("M") for w in hand.of("W") if value(w) <= value(m)]
            if war and fit:
                m, w = fit[0]
                hand.take(card)
                return [f"PLAY S19 {hand.take(m)} WITH {hand.take(w)} AT {target.upper()}"]
        elif card == "U1":
            continue  # the Doomsday Device would end the game at once: the script never plays it
        elif card[0] == "U":
            if war:
                hand.take(card)
                return [f"PLAY {card}"]
        else:
            hand.take(card)
            return [f"PLAY {card}"]
    return []


def move(p: dict[str, Any], hand: Hand, turn: int, target: str, index: int) -> list[str]:
    """The one move that ends the player's turn."""
    war = turn >= WAR_FROM
    t = target.upper()
    prepared = p["prepared"] if p["prepared"] and p["prepared_on"] == turn - 1 else None
    if prepared:
        fits = [w for w in hand.of("W") if value(w) <= value(prepared)]
        if fits:
            load = [hand.take(fits[0])]
            # A MIRV bus waiting lets more nuclear warheads ride, up to the missile's yield.
            if "S21" in p["idle"] and load[0][0] == "N":
                for w in hand.of("W"):
                    if w[0] == "N" and sum(map(value, load)) + value(w) <= value(prepared):
                        load.append(hand.take(w))
            return [f"LAUNCH {prepared} WITH {'+'.join(load)} AT {t}"]
    if war and active_in(p, "U2", turn) and hand.of("W"):
        return [f"LAUNCH {hand.take(hand.of('W')[0])} AT {t}"]
    if war:
        for m in hand.of("M"):
            if any(value(w) <= value(m) for w in hand.of("W")):
                return [f"PREP {hand.take(m)}"]
    if war and hand.of("P") and not active_in(p, "S12", turn):
        return [f"PROPAGANDA {hand.take(hand.of('P')[0])} AT {t}"]
    can_defend = hand.of("D") and p["fried_until"] < turn
    if war and can_defend and (turn + index) % 4 == 0:
        return [f"DEFEND {hand.take(hand.of('D')[0])}"]
    # The limit is checked when the orders are read, before the round's special card leaves the hand.
    if len(p["hand"]) < HAND_LIMIT:
        if war:
            # No warhead fits any missile held (else the player would PREP): draw what is missing, or
            # else a missile, a warhead or propaganda in turn; now and then a defence.
            if (turn + index) % 5 == 0:
                deck = "D"
            elif not hand.of("W") or not hand.of("M"):
                deck = "W" if not hand.of("W") else "M"
            else:
                deck = "MWP"[turn % 3]
        else:
            # An arsenal for the war: mostly missiles and warheads.
            deck = "MWMWPD"[(turn + index) % 6]
        return [f"PICK {deck}"]
    # A full hand: spend a card, or in peace keep the arsenal and do nothing.
    if hand.of("P"):
        return [f"PROPAGANDA {hand.take(hand.of('P')[-1])} AT {t}"]
    if war and can_defend:
        return [f"DEFEND {hand.take(hand.of('D')[0])}"]
    if war and hand.of("M"):
        return [f"PREP {hand.take(hand.of('M')[-1])}"]  # no warhead fits: prepared, and lost
    if war:
        return [f"GIVE {hand.take(hand.cards[0])} TO {t}"]
    return []


def script(state: dict[str, Any]) -> Round:
    """Every active player's orders for the round after `state`."""
    turn = int(state["turn"]) + 1
    players = state["players"]
    orders: Round = {}
    for index, p in enumerate(players):
        if not p["active"]:
            continue
        # Everyone aims at the strongest other player (the first of them in a tie). Aiming at the
        # weakest was tried: it spares the strongest until a long duel at the end (over 130 rounds).
        others = [q for q in players if q["active"] and q["name"] != p["name"]]
        target = max(others, key=lambda q: int(q["population"]))["name"]
        hand = Hand(list(p["hand"]))
        lines = special(p, hand, turn, target)
        if not (lines and lines[0].startswith(("PLAY S18", "PLAY S19"))):  # those end the turn themselves
            lines += move(p, hand, turn, target, index)
        if lines:
            orders[p["name"]] = lines
    return orders


@dataclass
class LongGame:
    folder: Path
    orders: list[Path]                                     # each round's order folder
    results: list[TurnResult]
    states: list[dict[str, Any]]                           # index 0: the start, then after each round
    reports: list[dict[str, str]]                          # each round's report texts, by file name
    news: list[str]                                        # each round's news.txt


def load_state(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)
    return data


def play_long_game(tmp: Path) -> LongGame:
    data = scenario({n: ["M200", "N200", "P100", "D200"] for n in ACCOUNTS})
    data["seed"] = LONG_SEED
    for p in data["players"]:
        p["population"] = LONG_POPULATION
    folder = start(tmp, "long", data)
    states = [load_state(folder.turns_dir / "turn-000" / "state.yaml")]
    game = LongGame(folder.root, [], [], states, [], [])
    while not states[-1]["engine"]["game_over"] and len(game.results) < MAX_ROUNDS:
        orders_dir = tmp / "long-orders" / f"round-{len(game.results) + 1:03d}"
        result = play_round(folder, orders_dir, script(states[-1]))
        game.orders.append(orders_dir)
        game.results.append(result)
        states.append(load_state(result.folder / "state.yaml"))
        game.reports.append({p.name: p.read_text(encoding="utf-8") for _, p in result.reports})
        assert result.news is not None
        game.news.append(result.news.read_text(encoding="utf-8"))
    return game


@pytest.fixture(scope="module")
def long_game(tmp_path_factory: pytest.TempPathFactory) -> LongGame:
    return play_long_game(tmp_path_factory.mktemp("nukecards-long"))


def test_a_long_game_runs_to_its_end(long_game: LongGame) -> None:
    g = long_game
    rounds = len(g.results)
    final = g.states[-1]
    assert final["engine"]["game_over"] is True, f"not over after {rounds} rounds"
    assert MIN_ROUNDS <= rounds <= MAX_ROUNDS
    left = [p["name"] for p in final["players"] if p["active"]]
    assert len(left) <= 1
    assert final["engine"]["winners"] == left
    for turn, (result, before, after) in enumerate(zip(g.results, g.states[:-1], g.states[1:], strict=True), 1):
        assert result.turn == turn
        # One report for each player active when the round began, and no order refused: the script
        # reads the hands right, so a refusal would be the ruleset's (or the script's) fault.
        started = [p["name"] for p in before["players"] if p["active"]]
        assert sorted(n for n, _ in result.reports) == sorted(started), f"round {turn}"
        for name, text in g.reports[turn - 1].items():
            assert "ORDERS NOT ACCEPTED" not in text, f"round {turn}, {name}:\n{text}"
        # A special card for every player still in the game every 5 rounds, and none between.
        granted = sum(text.count("The game gives you a special card:") for text in g.reports[turn - 1].values())
        still_in = sum(1 for p in after["players"] if p["active"])
        assert granted == (still_in if turn % 5 == 0 else 0), f"round {turn}"
    # The game was a war: players fell one by one, and missiles flew.
    outs = sorted(p["out_on"] for p in final["players"] if not p["active"])
    assert len(outs) >= 5 and outs[0] > WAR_FROM
    assert sum(n.count("A missile from") for n in g.news) > 20
    # The ULTIMATE cards: rolled at the multiples of 20 that this seed wins, announced 10 rounds later.
    rolled = [t for t, n in enumerate(g.news, 1) if "An ULTIMATE card is now in the game." in n]
    assert rolled == [r for r in ULTIMATE_ROUNDS if r <= rounds]
    announced = 0
    for r in rolled:
        # The card went to one player, privately; its type and owner are news 10 rounds later.
        given = [(n, t) for n, t in g.reports[r - 1].items() if "The game gives you an ULTIMATE card: U" in t]
        assert len(given) == 1, f"round {r}"
        if r + 10 <= rounds:
            news = g.news[r + 10 - 1]
            assert f"The ULTIMATE card of round {r} is U" in news
            card = news.split(f"The ULTIMATE card of round {r} is ", 1)[1].split(" ", 1)[0]
            owner = news.split(f"The ULTIMATE card of round {r} is ", 1)[1].split("given to ", 1)[1].split(".")[0]
            name, text = given[0]
            assert name == f"{ACCOUNTS[owner][0]}-{owner.lower()}.txt"
            assert f"The game gives you an ULTIMATE card: {card} " in text
            announced += 1
    assert announced >= 1
    assert sum(n.count("The ULTIMATE card of round") for n in g.news) == announced
    # The last reports close the game with everyone's score.
    for name, text in g.reports[-1].items():
        assert "END OF GAME" in text, name
        assert "Final scores" in text
        for p in final["players"]:
            assert p["name"] in text.split("END OF GAME", 1)[1]


def test_the_long_game_replays_byte_for_byte(long_game: LongGame, tmp_path: Path) -> None:
    # The same scenario and the same order files, in a fresh process with another hash seed and its own
    # compile cache: every report, news file and state of every round is the same, byte for byte.
    replay = tmp_path / "replay-game"
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from rulesdsl.game.folder import GameFolder\n"
        "rules, game, scenario, *rounds = sys.argv[1:]\n"
        "folder = GameFolder.create(Path(rules), Path(game), Path(scenario), None)\n"
        "for d in rounds:\n"
        "    folder.process_turn(sorted(Path(d).glob('*.txt')), force=True)\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "4242", "RULESDSL_CACHE": str(tmp_path / "cache")}
    scenario_file = long_game.folder.parent / "long.yaml"
    subprocess.run([sys.executable, "-c", code, str(RULES), str(replay), str(scenario_file),
                    *map(str, long_game.orders)], check=True, env=env, cwd=ROOT)

    def files(root: Path) -> dict[str, bytes]:
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}

    first, second = files(long_game.folder), files(replay)
    # Every round's reports, as text, data and page, besides the starting reports `new` writes (turn 0).
    played = [k for k in first if "/reports/" in k and not k.startswith("turns/turn-000/")]
    assert len(played) == 3 * sum(len(r) for r in long_game.reports)
    assert len([k for k in first if k.startswith("turns/turn-000/reports/")]) == 3 * 6
    assert first.keys() == second.keys()
    assert [k for k in first if first[k] != second[k]] == []


# ---------------------------------------------------------------- the rulebook read again
def play_states(tmp: Path, name: str, data: dict[str, Any], rounds: list[Round]) -> tuple[Played, list[dict[str, Any]]]:
    """The rounds' reports, and the state after each round, players by name."""
    folder = start(tmp, name, data)
    out, states = Played(), []
    for i, orders in enumerate(rounds, 1):
        result = play_round(folder, tmp / f"{name}-orders" / f"round-{i}", orders)
        reports = result.folder / "reports"
        out.reports.append({p.name: p.read_text(encoding="utf-8") for p in sorted(reports.iterdir())})
        states.append(load_state(result.folder / "state.yaml"))
    return out, states


def by_name(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in state["players"]}


def test_a_mirv_bus_goes_with_a_launch_of_one_nuclear_warhead(tmp_path: Path) -> None:
    # S21: "Card remains idle until player uses a nuclear W-card with M-card" and "Cards that are idle
    # at the moment will disappear after 1 use": one warhead is a use, not only two.
    hands = {"Ann": ["S21", "M500", "N200", "N200"], "Bob": ["P100"]}
    rounds: list[Round] = [{"Ann": ["PLAY S21", "PREP M500"]}, {"Ann": ["LAUNCH M500 WITH N200 AT BOB"]}]
    _, states = play_states(tmp_path, "mirv", scenario(hands), rounds)
    assert by_name(states[0])["Ann"]["idle"] == ["S21"]
    after = by_name(states[1])
    assert after["Bob"]["population"] == 10000 - 200  # the launch went ahead
    assert after["Ann"]["idle"] == []
    assert "S21" not in after["Ann"]["hand"]


def test_a_mirv_bus_waits_through_a_biological_launch(tmp_path: Path) -> None:
    # Only a nuclear W-card sets the MIRV bus off.
    hands = {"Ann": ["S21", "M500", "B200"], "Bob": ["P100"]}
    rounds: list[Round] = [{"Ann": ["PLAY S21", "PREP M500"]}, {"Ann": ["LAUNCH M500 WITH B200 AT BOB"]}]
    _, states = play_states(tmp_path, "mirv-bio", scenario(hands), rounds)
    after = by_name(states[1])
    assert after["Bob"]["population"] == 10000 - 400
    assert after["Ann"]["idle"] == ["S21"]


def test_anti_terrorists_that_went_off_stop_every_later_attack_of_the_round(tmp_path: Path) -> None:
    # S10: after it foils an anonymous card it "remains active for the rest of the round, protecting
    # player against other possible attacks from any other player": Dan's S5 sets it off; Bob's
    # missile, Ann's propaganda and Eve's theft, none of them anonymous, then fail too. Fallout is
    # certain here, so a warhead that went off would show.
    hands = {"Ann": ["P100"], "Bob": ["M500", "N200"], "Cat": ["S10", "M700"], "Dan": ["S5"], "Eve": ["S3"]}
    rounds: list[Round] = [
        {"Cat": ["PLAY S10"], "Bob": ["PREP M500"]},
        {"Dan": ["PLAY S5 AT CAT"], "Bob": ["LAUNCH M500 WITH N200 AT CAT"], "Ann": ["PROPAGANDA P100 AT CAT"],
         "Eve": ["PLAY S3 AT CAT"]},
    ]
    played, states = play_states(tmp_path, "s10", scenario(hands, parameters={"fallout_chance": 100}), rounds)
    after = by_name(states[1])
    assert {n: p["population"] for n, p in after.items()} == dict.fromkeys(hands, 10000)
    assert after["Cat"]["hand"] == ["M700"] and after["Eve"]["hand"] == []
    cat = played.of("Cat")[1]["203-cat.txt"]
    assert "Your Anti-terrorist organisation (S10) foiled S5 Computer virus, played against you by Dan." in cat
    assert "Your Anti-terrorist organisation (S10) stopped the missile M500 of Bob." in cat
    assert "Your Anti-terrorist organisation (S10) stopped the P100 propaganda of Ann." in cat
    assert "stopped the S3 " in cat
    assert "Your missile M500 against Cat failed." in played.of("Bob")[1]["202-bob.txt"]


def test_a_warhead_the_terrorists_detonate_makes_fallout(tmp_path: Path) -> None:
    # Designer's note: fallout comes from every warhead that goes off, whatever carried it (S6 here).
    hands = {"Ann": ["S6", "N200"], "Bob": ["P100"], "Cat": ["P100"]}
    played, states = play_states(tmp_path, "s6-fallout", scenario(hands, parameters={"fallout_chance": 100}),
                                 [{"Ann": ["PLAY S6 WITH N200 AT BOB"]}])
    after = by_name(states[0])
    assert sum(p["population"] for p in after.values()) == 30000 - 200 - 100
    texts = [t for n in hands for f, t in played.of(n)[0].items() if f.endswith(".txt")]
    assert sum("Fallout from a radioactive cloud reached your country." in t for t in texts) == 1
