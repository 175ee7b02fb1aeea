"""Helpers shared by the multi-player variants (Basic and Indian Rummy)."""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any

from engine.cards import COPY_STRIDE, JOKER_TEXT, RANKS, SUITS, Card
from engine.errors import IllegalAction
from engine.variants.base import Game, Option

CARD_TEXTS = frozenset([r + s for r in RANKS for s in SUITS] + [JOKER_TEXT])


@dataclass(frozen=True)
class Choice(Option):
    """An option whose value is one of a few strings (e.g. Indian Rummy's format)."""

    choices: tuple[str, ...] = ()

    def check(self, value: Any) -> Any:
        if value not in self.choices or not isinstance(value, str):
            raise ValueError(
                f"option {self.name!r} must be one of {', '.join(self.choices)}, got {value!r}"
            )
        return value


def sort_key(c: Card) -> tuple[int, int]:
    """Suit then rank, the two copies of a two-deck card side by side, jokers last."""
    return (c.code % COPY_STRIDE, c.copy)


def texts(hand) -> list[str]:
    return [c.text for c in sorted(hand, key=sort_key)]


def copy_json(value):
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value


def check_seat(seat, players: int, *, allow_none: bool) -> None:
    """ValueError for a seat that is not 0..players-1 (or None where a spectator is allowed)."""
    if seat is None and allow_none:
        return
    if type(seat) is not int or not 0 <= seat < players:
        extra = " or None" if allow_none else ""
        raise ValueError(f"seat must be an integer from 0 to {players - 1}{extra}, got {seat!r}")


def check_action(action, keys: dict[str, frozenset]) -> str:
    """The action's type, after checking it is a JSON object with exactly the right keys."""
    if type(action) is not dict:
        raise IllegalAction("bad_action", "an action is a JSON object with a 'type'")
    kind = action.get("type")
    expected = keys.get(kind) if type(kind) is str else None
    if expected is None:
        raise IllegalAction("unknown_action", f"unknown action type {kind!r}")
    if action.keys() != expected:
        raise IllegalAction(
            "bad_action", f"a {kind!r} action has exactly the keys {sorted(expected)}"
        )
    return kind


def take_from(hand: list[Card], wanted: list, *, avoid: Card | None = None) -> list[Card]:
    """The cards of ``hand`` named by the texts in ``wanted`` (a two-deck hand may hold two
    cards with the same text; either copy will do, but ``avoid`` is used last).

    IllegalAction names text that is not a card or a card the hand does not hold.
    """
    if type(wanted) is not list or not wanted:
        raise IllegalAction("bad_action", "cards must be a non-empty list of card texts")
    for text in wanted:
        if type(text) is not str or text not in CARD_TEXTS:
            raise IllegalAction("bad_card", f"{text!r} is not a card")
    if len(set(wanted)) != len(wanted) and len(hand) == len({c.text for c in hand}):
        raise IllegalAction("bad_action", "a card is named twice")
    pool = sorted(hand, key=lambda c: (c is avoid, sort_key(c)))
    out = []
    for text in wanted:
        for i, c in enumerate(pool):
            if c.text == text:
                out.append(pool.pop(i))
                break
        else:
            raise IllegalAction("card_not_in_hand", f"{text} is not in your hand")
    return out


class TableGame(Game):
    """The turn plumbing Basic and Indian Rummy share: seat checks, action shape, the move
    log, and drawing. Subclasses set ``action_keys`` and implement `_act` and
    `_end_by_pile_limit`; they hold ``players``, ``options``, ``to_move``, ``over``, ``seq``,
    ``_moves``, ``phase``, ``hands``, ``stock``, ``discard``, ``taken`` and ``pile_draws``
    (takes from the discard pile this hand)."""

    action_keys: dict[str, frozenset]

    def apply(self, action: dict, seat: int | None = None) -> None:
        """Validate everything first, then change state, so an illegal action changes nothing."""
        if self._resigned(action, seat):
            return
        mover = self.to_move
        if seat is not None and (seat != mover or type(seat) is not int):
            check_seat(seat, self.players, allow_none=True)
            if not self.over:
                raise IllegalAction(
                    "not_your_turn", f"it is seat {mover}'s turn, not seat {seat}'s"
                )
        if self.over:
            raise IllegalAction("match_over", "the match is over")
        kind = check_action(action, self.action_keys)
        recorded = copy_json(action)
        number = self.hand_number
        self._act(mover, kind, action)
        self.seq += 1
        self._moves.append((mover, recorded))
        if self.hand_number != number:
            self.hand_start = self.seq

    @abc.abstractmethod
    def _act(self, seat: int, kind: str, action: dict) -> None:
        """Carry out one checked action of type ``kind`` for ``seat``."""

    @abc.abstractmethod
    def _end_by_pile_limit(self) -> None:
        """End the hand with nobody winning it: the discard pile was asked for once more than
        option ``max_pile_draws`` allows (engine/README.md)."""

    def _take_drawn(self, seat: int, source) -> Card | None:
        """Seed: "Start your turn by drawing card from either the deck or the discard pile."
        The card goes into the hand; ``taken`` remembers a discard-pile card. None when the
        take was one too many for ``max_pile_draws`` and ended the hand instead (OpenSpiel's
        bound on upcard draws, engine/README.md)."""
        if self.phase != "draw":
            raise IllegalAction("wrong_phase", "you have drawn already this turn")
        if source == "stock":
            c = self.stock.pop()
            self.taken = None
        elif source == "discard":
            if not self.discard:
                raise IllegalAction("empty_discard", "the discard pile is empty")
            if self.pile_draws == self.options["max_pile_draws"]:
                self._end_by_pile_limit()
                return None
            self.pile_draws += 1
            c = self.discard.pop()
            self.taken = c
        else:
            raise IllegalAction(
                "bad_action", f"source must be 'stock' or 'discard', got {source!r}"
            )
        self.hands[seat].append(c)
        self.hands[seat].sort(key=sort_key)
        return c
