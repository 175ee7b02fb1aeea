"""A table's life: starting once its players are seated (or at the show-up deadline),
players showing up, replaying a disputed match, and finishing, which seats who goes
through at the tables it feeds and decides those that are now complete."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from config.errors import Conflict, DomainError, NotFound
from engine import fair
from gameplay.models import Match, Player
from tournaments.models import Table, TableMatch, TableSeat, Tournament
from tournaments.services.batch import Batch, Start, _next_number
from tournaments.services.common import (
    LEFT,
    _check_organiser,
    _may_end_round,
    _moves,
    _ref,
    _stage,
    _walkover,
    bracket_of,
)


def table_start(*, table_id: int, now: datetime | None = None) -> str:
    """Start a waiting table whose players are all present (a task calls this after the draw)."""
    return table_start_many(table_ids=[table_id], now=now).get(table_id, "not_waiting")


def table_start_many(*, table_ids: list[int], now: datetime | None = None) -> dict[int, str]:
    """Start waiting tables together: their first matches are created in one batch."""
    outcomes = {}
    with transaction.atomic():
        batch = Batch(now or timezone.now())
        for table in batch.lock(Table.objects.filter(pk__in=table_ids)):
            if table.status != Table.Status.WAITING:
                outcomes[table.pk] = "not_waiting"
            elif table.tournament.status != Tournament.Status.RUNNING:
                outcomes[table.pk] = "not_running"
            else:
                outcomes[table.pk] = _proceed(table, batch)
        batch.write()
    return outcomes


def table_deadline(*, table_id: int, now: datetime | None = None) -> str:
    """At the show-up deadline: who is absent loses by walkover; the rest play or go through."""
    return table_start(table_id=table_id, now=now)


def table_show_up(
    *, table_id: int, player: Player, client_seed: str = "", now: datetime | None = None
) -> Table:
    """A player takes their seat; the table starts once everybody has. `client_seed`: the
    one their browser drew as they sat down (else their profile's, else the server draws
    one), for the deals of their matches at this table."""
    if client_seed:
        try:
            fair.check_client_seed(client_seed)
        except ValueError as exc:
            raise DomainError(str(exc), code="invalid_client_seed") from exc
    with transaction.atomic():
        batch = Batch(now or timezone.now())
        [table] = batch.lock(Table.objects.filter(pk=table_id)) or [None]
        if table is None:
            raise NotFound(_("No such table."))
        seat = next((s for s in batch.seats[table.pk] if s.entry.player_id == player.pk), None)
        if seat is None:
            raise NotFound(_("You have no seat at this table."), code="no_seat")
        if table.status == Table.Status.PENDING:
            raise Conflict(_("This table waits for earlier tables."), code="table_not_ready")
        if table.status != Table.Status.WAITING:
            raise Conflict(_("This table has started or finished."), code="table_started")
        if seat.forfeited:
            raise Conflict(_("Your seat was forfeited."), code="forfeited")
        seat.present = True
        seat.client_seed = client_seed
        _proceed(table, batch)
        batch.write()
    return table


def _proceed(table: Table, batch: Batch) -> str:
    """Decide a waiting table: walk it over, start its next match, or keep waiting."""
    seats = batch.seats[table.pk]
    live = [s for s in seats if not s.forfeited]
    if table.deadline is not None and batch.now >= table.deadline:
        for seat in live:
            seat.forfeited = not seat.present
            if seat.forfeited and not seat.entry.player.is_bot:
                batch.no_shows[table.tournament_id].append(seat.entry.player_id)
        live = [s for s in live if s.present]
    shape = bracket_of(table.tournament)
    ranking = _walkover(shape, _ref(table), [s.entry_id for s in live])
    if ranking is not None:
        _finish_table(table, ranking, walkover=True, batch=batch)
        return "walkover"
    if all(s.present for s in live):
        table.status = Table.Status.PLAYING
        table.deadline = None
        batch.starts.append(Start(table, live, _next_number(table)))
        return "started"
    return "waiting"


def table_replay(*, table_id: int, by) -> Table:
    """The organiser sets a table's disputed match aside and the table plays it again.

    A disputed match (its move log did not reproduce its result) counts for nobody; the
    replacement is dealt from a new seed, like any next match of a series.
    """
    with transaction.atomic():
        batch = Batch(timezone.now())
        [table] = batch.lock(Table.objects.filter(pk=table_id)) or [None]
        if table is None:
            raise NotFound(_("No such table."))
        _check_organiser(by, table.tournament)
        record = table.matches.filter(recorded=False).select_related("match").first()
        if (
            table.status != Table.Status.PLAYING
            or record is None
            or record.match.status != Match.Status.DISPUTED
        ):
            raise Conflict(_("This table has no disputed match to replay."), code="not_disputed")
        TableMatch.objects.filter(pk=record.pk).update(recorded=True)
        table.replays += 1
        live = [seat for seat in batch.seats[table.pk] if not seat.forfeited]
        batch.starts.append(Start(table, live, _next_number(table)))
        batch.write()
    return table


def _finish_table(table: Table, ranking, *, walkover: bool, batch: Batch) -> None:
    """Record the finishing order, seat who goes through, open tables that are now fed."""
    tournament = table.tournament
    shape = bracket_of(tournament)
    table.status, table.walkover, table.finished_at = Table.Status.DONE, walkover, batch.now
    seats = batch.seats[table.pk]
    place = {entry_id: i for i, entry_id in enumerate(ranking, start=1)}
    for seat in seats:
        seat.finish = place.get(seat.entry_id)
    spec = shape.table(_ref(table))
    by_seat = {seat.index: seat.entry_id for seat in seats}
    moves = _moves(
        shape,
        spec.ref,
        ranking,
        seated=[by_seat.get(i) for i in range(table.capacity)],
        gone={seat.entry_id for seat in seats if seat.entry.status in LEFT},
    )
    going_on = {m.entry for m in moves}
    for seat in seats:
        if not table.third_place:
            batch.out_round[seat.entry_id] = _stage(shape, spec.ref)
        if spec.feeds_into and seat.entry_id not in going_on:
            batch.knocked_out.add(seat.entry_id)
    targets = {slot.table for slot in spec.feeds_into}
    if targets:
        _feed(tournament, targets, moves, {s.entry_id: s for s in seats}, batch)
    if _may_end_round(shape, spec.ref):
        batch.finals.add(tournament.pk)


def _feed(tournament, targets, moves, seat_of: dict[int, TableSeat], batch: Batch) -> None:
    """Seat the players going through and count this feeder at each next table."""
    by_ref = batch.lock_refs(tournament, targets)
    everyone_present = not tournament.show_up_seconds
    for move in moves:
        entry = seat_of[move.entry].entry
        batch.seat(
            by_ref[move.slot.table],
            TableSeat(
                table=by_ref[move.slot.table],
                index=move.slot.seat,
                entry=entry,
                seed=seat_of[move.entry].seed,
                present=everyone_present or entry.player.is_bot,
            ),
        )
    for ref in sorted(targets):
        row = by_ref[ref]
        row.feeders_done += 1
        if row.feeders_done == row.feeders_total:
            row.status = Table.Status.WAITING
            if tournament.show_up_seconds:
                row.deadline = batch.now + timedelta(seconds=tournament.show_up_seconds)
            batch.seats[row.pk].sort(key=lambda seat: seat.index)
            _proceed(row, batch)
