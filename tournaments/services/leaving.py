"""An entry leaving: it withdraws, or the organiser disqualifies it. Before the draw it
loses its place (a withdrawal is refunded, a disqualification is not) and the waiting list
moves up; once playing it forfeits its current seat (its match, its wait, or its seat to
come), with no refund."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from config.errors import Conflict, NotFound
from gameplay import services as gameplay
from gameplay.models import Match, Player, Seat
from tournaments.models import Entry, Table, TableSeat, Tournament
from tournaments.services.batch import Batch
from tournaments.services.common import (
    ACTIVE_ENTRY,
    STARTABLE,
    _check_organiser,
    _lock,
    _refund,
)
from tournaments.services.registration import _entry_of, _promote
from tournaments.services.tables import _proceed


def entry_withdraw(*, tournament_id: int, player: Player) -> Entry:
    """Before the draw: leave with the fee refunded. Once playing: forfeit, no refund."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        entry = _entry_of(tournament, player)
        if tournament.status == Tournament.Status.RUNNING:
            if entry.status != Entry.Status.PLAYING:
                raise Conflict(_("You are no longer playing in it."), code="not_playing")
        elif tournament.status not in STARTABLE or entry.status not in ACTIVE_ENTRY:
            raise Conflict(_("There is nothing to withdraw from."), code="not_registered")
        else:
            _refund(entry, f"Refund, withdrew from {tournament.name}")
            entry.status = Entry.Status.WITHDRAWN
            entry.save(update_fields=["status", "fee_paid"])
            _promote(tournament)
            return entry
    _entry_forfeit(entry_id=entry.pk, status=Entry.Status.WITHDRAWN, reason="withdrew")
    entry.refresh_from_db()
    return entry


def entry_disqualify(*, entry_id: int, by, reason: str = "") -> Entry:
    """The organiser removes an entry: before the draw it loses its place (no refund),
    once playing it forfeits its current match and goes nowhere."""
    entry = Entry.objects.select_related("tournament").filter(pk=entry_id).first()
    if entry is None:
        raise NotFound(_("No such entry."))
    _check_organiser(by, entry.tournament)
    if entry.tournament.status == Tournament.Status.RUNNING:
        _entry_forfeit(entry_id=entry.pk, status=Entry.Status.DISQUALIFIED, reason="disqualified")
        entry.refresh_from_db()
        return entry
    with transaction.atomic():
        tournament = _lock(entry.tournament_id)
        entry = Entry.objects.select_for_update().get(pk=entry_id)
        if tournament.status not in STARTABLE or entry.status not in ACTIVE_ENTRY:
            raise Conflict(_("That entry cannot be disqualified now."), code="not_disqualifiable")
        entry.status = Entry.Status.DISQUALIFIED
        entry.save(update_fields=["status"])
        _promote(tournament)
    return entry


def _entry_forfeit(*, entry_id: int, status: str, reason: str) -> None:
    """Forfeit a playing entry's current seat: its match, its wait, or its seat to come."""
    for _attempt in range(3):
        with transaction.atomic():
            seat = (
                TableSeat.objects.filter(entry_id=entry_id)
                .exclude(table__status=Table.Status.DONE)
                .values("table_id")
                .first()
            )
            if seat is None:
                # Between tables (or out): the status alone keeps it from playing on.
                _set_out(entry_id, status)
                return
            # Table first, then the entry and the match: the order every advance uses.
            batch = Batch(timezone.now())
            [table] = batch.lock(Table.objects.filter(pk=seat["table_id"]))
            if table.status == Table.Status.DONE:
                continue  # the table finished meanwhile: look for the next one
            _set_out(entry_id, status)
            mine = next(s for s in batch.seats[table.pk] if s.entry_id == entry_id)
            mine.forfeited = True
            mine.entry.status = status  # loaded before _set_out; advancing reads it
            if table.status == Table.Status.WAITING:
                _proceed(table, batch)
            elif table.status == Table.Status.PLAYING:
                _forfeit_match(table, mine.entry.player_id, reason)
            batch.write()
            return
    raise Conflict(_("The bracket is moving; try again."), code="busy")


def _set_out(entry_id: int, status: str) -> None:
    changed = Entry.objects.filter(pk=entry_id, status=Entry.Status.PLAYING).update(status=status)
    if not changed:
        raise Conflict(_("That entry is no longer playing."), code="not_playing")


def _forfeit_match(table: Table, player_id: int, reason: str) -> None:
    record = table.matches.filter(recorded=False).order_by("-number").first()
    if record is None:
        return
    match = Match.objects.select_for_update().get(pk=record.match_id)
    if match.status != Match.Status.ACTIVE:
        return  # over already: the result is counted with this seat forfeited
    index = Seat.objects.values_list("index", flat=True).get(match=match, player_id=player_id)
    gameplay.match_forfeit(match=match, seat_index=index, reason=reason)
