"""Indian 21-card Rummy bots (kept apart from the 13-card ones in `indian_bots`).

They read only their own hand, the open pile, the cut joker and the value cards; the random
bot's choices come from the match seed, so a match replays exactly.
"""

from __future__ import annotations

from engine.melds import INDIAN_POINTS
from engine.variants.basic_bots import pick


def random_bot(game, seat: int) -> dict:
    """Any listed legal action, uniformly (drops included)."""
    actions = game.legal_actions(seat)
    return actions[pick(game, len(actions))]


TOLLS = (45, 30, 15, 0)


def metric(costs: tuple[int, ...]) -> int:
    """How far a 21-card hand is from a declaration: ungrouped points with three pure
    sequences, or with fewer plus a toll for each missing one (the 13-card greedy's measure,
    with the 21-card requirement)."""
    return min(c + t for c, t in zip(costs, TOLLS, strict=True))


def _shed(game, hand, search, avoid=None):
    """The card to give up: of the ungrouped cards of the grouping the measure prefers, the
    highest in points, never a wild or value card while another will do; if every card is
    grouped, the one whose loss raises the measure least."""
    mask, jokers = search.mask_of(hand)
    costs = search.costs(mask, jokers)
    flag = min(range(len(costs)), key=lambda f: (costs[f] + TOLLS[f], -f))
    _, loose = search.arrangement(mask, jokers, flag)
    values = set(game.values.values())

    def keep(c) -> tuple:
        wild = game.is_wild(c)
        points = 0 if wild else INDIAN_POINTS[c.rank]
        return (wild or (c.rank, c.suit) in values, -points, c.text)

    loose = [c for c in loose if c is not avoid]
    if loose:
        return min(loose, key=keep)
    ranked = []
    for c in hand:
        if c is not avoid:
            rest = search.mask_of([x for x in hand if x is not c])
            ranked.append((metric(search.costs(*rest)), keep(c), c))
    return min(ranked, key=lambda t: t[:2])[2]


def greedy_bot(game, seat: int) -> dict:
    """The 13-card greedy adapted: takes the open card only when it brings the hand strictly
    closer to a declaration, declares as soon as it can (an alternative declaration
    included), else sheds the card `_shed` picks."""
    hand = game.hands[seat]
    if game.phase == "draw":
        if game.discard:
            up = game.discard[-1]
            more = [*hand, up]
            s = game._search(more)
            now = metric(s.costs(*s.mask_of(hand)))
            out = _shed(game, more, s, avoid=up)
            after = metric(s.costs(*s.mask_of([x for x in more if x is not out])))
            if after < now:
                return {"type": "draw", "source": "discard"}
        return {"type": "draw", "source": "stock"}
    declares = [a for a in game.legal_actions(seat) if a["type"] == "declare"]
    if declares:
        return declares[0]
    s = game._search(hand)
    return {"type": "discard", "card": _shed(game, hand, s, avoid=game.taken).text}


BOTS = {"random": random_bot, "greedy": greedy_bot}


def expert_bot(game, seat: int) -> dict:
    from engine.variants.indian21_expert import expert_bot as play

    return play(game, seat)


BOTS["expert"] = expert_bot
