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
