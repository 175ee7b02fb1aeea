"""Gin Rummy hand evaluation: least deadwood, best discard, and the knock showdown.

Data layout (why it is fast): a hand is one int, bit ``16 * suit + rank`` per card, so a
suit is a 13-bit mask. Runs live inside one suit, so the least run-only deadwood of every
13-bit mask is a table computed once at import. Sets cut across suits; only ranks held in
three or four suits can form one, and the few ways to use them are enumerated exactly, with
options that can never win pruned by a dominance rule (see `_rank_set_tables`). Results are exact.

Rules cited from the seed (../shared/seeds/000_4b7389886c5c600a.txt) and the issue:
"aces are considered low ... Q K A is not a legal run"; "Sets of 3 or 4 cards sharing the same
rank"; "runs of 3 or more cards in sequence, of the same suit"; "aces are scored at 1 point,
face cards at 10, and all other cards are scored at their numerical values".
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import cache

from engine import cards
from engine.cards import Card

SUIT_MASK = 0x1FFF
SHIFT = cards.SUIT_SHIFT
HAND_SIZES = (10, 11)

#: Deadwood points by rank index 0 (ace) .. 12 (king).
POINTS = tuple(min(r + 1, 10) for r in range(13))
#: Bit of each standard card in a hand mask; text keys let callers pass "AS" directly.
BIT: dict = {}
for _c in cards.STANDARD_DECK:
    BIT[_c] = BIT[_c.text] = 1 << _c.code
#: Card for a bit position.
CARD_AT: dict[int, Card] = {c.code: c for c in cards.STANDARD_DECK}
_BIT_TO_CARD: dict[int, Card] = {1 << c.code: c for c in cards.STANDARD_DECK}
_BIT_GET = BIT.__getitem__


def _suit_tables() -> tuple[list[int], list[int], list[int], list[int]]:
    """Least run-only deadwood per 13-bit suit mask, the melded mask, and best-single-drop.

    ``drop[m]`` is the most a single card's removal lowers ``dead[m]`` (may be negative when
    every card is needed in a run of three); ``drop_bit[m]`` is that card (highest rank wins
    ties, so a lower card is kept). Empty masks get ``drop = -999`` so they are never chosen.
    """
    size = 1 << 13
    dead = [0] * size
    melded = [0] * size
    for m in range(1, size):
        low = (m & -m).bit_length() - 1
        best = dead[m & (m - 1)] + POINTS[low]
        best_meld = melded[m & (m - 1)]
        run = 1 << low
        top = low
        while top + 1 < 13 and m >> (top + 1) & 1:
            top += 1
            run |= 1 << top
            if top - low >= 2:
                rest = m & ~run
                if dead[rest] < best:
                    best = dead[rest]
                    best_meld = melded[rest] | run
        dead[m] = best
        melded[m] = best_meld
    drop = [-999] * size
    drop_bit = [0] * size
    for m in range(1, size):
        bits = m
        while bits:
            b = bits & -bits
            bits ^= b
            gain = dead[m] - dead[m ^ b]
            if gain >= drop[m]:
                drop[m] = gain
                drop_bit[m] = b
    return dead, melded, drop, drop_bit


DEAD, MELDED, DROP, DROP_BIT = _suit_tables()
#: Per suit: ``DROP * 64 + code of DROP_BIT`` so one ``max`` over the suits finds both the
#: largest drop and its card (ties go to the higher code).
#: Equal values share one int object (`_interned`): a few hundred per suit instead of 8192,
#: so the tables' lookups touch far less memory.
_interned = {}.setdefault
DROP_KEY = tuple(
    [
        _interned(v, v)
        for v in (
            DROP[m] * 64 + (SHIFT * s + DROP_BIT[m].bit_length() - 1 if m else 0)
            for m in range(8192)
        )
    ]
    for s in range(4)
)
_K0, _K1, _K2, _K3 = DROP_KEY


def _suit_card_tables() -> tuple[list[tuple[Card, ...]], ...]:
    """``SUIT_CARDS[s][m]``: the cards of suit ``s`` in 13-bit mask ``m``, ace first."""
    out = []
    for s in range(4):
        table: list[tuple[Card, ...]] = [()] * 8192
        for m in range(1, 8192):
            low = m & -m
            table[m] = (CARD_AT[SHIFT * s + low.bit_length() - 1], *table[m ^ low])
        out.append(table)
    return tuple(out)


SUIT_CARDS = _suit_card_tables()


def _runnable(m: int) -> int:
    """Cards of a suit mask that sit in some three-in-a-row of that mask."""
    w = m & (m >> 1) & (m >> 2)
    return (w | w << 1 | w << 2) & m


RUNNABLE = [_interned(v, v) for v in map(_runnable, range(1 << 13))]


def _spread(suits: int) -> int:
    """A 4-bit suit set as hand-mask bits at rank 0 (shift left by the rank to place it)."""
    return sum(1 << (SHIFT * s) for s in range(4) if suits >> s & 1)


def _rank_set_tables() -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """Per rank held in 3+ suits, the ways to use it in a set, as cards taken out of the hand.

    ``pruned[p << 4 | q]`` for present suits ``p`` and suits ``q`` whose card could join a run;
    ``every[p]`` lists all ways (no set, the whole set, each set of three), for the showdown.
    Pruning (exact, argued in engine/README.md): a card that cannot join a run is never worse
    off in a set, so "no set" is kept only when enough of the rank's cards could join runs (one
    of three, two of four), and a set of three out of four only when the card left out could.
    """
    pruned: list[tuple[int, ...]] = [()] * 256
    every: list[tuple[int, ...]] = [()] * 16
    for p in range(16):
        n = p.bit_count()
        if n < 3:
            continue
        threes = [p ^ (1 << s) for s in range(4) if n == 4 and p >> s & 1]
        every[p] = tuple(map(_spread, [0, p, *threes]))
        for q in range(16):
            if q & ~p:
                continue
            # Likeliest winners first, so searches that reach 0 deadwood stop early.
            options = [p, *(t for t in threes if q & ~t)]
            if q.bit_count() >= (2 if n == 4 else 1):
                options.append(0)
            pruned[p << 4 | q] = tuple(map(_spread, options))
    return tuple(pruned), tuple(every)


PRUNED_SETS, EVERY_SET = _rank_set_tables()
#: ``three * SPREAD`` puts a 13-bit rank mask in all four suits of a hand mask.
SPREAD = 1 | 1 << 16 | 1 << 32 | 1 << 48


def _split(h: int) -> tuple[int, int, int, int]:
    return h & SUIT_MASK, h >> 16 & SUIT_MASK, h >> 32 & SUIT_MASK, h >> 48


_CHOICES: dict[int, list[int]] = {}
_CHOICES_LIMIT = 1 << 15


def _set_choices(h: int, three: int, pruned: bool = True) -> list[int]:
    """Every useful combination of sets, each as the mask of the cards it puts in sets.

    The pruned list depends only on which suits hold each candidate rank and which of those
    cards could join a run, so it is memoised under that pattern (one int); the memo is
    cleared if it ever holds more than ``_CHOICES_LIMIT`` patterns.
    """
    m0, m1, m2, m3 = _split(h)
    n0, n1, n2, n3 = RUNNABLE[m0], RUNNABLE[m1], RUNNABLE[m2], RUNNABLE[m3]
    key = 0
    if pruned:
        key = (
            (m0 & three)
            | (m1 & three) << 13
            | (m2 & three) << 26
            | (m3 & three) << 39
            | (n0 & three) << 52
            | (n1 & three) << 65
            | (n2 & three) << 78
            | (n3 & three) << 91
        )
        found = _CHOICES.get(key)
        if found is not None:
            return found
    choices = [0]
    bits = three
    while bits:
        b = bits & -bits
        bits ^= b
        r = b.bit_length() - 1
        p = (m0 >> r & 1) | (m1 >> r & 1) << 1 | (m2 >> r & 1) << 2 | (m3 >> r & 1) << 3
        if pruned:
            q = (n0 >> r & 1) | (n1 >> r & 1) << 1 | (n2 >> r & 1) << 2 | (n3 >> r & 1) << 3
            options = PRUNED_SETS[p << 4 | q]
        else:
            options = EVERY_SET[p]
        choices = [c | o << r for c in choices for o in options]
    if pruned:
        if len(_CHOICES) >= _CHOICES_LIMIT:
            _CHOICES.clear()
        _CHOICES[key] = choices
    return choices


def deadwood_of_mask(h: int) -> int:
    """Least deadwood points of a hand mask (any number of cards)."""
    m0 = h & SUIT_MASK
    m1 = h >> 16 & SUIT_MASK
    m2 = h >> 32 & SUIT_MASK
    m3 = h >> 48
    three = (m0 & m1 & (m2 | m3)) | (m2 & m3 & (m0 | m1))
    if not three:
        return DEAD[m0] + DEAD[m1] + DEAD[m2] + DEAD[m3]
    if not (RUNNABLE[m0] | RUNNABLE[m1] | RUNNABLE[m2] | RUNNABLE[m3]) & three:
        k = ~three
        return DEAD[m0 & k] + DEAD[m1 & k] + DEAD[m2 & k] + DEAD[m3 & k]
    best = 999
    for c in _set_choices(h, three):
        x = h ^ c
        v = DEAD[x & SUIT_MASK] + DEAD[x >> 16 & SUIT_MASK] + DEAD[x >> 32 & SUIT_MASK]
        v += DEAD[x >> 48]
        if v < best:
            if not v:
                return 0
            best = v
    return best


def _best_sets(h: int) -> tuple[int, int]:
    """Least deadwood of a mask and the cards put in sets to reach it."""
    m0, m1, m2, m3 = _split(h)
    three = (m0 & m1 & (m2 | m3)) | (m2 & m3 & (m0 | m1))
    if not three:
        return DEAD[m0] + DEAD[m1] + DEAD[m2] + DEAD[m3], 0
    best = 999
    best_sets = 0
    for c in _set_choices(h, three):
        x = h ^ c
        v = DEAD[x & SUIT_MASK] + DEAD[x >> 16 & SUIT_MASK] + DEAD[x >> 32 & SUIT_MASK]
        v += DEAD[x >> 48]
        if v < best:
            best = v
            best_sets = c
            if not v:
                break
    return best, best_sets


def discard_of_mask(h: int) -> tuple[int, int, int]:
    """Best discard of an 11-card mask: (deadwood after it, its bit, the rest's set cards).

    For a fixed choice of sets the best discard is the suit card whose removal lowers run
    deadwood most (table ``DROP``). The pruning of `_rank_set_tables` stays exact here except
    for hands whose every card is melded; those are detected (a remainder with no card or
    with every card indispensable) and answered 0 by discarding from a meld of four or more.
    """
    m0 = h & SUIT_MASK
    m1 = h >> 16 & SUIT_MASK
    m2 = h >> 32 & SUIT_MASK
    m3 = h >> 48
    three = (m0 & m1 & (m2 | m3)) | (m2 & m3 & (m0 | m1))
    if not three:
        key = _K0[m0]
        other = _K1[m1]
        if other > key:
            key = other
        other = _K2[m2]
        if other > key:
            key = other
        other = _K3[m3]
        if other > key:
            key = other
        return DEAD[m0] + DEAD[m1] + DEAD[m2] + DEAD[m3] - (key >> 6), 1 << (key & 63), 0
    return _discard_with_sets(h, three)


def _discard_with_sets(h: int, three: int) -> tuple[int, int, int]:
    """`discard_of_mask` for a hand with set candidates ``three``: try each set choice."""
    best = 999
    best_bit = 0
    best_sets = 0
    for c in _set_choices(h, three):
        x = h ^ c
        x0 = x & SUIT_MASK
        x1 = x >> 16 & SUIT_MASK
        x2 = x >> 32 & SUIT_MASK
        x3 = x >> 48
        key = _K0[x0]
        other = _K1[x1]
        if other > key:
            key = other
        other = _K2[x2]
        if other > key:
            key = other
        other = _K3[x3]
        if other > key:
            key = other
        if key < 0:
            return _all_melded_discard(h)
        v = DEAD[x0] + DEAD[x1] + DEAD[x2] + DEAD[x3] - (key >> 6)
        if v < best:
            best = v
            best_sets = c
            best_bit = 1 << (key & 63)
            if not v:
                break
    return best, best_bit, best_sets


def _all_melded_discard(h: int) -> tuple[int, int, int]:
    """A hand whose every card is melded: discard the first card whose loss keeps it so."""
    for b in _bits(h):
        points, sets = _best_sets(h ^ b)
        if points == 0:
            return 0, b, sets
    raise AssertionError("eleven melded cards always include a meld of four or more")


def discards_of_mask(h: int) -> list[tuple[int, int]]:
    """(bit, deadwood after discarding it) for every card, cheapest exact way."""
    m0, m1, m2, m3 = _split(h)
    three = (m0 & m1 & (m2 | m3)) | (m2 & m3 & (m0 | m1))
    out = []
    if not three:
        masks = (m0, m1, m2, m3)
        total = DEAD[m0] + DEAD[m1] + DEAD[m2] + DEAD[m3]
        for s in range(4):
            m = masks[s]
            base = total - DEAD[m]
            bits = m
            while bits:
                b = bits & -bits
                bits ^= b
                out.append((b << (16 * s), base + DEAD[m ^ b]))
        return out
    return [(b, deadwood_of_mask(h ^ b)) for b in _bits(h)]


def _bits(h: int) -> list[int]:
    out = []
    while h:
        b = h & -h
        h ^= b
        out.append(b)
    return out


def cards_of_mask(h: int) -> list[Card]:
    """Cards of a mask in canonical order (suit S, H, D, C; ace to king)."""
    return [_BIT_TO_CARD[b] for b in _bits(h)]


def mask_of(hand, sizes: tuple[int, ...] | None = HAND_SIZES, what: str = "hand") -> int:
    """Validated mask of a list of cards (or card text); ValueError names the problem."""
    if isinstance(hand, str):
        hand = cards.parse(hand)
    if not isinstance(hand, (list, tuple)):
        raise ValueError(f"{what} must be a list of cards, got {type(hand).__name__}")
    try:
        h = sum(map(BIT.__getitem__, hand))
    except (KeyError, TypeError):
        bad = next(x for x in hand if not isinstance(x, (Card, str)) or x not in BIT)
        raise ValueError(f"{what}: {bad!r} is not a card of the standard deck") from None
    if h.bit_count() != len(hand):
        counts: dict = {}
        for item in hand:
            key = str(item)
            counts[key] = counts.get(key, 0) + 1
        dupes = sorted(k for k, n in counts.items() if n > 1)
        raise ValueError(f"{what} has duplicate cards: {' '.join(dupes)}")
    if sizes is not None and len(hand) not in sizes:
        allowed = " or ".join(map(str, sizes))
        raise ValueError(f"{what} must have {allowed} cards, got {len(hand)}")
    return h


@cache  # per suit, only masks made of runs: a few hundred entries
def _suit_runs(suit: int, m: int) -> tuple[tuple[Card, ...], ...]:
    return tuple(map(tuple, _runs_of(suit, m)))


def _runs_of(suit: int, m: int) -> list[list[Card]]:
    """Split a melded suit mask into runs (its maximal blocks of consecutive ranks)."""
    out = []
    run: list[Card] = []
    prev = -2
    for r in range(13):
        if m >> r & 1:
            if r != prev + 1 and run:
                out.append(run)
                run = []
            run.append(CARD_AT[suit * SHIFT + r])
            prev = r
    if run:
        out.append(run)
    return out


class Arrangement:
    """Melds and deadwood of a hand; lists are built on first use from the exact masks.

    ``sets`` is the mask of the cards in sets; the rest form runs (``MELDED``) or deadwood.
    """

    __slots__ = ("deadwood_points", "mask", "sets")

    def __init__(self, mask: int, sets: int, deadwood_points: int):
        self.mask = mask
        self.sets = sets
        self.deadwood_points = deadwood_points

    def __repr__(self) -> str:
        melds = " | ".join(" ".join(map(str, m)) for m in self.melds)
        return f"Arrangement(melds=[{melds}], deadwood_points={self.deadwood_points})"

    def _rests(self) -> tuple[int, int, int, int]:
        """Per suit, the cards left for runs and deadwood once sets are taken out."""
        return _split(self.mask ^ self.sets)

    @property
    def melds(self) -> list[list[Card]]:
        """Sets (by rank), then runs (by suit), each in card order."""
        out = []
        if self.sets:
            set_bits = _split(self.sets)
            ranks = set_bits[0] | set_bits[1] | set_bits[2] | set_bits[3]
            for r in range(13):
                if ranks >> r & 1:
                    out.append([CARD_AT[s * SHIFT + r] for s in range(4) if set_bits[s] >> r & 1])
        for s, rest in enumerate(self._rests()):
            melded = MELDED[rest]
            if melded:
                out += map(list, _suit_runs(s, melded))
        return out

    @property
    def deadwood(self) -> list[Card]:
        r0, r1, r2, r3 = self._rests()
        dead = (
            r0 & ~MELDED[r0]
            | (r1 & ~MELDED[r1]) << 16
            | (r2 & ~MELDED[r2]) << 32
            | (r3 & ~MELDED[r3]) << 48
        )
        return [
            *SUIT_CARDS[0][dead & SUIT_MASK],
            *SUIT_CARDS[1][dead >> 16 & SUIT_MASK],
            *SUIT_CARDS[2][dead >> 32 & SUIT_MASK],
            *SUIT_CARDS[3][dead >> 48],
        ]

    def to_json(self) -> dict:
        return {
            "melds": [[str(c) for c in meld] for meld in self.melds],
            "deadwood": [str(c) for c in self.deadwood],
            "deadwood_points": self.deadwood_points,
        }


def arrangement_of_mask(h: int) -> Arrangement:
    points, sets = _best_sets(h)
    return Arrangement(h, sets, points)


def deadwood_points(hand) -> int:
    """Least deadwood points of a 10- or 11-card hand (no arrangement built)."""
    return best_arrangement(hand).deadwood_points


def best_arrangement(hand) -> Arrangement:
    """The arrangement of a 10- or 11-card hand with the least deadwood points."""
    # Fast path for a plain list of distinct standard cards; anything else is validated
    # (with a message naming the problem) by mask_of.
    try:
        h = sum(map(_BIT_GET, hand)) if type(hand) is list else -1
    except (KeyError, TypeError):
        h = -1
    n = h.bit_count()
    if h < 0 or n != len(hand) or (n != 10 and n != 11):
        h = mask_of(hand)
    m0 = h & SUIT_MASK
    m1 = h >> 16 & SUIT_MASK
    m2 = h >> 32 & SUIT_MASK
    m3 = h >> 48
    three = (m0 & m1 & (m2 | m3)) | (m2 & m3 & (m0 | m1))
    if not three:
        return Arrangement(h, 0, DEAD[m0] + DEAD[m1] + DEAD[m2] + DEAD[m3])
    if (RUNNABLE[m0] | RUNNABLE[m1] | RUNNABLE[m2] | RUNNABLE[m3]) & three:
        points, sets = _best_sets(h)
        return Arrangement(h, sets, points)
    # Every set candidate is out of reach of runs: all of them are sets (see _rank_set_tables).
    k = ~three
    points = DEAD[m0 & k] + DEAD[m1 & k] + DEAD[m2 & k] + DEAD[m3 & k]
    return Arrangement(h, h & three * SPREAD, points)


#: By card code (bit position): the card and its bit, as lists so the hot paths index them.
_CARD_LIST: list = [CARD_AT.get(i) for i in range(64)]
_BIT_LIST: list[int] = [1 << i for i in range(64)]
#: Bit of each standard card, keyed by the card only (a smaller dict than `BIT`).
_CARD_BIT_GET = {c: 1 << c.code for c in cards.STANDARD_DECK}.__getitem__
_NEW = object.__new__
#: Spades and hearts of a hand mask (bits 0..28): a one-digit int, cheap to split further.
_LOW_TWO = (1 << 29) - 1


def _with_arrangement(card: Card, mask: int, sets: int, points: int) -> tuple[Card, Arrangement]:
    arr = _NEW(Arrangement)
    arr.mask = mask
    arr.sets = sets
    arr.deadwood_points = points
    return card, arr


def best_discard(hand) -> tuple[Card, Arrangement]:
    """For 11 cards: the discard leaving the least deadwood, and the 10 cards' arrangement.

    Ties go to the higher-ranked card within a suit so the cheaper card is kept. The common
    cases are spelled out inline (engine/README.md, "Best discard of 11"): no set candidate;
    candidates none of which could join a run (all are sets); one rank held in exactly three
    suits (the set, else no set). Anything else goes through `_discard_with_sets`.
    """
    try:
        h = sum(map(_CARD_BIT_GET, hand)) if type(hand) is list else -1
    except (KeyError, TypeError):
        h = -1
    if h.bit_count() != 11 or len(hand) != 11:  # also catches h == -1
        h = mask_of(hand, (11,))
    # Two operations on the 61-bit mask, then only one-digit ints.
    low = h & _LOW_TWO
    high = h >> 32
    m0 = low & SUIT_MASK
    m1 = low >> 16
    m2 = high & SUIT_MASK
    m3 = high >> 16
    three = (m0 & m1 & (m2 | m3)) | (m2 & m3 & (m0 | m1))
    sets = 0
    if three:
        k = ~three
        x0 = m0 & k
        x1 = m1 & k
        x2 = m2 & k
        x3 = m3 & k
        if (RUNNABLE[m0] | RUNNABLE[m1] | RUNNABLE[m2] | RUNNABLE[m3]) & three:
            if three & (three - 1) or m0 & m1 & m2 & m3:
                # Two candidate ranks, or a four of a kind: the general search.
                points, bit, sets = _discard_with_sets(h, three)
                return _with_arrangement(_BIT_TO_CARD[bit], h ^ bit, sets, points)
            # One rank in exactly three suits, one of its cards could join a run: the pruned
            # choices are [the set, no set], tried in this order as `_discard_with_sets` does.
            key = _K0[x0]
            other = _K1[x1]
            if other > key:
                key = other
            other = _K2[x2]
            if other > key:
                key = other
            other = _K3[x3]
            if other > key:
                key = other
            if key < 0:  # cannot happen with 8 cards left, kept as in `_discard_with_sets`
                points, bit, sets = _all_melded_discard(h)
                return _with_arrangement(_BIT_TO_CARD[bit], h ^ bit, sets, points)
            with_set = DEAD[x0] + DEAD[x1] + DEAD[x2] + DEAD[x3] - (key >> 6)
            if with_set:
                plain = _K0[m0]
                other = _K1[m1]
                if other > plain:
                    plain = other
                other = _K2[m2]
                if other > plain:
                    plain = other
                other = _K3[m3]
                if other > plain:
                    plain = other
                # plain >= 0: eleven cards never all sit in runs of exactly three.
                points = DEAD[m0] + DEAD[m1] + DEAD[m2] + DEAD[m3] - (plain >> 6)
                if points < with_set:
                    code = plain & 63
                    return _with_arrangement(_CARD_LIST[code], h ^ _BIT_LIST[code], 0, points)
            code = key & 63
            arr = _NEW(Arrangement)
            arr.mask = h ^ _BIT_LIST[code]
            arr.sets = h & three * SPREAD
            arr.deadwood_points = with_set
            return _CARD_LIST[code], arr
        # No set candidate can join a run: every one of them is a set.
        sets = h & three * SPREAD
        m0 = x0
        m1 = x1
        m2 = x2
        m3 = x3
    # The best discard is the best single drop of one suit (see DROP_KEY); the max is spelled
    # out because the builtin's call costs more than the comparisons here.
    key = _K0[m0]
    other = _K1[m1]
    if other > key:
        key = other
    other = _K2[m2]
    if other > key:
        key = other
    other = _K3[m3]
    if other > key:
        key = other
    if key < 0:  # only after sets: every other card is in a run of exactly three
        points, bit, sets = discard_of_mask(h)
        return _with_arrangement(_BIT_TO_CARD[bit], h ^ bit, sets, points)
    code = key & 63
    arr = _NEW(Arrangement)
    arr.mask = h ^ _BIT_LIST[code]
    arr.sets = sets
    arr.deadwood_points = DEAD[m0] + DEAD[m1] + DEAD[m2] + DEAD[m3] - (key >> 6)
    return _CARD_LIST[code], arr


# ---------------------------------------------------------------------------- showdown


@dataclass(frozen=True)
class Settlement:
    """Outcome of a knock: who scores how much, and what both players laid out."""

    kind: str
    winner: str
    points: int
    layoffs: list[Card]
    knocker_melds: list[list[Card]]
    knocker_deadwood: list[Card]
    knocker_points: int
    defender_melds: list[list[Card]]
    defender_deadwood: list[Card]
    defender_points: int
    layoff_targets: list[int] = field(default_factory=list)
    # How ``points`` adds up, line by line: {"code", "label", "points"}; the lines sum to
    # ``points``. Tables show it as it is, so the scoring lives here and nowhere else.
    breakdown: list[dict] = field(default_factory=list)

    def to_json(self) -> dict:
        def texts(group):
            return [str(c) for c in group]

        return {
            "kind": self.kind,
            "winner": self.winner,
            "points": self.points,
            "knocker_melds": [texts(m) for m in self.knocker_melds],
            "knocker_deadwood": texts(self.knocker_deadwood),
            "knocker_deadwood_points": self.knocker_points,
            "defender_melds": [texts(m) for m in self.defender_melds],
            "defender_deadwood": texts(self.defender_deadwood),
            "defender_deadwood_points": self.defender_points,
            "layoffs": texts(self.layoffs),
            "layoff_targets": list(self.layoff_targets),
            "breakdown": [dict(line) for line in self.breakdown],
        }


def _line(code: str, label: str, points: int) -> dict:
    return {"code": code, "label": label, "points": points}


def _suit_meld_choices(m: int) -> list[int]:
    """Every melded sub-mask of a suit mask (blocks of 3+ in a row) with least deadwood."""
    target = DEAD[m]
    found = set()

    def walk(rest: int, melded: int) -> None:
        if not rest:
            dead = m & ~melded
            if sum(POINTS[r] for r in range(13) if dead >> r & 1) == target:
                found.add(melded)
            return
        low = rest & -rest
        walk(rest ^ low, melded)
        r = low.bit_length() - 1
        run = 0
        for top in range(r, 13):
            if not rest >> top & 1:
                break
            run |= 1 << top
            if top - r >= 2:
                walk(rest & ~run, melded | run)

    walk(m, 0)
    return sorted(found)


def _knocker_layouts(h: int, points: int) -> list[tuple[list[tuple[int, int]], list[int]]]:
    """All least-deadwood layouts as (sets as (rank bit, suit tuple), per-suit melded runs)."""
    m = _split(h)
    three = (m[0] & m[1] & (m[2] | m[3])) | (m[2] & m[3] & (m[0] | m[1]))
    layouts = []
    for c in _set_choices(h, three, pruned=False):
        rest = _split(h ^ c)
        if sum(DEAD[x] for x in rest) != points:
            continue
        in_sets = _split(c)
        sets = []
        for r in range(13):
            suits = tuple(s for s in range(4) if in_sets[s] >> r & 1)
            if suits:
                sets.append((r, suits))
        for runs in itertools.product(*(_suit_meld_choices(x) for x in rest)):
            layouts.append((sets, list(runs)))
    return layouts


def _layoff_best(d: int, sets, runs) -> tuple[int, int, list[tuple[int, int]]]:
    """Defender's least deadwood after laying off on the knocker's melds.

    Returns (points, laid-off mask, [(bit, meld index)]). Sets of three take their missing
    fourth card; runs take chains of cards extending either end, card by card.
    """
    dm = _split(d)
    choices = []  # each: list of alternatives, an alternative = list of (bit, meld index)
    for i, (r, suits) in enumerate(sets):
        if len(suits) == 3:
            (s,) = {0, 1, 2, 3} - set(suits)
            if dm[s] >> r & 1:
                choices.append([[], [(1 << (SHIFT * s + r), i)]])
    meld_index = len(sets)
    for s in range(4):
        for block in _runs_of(s, runs[s]):
            lo = block[0].code - SHIFT * s
            hi = block[-1].code - SHIFT * s
            for step, start in ((-1, lo - 1), (1, hi + 1)):
                chain: list[tuple[int, int]] = []
                alternatives = [[]]
                r = start
                while 0 <= r < 13 and dm[s] >> r & 1:
                    chain = [*chain, (1 << (SHIFT * s + r), meld_index)]
                    alternatives.append(chain)
                    r += step
                if len(alternatives) > 1:
                    choices.append(alternatives)
            meld_index += 1
    best = (deadwood_of_mask(d), 0, [])
    for combo in itertools.product(*choices):
        laid = [x for alt in combo for x in alt]
        mask = 0
        for b, _ in laid:
            mask |= b
        if mask.bit_count() != len(laid) or not laid:
            continue
        points = deadwood_of_mask(d & ~mask)
        if (points, len(laid)) < (best[0], best[1].bit_count()):
            best = (points, mask, laid)
    return best


def _layout_melds(sets, runs) -> list[list[Card]]:
    out = [[CARD_AT[s * SHIFT + r] for s in suits] for r, suits in sets]
    for s in range(4):
        out.extend(_runs_of(s, runs[s]))
    return out


def settle(
    knocker_hand,
    defender_hand,
    *,
    knock_limit: int = 10,
    gin_bonus: int = 25,
    big_gin_bonus: int = 25,
    undercut_bonus: int = 25,
) -> Settlement:
    """Score a knock. ``knocker_hand``: 10 cards after the discard, or 11 for big gin.

    The knocker's layout is the least-deadwood one that leaves the defender least to lay off
    (issue 3); the defender gets the best layout and layoffs for them. The knocker never lays
    off. Gin and big gin allow the defender no layoffs (seed: "There is no chance to lay off
    when a player goes gin").
    """
    for name, value in (
        ("knock_limit", knock_limit),
        ("gin_bonus", gin_bonus),
        ("big_gin_bonus", big_gin_bonus),
        ("undercut_bonus", undercut_bonus),
    ):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    k = mask_of(knocker_hand, HAND_SIZES, "knocker hand")
    d = mask_of(defender_hand, (10,), "defender hand")
    if k & d:
        both = " ".join(str(c) for c in cards_of_mask(k & d))
        raise ValueError(f"cards in both hands: {both}")
    k_points = deadwood_of_mask(k)
    if k.bit_count() == 11 and k_points:
        raise ValueError("an 11-card knocker hand must be big gin (every card melded)")
    if k_points > knock_limit:
        raise ValueError(f"knocker deadwood {k_points} is over the knock limit {knock_limit}")
    d_arr = arrangement_of_mask(d)
    if k_points == 0:
        kind = "big_gin" if k.bit_count() == 11 else "gin"
        bonus = big_gin_bonus if kind == "big_gin" else gin_bonus
        k_arr = arrangement_of_mask(k)
        breakdown = [
            _line(
                kind + "_bonus",
                "Big gin bonus (all 11 cards melded)" if kind == "big_gin" else "Gin bonus",
                bonus,
            ),
            _line(
                "defender_deadwood",
                "Defender's deadwood (no lay-offs against gin)",
                d_arr.deadwood_points,
            ),
        ]
        return Settlement(
            kind=kind,
            winner="knocker",
            points=bonus + d_arr.deadwood_points,
            layoffs=[],
            knocker_melds=k_arr.melds,
            knocker_deadwood=[],
            knocker_points=0,
            defender_melds=d_arr.melds,
            defender_deadwood=d_arr.deadwood,
            defender_points=d_arr.deadwood_points,
            breakdown=breakdown,
        )
    best = None
    for sets, runs in _knocker_layouts(k, k_points):
        points, mask, laid = _layoff_best(d, sets, runs)
        if best is None or points > best[0]:
            best = (points, mask, laid, sets, runs)
    d_points, laid_mask, laid, sets, runs = best
    melded = 0
    for r, suits in sets:
        for s in suits:
            melded |= 1 << (SHIFT * s + r)
    for s in range(4):
        melded |= runs[s] << (SHIFT * s)
    rest = arrangement_of_mask(d & ~laid_mask)
    if d_points <= k_points:
        kind, winner, points = "undercut", "defender", undercut_bonus + k_points - d_points
        breakdown = [
            _line(
                "undercut_bonus",
                "Undercut bonus (defender's deadwood not above the knocker's)",
                undercut_bonus,
            ),
            _line("knocker_deadwood", "Knocker's deadwood", k_points),
            _line("defender_deadwood", "Defender's deadwood after lay-offs", -d_points),
        ]
    else:
        kind, winner, points = "knock", "knocker", d_points - k_points
        breakdown = [
            _line("defender_deadwood", "Defender's deadwood after lay-offs", d_points),
            _line("knocker_deadwood", "Knocker's deadwood", -k_points),
        ]
    return Settlement(
        kind=kind,
        winner=winner,
        points=points,
        layoffs=[_BIT_TO_CARD[b] for b, _ in laid],
        knocker_melds=_layout_melds(sets, runs),
        knocker_deadwood=cards_of_mask(k & ~melded),
        knocker_points=k_points,
        defender_melds=rest.melds,
        defender_deadwood=rest.deadwood,
        defender_points=d_points,
        layoff_targets=[i for _, i in laid],
        breakdown=breakdown,
    )
