"""Swiss pairing and tie-breaks on plain data (no database)."""

import random
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats import swiss
from tournaments.formats.swiss import Game, default_rounds, pair_round, scores
from tournaments.formats.tiebreaks import standings

FAST = settings(max_examples=40, deadline=None)


def play_round(rnd, pairing, rng, draws=False):
    games = []
    for a, b in pairing.pairs:
        result = rng.choice([1.0, 0.0, 0.5] if draws else [1.0, 0.0])
        games.append(Game(rnd, a, b, result))
    if pairing.bye is not None:
        games.append(Game(rnd, pairing.bye, None))
    return games


def best_repeats(players, games):
    """Brute force: the fewest repeats (and second byes) any complete pairing can have."""
    met = {frozenset((g.first, g.second)) for g in games if g.second is not None}
    byes = {g.first for g in games if g.second is None}
    best = [len(players)]

    def go(rest, cost):
        if cost >= best[0]:
            return
        if not rest:
            best[0] = cost
            return
        a = rest[0]
        if len(rest) % 2:  # a sits out: the bye
            go(rest[1:], cost + (a in byes))
        for b in rest[1:]:
            go([x for x in rest[1:] if x != b], cost + (frozenset((a, b)) in met))

    go(list(players), 0)
    return best[0]


def check_round(players, pairing):
    seated = [p for pair in pairing.pairs for p in pair]
    if pairing.bye is not None:
        seated.append(pairing.bye)
    assert sorted(seated) == sorted(players)
    assert (pairing.bye is not None) == (len(players) % 2 == 1)


def assert_settled(pairing, pts, games):
    """No two pairs within SETTLE_WINDOW boards can swap partners, without a repeat, to put
    fewer pairs across score groups (or the same number with closer scores)."""
    met = {frozenset((g.first, g.second)) for g in games if g.second is not None}

    def cost(a, b):
        d = pts.get(a, 0.0) - pts.get(b, 0.0)
        return (d != 0, d * d)

    def both(p, q):
        return tuple(x + y for x, y in zip(cost(*p), cost(*q), strict=True))

    pairs = pairing.pairs
    for i, j in combinations(range(len(pairs)), 2):
        if j - i > swiss.SETTLE_WINDOW or {frozenset(pairs[i]), frozenset(pairs[j])} & met:
            continue
        (a, b), (c, d) = pairs[i], pairs[j]
        for p, q in (((a, c), (b, d)), ((a, d), (b, c))):
            if not {frozenset(p), frozenset(q)} & met:
                assert both(p, q) >= both(pairs[i], pairs[j])


# --- worked examples --------------------------------------------------------------------------


def test_round_one_is_top_half_against_bottom_half():
    """FIDE Dutch system: S1 v S2 -- with eight players 1 v 5, 2 v 6, 3 v 7, 4 v 8; the first
    seat alternates down the boards."""
    pairing = pair_round(range(1, 9))
    assert pairing.pairs == ((1, 5), (6, 2), (3, 7), (8, 4))
    assert pairing.bye is None


def test_round_two_pairs_within_score_groups():
    """Winners 1-4 meet each other (1 v 3, 2 v 4), losers 5-8 likewise; seats alternate."""
    games = [Game(1, 1, 5), Game(1, 6, 2, 0.0), Game(1, 3, 7), Game(1, 8, 4, 0.0)]
    pairing = pair_round(range(1, 9), games)
    assert {frozenset(p) for p in pairing.pairs} == {
        frozenset(s) for s in [(1, 3), (2, 4), (5, 7), (6, 8)]
    }
    # Player 1 sat first in round 1, player 3 too; 2 and 4 sat second: balanced by board.
    firsts = {a for a, _ in pairing.pairs}
    assert 2 in firsts or 4 in firsts


def test_transposition_avoids_a_repeat():
    """Four players who all won or all lost... 1 and 2 already met: 1 takes the next one."""
    games = [Game(1, 1, 2, 0.5), Game(1, 3, 4, 0.5)]
    pairing = pair_round([1, 2, 3, 4], games)
    assert not pairing.repeats
    assert frozenset((1, 2)) not in {frozenset(p) for p in pairing.pairs}


def test_bye_goes_to_the_lowest_ranked_player_without_one_and_is_worth_a_win():
    """C.04.1: the unpaired player scores as for a win; nobody receives the bye twice."""
    first = pair_round(["a", "b", "c", "d", "e"])
    assert first.bye == "e"
    games = [*(Game(1, x, y, 1.0) for x, y in first.pairs), Game(1, "e", None)]
    assert scores(games)["e"] == 1.0
    second = pair_round(["a", "b", "c", "d", "e"], games)
    assert second.bye != "e"
    assert second.bye is not None


def test_blossom_repair_finds_the_only_complete_pairing():
    """Six players whose greedy pass strands two who met: the repair re-pairs the round.

    After games 1-2, 3-4, 5-6 and 1-3, 2-5, 4-6 (all drawn, one score group), 1 v 4 or 1 v 5
    or 1 v 6 leave ... the matching search has to find 1-6/2-3/4-5 or 1-4/2-6/3-5 or 1-5/2-4/3-6.
    """
    games = [
        Game(1, 1, 2, 0.5),
        Game(1, 3, 4, 0.5),
        Game(1, 5, 6, 0.5),
        Game(2, 1, 3, 0.5),
        Game(2, 2, 5, 0.5),
        Game(2, 4, 6, 0.5),
    ]
    pairing = pair_round(range(1, 7), games)
    check_round(list(range(1, 7)), pairing)
    assert not pairing.repeats
    met = {frozenset((g.first, g.second)) for g in games}
    assert not met & {frozenset(p) for p in pairing.pairs}


def test_repeats_only_when_unavoidable():
    """Four players after a complete round robin: every pairing repeats, so two repeats."""
    games = [Game(r, a, b, 0.5) for r, (a, b) in enumerate(combinations([1, 2, 3, 4], 2), 1)]
    pairing = pair_round([1, 2, 3, 4], games)
    assert len(pairing.repeats) == 2


@pytest.mark.parametrize(("n", "rounds"), [(2, 1), (3, 2), (8, 3), (9, 4), (100, 7), (4096, 12)])
def test_default_rounds(n, rounds):
    assert default_rounds(n) == rounds


# --- properties ---------------------------------------------------------------------------


@given(st.integers(min_value=2, max_value=9), st.randoms(use_true_random=False), st.booleans())
@FAST
def test_small_fields_match_brute_force(n, rng, draws):
    """Every round of a small Swiss has exactly as few repeats and second byes as the best
    complete pairing: none while a repeat-free pairing with single byes exists."""
    players = list(range(1, n + 1))
    games = []
    for rnd in range(1, n + 2):
        pairing = pair_round(players, games)
        check_round(players, pairing)
        second_byes = pairing.bye is not None and any(
            g.second is None and g.first == pairing.bye for g in games
        )
        assert len(pairing.repeats) + second_byes == best_repeats(players, games)
        games += play_round(rnd, pairing, rng, draws)


@given(st.integers(min_value=4, max_value=200), st.randoms(use_true_random=False))
@FAST
def test_default_length_swiss_never_repeats_and_keeps_score_groups(n, rng):
    """Over the default number of rounds: no repeat, no second bye, every player once a
    round, and score groups kept as far as two-pair swaps nearby can keep them."""
    players = list(range(n))
    games = []
    byes = set()
    for rnd in range(1, default_rounds(n) + 1):
        pairing = pair_round(players, games)
        check_round(players, pairing)
        assert not pairing.repeats
        assert pairing.bye not in byes
        if pairing.bye is not None:
            byes.add(pairing.bye)
        assert_settled(pairing, scores(games), games)
        games += play_round(rnd, pairing, rng)


@given(st.integers(min_value=3, max_value=60), st.randoms(use_true_random=False))
@FAST
def test_the_bye_goes_to_the_lowest_ranked_player_without_one(n, rng):
    players = list(range(n | 1))
    games = []
    for rnd in range(1, default_rounds(len(players)) + 1):
        pairing = pair_round(players, games)
        pts = scores(games)
        had = {g.first for g in games if g.second is None}
        ranked = sorted(players, key=lambda p: (-pts.get(p, 0.0), p))
        expected = next(p for p in reversed(ranked) if p not in had)
        # Over a default-length Swiss the lowest-ranked eligible player can always take it.
        assert pairing.bye == expected
        games += play_round(rnd, pairing, rng)


def test_seat_balance_over_a_swiss():
    """Nobody's first-seat count differs from their second-seat count by more than two."""
    rng = random.Random(3)
    players = list(range(32))
    games = []
    for rnd in range(1, 6):
        games += play_round(rnd, pair_round(players, games), rng)
    balance = dict.fromkeys(players, 0)
    for g in games:
        balance[g.first] += 1
        balance[g.second] -= 1
    assert max(abs(b) for b in balance.values()) <= 2


def test_withdrawn_players_are_not_paired_but_their_games_count():
    games = [Game(1, 1, 2), Game(1, 3, 4)]
    pairing = pair_round([1, 3, 4], games)  # 2 withdrew
    check_round([1, 3, 4], pairing)
    assert frozenset((3, 4)) not in {frozenset(p) for p in pairing.pairs}


def test_validation():
    with pytest.raises(ValueError, match="at least 2"):
        pair_round([1])
    with pytest.raises(ValueError, match="twice"):
        pair_round([1, 1])


@given(st.integers(min_value=2, max_value=10), st.randoms(use_true_random=False))
@FAST
def test_blossom_search_alone_finds_a_maximum_matching(n, rng):
    """Edmonds' algorithm on random graphs (odd cycles included), from an empty matching,
    reaches the brute-force maximum: the guarantee behind "no repeat while avoidable"."""
    edges = {frozenset(e) for e in combinations(range(n), 2) if rng.random() < 0.4}

    def allowed(a, b):
        return frozenset((a, b)) in edges

    mate = [-1] * n
    swiss._blossom(n, mate, allowed)
    assert all(mate[mate[v]] == v and allowed(v, mate[v]) for v in range(n) if mate[v] != -1)

    def best(rest):
        if len(rest) < 2:
            return 0
        a, tail = rest[0], rest[1:]
        options = [best(tail)]
        options += [1 + best([x for x in tail if x != b]) for b in tail if allowed(a, b)]
        return max(options)

    assert sum(m != -1 for m in mate) // 2 == best(list(range(n)))


# --- tie-breaks ---------------------------------------------------------------------------

# A: beats B, beats C, loses to D.  B: draws D, beats C.  C: beats D.
EXAMPLE = [
    Game(1, "A", "B", 1.0),
    Game(1, "C", "D", 1.0),
    Game(2, "A", "C", 1.0),
    Game(2, "B", "D", 0.5),
    Game(3, "A", "D", 0.0),
    Game(3, "B", "C", 1.0),
]


def test_buchholz_and_sonneborn_berger_worked_example():
    """Scores A 2, B 1.5, D 1.5, C 1. Buchholz (sum of opponents' scores): B and D 4.5.
    Sonneborn-Berger (points times the opponent's score): B 0 + 0.75 + 1 = 1.75,
    D 0 + 0.75 + 2 = 2.75, so D is second."""
    rows = standings(["A", "B", "C", "D"], EXAMPLE, ("buchholz", "sonneborn_berger"))
    assert [r.entry for r in rows] == ["A", "D", "B", "C"]
    by = {r.entry: dict(r.tiebreaks) for r in rows}
    assert by["B"] == {"buchholz": 4.5, "sonneborn_berger": 1.75}
    assert by["D"] == {"buchholz": 4.5, "sonneborn_berger": 2.75}
    assert by["A"]["buchholz"] == 4.0
    assert [r.rank for r in rows] == [1, 2, 3, 4]


def test_median_buchholz_cuts_the_best_and_worst_opponent():
    rows = standings(["A", "B", "C", "D"], EXAMPLE, ("median_buchholz",))
    by = {r.entry: dict(r.tiebreaks)["median_buchholz"] for r in rows}
    assert by == {"A": 1.5, "B": 1.5, "C": 1.5, "D": 1.5}


def test_head_to_head_then_rating():
    """B and D drew each other: head-to-head leaves them tied, rating decides."""
    rows = standings(
        ["A", "B", "C", "D"], EXAMPLE, ("head_to_head", "rating"), {"B": 1400, "D": 1500}
    )
    assert [r.entry for r in rows] == ["A", "D", "B", "C"]
    # With B's win over D instead, head-to-head alone separates them.
    games = [g if g.round != 2 or g.first != "B" else Game(2, "B", "D", 1.0) for g in EXAMPLE]
    rows = standings(["A", "B", "C", "D"], games, ("head_to_head",))
    assert rows[1].entry == "B"


def test_ties_share_a_rank_and_byes_add_no_buchholz():
    games = [Game(1, "a", "b", 0.5), Game(1, "c", None)]
    rows = standings(["a", "b", "c"], games, ("buchholz",))
    assert [(r.entry, r.rank) for r in rows] == [("c", 1), ("a", 2), ("b", 2)]
    assert dict(rows[0].tiebreaks)["buchholz"] == 0.0


def test_tiebreak_validation():
    with pytest.raises(ValueError, match="unknown tie-break"):
        standings(["a"], [], ("coin",))
    with pytest.raises(ValueError, match="needs ratings"):
        standings(["a"], [], ("rating",))
