"""`gin.best_discard`'s inline paths against the exhaustive search and the general search.

The paths (engine/README.md, "Best discard of 11"): no rank held in three suits; set
candidates none of which could join a run (all are sets); one rank in exactly three suits with
a card that could join a run (the set, else no set). Each must give what the general search
(`discard_of_mask`, which tries every pruned set choice) gives: same card, same sets, same
deadwood, and that deadwood must be the exhaustive optimum.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import cards, gin
from tests.engine import exhaustive

DECK = cards.deck()


def check(h):
    card, arr = gin.best_discard(h)
    mask = gin.mask_of(h, (11,))
    points, bit, sets = gin.discard_of_mask(mask)
    assert (gin.BIT[card], arr.sets, arr.deadwood_points) == (bit, sets, points)
    assert arr.mask == mask ^ bit
    assert arr.deadwood_points == exhaustive.least_after_discard(h)
    rest = [c for c in h if c is not card]
    assert exhaustive.least_deadwood(rest) == arr.deadwood_points
    assert sorted([c for m in arr.melds for c in m] + arr.deadwood) == sorted(rest)


@settings(max_examples=80, deadline=None)
@given(st.permutations(DECK), st.integers(1, 13), st.integers(0, 3), st.integers(0, 3))
def test_one_rank_in_three_suits(deck, rank, missing, neighbour_suit):
    """A rank in exactly three suits plus a neighbour so one of its cards may join a run."""
    suits = [s for i, s in enumerate(cards.SUITS) if i != missing]
    h = [c for c in DECK if c.rank == rank and c.suit in suits]
    near = [c for c in DECK if c.suit == suits[neighbour_suit % 3] and 0 < abs(c.rank - rank) <= 2]
    h += near[:2]
    h += [c for c in deck if c.rank != rank and c not in h][: 11 - len(h)]
    check(h)


@settings(max_examples=80, deadline=None)
@given(st.permutations(DECK), st.lists(st.integers(1, 13), min_size=1, max_size=3, unique=True))
def test_set_candidates_all_sets_or_general(deck, ranks):
    """One to three ranks held in three or four suits, the rest random."""
    h = []
    for i, rank in enumerate(ranks):
        group = [c for c in deck if c.rank == rank][: 3 + i % 2]
        h += group[: 11 - len(h)]
    h += [c for c in deck if c not in h][: 11 - len(h)]
    check(h)


@settings(max_examples=80, deadline=None)
@given(st.permutations(DECK))
def test_random_hands(deck):
    check(deck[:11])


def test_pinned_paths():
    for text in (
        "AS 2S 3S 8H 8D 8C KS QD 4C 5C 6C",  # one rank in three suits, no runnable card
        "7S 7H 7D 6S 5S 9C JD QH 2C KD 3H",  # 7S could join 5S 6S: set or run
        "7S 7H 7D 7C 9S 9H 9D 9C 2H 3H 4H",  # every card melded
        "4S 4H 4D 9C 9H 9D 2C QD KS JH AS",  # two set candidates, none runnable
    ):
        check(cards.parse(text))
