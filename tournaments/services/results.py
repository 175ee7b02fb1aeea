"""Recording finished matches at their tables: the series totals, then the table's next
match or its finish. Each match counts once."""

from __future__ import annotations

import logging
from collections import defaultdict

from django.db import transaction
from django.db.models import Subquery
from django.utils import timezone

from engine import variants
from gameplay.models import Match, Seat
from tournaments.models import Table, TableMatch, TableSeat, Tournament, Webhook
from tournaments.services import webhooks
from tournaments.services.batch import Batch, Start, _next_number
from tournaments.services.common import _ref, _walkover, bracket_of
from tournaments.services.tables import _finish_table

logger = logging.getLogger(__name__)


def table_match_finished(*, match_id: int) -> bool:
    """Count a finalized match at its table and move the bracket on; once per match."""
    return match_id in table_matches_finished(match_ids=[match_id])


def table_matches_finished(*, match_ids: list[int]) -> set[int]:
    """Count finalized matches at their tables and move the bracket on; once per match.

    Returns the ids this call recorded: a duplicate delivery, or two deliveries at once,
    find them recorded under the table locks. Everything it changes is written together,
    and the next matches it opens are created in one batch.
    """
    with transaction.atomic(durable=True):
        batch = Batch(timezone.now())
        # The table locks serialise results, show-ups and disqualifications at each table.
        tables = TableMatch.objects.filter(match_id__in=list(match_ids)).values("table_id")
        batch.lock(Table.objects.filter(pk__in=Subquery(tables)))
        # Read now that the locks are held: a delivery that waited sees the recording of
        # the one it waited for. A finalized match no longer changes.
        records = list(
            TableMatch.objects.filter(
                table_id__in=list(batch.tables), match_id__in=list(match_ids), recorded=False
            )
            .select_related("match")
            .defer("match__log", "match__state")  # the result is all this needs
            .order_by("table_id", "number")
        )
        counted = []
        for record in records:
            match = record.match
            if match.finalized_at is None:
                continue
            if match.status != Match.Status.FINISHED:
                logger.error(
                    "tournament match %s is %s; the organiser must act", match.pk, match.status
                )
                continue
            counted.append(record)
        if not counted:
            return set()  # a duplicate delivery: nothing to write
        TableMatch.objects.filter(pk__in=[record.pk for record in counted]).update(recorded=True)
        # The tables these results feed, locked together (forward through the bracket).
        fed, tournaments = defaultdict(set), {}
        for table in {batch.tables[record.table_id] for record in counted}:
            tournaments[table.tournament_id] = table.tournament
            feeds = bracket_of(table.tournament).table(_ref(table)).feeds_into
            fed[table.tournament_id] |= {slot.table for slot in feeds}
        for tournament_id, refs in sorted(fed.items()):
            batch.lock_refs(tournaments[tournament_id], refs)
        results = defaultdict(dict)
        for seat in Seat.objects.filter(match_id__in=[record.match_id for record in counted]):
            results[seat.match_id][seat.player_id] = seat
        for record in counted:
            table = batch.tables[record.table_id]
            if table.status == Table.Status.PLAYING and (
                table.tournament.status == Tournament.Status.RUNNING
            ):
                _count_match(table, record.match, results[record.match_id], batch)
        batch.events += [
            _match_event(batch.tables[r.table_id], r.match, results[r.match_id]) for r in counted
        ]
        batch.write()
    return {record.match_id for record in counted}


def _match_event(table: Table, match: Match, seats: dict[int, Seat]) -> webhooks.Event:
    return webhooks.Event(
        tournament_id=table.tournament_id,
        event=Webhook.Event.MATCH_FINISHED,
        key=f"match:{match.pk}",
        data={
            "match": match.pk,
            "round": table.round_number,
            "table": table.position,
            "seats": [
                {
                    "player": seat.player_id,
                    "placement": seat.placement,
                    "score": seat.score,
                    "forfeited": seat.forfeited,
                }
                for seat in sorted(seats.values(), key=lambda seat: seat.index)
            ],
        },
    )


def _count_match(table: Table, match: Match, played: dict[int, Seat], batch: Batch) -> None:
    """Add the match to the series totals, then start the next match or finish the table.

    `played` holds the match's seats by player; a table seat forfeited before the match
    has none.
    """
    seats = batch.seats[table.pk]
    decided = (match.result or {}).get("winner") is not None
    for seat in seats:
        mine = played.get(seat.entry.player_id)
        if mine is None:
            continue
        seat.points += mine.score or 0
        seat.placement_sum += mine.placement or match.players
        seat.wins += int(mine.placement == 1 and decided)
        seat.forfeited = seat.forfeited or mine.forfeited
    table.games_played += 1
    live = [s for s in seats if not s.forfeited]
    shape = bracket_of(table.tournament)
    ranking = _walkover(shape, _ref(table), [s.entry_id for s in live])
    if ranking is None and _series_over(table, live):
        lower_wins = variants.get(match.variant).lower_score_wins(match.options)
        live.sort(
            key=lambda s: (-s.wins, s.placement_sum, s.points if lower_wins else -s.points, s.seed)
        )
        ranking = tuple(s.entry_id for s in live)
    if ranking is None:
        batch.starts.append(Start(table, live, _next_number(table)))
    else:
        _finish_table(table, ranking, walkover=False, batch=batch)


def _series_over(table: Table, live: list[TableSeat]) -> bool:
    """Best of N: head-to-head ends at a majority of wins, larger tables after N matches."""
    best_of = table.round.best_of
    if table.games_played >= best_of:
        return True
    return len(live) == 2 and max(s.wins for s in live) > best_of // 2
