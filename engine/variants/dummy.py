"""Dummy (contract) rummy for 2-4 players: twelve contracts, wild twos and jokers, cut-ins.

Rules quoted from seed 003 (../shared/seeds/003_58e7c7fd04d4c1b8.txt) and issue 17; the
choices made where the seed is silent or garbled are in engine/README.md ("Dummy Rummy").

Cut-ins are the engine's first actions out of turn. While the seat to move has not drawn, the
top of the discard pile is *offered*: other seats may ``claim`` it (the claim window). The
window closes with the mover's draw: taking the pile themselves voids every claim; drawing
from the stock first gives the card, with penalty cards from the stock, to the claimant
nearest the mover's left. Claims are moves in the log like any other, so replay is exact.
"""

from __future__ import annotations

from engine import fair
from engine.cards import Card
from engine.contracts import (
    CONTRACTS,
    RUN,
    hand_value,
    is_wild,
    lay_down,
    meld_ok,
    run_window,
)
from engine.contracts import describe as describe_contract
from engine.contracts import fits_contract as contract_problem
from engine.errors import IllegalAction
from engine.variants import dummy_bots, register
from engine.variants.base import Game, Option, Variant, gettext_noop
from engine.variants.table import (
    Choice,
    check_action,
    check_seat,
    copy_json,
    sort_key,
    take_from,
    texts,
)

#: Seed 003: "Each player is dealt thirteen cards."
HAND_SIZE = 13
#: Seed 003: "two standard decks of cards, including four jokers, for a total of 108 cards."
DECKS = 2
JOKERS = 4
_ACTION_KEYS = {
    "draw": frozenset({"type", "source"}),
    "claim": frozenset({"type"}),
    "meld": frozenset({"type", "groups"}),
    "layoff": frozenset({"type", "card", "meld"}),
    "discard": frozenset({"type", "card"}),
}
_STAT_KEYS = ("hands_won", "contracts", "cut_ins", "cards_laid_off")


def meld_order(kind: str, group: list[Card]) -> list[Card]:
    """How the table shows a meld: naturals by rank (runs: by position), wilds last."""
    naturals = [c for c in group if not is_wild(c)]
    wilds = sorted((c for c in group if is_wild(c)), key=sort_key)
    if kind == RUN:
        lo, hi = run_window(group)
        naturals.sort(key=lambda c: 14 if c.rank == 1 and hi == 14 and lo > 1 else c.rank)
    else:
        naturals.sort(key=sort_key)
    return naturals + wilds


class DummyGame(Game):
    """A Dummy rummy match. ``contract[s]`` is the 0-based contract seat ``s`` is on;
    ``down[s]`` says whether it is on the table this hand; ``claims`` are the seats that asked
    for the offered card in the current window, in the order they asked."""

    def __init__(self, variant: DummyVariant, players: int, seed: str, options: dict) -> None:
        fair.commitment(seed)  # validates the seed
        self.variant = variant
        self.players = players
        self._seed = seed
        self.options = options
        self.same_suit = options["run_suits"] == "same"
        self.seq = 0
        self._moves: list[tuple[int, dict]] = []
        self.scores = [0] * players
        self.contract = [0] * players
        self.stats = [dict.fromkeys(_STAT_KEYS, 0) for _ in range(players)]
        self.hand_number = 0
        self.dealer = players - 1  # so seat 0 plays first in hand 1
        self.last_hand: dict | None = None
        self.over = False
        self.result: dict | None = None
        self._deal()

    # ------------------------------------------------------------------ state changes

    def _deal(self) -> None:
        """Seed 003: "The player to the left of the dealer begins, and the turn to play
        continues clockwise"; issue 17: "dealt one at a time from the dealer's left; the deal
        passes clockwise". The next card starts the discard pile; the rest is the stock."""
        self.hand_number += 1
        n = self.players
        if self.hand_number > 1:
            self.dealer = (self.dealer + 1) % n
        first = (self.dealer + 1) % n
        deck = fair.shuffled_deck(self._seed, self.hand_number, decks=DECKS, jokers=JOKERS)
        hands: list[list[Card]] = [[] for _ in range(n)]
        for i in range(HAND_SIZE * n):
            hands[(first + i) % n].append(deck[i])
        self.hands = [sorted(h, key=sort_key) for h in hands]
        dealt = HAND_SIZE * n
        self.discard = [deck[dealt]]
        self.stock = deck[:dealt:-1]  # deck[dealt + 1] is on top (the end)
        self.table: list[dict] = []
        self.down = [False] * n
        self.cut_ins = [0] * n
        self.claims: list[int] = []
        self.discarder: int | None = None
        self.pile_draws = 0
        self.reshuffled = False
        self.phase = "draw"
        self.to_move = first

    def _end_turn(self, seat: int) -> None:
        self.claims = []
        self.discarder = seat
        if not self.stock:
            if self.reshuffled or len(self.discard) < 2:
                # Basic's rule (seed 002): "If the deck is depleted for a second time then
                # the hand is considered a stalemate".
                self._end_hand(None, "stock_exhausted")
                return
            top = self.discard[-1]
            label = f"hand:{self.hand_number}:reshuffle"
            self.stock = fair.shuffle(self.discard[:-1], self._seed, label)
            self.discard = [top]
            self.reshuffled = True
        self.to_move = (seat + 1) % self.players
        self.phase = "draw"

    def _end_hand(self, winner: int | None, kind: str) -> None:
        """Seed 003: "The player who went out counts nothing for this hand. The opponents
        count the total value of the cards remaining in their hand ... added to their running
        total." and "If a player is unable to complete the appointed hand, he must try again
        on the next hand." A stalemate scores nothing (Basic's rule)."""
        points = [0] * self.players
        if winner is not None:
            points = [0 if s == winner else hand_value(h) for s, h in enumerate(self.hands)]
            self.stats[winner]["hands_won"] += 1
        completed = []
        for s in range(self.players):
            self.scores[s] += points[s]
            if self.down[s]:
                completed.append(self.contract[s] + 1)
                self.contract[s] += 1
                self.stats[s]["contracts"] += 1
            else:
                completed.append(None)
        self.last_hand = {
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "kind": kind,
            "winner": winner,
            "points": points,
            "completed": completed,
            "hands": [texts(h) for h in self.hands],
            "melds": self._table_json(),
            "scores": list(self.scores),
        }
        self.claims = []
        done = any(c == len(CONTRACTS) for c in self.contract)
        if done or self.hand_number >= self.options["max_hands"]:
            self._finish()
        else:
            self._deal()

    def _finish(self) -> None:
        """Ranking (engine/README.md): seats that completed all twelve contracts first, then
        more contracts completed; among equals the lower total; equal keys share the place."""
        keys = [(-self.contract[s], self.scores[s]) for s in range(self.players)]
        ranks = [1 + sum(1 for o in keys if o < k) for k in keys]
        firsts = [s for s in range(self.players) if ranks[s] == 1]
        self.over = True
        self.to_move = None
        self.phase = "over"
        self.result = {
            "winner": firsts[0] if len(firsts) == 1 else None,
            "scores": list(self.scores),
            "contracts": list(self.contract),
            "placements": ranks,
            "hands": self.hand_number,
            "lower_wins": True,
            "stats": [dict(s) for s in self.stats],
        }

    # ------------------------------------------------------------------ claim window

    def window_open(self) -> bool:
        """The offered card can be claimed: cut-ins are on, the seat to move has not drawn."""
        return (
            self.options["cut_ins"]
            and not self.over
            and self.phase == "draw"
            and bool(self.discard)
        )

    def claim_problem(self, seat: int) -> tuple[str, str] | None:
        """Why ``seat`` may not claim now (code, message), or None when it may."""
        if not self.options["cut_ins"]:
            return "cut_ins_off", "cut-ins are off in this match"
        if not self.window_open():
            return "no_claim_window", "there is no card to claim now: the seat to move has drawn"
        if seat == self.to_move:
            return (
                "claim_on_your_turn",
                "it is your turn: take the card with a draw from the discard pile instead",
            )
        if seat == self.discarder:
            return "own_discard", "you discarded that card"
        if seat in self.claims:
            return "already_claimed", "you have asked for this card already"
        if self.down[seat]:
            return "contract_down", "your contract is down: you draw only from the stock"
        if self.cut_ins[seat] >= self.options["max_cut_ins"]:
            return "no_cut_ins_left", f"at most {self.options['max_cut_ins']} cut-ins a hand"
        if len(self.stock) < self.options["cut_in_penalty"] + 1:
            return "stock_too_small", "the stock cannot pay the penalty cards and the next draw"
        return None

    def claim_order(self) -> list[int]:
        """Seats in the order a claim wins: the nearest to the left of the seat to move first
        (issue 17: "the nearest asking seat to their left gets the discard")."""
        if self.to_move is None:
            return []
        return [(self.to_move + k) % self.players for k in range(1, self.players)]

    def out_of_turn_seats(self) -> list[int]:
        return [s for s in self.claim_order() if self.claim_problem(s) is None]

    def _claim(self, seat: int) -> None:
        """Seed 003: "When a player sees a card he or she likes then they can ask to cut in"."""
        problem = self.claim_problem(seat)
        if problem is not None:
            raise IllegalAction(*problem)
        self.claims.append(seat)

    def _resolve_claims(self) -> None:
        """The mover drew from the stock, so "allowed" the cut-in: the nearest claimant to
        their left takes the card and ``cut_in_penalty`` cards from the top of the stock."""
        if not self.claims:
            return
        buyer = next(s for s in self.claim_order() if s in self.claims)
        got = [self.discard.pop()]
        got += [self.stock.pop() for _ in range(self.options["cut_in_penalty"])]
        self.hands[buyer] = sorted(self.hands[buyer] + got, key=sort_key)
        self.cut_ins[buyer] += 1
        self.stats[buyer]["cut_ins"] += 1
        self.claims = []

    # ------------------------------------------------------------------ the public API

    @property
    def moves(self) -> list[dict]:
        return [{"seat": s, "action": copy_json(a)} for s, a in self._moves]

    def apply(self, action: dict, seat: int | None = None) -> None:
        """Validate everything first, then change state, so an illegal action changes nothing.
        A ``claim`` (or a resign) may come from any seat; every other action only from the
        seat to move."""
        if self._resigned(action, seat):
            return
        mover = self.to_move if seat is None else seat
        if seat is not None:
            check_seat(seat, self.players, allow_none=True)
        if self.over:
            raise IllegalAction("match_over", "the match is over")
        kind = check_action(action, _ACTION_KEYS)
        recorded = copy_json(action)
        number = self.hand_number
        if kind == "claim":
            self._claim(mover)
        else:
            if mover != self.to_move:
                raise IllegalAction(
                    "not_your_turn", f"it is seat {self.to_move}'s turn, not seat {mover}'s"
                )
            if kind == "draw":
                self._draw(mover, action["source"])
            elif kind == "meld":
                self._meld(mover, action["groups"])
            elif kind == "layoff":
                self._layoff(mover, action["card"], action["meld"])
            else:
                self._discard(mover, action["card"])
        self.seq += 1
        self._moves.append((mover, recorded))
        if self.hand_number != number:
            self.hand_start = self.seq

    def legal_actions(self, seat: int) -> list[dict]:
        """The seat to move: its draws; after drawing, one contract lay-down (the engine's
        grouping; any other valid grouping may be sent), every lay-off, every allowed discard.
        Any other seat: ``{"type": "claim"}`` while it may claim the offered card, else []."""
        check_seat(seat, self.players, allow_none=False)
        if self.over:
            return []
        if seat != self.to_move:
            return [{"type": "claim"}] if self.claim_problem(seat) is None else []
        if self.phase == "draw":
            out = [{"type": "draw", "source": "stock"}]
            if self.discard and not self.down[seat]:
                out.append({"type": "draw", "source": "discard"})
            return out
        hand = self.hands[seat]
        out: list[dict] = []
        if not self.down[seat]:
            groups = lay_down(hand, self.contract[seat], same_suit=self.same_suit)
            if groups is not None and sum(map(len, groups)) < len(hand):
                out.append({"type": "meld", "groups": [[c.text for c in g] for g in groups]})
        elif len(hand) > 1:
            seen = set()
            for c in hand:
                if c.text in seen:
                    continue
                seen.add(c.text)
                out.extend({"type": "layoff", "card": c.text, "meld": i} for i in self._fits(c))
        out.extend({"type": "discard", "card": t} for t in self._discardable(seat))
        return out

    def _fits(self, c: Card) -> list[int]:
        """Indexes of the table melds ``c`` could be added to."""
        return [
            i
            for i, m in enumerate(self.table)
            if meld_ok(m["kind"], [*m["cards"], c], same_suit=self.same_suit)
        ]

    def _discardable(self, seat: int) -> list[str]:
        """Seed 003: "a player may not discard a card if it creates a meld" (one that could be
        added to a meld on the table); when every card held could, any may go."""
        hand = self.hands[seat]
        allowed = sorted({c.text for c in hand if not self._fits(c)})
        return allowed or sorted({c.text for c in hand})

    def _draw(self, seat: int, source) -> None:
        """Seed 003: "If you want the top card of the discard pile, take it ... If you do not
        want the top card of the discard pile, take a face down card from the top of the
        undealt stock cards. If the player has already played their meld set, he must draw
        from the undealt stock cards." Cut-ins: "It is up to the player whose turn it is, to
        allow this or to take the card themselves"."""
        if self.phase != "draw":
            raise IllegalAction("wrong_phase", "you have drawn already this turn")
        if source == "stock":
            self._resolve_claims()
            c = self.stock.pop()
        elif source == "discard":
            if self.down[seat]:
                raise IllegalAction("must_draw_stock", "your contract is down: draw from the stock")
            if not self.discard:
                raise IllegalAction("empty_discard", "the discard pile is empty")
            if self.pile_draws == self.options["max_pile_draws"]:
                self._end_hand(None, "pile_limit")
                return
            self.pile_draws += 1
            self.claims = []
            c = self.discard.pop()
        else:
            raise IllegalAction(
                "bad_action", f"source must be 'stock' or 'discard', got {source!r}"
            )
        self.hands[seat] = sorted([*self.hands[seat], c], key=sort_key)
        self.phase = "play"

    def _in_play(self) -> None:
        if self.phase != "play":
            raise IllegalAction("wrong_phase", "draw a card first")

    def _meld(self, seat: int, groups) -> None:
        """Seed 003: "Once the player has drawn, he may place his meld set down if he is
        able." Groups come in the contract's order (its sets first). "He must always end his
        turn by discarding", so at least one card must stay in hand."""
        self._in_play()
        if self.down[seat]:
            raise IllegalAction(
                "contract_down",
                "your contract is down: on later turns you may only add to melds on the table",
            )
        if type(groups) is not list or not all(type(g) is list and g for g in groups):
            raise IllegalAction("bad_groups", "groups must be a list of non-empty lists of cards")
        pool = list(self.hands[seat])
        shown: list[list[Card]] = []
        for group in groups:
            got = take_from(pool, group)
            pool = [x for x in pool if all(x is not y for y in got)]
            shown.append(got)
        problem = contract_problem(shown, self.contract[seat], same_suit=self.same_suit)
        if problem is not None:
            raise IllegalAction(
                "not_the_contract",
                f"contract {self.contract[seat] + 1} is {describe_contract(self.contract[seat])}"
                f": {problem}",
            )
        if not pool:
            raise IllegalAction("must_keep_a_discard", "keep a card to discard")
        self.hands[seat] = pool
        for group, (kind, _) in zip(shown, CONTRACTS[self.contract[seat]], strict=True):
            self.table.append({"owner": seat, "kind": kind, "cards": meld_order(kind, group)})
        self.down[seat] = True

    def _layoff(self, seat: int, text, index) -> None:
        """Seed 003: "On subsequent turns, players may only add to existing melds ... He can,
        however, add to another players' melds." Only once the seat's own contract is down."""
        self._in_play()
        if not self.down[seat]:
            raise IllegalAction(
                "contract_not_down", "lay your contract down before adding to melds"
            )
        (c,) = take_from(self.hands[seat], [text])
        if type(index) is not int or not 0 <= index < len(self.table):
            raise IllegalAction("bad_meld_index", f"there is no meld {index!r} on the table")
        meld = self.table[index]
        if not meld_ok(meld["kind"], [*meld["cards"], c], same_suit=self.same_suit):
            raise IllegalAction(
                "cannot_lay_off",
                f"{c.text} does not extend meld {index} ({' '.join(map(str, meld['cards']))})",
            )
        if len(self.hands[seat]) == 1:
            raise IllegalAction("must_keep_a_discard", "keep a card to discard")
        self.hands[seat] = [x for x in self.hands[seat] if x is not c]
        meld["cards"] = meld_order(meld["kind"], [*meld["cards"], c])
        self.stats[seat]["cards_laid_off"] += 1

    def _discard(self, seat: int, text) -> None:
        """Seed 003: "The final part of each player's turn is to discard one card from his
        hand face up onto the discard pile." and "the play continues until one player manages
        to go out by getting rid of all the cards from their hand. He must always end his turn
        by discarding." """
        self._in_play()
        (c,) = take_from(self.hands[seat], [text])
        if c.text not in self._discardable(seat):
            raise IllegalAction(
                "discard_makes_meld",
                f"{c.text} could be added to a meld on the table, so it may not be discarded "
                "(seed 003: a player may not discard a card if it creates a meld)",
            )
        self.hands[seat] = [x for x in self.hands[seat] if x is not c]
        self.discard.append(c)
        if not self.hands[seat]:
            self._end_hand(seat, "out")
            return
        self._end_turn(seat)

    def _table_json(self) -> list[dict]:
        return [
            {"owner": m["owner"], "kind": m["kind"], "cards": [c.text for c in m["cards"]]}
            for m in self.table
        ]

    def view(self, seat: int | None) -> dict:
        check_seat(seat, self.players, allow_none=True)
        window = None
        if self.window_open():
            window = {
                "card": self.discard[-1].text,
                "claims": sorted(self.claims, key=self.claim_order().index),
                "may_claim": self.out_of_turn_seats(),
                "order": self.claim_order(),
            }
        return {
            "variant": "dummy",
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
            "contracts": [c + 1 if c < len(CONTRACTS) else None for c in self.contract],
            "contract_names": [
                describe_contract(c) if c < len(CONTRACTS) else None for c in self.contract
            ],
            "down": list(self.down),
            "cut_ins": list(self.cut_ins),
            "claim_window": window,
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "melds": self._table_json(),
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
            tuple(self.down),
            tuple(self.cut_ins),
            tuple(self.claims),
            self.discarder,
            self.pile_draws,
            self.reshuffled,
            self.phase,
            self.to_move,
            tuple(self.scores),
            tuple(self.contract),
            repr(self.stats),
            self.hand_number,
            self.dealer,
            repr(self.last_hand),
            self.over,
            repr(self.result),
        )


class DummyVariant(Variant):
    """Dummy rummy, 2-4 players, until a seat completes its twelfth contract."""

    name = "dummy"
    title = gettext_noop("Dummy Rummy")
    min_players = 2
    max_players = 4
    bots = ("random", "greedy", "planner")
    options = (
        Option(
            "cut_ins",
            bool,
            True,
            help=gettext_noop("other seats may claim (buy) the offered discard"),
            label=gettext_noop("Cut ins"),
        ),
        Option(
            "cut_in_penalty",
            int,
            2,
            0,
            3,
            gettext_noop("stock cards a cut-in takes besides the discard"),
            label=gettext_noop("Cut in penalty"),
        ),
        Option(
            "max_cut_ins",
            int,
            2,
            0,
            10,
            gettext_noop("cut-ins per seat per hand"),
            label=gettext_noop("Max cut ins"),
        ),
        Choice(
            "run_suits",
            str,
            "any",
            help=gettext_noop(
                "any: a run's suits may mix (the seed's text); same: one suit per run"
            ),
            choices=("any", "same"),
            label=gettext_noop("Run suits"),
        ),
        Option(
            "max_hands",
            int,
            48,
            12,
            500,
            gettext_noop(
                "the match ends after this many hands even if nobody completed the twelfth contract"
            ),
            label=gettext_noop("Max hands"),
        ),
        Option(
            "max_pile_draws",
            int,
            108,
            1,
            1000,
            gettext_noop(
                "takes from the discard pile per hand; one more ends the hand as a stalemate"
            ),
            label=gettext_noop("Max pile draws"),
        ),
    )

    def lower_score_wins(self, options: dict | None) -> bool:
        return True

    def new(self, players: int = 2, seed: str = "", options: dict | None = None) -> DummyGame:
        self.validate_players(players)
        return DummyGame(self, players, seed, self.validate_options(options))

    def _check(self, game, seat: int, bot: str) -> None:
        self.validate_bot(bot)
        if not isinstance(game, DummyGame):
            raise ValueError(f"game must be a dummy game, got {type(game).__name__}")
        check_seat(seat, game.players, allow_none=False)

    def bot_action(self, game: DummyGame, seat: int, bot: str = "greedy") -> dict:
        self._check(game, seat, bot)
        if game.to_move != seat:
            raise ValueError(f"it is not seat {seat}'s turn")
        return dummy_bots.BOTS[bot](game, seat)

    def bot_out_of_turn(self, game: DummyGame, seat: int, bot: str = "greedy") -> dict | None:
        self._check(game, seat, bot)
        if game.claim_problem(seat) is not None:
            return None
        return {"type": "claim"} if dummy_bots.CLAIMS[bot](game, seat) else None


VARIANT = register(DummyVariant())
