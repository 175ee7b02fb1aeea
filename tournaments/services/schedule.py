"""What the periodic tasks ask for: tables ready to start, and tournaments whose scheduled
step (registration or check-in opening, check-in closing, the start) is due, and taking
those steps by the clock alone."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from config.errors import Conflict
from config.jobs import enqueue_many
from tournaments import jobs
from tournaments.models import Table, TableSeat, Tournament
from tournaments.services.cancel import tournament_cancel
from tournaments.services.common import STARTABLE
from tournaments.services.draw import tournament_start
from tournaments.services.registration import (
    tournament_close_check_in,
    tournament_open_check_in,
    tournament_open_registration,
)


def _ready_tables():
    absent = TableSeat.objects.filter(table=OuterRef("pk"), present=False, forfeited=False)
    return Table.objects.filter(
        status=Table.Status.WAITING, tournament__status=Tournament.Status.RUNNING
    ).exclude(Exists(absent))


def waiting_tables(*, tournament_id: int, limit: int) -> list[int]:
    """Waiting tables whose players are all seated, oldest rounds first."""
    return list(
        _ready_tables()
        .filter(tournament_id=tournament_id)
        .order_by("round_number", "position")
        .values_list("pk", flat=True)[:limit]
    )


# Tables started per start_tables job. Each batch's matches are played, finalized and
# recorded together, and the next round's batches are half as big, so the first round's
# size sets every round's, and a tournament costs about (first-round batches x rounds)
# batches of fixed work (queries, task trips). 128 gives a 1,024-entry field four batches
# to share among workers; a first round of `WIDE_ROUND` tables or more starts 256 at a
# time, still eight batches or more: a 4,096-entry gin field then runs 8 first-round
# batches instead of 16, so about 79 finalize batches (8 x 9 halvings + 7) instead of the
# 143 counted at 128 (benchmarks/tournament_bench.py).
START_BATCH = 128
WIDE_START_BATCH = 256
WIDE_ROUND = 8 * WIDE_START_BATCH


def start_batch(*, tournament_id: int) -> int:
    """How many ready tables one start_tables job starts in this tournament."""
    first_round = Table.objects.filter(tournament_id=tournament_id, round_number=1).count()
    return WIDE_START_BATCH if first_round >= WIDE_ROUND else START_BATCH


def tournaments_with_ready_tables() -> list[int]:
    # order_by(): the tables' default ordering would join DISTINCT, one row per table.
    return list(_ready_tables().order_by().values_list("tournament_id", flat=True).distinct())


# Conflicts that mean another run of the schedule (or the organiser) took this step first:
# the tournament is already past it, so the step is done, once.
MOVED_ON = frozenset(
    {"not_a_draft", "not_registration", "check_in_closed", "already_started", "tournament_over"}
)
# Statuses from which the clock moves a tournament, and the most steps one run takes
# (draft -> registration -> check-in -> ready -> running).
SCHEDULED = (Tournament.Status.DRAFT, *STARTABLE)
MAX_STEPS = 4


def _due_step(tournament: Tournament, now: datetime) -> str | None:
    """The step whose time has come for this tournament, if any."""
    status, Status = tournament.status, Tournament.Status
    opens = tournament.registration_opens_at
    if status == Status.DRAFT:
        return "open_registration" if opens is not None and opens <= now else None
    if status not in STARTABLE:
        return None
    if tournament.starts_at is not None and tournament.starts_at <= now:
        return "start"
    closes = tournament.check_in_closes_at
    closed = closes is not None and closes <= now
    if status == Status.REGISTRATION:
        check_in = tournament.check_in_opens_at
        return "open_check_in" if check_in is not None and check_in <= now and not closed else None
    if status == Status.CHECK_IN and closed:
        return "close_check_in"
    return None


def _due_filter(now: datetime) -> Q:
    Status = Tournament.Status
    return (
        Q(status=Status.DRAFT, registration_opens_at__lte=now)
        | Q(status__in=STARTABLE, starts_at__lte=now)
        | (
            Q(status=Status.REGISTRATION, check_in_opens_at__lte=now)
            & (Q(check_in_closes_at__isnull=True) | Q(check_in_closes_at__gt=now))
        )
        | Q(status=Status.CHECK_IN, check_in_closes_at__lte=now)
    )


def _start_or_cancel(tournament_id: int, now: datetime) -> str:
    try:
        tournament_start(tournament_id=tournament_id, now=now)
    except Conflict as exc:
        if exc.code != "too_few_entries":
            raise
        tournament_cancel(tournament_id=tournament_id, reason="too_few_entries")
        return "cancelled"
    return "started"


def tournament_advance(*, tournament_id: int, now: datetime | None = None) -> list[str]:
    """Take every step of this tournament's schedule whose time has come, in order: open
    registration, open check-in, close check-in, start (or, with fewer entries than its
    minimum, cancel and refund). Returns the steps this call took.

    Each step is a service that locks the tournament and checks its status first, so two
    runs at once (two beat ticks, a job delivered twice, the organiser's button) take each
    step once: the later one finds the tournament past it (`MOVED_ON`) and goes on from
    where it now is.
    """
    taken = []
    for _step in range(MAX_STEPS):
        tournament = Tournament.objects.filter(pk=tournament_id).first()
        step = tournament and _due_step(tournament, now or timezone.now())
        if not step:
            break
        try:
            if step == "open_registration":
                tournament_open_registration(tournament_id=tournament_id)
            elif step == "open_check_in":
                tournament_open_check_in(tournament_id=tournament_id)
            elif step == "close_check_in":
                tournament_close_check_in(tournament_id=tournament_id)
            else:
                step = _start_or_cancel(tournament_id, now or timezone.now())
        except Conflict as exc:
            if exc.code not in MOVED_ON:
                raise
            continue
        taken.append(step)
    return taken


def tournaments_due(*, now: datetime | None = None) -> list[int]:
    """Beat: the tournaments with a scheduled step due, each handed to an `advance_schedule`
    job of the outbox. The job row commits before any step is taken, so a worker killed
    mid-step leaves it due, and the relay runs it again (`outbox.services`)."""
    now = now or timezone.now()
    due = list(
        Tournament.objects.filter(_due_filter(now)).order_by("pk").values_list("pk", flat=True)
    )
    if due:
        with transaction.atomic():
            enqueue_many(jobs.ADVANCE_SCHEDULE, [[pk] for pk in due])
    return due
