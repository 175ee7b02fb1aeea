"""Ranking in the database: every tie-breaker decides, SQL order equals the pure order.

Totals are written straight onto the rows here: these tests pin the ranking statement, not
how results accumulate (test_season_flow and test_results cover that through services).
"""

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from competition import standings
from gameplay import services as gameplay
from leagues import services
from leagues.models import Fixture, FixtureSeat, Standing
from tests.leagues.conftest import make_league, start

pytestmark = pytest.mark.django_db

SQL_KEYS = ["points", "wins", "game_diff", "game_for", "rating"]


def division_season(n, tiebreakers, name="Ranked"):
    league = make_league(name=name, divisions=[("Only", n, 0, 0)], tiebreakers=tiebreakers)
    players = gameplay.bot_players(kind="greedy", count=n)
    return start(league, players), [p.pk for p in players]


def put(season, player_id, *, won=0, drawn=0, lost=0, points=0, game_for=0, against=0, rating=0.0):
    Standing.objects.filter(season=season, player_id=player_id).update(
        played=won + drawn + lost,
        won=won,
        drawn=drawn,
        lost=lost,
        points=points,
        game_for=game_for,
        game_against=against,
        rating=rating,
    )


def table(season):
    return list(
        Standing.objects.filter(season=season)
        .order_by("rank", "player_id")
        .values_list("player_id", "rank")
    )


# (key that decides, better line, worse line): equal on every key before the decider.
DECIDERS = [
    ("points", {"won": 2, "points": 6}, {"won": 1, "lost": 1, "points": 3}),
    ("wins", {"won": 2, "lost": 1, "points": 6}, {"won": 1, "drawn": 3, "points": 6}),
    (
        "game_diff",
        {"won": 1, "points": 3, "game_for": 40, "against": 10},
        {"won": 1, "points": 3, "game_for": 50, "against": 30},
    ),
    (
        "game_for",
        {"won": 1, "points": 3, "game_for": 50, "against": 30},
        {"won": 1, "points": 3, "game_for": 40, "against": 20},
    ),
    ("rating", {"won": 1, "points": 3, "rating": 12.5}, {"won": 1, "points": 3, "rating": 3.0}),
]


@pytest.mark.parametrize(("decider", "better", "worse"), DECIDERS, ids=[d[0] for d in DECIDERS])
def test_each_tiebreaker_decides_in_the_database(decider, better, worse):
    season, (low_id, high_id) = division_season(2, SQL_KEYS)
    # The better line goes to the higher player id, so id order cannot fake the result.
    put(season, high_id, **better)
    put(season, low_id, **worse)
    services.standings_rank(season=season)
    assert table(season) == [(high_id, 1), (low_id, 2)]
    kept = SQL_KEYS[: SQL_KEYS.index(decider)]
    if kept:  # the keys before the decider alone leave the two level, sharing first place
        season.league.tiebreakers = kept
        services.standings_rank(season=season)
        assert table(season) == [(low_id, 1), (high_id, 1)]


def test_the_order_of_tiebreakers_matters():
    season, (a, b) = division_season(2, ["points", "game_for"])
    put(season, a, won=2, points=6, game_for=10)
    put(season, b, won=1, drawn=1, points=4, game_for=90)
    services.standings_rank(season=season)
    assert table(season) == [(a, 1), (b, 2)]
    season.league.tiebreakers = ["game_for", "points"]
    services.standings_rank(season=season)
    assert table(season) == [(b, 1), (a, 2)]


def test_ranking_moves_the_old_rank_to_previous_in_one_statement():
    season, ids = division_season(6, SQL_KEYS)
    for points, player_id in enumerate(ids):
        put(season, player_id, won=points, points=3 * points)
    with CaptureQueriesContext(connection) as queries:
        services.standings_rank(season=season, division_ids=[season.league.divisions.get().pk])
    ranking = [q["sql"] for q in queries.captured_queries if "RANK()" in q["sql"]]
    assert len(ranking) == 1 and ranking[0].startswith("UPDATE")
    rows = {r.player_id: r for r in Standing.objects.filter(season=season)}
    assert [rows[p].rank for p in ids] == [6, 5, 4, 3, 2, 1]
    assert all(rows[p].previous_rank is not None for p in ids)
    assert [rows[p].movement for p in reversed(ids)] == [
        rows[p].previous_rank - rows[p].rank for p in reversed(ids)
    ]


def win(fixture, winner_id):
    """Test setup: mark a fixture done with ``winner_id`` first (10 game points to 0)."""
    for seat in fixture.seats.all():
        first = seat.player_id == winner_id
        FixtureSeat.objects.filter(pk=seat.pk).update(
            place=1 if first else 2, game_points=10 if first else 0, outcome="W" if first else "L"
        )
    Fixture.objects.filter(pk=fixture.pk).update(status="done", recorded_at=fixture.round.opens_at)


def test_head_to_head_decides_in_the_python_path():
    """A and B level on points, B beat A: head-to-head puts B first though A's diff is better.

    head_to_head is not SQL-sortable, so this league ranks through rank_standings and a bulk
    write; the same rows under SQL-only keys rank A first.
    """
    season, ids = division_season(4, ["points", "head_to_head", "game_diff"])
    a, b, c, d = ids
    beats = {frozenset((a, b)): b, frozenset((a, c)): a, frozenset((a, d)): a}
    beats |= {frozenset((b, c)): c, frozenset((b, d)): b, frozenset((c, d)): d}
    for fixture in Fixture.objects.filter(round__season=season).prefetch_related("seats"):
        pair = frozenset(s.player_id for s in fixture.seats.all())
        win(fixture, beats[pair])
    put(season, a, won=2, lost=1, points=6, game_for=50, against=20)
    put(season, b, won=2, lost=1, points=6, game_for=30, against=20)
    put(season, c, won=1, lost=2, points=3, game_for=20, against=30)
    put(season, d, won=1, lost=2, points=3, game_for=10, against=40)
    with CaptureQueriesContext(connection) as queries:
        services.standings_rank(season=season)
    assert len(queries.captured_queries) == 5  # savepoint, rows, results, one update, release
    assert table(season) == [(b, 1), (a, 2), (d, 3), (c, 4)]
    season.league.tiebreakers = ["points", "game_diff"]
    services.standings_rank(season=season)
    assert table(season) == [(a, 1), (b, 2), (c, 3), (d, 4)]


line = st.fixed_dictionaries(
    {
        "won": st.integers(0, 2),
        "drawn": st.integers(0, 2),
        "lost": st.integers(0, 2),
        "points": st.integers(0, 4),
        "game_for": st.integers(0, 3),
        "against": st.integers(0, 3),
        "rating": st.sampled_from([0.0, 1.5, -2.25]),
    }
)
keys = st.lists(st.sampled_from(SQL_KEYS), min_size=1, max_size=5, unique=True)


def test_sql_order_equals_the_pure_order_on_random_tables_with_ties():
    season, ids = division_season(8, SQL_KEYS, name="Property")
    league = season.league

    @settings(
        max_examples=80,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )
    @given(lines=st.lists(line, min_size=2, max_size=8), tiebreakers=keys)
    def check(lines, tiebreakers):
        players = ids[: len(lines)]
        with transaction.atomic():
            Standing.objects.filter(season=season).exclude(player_id__in=players).delete()
            for player_id, values in zip(players, lines, strict=True):
                put(season, player_id, **values)
            league.tiebreakers = tiebreakers
            services.standings_rank(season=season)
            got = table(season)
            transaction.set_rollback(True)
        rows = [
            standings.Row(
                player=p,
                played=v["won"] + v["drawn"] + v["lost"],
                won=v["won"],
                drawn=v["drawn"],
                lost=v["lost"],
                points=v["points"],
                game_for=v["game_for"],
                game_against=v["against"],
                rating=v["rating"],
            )
            for p, v in zip(players, lines, strict=True)
        ]
        expected = standings.rank_standings(rows, tiebreakers=tiebreakers)
        assert got == [(r.player, r.rank) for r in expected]

    check()
