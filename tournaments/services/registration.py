"""Registration and check-in: opening them, entries registering, the waiting list, and
closing check-in (who did not check in is dropped and refunded, the waiting list moves up).

Each step holds the tournament lock, so counting the free places and taking one is a
single step."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from config.db import bulk_update
from config.errors import Conflict, NotAllowed, NotFound
from gameplay.models import Player
from tournaments.models import Entry, Tournament, Webhook
from tournaments.services import access, webhooks
from tournaments.services.common import (
    ACTIVE_ENTRY,
    ADMITTED,
    OPEN_FOR_ENTRIES,
    _check_organiser,
    _lock,
    _notify_entrants,
    _pay_fee,
    _refund,
    commit_draw_seed,
)


def tournament_open_registration(*, tournament_id: int, by=None) -> Tournament:
    with transaction.atomic():
        tournament = _lock(tournament_id)
        _check_organiser(by, tournament)
        if tournament.status != Tournament.Status.DRAFT:
            raise Conflict(_("Registration opens once, from a draft."), code="not_a_draft")
        tournament.status = Tournament.Status.REGISTRATION
        tournament.save(update_fields=["status"])
    return tournament


def tournament_open_check_in(*, tournament_id: int, by=None) -> Tournament:
    with transaction.atomic():
        tournament = _lock(tournament_id)
        _check_organiser(by, tournament)
        if tournament.status != Tournament.Status.REGISTRATION:
            raise Conflict(_("Check-in opens while registration is open."), code="not_registration")
        tournament.status = Tournament.Status.CHECK_IN
        tournament.check_in_opens_at = tournament.check_in_opens_at or timezone.now()
        commit_draw_seed(tournament)  # registration closes: the draw is fixed from here
        tournament.save(update_fields=["status", "check_in_opens_at", "draw_commitment"])
        _notify_entrants(tournament)
    return tournament


def _admitted_count(tournament: Tournament) -> int:
    return Entry.objects.filter(tournament=tournament, status__in=ADMITTED).count()


def entry_register(
    *, tournament_id: int, player: Player, code: str = "", now: datetime | None = None
) -> Entry:
    """Register (or re-register after withdrawing); past `max_entries` goes to the waiting
    list. `code`: the invitation code of an invite-only event (its link carries it)."""
    now = now or timezone.now()
    with transaction.atomic():
        # The tournament lock makes counting free places and taking one a single step.
        tournament = _lock(tournament_id)
        if tournament.status not in OPEN_FOR_ENTRIES:
            raise Conflict(_("Registration is not open."), code="registration_closed")
        if tournament.registration_opens_at and now < tournament.registration_opens_at:
            raise Conflict(_("Registration has not opened yet."), code="registration_closed")
        if tournament.registration_closes_at and now >= tournament.registration_closes_at:
            raise Conflict(_("Registration has closed."), code="registration_closed")
        if player.user_id == tournament.organiser_id and not tournament.organiser_may_play:
            raise NotAllowed(
                _("Organisers do not play in their own tournaments unless an admin allows it."),
                code="organiser_may_not_play",
            )
        if player.level < tournament.min_level:
            raise NotAllowed(
                _("This tournament is for level %(level)s and up.")
                % {"level": tournament.min_level},
                code="level_too_low",
            )
        refusal = access.entry_refusal(tournament, player, code)
        if refusal is not None:
            raise refusal
        entry = (
            Entry.objects.select_for_update().filter(tournament=tournament, player=player).first()
        )
        if entry is not None and entry.status != Entry.Status.WITHDRAWN:
            raise Conflict(
                _("Already in this tournament (%(status)s).")
                % {"status": entry.get_status_display().lower()},
                code="already_registered",
            )
        full = (
            tournament.max_entries is not None
            and _admitted_count(tournament) >= tournament.max_entries
        )
        status = Entry.Status.WAITLISTED if full else Entry.Status.REGISTERED
        if entry is None:
            entry = Entry.objects.create(tournament=tournament, player=player, status=status)
        else:
            entry.status, entry.checked_in_at = status, None
            entry.registrations += 1
        if tournament.entry_fee and not player.is_bot:
            _pay_fee(entry, tournament.entry_fee, f"Entry fee, {tournament.name}")
        entry.save()
        webhooks.announce([_entry_event(entry, Webhook.Event.ENTRY_REGISTERED)])
    return entry


def _entry_event(entry: Entry, event: str) -> webhooks.Event:
    return webhooks.Event(
        tournament_id=entry.tournament_id,
        event=event,
        key=f"{event}:{entry.pk}:{entry.registrations}",
        data={
            "entry": entry.pk,
            "player": {"id": entry.player_id, "name": entry.player.display_name},
            "status": entry.status,
        },
    )


def _promote(tournament: Tournament) -> int:
    """Fill free places from the waiting list, first come first served."""
    if tournament.max_entries is None:
        return 0
    free = tournament.max_entries - _admitted_count(tournament)
    if free <= 0:
        return 0
    waiting = Entry.objects.filter(tournament=tournament, status=Entry.Status.WAITLISTED)
    if tournament.status == Tournament.Status.READY:
        waiting = waiting.filter(checked_in_at__isnull=False)  # check-in is over
    promoted = 0
    for entry in waiting.order_by("registered_at", "pk")[:free]:
        entry.status = Entry.Status.CHECKED_IN if entry.checked_in_at else Entry.Status.REGISTERED
        entry.save(update_fields=["status"])
        promoted += 1
    return promoted


def _entry_of(tournament: Tournament, player: Player) -> Entry:
    entry = Entry.objects.select_for_update().filter(tournament=tournament, player=player).first()
    if entry is None:
        raise NotFound(_("You are not in this tournament."), code="not_registered")
    return entry


def entry_check_in(*, tournament_id: int, player: Player, now: datetime | None = None) -> Entry:
    """Confirm presence; a waiting-list entry checks in too, to be promoted at close."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        if tournament.status != Tournament.Status.CHECK_IN:
            raise Conflict(_("Check-in is not open."), code="check_in_closed")
        entry = _entry_of(tournament, player)
        if entry.status not in ACTIVE_ENTRY:
            raise Conflict(_("You are not registered."), code="not_registered")
        if entry.checked_in_at is None:
            entry.checked_in_at = now or timezone.now()
            if entry.status == Entry.Status.REGISTERED:
                entry.status = Entry.Status.CHECKED_IN
            entry.save(update_fields=["checked_in_at", "status"])
            webhooks.announce([_entry_event(entry, Webhook.Event.ENTRY_CHECKED_IN)])
    return entry


def _close_check_in(tournament: Tournament) -> dict:
    """Drop (and refund) who did not check in, then promote checked-in waiting entries."""
    dropped = list(
        Entry.objects.select_for_update().filter(
            tournament=tournament, status=Entry.Status.REGISTERED
        )
    )
    for entry in dropped:
        _refund(entry, f"Refund, no check-in at {tournament.name}")
        entry.status = Entry.Status.DROPPED
    bulk_update(dropped, ["status", "fee_paid"])
    promoted = 0
    if tournament.max_entries is not None:
        free = tournament.max_entries - _admitted_count(tournament)
        ready = Entry.objects.filter(
            tournament=tournament, status=Entry.Status.WAITLISTED, checked_in_at__isnull=False
        ).order_by("registered_at", "pk")
        ids = list(ready.values_list("pk", flat=True)[: max(free, 0)])
        promoted = Entry.objects.filter(pk__in=ids).update(status=Entry.Status.CHECKED_IN)
    return {"dropped": len(dropped), "promoted": promoted}


def tournament_close_check_in(*, tournament_id: int, by=None) -> dict:
    with transaction.atomic():
        tournament = _lock(tournament_id)
        _check_organiser(by, tournament)
        if tournament.status != Tournament.Status.CHECK_IN:
            raise Conflict(_("Check-in is not open."), code="check_in_closed")
        outcome = _close_check_in(tournament)
        tournament.status = Tournament.Status.READY
        tournament.save(update_fields=["status"])
    return outcome
