"""The grouping search behind Indian scoring and declarations equals an exhaustive search.

Issue 4: "The engine validates a declaration itself", and losers are scored by the engine's
own grouping, so the search must be exact: checked here against trying every partition.
"""

from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import cards
from engine.melds import FLAGS, INDIAN_POINTS, INF, Search, classify
from engine.variants import indian

DECK = cards.deck(decks=2, jokers=2)
# Meld-rich: two suits, ranks A-6 and Q-K (aces both ways), both decks, and the jokers.
RICH = [c for c in DECK if c.is_joker or (c.suit in "HS" and c.rank in (1, 2, 3, 4, 5, 6, 12, 13))]


def exhaustive(hand, wild_rank):
    """Least loose points per flag state (pure run yes/no * runs 0, 1, 2+), by trying every
    way to split the hand into melds and loose cards."""

    def points(c):
        return 0 if c.is_joker or c.rank == wild_rank else INDIAN_POINTS[c.rank]

    @cache
    def best(rest: frozenset) -> tuple:
        if not rest:
            return (0,) + (INF,) * (FLAGS - 1)
        ordered = sorted(rest, key=lambda c: (c.code, c.copy))
        first, others = ordered[0], ordered[1:]
        out = [v + points(first) for v in best(rest - {first})]
        for mask in range(1, 1 << len(others)):
            group = [first] + [c for i, c in enumerate(others) if mask >> i & 1]
            if len(group) < 3:
                continue
            meld = classify(group, wild_rank=wild_rank, ace_high=True)
            if meld is None:
                continue
            sub = best(rest - set(group))
            run = meld.kind == "run"
            for f, v in enumerate(sub):
                pure, runs = divmod(f, 3)
                g = (pure | meld.pure) * 3 + min(2, runs + run)
                out[g] = min(out[g], v)
        return tuple(out)

    return best(frozenset(hand))


def at_least(costs):
    """Least loose points needing at least a pure run (0/1) and at least r runs: what every
    caller asks (a meld read as impure when it is pure may appear in the search's vector, but
    never anything better than the exhaustive answer)."""
    return [
        min(v for f, v in enumerate(costs) if f // 3 >= pure and f % 3 >= runs)
        for pure in (0, 1)
        for runs in (0, 1, 2)
    ]


def check(hand, wild_rank):
    s = Search(hand, wild_rank=wild_rank, ace_high=True, points=INDIAN_POINTS)
    assert at_least(s.costs(*s.mask_of(hand))) == at_least(exhaustive(hand, wild_rank))
    for flag, value in enumerate(s.costs(*s.mask_of(hand))):
        if value < INF:
            groups, loose = s.arrangement(*s.mask_of(hand), flag)
            assert all(classify(g, wild_rank=wild_rank, ace_high=True) for g in groups)
            assert sorted(map(id, [c for g in groups for c in g] + loose)) == sorted(map(id, hand))


@settings(max_examples=200, deadline=None)
@given(
    hand=st.lists(st.sampled_from(DECK), min_size=3, max_size=9, unique=True),
    wild=st.integers(1, 13),
)
def test_search_equals_exhaustive_on_random_hands(hand, wild):
    check(hand, wild)


@settings(max_examples=200, deadline=None)
@given(
    hand=st.lists(st.sampled_from(RICH), min_size=3, max_size=9, unique=True),
    wild=st.integers(1, 13),
)
def test_search_equals_exhaustive_on_meld_rich_hands(hand, wild):
    check(hand, wild)


def test_known_hand():
    """Fives wild: AH-2H-3H pure, 4C JK 6C impure, 9-9-9; 8H JD QC TS are loose (38)."""
    hand = cards.parse("AH 2H 3H 4C 6C JK 9D 9H 9S 8H JD QC TS", decks=2)
    s = Search(hand, wild_rank=5, ace_high=True, points=INDIAN_POINTS)
    assert min(s.costs(*s.mask_of(hand))[3:]) == 38


@settings(max_examples=150, deadline=None)
@given(
    hand=st.lists(st.sampled_from(RICH), min_size=13, max_size=13, unique=True),
    wild=st.integers(1, 13),
)
def test_the_engines_declarations_are_valid_and_use_exactly_the_hand(hand, wild):
    """A declaration the engine offers (legal_actions, greedy bots) always passes its own
    check: spare jokers are attached without spoiling the only pure run."""
    groups = indian.declaration(hand, wild)
    s = Search(hand, wild_rank=wild, ace_high=True, points=INDIAN_POINTS)
    assert (groups is None) == (s.costs(*s.mask_of(hand))[5] > 0)
    if groups is not None:
        assert indian.check_declaration(groups, wild) is None
        assert sorted(id(c) for g in groups for c in g) == sorted(map(id, hand))
