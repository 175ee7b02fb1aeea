"""Two-stage events on plain data (no database): snake groups, round-robins, qualifiers."""

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from competition.standings import Result
from tournaments.bracket import build_bracket, first_round
from tournaments.formats.double import build_double, play_out
from tournaments.formats.swiss import WIN, Game
from tournaments.formats.two_stage import (
    draw_groups,
    group_order,
    group_schedule,
    seed_qualifiers,
    swiss_group_order,
)
from tournaments.formats.two_stage_layout import build_two_stage

FAST = settings(max_examples=60, deadline=None)


def test_snake_draw_worked_example():
    """Twelve seeds in four groups: 1 8 9, 2 7 10, 3 6 11, 4 5 12 -- one per pot each."""
    assert draw_groups(range(1, 13), 4) == ((1, 8, 9), (2, 7, 10), (3, 6, 11), (4, 5, 12))


@given(st.integers(min_value=1, max_value=16), st.integers(min_value=0, max_value=60))
@FAST
def test_snake_draw_properties(groups, extra):
    n = 2 * groups + extra
    drawn = draw_groups(range(1, n + 1), groups)
    assert sorted(e for g in drawn for e in g) == list(range(1, n + 1))
    sizes = [len(g) for g in drawn]
    assert max(sizes) - min(sizes) <= 1
    assert sorted(g[0] for g in drawn) == list(range(1, groups + 1))  # one top seed each
    assert all(list(g) == sorted(g) for g in drawn)


def test_group_schedule_is_the_leagues_round_robin():
    rounds = group_schedule(["a", "b", "c", "d"])
    assert len(rounds) == 3
    met = {frozenset(p) for r in rounds for p in r.pairings}
    assert met == {frozenset(p) for p in combinations("abcd", 2)}
    odd = group_schedule(["a", "b", "c"])
    assert sorted(r.bye for r in odd) == ["a", "b", "c"]


def test_group_order_uses_league_standings_then_seed():
    group = ["a", "b", "c"]
    results = [
        Result(1, {"a": 2, "b": 1}, {"a": 0, "b": 10}),
        Result(2, {"b": 1, "c": 2}, {"b": 10, "c": 0}),
        Result(3, {"a": 1, "c": 1}, {"a": 5, "c": 5}),  # drawn
    ]
    assert group_order(group, results)[0] == "b"
    assert group_order(group, [], tiebreakers=("points",)) == ("a", "b", "c")


def test_winners_meet_runners_up_of_other_groups():
    """Four groups, top two: A1 v D2, B1 v C2, C1 v B2, D1 v A2 in round one (by seeds)."""
    finishing = [("A1", "A2", "A3"), ("B1", "B2", "B3"), ("C1", "C2", "C3"), ("D1", "D2", "D3")]
    seeds = seed_qualifiers(finishing, 2)
    pairs = {frozenset((seeds[a - 1], seeds[b - 1])) for a, b in first_round(8)}
    assert pairs == {frozenset(p) for p in [("A1", "D2"), ("B1", "C2"), ("C1", "B2"), ("D1", "A2")]}


def test_an_odd_number_of_groups_still_avoids_same_group_pairs():
    """Three groups, top two: plain place order would pair B1 with B2; a swap fixes it."""
    finishing = [("A1", "A2"), ("B1", "B2"), ("C1", "C2")]
    seeds = seed_qualifiers(finishing, 2)
    assert seeds[:3] == ["A1", "B1", "C1"]
    for a, b in first_round(6):
        if b is not None:
            assert seeds[a - 1][0] != seeds[b - 1][0]


@given(
    st.integers(min_value=2, max_value=16),
    st.integers(min_value=1, max_value=4),
    st.randoms(use_true_random=False),
)
@FAST
def test_qualifier_seeding_properties(groups, advance, rng):
    """Every qualifier seeded once; group winners take seeds 1..G; no round-one match of the
    knock-out (or the double elimination's winners' bracket) pairs two of one group."""
    finishing = [
        tuple(f"{g}:{p}" for p in range(advance + rng.randint(0, 2))) for g in range(groups)
    ]
    seeds = seed_qualifiers(finishing, advance)
    expected = {e for order in finishing for e in order[:advance]}
    assert sorted(seeds) == sorted(expected)
    assert seeds[:groups] == [order[0] for order in finishing]
    assert [e.split(":")[1] for e in seeds] == sorted(e.split(":")[1] for e in seeds)
    group_of = {e: e.split(":")[0] for e in seeds}
    for bracket_round_one in (
        [t.seats for t in build_bracket(len(seeds)).rounds[0]],
        [m.seeds for m in build_double(len(seeds)).winners[0]],
    ):
        for a, b in bracket_round_one:
            if a is not None and b is not None:
                assert group_of[seeds[a - 1]] != group_of[seeds[b - 1]]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: draw_groups(range(3), 2), "cannot fill"),
        (lambda: draw_groups([1, 1, 2, 3], 1), "twice"),
        (lambda: seed_qualifiers([("a",), ("a",)], 1), "two groups"),
        (lambda: seed_qualifiers([("a", "b")], 0), "at least 1"),
        (lambda: seed_qualifiers([("a",)], 1), "at least 2 qualifiers"),
    ],
)
def test_validation(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_whole_two_stage_event_runs_through():
    """16 entries, 4 groups of 4, top 2 into a double elimination; lower seed wins."""
    groups = draw_groups(range(1, 17), 4)
    finishing = []
    for group in groups:
        results = [
            Result(rnd.number, {min(p): 1, max(p): 2}, {p.home: 0, p.away: 0})
            for rnd in group_schedule(group)
            for p in rnd.pairings
        ]
        finishing.append(group_order(group, results))
    assert [f[:2] for f in finishing] == [(1, 8), (2, 7), (3, 6), (4, 5)]
    seeds = seed_qualifiers(finishing, 2)
    assert seeds == [1, 2, 3, 4, 8, 7, 6, 5]  # 1 v 5 (group 4), 2 v 6, 3 v 7, 4 v 8
    outcome = play_out(build_double(len(seeds)), seeds, lambda m, pair: min(pair))
    assert outcome.champion == 1
    assert outcome.places[2] == 2


def test_a_swiss_group_ranks_by_score_with_a_bye_worth_a_win_then_tie_breaks_then_seed():
    games = [
        Game(1, "a", "b", WIN),
        Game(1, "c", None),  # c's bye: a win
        Game(2, "c", "a", WIN),
        Game(2, "b", None),
    ]
    # c 2, a 1, b 1 (a beat b: head-to-head, and Buchholz/SB also favour a here).
    assert swiss_group_order(["a", "b", "c"], games) == ("c", "a", "b")
    assert swiss_group_order(["a", "b"], [], keys=()) == ("a", "b")  # untied by seed


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=2, max_value=40),
    st.integers(min_value=1, max_value=6),
    st.integers(min_value=1, max_value=5),
)
def test_a_swiss_group_stage_layout_pairs_round_one_within_groups(n, n_groups, rounds):
    if n < 2 * n_groups:
        return
    shape = build_two_stage(n, n_groups, 2, group_stage="swiss", swiss_rounds=rounds)
    assert shape.n_group_rounds == rounds and shape.swiss_groups
    group_of = shape.group_of_seed()
    seated = [s for t in shape.tables() for s in t.seats if s is not None]
    assert sorted(seated) == list(range(1, n + 1))  # everyone once, byes alone
    for table in shape.tables():
        assert len({group_of[s] for s in table.seats if s is not None}) == 1
    byes = [t for t in shape.tables() if None in t.seats]
    assert len(byes) == sum(len(g) % 2 for g in shape.groups)
    # The bracket comes after the Swiss rounds.
    assert shape.knockout_tables()[0].ref.round == rounds + 1
