"""Dummy rummy bots. They read only their own hand and the public table; the random bot's
choices come from the match seed (label ``bot:<move number>``, and
``bot:<move number>:claim:<seat>`` for a claim), so a match replays exactly."""

from __future__ import annotations

from engine import fair
from engine.contracts import POINTS, is_wild, shortfall
from engine.variants.basic_bots import pick

#: The random bot claims an offered card one time in this many.
RANDOM_CLAIM_ODDS = 4


def random_bot(game, seat: int) -> dict:
    """Any listed legal action, uniformly."""
    actions = game.legal_actions(seat)
    return actions[pick(game, len(actions))]


def random_claims(game, seat: int) -> bool:
    stream = fair.Stream(game._seed, f"bot:{game.seq}:claim:{seat}")
    return stream.below(RANDOM_CLAIM_ODDS) == 0


def _lack(game, seat: int, hand) -> int:
    return shortfall(hand, game.contract[seat], same_suit=game.same_suit)


def _improves(game, seat: int, card) -> bool:
    """The card brings the seat's contract strictly closer (fewer cards missing)."""
    hand = game.hands[seat]
    return _lack(game, seat, [*hand, card]) < _lack(game, seat, hand)


def greedy_claims(game, seat: int) -> bool:
    """Buys the offered card only when it brings the contract strictly closer."""
    return _improves(game, seat, game.discard[-1])


def greedy_bot(game, seat: int) -> dict:
    """Before its contract is down: takes the discard only when it brings the contract
    closer, lays the contract down as soon as it can, and discards the card whose loss keeps
    the contract closest (never a wild if another will do; highest value on ties). After:
    adds every card it can to the table (keeping one to discard), then discards its highest
    card."""
    hand = game.hands[seat]
    if game.phase == "draw":
        if not game.down[seat] and game.discard and _improves(game, seat, game.discard[-1]):
            return {"type": "draw", "source": "discard"}
        return {"type": "draw", "source": "stock"}
    legal = game.legal_actions(seat)
    for action in legal:
        if action["type"] in ("meld", "layoff"):
            return action
    discards = [a["card"] for a in legal if a["type"] == "discard"]
    by_text = {c.text: c for c in hand}
    if game.down[seat]:
        return {"type": "discard", "card": max(discards, key=lambda t: (_value(by_text[t]), t))}
    ranked = []
    for text in discards:
        c = by_text[text]
        rest = list(hand)
        rest.remove(c)
        ranked.append((_lack(game, seat, rest), is_wild(c), -_value(c), text))
    return {"type": "discard", "card": min(ranked)[3]}


def _value(c) -> int:
    return POINTS[c.rank]


BOTS = {"random": random_bot, "greedy": greedy_bot}
CLAIMS = {"random": random_claims, "greedy": greedy_claims}
