"""Two-player Gin Rummy matches: dealing, turns, knocking, scoring to the target.

Rules quoted from the seed (../shared/seeds/000_4b7389886c5c600a.txt) where it speaks;
the choices made where it is silent are listed in engine/README.md.
"""

from __future__ import annotations

from engine import fair
from engine import gin as ev
from engine.errors import IllegalAction
from engine.variants import gin_bots, register
from engine.variants.base import Game, Option, Variant, gettext_noop

_BIT_TO_TEXT = {1 << c.code: c.text for c in ev.cards.STANDARD_DECK}
_TEXT_TO_BIT = {c.text: 1 << c.code for c in ev.cards.STANDARD_DECK}
_POINTS_OF_BIT = {1 << c.code: ev.POINTS[c.rank - 1] for c in ev.cards.STANDARD_DECK}
_DRAW_STOCK = {"type": "draw", "source": "stock"}
_DRAW_DISCARD = {"type": "draw", "source": "discard"}
_PASS = {"type": "pass"}
_BIG_GIN = {"type": "big_gin"}
_ACTION_KEYS = {
    "pass": frozenset({"type"}),
    "draw": frozenset({"type", "source"}),
    "discard": frozenset({"type", "card"}),
    "knock": frozenset({"type", "card"}),
    "big_gin": frozenset({"type"}),
}
_STAT_KEYS = ("hands_won", "knocks", "gins", "big_gins", "undercuts")


_bits = ev._bits


def _texts(mask: int) -> list[str]:
    return [_BIT_TO_TEXT[b] for b in _bits(mask)]


class GinGame(Game):
    """A Gin Rummy match. Hands are int masks (see `engine.gin`); the stock pops from the end."""

    def __init__(self, variant: GinVariant, seed: str, options: dict) -> None:
        fair.commitment(seed)  # validates the seed
        self.variant = variant
        self.players = 2
        self._seed = seed
        self.bot_stream = fair.Indexed(seed, "bot:random")
        self.options = options
        self.seq = 0
        self._moves: list[tuple[int, dict]] = []
        self.scores = [0, 0]
        self.stats = [dict.fromkeys(_STAT_KEYS, 0) for _ in range(2)]
        self.hand_number = 0
        self.hand_start = 0  # index in the move log of the current hand's first move
        self.last_hand: dict | None = None
        # Each seat's final total, line by line (hands, then any end-of-match bonuses); kept
        # beside `result` rather than in it, so stored results stay as they were.
        self.totals_breakdown: list[list[dict]] | None = None
        self.over = False
        self.result: dict | None = None
        self._deal()

    # ------------------------------------------------------------------ state changes

    def _deal(self) -> None:
        """Deal the next hand: "The dealer deals 10 cards to both players, and then places
        the next card in the deck face up. This begins the discard pile." (seed)"""
        self.hand_number += 1
        # Seat 1 deals first so seat 0 acts first; "Dealership alternates from round to round."
        self.dealer = self.hand_number % 2
        first = 1 - self.dealer
        deck = [1 << c.code for c in fair.shuffled_deck(self._seed, self.hand_number)]
        hands = [0, 0]
        for i in range(20):
            hands[first if i % 2 == 0 else self.dealer] |= deck[i]
        self.hands = hands
        upcard = deck[20]
        self.discard = [upcard]
        self.stock = deck[:20:-1]  # deck[21] is on top, i.e. at the end of the list
        self.known = [0, 0]
        self.taken = 0
        self.pile_draws = 0  # takes from the discard pile this hand, the first upcard included
        self.phase = "upcard"
        self.passes = 0
        self.to_move = first
        limit = self.options["knock_limit"]
        self.spades_double = False
        if self.options["oklahoma"]:
            # Oklahoma: the first upcard's value is the knock limit; an ace means gin only.
            value = _POINTS_OF_BIT[upcard]
            limit = min(limit, 0 if value == 1 else value)
            self.spades_double = self.options["oklahoma_spades_double"] and bool(
                upcard & ev.SUIT_MASK
            )
        self.knock_limit = limit

    def _end_hand(self, summary: dict) -> None:
        self.last_hand = summary
        winner = summary["winner"]
        if winner is not None and self.scores[winner] >= self.options["target"]:
            self._finish(winner)
        else:
            self._deal()

    def _finish(self, winner: int) -> None:
        """Totals with the optional end-of-match bonuses (all off by default, as in the seed)."""
        o = self.options
        totals = []
        lines: list[list[dict]] = [[], []]
        for s in range(2):
            lines[s].append(_line("hand_points", "Points from hands", self.scores[s]))
            won = self.stats[s]["hands_won"]
            total = self.scores[s] + o["line_bonus"] * won
            if o["line_bonus"] and won:
                lines[s].append(
                    _line(
                        "line_bonus",
                        f"Line bonus: {won} hands won at {o['line_bonus']} each",
                        o["line_bonus"] * won,
                    )
                )
            if s == winner:
                total += o["game_bonus"]
                if o["game_bonus"]:
                    lines[s].append(_line("game_bonus", "Game bonus", o["game_bonus"]))
            totals.append(total)
        if o["shutout_double"] and self.scores[1 - winner] == 0:
            lines[winner].append(
                _line("shutout_double", "Shutout: the total doubles", totals[winner])
            )
            totals[winner] *= 2
        self.totals_breakdown = lines
        self.over = True
        self.to_move = None
        self.phase = "over"
        placements = [1 if s == winner else 2 for s in range(2)]
        self.result = {
            "winner": winner,
            "scores": totals,
            "hand_points": list(self.scores),
            "placements": placements,
            "hands": self.hand_number,
            "stats": [dict(s) for s in self.stats],
        }

    # ------------------------------------------------------------------ the public API

    @property
    def moves(self) -> list[dict]:
        return [{"seat": s, "action": dict(a)} for s, a in self._moves]

    def _check_seat(self, seat, allow_none: bool) -> None:
        if seat is None and allow_none:
            return
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 2:
            raise ValueError(f"seat must be 0 or 1{' or None' if allow_none else ''}, got {seat!r}")

    def legal_actions(self, seat: int) -> list[dict]:
        self._check_seat(seat, allow_none=False)
        if seat != self.to_move:
            return []
        phase = self.phase
        if phase == "upcard":
            return [dict(_DRAW_DISCARD), dict(_PASS)]
        if phase == "draw":
            if self.passes == 2:
                return [dict(_DRAW_STOCK)]
            return [dict(_DRAW_STOCK), dict(_DRAW_DISCARD)]
        hand = self.hands[seat]
        taken = self.taken
        out = [{"type": "discard", "card": _BIT_TO_TEXT[b]} for b in _bits(hand ^ taken)]
        best, _, _ = ev.discard_of_mask(hand)
        if best <= self.knock_limit:
            limit = self.knock_limit
            out.extend(
                {"type": "knock", "card": _BIT_TO_TEXT[b]}
                for b, points in ev.discards_of_mask(hand)
                if points <= limit and b != taken
            )
        if best == 0 and ev.deadwood_of_mask(hand) == 0:
            out.append(dict(_BIG_GIN))
        return out

    def apply(self, action: dict, seat: int | None = None) -> None:
        """Validate everything first, then change state, so an illegal action changes nothing."""
        if self._resigned(action, seat):
            return
        mover = self.to_move  # None exactly when the match is over
        if seat is not None and (seat != mover or type(seat) is not int):
            self._check_seat(seat, allow_none=True)
            if mover is not None:
                raise IllegalAction(
                    "not_your_turn", f"it is seat {mover}'s turn, not seat {seat}'s"
                )
        if mover is None:
            raise IllegalAction("match_over", "the match is over")
        if type(action) is not dict:
            raise IllegalAction("bad_action", "an action is a JSON object with a 'type'")
        kind = action.get("type")
        keys = _ACTION_KEYS.get(kind) if type(kind) is str else None
        if keys is None:
            raise IllegalAction("unknown_action", f"unknown action type {kind!r}")
        if action.keys() != keys:
            raise IllegalAction(
                "bad_action", f"a {kind!r} action has exactly the keys {sorted(keys)}"
            )
        number = self.hand_number
        if kind == "draw":
            self._draw(mover, action["source"])
        elif kind == "pass":
            self._pass(mover)
        elif kind == "big_gin":
            self._big_gin(mover)
        else:
            self._discard(mover, action["card"], kind == "knock")
        self.seq += 1
        self._moves.append((mover, dict(action)))
        if self.hand_number != number:
            self.hand_start = self.seq

    def _pass(self, seat: int) -> None:
        """ "On the first turn, the non-dealing player has first option of taking the upcard
        on the discard pile or passing. If the non-dealing player passes the upcard, the
        dealer is then given the opportunity to take the upcard or pass. If the dealer also
        passes, the non-dealing player must draw from the stock pile." (seed)"""
        if self.phase != "upcard":
            raise IllegalAction("wrong_phase", "passing is only allowed on the first upcard")
        self.passes += 1
        self.to_move = 1 - seat
        if self.passes == 2:
            self.phase = "draw"

    def _draw(self, seat: int, source) -> None:
        phase = self.phase
        if phase == "discard":
            raise IllegalAction("wrong_phase", "you have drawn already; discard now")
        if source == "stock":
            if phase == "upcard":
                raise IllegalAction("wrong_phase", "the first upcard is on offer: take it or pass")
            bit = self.stock.pop()
            self.taken = 0
        elif source == "discard":
            if self.passes == 2:
                raise IllegalAction(
                    "must_draw_stock", "both players passed the upcard: draw from the stock"
                )
            if self.pile_draws == self.options["max_pile_draws"]:
                # OpenSpiel's gin_rummy: "cap the number of times the upcard can be drawn at
                # 50"; drawing it once more ends the hand as a draw (engine/README.md).
                self._draw_hand("pile_limit")
                return
            self.pile_draws += 1
            bit = self.discard.pop()
            self.taken = bit
            self.known[seat] |= bit
        else:
            raise IllegalAction(
                "bad_action", f"source must be 'stock' or 'discard', got {source!r}"
            )
        self.hands[seat] |= bit
        self.passes = 0
        self.phase = "discard"

    def _card_in_hand(self, seat: int, text) -> int:
        if self.phase != "discard":
            raise IllegalAction("wrong_phase", "draw a card first")
        bit = _TEXT_TO_BIT.get(text) if isinstance(text, str) else None
        if bit is None:
            raise IllegalAction("bad_action", f"{text!r} is not a card")
        if not self.hands[seat] & bit:
            raise IllegalAction("card_not_in_hand", f"{text} is not in your hand")
        if bit == self.taken:
            # Issue 3: "A card just taken from the discard pile may not be discarded in the
            # same turn, and so may not be the knocking discard either".
            raise IllegalAction(
                "cannot_discard_drawn_upcard",
                f"{text} was just taken from the discard pile; discard another card",
            )
        return bit

    def _discard(self, seat: int, text, knock: bool) -> None:
        bit = self._card_in_hand(seat, text)
        rest = self.hands[seat] ^ bit
        if knock:
            points = ev.deadwood_of_mask(rest)
            if points > self.knock_limit:
                limit = "gin only" if self.knock_limit == 0 else f"at most {self.knock_limit}"
                raise IllegalAction(
                    "knock_too_high",
                    f"deadwood after discarding {text} would be {points}; knocking needs {limit}",
                )
            self.hands[seat] = rest
            self.known[seat] &= ~bit
            self.discard.append(bit)
            self.taken = 0
            self._showdown(seat, bit)
            return
        self.hands[seat] = rest
        self.known[seat] &= ~bit
        self.discard.append(bit)
        self.taken = 0
        if len(self.stock) <= 2:
            # Seed: "until only two cards remain in the stock pile, in which case the round
            # ends in a draw and no points are awarded."
            self._draw_hand("wall")
            return
        self.to_move = 1 - seat
        self.phase = "draw"

    def _draw_hand(self, reason: str) -> None:
        """The hand ends with no score; ``reason`` is "wall" or "pile_limit"."""
        self._end_hand(
            {
                "hand_number": self.hand_number,
                "dealer": self.dealer,
                "kind": "draw",
                "reason": reason,
                "winner": None,
                "knocker": None,
                "points": 0,
            }
        )

    def _big_gin(self, seat: int) -> None:
        if self.phase != "discard":
            raise IllegalAction("wrong_phase", "big gin is declared after drawing")
        if ev.deadwood_of_mask(self.hands[seat]):
            raise IllegalAction("not_big_gin", "big gin needs all 11 cards in melds")
        self._showdown(seat, 0)

    def _showdown(self, knocker: int, discarded: int) -> None:
        o = self.options
        defender = 1 - knocker
        res = ev.settle(
            ev.cards_of_mask(self.hands[knocker]),
            ev.cards_of_mask(self.hands[defender]),
            knock_limit=self.knock_limit,
            gin_bonus=o["gin_bonus"],
            big_gin_bonus=o["big_gin_bonus"],
            undercut_bonus=o["undercut_bonus"],
        )
        winner = knocker if res.winner == "knocker" else defender
        points = res.points * (2 if self.spades_double else 1)
        self.scores[winner] += points
        stats = self.stats
        stats[winner]["hands_won"] += 1
        stat = {"knock": "knocks", "gin": "gins", "big_gin": "big_gins"}.get(res.kind)
        if stat:
            stats[knocker][stat] += 1
        else:
            stats[knocker]["knocks"] += 1
            stats[defender]["undercuts"] += 1
        detail = res.to_json()
        breakdown = detail["breakdown"]
        if self.spades_double:
            breakdown.append(
                {
                    "code": "spades_double",
                    "label": "Doubled: the first upcard was a spade",
                    "points": res.points,
                }
            )
        hands = [None, None]
        hands[knocker] = [str(c) for c in ev.cards_of_mask(self.hands[knocker])]
        hands[defender] = [str(c) for c in ev.cards_of_mask(self.hands[defender])]
        self.to_move = None
        self._end_hand(
            {
                "hand_number": self.hand_number,
                "dealer": self.dealer,
                "kind": res.kind,
                "knocker": knocker,
                "winner": winner,
                "points": points,
                "doubled": self.spades_double,
                "discard": _BIT_TO_TEXT[discarded] if discarded else None,
                "hands": hands,
                "melds": _per_seat(knocker, detail["knocker_melds"], detail["defender_melds"]),
                "deadwood": _per_seat(
                    knocker, detail["knocker_deadwood"], detail["defender_deadwood"]
                ),
                "deadwood_points": _per_seat(
                    knocker, detail["knocker_deadwood_points"], detail["defender_deadwood_points"]
                ),
                "layoffs": detail["layoffs"],
                # Which of the knocker's melds (by index in its `melds`) took each lay-off.
                "layoff_targets": detail["layoff_targets"],
                "breakdown": breakdown,
                "scores": list(self.scores),
            }
        )

    def view(self, seat: int | None) -> dict:
        self._check_seat(seat, allow_none=True)
        return {
            "variant": "gin",
            "seat": seat,
            "players": 2,
            "seq": self.seq,
            "to_move": self.to_move,
            "phase": self.phase,
            "hand": _texts(self.hands[seat]) if seat is not None else [],
            "hand_counts": [h.bit_count() for h in self.hands],
            "discard": [_BIT_TO_TEXT[b] for b in self.discard],
            "stock_count": len(self.stock),
            "pile_draws": self.pile_draws,
            "scores": list(self.scores),
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "knock_limit": self.knock_limit,
            "taken_from_discard": _BIT_TO_TEXT[self.taken] if self.taken else None,
            "known": [_texts(k) for k in self.known],
            "last_hand": _copy_json(self.last_hand),
            "options": dict(self.options),
            "over": self.over,
            "result": _copy_json(self.result),
            "totals_breakdown": _copy_json(self.totals_breakdown),
        }

    def _snapshot(self) -> tuple:
        """Every piece of state (secret parts included), for tests that compare states."""
        return (
            self.seq,
            len(self._moves),
            repr(self._moves[-1:]),  # the log only grows: its length and tail pin it down
            self.hand_start,
            tuple(self.hands),
            tuple(self.discard),
            tuple(self.stock),
            tuple(self.known),
            self.taken,
            self.pile_draws,
            self.phase,
            self.passes,
            self.to_move,
            tuple(self.scores),
            repr(self.stats),
            self.hand_number,
            self.dealer,
            self.knock_limit,
            repr(self.last_hand),
            self.over,
            repr(self.result),
            repr(self.totals_breakdown),
        )


def _line(code: str, label: str, points: int) -> dict:
    return {"code": code, "label": label, "points": points}


def _per_seat(knocker: int, knocker_value, defender_value) -> list:
    return [knocker_value, defender_value] if knocker == 0 else [defender_value, knocker_value]


def _copy_json(value):
    if isinstance(value, dict):
        return {k: _copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy_json(v) for v in value]
    return value


class GinVariant(Variant):
    """Two-player Gin Rummy to a target score (default 100, as in the seed)."""

    name = "gin"
    title = gettext_noop("Gin Rummy")
    min_players = 2
    max_players = 2
    bots = ("random", "greedy", "expert")
    options = (
        Option(
            "knock_limit",
            int,
            10,
            0,
            10,
            gettext_noop("most deadwood a knock may leave; 0 = gin only"),
            label=gettext_noop("Knock limit"),
        ),
        Option(
            "oklahoma",
            bool,
            False,
            help=gettext_noop("the first upcard's value sets the knock limit"),
            label=gettext_noop("Oklahoma"),
        ),
        Option(
            "oklahoma_spades_double",
            bool,
            False,
            help=gettext_noop("a spade upcard doubles the hand"),
            label=gettext_noop("Oklahoma spades double"),
        ),
        Option("gin_bonus", int, 25, 0, 1000, label=gettext_noop("Gin bonus")),
        # Seed 000: "If all 10 or 11 cards in a player's hand fit into melds ... player
        # receives a Gin bonus of 25 points" (31, the common big gin bonus, is an option).
        Option("big_gin_bonus", int, 25, 0, 1000, label=gettext_noop("Big gin bonus")),
        Option("undercut_bonus", int, 25, 0, 1000, label=gettext_noop("Undercut bonus")),
        Option(
            "target",
            int,
            100,
            1,
            10000,
            gettext_noop("match ends when a player reaches this"),
            label=gettext_noop("Target"),
        ),
        Option(
            "line_bonus",
            int,
            0,
            0,
            1000,
            gettext_noop("per hand won, added at the end (box bonus)"),
            label=gettext_noop("Line bonus"),
        ),
        Option(
            "game_bonus",
            int,
            0,
            0,
            1000,
            gettext_noop("added to the match winner's total"),
            label=gettext_noop("Game bonus"),
        ),
        Option(
            "shutout_double",
            bool,
            False,
            help=gettext_noop("winner's total doubles if loser scored 0"),
            label=gettext_noop("Shutout double"),
        ),
        Option(
            "max_pile_draws",
            int,
            50,
            1,
            1000,
            gettext_noop(
                "takes from the discard pile per hand (first upcard included); one more ends the "
                "hand as a draw"
            ),
            label=gettext_noop("Max pile draws"),
        ),
    )

    def check_option_combination(self, options: dict) -> None:
        if options["oklahoma_spades_double"] and not options["oklahoma"]:
            raise ValueError("option 'oklahoma_spades_double' needs 'oklahoma' to be true")

    def new(self, players: int = 2, seed: str = "", options: dict | None = None) -> GinGame:
        self.validate_players(players)
        return GinGame(self, seed, self.validate_options(options))

    def bot_action(self, game: GinGame, seat: int, bot: str = "greedy") -> dict:
        play = gin_bots.BOTS.get(bot) if type(bot) is str else None
        if play is None or type(game) is not GinGame or type(seat) is not int:
            self.validate_bot(bot)
            if not isinstance(game, GinGame):
                raise ValueError(f"game must be a gin game, got {type(game).__name__}")
            game._check_seat(seat, allow_none=False)
        if game.to_move != seat:
            raise ValueError(f"it is not seat {seat}'s turn")
        return play(game, seat)


VARIANT = register(GinVariant())
