"""Cancelling a tournament: it stops for good and every fee still held is refunded."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from config.db import bulk_update
from config.errors import Conflict
from tournaments.models import Entry, Tournament
from tournaments.services.common import _check_organiser, _lock, _notify_entrants, _refund


def tournament_cancel(*, tournament_id: int, by=None, reason: str = "") -> Tournament:
    """Stop a tournament for good and refund every fee still held; its entrants get a
    notice. `reason` is empty for an organiser's cancel, `too_few_entries` for the clock's."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        _check_organiser(by, tournament)
        if tournament.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
            raise Conflict(_("The tournament is over."), code="tournament_over")
        tournament.status = Tournament.Status.CANCELLED
        tournament.finished_at = timezone.now()
        tournament.cancel_reason = reason
        tournament.save(update_fields=["status", "finished_at", "cancel_reason"])
        paid = list(Entry.objects.select_for_update().filter(tournament=tournament, fee_paid__gt=0))
        for entry in paid:
            _refund(entry, f"Refund, {tournament.name} was cancelled")
        bulk_update(paid, ["fee_paid"])
        _notify_entrants(tournament)
    return tournament
