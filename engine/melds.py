"""Meld rules and exact grouping search for the multi-player variants (Basic and Indian).

Gin keeps its own bitmask evaluator (`engine.gin`); Basic and Indian Rummy need what it does
not: wild cards, aces high or low, two decks, and the Indian requirement of a pure run.

Terms used here. A *printed joker* is ``JK``. With a *wild rank* (Indian Rummy's cut joker),
every card of that rank is wild too. A *natural* is a card that is neither. A card of the wild
rank may always stand for itself instead: 4H 5H 6H with fives wild is a pure run, 5H 5D 5C a
set of fives, and 5H JK JK a run from the 5H (its other cards fill). Every meld needs at least
one card standing for itself, so printed jokers alone are not a meld, unless a room reads them
as one (``joker_groups``).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from engine.cards import Card

#: Basic Rummy values (seed 002): "Face cards are worth 10 points each, aces are 1 point".
BASIC_POINTS = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
#: Indian Rummy values (standard rules): aces and faces 10, others face value, jokers 0.
INDIAN_POINTS = (0, 10, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
MAX_RUN = 13
#: The longest run the 21-card search enumerates (see `Search`).
SPLIT_RUN = 5
INF = 1 << 30


@dataclass(frozen=True)
class Meld:
    """What a valid group is: ``kind`` "run" or "set"; ``pure`` for a run without wild use."""

    kind: str
    pure: bool


def _positions(ranks: list[int], ace_high: bool) -> list[list[int]]:
    """The rank positions a run may use: aces low (1), and also high (14) if allowed."""
    out = [sorted(ranks)]
    if ace_high and 1 in ranks:
        out.append(sorted(14 if r == 1 else r for r in ranks))
    return out


def _consecutive(ranks: list[int], ace_high: bool) -> bool:
    return any(
        len(set(p)) == len(p) and p[-1] - p[0] == len(p) - 1 for p in _positions(ranks, ace_high)
    )


def _fits(ranks: list[int], size: int, ace_high: bool) -> bool:
    """Distinct naturals whose span a run of ``size`` cards covers, jokers filling the gaps."""
    return any(
        len(set(p)) == len(p) and p[-1] - p[0] + 1 <= size for p in _positions(ranks, ace_high)
    )


def classify(
    group: list[Card],
    *,
    wild_rank: int | None = None,
    ace_high: bool = False,
    five_card_sets: bool = False,
    joker_groups: bool = False,
    extra_wilds: frozenset = frozenset(),
) -> Meld | None:
    """The meld ``group`` makes (order ignored), or None.

    Runs: 3+ cards of one suit in sequence, no wrap (K-A-2 never). Sets: 3-4 cards of one
    rank in different suits (a fifth, wild, with ``five_card_sets``). Printed jokers and
    wild-rank cards fill any gap or missing suit; a wild-rank card may stand for itself.
    ``joker_groups`` reads three or more printed jokers alone as a set. ``extra_wilds`` names
    further wild cards as (rank, suit) pairs (21-card Indian's upper and lower jokers); like
    wild-rank cards they may stand for themselves.
    """
    n = len(group)
    if n < 3:
        return None
    largest_set = 5 if five_card_sets else 4
    if not any(c.is_joker for c in group):
        suits = {c.suit for c in group}
        ranks = [c.rank for c in group]
        if n <= MAX_RUN and len(suits) == 1 and _consecutive(ranks, ace_high):
            return Meld("run", True)
        if n <= 4 and len(set(ranks)) == 1 and len(suits) == n:
            return Meld("set", False)
    naturals = [c for c in group if not _wild(c, wild_rank, extra_wilds)]
    if len(naturals) == n:
        return None
    if not naturals:
        if any(not c.is_joker for c in group):
            # One wild-rank card stands for itself, the others fill the run beside it.
            return Meld("run", False) if n <= MAX_RUN else None
        return Meld("set", False) if joker_groups and n <= largest_set else None
    suits = {c.suit for c in naturals}
    ranks = [c.rank for c in naturals]
    if n <= MAX_RUN and len(suits) == 1 and _fits(ranks, n, ace_high):
        return Meld("run", False)
    if n <= largest_set and len(set(ranks)) == 1 and len(suits) == len(naturals):
        return Meld("set", False)
    return None


def _wild(c: Card, wild_rank, extra_wilds) -> bool:
    return c.is_joker or c.rank == wild_rank or (c.rank, c.suit) in extra_wilds


# ------------------------------------------------------------------------- grouping search
#
# Flag states (13 cards): pure (0/1) * 3 + runs (0, 1, 2 meaning "two or more").
FLAGS = 6
PURE_AND_TWO_RUNS = 5
_ADD = [
    [[(p | gp) * 3 + min(2, r + gr) for p in (0, 1) for r in (0, 1, 2)] for gr in (0, 1)]
    for gp in (0, 1)
]
# Flag states (21 cards, ``scheme="pure3"``): how many pure groups, 0 to 3 meaning "three or
# more"; a run's being impure or a set adds nothing.
PURE3_FLAGS = 4
THREE_PURE = 3
_ADD_PURE3 = [[[min(3, f + gp) for f in range(PURE3_FLAGS)] for _ in (0, 1)] for gp in (0, 1)]


class _Group:
    __slots__ = ("jokers", "members", "pure", "run")

    def __init__(self, members: int, jokers: int, run: bool, pure: bool) -> None:
        self.members = members
        self.jokers = jokers
        self.run = run
        self.pure = pure


class Search:
    """Exact least-ungrouped-points search over one hand (13-15 cards), memoised.

    A state is (bitmask of cards still to place, printed jokers left); its value is a vector
    over the flag states reached (has a pure run, how many runs), so one search answers the
    Indian scoring rule, the declaration rule and the bots' heuristics at once. Cards are
    indexed naturals first, then wild-rank cards; printed jokers are only counted, since any
    one is as good as another. Subsets of the hand (a discard, a drawn card) reuse the memo.
    """

    def __init__(
        self,
        hand: list[Card],
        *,
        wild_rank: int | None = None,
        ace_high: bool = False,
        points: tuple[int, ...] = BASIC_POINTS,
        extra_wilds: frozenset = frozenset(),
        scheme: str = "indian13",
    ) -> None:
        """``scheme`` "pure3" (21-card Indian) counts pure groups up to three instead of the
        13-card flags, and reads three identical naturals (a tunnela) as a pure group."""
        if scheme == "pure3":
            self.flags, self._add, self._wild_only = PURE3_FLAGS, _ADD_PURE3, _wild_only_pure3
        else:
            self.flags, self._add, self._wild_only = FLAGS, _ADD, _wild_only
        naturals = sorted((c for c in hand if not _wild(c, wild_rank, extra_wilds)), key=_order)
        wilds = sorted(
            (c for c in hand if not c.is_joker and _wild(c, wild_rank, extra_wilds)), key=_order
        )
        self.cards: list[Card] = naturals + wilds
        self.printed = [c for c in hand if c.is_joker]
        self.natural_mask = (1 << len(naturals)) - 1
        self.wild_mask = ((1 << len(self.cards)) - 1) ^ self.natural_mask
        self.points = [points[c.rank] for c in naturals] + [0] * len(wilds)
        self.index = {c: i for i, c in enumerate(self.cards)}
        self.full = (1 << len(self.cards)) - 1
        max_jokers = len(wilds) + len(self.printed)
        self._by_low: list[list[_Group]] = [[] for _ in naturals]
        # 21 cards: a run of six or more is never needed, since it splits into two runs
        # (each holding a natural; spare wild cards cost nothing), and the fewer groups keep
        # the search over 22 cards fast.
        longest = SPLIT_RUN if scheme == "pure3" else MAX_RUN
        groups = _enumerate(self.cards, len(naturals), ace_high, max_jokers, longest)
        if scheme == "pure3":
            groups = [*groups, *_tunnelas(naturals)]
        for g in groups:
            low = (g.members & -g.members).bit_length() - 1
            self._by_low[low].append(g)
        self._memo: dict[tuple[int, int], tuple[int, ...]] = {}

    def mask_of(self, hand: list[Card]) -> tuple[int, int]:
        """The search state of a sub-hand: (mask, printed jokers)."""
        mask = 0
        for c in hand:
            if not c.is_joker:
                mask |= 1 << self.index[c]
        return mask, sum(1 for c in hand if c.is_joker)

    def costs(self, mask: int, jokers: int) -> tuple[int, ...]:
        """Least ungrouped points per flag state (INF where unreachable)."""
        key = (mask, jokers)
        memo = self._memo
        if key in memo:
            return memo[key]
        rest = mask & self.natural_mask
        if not rest:
            out = self._wild_only(mask.bit_count(), jokers)
            memo[key] = out
            return out
        low = rest & -rest
        i = low.bit_length() - 1
        sub = self.costs(mask ^ low, jokers)
        pts = self.points[i]
        best = [v + pts for v in sub]
        table = self._add
        for g, new_mask, new_jokers in self._choices(i, mask, jokers):
            sub = self.costs(new_mask, new_jokers)
            add = table[g.pure][g.run]
            for f in range(self.flags):
                v = sub[f]
                if v < best[add[f]]:
                    best[add[f]] = v
        out = tuple(best)
        memo[key] = out
        return out

    def _choices(self, i: int, mask: int, jokers: int):
        """Each group holding card ``i`` that fits in ``mask``, with the cards it uses as
        jokers: printed jokers first (never worse, since a wild card could also stand for
        itself in a pure run), then each choice of wild-rank cards."""
        for g in self._by_low[i]:
            members = g.members
            if members & mask != members:
                continue
            need = g.jokers
            if not need:
                yield g, mask ^ members, jokers
                continue
            printed = min(need, jokers)
            need -= printed
            rest = mask ^ members
            if not need:
                yield g, rest, jokers - printed
                continue
            avail = rest & self.wild_mask
            if avail.bit_count() < need:
                continue
            for combo in combinations(list(_bits(avail)), need):
                yield g, rest ^ sum(combo), jokers - printed

    def arrangement(self, mask: int, jokers: int, flag: int) -> tuple[list[list[Card]], list[Card]]:
        """The groups and ungrouped cards of an optimal solution ending in flag state ``flag``;
        leftover jokers are returned ungrouped (callers attach them where they like)."""
        target = self.costs(mask, jokers)[flag]
        if target >= INF:
            raise ValueError("no arrangement reaches that flag state")
        groups: list[list[Card]] = []
        ungrouped: list[Card] = []
        printed = list(self.printed[:jokers])
        while mask & self.natural_mask:
            rest = mask & self.natural_mask
            low = rest & -rest
            i = low.bit_length() - 1
            if self.costs(mask ^ low, jokers)[flag] + self.points[i] == target:
                ungrouped.append(self.cards[i])
                target -= self.points[i]
                mask ^= low
                continue
            for g, new_mask, new_jokers in self._choices(i, mask, jokers):
                sub = self.costs(new_mask, new_jokers)
                add = self._add[g.pure][g.run]
                found = next(
                    (f for f in range(self.flags) if add[f] == flag and sub[f] == target), None
                )
                if found is None:
                    continue
                used = mask ^ new_mask
                group = [self.cards[j] for j in _indices(used)]
                group += [printed.pop() for _ in range(jokers - new_jokers)]
                groups.append(group)
                mask, jokers, flag = new_mask, new_jokers, found
                break
            else:  # pragma: no cover - the memo guarantees some choice reaches the target
                raise AssertionError("arrangement search lost its way")
        # What is left is wild: the runs of wild cards alone that the flag state counted.
        wild = [self.cards[j] for j in _indices(mask)]
        printed = printed[:jokers]
        for _ in range(flag % 3 if self.flags == FLAGS else 0):
            group = [wild.pop()]
            while len(group) < 3:
                group.append(wild.pop() if wild else printed.pop())
            groups.append(group)
        ungrouped += wild + printed
        return groups, ungrouped


def _wild_only(wild_cards: int, jokers: int) -> tuple[int, ...]:
    """The flag states the wild cards left over can reach, at no cost: runs of three, each
    from a wild-rank card standing for itself (5H JK JK with fives wild), none pure."""
    runs = min(2, wild_cards, (wild_cards + jokers) // 3)
    return (0,) * (runs + 1) + (INF,) * (FLAGS - runs - 1)


def _wild_only_pure3(wild_cards: int, jokers: int) -> tuple[int, ...]:
    """21 cards: wild cards left over cost nothing but make no pure group."""
    return (0,) + (INF,) * (PURE3_FLAGS - 1)


def _tunnelas(naturals: list[Card]) -> list[_Group]:
    """Three identical naturals (a tunnela, 21-card Indian), as pure groups."""
    by_text: dict[str, list[int]] = {}
    for i, c in enumerate(naturals):
        by_text.setdefault(c.text, []).append(i)
    return [
        _Group(sum(1 << i for i in trio), 0, True, True)
        for same in by_text.values()
        for trio in combinations(same, 3)
    ]


def _order(c: Card) -> tuple:
    return (c.suit, c.rank, c.copy)


def _bits(mask: int):
    while mask:
        low = mask & -mask
        yield low
        mask ^= low


def _indices(mask: int) -> list[int]:
    return [b.bit_length() - 1 for b in _bits(mask)]


def _enumerate(
    cards: list[Card], naturals: int, ace_high: bool, max_jokers: int, longest: int = MAX_RUN
):
    """Every group the search may use, as bitmasks over ``cards`` (naturals first)."""
    seen: set[tuple[int, int]] = set()
    nat = cards[:naturals]
    by_suit: dict[str, list[tuple[int, int]]] = {}
    for i, c in enumerate(nat):
        by_suit.setdefault(c.suit, []).append((c.rank, i))
        if ace_high and c.rank == 1:
            by_suit[c.suit].append((14, i))
    for entries in by_suit.values():
        entries.sort()
        for start in range(len(entries)):
            yield from _runs(entries, start, max_jokers, seen, longest)
    # Pure runs that use a wild-rank card for itself (the others came from _runs above).
    if naturals < len(cards):
        for w in range(naturals, len(cards)):
            yield from _pure_with_wild(cards, naturals, w, ace_high, seen, longest)
    by_rank: dict[int, dict[str, list[int]]] = {}
    for i, c in enumerate(nat):
        by_rank.setdefault(c.rank, {}).setdefault(c.suit, []).append(i)
    for suits in by_rank.values():
        options = list(suits.values())
        # A lone card with two jokers is better read as a run, so sets start at two.
        for size in range(2, min(4, len(options)) + 1):
            need = max(0, 3 - size)
            if need > max_jokers:
                continue
            for chosen in combinations(options, size):
                for pick in _product(chosen):
                    yield _Group(sum(1 << i for i in pick), need, False, False)


def _product(lists):
    if not lists:
        yield ()
        return
    for head in lists[0]:
        for tail in _product(lists[1:]):
            yield (head, *tail)


def _runs(entries, start, max_jokers, seen, longest=MAX_RUN):
    """Runs whose lowest position is ``entries[start]``, extended card by card."""
    first_pos, first = entries[start]
    stack = [(first_pos, 1 << first, 1, first_pos)]
    while stack:
        last_pos, members, count, low = stack.pop()
        span = last_pos - low + 1
        need = max(3, span) - count
        if need <= max_jokers and (members, need) not in seen:
            seen.add((members, need))
            yield _Group(members, need, True, need == 0)
        for pos, i in entries:
            if pos <= last_pos or members >> i & 1:
                continue
            if pos - low + 1 > longest:
                break
            gaps = pos - low + 1 - (count + 1)
            if gaps > max_jokers:
                break
            stack.append((pos, members | 1 << i, count + 1, low))


def _pure_with_wild(cards, naturals, w, ace_high, seen, longest=MAX_RUN):
    """Pure runs (no gaps) that include wild-rank card ``w`` standing for itself."""
    suit = cards[w].suit
    by_pos: dict[int, list[int]] = {}
    for i, c in enumerate(cards):
        if c.suit != suit or (i >= naturals and i != w):
            continue
        by_pos.setdefault(c.rank, []).append(i)
        if ace_high and c.rank == 1:
            by_pos.setdefault(14, []).append(i)
    pos_w = cards[w].rank
    for wpos in [pos_w] + ([14] if ace_high and pos_w == 1 else []):
        for lo in range(max(1, wpos - longest + 1), wpos + 1):
            for hi in range(max(wpos, lo + 2), min(lo + longest - 1, 14) + 1):
                lists: list[list[int]] = []
                ok = True
                for pos in range(lo, hi + 1):
                    if pos == wpos:
                        lists.append([w])
                    elif pos in by_pos:
                        lists.append([i for i in by_pos[pos] if i < naturals])
                    else:
                        ok = False
                        break
                if not ok or any(not options for options in lists):
                    continue
                for pick in _product(lists):
                    if len(set(pick)) != len(pick):
                        continue
                    members = sum(1 << i for i in pick)
                    if (members, 0) not in seen:
                        seen.add((members, 0))
                        yield _Group(members, 0, True, True)
