"""What the periodic tasks ask for: tables ready to start, and tournaments whose scheduled
step (check-in opening or closing, the start) is due."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Exists, OuterRef
from django.utils import timezone

from config.errors import Conflict
from tournaments.models import Table, TableSeat, Tournament
from tournaments.services.cancel import tournament_cancel
from tournaments.services.common import STARTABLE
from tournaments.services.draw import tournament_start
from tournaments.services.registration import (
    tournament_close_check_in,
    tournament_open_check_in,
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


def tournaments_due(*, now: datetime | None = None) -> dict:
    """Move scheduled tournaments along: open and close check-in, start at the start time.

    A tournament that cannot start (too few entries) is cancelled and refunded.
    """
    now = now or timezone.now()
    done = {"check_in_opened": 0, "check_in_closed": 0, "started": 0, "cancelled": 0}
    for pk in Tournament.objects.filter(
        status=Tournament.Status.REGISTRATION, check_in_opens_at__lte=now, starts_at__gt=now
    ).values_list("pk", flat=True):
        if Tournament.objects.filter(pk=pk, check_in_closes_at__lte=now).exists():
            continue
        tournament_open_check_in(tournament_id=pk)
        done["check_in_opened"] += 1
    for pk in Tournament.objects.filter(
        status=Tournament.Status.CHECK_IN, check_in_closes_at__lte=now, starts_at__gt=now
    ).values_list("pk", flat=True):
        tournament_close_check_in(tournament_id=pk)
        done["check_in_closed"] += 1
    for pk in Tournament.objects.filter(status__in=STARTABLE, starts_at__lte=now).values_list(
        "pk", flat=True
    ):
        try:
            tournament_start(tournament_id=pk, now=now)
            done["started"] += 1
        except Conflict as exc:
            if exc.code != "too_few_entries":
                raise
            tournament_cancel(tournament_id=pk)
            done["cancelled"] += 1
    return done
