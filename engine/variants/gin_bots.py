"""Gin Rummy bots. They read only what their seat may know: own hand, the discard pile, the
opponent's picks from it and the public move log; randomness comes from the match seed so a
match replays exactly.
"""

from __future__ import annotations

from engine import gin as ev

_DRAW_STOCK = {"type": "draw", "source": "stock"}
_DRAW_DISCARD = {"type": "draw", "source": "discard"}
_PASS = {"type": "pass"}
_POINTS_OF_BIT = {1 << c.code: ev.POINTS[c.rank - 1] for c in ev.cards.STANDARD_DECK}
_TEXT = {1 << c.code: c.text for c in ev.cards.STANDARD_DECK}


def random_bot(game, seat: int) -> dict:
    """Any legal action, uniformly: ``legal_actions(seat)[i]`` with ``i`` drawn at position
    ``seq`` of the seed's "bot:random" stream. When no knock is possible the legal list is just the
    discards in card order, so the chosen one is built without building the list."""
    if game.phase == "discard":
        hand = game.hands[seat]
        best, _, _ = ev.discard_of_mask(hand)
        if best > game.knock_limit:
            choices = hand ^ game.taken
            i = game.bot_stream.below_at(game.seq, choices.bit_count())
            for _ in range(i):
                choices &= choices - 1
            return {"type": "discard", "card": _TEXT[choices & -choices]}
    actions = game.legal_actions(seat)
    return actions[game.bot_stream.below_at(game.seq, len(actions))]


def _takes_upcard(hand: int, up: int) -> bool:
    """True when the upcard lowers our least deadwood (it may not be discarded this turn)."""
    now = ev.deadwood_of_mask(hand)
    after = min(points for b, points in ev.discards_of_mask(hand | up) if b != up)
    return after < now


def _draw(game, seat: int, takes) -> dict:
    if game.phase == "draw" and game.passes == 2:
        return dict(_DRAW_STOCK)
    if takes(game, seat, game.discard[-1]):
        return dict(_DRAW_DISCARD)
    return dict(_PASS) if game.phase == "upcard" else dict(_DRAW_STOCK)


def _greedy_takes(game, seat: int, up: int) -> bool:
    return _takes_upcard(game.hands[seat], up)


def _ranked_discards(game, seat: int) -> list[tuple[int, int, int]]:
    """(deadwood after, -card points, -bit) per allowed discard: cheapest, then highest card."""
    taken = game.taken
    return sorted(
        (points, -_POINTS_OF_BIT[b], -b)
        for b, points in ev.discards_of_mask(game.hands[seat])
        if b != taken
    )


def greedy_bot(game, seat: int) -> dict:
    """Least deadwood; takes the upcard only when it helps; knocks as soon as it may."""
    if game.phase != "discard":
        return _draw(game, seat, _greedy_takes)
    if ev.deadwood_of_mask(game.hands[seat]) == 0:
        return {"type": "big_gin"}
    points, _, neg_bit = _ranked_discards(game, seat)[0]
    kind = "knock" if points <= game.knock_limit else "discard"
    return {"type": kind, "card": _TEXT[-neg_bit]}


BOTS = {"random": random_bot, "greedy": greedy_bot, "expert": greedy_bot}
