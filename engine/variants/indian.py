"""Indian 13-card Rummy for 2-6 players: two decks, printed and cut jokers, declarations.

Rules from issue 4 and the seeds (../shared/seeds/002_1a0ececae27e13bb.txt,
003_58e7c7fd04d4c1b8.txt); the choices made where they are silent are in engine/README.md.
The engine checks every declaration itself and scores the other hands by its own best
grouping, so a client's grouping is never trusted.
"""

from __future__ import annotations

from engine import fair
from engine.cards import RANKS, Card
from engine.errors import IllegalAction
from engine.melds import INDIAN_POINTS, INF, PURE_AND_TWO_RUNS, Search, classify
from engine.variants import indian_bots, register
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

HAND_SIZE = 13
#: Issue 4: "others score their ungrouped cards' value, capped at 80" and "A wrong
#: declaration costs the declarer 80."
MAX_PENALTY = 80
#: What a first drop (before the seat's first draw) and a middle drop cost, per format, as
#: the big sites publish them (engine/README.md): 20/40 in Points and Pool 101, and
#: GoRummy: "Pool Rummy 201: First drop player scores 25 points, Middle drop player scores
#: 50" (JungleeRummy's table agrees). The options `first_drop`/`middle_drop` override them.
DROPS = {"points": (20, 40), "pool101": (20, 40), "pool201": (25, 50), "deals": (20, 40)}
#: The open deck is turned into a new stock at most this often per deal; the next time the
#: stock runs out the deal is a stalemate, so every deal ends (engine/README.md).
MAX_RESHUFFLES = 3
POOL_LIMITS = {"pool101": 101, "pool201": 201}
_ACTION_KEYS = {
    "draw": frozenset({"type", "source"}),
    "drop": frozenset({"type"}),
    "discard": frozenset({"type", "card"}),
    "declare": frozenset({"type", "card", "groups"}),
}
_STAT_KEYS = ("hands_won", "declarations", "wrong_declarations", "drops")


def search(hand: list[Card], wild_rank: int) -> Search:
    return Search(hand, wild_rank=wild_rank, ace_high=True, points=INDIAN_POINTS)


def hand_points(hand: list[Card], wild_rank: int) -> int:
    return sum(0 if c.is_joker or c.rank == wild_rank else INDIAN_POINTS[c.rank] for c in hand)


#: Option ``loser_grouping``: which losing hands get credit for their groups.
TWO_SEQUENCES = "two_sequences"
PURE_RUN = "pure_run"


def penalty(hand: list[Card], wild_rank: int, rule: str = TWO_SEQUENCES) -> int:
    """A loser's points, capped at 80; jokers count 0.

    ``two_sequences`` (default, issue 17): only a hand that holds two sequences, one of them
    pure, scores just its ungrouped cards under the engine's best such grouping; any other
    hand counts every card. Published points tables, e.g. nexgenplaytech.com/home/faq: "Even
    if a player has valid groups but does not meet the basic requirement of two sequences
    (First Life and Second Life), all the 13 cards are counted as unmatched."

    ``pure_run`` (issue 4's rule, an option): "others score their ungrouped cards' value,
    capped at 80; a player with no pure run scores all cards up to 80"."""
    s = search(hand, wild_rank)
    costs = s.costs(*s.mask_of(hand))
    best = costs[PURE_AND_TWO_RUNS] if rule == TWO_SEQUENCES else min(costs[3:])
    return min(MAX_PENALTY, hand_points(hand, wild_rank) if best >= INF else best)


def readings(options: dict | None) -> dict:
    """The site-dependent readings of a group the options choose (engine/README.md)."""
    options = options or {}
    return {
        "five_card_sets": options.get("five_card_sets", False),
        "joker_groups": options.get("joker_groups", False),
    }


def check_declaration(
    groups: list[list[Card]], wild_rank: int, options: dict | None = None
) -> str | None:
    """None for a valid declaration, else why not. Issue 4: "A declaration is valid only
    with at least two runs, at least one of them pure (no joker), all 13 cards grouped."."""
    kinds = []
    for group in groups:
        meld = classify(group, wild_rank=wild_rank, ace_high=True, **readings(options))
        if meld is None:
            return f"{' '.join(c.text for c in group)} is neither a run nor a set"
        kinds.append(meld)
    runs = [m for m in kinds if m.kind == "run"]
    if len(runs) < 2:
        return "a declaration needs at least two runs"
    if not any(m.pure for m in runs):
        return "a declaration needs a pure run (a run without jokers)"
    return None


def declaration(
    hand: list[Card], wild_rank: int, s: Search | None = None
) -> list[list[Card]] | None:
    """A valid grouping of these 13 cards, or None: the engine's own search."""
    s = s or search(hand, wild_rank)
    mask, jokers = s.mask_of(hand)
    if s.costs(mask, jokers)[PURE_AND_TWO_RUNS]:
        return None
    groups, loose = s.arrangement(mask, jokers, PURE_AND_TWO_RUNS)
    if loose:
        # Spare jokers join a run, never the only pure one: an impure run if there is one.
        metas = [classify(g, wild_rank=wild_rank, ace_high=True) for g in groups]
        runs = [i for i, m in enumerate(metas) if m.kind == "run"]
        impure = [i for i in runs if not metas[i].pure]
        groups[(impure or runs)[-1]].extend(loose)
    return groups


def drop_costs(options: dict, table: dict = DROPS) -> tuple[int, int]:
    """(first drop, middle drop) points: the options' own, else the format's published."""
    first, middle = table[options["format"]]
    return options.get("first_drop") or first, options.get("middle_drop") or middle


def _line(seat: int, code: str, label: str, points: int) -> dict:
    return {"seat": seat, "code": code, "label": label, "points": points}


class IndianGame(TableGame):
    """An Indian Rummy match in one of four formats. ``status`` per seat in the deal:
    "playing", "dropped", "wrong" (a wrong declaration) or "out" (eliminated from a pool)."""

    action_keys = _ACTION_KEYS
    #: Cards per hand and decks; 21-card Indian (`indian21`) overrides them and the hooks
    #: `_lay_out`, `_search`, `_declaration`, `_check`, `_score_loser` and `_settle_values`.
    hand_size = HAND_SIZE
    decks = 2
    drops = DROPS

    def __init__(self, variant: IndianVariant, players: int, seed: str, options: dict) -> None:
        fair.commitment(seed)  # validates the seed
        self.variant = variant
        self.players = players
        self._seed = seed
        self.options = options
        self.seq = 0
        self._moves: list[tuple[int, dict]] = []
        self.scores = [0] * players
        self.stats = [dict.fromkeys(_STAT_KEYS, 0) for _ in range(players)]
        self.eliminated: list[int | None] = [None] * players
        self.hand_number = 0
        self.dealer = players - 1  # so seat 0 plays first in deal 1
        self.last_hand: dict | None = None
        self.over = False
        self.result: dict | None = None
        self._deal()

    # ------------------------------------------------------------------ state changes

    def _next(self, seat: int, statuses=("playing",)) -> int:
        n = self.players
        for k in range(1, n + 1):
            if self.status[(seat + k) % n] in statuses:
                return (seat + k) % n
        raise AssertionError("no seat left to move")  # pragma: no cover - callers check

    def _deal(self) -> None:
        """13 cards each, one at a time from the dealer's left; then the cut joker, then the
        first card of the open (discard) pile; the rest is the closed stock."""
        self.hand_number += 1
        n = self.players
        self.status = ["out" if self.eliminated[s] is not None else "playing" for s in range(n)]
        if self.hand_number > 1:
            self.dealer = self._next(self.dealer, ("playing",))
        first = self._next(self.dealer)
        order = [(first + k) % n for k in range(n) if self.status[(first + k) % n] == "playing"]
        deck = fair.shuffled_deck(
            self._seed, self.hand_number, decks=self.decks, jokers=self.options["jokers"]
        )
        hands: list[list[Card]] = [[] for _ in range(n)]
        dealt = self.hand_size * len(order)
        for i in range(dealt):
            hands[order[i % len(order)]].append(deck[i])
        self.hands = [sorted(h, key=sort_key) for h in hands]
        self._lay_out(deck, dealt)
        self.deal_points = [0] * n
        self.has_drawn = [False] * n
        self.taken: Card | None = None
        self.pile_draws = 0
        self.reshuffles = 0
        self.phase = "draw"
        self.to_move = first

    def _lay_out(self, deck: list[Card], dealt: int) -> None:
        # Issue 4: "after the deal a wild-joker rank is drawn from the stock (the cut joker)";
        # a printed joker cut makes aces wild (the common convention).
        self.cut = deck[dealt]
        self.wild_rank = self.cut.rank or 1
        self.discard = [deck[dealt + 1]]
        self.stock = deck[: dealt + 1 : -1]

    def _search(self, hand: list[Card]) -> Search:
        return search(hand, self.wild_rank)

    def _declaration(self, rest: list[Card], s: Search) -> list[list[Card]] | None:
        return declaration(rest, self.wild_rank, s)

    def _check(self, groups: list[list[Card]]) -> str | None:
        return check_declaration(groups, self.wild_rank, self.options)

    def _wrong_cost(self) -> int:
        return MAX_PENALTY

    def _end_turn(self, seat: int) -> None:
        self.taken = None
        if not self.stock:
            if self.reshuffles >= MAX_RESHUFFLES or len(self.discard) < 2:
                self._end_deal(None, "stalemate")
                return
            self.reshuffles += 1
            top = self.discard[-1]
            label = f"hand:{self.hand_number}:reshuffle:{self.reshuffles}"
            self.stock = fair.shuffle(self.discard[:-1], self._seed, label)
            self.discard = [top]
        self.to_move = self._next(seat)
        self.phase = "draw"

    def _end_by_pile_limit(self) -> None:
        self._end_deal(None, "pile_limit")

    def _leave(self, seat: int, status: str, points: int) -> None:
        """A seat drops or declares wrongly: it is out of this deal with ``points``."""
        self.status[seat] = status
        self.deal_points[seat] = points
        self.taken = None
        playing = [s for s in range(self.players) if self.status[s] == "playing"]
        if len(playing) == 1:
            self._end_deal(playing[0], "last_left")
            return
        self.to_move = self._next(seat)
        self.phase = "draw"

    def _score_loser(self, s: int, kind: str, breakdown: list[dict]) -> dict:
        """A seat still playing when another ends the deal: its points (on a declaration)
        and breakdown lines; answers the grouping shown for it."""
        w = self.wild_rank
        if kind == "declared":
            self.deal_points[s] = penalty(self.hands[s], w, self.options["loser_grouping"])
        best = search(self.hands[s], w)
        mask, jokers = best.mask_of(self.hands[s])
        costs = best.costs(mask, jokers)
        pure = min(costs[3:])
        if kind == "declared":
            # The same rule as `penalty`, shown: what the hand is credited with, if anything.
            two_sequences = self.options["loser_grouping"] == TWO_SEQUENCES
            credited = costs[PURE_AND_TWO_RUNS] if two_sequences else pure
            if credited < INF:
                raw, label = credited, "ungrouped cards"
            elif two_sequences:
                raw = hand_points(self.hands[s], w)
                label = "no two sequences (one pure): every card counts"
            else:
                raw, label = hand_points(self.hands[s], w), "no pure run: every card counts"
            breakdown.append(_line(s, "cards", label, raw))
            if raw > MAX_PENALTY:
                cap = f"capped at {MAX_PENALTY}"
                breakdown.append(_line(s, "cap", cap, MAX_PENALTY - raw))
        flag = 3 + costs[3:].index(pure) if pure < INF else costs.index(min(costs))
        if self.options["loser_grouping"] == TWO_SEQUENCES and costs[PURE_AND_TWO_RUNS] < INF:
            flag = PURE_AND_TWO_RUNS
        found, loose = best.arrangement(mask, jokers, flag)
        return {"groups": [texts(g) for g in found], "ungrouped": texts(loose)}

    def _settle_values(self, breakdown: list[dict]) -> None:
        """Bonuses exchanged between seats once a deal has a winner (none in 13 cards)."""

    def _end_deal(self, winner: int | None, kind: str, shown: list | None = None) -> None:
        groups: list = [None] * self.players
        # How each seat's points for the deal add up, line by line (they sum to its points).
        breakdown: list[dict] = []
        for s in range(self.players):
            if self.status[s] == "dropped":
                # A dropped seat draws no more: having drawn means it dropped after drawing.
                label = "dropped after drawing" if self.has_drawn[s] else "dropped before drawing"
                breakdown.append(_line(s, "drop", label, self.deal_points[s]))
            elif self.status[s] == "wrong":
                cost = self._wrong_cost()
                breakdown.append(_line(s, "wrong_declaration", "wrong declaration", cost))
            elif s == winner:
                label = "declared" if kind == "declared" else "last one playing"
                breakdown.append(_line(s, kind, label, 0))
            elif self.status[s] == "playing" and kind != "declared":
                breakdown.append(_line(s, kind, "no winner this deal", 0))
        for s in range(self.players):
            if self.status[s] != "playing" or s == winner:
                continue
            groups[s] = self._score_loser(s, kind, breakdown)
        if shown is not None:
            groups[winner] = {"groups": [texts(g) for g in shown], "ungrouped": []}
        if winner is not None:
            self.stats[winner]["hands_won"] += 1
            self._settle_values(breakdown)
        for s in range(self.players):
            self.scores[s] += self.deal_points[s]
        self.last_hand = {
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "kind": kind,
            "winner": winner,
            "cut_joker": self.cut.text,
            "wild_rank": RANKS[self.wild_rank - 1],
            "status": list(self.status),
            "hands": [texts(h) for h in self.hands],
            "groups": groups,
            "points": list(self.deal_points),
            "breakdown": sorted(breakdown, key=lambda line: line["seat"]),
            "scores": list(self.scores),
        }
        self.taken = None
        fmt = self.options["format"]
        if fmt in POOL_LIMITS:
            # Issue 4: "players are out when they reach the limit; the last one left wins".
            for s in range(self.players):
                if self.eliminated[s] is None and self.scores[s] >= POOL_LIMITS[fmt]:
                    self.eliminated[s] = self.hand_number
            if sum(e is None for e in self.eliminated) <= 1:
                self._finish()
                return
        elif fmt == "points" or self.hand_number >= self.options["deals"]:
            self._finish()
            return
        self._deal()

    def _finish(self) -> None:
        scores = self.scores
        if self.options["format"] in POOL_LIMITS:
            # Survivors first, then later eliminations, then fewer points.
            keys = [(-(e or 10**9), p) for e, p in zip(self.eliminated, scores, strict=True)]
            ranks = [1 + sum(1 for o in keys if o < k) for k in keys]
        else:
            ranks = placements(scores, lower_wins=True)
        firsts = [s for s in range(self.players) if ranks[s] == 1]
        self.over = True
        self.to_move = None
        self.phase = "over"
        self.result = {
            "winner": firsts[0] if len(firsts) == 1 else None,
            "scores": list(scores),
            "placements": ranks,
            "hands": self.hand_number,
            "format": self.options["format"],
            "lower_wins": True,
            "stats": [dict(s) for s in self.stats],
        }

    # ------------------------------------------------------------------ the public API

    @property
    def moves(self) -> list[dict]:
        return [{"seat": s, "action": copy_json(a)} for s, a in self._moves]

    def legal_actions(self, seat: int) -> list[dict]:
        """Draws and the drop; after drawing, every discard and, for each card whose discard
        leaves a valid hand, one declaration with the engine's grouping (any other grouping
        of the same 13 cards may be sent: it is checked, and a wrong one costs 80)."""
        check_seat(seat, self.players, allow_none=False)
        if self.over or seat != self.to_move:
            return []
        if self.phase == "draw":
            out = [{"type": "draw", "source": "stock"}]
            if self.discard:
                out.append({"type": "draw", "source": "discard"})
            out.append({"type": "drop"})
            return out
        hand = self.hands[seat]
        choices = self.discard_choices(seat)
        out = [{"type": "discard", "card": c.text} for c in choices]
        s = self._search(hand)
        for c in choices:
            rest = [x for x in hand if x is not c]
            groups = self._declaration(rest, s)
            if groups is not None:
                out.append(
                    {"type": "declare", "card": c.text, "groups": [texts(g) for g in groups]}
                )
        return out

    def discard_choices(self, seat: int) -> list[Card]:
        """One card per text the seat may discard (not the card just taken from the pile)."""
        seen: dict[str, Card] = {}
        for c in self.hands[seat]:
            if c is not self.taken and c.text not in seen:
                seen[c.text] = c
        return list(seen.values())

    def _act(self, seat: int, kind: str, action: dict) -> None:
        if kind == "draw":
            self._draw(seat, action["source"])
        elif kind == "drop":
            self._drop(seat)
        elif kind == "discard":
            self._discard(seat, action["card"])
        else:
            self._declare(seat, action["card"], action["groups"])

    def _draw(self, seat: int, source) -> None:
        if self._take_drawn(seat, source) is not None:
            self.has_drawn[seat] = True
            self.phase = "discard"

    def _drop(self, seat: int) -> None:
        """A drop is made instead of drawing; it is a first drop before the seat's first
        draw of the deal, a middle drop after it (`drop_costs`)."""
        if self.phase != "draw":
            raise IllegalAction("wrong_phase", "you may drop only before drawing")
        self.stats[seat]["drops"] += 1
        first, middle = drop_costs(self.options, self.drops)
        self._leave(seat, "dropped", middle if self.has_drawn[seat] else first)

    def _card(self, seat: int, text) -> Card:
        if self.phase != "discard":
            raise IllegalAction("wrong_phase", "draw a card first")
        (c,) = take_from(self.hands[seat], [text], avoid=self.taken)
        if c is self.taken:
            raise IllegalAction(
                "cannot_discard_drawn_discard",
                f"{c.text} was just taken from the discard pile; discard another card",
            )
        return c

    def _discard(self, seat: int, text) -> None:
        c = self._card(seat, text)
        self.hands[seat] = [x for x in self.hands[seat] if x is not c]
        self.discard.append(c)
        self._end_turn(seat)

    def _declare(self, seat: int, text, groups) -> None:
        """The finishing card goes face down; the 13 others must be grouped exactly as sent.
        A grouping that breaks the rules is a wrong declaration: "A wrong declaration costs
        the declarer 80." (issue 4) and the seat is out of the deal."""
        c = self._card(seat, text)
        rest = [x for x in self.hands[seat] if x is not c]
        if type(groups) is not list or not all(type(g) is list and g for g in groups):
            raise IllegalAction("bad_groups", "groups must be a list of non-empty lists of cards")
        pool = list(rest)
        shown: list[list[Card]] = []
        for group in groups:
            try:
                cards = take_from(pool, group)
            except IllegalAction as err:
                raise IllegalAction(
                    "bad_groups", f"the groups must hold exactly your 13 other cards: {err.message}"
                ) from None
            pool = [x for x in pool if all(x is not y for y in cards)]
            shown.append(cards)
        if pool:
            raise IllegalAction(
                "bad_groups", f"the groups leave out {' '.join(texts(pool))}; group all 13 cards"
            )
        if self._check(shown) is not None:
            self.stats[seat]["wrong_declarations"] += 1
            self._leave(seat, "wrong", self._wrong_cost())
            return
        self.hands[seat] = rest
        self.discard.append(c)
        self.stats[seat]["declarations"] += 1
        self.deal_points[seat] = 0
        self._end_deal(seat, "declared", shown)

    def view(self, seat: int | None) -> dict:
        check_seat(seat, self.players, allow_none=True)
        return {
            "variant": self.variant.name,
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
            "reshuffles": self.reshuffles,
            "scores": list(self.scores),
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "melds": [],  # groups stay private until the show (see last_hand)
            "cut_joker": self.cut.text,
            "wild_rank": RANKS[self.wild_rank - 1],
            "status": list(self.status),
            "deal_points": list(self.deal_points),
            "eliminated": list(self.eliminated),
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
            self.cut,
            self.wild_rank,
            self.taken,
            self.pile_draws,
            self.reshuffles,
            tuple(self.status),
            tuple(self.deal_points),
            tuple(self.has_drawn),
            tuple(self.eliminated),
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


# The four formats and the deals' count, shared by 13 and 21 cards.
FORMAT = Choice(
    "format",
    str,
    "points",
    help=gettext_noop(
        "points: one deal; pool101/pool201: out at the limit, last left wins; "
        "deals: a fixed number of deals, lowest total wins"
    ),
    choices=("points", "pool101", "pool201", "deals"),
    label=gettext_noop("Format"),
)
DEALS = Option(
    "deals",
    int,
    2,
    1,
    20,
    gettext_noop("number of deals in the 'deals' format"),
    label=gettext_noop("Deals"),
)


# Readings of a group that differ between sites; off, a group is judged by the rules
# (engine/README.md). Shared by 13 and 21 cards.
FIVE_CARD_SETS = Option(
    "five_card_sets",
    bool,
    False,
    help=gettext_noop("a set of four suits may take a fifth, wild card"),
    label=gettext_noop("Five card sets"),
)
JOKER_GROUPS = Option(
    "joker_groups",
    bool,
    False,
    help=gettext_noop("three or more printed jokers alone are a set"),
    label=gettext_noop("Joker groups"),
)


class IndianVariant(Variant):
    """Indian 13-card Rummy: Points (one deal), Pool 101/201, or a fixed number of deals."""

    name = "indian"
    title = gettext_noop("Indian Rummy")
    min_players = 2
    max_players = 6
    bots = ("random", "greedy")
    options = (
        FORMAT,
        DEALS,
        # Seed 002: "two 52-card decks (104 cards) and 4 jokers (wild cards) are used".
        Option(
            "jokers",
            int,
            4,
            0,
            4,
            gettext_noop("printed jokers added to the two decks"),
            label=gettext_noop("Jokers"),
        ),
        Choice(
            "loser_grouping",
            str,
            TWO_SEQUENCES,
            help=gettext_noop(
                "two_sequences: a loser without two sequences (one pure) counts every card; "
                "pure_run: a pure run is enough for the groups to count as grouped"
            ),
            choices=(TWO_SEQUENCES, PURE_RUN),
            label=gettext_noop("Loser grouping"),
        ),
        FIVE_CARD_SETS,
        JOKER_GROUPS,
        Option(
            "first_drop",
            int,
            0,
            0,
            MAX_PENALTY,
            gettext_noop(
                "points for dropping before the first draw; 0 = the format's published count "
                "(20, or 25 in Pool 201)"
            ),
            label=gettext_noop("First drop"),
        ),
        Option(
            "middle_drop",
            int,
            0,
            0,
            MAX_PENALTY,
            gettext_noop(
                "points for dropping after drawing; 0 = the format's published count (40, or 50 "
                "in Pool 201)"
            ),
            label=gettext_noop("Middle drop"),
        ),
        Option(
            "max_pile_draws",
            int,
            104,
            1,
            1000,
            gettext_noop(
                "takes from the open pile per deal; one more ends the deal as a stalemate"
            ),
            label=gettext_noop("Max pile draws"),
        ),
    )

    def check_option_combination(self, options: dict) -> None:
        if options["format"] != "deals" and options["deals"] != 2:
            raise ValueError("option 'deals' applies only to format 'deals'")
        first, middle = drop_costs(options)
        if first > middle:
            raise ValueError(
                f"option 'first_drop' ({first}) cannot cost more than 'middle_drop' ({middle})"
            )

    def lower_score_wins(self, options: dict | None) -> bool:
        return True

    def new(self, players: int = 2, seed: str = "", options: dict | None = None) -> IndianGame:
        self.validate_players(players)
        return IndianGame(self, players, seed, self.validate_options(options))

    def bot_action(self, game: IndianGame, seat: int, bot: str = "greedy") -> dict:
        self.validate_bot(bot)
        if not isinstance(game, IndianGame):
            raise ValueError(f"game must be an indian game, got {type(game).__name__}")
        check_seat(seat, game.players, allow_none=False)
        if game.to_move != seat:
            raise ValueError(f"it is not seat {seat}'s turn")
        return indian_bots.BOTS[bot](game, seat)


VARIANT = register(IndianVariant())
