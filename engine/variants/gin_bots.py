"""Gin Rummy bots. They read only what their seat may know: own hand, the discard pile, the
opponent's picks from it and the public move log; randomness comes from the match seed so a
match replays exactly.
"""

from __future__ import annotations

from engine import fair
from engine import gin as ev

_DRAW_STOCK = {"type": "draw", "source": "stock"}
_DRAW_DISCARD = {"type": "draw", "source": "discard"}
_PASS = {"type": "pass"}
_UPCARD_CHOICES = (_DRAW_DISCARD, _PASS)
_DRAW_CHOICES = (_DRAW_STOCK, _DRAW_DISCARD)
_POINTS_OF_BIT = {1 << c.code: ev.POINTS[c.rank - 1] for c in ev.cards.STANDARD_DECK}
_TEXT = {1 << c.code: c.text for c in ev.cards.STANDARD_DECK}


def random_bot(game, seat: int) -> dict:
    """Any legal action, uniformly: ``legal_actions(seat)[i]`` with ``i`` drawn at position
    ``seq`` of the seed's "bot:random" stream. The common cases build only the chosen action
    (same order as `legal_actions`, which a test checks), since benchmarks lean on this bot."""
    phase = game.phase
    if phase == "discard":
        hand = game.hands[seat]
        if ev.discard_of_mask(hand)[0] > game.knock_limit:
            # No knock and no big gin: the legal actions are the discards in card order.
            choices = hand ^ game.taken
            i = game.bot_stream.below_at(game.seq, choices.bit_count())
            for _ in range(i):
                choices &= choices - 1
            return {"type": "discard", "card": _TEXT[choices & -choices]}
        actions = game.legal_actions(seat)
        return actions[game.bot_stream.below_at(game.seq, len(actions))]
    if phase == "draw" and game.passes == 2:
        return dict(_DRAW_STOCK)
    pair = _UPCARD_CHOICES if phase == "upcard" else _DRAW_CHOICES
    return dict(pair[game.bot_stream.below_at(game.seq, 2)])


def _draw(game, seat: int, takes) -> dict:
    if game.phase == "draw" and game.passes == 2:
        return dict(_DRAW_STOCK)
    if takes(game, seat, game.discard[-1]):
        return dict(_DRAW_DISCARD)
    return dict(_PASS) if game.phase == "upcard" else dict(_DRAW_STOCK)


def _greedy_takes(game, seat: int, up: int) -> bool:
    """True when the upcard lowers our least deadwood (it may not be discarded this turn)."""
    hand = game.hands[seat]
    after = min(points for b, points in ev.discards_of_mask(hand | up) if b != up)
    return after < ev.deadwood_of_mask(hand)


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


# ------------------------------------------------------------------------------ expert

_ALL = sum(1 << c.code for c in ev.cards.STANDARD_DECK)
#: Weight of one unit of danger (see `_danger`) against one point of expected deadwood.
DANGER_WEIGHT = 1.5
#: Opponent hands sampled to estimate the undercut risk of a knock.
KNOCK_SAMPLES = 16
#: Largest undercut risk the expert accepts when knocking with deadwood left.
MAX_UNDERCUT_RISK = 0.25


def _unseen(game, seat: int) -> int:
    """Cards that may be in the stock or the opponent's hidden hand."""
    seen = game.hands[seat] | game.known[1 - seat]
    for b in game.discard:
        seen |= b
    return _ALL & ~seen


def _neighbours(bit: int) -> tuple[int, int]:
    """Masks of the same-rank cards and the same-suit cards within two ranks of ``bit``."""
    code = bit.bit_length() - 1
    suit, rank = divmod(code, 16)
    same_rank = sum(1 << (16 * s + rank) for s in range(4)) & ~bit
    near = 0
    for d in (-2, -1, 1, 2):
        if 0 <= rank + d < 13:
            near |= 1 << (16 * suit + rank + d)
    return same_rank, near


def _danger(bit: int, opp_known: int, opp_thrown: int) -> int:
    """How much a discard would help the opponent: cards they picked from the pile that it
    would meld with count for, cards they threw away near it count against."""
    same_rank, near = _neighbours(bit)
    score = 2 * (opp_known & same_rank).bit_count() + 2 * (opp_known & near).bit_count()
    score -= (opp_thrown & same_rank).bit_count() + (opp_thrown & near).bit_count()
    return max(score, 0)


def _opponent_thrown(game, seat: int) -> int:
    """Cards the opponent discarded this hand (public): evidence of what they do not collect."""
    thrown = 0
    for mover, action in game._moves[game.hand_start :]:
        if mover != seat and action["type"] == "discard":
            thrown |= ev.BIT[action["card"]]
    return thrown


def _expected_after_draw(hand10: int, unseen: list[int]) -> float:
    """Mean least deadwood after drawing one unseen card and discarding the best card."""
    now = ev.deadwood_of_mask(hand10)
    total = 0
    for u in unseen:
        after, _, _ = ev.discard_of_mask(hand10 | u)
        total += after if after < now else now
    return total / len(unseen)


def _sample_opponent(stream, unseen: list[int], opp_known: int, extra: int) -> int:
    """A plausible opponent hand: its known picks, random unseen cards, and ``extra`` more
    cards with the worst ones thrown away, since the opponent has been improving too."""
    need = 10 - opp_known.bit_count()
    pool = list(unseen)
    hand = opp_known
    take = min(need + extra, len(pool))
    for i in range(take):
        j = i + stream.below(len(pool) - i)
        pool[i], pool[j] = pool[j], pool[i]
        hand |= pool[i]
    while hand.bit_count() > 10:
        if hand.bit_count() == 11:
            _, bit, _ = ev.discard_of_mask(hand)
        else:
            bit = max(ev._bits(hand), key=lambda b: (_POINTS_OF_BIT[b], b))
        hand ^= bit
    return hand


def _knock_is_safe(game, seat: int, after: int, points: int) -> bool:
    """Weigh knocking now against the undercut risk, by settling sampled opponent hands."""
    if points == 0:
        return True
    opp_known = game.known[1 - seat]
    unseen = ev._bits(_unseen(game, seat))
    extra = min(4, (31 - len(game.stock)) // 2)
    stream = fair.Stream(game._seed, f"bot:expert:{seat}:{game.seq}")
    mine = ev.cards_of_mask(after)
    undercuts = 0
    for _ in range(KNOCK_SAMPLES):
        opp = _sample_opponent(stream, unseen, opp_known, extra)
        res = ev.settle(mine, ev.cards_of_mask(opp), knock_limit=points)
        undercuts += res.winner == "defender"
    return undercuts <= MAX_UNDERCUT_RISK * KNOCK_SAMPLES


def _expert_takes(game, seat: int, up: int) -> bool:
    """Take the upcard when the deadwood it leaves beats the mean of a blind stock draw."""
    hand = game.hands[seat]
    take = min(points for b, points in ev.discards_of_mask(hand | up) if b != up)
    unseen = ev._bits(_unseen(game, seat) & ~up)
    blind = sum(ev.discard_of_mask(hand | u)[0] for u in unseen) / len(unseen)
    return take < blind


def expert_bot(game, seat: int) -> dict:
    """Greedy's draws; discards that keep outs and avoid feeding the opponent's known melds;
    knocks only when sampled opponent hands show little undercut risk, else plays on for a
    lower count or gin."""
    if game.phase != "discard":
        return _draw(game, seat, _expert_takes)
    hand = game.hands[seat]
    if ev.deadwood_of_mask(hand) == 0:
        return {"type": "big_gin"}
    ranked = _ranked_discards(game, seat)
    points, _, neg_bit = ranked[0]
    if points <= game.knock_limit and _knock_is_safe(game, seat, hand ^ -neg_bit, points):
        return {"type": "knock", "card": _TEXT[-neg_bit]}
    unseen = ev._bits(_unseen(game, seat))
    opp_known = game.known[1 - seat]
    thrown = _opponent_thrown(game, seat)
    best = None
    for after, neg_points, neg_b in ranked:
        if after > points + 10:
            break
        bit = -neg_b
        score = _expected_after_draw(hand ^ bit, unseen) + DANGER_WEIGHT * _danger(
            bit, opp_known, thrown
        )
        key = (score, after, neg_points, neg_b)
        if best is None or key < best[0]:
            best = (key, bit)
    return {"type": "discard", "card": _TEXT[best[1]]}


BOTS = {"random": random_bot, "greedy": greedy_bot, "expert": expert_bot}
