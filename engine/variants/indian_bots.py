"""Indian Rummy bots. They read only their own hand, the open pile and the cut joker; the
random bot's choices come from the match seed, so a match replays exactly."""

from __future__ import annotations

from engine.melds import INDIAN_POINTS, PURE_AND_TWO_RUNS
from engine.variants.basic_bots import pick


def random_bot(game, seat: int) -> dict:
    """Any listed legal action, uniformly (drops included)."""
    actions = game.legal_actions(seat)
    return actions[pick(game, len(actions))]


def metric(costs: tuple[int, ...]) -> int:
    """How far a hand is from a declaration: ungrouped points, plus a toll for each missing
    piece of the required shape (a pure run, a second run)."""
    return min(costs[5], costs[4] + 10, costs[2] + 25, costs[1] + 30, costs[0] + 40)


def _ranked(game, seat: int, hand, search, avoid=None):
    """(metric, -points, text, card) for each card the seat may discard from ``hand``."""
    out = []
    seen = set()
    for c in hand:
        if c is avoid or c.text in seen:
            continue
        seen.add(c.text)
        mask, jokers = search.mask_of([x for x in hand if x is not c])
        costs = search.costs(mask, jokers)
        wild = c.is_joker or c.rank == game.wild_rank
        out.append((metric(costs), -(0 if wild else INDIAN_POINTS[c.rank]), c.text, c, costs))
    out.sort(key=lambda t: t[:3])
    return out


def greedy_bot(game, seat: int) -> dict:
    """Takes the open card only when it brings the hand strictly closer to a declaration
    (so a deal of greedy bots ends: each such take lowers a bounded measure), declares as
    soon as it can, else discards the card whose loss hurts least (highest value first)."""
    from engine.variants.indian import declaration, search

    hand = game.hands[seat]
    if game.phase == "draw":
        if game.discard:
            up = game.discard[-1]
            s = search([*hand, up], game.wild_rank)
            now = metric(s.costs(*s.mask_of(hand)))
            best = _ranked(game, seat, [*hand, up], s, avoid=up)[0][0]
            if best < now:
                return {"type": "draw", "source": "discard"}
        return {"type": "draw", "source": "stock"}
    s = search(hand, game.wild_rank)
    ranked = _ranked(game, seat, hand, s, avoid=game.taken)
    for _, _, text, c, costs in ranked:
        if costs[PURE_AND_TWO_RUNS] == 0:
            rest = [x for x in hand if x is not c]
            groups = declaration(rest, game.wild_rank, s)
            return {
                "type": "declare",
                "card": text,
                "groups": [[x.text for x in g] for g in groups],
            }
    return {"type": "discard", "card": ranked[0][2]}


BOTS = {"random": random_bot, "greedy": greedy_bot}
