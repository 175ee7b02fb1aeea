"""The Celery side: a real worker runs a tournament; beat tasks start and walk over."""

import time
from datetime import timedelta

import pytest
from django.db import OperationalError
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from gameplay import services as gameplay
from gameplay import tasks as gameplay_tasks
from gameplay.models import Match
from outbox.models import Job
from tests.tournaments.helpers import bots, humans, open_tournament, register_all
from tournaments import services, tasks
from tournaments.models import Entry, Table, TableMatch, Tournament
from tournaments.services import schedule

pytestmark = pytest.mark.django_db(transaction=True)


def wait_for(tournament: Tournament, status: str, seconds: float = 90) -> Tournament:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.2)
        try:
            tournament.refresh_from_db()
        except OperationalError:
            # SQLite's shared in-memory test database refuses a read while the worker's
            # thread holds a write lock ("table is locked"); PostgreSQL never does.
            continue
        if tournament.status == status:
            return tournament
    raise AssertionError(f"tournament still {tournament.status} after {seconds}s")


def test_a_worker_runs_a_tournament_to_its_champion(celery_worker):
    tournament = open_tournament(show_up_seconds=0)
    register_all(tournament, bots(4))
    services.tournament_start(tournament_id=tournament.pk)
    wait_for(tournament, Tournament.Status.FINISHED)
    assert Entry.objects.filter(tournament=tournament, status="champion").count() == 1
    assert not Table.objects.filter(tournament=tournament).exclude(status="done").exists()


def test_a_worker_runs_a_double_elimination_to_its_champion_and_placements(celery_worker):
    tournament = open_tournament(show_up_seconds=0, format="double", grand_final="reset")
    register_all(tournament, bots(5))
    services.tournament_start(tournament_id=tournament.pk)
    wait_for(tournament, Tournament.Status.FINISHED)
    entries = Entry.objects.filter(tournament=tournament)
    assert entries.filter(status="champion", placement=1).count() == 1
    assert not entries.filter(placement__isnull=True).exists()
    assert not Table.objects.filter(tournament=tournament).exclude(status="done").exists()
    assert TableMatch.objects.filter(table__tournament=tournament).count() in (8, 9)


def test_beat_starts_a_due_tournament_and_it_runs_eagerly(eager_tasks):
    tournament = open_tournament(show_up_seconds=0, starts_at=timezone.now())
    register_all(tournament, bots(3))
    assert tasks.run_schedule() == [tournament.pk]
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED


def test_beat_walks_over_tables_past_their_deadline(eager_tasks):
    tournament = open_tournament(show_up_seconds=60)
    register_all(tournament, humans(2))
    services.tournament_start(tournament_id=tournament.pk)
    assert tasks.enforce_deadlines() == 0
    Table.objects.filter(tournament=tournament).update(
        deadline=timezone.now() - timedelta(seconds=1)
    )
    assert tasks.enforce_deadlines() == 1
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED  # nobody showed: no champion
    assert not Entry.objects.filter(tournament=tournament, status="champion").exists()


def started(players: int) -> list[int]:
    """A bot tournament started: its first round's matches, created and left unplayed."""
    tournament = open_tournament(show_up_seconds=0, best_of=1)
    register_all(tournament, bots(players))
    services.tournament_start(tournament_id=tournament.pk)
    tasks.start_tables(tournament.pk)
    matches = list(
        TableMatch.objects.filter(table__tournament=tournament)
        .order_by("table__position")
        .values_list("match_id", flat=True)
    )
    return matches


def test_a_wide_first_round_starts_more_tables_a_job(no_broker, monkeypatch):
    """Sizes scaled down: a first round of WIDE_ROUND tables or more starts
    WIDE_START_BATCH tables a job, a narrower one START_BATCH, and a full batch queues
    the next job."""
    monkeypatch.setattr(schedule, "START_BATCH", 1)
    monkeypatch.setattr(schedule, "WIDE_START_BATCH", 2)
    monkeypatch.setattr(schedule, "WIDE_ROUND", 4)
    narrow, wide = (open_tournament(show_up_seconds=0, best_of=1) for _ in range(2))
    register_all(narrow, bots(4))  # two first-round tables
    register_all(wide, bots(8))  # four
    for tournament in (narrow, wide):
        services.tournament_start(tournament_id=tournament.pk)
    assert services.start_batch(tournament_id=narrow.pk) == 1
    assert services.start_batch(tournament_id=wide.pk) == 2
    Job.objects.filter(task="tournaments.tasks.start_tables").delete()
    assert tasks.start_tables(wide.pk) == 2
    assert Job.objects.filter(task="tournaments.tasks.start_tables", args=[wide.pk]).count() == 1


def test_a_tournament_with_many_ready_tables_is_listed_once(no_broker):
    """The tables' default ordering made `.distinct()` keep one row per table, so every
    sweep queued a start_tables per ready table."""
    tournament = open_tournament(show_up_seconds=0, best_of=1)
    register_all(tournament, bots(8))
    services.tournament_start(tournament_id=tournament.pk)
    assert Table.objects.filter(tournament=tournament, status="waiting").count() == 4
    assert services.tournaments_with_ready_tables() == [tournament.pk]


def test_the_sweep_recovers_lost_results_as_one_batch_not_one_match_at_a_time(
    no_broker, monkeypatch
):
    """Recovered one match at a time, every table went on alone: 304-520 match_finished
    tasks instead of 23 for the rest of a 256-player tournament, twice as slow."""
    matches = started(8)
    gameplay.match_play_bots_many(match_ids=matches)
    assert gameplay.match_finalize_many(match_ids=matches) == set(matches)
    Job.objects.all().delete()  # the announcement's job is lost, say
    Match.objects.filter(pk__in=matches).update(finalized_at=timezone.now() - timedelta(minutes=2))
    queued = []
    monkeypatch.setattr(tasks.match_finished, "delay", lambda *ids: queued.append(ids))
    assert tasks.enforce_deadlines() == 4
    assert queued == [tuple(matches)]


def test_a_database_error_announcing_results_rolls_finalize_back_for_the_retry(
    no_broker, monkeypatch
):
    """Announced after commit, a failing receiver left the matches finalized and never
    announced: the retry found nothing to finalize."""
    matches = started(4)
    gameplay.match_play_bots_many(match_ids=matches)
    failures = []
    real_enqueue = tasks.enqueue

    def enqueue_once_failing(*args, **kwargs):
        if not failures:
            failures.append(args)
            raise OperationalError("server closed the connection unexpectedly")
        return real_enqueue(*args, **kwargs)

    monkeypatch.setattr(tasks, "enqueue", enqueue_once_failing)
    assert gameplay_tasks.finalize_match.apply(args=matches).get() == 2
    assert len(failures) == 1
    job = Job.objects.get(task="tournaments.tasks.match_finished")
    assert sorted(job.args) == sorted(matches)


def test_a_broker_down_after_finalize_fails_nothing_and_keeps_the_announcement(
    no_broker, monkeypatch
):
    """Published after commit, a broker error marked the finalize task failed although
    its work had committed, and the announcement was gone."""
    matches = started(4)
    gameplay.match_play_bots_many(match_ids=matches)

    def broker_down(*ids):
        raise BrokerError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(tasks.match_finished, "delay", broker_down)
    assert gameplay_tasks.finalize_match.apply(args=matches).get() == 2
    job = Job.objects.get(task="tournaments.tasks.match_finished")
    assert sorted(job.args) == sorted(matches) and job.attempts == 0
