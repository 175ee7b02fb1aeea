"""Indian 21-card Rummy's `expert` bot: it plays from what its seat can see.

It reads `game.view(seat)` (its own hand, the open pile, the cut joker, the value cards and
which card it just took) and the public move log of the deal (who took the open card, what
was discarded; never a stock card), and asks the game only its rules (is a grouping a valid
show). So shuffling the other hands or the stock, or changing the seed, never changes its
move (tests/engine/test_indian21_bots.py proves it). No random numbers: the same state
gives the same move. engine/README.md ("Bots (`indian21_bots.py`)") gives the design and
the measurements.
"""

from __future__ import annotations

from collections import Counter, OrderedDict

from engine.cards import JOKER_TEXT, Card, card, parse
from engine.melds import INDIAN_POINTS, INF, THREE_PURE, Search

#: One ungrouped natural costs this much plus its points, so one search answers both "how
#: many cards are still loose" (the race to a declaration) and "how many points" (the
#: count if the other seat declares first).
UNIT = 1000
_POINTS = (0, *(UNIT + p for p in INDIAN_POINTS[1:]))
#: What each missing pure sequence adds to the loose-card count: one and a half cards.
TOLLS = (4 * UNIT + UNIT // 2, 3 * UNIT, UNIT + UNIT // 2, 0)
#: The most a single natural costs in the search (a ten or a face card, or an ace).
_MOST = UNIT + max(INDIAN_POINTS)
#: Printed jokers the search may count: stand-ins take the copies no deal holds.
_JOKER_COPIES = 16
_CACHE_SIZE = 8
_RUN_REACH = 2


def _positions(rank: int) -> tuple[int, ...]:
    return (1, 14) if rank == 1 else (rank,)


class Hand:
    """A hand as the fast search sees it. A wild card that no card of its suit within two
    ranks could join in a pure sequence is read as a printed joker (a wild card does all a
    printed joker does), which removes the search's branching over which wild cards fill a
    group; a wild card that could still stand for itself in a pure sequence stays as it is.
    Which shapes (0-3 pure sequences) a hand can reach agrees with the exact search (checked
    by the tests); the count may now and then be a little higher, never lower."""

    def __init__(self, texts: tuple[str, ...], wild_rank: int, extra: frozenset) -> None:
        real = parse(list(texts), decks=3)
        jokers = sum(1 for c in real if c.is_joker)
        spare = [card(JOKER_TEXT, k) for k in range(jokers, _JOKER_COPIES)]
        self.real = real
        self.wild_rank = wild_rank
        self.extra = extra
        self.cards: list[Card] = []
        self.back: dict[Card, Card] = {}
        for c in real:
            if c.is_joker or not self.is_wild(c) or self._runnable(c) or not spare:
                self.cards.append(c)
                self.back[c] = c
            else:
                stand_in = spare.pop(0)
                self.cards.append(stand_in)
                self.back[stand_in] = c
        self.search = _OneWay(
            self.cards,
            wild_rank=wild_rank,
            ace_high=True,
            points=_POINTS,
            extra_wilds=extra,
            scheme="pure3",
        )
        self.mask, self.jokers = self.search.mask_of(self.cards)

    def is_wild(self, c: Card) -> bool:
        return c.is_joker or c.rank == self.wild_rank or (c.rank, c.suit) in self.extra

    def _runnable(self, w: Card) -> bool:
        """``w`` and cards of its suit held make three in a row (a pure sequence with ``w``
        standing for itself)."""
        held = set()
        for c in self.real:
            if c is not w and not c.is_joker and c.suit == w.suit:
                held.update(_positions(c.rank))
        for p in _positions(w.rank):
            for lo in (p - 2, p - 1, p):
                if all(q == p or q in held for q in (lo, lo + 1, lo + 2)):
                    return True
        return False

    def costs_without(self, i: int | None) -> tuple[int, ...]:
        """The search's costs of the hand without its card at index ``i`` (None: all)."""
        if i is None:
            return self.search.costs(self.mask, self.jokers)
        c = self.cards[i]
        if c.is_joker:
            return self.search.costs(self.mask, self.jokers - 1)
        return self.search.costs(self.mask ^ (1 << self.search.index[c]), self.jokers)

    def groups_with(self, flag: int) -> tuple[list[list[Card]], list[Card]]:
        """The groups and loose cards of the whole hand (real cards; loose jokers left out)."""
        groups, loose = self.search.arrangement(self.mask, self.jokers, flag)
        return groups, [self.back[x] for x in loose if not x.is_joker]

    def groups_without(self, i: int) -> tuple[list[list[Card]], list[Card]]:
        c = self.cards[i]
        if c.is_joker:
            mask, jokers = self.mask, self.jokers - 1
        else:
            mask, jokers = self.mask ^ (1 << self.search.index[c]), self.jokers
        groups, loose = self.search.arrangement(mask, jokers, THREE_PURE)
        # The search's printed jokers are interchangeable: hand back the real cards.
        standins = [self.back[x] for j, x in enumerate(self.cards) if x.is_joker and j != i]
        out = []
        for g in groups:
            out.append([self.back[x] if not x.is_joker else standins.pop() for x in g])
        loose = [self.back[x] if not x.is_joker else standins.pop() for x in loose]
        return out, loose


class _OneWay(Search):
    """The exact search with two shortcuts. A group short of printed jokers spends the wild
    cards in one fixed order (the last ones first) instead of trying every choice of them:
    far fewer states, at the price of sometimes missing a better spending. And three decks
    hold identical cards: a group that takes a later copy of a card while an earlier copy
    is still to place is skipped, since the same group with the earlier copy leaves an
    equivalent state (exact)."""

    def __init__(self, hand: list[Card], **kwargs) -> None:
        super().__init__(hand, **kwargs)
        first: dict[str, int] = {}
        earlier = [0] * len(self.cards)
        for j, c in enumerate(self.cards):
            # Identical cards sit next to each other in the search's order.
            if c.text in first:
                earlier[j] = ((1 << j) - 1) ^ ((1 << first[c.text]) - 1)
            else:
                first[c.text] = j
        self._earlier = [
            [(g, sum(earlier[j] for j in _members(g.members)) & ~g.members) for g in groups]
            for groups in self._by_low
        ]

    def _choices(self, i: int, mask: int, jokers: int):
        wild_mask = self.wild_mask
        for g, before in self._earlier[i]:
            members = g.members
            if members & mask != members or mask & before:
                continue
            need = g.jokers
            printed = min(need, jokers)
            need -= printed
            rest = mask ^ members
            if not need:
                yield g, rest, jokers - printed
                continue
            avail = rest & wild_mask
            if avail.bit_count() < need:
                continue
            for _ in range(need):
                top = 1 << (avail.bit_length() - 1)
                rest ^= top
                avail ^= top
            yield g, rest, jokers - printed


def _members(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


_HANDS: OrderedDict = OrderedDict()


def hand_of(texts: list[str], wild_rank: int, extra: frozenset) -> Hand:
    """The `Hand` of these cards, kept for the last few asked (a draw and the discard after
    it ask about the same 22 cards)."""
    key = (tuple(sorted(texts)), wild_rank, extra)
    found = _HANDS.get(key)
    if found is None:
        found = _HANDS[key] = Hand(key[0], wild_rank, extra)
        if len(_HANDS) > _CACHE_SIZE:
            _HANDS.popitem(last=False)
    else:
        _HANDS.move_to_end(key)
    return found


def metric(costs: tuple[int, ...]) -> int:
    """Loose cards (in UNITs, with tolls for missing pure sequences), then their points."""
    return min(c + t for c, t in zip(costs, TOLLS, strict=True) if c < INF)


def _rank_suit(text: str) -> tuple[int, str]:
    c = card(text)
    return c.rank, c.suit


class _Seat:
    """What the bot knows: its view, read once."""

    def __init__(self, game, seat: int) -> None:
        view = game.view(seat)
        self.game = game
        self.view = view
        self.wild_rank = _rank_suit(view["wild_rank"] + "S")[0]
        self.extra = frozenset(_rank_suit(t) for t in view["extra_wilds"])
        self.values = {_rank_suit(t) for t in view["value_cards"].values()}
        self.hand = list(view["hand"])
        self.discard = list(view["discard"])
        self.picks = _picks(game, seat, view)

    def is_wild(self, c: Card) -> bool:
        return c.is_joker or c.rank == self.wild_rank or (c.rank, c.suit) in self.extra

    def hand_of(self, texts: list[str]) -> Hand:
        return hand_of(texts, self.wild_rank, self.extra)

    def seen(self, h: Hand) -> Counter:
        """Copies in sight of each card text: held, in the open pile, or taken from it by
        another seat (three decks hold three of each)."""
        return Counter(c.text for c in h.real) + Counter(self.discard) + Counter(self.picks)

    def live(self, text: str, seen: Counter) -> int:
        return max(0, 3 - seen[text])

    def potential(self, c: Card, loose: list[Card], seen: Counter) -> int:
        """Unseen cards that would make a group of ``c`` and one other loose card: the
        third card of a pure sequence or of a set, counted by copies not in sight."""
        if self.is_wild(c):
            return 999
        out = 0
        for x in loose:
            if x is c or self.is_wild(x):
                continue
            if x.suit == c.suit:
                for lo in range(min(c.rank, x.rank) - 2, max(c.rank, x.rank) + 1):
                    window = {lo, lo + 1, lo + 2}
                    if {c.rank, x.rank} <= window and c.rank != x.rank and 1 <= lo <= 12:
                        (k,) = window - {c.rank, x.rank}
                        text = "A23456789TJQKA"[k - 1] + c.suit if k <= 14 else None
                        if text:
                            out += self.live(text, seen)
            elif x.rank == c.rank:
                for suit in "SHDC":
                    if suit not in (c.suit, x.suit):
                        out += self.live(c.text[0] + suit, seen)
            if x.text == c.text:
                out += self.live(c.text, seen)
        return out

    def could_group(self, c: Card, hand: list[Card]) -> bool:
        """Whether ``c`` could be in any group with cards of ``hand``: a wild card, or a
        natural with a card of its suit within two ranks, of its rank, or the same card."""
        if self.is_wild(c):
            return True
        for x in hand:
            if x.is_joker or self.is_wild(x):
                continue
            if x.rank == c.rank:
                return True
            if x.suit == c.suit and any(
                abs(p - q) <= _RUN_REACH for p in _positions(x.rank) for q in _positions(c.rank)
            ):
                return True
        return False

    def best_flag(self, costs: tuple[int, ...]) -> int:
        return min(range(len(costs)), key=lambda f: (costs[f] + TOLLS[f], -f))

    def discards(self, h: Hand, avoid: str | None) -> list[tuple[tuple, int, int]]:
        """(key, index, metric after) for the cards worth discarding, best first.

        The search's cost of a hand less one card is at least the whole hand's cost less
        that card's, with equality for a card the best grouping leaves loose; so while the
        best grouping leaves naturals loose, those are the discards that lower the measure
        most, and their measure needs no new search. Among them: the one fewest unseen cards
        would group (`potential`), then the highest in points. With nothing loose, the
        cards loose in the best grouping with three pure sequences and the fourth cards of
        longer groups are searched, and only if there are none, every card."""
        costs = h.costs_without(None)
        whole = metric(costs)
        groups, loose = h.groups_with(self.best_flag(costs))
        seen = self.seen(h)
        allowed = _allowed(h, avoid)
        loose_texts = {c.text for c in loose if not self.is_wild(c)}
        candidates = [i for i in allowed if h.real[i].text in loose_texts]
        searched = []
        if not candidates:
            spare = {c.text for g in groups if len(g) > 3 for c in g}
            if costs[THREE_PURE] < INF:
                spare |= {c.text for c in h.groups_with(THREE_PURE)[1]}
            searched = [i for i in allowed if h.real[i].text in spare] or allowed
        out = []
        for i in candidates or searched:
            c = h.real[i]
            points = 0 if self.is_wild(c) else INDIAN_POINTS[c.rank]
            m = whole - UNIT - points if candidates else metric(h.costs_without(i))
            valuable = self.is_wild(c) or (c.rank, c.suit) in self.values
            key = (m // UNIT, valuable, self.potential(c, loose, seen), m, -points, c.text)
            out.append((key, i, m))
        out.sort()
        return out


def _cost(me: _Seat, c: Card) -> int:
    """What a card costs in the search when loose."""
    return 0 if me.is_wild(c) else UNIT + INDIAN_POINTS[c.rank]


def _allowed(h: Hand, avoid: str | None) -> list[int]:
    """One index per card text the seat may discard (not the only copy of the card it just
    took from the open pile)."""
    counts = Counter(c.text for c in h.real)
    return [
        i
        for i, c in enumerate(h.real)
        if not (c.text == avoid and counts[c.text] == 1) and i == _first(h.real, c.text)
    ]


def _first(cards: list[Card], text: str) -> int:
    return next(i for i, c in enumerate(cards) if c.text == text)


def _picks(game, seat: int, view: dict) -> list[str]:
    """The cards the other seats took from the open pile this deal and still may hold, read
    from the public move log (draw sources and discards; never a stock card)."""
    pile: list[str | None] = [None]
    picks: list[str] = []
    for move in game.moves[getattr(game, "hand_start", 0) :]:
        action = move["action"]
        if action["type"] == "discard":
            pile.append(action["card"])
            if move["seat"] != seat and action["card"] in picks:
                picks.remove(action["card"])
        elif action["type"] == "draw" and action["source"] == "discard":
            top = pile.pop() if pile else None
            if not pile:
                pile.append(None)
            if top is not None and move["seat"] != seat:
                picks.append(top)
    return picks


def expert_bot(game, seat: int) -> dict:
    me = _Seat(game, seat)
    if me.view["phase"] == "draw":
        return _draw(me)
    return _discard(me)


def _draw(me: _Seat) -> dict:
    """The open card only when it groups a loose card (the measure's count of loose cards
    falls); a card that merely has fewer points is left for a blind draw, which may be a
    wild card."""
    stock = {"type": "draw", "source": "stock"}
    if not me.discard:
        return stock
    up = me.discard[-1]
    if not me.could_group(card(up), parse(me.hand, decks=3)):
        return stock
    h = me.hand_of([*me.hand, up])
    now = metric(h.costs_without(_first(h.real, up)))
    after = me.discards(h, avoid=up)[0][2]
    if after // UNIT < now // UNIT:
        return {"type": "draw", "source": "discard"}
    return stock


def _discard(me: _Seat) -> dict:
    """A declaration if one exists (an alternative, or three pure sequences with every
    other card grouped), else the best discard (`_Seat.discards`)."""
    h = me.hand_of(me.hand)
    avoid = me.view["taken_from_discard"]
    game = me.game
    allowed = _allowed(h, avoid)
    pure3 = h.costs_without(None)[THREE_PURE]
    # Without a card the cost is at least the whole hand's less that card's: only a card
    # costing at least what keeps the hand from a show can leave one, the loose one first.
    near = []
    if pure3 <= _MOST:
        first = {c.text for c in h.groups_with(THREE_PURE)[1]} if pure3 else set()
        near = [i for i in allowed if _cost(me, h.real[i]) >= pure3]
        near.sort(key=lambda i: h.real[i].text not in first)
    for i in near + [i for i in allowed if i not in near]:
        c = h.real[i]
        rest = [x for j, x in enumerate(h.real) if j != i]
        groups = game._alternative_groups(rest)
        if groups is None and i in near and h.costs_without(i)[THREE_PURE] == 0:
            groups, loose = h.groups_without(i)
            if loose and not game._attach(groups, loose):
                groups = None
        if groups is not None and game._check(groups) is None:
            shown = [[x.text for x in g] for g in groups]
            return {"type": "declare", "card": c.text, "groups": shown}
    return {"type": "discard", "card": h.real[me.discards(h, avoid)[0][1]].text}
