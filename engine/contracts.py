"""Melds and contracts of Dummy (contract) rummy: wild twos and jokers, sets that may repeat a
suit, runs of any length with aces high or low, and a fast exact test of whether a hand can
lay down a contract.

Seed 003 (../shared/seeds/003_58e7c7fd04d4c1b8.txt) is quoted where a rule comes from it; the
choices where it is silent or garbled are in engine/README.md ("Dummy Rummy choices").

Terms. A *wild* is a two or a printed joker ("The jokers and twos are wild"); every other card
is a *natural*. Every meld holds at least one natural (it gives a set its rank and a run its
place); otherwise "Wild cards may be substituted for any number of cards in a set or run".

How the contract test works. A contract is a few melds of a minimum size. A hand that can make
a meld of n >= k cards can also make one of exactly k (drop cards, keeping a natural), so it
is enough to look for melds of exactly the required sizes. The test places each meld (a set
on a rank; a run on a window of k consecutive positions, ace 1 or 14, and in same-suit mode a
suit) and asks two questions of the placement, both answered exactly without search:

1. enough cards: at each rank, the naturals used are those the run positions of a given suit
   can take (specific demands first) plus what the sets of that rank can take from the rest
   (any suit); every other required card is a wild. Serving specific demands before flexible
   ones is optimal, so this counts the most naturals any assignment can use.
2. a natural in every meld: Hall's condition over the (at most three) melds: every group of
   melds can use at least as many distinct naturals as it has melds. A maximum assignment that
   also gives each meld a natural then exists (augmenting paths from the source never take a
   natural away from a meld), so 1 and 2 together are exact.

`tests/engine/test_dummy_rules.py` checks the test against a brute force over every split of
small hands into groups.
"""

from __future__ import annotations

from itertools import combinations, combinations_with_replacement, product

from engine.cards import Card

SET = "set"
RUN = "run"
#: Seed 003: "There are twelve meld sets each player must complete as follows: 1. 2- 3 of a
#: kind 2. 3 a kind, and 1- run of four 3. 2-4 of a kind 4. 2- runs of 4 5. 1- 4 of a kind,
#: and 1- run of 4 6. 2- 3 of a kind, and 1- run of 4 7. 1- 3 of a kind, and 1- run of 7
#: 8. 3- 3 of a kind 9. 2- 5 of a kind 10. 2- runs of 5 11. 8 of a kind 12. run of 10".
#: Each meld is (kind, least size); a contract's melds are listed sets first.
CONTRACTS: tuple[tuple[tuple[str, int], ...], ...] = (
    ((SET, 3), (SET, 3)),
    ((SET, 3), (RUN, 4)),
    ((SET, 4), (SET, 4)),
    ((RUN, 4), (RUN, 4)),
    ((SET, 4), (RUN, 4)),
    ((SET, 3), (SET, 3), (RUN, 4)),
    ((SET, 3), (RUN, 7)),
    ((SET, 3), (SET, 3), (SET, 3)),
    ((SET, 5), (SET, 5)),
    ((RUN, 5), (RUN, 5)),
    ((SET, 8),),
    ((RUN, 10),),
)
#: Ranks a run may span: aces low (1) or high (14), "but not both (K-A-2-3)".
MAX_RUN = 13
#: Bicycle's Contract Rummy (bicyclecards.com/card-games/rule/contract-rummy): "Ace, joker,
#: and other wild cards, if any, count as 15 points; each face card counts 10; each other
#: card counts its pip value." Twos are wild here, so they count 15. Index: rank (0 = joker).
POINTS = (15, 15, 15, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
NO_CONTRACT = 1 << 20


def is_wild(c: Card) -> bool:
    """Seed 003: "Twos and jokers are wild and can be used to represent any desired card"."""
    return c.rank == 0 or c.rank == 2


def hand_value(hand) -> int:
    return sum(POINTS[c.rank] for c in hand)


def describe(contract: int) -> str:
    """'two sets of 3 and a run of 4' for contract index 5 (0-based)."""
    words = {1: "a", 2: "two", 3: "three"}
    parts = []
    for kind in (SET, RUN):
        sizes = [k for t, k in CONTRACTS[contract] if t == kind]
        if sizes:
            n = len(sizes)
            parts.append(f"{words[n]} {kind}{'s' if n > 1 else ''} of {sizes[0]}")
    return " and ".join(parts)


def _positions(rank: int) -> tuple[int, ...]:
    return (1, 14) if rank == 1 else (rank,)


def meld_ok(kind: str, group: list[Card], *, same_suit: bool = False) -> bool:
    """True when ``group`` is a valid meld of ``kind`` (any size from 3).

    Sets: "A set consists of cards of equal rank ... sets may contain two cards of the same
    suit". Runs: "A run consists of cards in sequence ... Aces can be high (J-Q-K-A) or low
    (A-2-3-4) but not both (K-A-2-3)"; suits may mix unless ``same_suit``.
    """
    n = len(group)
    if n < 3:
        return False
    naturals = [c for c in group if not is_wild(c)]
    if not naturals:
        return False
    if kind == SET:
        return len({c.rank for c in naturals}) == 1
    if kind != RUN or n > MAX_RUN:
        return False
    if same_suit and len({c.suit for c in naturals}) != 1:
        return False
    ranks = [c.rank for c in naturals]
    if len(set(ranks)) != len(ranks):
        return False
    low = sorted(ranks)
    if low[-1] - low[0] + 1 <= n:
        return True
    high = sorted(14 if r == 1 else r for r in ranks)
    return 1 in ranks and high[-1] - high[0] + 1 <= n


def run_window(group: list[Card]) -> tuple[int, int]:
    """The lowest and highest positions a valid run's naturals take (aces low if they fit)."""
    ranks = [c.rank for c in group if not is_wild(c)]
    low = sorted(ranks)
    if low[-1] - low[0] + 1 <= len(group):
        return low[0], low[-1]
    high = sorted(14 if r == 1 else r for r in ranks)
    return high[0], high[-1]


# ---------------------------------------------------------------------------- contract test


class _Hand:
    """Counts of a hand's naturals by rank and by (rank, suit), and its wilds."""

    __slots__ = ("by_rank", "by_type", "cards", "ranks", "wilds")

    def __init__(self, hand: list[Card]) -> None:
        self.cards = hand
        self.by_rank = [0] * 14
        self.by_type: dict[tuple[int, str], int] = {}
        self.wilds = 0
        for c in hand:
            if is_wild(c):
                self.wilds += 1
            else:
                self.by_rank[c.rank] += 1
                key = (c.rank, c.suit)
                self.by_type[key] = self.by_type.get(key, 0) + 1
        self.ranks = [r for r in range(1, 14) if self.by_rank[r]]


def _candidates(h: _Hand, kind: str, size: int, same_suit: bool, prune: bool) -> list[tuple]:
    """Placements of one meld holding at least one natural: ("set", rank) or
    ("run", low position, suit or None); with ``prune``, only those the hand's wilds could
    complete on their own."""
    spare = h.wilds if prune else size
    if kind == SET:
        return [(SET, r, size) for r in h.ranks if h.by_rank[r] + spare >= size]
    out = []
    suits = sorted({s for (_, s) in h.by_type}) if same_suit else [None]
    for suit in suits:
        for lo in range(1, 16 - size):
            covered = 0
            for pos in range(lo, lo + size):
                r = 1 if pos == 14 else pos
                covered += (h.by_type.get((r, suit), 0) if suit else h.by_rank[r]) > 0
            if covered and covered + spare >= size:
                out.append((RUN, lo, size, suit))
    return out


def _demands(meld: tuple) -> list[tuple[int, str | None, int]]:
    """(rank, suit or None for any, how many) that a placed meld asks for."""
    if meld[0] == SET:
        return [(meld[1], None, meld[2])]
    _, lo, size, suit = meld
    return [(1 if pos == 14 else pos, suit, 1) for pos in range(lo, lo + size)]


def _used(h: _Hand, melds: tuple) -> int:
    """The most naturals an assignment to these placed melds can use (see module doc)."""
    specific: dict[tuple[int, str], int] = {}
    flexible = [0] * 14
    for m in melds:
        for rank, suit, k in _demands(m):
            if suit is None:
                flexible[rank] += k
            else:
                specific[(rank, suit)] = specific.get((rank, suit), 0) + k
    used = 0
    spent = [0] * 14
    for (rank, suit), k in specific.items():
        u = min(h.by_type.get((rank, suit), 0), k)
        used += u
        spent[rank] += u
    for rank in range(1, 14):
        if flexible[rank]:
            used += min(h.by_rank[rank] - spent[rank], flexible[rank])
    return used


def _hall(h: _Hand, melds: tuple) -> bool:
    """Every group of melds can use as many distinct naturals as it has melds."""
    if len(melds) == 1:
        return True  # a placement always covers a natural
    for n in range(2, len(melds) + 1):
        for group in combinations(melds, n):
            types: set = set()
            for m in group:
                for rank, suit, _ in _demands(m):
                    types.add((rank, suit))
            avail = 0
            ranks_any = {r for r, s in types if s is None}
            avail += sum(h.by_rank[r] for r in ranks_any)
            avail += sum(
                h.by_type.get((r, s), 0) for r, s in types if s is not None and r not in ranks_any
            )
            if avail < n:
                return False
    return True


def _placements(h: _Hand, contract: int, same_suit: bool, prune: bool = True):
    """Every placement of the contract's melds (repeated kinds in a fixed order)."""
    reqs = CONTRACTS[contract]
    sets = [k for t, k in reqs if t == SET]
    runs = [k for t, k in reqs if t == RUN]
    set_choices = (
        combinations_with_replacement(_candidates(h, SET, sets[0], same_suit, prune), len(sets))
        if sets
        else [()]
    )
    set_choices = list(set_choices)
    run_choices = (
        list(
            combinations_with_replacement(_candidates(h, RUN, runs[0], same_suit, prune), len(runs))
        )
        if runs
        else [()]
    )
    for s, r in product(set_choices, run_choices):
        yield s + r


def _alone(h: _Hand, meld: tuple) -> int:
    """The naturals a placed meld could use on its own (an upper bound on its share)."""
    if meld[0] == SET:
        return min(h.by_rank[meld[1]], meld[2])
    _, lo, size, suit = meld
    return sum(
        1
        for pos in range(lo, lo + size)
        if (
            h.by_type.get((1 if pos == 14 else pos, suit), 0)
            if suit
            else h.by_rank[1 if pos == 14 else pos]
        )
    )


def shortfall(hand: list[Card], contract: int, *, same_suit: bool = False) -> int:
    """How many more wild cards the hand would need to lay the contract down (0: it can now);
    ``NO_CONTRACT`` when no placement holds a natural in every meld (fewer naturals than
    melds). The bots' measure of distance to the contract. Placements are tried best bound
    first and skipped when even their melds' separate counts cannot beat the best so far."""
    h = _Hand(hand)
    reqs = CONTRACTS[contract]
    total = sum(k for _, k in reqs)
    per_kind = []
    for kind in (SET, RUN):
        sizes = [k for t, k in reqs if t == kind]
        if not sizes:
            continue
        cands = [(_alone(h, m), m) for m in _candidates(h, kind, sizes[0], same_suit, False)]
        combos = [
            (sum(u for u, _ in combo), tuple(m for _, m in combo))
            for combo in combinations_with_replacement(cands, len(sizes))
        ]
        combos.sort(key=lambda t: -t[0])
        per_kind.append(combos)
    if len(per_kind) == 1:
        per_kind.append([(0, ())])
    first, second = per_kind
    if not first or not second:
        return NO_CONTRACT
    best = NO_CONTRACT
    top = second[0][0]
    base = total - h.wilds
    for bound_a, melds_a in first:
        if max(0, base - bound_a - top) >= best:
            break  # both lists are sorted: nothing later can do better
        for bound_b, melds_b in second:
            if max(0, base - bound_a - bound_b) >= best:
                break
            melds = melds_a + melds_b
            lack = max(0, base - _used(h, melds))
            if lack < best and _hall(h, melds):
                best = lack
                if best == 0:
                    return 0
    return best


def can_lay_down(hand: list[Card], contract: int, *, same_suit: bool = False) -> bool:
    """Exact (module doc); only placements the hand's wilds could complete are tried."""
    h = _Hand(hand)
    total = sum(k for _, k in CONTRACTS[contract])
    return any(
        total - _used(h, melds) <= h.wilds and _hall(h, melds)
        for melds in _placements(h, contract, same_suit)
    )


def lay_down(
    hand: list[Card], contract: int, *, same_suit: bool = False
) -> list[list[Card]] | None:
    """Groups of the least sizes making the contract out of ``hand`` (in the contract's
    order), or None. Deterministic: the first placement found, naturals by suit then copy."""
    return next(lay_downs(hand, contract, same_suit=same_suit), None)


def lay_downs(hand: list[Card], contract: int, *, same_suit: bool = False):
    """Every way ``hand`` can lay the contract down, one grouping per placement of its melds
    (each as `lay_down` gives it), in `lay_down`'s order: the planner bot picks among them."""
    h = _Hand(hand)
    total = sum(k for _, k in CONTRACTS[contract])
    for melds in _placements(h, contract, same_suit):
        if total - _used(h, melds) > h.wilds or not _hall(h, melds):
            continue
        groups = _assign(h, melds, total)
        if groups is not None:
            yield groups


def _assign(h: _Hand, melds: tuple, total: int) -> list[list[Card]] | None:
    """Cards for each placed meld: one representative natural per meld (tried in turn), then
    per rank the specific demands, then the flexible ones; wilds fill the rest."""
    options = []
    for m in melds:
        types = sorted({(r, s) for r, s, _ in _demands(m)}, key=lambda t: (t[0], t[1] or ""))
        opts = []
        for r, s in types:
            if s is None:
                opts.extend((r, x) for x in "SHDC" if h.by_type.get((r, x), 0))
            elif h.by_type.get((r, s), 0):
                opts.append((r, s))
        options.append(opts)
    for reps in product(*options):
        groups = _fill(h, melds, reps)
        if groups is not None:
            return groups
    return None


def _fill(h: _Hand, melds: tuple, reps: tuple) -> list[list[Card]] | None:
    pool: dict[tuple[int, str], list[Card]] = {}
    wilds = []
    for c in sorted(h.cards, key=lambda c: (c.rank, c.suit or "", c.copy)):
        if is_wild(c):
            wilds.append(c)
        else:
            pool.setdefault((c.rank, c.suit), []).append(c)
    groups: list[list[Card]] = [[] for _ in melds]
    need: list[list[list]] = []  # per meld: [rank, suit, count] still open
    for i, (m, (rank, suit)) in enumerate(zip(melds, reps, strict=True)):
        left = pool.get((rank, suit))
        if not left:
            return None
        groups[i].append(left.pop(0))
        demands = [[r, s, k] for r, s, k in _demands(m)]
        for d in demands:
            if d[0] == rank and (d[1] is None or d[1] == suit) and d[2]:
                d[2] -= 1
                break
        need.append(demands)
    # specific demands first, then flexible ones (any suit of the rank)
    for flexible in (False, True):
        for i, demands in enumerate(need):
            for d in demands:
                r, s, k = d
                if not k or (s is None) != flexible:
                    continue
                keys = [(r, x) for x in "SHDC"] if s is None else [(r, s)]
                for key in keys:
                    while d[2] and pool.get(key):
                        groups[i].append(pool[key].pop(0))
                        d[2] -= 1
    missing = sum(d[2] for demands in need for d in demands)
    if missing > len(wilds):
        return None
    for i, demands in enumerate(need):
        for d in demands:
            for _ in range(d[2]):
                groups[i].append(wilds.pop(0))
    return groups


def fits_contract(
    groups: list[list[Card]], contract: int, *, same_suit: bool = False
) -> str | None:
    """None when ``groups`` (in the contract's order) lay the contract down, else why not."""
    reqs = CONTRACTS[contract]
    if len(groups) != len(reqs):
        return f"contract {contract + 1} is {describe(contract)}: {len(reqs)} melds"
    for group, (kind, size) in zip(groups, reqs, strict=True):
        text = " ".join(c.text for c in group)
        if len(group) < size:
            return f"{text} is too short for a {kind} of {size}"
        if not meld_ok(kind, group, same_suit=same_suit):
            return f"{text} is not a {kind}"
    return None
