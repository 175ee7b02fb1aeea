"""A batch: what one transaction changes in the bracket, written together when it is done.

Starting tables, recording results and forfeits all go through one: it locks and loads
each table once, keeps the changes in memory, writes the rows together, creates the
matches that start in one call (so their bots play in one task) and finishes the
tournaments whose last round is over."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import NamedTuple

from django.db.models import Q

from config.db import bulk_update
from gameplay import live
from gameplay import services as gameplay
from tournaments import bracket as bk
from tournaments.models import Entry, Table, TableMatch, TableSeat, Tournament, Webhook
from tournaments.services import access, webhooks
from tournaments.services.common import _ref
from tournaments.services.finish import _maybe_finish_tournament

# What play changes on a table row and its seats. Every writer holds the table lock and
# loaded the rows under it, so storing them whole lets one UPDATE carry several steps.
TABLE_STATE = [
    "feeders_done",
    "status",
    "deadline",
    "walkover",
    "games_played",
    "replays",
    "finished_at",
]
SEAT_STATE = ["points", "placement_sum", "wins", "forfeited", "finish", "present", "client_seed"]


class Start(NamedTuple):
    """A match a table is about to play; the batch creates all of them at once."""

    table: Table
    live: list[TableSeat]
    number: int


def _next_number(table: Table) -> int:
    """The number of the table's next match: every match so far, replayed ones too."""
    return table.games_played + table.replays + 1


class Batch:
    """What one transaction changes in the bracket, written together when it is done.

    Each table is locked and loaded once, with its seats, and kept here: a table fed by
    two tables of the batch sees both feeds, and every row is written once, at the end.
    Locks are taken as tables are first needed, forward through the bracket.
    """

    def __init__(self, now: datetime):
        self.now = now
        self.tables: dict[int, Table] = {}
        self.tournaments: dict[int, Tournament] = {}
        self.at: dict[tuple[int, bk.TableRef], Table] = {}  # by tournament and position
        self.seats: dict[int, list[TableSeat]] = {}
        self.new_seats: list[TableSeat] = []
        self.out_round: dict[int, int] = {}
        self.knocked_out: set[int] = set()
        self.starts: list[Start] = []
        self.finals: set[int] = set()
        self.events: list[webhooks.Event] = []  # for the organisers' webhooks
        self.no_shows: dict[int, list[int]] = defaultdict(list)  # people, by tournament

    def lock(self, tables) -> list[Table]:
        """Lock and load these tables (a queryset) and their seats, in primary-key order."""
        rows = list(
            tables.select_for_update(of=("self",))
            .select_related("round")
            .exclude(pk__in=list(self.tables))
            .order_by("pk")
        )
        # One tournament instance for the whole batch, not one per table: its row is wide,
        # and a batch locks a few hundred tables of one tournament.
        missing = {row.tournament_id for row in rows} - self.tournaments.keys()
        if missing:
            self.tournaments.update(Tournament.objects.in_bulk(missing))
        for row in rows:
            row.tournament = self.tournaments[row.tournament_id]
            self.tables[row.pk] = row
            self.at[row.tournament_id, _ref(row)] = row
            self.seats[row.pk] = []
        for seat in (
            TableSeat.objects.filter(table__in=rows)
            .select_related("entry__player")
            .order_by("table_id", "index")
        ):
            self.seats[seat.table_id].append(seat)
        return rows

    def lock_refs(self, tournament: Tournament, refs) -> dict[bk.TableRef, Table]:
        """Lock the tables at these bracket positions, unless held already; by position."""
        missing = Q()
        for ref in set(refs):
            if (tournament.pk, ref) not in self.at:
                missing |= Q(round_number=ref.round, position=ref.position)
        if missing:
            self.lock(Table.objects.filter(missing, tournament=tournament))
        return {ref: self.at[tournament.pk, ref] for ref in refs if (tournament.pk, ref) in self.at}

    def seat(self, table: Table, seat: TableSeat) -> None:
        self.seats[table.pk].append(seat)
        self.new_seats.append(seat)

    def write(self) -> None:
        """Store everything, create the matches that start, then finish tournaments."""
        TableSeat.objects.bulk_create(self.new_seats)
        created = {id(seat) for seat in self.new_seats}
        bulk_update(
            [s for seats in self.seats.values() for s in seats if id(s) not in created],
            SEAT_STATE,
        )
        bulk_update(list(self.tables.values()), TABLE_STATE)
        by_round = defaultdict(list)
        for entry_id, round_number in self.out_round.items():
            by_round[round_number].append(entry_id)
        for round_number, entry_ids in by_round.items():
            Entry.objects.filter(pk__in=entry_ids).update(out_round=round_number)
        if self.knocked_out:
            Entry.objects.filter(pk__in=self.knocked_out, status=Entry.Status.PLAYING).update(
                status=Entry.Status.ELIMINATED
            )
        self.events += _start_matches(self.starts)
        webhooks.announce(self.events)
        for tournament_id, player_ids in sorted(self.no_shows.items()):
            access.no_shows_record(tournament_id=tournament_id, player_ids=player_ids, now=self.now)
        # A table that waits for its players or started a match is news to the people at it.
        live.notify_players(
            seat.entry.player_id
            for table in self.tables.values()
            if table.status in (Table.Status.WAITING, Table.Status.PLAYING)
            for seat in self.seats[table.pk]
            if not seat.entry.player.is_bot
        )
        for tournament_id in sorted(self.finals):
            _maybe_finish_tournament(tournament_id, self.now)


def _start_matches(starts: list[Start]) -> list[webhooks.Event]:
    """Create the matches of the tables that start, and link them; one batch for all of
    them, so their bot turns go to a worker as one task. Each match draws its own server
    seed from `secrets` (gameplay.games.new_seed): nothing of the tournament's, so nobody
    who knows the tournament, staff included, can compute a deal. Returns the rounds that
    started, as webhook events (once per round: the key)."""
    if not starts:
        return []
    matches = gameplay.match_create_many(
        specs=[
            gameplay.NewMatch(
                variant=start.table.tournament.variant,
                options=start.table.tournament.options,
                players=[seat.entry.player for seat in start.live],
                turn_seconds=start.table.tournament.turn_seconds,
                # The tournament's setting travels on the match: gameplay never asks us.
                spectators_allowed=start.table.tournament.spectators_allowed,
                client_seeds={
                    seat.entry.player_id: seat.client_seed
                    for seat in start.live
                    if seat.client_seed
                },
            )
            for start in starts
        ]
    )
    TableMatch.objects.bulk_create(
        TableMatch(table=start.table, match=match, number=start.number)
        for start, match in zip(starts, matches, strict=True)
    )
    # A round starts with its first table's first match; its key makes that once.
    return [
        webhooks.Event(
            tournament_id=tournament_id,
            event=Webhook.Event.ROUND_STARTED,
            key=f"round:{number}",
            data={"round": number},
        )
        for tournament_id, number in sorted(
            {(start.table.tournament_id, start.table.round_number) for start in starts}
        )
    ]
