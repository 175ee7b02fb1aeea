"""Basic (traditional) Rummy for 2-6 players: melds and lay-offs on a shared table.

Rules quoted from the seeds (../shared/seeds/002_1a0ececae27e13bb.txt, deal sizes from
003_58e7c7fd04d4c1b8.txt); the choices made where they are silent are in engine/README.md.
"""

from __future__ import annotations

from engine import fair
from engine.cards import Card, card
from engine.errors import IllegalAction
from engine.melds import BASIC_POINTS, classify
from engine.variants import basic_bots, register
from engine.variants.base import Option, Variant, gettext_noop, placements
from engine.variants.table import (
    Choice,
    TableGame,
    check_seat,
    copy_json,
    sort_key,
    take_from,
    texts,
)

#: Seed 003: "When two people play, each person gets 10 cards. When three or four people
#: play, each receives seven cards; when five or six play, each receives six cards."
DEAL_SIZE = {2: 10, 3: 7, 4: 7, 5: 6, 6: 6}
#: Seed 002: "For 2 players the score is 100 points, for 3 players it's 150 points and for
#: four players the score is 200." Five and six players keep 200 (engine/README.md).
DEFAULT_TARGET = {2: 100, 3: 150, 4: 200, 5: 200, 6: 200}
_ACTION_KEYS = {
    "draw": frozenset({"type", "source"}),
    "meld": frozenset({"type", "cards"}),
    "layoff": frozenset({"type", "card", "meld"}),
    "discard": frozenset({"type", "card"}),
}
_STAT_KEYS = ("hands_won", "rummies", "cards_melded", "hands_lost", "stalemates")
#: Option ``scoring: penalty``: seed 002, "Hands will continue to be dealt until one of the
#: players reaches 100 points. The first player to reach 100 points loses the rummy game."
PENALTY_TARGET = 100
#: A printed joker left in hand (option ``jokers``): the seeds give no value; Bicycle's
#: Contract Rummy counts "Ace, joker, and other wild cards" 15 (engine/README.md).
JOKER_POINTS = 15


def hand_value(hand) -> int:
    return sum(JOKER_POINTS if c.is_joker else BASIC_POINTS[c.rank] for c in hand)


def extends(meld: list[Card], c: Card) -> bool:
    """True when ``c`` can be laid off on ``meld`` (a set's missing suit, a run's next card)."""
    return classify([*meld, c]) is not None


def meld_order(group: list[Card]) -> list[Card]:
    """Runs by rank (aces low), sets by suit, printed jokers last: how the table shows a meld."""
    return sorted(group, key=lambda c: (c.is_joker, c.rank, sort_key(c)))


def possible_melds(hand: list[Card]) -> list[list[Card]]:
    """Every set (3 or 4 of a rank) and run (3+ in sequence, one suit) within ``hand``, and,
    when it holds printed jokers (option ``jokers``), every meld using some of them."""
    out: list[list[Card]] = []
    jokers = [c for c in hand if c.is_joker]
    if jokers:
        out.extend(_joker_melds([c for c in hand if not c.is_joker], jokers))
    by_rank: dict[int, list[Card]] = {}
    by_suit: dict[str, dict[int, Card]] = {}
    for c in hand:
        by_rank.setdefault(c.rank, []).append(c)
        by_suit.setdefault(c.suit, {})[c.rank] = c
    for same in by_rank.values():
        same = sorted(same, key=sort_key)
        if len(same) == 3:
            out.append(same)
        elif len(same) == 4:
            out.extend([x for x in same if x is not skip] for skip in same)
            out.append(same)
    for ranks in by_suit.values():
        for lo in ranks:
            hi = lo
            while hi + 1 in ranks:
                hi += 1
                if hi - lo >= 2:
                    out.append([ranks[r] for r in range(lo, hi + 1)])
    return out


def _joker_melds(naturals: list[Card], jokers: list[Card]) -> list[list[Card]]:
    """Melds holding 1..len(jokers) printed jokers: naturals of one suit (runs) or one rank
    (sets), any subset of them, with that many jokers, that `classify` accepts."""
    out = []
    pools: dict = {}
    for c in naturals:
        pools.setdefault(("suit", c.suit), []).append(c)
        pools.setdefault(("rank", c.rank), []).append(c)
    seen = set()
    for pool in pools.values():
        pool = sorted(pool, key=sort_key)
        for mask in range(1, 1 << len(pool)):
            chosen = [c for i, c in enumerate(pool) if mask >> i & 1]
            for j in range(1, len(jokers) + 1):
                group = chosen + jokers[:j]
                key = tuple(sorted(c.code for c in group))
                if key not in seen and classify(group) is not None:
                    seen.add(key)
                    out.append(group)
    return out


class BasicGame(TableGame):
    """A Basic Rummy match. The stock pops from the end; ``taken`` is the card drawn from
    the discard pile this turn (it may not be discarded)."""

    action_keys = _ACTION_KEYS

    def __init__(self, variant: BasicVariant, players: int, seed: str, options: dict) -> None:
        fair.commitment(seed)  # validates the seed
        self.variant = variant
        self.players = players
        self._seed = seed
        self.options = options
        self.penalty = options["scoring"] == "penalty"
        default = PENALTY_TARGET if self.penalty else DEFAULT_TARGET[players]
        self.target = options["target"] or default
        self.seq = 0
        self._moves: list[tuple[int, dict]] = []
        self.scores = [0] * players
        self.stats = [dict.fromkeys(_STAT_KEYS, 0) for _ in range(players)]
        self.hand_number = 0
        self.last_hand: dict | None = None
        self.over = False
        self.result: dict | None = None
        self._deal()

    # ------------------------------------------------------------------ state changes

    def _deal(self) -> None:
        """Seed 002: "After the cards are dealt the deck is put facedown on the table, and
        one card face up next to it, to start the discard pile. The player to the left of the
        dealer starts the hand"; the deal passes to the left each hand."""
        self.hand_number += 1
        n = self.players
        self.dealer = (self.hand_number - 2) % n  # seat 0 plays first in hand 1
        first = (self.dealer + 1) % n
        deck = fair.shuffled_deck(self._seed, self.hand_number, jokers=self.options["jokers"])
        size = DEAL_SIZE[n]
        hands: list[list[Card]] = [[] for _ in range(n)]
        for i in range(size * n):
            hands[(first + i) % n].append(deck[i])
        self.hands = [sorted(h, key=sort_key) for h in hands]
        self.discard = [deck[size * n]]
        self.stock = deck[: size * n : -1]  # deck[size * n + 1] is on top (the end)
        self.table: list[dict] = []
        self.taken: Card | None = None
        self.pile_draws = 0
        self.reshuffled = False
        self.played_before = [False] * n
        self.played_now = False
        self.melded_now = False
        self.phase = "draw"
        self.to_move = first

    def _end_turn(self, seat: int) -> None:
        self.played_before[seat] |= self.played_now
        self.played_now = False
        self.melded_now = False
        self.taken = None
        if not self.stock:
            if self.reshuffled:
                # Seed: "If the deck is depleted for a second time then the hand is
                # considered a stalemate and finishes with no one getting any points."
                self._stalemate("stock_exhausted")
                return
            self._reshuffle()
            if not self.stock:
                self._stalemate("stock_exhausted")
                return
        if self._nobody_can_finish():
            self._stalemate("no_finish_possible")
            return
        self.to_move = (seat + 1) % self.players
        self.phase = "draw"

    def _reshuffle(self) -> None:
        """Seed: "If the deck is depleted before a player has won, then the discard pile is
        shuffled and used as a new deck." The top card stays as the new discard pile; the rest,
        bottom first, is shuffled with label "hand:<n>:reshuffle" of the match seed."""
        top = self.discard[-1]
        self.stock = fair.shuffle(
            self.discard[:-1], self._seed, f"hand:{self.hand_number}:reshuffle"
        )
        self.discard = [top]
        self.reshuffled = True

    def _nobody_can_finish(self) -> bool:
        """Seed: "when all players have only one card left, and there are no possible lay
        offs on the melds on the table". With one card each nobody can meld (three cards are
        needed) and nothing new reaches the table, so the position can never change."""
        if any(len(h) != 1 for h in self.hands):
            return False
        on_table: dict[str, int] = {}
        for m in self.table:
            for c in m["cards"]:
                on_table[c.text] = on_table.get(c.text, 0) + 1
        copies = {"JK": self.options["jokers"]}
        wanted = {c.text for m in self.table for c in _extensions(m["cards"])}
        return all(on_table.get(t, 0) >= copies.get(t, 1) for t in wanted)

    def _stalemate(self, reason: str) -> None:
        """Seed 002: "When there's a stalemate all players get 0 points, and the game is
        considered a loss for all of them in the statistics"."""
        for stats in self.stats:
            stats["hands_lost"] += 1
            stats["stalemates"] += 1
        self._end_hand(None, 0, reason)

    def _end_by_pile_limit(self) -> None:
        self._stalemate("pile_limit")

    def _go_out(self, seat: int) -> None:
        """Seed: "When a player has won a round, the cards his opponents still have in their
        hands are counted ... The points for all the losers are added together and given to
        the winner." Going rummy: "If a player has not melded or laid off any cards during the
        game, but can get rid of all his cards in one turn earns a bonus, his points are
        doubled!" """
        breakdown = [
            {"code": "cards_left", "seat": s, "label": "cards left in hand", "points": value}
            for s, value in enumerate(hand_value(h) for h in self.hands)
            if s != seat
        ]
        rummy = not self.played_before[seat]
        factor = 2 if rummy else 1
        if rummy:
            doubled = sum(line["points"] for line in breakdown)
            breakdown.append(
                {
                    "code": "rummy",
                    "label": "Rummy: out in one turn, the points double",
                    "points": doubled,
                }
            )
            self.stats[seat]["rummies"] += 1
        self.stats[seat]["hands_won"] += 1
        for other in range(self.players):
            if other != seat:
                self.stats[other]["hands_lost"] += 1
        kind = "rummy" if rummy else "out"
        if self.penalty:
            # Seed 002: "In some variations each player gets his points as penalty points";
            # going rummy doubles them (engine/README.md).
            penalties = [factor * hand_value(h) for h in self.hands]
            for s, p in enumerate(penalties):
                self.scores[s] += p
            self._end_hand(seat, sum(penalties), kind, breakdown, penalties)
            return
        points = factor * sum(hand_value(h) for h in self.hands)
        self.scores[seat] += points
        self._end_hand(seat, points, kind, breakdown)

    def _end_hand(
        self,
        winner: int | None,
        points: int,
        kind: str,
        breakdown: list | None = None,
        penalties: list[int] | None = None,
    ) -> None:
        self.last_hand = {
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "kind": kind,
            "winner": winner,
            "points": points,
            "hands": [texts(h) for h in self.hands],
            "melds": self._table_json(),
            # How `points` adds up (they sum to it): each loser's cards, then any doubling.
            "breakdown": breakdown or [],
            "scores": list(self.scores),
        }
        if self.penalty:
            self.last_hand["penalties"] = penalties or [0] * self.players
        self.taken = None
        if self.penalty:
            if any(score >= self.target for score in self.scores):
                self._finish(None)
            else:
                self._deal()
        elif winner is not None and self.scores[winner] >= self.target:
            self._finish(winner)
        else:
            self._deal()

    def _finish(self, winner: int | None) -> None:
        """Winner-takes-all: the seat that reached the target wins. Penalty scoring: the
        lowest total wins (None when shared); those who reached the target lose."""
        ranks = placements(self.scores, lower_wins=self.penalty)
        if self.penalty:
            firsts = [s for s in range(self.players) if ranks[s] == 1]
            winner = firsts[0] if len(firsts) == 1 else None
        self.over = True
        self.to_move = None
        self.phase = "over"
        self.result = {
            "winner": winner,
            "scores": list(self.scores),
            "placements": ranks,
            "hands": self.hand_number,
            "target": self.target,
            "stats": [dict(s) for s in self.stats],
        }
        if self.penalty:
            self.result["lower_wins"] = True

    # ------------------------------------------------------------------ the public API

    @property
    def moves(self) -> list[dict]:
        return [{"seat": s, "action": copy_json(a)} for s, a in self._moves]

    def legal_actions(self, seat: int) -> list[dict]:
        """Every legal action: both draws, or every meld, lay-off and discard."""
        check_seat(seat, self.players, allow_none=False)
        if self.over or seat != self.to_move:
            return []
        if self.phase == "draw":
            out = [{"type": "draw", "source": "stock"}]
            if self.discard:
                out.append({"type": "draw", "source": "discard"})
            return out
        hand = self.hands[seat]
        out = []
        melds = (
            [] if self.melded_now and self.options["one_meld_per_turn"] else possible_melds(hand)
        )
        for group in melds:
            rest = [c for c in hand if c not in group]
            if not self._strands(rest, [*self.table, {"cards": group}]):
                out.append({"type": "meld", "cards": [c.text for c in meld_order(group)]})
        for c in hand:
            rest = [x for x in hand if x is not c]
            for i, m in enumerate(self.table):
                if extends(m["cards"], c) and not self._strands(rest, self._with(i, c)):
                    out.append({"type": "layoff", "card": c.text, "meld": i})
        out.extend({"type": "discard", "card": c.text} for c in hand if c is not self.taken)
        return out

    def _act(self, seat: int, kind: str, action: dict) -> None:
        if kind == "draw":
            self._draw(seat, action["source"])
        elif kind == "meld":
            self._meld(seat, action["cards"])
        elif kind == "layoff":
            self._layoff(seat, action["card"], action["meld"])
        else:
            self._discard(seat, action["card"])

    def _draw(self, seat: int, source) -> None:
        if self._take_drawn(seat, source) is not None:
            self.phase = "play"

    def _in_play(self) -> None:
        if self.phase != "play":
            raise IllegalAction("wrong_phase", "draw a card first")

    def _strands(self, rest: list[Card], table: list[dict]) -> bool:
        """True when ``rest`` is only the card taken from the discard pile and it fits no
        meld: the player could then neither discard it nor get rid of it, so the meld or
        lay-off that leads there is refused (engine/README.md)."""
        return (
            len(rest) == 1
            and rest[0] is self.taken
            and not any(extends(m["cards"], rest[0]) for m in table)
        )

    def _with(self, index: int, c: Card) -> list[dict]:
        return [{"cards": [*m["cards"], c]} if i == index else m for i, m in enumerate(self.table)]

    def _meld(self, seat: int, wanted) -> None:
        """Seed: "You dispose of cards by building melds which are made up of sets, three or
        four of a kind and the same rank; or runs, three or more cards in sequence and same
        suit." and "You are allowed to put down many melds in each round"."""
        self._in_play()
        if self.melded_now and self.options["one_meld_per_turn"]:
            # Seed 002: "in some versions only one meld per turn is allowed".
            raise IllegalAction("one_meld_per_turn", "only one meld per turn in this match")
        group = take_from(self.hands[seat], wanted)
        kind = classify(group)
        if kind is None:
            raise IllegalAction(
                "not_a_meld",
                f"{' '.join(wanted)} is neither a set (3-4 of a rank) nor a run (3+ in sequence "
                "in one suit, aces low)",
            )
        rest = [c for c in self.hands[seat] if c not in group]
        if self._strands(rest, [*self.table, {"cards": group}]):
            raise IllegalAction(
                "strands_taken_card",
                "that would leave only the card you took from the discard pile, which you may "
                "not discard",
            )
        self.hands[seat] = rest
        self.table.append({"kind": kind.kind, "cards": meld_order(group)})
        self.stats[seat]["cards_melded"] += len(group)
        self.played_now = True
        self.melded_now = True
        if not rest:
            self._go_out(seat)

    def _layoff(self, seat: int, text, index) -> None:
        """Seed: "Cards can also be added to the sets and runs which have already been laid
        down ... Who put the meld down in the first place doesn't matter"."""
        self._in_play()
        (c,) = take_from(self.hands[seat], [text])
        if type(index) is not int or not 0 <= index < len(self.table):
            raise IllegalAction("bad_meld_index", f"there is no meld {index!r} on the table")
        meld = self.table[index]["cards"]
        if not extends(meld, c):
            raise IllegalAction(
                "cannot_lay_off",
                f"{c.text} does not extend meld {index} ({' '.join(map(str, meld))})",
            )
        rest = [x for x in self.hands[seat] if x is not c]
        if self._strands(rest, self._with(index, c)):
            raise IllegalAction(
                "strands_taken_card",
                "that would leave only the card you took from the discard pile, which you may "
                "not discard",
            )
        self.hands[seat] = rest
        self.table[index]["cards"] = meld_order([*meld, c])
        self.stats[seat]["cards_melded"] += 1
        self.played_now = True
        if not rest:
            self._go_out(seat)

    def _discard(self, seat: int, text) -> None:
        """Seed: "End your turn by discarding one card onto the discard pile. If you drew from
        the discard pile you can not discard that card in the same round." """
        self._in_play()
        (c,) = take_from(self.hands[seat], [text], avoid=self.taken)
        if c is self.taken:
            raise IllegalAction(
                "cannot_discard_drawn_discard",
                f"{c.text} was just taken from the discard pile; discard another card",
            )
        self.hands[seat] = [x for x in self.hands[seat] if x is not c]
        self.discard.append(c)
        if not self.hands[seat]:
            # Seed: "If you only have one card left to discard you put it face down on the
            # discard pile and win the game."
            self._go_out(seat)
            return
        self._end_turn(seat)

    def _table_json(self) -> list[dict]:
        return [{"kind": m["kind"], "cards": [c.text for c in m["cards"]]} for m in self.table]

    def view(self, seat: int | None) -> dict:
        check_seat(seat, self.players, allow_none=True)
        return {
            "variant": "basic",
            "seat": seat,
            "players": self.players,
            "seq": self.seq,
            "to_move": self.to_move,
            "phase": self.phase,
            "hand": texts(self.hands[seat]) if seat is not None else [],
            "hand_counts": [len(h) for h in self.hands],
            "discard": [c.text for c in self.discard],
            "stock_count": len(self.stock),
            "pile_draws": self.pile_draws,
            "reshuffled": self.reshuffled,
            "scores": list(self.scores),
            "target": self.target,
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "melds": self._table_json(),
            "taken_from_discard": self.taken.text if self.taken else None,
            "last_hand": copy_json(self.last_hand),
            "options": dict(self.options),
            "over": self.over,
            "result": copy_json(self.result),
        }

    def _snapshot(self) -> tuple:
        """Every piece of state (secret parts included), for tests that compare states."""
        return (
            self.seq,
            repr(self._moves),
            repr(self.hands),
            repr(self.discard),
            repr(self.stock),
            repr(self._table_json()),
            self.taken,
            self.pile_draws,
            self.reshuffled,
            tuple(self.played_before),
            self.played_now,
            self.melded_now,
            self.phase,
            self.to_move,
            tuple(self.scores),
            repr(self.stats),
            self.hand_number,
            self.dealer,
            repr(self.last_hand),
            self.over,
            repr(self.result),
        )


def _extensions(meld: list[Card]) -> list[Card]:
    """The cards that could ever be laid off on ``meld`` (a printed joker as ``JK``)."""
    return [c for c in _ANY_CARD if classify([*meld, c]) is not None]


_ANY_CARD = [card(r + s) for s in "SHDC" for r in "A23456789TJQK"] + [card("JK")]


class BasicVariant(Variant):
    """Basic Rummy, 2-6 players, hands until someone reaches the target."""

    name = "basic"
    title = gettext_noop("Basic Rummy")
    min_players = 2
    max_players = 6
    bots = ("random", "greedy")
    options = (
        Option(
            "target",
            int,
            0,
            0,
            10000,
            gettext_noop(
                "match ends when a player reaches this; 0 = by table size (100, 150, 200, 200, "
                "200), or 100 with penalty scoring"
            ),
            label=gettext_noop("Target"),
        ),
        Option(
            "one_meld_per_turn",
            bool,
            False,
            help=gettext_noop("seed 002: in some versions only one meld per turn is allowed"),
            label=gettext_noop("One meld per turn"),
        ),
        Choice(
            "scoring",
            str,
            "winner",
            help=gettext_noop(
                "winner: the winner takes the losers' points, first to the target wins; "
                "penalty: each keeps its own points, first to the target (100) loses"
            ),
            choices=("winner", "penalty"),
            label=gettext_noop("Scoring"),
        ),
        Option(
            "jokers",
            int,
            0,
            0,
            4,
            gettext_noop("printed jokers added to the deck, wild in melds"),
            label=gettext_noop("Jokers"),
        ),
        Option(
            "max_pile_draws",
            int,
            52,
            1,
            1000,
            gettext_noop(
                "takes from the discard pile per hand; one more ends the hand as a stalemate"
            ),
            label=gettext_noop("Max pile draws"),
        ),
    )

    def lower_score_wins(self, options: dict | None) -> bool:
        return self.validate_options(options)["scoring"] == "penalty"

    def new(self, players: int = 2, seed: str = "", options: dict | None = None) -> BasicGame:
        self.validate_players(players)
        return BasicGame(self, players, seed, self.validate_options(options))

    def bot_action(self, game: BasicGame, seat: int, bot: str = "greedy") -> dict:
        self.validate_bot(bot)
        if not isinstance(game, BasicGame):
            raise ValueError(f"game must be a basic game, got {type(game).__name__}")
        check_seat(seat, game.players, allow_none=False)
        if game.to_move != seat:
            raise ValueError(f"it is not seat {seat}'s turn")
        return basic_bots.BOTS[bot](game, seat)


VARIANT = register(BasicVariant())
