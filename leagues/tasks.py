"""Celery tasks: thin, take ids, call a service, safe to run twice.

Results arrive through gameplay's `match_finished`, each fixture's recording an outbox job
committed with the result; rounds open and deadlines are enforced by beat
(`open_due_rounds`, `sweep_leagues`), whose sweep is also the backstop that redoes any step
left undone, reading the state to act on from the rows. ``now`` lets `simulate_league` run a
season's calendar faster than the clock through these same tasks.
"""

from datetime import datetime

from celery import shared_task
from django.db.models import Q
from django.utils import timezone

from config.jobs import enqueue_many
from gameplay.models import Match
from leagues import jobs, services
from leagues.models import Fixture, Round, Season
from outbox.worker import RETRY


def _now(now: str | None) -> datetime:
    return datetime.fromisoformat(now) if now else timezone.now()


def on_match_finished(sender, match_ids: list[int], **kwargs) -> None:
    """Receiver of gameplay's announcement, inside the finalizing transaction: each league
    fixture's recording is a job committed with its result."""
    fixtures = Fixture.objects.filter(match_id__in=match_ids).values_list("match_id", flat=True)
    enqueue_many(jobs.RECORD_FIXTURE, [(match_id,) for match_id in fixtures])


@shared_task(name=jobs.RECORD_FIXTURE, **RETRY)
def record_fixture(match_id: int) -> bool:
    return services.fixture_record(match_id=match_id)


@shared_task(name=jobs.RANK_ROUND, **RETRY)
def rank_round(round_id: int) -> bool:
    return services.round_rank(round_id=round_id)


@shared_task(name=jobs.CLOSE_SEASON, **RETRY)
def close_season(season_id: int) -> int:
    """Close a season whose rounds are all ranked; returns the next season's id."""
    return services.season_close(season_id=season_id).pk


@shared_task(**RETRY)
def open_round(round_id: int) -> int:
    return services.round_open(round_id=round_id)


@shared_task(**RETRY)
def no_show(fixture_id: int) -> bool:
    return services.fixture_no_show(fixture_id=fixture_id)


@shared_task
def open_due_rounds(now: str | None = None) -> int:
    """Beat: queue every round of a running season whose opening time has come."""
    due = list(
        Round.objects.filter(
            opened_at__isnull=True,
            opens_at__lte=_now(now),
            season__status=Season.Status.RUNNING,
        ).values_list("pk", flat=True)
    )
    for round_id in due:
        open_round.delay(round_id)
    return len(due)


@shared_task
def sweep_leagues() -> int:
    """Beat: forfeit no-shows past the deadline and redo any step whose task was lost."""
    now = timezone.now()
    late = list(
        Fixture.objects.filter(
            status=Fixture.Status.PLAYING,
            round__deadline__lt=now,
            match__status=Match.Status.ACTIVE,
        ).values_list("pk", flat=True)
    )
    for fixture_id in late:
        no_show.delay(fixture_id)
    unrecorded = list(
        Fixture.objects.filter(status=Fixture.Status.PLAYING)
        .filter(
            Q(match__status=Match.Status.DISPUTED)
            | Q(match__status=Match.Status.FINISHED, match__finalized_at__isnull=False)
        )
        .values_list("match_id", flat=True)
    )
    for match_id in unrecorded:
        record_fixture.delay(match_id)
    unranked = list(
        Round.objects.filter(completed_at__isnull=False, ranked_at__isnull=True).values_list(
            "pk", flat=True
        )
    )
    for round_id in unranked:
        rank_round.delay(round_id)
    closable = list(
        Season.objects.filter(status=Season.Status.RUNNING, rounds__gt=0)
        .exclude(round_set__ranked_at__isnull=True)
        .values_list("pk", flat=True)
    )
    for season_id in closable:
        close_season.delay(season_id)
    return len(late) + len(unrecorded) + len(unranked) + len(closable)
