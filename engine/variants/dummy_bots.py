"""Dummy rummy bots. They read only their own hand and the public table; the random bot's
choices come from the match seed (label ``bot:<move number>``, and
``bot:<move number>:claim:<seat>`` for a claim), so a match replays exactly."""

from __future__ import annotations

from engine import fair
from engine.cards import deck
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


#: The planner buys a card only if the contract is then at most this many cards away: a buy
#: costs two penalty cards, worth it only when the contract is about to go down.
PLANNER_BUY_SHORTFALL = 2
#: Every natural card of two decks, by (rank, suit): the planner's probes for "outs".
_NATURALS: dict[tuple[int, str], list] = {}
for _c in deck(decks=2):
    if not is_wild(_c):
        _NATURALS.setdefault((_c.rank, _c.suit), []).append(_c)


def _outs(game, seat: int, hand, lack: int) -> int:
    """How many unseen cards would bring the contract closer if drawn into ``hand``: per
    kind of card (a rank; a rank and suit when runs keep one suit), the copies not in sight
    (this hand, the discard pile, the table) when one such card lowers the shortfall."""
    seen: dict[tuple, int] = {}
    key = (lambda c: (c.rank, c.suit)) if game.same_suit else (lambda c: c.rank)
    shown = [*hand, *game.discard, *(c for m in game.table for c in m["cards"])]
    for c in shown:
        if not is_wild(c):
            seen[key(c)] = seen.get(key(c), 0) + 1
    held = set(map(id, hand))
    outs = 0
    kinds: dict = {}
    for (rank, suit), copies in _NATURALS.items():
        kinds.setdefault((rank, suit) if game.same_suit else rank, []).extend(copies)
    for kind, copies in kinds.items():
        unseen = len(copies) - seen.get(kind, 0)
        probe = next((c for c in copies if id(c) not in held), None)
        if unseen > 0 and probe is not None and _lack(game, seat, [*hand, probe]) < lack:
            outs += unseen
    return outs


def planner_claims(game, seat: int) -> bool:
    """Buys the offered card only when it brings the contract closer and leaves it at most
    `PLANNER_BUY_SHORTFALL` cards away (the penalty cards are then soon melded or shed)."""
    card = game.discard[-1]
    hand = game.hands[seat]
    after = _lack(game, seat, [*hand, card])
    return after < _lack(game, seat, hand) and after <= PLANNER_BUY_SHORTFALL


def planner_bot(game, seat: int) -> dict:
    """Greedy's draws, lay-down and lay-offs, with a planned discard before the contract is
    down: among the cards whose loss keeps the contract closest (never a wild if another
    will do), the one that leaves the most outs (unseen cards that would bring it closer),
    then the highest value (penalty points if someone goes out)."""
    if game.phase == "draw" or game.down[seat]:
        return greedy_bot(game, seat)
    legal = game.legal_actions(seat)
    for action in legal:
        if action["type"] in ("meld", "layoff"):
            return action
    hand = game.hands[seat]
    by_text = {c.text: c for c in hand}
    ranked = []
    for text in {a["card"] for a in legal if a["type"] == "discard"}:
        c = by_text[text]
        rest = list(hand)
        rest.remove(c)
        ranked.append((_lack(game, seat, rest), is_wild(c), -_value(c), text, rest))
    best = min(r[:2] for r in ranked)
    tied = [r for r in ranked if r[:2] == best]
    if len(tied) == 1:
        return {"type": "discard", "card": tied[0][3]}
    scored = [(-_outs(game, seat, rest, lack), value, text) for lack, _, value, text, rest in tied]
    return {"type": "discard", "card": min(scored)[2]}


BOTS = {"random": random_bot, "greedy": greedy_bot, "planner": planner_bot}
CLAIMS = {"random": random_claims, "greedy": greedy_claims, "planner": planner_claims}
