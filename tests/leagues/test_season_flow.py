"""A whole season through the production tasks, run eagerly: open, play, record, rank, close."""

import pytest

from gameplay.models import Match, Metric, PlayerMetric
from leagues import tasks
from leagues.models import Fixture, Membership, Round, Season, Standing
from tests.leagues.conftest import make_league, start

pytestmark = pytest.mark.django_db(transaction=True)


def play_season(season):
    """Open each round at its calendar time through the beat task, as the clock would."""
    for number in range(1, season.rounds + 1):
        opens_at = Round.objects.filter(season=season, number=number).first().opens_at
        tasks.open_due_rounds.delay(opens_at.isoformat())


def test_a_season_plays_out_and_the_next_one_starts(bots, eager_tasks):
    league = make_league()
    players = bots(8)
    season = start(league, players)
    assert season.status == Season.Status.RUNNING
    assert season.rounds == 3  # four per division: a single round-robin
    assert Fixture.objects.filter(round__season=season).count() == 12

    play_season(season)

    season.refresh_from_db()
    assert season.status == Season.Status.CLOSED
    fixtures = Fixture.objects.filter(round__season=season)
    assert set(fixtures.values_list("status", flat=True)) == {Fixture.Status.DONE}
    assert all(m.finalized_at for m in Match.objects.filter(league_fixture__in=fixtures))
    assert not Round.objects.filter(season=season, ranked_at__isnull=True).exists()
    rows = list(Standing.objects.filter(season=season).order_by("division__tier", "rank"))
    assert all(row.played == 3 for row in rows)
    assert {row.outcome for row in rows if row.division.tier == 1} == {"relegated", "stayed"}
    promoted = [row.player_id for row in rows if row.outcome == Standing.Outcome.PROMOTED]
    relegated = [row.player_id for row in rows if row.outcome == Standing.Outcome.RELEGATED]
    assert len(promoted) == len(relegated) == 1
    assert Membership.objects.get(player_id=promoted[0]).division.tier == 1
    assert Membership.objects.get(player_id=relegated[0]).division.tier == 2
    assert (
        PlayerMetric.objects.get(player_id=promoted[0], metric=Metric.LEAGUE_PROMOTIONS).value == 1
    )

    following = Season.objects.get(league=league, number=2)
    assert following.status == Season.Status.RUNNING
    assert following.starts_at >= season.ends_at
    assert Fixture.objects.filter(round__season=following).count() == 12


def test_a_multi_player_season_rotates_tables_and_scores_each_place(bots, eager_tasks):
    """Tables of three in Basic Rummy: sole best place wins, everyone else at the table loses."""
    league = make_league(
        name="Basic League",
        variant="basic",
        options={"target": 40},
        table_size=3,
        rotation_rounds=2,
        divisions=[("Only", 6, 0, 0)],
    )
    season = start(league, bots(6))
    fixtures = Fixture.objects.filter(round__season=season)
    assert fixtures.count() == 4  # two tables of three in each of two rounds
    assert all(f.seats.count() == 3 for f in fixtures)
    play_season(season)
    season.refresh_from_db()
    assert season.status == Season.Status.CLOSED
    rows = list(Standing.objects.filter(season=season))
    assert sum(r.won for r in rows) + sum(r.drawn for r in rows) >= 4
    assert sum(r.played for r in rows) == 12
    assert all(r.game_against >= 0 and r.rank is not None for r in rows)
