"""League standings: rows from results, every tie-breaker, shared ranks, zones (no database)."""

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from competition.standings import (
    DEFAULT_TIEBREAKERS,
    METRICS,
    PointsRule,
    Result,
    Row,
    movement,
    rank_standings,
    sort_key,
    sql_sortable,
    standings,
    zones,
)

FAST = settings(max_examples=80, deadline=None)


def match(rnd, home, away, home_points, away_points):
    """A head-to-head result: the higher score takes first place, equal scores draw."""
    places = {
        home: 1 if home_points >= away_points else 2,
        away: 1 if away_points >= home_points else 2,
    }
    return Result(rnd, places, {home: home_points, away: away_points})


def order(rows):
    return [r.player for r in rows]


# --- rows from results ------------------------------------------------------------------------


def test_rows_count_results_points_and_form():
    results = [
        match(1, "a", "b", 30, 10),
        match(2, "a", "c", 20, 20),
        match(3, "b", "a", 25, 5),
    ]
    rows = {r.player: r for r in standings(["a", "b", "c", "d"], results)}
    a = rows["a"]
    assert (a.played, a.won, a.drawn, a.lost, a.points) == (3, 1, 1, 1, 4)
    assert (a.game_for, a.game_against, a.game_diff) == (55, 55, 0)
    assert a.form == "WDL"
    assert rows["d"] == Row("d")
    assert rows["c"].form == "D"


def test_form_keeps_the_last_five_oldest_first_whatever_order_results_arrive():
    results = [match(r, "a", "b", 10 if r in (1, 6) else 0, 5) for r in range(1, 7)]
    random.Random(4).shuffle(results)
    rows = {r.player: r for r in standings(["a", "b"], results)}
    assert rows["a"].form == "LLLLW"
    assert rows["b"].form == "WWWWL"


def test_points_rule_is_configurable():
    results = [match(1, "a", "b", 10, 0), match(2, "a", "b", 5, 5)]
    rows = {r.player: r for r in standings("ab", results, points=PointsRule(2, 1, -1))}
    assert rows["a"].points == 3
    assert rows["b"].points == 0


def test_multi_player_table():
    table = Result(1, {"a": 1, "b": 2, "c": 3, "d": 4}, {"a": 40, "b": 30, "c": 20, "d": 10})
    shared = Result(2, {"a": 2, "b": 1, "c": 1, "d": 3}, {"a": 0, "b": 5, "c": 5, "d": 0})
    rows = {r.player: r for r in standings("abcd", [table, shared])}
    assert rows["a"].form == "WL"
    assert rows["b"].form == "LD"
    assert rows["c"].form == "LD"
    assert (rows["a"].game_for, rows["a"].game_against) == (40, 70)


def test_ratings_are_carried():
    rows = standings(["a", "b"], [], ratings={"a": 21.5})
    assert [r.rating for r in rows] == [21.5, 0.0]


@pytest.mark.parametrize(
    ("result", "message"),
    [
        (match(1, "a", "z", 1, 0), "names 'z', not in the division"),
        (Result(1, {"a": 1, "b": 2}, {"a": 1}), "same players"),
        (Result(1, {"a": 1}, {"a": 1}), "at least two players"),
    ],
)
def test_bad_results_are_refused(result, message):
    with pytest.raises(ValueError, match=message):
        standings(["a", "b"], [result])


# --- every tie-breaker decides ----------------------------------------------------------------


def test_points_decide():
    rows = [Row("a", points=3, won=0), Row("b", points=6, won=0)]
    assert order(rank_standings(rows)) == ["b", "a"]


def test_wins_decide_between_equal_points():
    # three draws and one win both make 3 points; the win ranks higher
    rows = [Row("a", points=3, won=0, drawn=3), Row("b", points=3, won=1, lost=2)]
    assert order(rank_standings(rows)) == ["b", "a"]


def test_head_to_head_decides_before_game_difference():
    results = [match(1, "a", "b", 10, 5), match(2, "b", "c", 50, 0), match(3, "c", "a", 20, 0)]
    rows = standings("abc", results)
    ranked = rank_standings(rows, results, tiebreakers=["points", "head_to_head", "game_diff"])
    # all on 3 points; the three-way mini-league is level too (each won once), so game
    # difference decides: b +45, a -15, c -30
    assert order(ranked) == ["b", "a", "c"]
    two = [r for r in rows if r.player != "c"]
    # between a and b alone, a won their match, despite b's far better difference
    assert order(rank_standings(two, results, tiebreakers=["head_to_head", "game_diff"])) == [
        "a",
        "b",
    ]


def test_head_to_head_counts_only_the_players_still_tied():
    results = [
        match(1, "a", "b", 10, 0),  # a beats b
        match(2, "b", "c", 10, 0),
        match(3, "c", "a", 10, 0),
        match(4, "b", "d", 10, 0),  # b beats an outsider: must not count between a and b
        match(5, "a", "d", 0, 10),
    ]
    rows = standings("abcd", results)
    by = {r.player: r for r in rows}
    assert by["a"].points == 3 and by["b"].points == 6
    tied = [dataclasses.replace(by["a"], points=6), by["b"]]
    assert order(rank_standings(tied, results, tiebreakers=["points", "head_to_head"])) == [
        "a",
        "b",
    ]


def test_head_to_head_at_multi_player_tables():
    results = [
        Result(1, {"a": 2, "b": 1, "x": 3}, {"a": 10, "b": 20, "x": 0}),
        Result(2, {"a": 1, "b": 3, "y": 2}, {"a": 30, "b": 0, "y": 5}),
        Result(3, {"a": 3, "b": 2, "z": 1}, {"a": 0, "b": 5, "z": 50}),
    ]
    rows = [Row("a", points=3), Row("b", points=3)]
    # between a and b: b ahead at tables 1 and 3, a at table 2
    assert order(rank_standings(rows, results, tiebreakers=["head_to_head"])) == ["b", "a"]


def test_game_difference_decides():
    rows = [Row("a", points=3, game_for=50, game_against=40), Row("b", points=3, game_for=30)]
    assert order(rank_standings(rows)) == ["b", "a"]


def test_game_points_for_decide_when_difference_is_level():
    rows = [Row("a", game_for=10, game_against=5), Row("b", game_for=20, game_against=15)]
    assert order(rank_standings(rows)) == ["b", "a"]


def test_rating_decides_last():
    rows = [Row("a", rating=10.0), Row("b", rating=12.5)]
    assert order(rank_standings(rows)) == ["b", "a"]


def test_tie_breaker_order_is_configurable():
    rows = [Row("a", points=3, won=1, game_for=5), Row("b", points=3, won=0, game_for=40)]
    assert order(rank_standings(rows, tiebreakers=["points", "wins", "game_for"])) == ["a", "b"]
    assert order(rank_standings(rows, tiebreakers=["points", "game_for", "wins"])) == ["b", "a"]


def test_ties_share_a_rank_competition_style_listed_by_player_id():
    rows = [Row("d", points=1), Row("c", points=3), Row("b", points=3), Row("a", points=9)]
    ranked = rank_standings(rows)
    assert [(r.player, r.rank) for r in ranked] == [("a", 1), ("b", 2), ("c", 2), ("d", 4)]


def test_bad_tiebreakers_are_refused():
    with pytest.raises(ValueError, match="unknown tie-breaker 'goals'"):
        rank_standings([Row("a")], tiebreakers=["points", "goals"])
    with pytest.raises(ValueError, match="listed twice"):
        rank_standings([Row("a")], tiebreakers=["points", "points"])
    with pytest.raises(ValueError, match="two rows"):
        rank_standings([Row("a"), Row("a")])


def test_sql_sortable():
    assert sql_sortable(["points", "wins", "game_diff", "game_for", "rating"])
    assert not sql_sortable(DEFAULT_TIEBREAKERS)
    assert sort_key(Row("a", points=3, won=1, game_for=9, game_against=4, rating=2.0)) == (
        -3,
        -1,
        -5,
        -9,
        -2.0,
    )


# --- properties -------------------------------------------------------------------------------


@st.composite
def leagues(draw):
    n = draw(st.integers(min_value=1, max_value=10))
    players = list(range(100, 100 + n))
    results = []
    if n >= 2:
        for rnd in range(draw(st.integers(min_value=0, max_value=30))):
            a, b = draw(st.permutations(players))[:2]
            # small scores make ties likely
            results.append(match(rnd, a, b, draw(st.integers(0, 3)), draw(st.integers(0, 3))))
    ratings = {p: draw(st.sampled_from([0.0, 1.0, 2.5])) for p in players}
    keys = draw(st.permutations(list(METRICS)))
    tiebreakers = keys[: draw(st.integers(min_value=0, max_value=len(keys)))]
    return players, results, ratings, tiebreakers


def competition_ranks(keys):
    return [1 + sum(other < k for other in keys) for k in keys]


@FAST
@given(leagues(), st.randoms(use_true_random=False))
def test_ranking_properties(league, rng):
    players, results, ratings, tiebreakers = league
    rows = standings(players, results, ratings=ratings)
    ranked = rank_standings(rows, results, tiebreakers=tiebreakers)
    assert sorted(order(ranked)) == sorted(players), "a permutation of the rows"
    assert {dataclasses.replace(r, rank=None) for r in ranked} == set(rows), "rows unchanged"
    ranks = [r.rank for r in ranked]
    assert ranks[0] == 1
    assert ranks == sorted(ranks)
    for i in range(1, len(ranked)):
        same = ranks[i] == ranks[i - 1]
        assert ranks[i] == (ranks[i - 1] if same else i + 1), "competition ranking"
        if same:
            assert ranked[i - 1].player < ranked[i].player, "ties listed by player id"
    # sorted by the SQL part of the key up to the first head-to-head
    cut = tiebreakers.index("head_to_head") if "head_to_head" in tiebreakers else None
    prefix = tiebreakers[:cut]
    keys = [sort_key(r, prefix) for r in ranked]
    assert keys == sorted(keys)
    if sql_sortable(tiebreakers):
        # what RANK() OVER (ORDER BY ...) gives, the twin of the database recompute
        full = [sort_key(r, tiebreakers) for r in ranked]
        assert ranks == competition_ranks(full)
        assert [(k, r.player) for k, r in zip(full, ranked, strict=True)] == sorted(
            (k, r.player) for k, r in zip(full, ranked, strict=True)
        )
    shuffled = list(rows)
    rng.shuffle(shuffled)
    assert rank_standings(shuffled, results, tiebreakers=tiebreakers) == ranked, "deterministic"


# --- movement and zones -----------------------------------------------------------------------


def test_movement():
    assert movement(5, 2) == 3
    assert movement(2, 5) == -3
    assert movement(4, 4) == 0
    assert movement(None, 1) is None


def test_zones_in_the_middle_of_the_ladder():
    z = zones(10, 2, 3, top=False, bottom=False)
    assert [z.of(p) for p in range(1, 11)] == [
        "promotion",
        "promotion",
        None,
        None,
        None,
        None,
        None,
        "relegation",
        "relegation",
        "relegation",
    ]


def test_no_promotion_from_the_top_nor_relegation_from_the_bottom():
    top = zones(10, 2, 3, top=True, bottom=False)
    assert len(top.promotion) == 0 and list(top.relegation) == [8, 9, 10]
    bottom = zones(10, 2, 3, top=False, bottom=True)
    assert list(bottom.promotion) == [1, 2] and len(bottom.relegation) == 0
    only = zones(10, 2, 3, top=True, bottom=True)
    assert {only.of(p) for p in range(1, 11)} == {None}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0, 0, 0), "at least 1"),
        ((5, -1, 0), "cannot be negative"),
        ((5, 3, 3), "exceeds the division of 5"),
    ],
)
def test_zones_refuse_impossible_counts(args, message):
    with pytest.raises(ValueError, match=message):
        zones(*args, top=False, bottom=False)
