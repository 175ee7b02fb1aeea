"""Slow, obviously-correct reference searches the fast engine is checked against."""

import itertools

from engine import cards


def points(card) -> int:
    return min(card.rank, 10)


def all_melds(hand) -> list[frozenset]:
    """Every set (3 or 4 of a rank) and run (3+ in a row of one suit, ace low) in the hand."""
    out = []
    by_rank: dict = {}
    for c in hand:
        by_rank.setdefault(c.rank, []).append(c)
    for group in by_rank.values():
        for k in (3, 4):
            out.extend(frozenset(x) for x in itertools.combinations(group, k))
    held = set(hand)
    for suit in cards.SUITS:
        for lo in range(1, 12):
            for hi in range(lo + 2, 14):
                run = [cards.card(cards.RANKS[r - 1] + suit) for r in range(lo, hi + 1)]
                if all(c in held for c in run):
                    out.append(frozenset(run))
    return out


def least_deadwood(hand) -> int:
    """Try every collection of disjoint melds."""
    melds = all_melds(hand)
    best = sum(map(points, hand))

    def walk(i: int, used: frozenset) -> None:
        nonlocal best
        best = min(best, sum(points(c) for c in hand if c not in used))
        for j in range(i, len(melds)):
            if not melds[j] & used:
                walk(j + 1, used | melds[j])

    walk(0, frozenset())
    return best


def least_after_discard(hand) -> int:
    return min(least_deadwood([c for c in hand if c is not d]) for d in hand)


def is_meld(group) -> bool:
    group = list(group)
    if len(group) < 3:
        return False
    if len({c.rank for c in group}) == 1:
        return len(group) <= 4 and len({c.suit for c in group}) == len(group)
    if len({c.suit for c in group}) != 1:
        return False
    ranks = sorted(c.rank for c in group)
    return ranks == list(range(ranks[0], ranks[0] + len(ranks)))


def best_layoff_deadwood(knocker_melds, defender) -> int:
    """Defender's least deadwood over every subset of cards that can be laid off in turn."""
    runs = [m for m in knocker_melds if len({c.rank for c in m}) > 1]
    candidates = [
        c
        for c in defender
        if any(is_meld([*m, c]) for m in knocker_melds) or any(c.suit == m[0].suit for m in runs)
    ]
    best = least_deadwood(defender)
    for k in range(1, len(candidates) + 1):
        for subset in itertools.combinations(candidates, k):
            melds = [list(m) for m in knocker_melds]
            left = list(subset)
            progress = True
            while left and progress:
                progress = False
                for c in list(left):
                    for m in melds:
                        if is_meld([*m, c]):
                            m.append(c)
                            left.remove(c)
                            progress = True
                            break
            if not left:
                rest = [c for c in defender if c not in subset]
                best = min(best, least_deadwood(rest))
    return best
