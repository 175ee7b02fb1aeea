"""Basic Rummy bots. They read only their own hand and the public table; the random bot's
choices come from the match seed (one number per move, at the move number), so a match
replays exactly."""

from __future__ import annotations

from engine import fair
from engine.melds import BASIC_POINTS, Search, classify


def pick(game, n: int) -> int:
    """A uniform index below ``n`` fixed by the seed and the move number."""
    return fair.Stream(game._seed, f"bot:{game.seq}").below(n)


def random_bot(game, seat: int) -> dict:
    """Any legal action, uniformly."""
    actions = game.legal_actions(seat)
    return actions[pick(game, len(actions))]


def _helps(game, seat: int, up) -> bool:
    """The discard-pile top can be laid off, or melded with cards in hand, right now."""
    if any(classify([*m["cards"], up]) for m in game.table):
        return True
    hand = [*game.hands[seat], up]
    search = Search(hand, points=BASIC_POINTS)
    with_up = search.costs(*search.mask_of(hand))
    without = search.costs(*search.mask_of(game.hands[seat]))
    return min(with_up) < min(without) + BASIC_POINTS[up.rank]


def greedy_bot(game, seat: int) -> dict:
    """Least deadwood: takes the discard only when it can use it at once, melds the best
    arrangement, lays off what fits, then discards its highest-value unmelded card."""
    if game.phase == "draw":
        if game.discard and _helps(game, seat, game.discard[-1]):
            return {"type": "draw", "source": "discard"}
        return {"type": "draw", "source": "stock"}
    legal = game.legal_actions(seat)
    hand = game.hands[seat]
    search = Search(hand, points=BASIC_POINTS)
    mask, jokers = search.mask_of(hand)
    costs = search.costs(mask, jokers)
    flag = costs.index(min(costs))
    groups, deadwood = search.arrangement(mask, jokers, flag)
    wanted = [{"type": "meld", "cards": sorted(c.text for c in g)} for g in groups]
    for action in legal:
        if (
            action["type"] == "meld"
            and {"type": "meld", "cards": sorted(action["cards"])} in wanted
        ):
            return action
    layoffs = [a for a in legal if a["type"] == "layoff"]
    if layoffs:
        value = {c.text: BASIC_POINTS[c.rank] for c in hand}
        return max(layoffs, key=lambda a: (value[a["card"]], a["card"]))
    discards = [a for a in legal if a["type"] == "discard"]
    loose = {c.text: (BASIC_POINTS[c.rank], c.rank, c.text) for c in deadwood}
    pool = [a for a in discards if a["card"] in loose] or discards
    return max(pool, key=lambda a: loose.get(a["card"], (0, 0, a["card"])))


BOTS = {"random": random_bot, "greedy": greedy_bot}
