"""Celery tasks: thin, take ids, call a service, safe to run twice."""

from collections import defaultdict
from datetime import timedelta

from celery import shared_task
from django.utils import timezone

from config.jobs import enqueue
from gameplay.models import Match
from outbox.worker import RETRY
from tournaments import jobs, services
from tournaments.models import Table, TableMatch, Tournament

# Unrecorded results the sweeper hands to one match_finished job, as a start batch holds.
SWEEP_BATCH = 128


def enqueue_match_finished(sender, match_ids: list[int], **kwargs) -> None:
    """Receiver of gameplay's `match_finished`, inside the finalizing transaction: the
    batch's tournament matches become one job, committed with their results."""
    ours = list(
        TableMatch.objects.filter(match_id__in=match_ids).values_list("match_id", flat=True)
    )
    if ours:
        enqueue(jobs.MATCH_FINISHED, *ours)


@shared_task(name=jobs.MATCH_FINISHED, **RETRY)
def match_finished(*match_ids: int) -> int:
    """Record finished matches at their tables; returns how many this delivery recorded."""
    return len(services.table_matches_finished(match_ids=list(match_ids)))


@shared_task(name=jobs.START_TABLES, **RETRY)
def start_tables(tournament_id: int) -> int:
    """Start a batch of ready tables, then re-enqueue while more remain (long draws).

    Killed between the two, the job runs again (its row stays until it returns) and
    starts the next batch itself.
    """
    batch = services.start_batch(tournament_id=tournament_id)
    ids = services.waiting_tables(tournament_id=tournament_id, limit=batch)
    services.table_start_many(table_ids=ids)
    if len(ids) == batch:
        enqueue(jobs.START_TABLES, tournament_id)
    return len(ids)


@shared_task(name=jobs.DELIVER_WEBHOOK, **RETRY)
def deliver_webhook(delivery_id: int) -> str:
    """One attempt at an organiser's webhook; a failed one raises, and the job comes due
    again after the outbox's backoff (tournaments.services.webhooks)."""
    return services.webhook_deliver(delivery_id=delivery_id)


@shared_task(**RETRY)
def table_deadline(table_id: int) -> str:
    return services.table_deadline(table_id=table_id)


@shared_task
def run_schedule() -> list[int]:
    """Beat: hand each tournament with a scheduled step due to an `advance_schedule` job."""
    return services.tournaments_due()


@shared_task(name=jobs.ADVANCE_SCHEDULE, **RETRY)
def advance_schedule(tournament_id: int) -> list[str]:
    """Take the tournament's due steps (registration, check-in, the start); run twice, or
    at once with another run, each step is taken once (services.tournament_advance)."""
    return services.tournament_advance(tournament_id=tournament_id)


@shared_task
def enforce_deadlines() -> int:
    """Beat: walk over tables past their deadline, and redo work a job did not get done
    (the outbox runs every job; this is the backstop). Unrecorded results go out in
    batches of a tournament's tables, in bracket order, as they were played: one task per
    match would split the tournament's batches, and so slow it, from then on."""
    now = timezone.now()
    overdue = list(
        Table.objects.filter(
            status=Table.Status.WAITING,
            deadline__lt=now,
            tournament__status=Tournament.Status.RUNNING,
        ).values_list("pk", flat=True)
    )
    for table_id in overdue:
        table_deadline.delay(table_id)
    unrecorded = defaultdict(list)
    for tournament_id, match_id in (
        TableMatch.objects.filter(
            recorded=False,
            match__status=Match.Status.FINISHED,  # a disputed one waits for the organiser
            match__finalized_at__lt=now - timedelta(minutes=1),
        )
        .order_by("table__tournament_id", "table__round_number", "table__position")
        .values_list("table__tournament_id", "match_id")
    ):
        unrecorded[tournament_id].append(match_id)
    for match_ids in unrecorded.values():
        for start in range(0, len(match_ids), SWEEP_BATCH):
            match_finished.delay(*match_ids[start : start + SWEEP_BATCH])
    stalled = services.tournaments_with_ready_tables()
    for tournament_id in stalled:
        start_tables.delay(tournament_id)
    return len(overdue) + sum(map(len, unrecorded.values())) + len(stalled)
