"""Results recorded once, no-shows, promotion and relegation at the ladder's ends, season close
twice, and two results of one round finishing at once."""

import contextlib
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from competition import standings
from gameplay import services as gameplay
from gameplay.models import Match, Metric, PlayerMetric, PlayerTitle, RewardGrant
from leagues import services, tasks
from leagues.models import Fixture, FixtureSeat, Membership, Round, Season, Standing
from tests.concurrency import at_once
from tests.factories import PlayerFactory, RewardFactory, TitleFactory
from tests.leagues.conftest import make_league, start
from tests.leagues.test_season_flow import play_season

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_result_is_recorded_once(eager_tasks):
    league = make_league(divisions=[("Only", 2, 0, 0)])
    season = start(league, gameplay.bot_players(kind="greedy", count=2))
    tasks.open_due_rounds.delay()
    fixture = Fixture.objects.get(round__season=season)
    assert fixture.status == Fixture.Status.DONE
    before = list(Standing.objects.filter(season=season).values())
    assert services.fixture_record(match_id=fixture.match_id) is False
    assert tasks.record_fixture.delay(fixture.match_id).get() is False
    assert list(Standing.objects.filter(season=season).values()) == before
    assert sorted(r["played"] for r in before) == [1, 1]
    assert sorted(r["form"] for r in before) == ["L", "W"]


def test_a_no_show_loses_the_fixture(eager_tasks):
    league = make_league(divisions=[("Only", 2, 0, 0)])
    human = PlayerFactory()
    bot = gameplay.bot_players(kind="greedy", count=1)[0]
    season = start(league, [human, bot])
    tasks.open_due_rounds.delay()
    fixture = Fixture.objects.get(round__season=season)
    assert fixture.match.status == Match.Status.ACTIVE  # waiting for the human
    assert tasks.sweep_leagues.delay().get() == 0  # before the deadline nothing happens
    Round.objects.filter(pk=fixture.round_id).update(
        opens_at=timezone.now() - timedelta(days=2), deadline=timezone.now() - timedelta(days=1)
    )
    tasks.sweep_leagues.delay()
    fixture.refresh_from_db()
    assert fixture.status == Fixture.Status.DONE
    assert fixture.match.result["forfeit"]["reason"] == services.NO_SHOW
    outcome = dict(FixtureSeat.objects.filter(fixture=fixture).values_list("player", "outcome"))
    assert outcome == {human.pk: "L", bot.pk: "W"}
    assert Standing.objects.get(season=season, player=human).lost == 1


def test_a_disputed_match_voids_its_fixture(eager_tasks):
    league = make_league(divisions=[("Only", 2, 0, 0)])
    season = start(league, gameplay.bot_players(kind="greedy", count=2))
    rnd = Round.objects.get(season=season)
    services.round_open(round_id=rnd.pk)
    fixture = Fixture.objects.get(round=rnd)
    Match.objects.filter(pk=fixture.match_id).update(status=Match.Status.DISPUTED)
    Fixture.objects.filter(pk=fixture.pk).update(status=Fixture.Status.PLAYING, recorded_at=None)
    Standing.objects.filter(season=season).update(played=0, won=0, lost=0, drawn=0, points=0)
    Round.objects.filter(pk=rnd.pk).update(completed_at=None, ranked_at=None)
    assert services.fixture_record(match_id=fixture.match_id) is True
    fixture.refresh_from_db()
    assert fixture.status == Fixture.Status.VOID
    assert not Standing.objects.filter(season=season, played__gt=0).exists()


def test_promotion_and_relegation_stop_at_the_ladders_ends(eager_tasks):
    """Three rungs of two: the top champion stays up, the bottom's last stays down."""
    league = make_league(divisions=[("Gold", 2, 1, 1), ("Silver", 2, 1, 1), ("Bronze", 2, 1, 1)])
    players = gameplay.bot_players(kind="greedy", count=6)
    season = start(league, players)
    play_season(season)
    season.refresh_from_db()
    assert season.status == Season.Status.CLOSED
    rows = {
        (row.division.tier, row.rank): row
        for row in Standing.objects.filter(season=season).select_related("division")
    }
    tier_after = dict(Membership.objects.values_list("player_id", "division__tier"))
    expected = {
        (1, 1): ("stayed", 1),  # nobody is promoted out of the top division
        (1, 2): ("relegated", 2),
        (2, 1): ("promoted", 1),
        (2, 2): ("relegated", 3),
        (3, 1): ("promoted", 2),
        (3, 2): ("stayed", 3),  # nobody is relegated out of the bottom division
    }
    for key, (outcome, tier) in expected.items():
        assert rows[key].outcome == outcome, key
        assert tier_after[rows[key].player_id] == tier, key
    following = Season.objects.get(league=league, number=2)
    assert Standing.objects.filter(season=following).count() == 6
    for tier in (1, 2, 3):
        assert Standing.objects.filter(season=following, division__tier=tier).count() == 2


def test_closing_a_season_twice_awards_once_and_returns_the_same_next_season(eager_tasks):
    reward, title = RewardFactory(coins=50), TitleFactory(name="Gold Champion")
    league = make_league(divisions=[("Gold", 2, 0, 1), ("Silver", 2, 1, 0)])
    league.divisions.filter(tier=1).update(champion_reward=reward, champion_title=title)
    season = start(league, gameplay.bot_players(kind="greedy", count=4))
    with pytest.raises(services.Conflict):  # fixtures still to play
        services.season_close(season_id=season.pk)
    Season.objects.filter(pk=season.pk).update(status=Season.Status.RUNNING)
    play_season(season)  # the last ranking closes it through the task
    again = services.season_close(season_id=season.pk)
    assert again == services.season_close(season_id=season.pk)
    assert Season.objects.filter(league=league).count() == 2
    champion = Standing.objects.get(season=season, division__tier=1, rank=1).player_id
    assert RewardGrant.objects.filter(player_id=champion, reward=reward).count() == 1
    assert PlayerTitle.objects.filter(player_id=champion, title=title).count() == 1
    titles = PlayerMetric.objects.filter(metric=Metric.LEAGUE_TITLES)
    assert sorted(titles.values_list("value", flat=True)) == [1, 1]  # one per division
    promotions = PlayerMetric.objects.filter(metric=Metric.LEAGUE_PROMOTIONS)
    assert list(promotions.values_list("value", flat=True)) == [1]


def _finished_round(monkeypatch):
    """A round of two finalized matches whose results are not yet recorded."""
    recorded = []
    monkeypatch.setattr(tasks.record_fixture, "delay", recorded.append)
    league = make_league(divisions=[("Only", 4, 0, 0)])
    season = start(league, gameplay.bot_players(kind="greedy", count=4))
    rnd = Round.objects.get(season=season, number=1)
    services.round_open(round_id=rnd.pk)
    matches = list(Fixture.objects.filter(round=rnd).values_list("match_id", flat=True))
    assert sorted(recorded) == sorted(matches)
    monkeypatch.undo()
    return season, rnd, matches


@pytest.mark.postgres
def test_two_results_of_one_round_at_once_rank_it_once_and_correctly(monkeypatch, eager_tasks):
    season, rnd, matches = _finished_round(monkeypatch)
    ranked, real_rank = [], services._rank
    lock = threading.Lock()

    def counting_rank(season_arg, division_ids):
        with lock:
            ranked.append(division_ids)
        return real_rank(season_arg, division_ids)

    monkeypatch.setattr(services, "_rank", counting_rank)
    start_ranks = dict(Standing.objects.filter(season=season).values_list("player_id", "rank"))
    outcome = at_once(*(lambda m=m: services.fixture_record(match_id=m) for m in matches))
    assert outcome == [True, True]
    assert ranked == [[rnd.division_id]]  # the round completed once and was ranked once
    rnd.refresh_from_db()
    assert rnd.completed_at and rnd.ranked_at
    rows = list(Standing.objects.filter(season=season))
    assert sorted(r.played for r in rows) == [1, 1, 1, 1]
    expected = standings.rank_standings(
        [services._row(r) for r in rows], tiebreakers=season.league.tiebreakers
    )
    assert {r.player_id: r.rank for r in rows} == {r.player: r.rank for r in expected}
    assert {r.player_id: r.previous_rank for r in rows} == start_ranks


@pytest.mark.postgres
def test_two_workers_ranking_one_round_rank_it_once(monkeypatch, eager_tasks):
    _, rnd, matches = _finished_round(monkeypatch)
    monkeypatch.setattr(tasks.rank_round, "delay", lambda round_id: None)
    for match_id in matches:
        services.fixture_record(match_id=match_id)
    monkeypatch.setattr(tasks.close_season, "delay", lambda season_id: None)
    assert connection.vendor == "postgresql"
    outcome = at_once(*(lambda: services.round_rank(round_id=rnd.pk) for _ in range(2)))
    assert sorted(outcome) == [False, True]


@pytest.mark.postgres
def test_two_divisions_ranking_their_last_rounds_at_once_close_the_season_once(
    monkeypatch, eager_tasks
):
    monkeypatch.setattr(tasks.rank_round, "delay", lambda round_id: None)
    league = make_league(divisions=[("Gold", 2, 0, 1), ("Silver", 2, 1, 0)])
    season = start(league, gameplay.bot_players(kind="greedy", count=4))
    tasks.open_due_rounds.delay()  # both divisions play their only round; ranking waits
    rounds = list(Round.objects.filter(season=season))
    assert len(rounds) == 2
    assert all(r.completed_at is not None and r.ranked_at is None for r in rounds)
    closings = []
    monkeypatch.setattr(tasks.close_season, "delay", closings.append)
    checked = threading.Barrier(2, timeout=1.0)

    def hold_after_the_check(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if sql.startswith("SELECT") and '"ranked_at" IS NULL' in sql:
            # Keep this transaction open until the other has looked too. Unordered, both
            # look before either commits; ordered, the other cannot look before this
            # commits, and the wait times out.
            with contextlib.suppress(threading.BrokenBarrierError):
                checked.wait()
        return result

    def rank(round_id):
        with connection.execute_wrapper(hold_after_the_check):
            return services.round_rank(round_id=round_id)

    outcome = at_once(*(lambda r=r: rank(r.pk) for r in rounds))
    assert outcome == [True, True]
    assert closings == [season.pk]


def test_a_dummy_league_takes_placements_as_given_and_counts_penalty_points_against(
    eager_tasks,
):
    league = make_league(divisions=[("Only", 3, 0, 0)], variant="dummy", options={"max_hands": 12})
    season = start(league, gameplay.bot_players(kind="greedy", count=3))
    tasks.open_due_rounds.delay()
    fixture = Fixture.objects.filter(round__season=season).first()
    assert fixture.status == Fixture.Status.DONE
    match = fixture.match
    seats = {seat.player_id: seat for seat in match.seats.all()}
    rows = list(FixtureSeat.objects.filter(fixture=fixture))
    sole_winner = [row.place for row in rows].count(1) == 1
    for row in rows:
        assert row.place == seats[row.player_id].placement
        assert row.game_points == -seats[row.player_id].score
        assert row.outcome == ("L" if row.place > 1 else "W" if sole_winner else "D")
