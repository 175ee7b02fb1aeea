"""Indian 21-card Rummy ("Indian Marriage") for 2-6 players: three decks, value cards.

The rule set is ClassicRummy's published "21 Cards Rummy" (classicrummy.com/21-cards-rummy,
the text JungleeRummy also publishes for its 21-card tables); engine/README.md quotes each
rule and lists the choices made where it is silent. The 13-card engine (`indian`) does the
turns, drops, formats and wrong shows; this module changes the deal, the jokers, what a
declaration needs, the losers' count and the value-card exchange.
"""

from __future__ import annotations

from collections import Counter

from engine.cards import RANKS, Card, card
from engine.melds import INDIAN_POINTS, INF, THREE_PURE, Search, classify
from engine.variants import indian21_bots, register
from engine.variants.base import Option, gettext_noop
from engine.variants.indian import (
    DEALS,
    FIVE_CARD_SETS,
    FORMAT,
    JOKER_GROUPS,
    IndianGame,
    IndianVariant,
    _line,
    drop_costs,
    readings,
)
from engine.variants.table import check_seat, texts

HAND_SIZE = 21
DECKS = 3
#: "3 standard decks of 53 cards each, which include one printed Joker per deck".
PRINTED_JOKERS = 3
#: "In case a player makes a wrong show, then the player will lose 120 points"; the same
#: 120 caps a loser's count (engine/README.md).
MAX_POINTS = 120
#: "a middle drop score of 70 points"; a first drop costs 30 (engine/README.md).
DROPS = {"points": (30, 70), "pool101": (30, 70), "pool201": (30, 70), "deals": (30, 70)}
#: Value cards held: "Single Card 10, Two Cards 30, Three Cards 50" per kind.
VALUE_POINTS = (0, 10, 30, 50)
#: "a Marriage ... will get 100 points from each of the players ... two or three Marriages,
#: then he or she gets 300 and 500 points".
MARRIAGE_POINTS = (0, 100, 300, 500)
#: "A player having six Dublees in hand ... when another player declares, will lose only 2
#: points."
SIX_DUBLEES, SIX_DUBLEES_POINTS = 6, 2
VALUE_KINDS = ("joker", "upper", "lower")


def _up(rank: int) -> int:
    return rank % 13 + 1


def _down(rank: int) -> int:
    return (rank - 2) % 13 + 1


def value_cards(cut: Card) -> dict[str, tuple[int, str]]:
    """(rank, suit) of the same-suit joker and the upper and lower jokers. "If a Printed
    Joker is selected as the Wild Joker, then Ace of Spades becomes the Cut Joker"; an ace
    cut has the 2 above and the king below it."""
    cut = card("AS") if cut.is_joker else cut
    return {
        "joker": (cut.rank, cut.suit),
        "upper": (_up(cut.rank), cut.suit),
        "lower": (_down(cut.rank), cut.suit),
    }


def value_text(rank_suit: tuple[int, str]) -> str:
    return RANKS[rank_suit[0] - 1] + rank_suit[1]


def hand_value(hand: list[Card], values: dict[str, tuple[int, str]], marriage: bool) -> int:
    """The points a hand's value cards earn from each other seat: per kind 10/30/50 for one,
    two or three; a same-suit joker with an upper and a lower joker is a marriage (100, two
    300, three 500) instead of their single values."""
    counts = {k: sum(1 for c in hand if (c.rank, c.suit) == rs) for k, rs in values.items()}
    marriages = min(counts.values()) if marriage else 0
    rest = sum(VALUE_POINTS[min(3, n - marriages)] for n in counts.values())
    return MARRIAGE_POINTS[marriages] + rest


def dublees(hand: list[Card]) -> int:
    """How many pairs of identical cards a hand holds ("Two printed jokers can be clustered
    together to form a valid Dublee")."""
    return sum(n // 2 for n in Counter(c.text for c in hand).values())


def is_tunnela(group: list[Card]) -> bool:
    """ "A Tunnela (or London) is composed of three matching cards" (three printed jokers
    too); a joker beside two identical cards is none."""
    return len(group) == 3 and len({c.text for c in group}) == 1


def is_dublee(group: list[Card]) -> bool:
    return len(group) == 2 and group[0].text == group[1].text


class Indian21Game(IndianGame):
    """A 21-card match; everything not named here plays as `IndianGame`."""

    hand_size = HAND_SIZE
    decks = DECKS
    drops = DROPS

    def _lay_out(self, deck: list[Card], dealt: int) -> None:
        """The cut joker is shown and goes to the bottom of the stock, so all three copies
        of it stay in play (a third marriage needs the third); the next card opens the pile."""
        self._set_cut(deck[dealt])
        self.discard = [deck[dealt + 1]]
        self.stock = [self.cut, *deck[: dealt + 1 : -1]]

    def _set_cut(self, cut: Card) -> None:
        self.cut = cut
        self.wild_rank = self.cut.rank or 1
        self.values = value_cards(self.cut)
        wild_values = self.options["value_cards_wild"]
        self.extra_wilds = frozenset(
            (self.values["upper"], self.values["lower"]) if wild_values else ()
        )

    def is_wild(self, c: Card) -> bool:
        return c.is_joker or c.rank == self.wild_rank or (c.rank, c.suit) in self.extra_wilds

    def _search(self, hand: list[Card]) -> Search:
        """The exact search over ``hand`` (tens to hundreds of ms for 22 cards), kept for the
        last few hands asked about: legal actions and the bots ask about one hand a turn."""
        key = (self.wild_rank, self.extra_wilds, tuple(sorted(c.code for c in hand)))
        cache = self.__dict__.setdefault("_searches", {})
        if key not in cache:
            if len(cache) >= 4:
                cache.pop(next(iter(cache)))
            cache[key] = self._new_search(hand)
        return cache[key]

    def __getstate__(self) -> dict:
        """The state without the searches kept: a server pickles the game after each move,
        and a search's memo is large and rebuilt on demand."""
        state = dict(self.__dict__)
        state.pop("_searches", None)
        return state

    def _new_search(self, hand: list[Card]) -> Search:
        return Search(
            hand,
            wild_rank=self.wild_rank,
            ace_high=True,
            points=INDIAN_POINTS,
            extra_wilds=self.extra_wilds,
            scheme="pure3",
        )

    def hand_points(self, hand: list[Card]) -> int:
        return sum(0 if self.is_wild(c) else INDIAN_POINTS[c.rank] for c in hand)

    def _classify(self, group: list[Card]):
        return classify(
            group,
            wild_rank=self.wild_rank,
            ace_high=True,
            extra_wilds=self.extra_wilds,
            **readings(self.options),
        )

    def alternative(self, groups: list[list[Card]]) -> str | None:
        """Which published alternative declaration these groups make, if any: "a minimum of
        three Tunnelas", "a minimum of eight Dublees", "eight jokers in a single group"; "In
        this case, players do not need to arrange the remaining cards"."""
        o = self.options
        if o["tunnela_show"] and sum(map(is_tunnela, groups)) >= o["tunnela_show"]:
            return "tunnelas"
        if o["dublee_show"] and sum(map(is_dublee, groups)) >= o["dublee_show"]:
            return "dublees"
        if o["joker_show"] and any(
            len(g) >= o["joker_show"] and all(map(self.is_wild, g)) for g in groups
        ):
            return "jokers"
        return None

    def _check(self, groups: list[list[Card]]) -> str | None:
        """None for a valid declaration. "Melding of three pure sequences along with the
        remaining cards melded into valid sequences and/or sets" ("A Tunnela is a pure
        sequence in 21 card rummy"), or one of the alternatives (`alternative`)."""
        if self.alternative(groups):
            return None
        pure = 0
        for group in groups:
            if is_tunnela(group):
                pure += 1
                continue
            meld = self._classify(group)
            if meld is None:
                return f"{' '.join(c.text for c in group)} is neither a sequence nor a set"
            pure += meld.kind == "run" and meld.pure
        if pure < THREE_PURE:
            return "a declaration needs three pure sequences (or a tunnela for one)"
        return None

    def legal_actions(self, seat: int) -> list[dict]:
        """As 13 cards; the search for declarations is skipped when no discard could leave
        one: a declaration after discarding c means the hand with c is at most c's points
        (10) from three pure sequences, and no alternative is in reach."""
        if self.phase == "discard" and seat == self.to_move and not self.over:
            hand = self.hands[seat]
            s = self._search(hand)
            far = s.costs(*s.mask_of(hand))[THREE_PURE] > max(INDIAN_POINTS)
            if far and self._alternative_groups(hand) is None:
                return [{"type": "discard", "card": c.text} for c in self.discard_choices(seat)]
        return super().legal_actions(seat)

    def _declaration(self, rest: list[Card], s: Search) -> list[list[Card]] | None:
        """A valid grouping of these 21 cards, or None: an alternative first (the dublees,
        the tunnelas, the jokers in one group, the rest in one more group), else the search's
        three pure sequences with the rest grouped."""
        alt = self._alternative_groups(rest)
        if alt is not None:
            return alt
        mask, jokers = s.mask_of(rest)
        if s.costs(mask, jokers)[THREE_PURE]:
            return None
        groups, loose = s.arrangement(mask, jokers, THREE_PURE)
        if loose and not self._attach(groups, loose):
            return None
        return groups if self._check(groups) is None else None

    def _attach(self, groups: list[list[Card]], loose: list[Card]) -> bool:
        """Spare wild cards join a group that stays valid without costing a needed pure
        sequence: an impure run, a set with room, a fourth pure run; else a new group."""
        for c in loose:
            metas = [(None if is_tunnela(g) else self._classify(g)) for g in groups]
            pure = sum(1 for g, m in zip(groups, metas, strict=True) if m is None or m.pure)
            order = [i for i, m in enumerate(metas) if m is not None and not m.pure]
            if pure > THREE_PURE:
                order += [i for i, m in enumerate(metas) if m is not None and m.pure]
            for i in order:
                if self._classify([*groups[i], c]) is not None:
                    groups[i].append(c)
                    break
            else:
                return False
        return True

    def _alternative_groups(self, rest: list[Card]) -> list[list[Card]] | None:
        o = self.options
        by_text: dict[str, list[Card]] = {}
        for c in rest:
            by_text.setdefault(c.text, []).append(c)
        groups: list[list[Card]] = []
        if o["dublee_show"] and dublees(rest) >= o["dublee_show"]:
            for same in by_text.values():
                groups += [same[i : i + 2] for i in range(0, len(same) - 1, 2)]
        elif o["tunnela_show"] and sum(len(v) // 3 for v in by_text.values()) >= o["tunnela_show"]:
            for same in by_text.values():
                groups += [same[i : i + 3] for i in range(0, len(same) - 2, 3)]
        elif o["joker_show"] and sum(map(self.is_wild, rest)) >= o["joker_show"]:
            groups = [[c for c in rest if self.is_wild(c)]]
        else:
            return None
        used = {id(c) for g in groups for c in g}
        others = [c for c in rest if id(c) not in used]
        return groups + ([others] if others else [])

    def _wrong_cost(self) -> int:
        return self.options["max_points"]

    def _score_loser(self, s: int, kind: str, breakdown: list[dict]) -> dict:
        """ "If 3 sequences are not made then the entire hand is counted" (jokers count 0),
        else the ungrouped cards; capped at `max_points`; six dublees count 2."""
        hand = self.hands[s]
        search = self._search(hand)
        mask, jokers = search.mask_of(hand)
        costs = search.costs(mask, jokers)
        cap = self.options["max_points"]
        if kind == "declared":
            if costs[THREE_PURE] < INF:
                raw, label = costs[THREE_PURE], "ungrouped cards"
            else:
                raw, label = self.hand_points(hand), "no three pure sequences: every card counts"
            breakdown.append(_line(s, "cards", label, raw))
            points = raw
            if points > cap:
                breakdown.append(_line(s, "cap", f"capped at {cap}", cap - points))
                points = cap
            six = self.options["six_dublees"] and dublees(hand) >= SIX_DUBLEES
            if six and points > SIX_DUBLEES_POINTS:
                label = f"six dublees: {SIX_DUBLEES_POINTS} points"
                breakdown.append(_line(s, "dublees", label, SIX_DUBLEES_POINTS - points))
                points = SIX_DUBLEES_POINTS
            self.deal_points[s] = points
        flag = max(f for f in range(len(costs)) if costs[f] == min(costs[f:]) < INF)
        found, loose = search.arrangement(mask, jokers, flag)
        return {"groups": [texts(g) for g in found], "ungrouped": texts(loose)}

    def _settle_values(self, breakdown: list[dict]) -> None:
        """ "each player who has not dropped from the game also gets positive points for
        having value cards and negative points for value cards that are held by other
        players who have not dropped": Knock's scores are penalty points, so what a seat
        receives is taken off its deal points and what it gives is added."""
        if not self.options["value_cards"]:
            return
        seats = [s for s in range(self.players) if self.status[s] in ("playing", "wrong")]
        worth = {s: hand_value(self.hands[s], self.values, self.options["marriage"]) for s in seats}
        total = sum(worth.values())
        for s in seats:
            received = worth[s] * (len(seats) - 1)
            given = total - worth[s]
            if received or given:
                label = f"value cards: {received} received, {given} given"
                breakdown.append(_line(s, "value_cards", label, given - received))
                self.deal_points[s] += given - received

    def view(self, seat: int | None) -> dict:
        out = super().view(seat)
        out["value_cards"] = {k: value_text(rs) for k, rs in self.values.items()}
        out["extra_wilds"] = sorted(value_text(rs) for rs in self.extra_wilds)
        return out

    def _snapshot(self) -> tuple:
        return (*super()._snapshot(), repr(self.values), repr(sorted(self.extra_wilds)))


def _points_option(name: str, default: int, what: str, label: str) -> Option:
    return Option(name, int, default, 0, MAX_POINTS, what, label)


class Indian21Variant(IndianVariant):
    """Indian 21-card Rummy, in the same four formats as 13 cards."""

    name = "indian21"
    title = gettext_noop("Indian 21-card Rummy")
    bots = ("random", "greedy", "expert")
    options = (
        FORMAT,
        DEALS,
        Option(
            "jokers",
            int,
            PRINTED_JOKERS,
            0,
            12,
            gettext_noop("printed jokers added to the three decks"),
            label=gettext_noop("Jokers"),
        ),
        Option(
            "max_points",
            int,
            MAX_POINTS,
            80,
            200,
            gettext_noop("a wrong show's cost and a loser's largest count"),
            label=gettext_noop("Max points"),
        ),
        Option(
            "value_cards",
            bool,
            True,
            help=gettext_noop("exchange points for value cards and marriages"),
            label=gettext_noop("Value cards"),
        ),
        Option(
            "marriage",
            bool,
            True,
            help=gettext_noop("joker, upper and lower joker of a suit: a marriage"),
            label=gettext_noop("Marriage"),
        ),
        Option(
            "value_cards_wild",
            bool,
            True,
            help=gettext_noop("the upper and lower jokers are wild cards too"),
            label=gettext_noop("Value cards wild"),
        ),
        Option(
            "tunnela_show",
            int,
            3,
            0,
            7,
            gettext_noop("tunnelas that make a declaration (0 = none)"),
            label=gettext_noop("Tunnela show"),
        ),
        Option(
            "dublee_show",
            int,
            8,
            0,
            10,
            gettext_noop("dublees that make a declaration (0 = none)"),
            label=gettext_noop("Dublee show"),
        ),
        Option(
            "joker_show",
            int,
            8,
            0,
            21,
            gettext_noop("jokers in one group that make a declaration (0 = none)"),
            label=gettext_noop("Joker show"),
        ),
        Option(
            "six_dublees",
            bool,
            True,
            help=gettext_noop("a loser holding six dublees counts 2 points"),
            label=gettext_noop("Six dublees"),
        ),
        FIVE_CARD_SETS,
        JOKER_GROUPS,
        _points_option(
            "first_drop",
            0,
            gettext_noop("points for dropping before the first draw; 0 = 30"),
            label=gettext_noop("First drop"),
        ),
        _points_option(
            "middle_drop",
            0,
            gettext_noop("points for dropping after drawing; 0 = 70"),
            label=gettext_noop("Middle drop"),
        ),
        Option(
            "max_pile_draws",
            int,
            156,
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
        first, middle = drop_costs(options, DROPS)
        if first > middle:
            raise ValueError(
                f"option 'first_drop' ({first}) cannot cost more than 'middle_drop' ({middle})"
            )
        if options["joker_show"] and options["joker_show"] < 3:
            raise ValueError("option 'joker_show' needs at least 3 jokers (or 0 for none)")

    def new(self, players: int = 2, seed: str = "", options: dict | None = None) -> Indian21Game:
        self.validate_players(players)
        return Indian21Game(self, players, seed, self.validate_options(options))

    def bot_action(self, game: Indian21Game, seat: int, bot: str = "greedy") -> dict:
        self.validate_bot(bot)
        if not isinstance(game, Indian21Game):
            raise ValueError(f"game must be an indian21 game, got {type(game).__name__}")
        check_seat(seat, game.players, allow_none=False)
        if game.to_move != seat:
            raise ValueError(f"it is not seat {seat}'s turn")
        return indian21_bots.BOTS[bot](game, seat)


VARIANT = register(Indian21Variant())
