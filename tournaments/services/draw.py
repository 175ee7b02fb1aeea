"""The draw: the seeding order, then the whole bracket stored in a constant number of
queries. Tables that need a match are started after commit by the `start_tables` task."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta
from typing import NamedTuple

from django.db import connection, transaction
from django.db.models import OuterRef, Subquery
from django.utils import timezone
from django.utils.translation import gettext as _

from config.errors import Conflict, NotFound
from config.jobs import enqueue
from gameplay.models import Rating
from tournaments import bracket as bk
from tournaments import jobs
from tournaments.formats.double_layout import DoubleLayout
from tournaments.formats.swiss_layout import SwissLayout
from tournaments.formats.two_stage_layout import TwoStageLayout
from tournaments.models import Entry, Round, Table, TableSeat, Tournament
from tournaments.services import access
from tournaments.services.common import (
    BEFORE_START,
    STARTABLE,
    Shape,
    _check_organiser,
    _lock,
    _moves,
    _notify_entrants,
    _refund,
    _store_numbers,
    _walkover,
    commit_draw_seed,
    shape_for,
)
from tournaments.services.registration import _close_check_in


def entry_set_seed(*, entry_id: int, seed: int | None, by) -> Entry:
    """The organiser's seed for manual seeding (1 is the best)."""
    with transaction.atomic():
        entry = Entry.objects.select_related("tournament").filter(pk=entry_id).first()
        if entry is None:
            raise NotFound(_("No such entry."))
        tournament = _lock(entry.tournament_id)
        _check_organiser(by, tournament)
        if tournament.status not in BEFORE_START:
            raise Conflict(_("Seeds are fixed once the bracket is drawn."), code="already_started")
        entry.manual_seed = seed
        entry.save(update_fields=["manual_seed"])
    return entry


class Candidate(NamedTuple):
    """An entry in the draw, as plain data: the draw handles 65,536 of them at once."""

    pk: int
    is_bot: bool
    manual_seed: int | None
    ordinal: float | None


def _seed_order(tournament: Tournament, first_come: list[Candidate]) -> list[Candidate]:
    """Entries best first by the tournament's seeding rule; `first_come` is in registration
    order, which breaks ties (the sorts are stable)."""
    if tournament.seeding == Tournament.Seeding.RANDOM:
        return bk.random_seeding(tournament.seed, first_come)
    if tournament.seeding == Tournament.Seeding.MANUAL:
        big = len(first_come) + 1
        return sorted(first_come, key=lambda e: e.manual_seed or big)
    return sorted(first_come, key=lambda e: -(e.ordinal if e.ordinal is not None else -1e9))


def tournament_start(*, tournament_id: int, by=None, now: datetime | None = None) -> Tournament:
    """Draw the bracket and store all of it in a constant number of queries.

    Byes and tables emptied before play are decided here in memory (with bracket.walkover
    and bracket.advance), so the rows are written once; tables that need a match are left
    waiting and `start_tables` creates their matches after commit, in batches.
    """
    now = now or timezone.now()
    with transaction.atomic(durable=True):
        tournament = _lock(tournament_id)
        _check_organiser(by, tournament)
        if tournament.status not in STARTABLE:
            codes = {
                Tournament.Status.DRAFT: "not_open",
                Tournament.Status.RUNNING: "already_started",
            }
            raise Conflict(
                _("A tournament that is %(status)s cannot start.")
                % {"status": tournament.get_status_display().lower()},
                code=codes.get(tournament.status, "tournament_over"),
            )
        # Registration closes here when check-in never opened: commit, then reveal at once
        # (the draw seed became public the moment the bracket is drawn).
        commit_draw_seed(tournament)
        checked = tournament.status in (Tournament.Status.CHECK_IN, Tournament.Status.READY)
        if tournament.status == Tournament.Status.CHECK_IN:
            _close_check_in(tournament)
        playing_status = Entry.Status.CHECKED_IN if checked else Entry.Status.REGISTERED
        rating = Rating.objects.filter(player_id=OuterRef("player_id"), variant=tournament.variant)
        entries = [
            Candidate(*row)
            for row in Entry.objects.filter(tournament=tournament, status=playing_status)
            .annotate(ordinal=Subquery(rating.values("ordinal")[:1]))
            .order_by("registered_at", "pk")
            .values_list("pk", "player__is_bot", "manual_seed", "ordinal")
        ]
        if len(entries) < 2:
            raise Conflict(
                _("A bracket needs two entries; %(n)s can play.") % {"n": len(entries)},
                code="too_few_entries",
            )
        if len(entries) < tournament.min_entries:
            raise Conflict(
                f"This tournament needs {tournament.min_entries} entries; {len(entries)} can play.",
                code="too_few_entries",
            )
        seats = tournament.table_size
        if tournament.format == Tournament.Format.SWISS and len(entries) < max(3, seats - 1):
            raise Conflict(
                f"Swiss tables of {seats} need {max(3, seats - 1)} entries; "
                f"{len(entries)} can play.",
                code="too_few_entries",
            )
        n_groups = tournament.groups or 1
        if tournament.format == Tournament.Format.TWO_STAGE and (
            len(entries) < 2 * n_groups or n_groups * (tournament.group_advance or 2) < 2
        ):
            raise Conflict(
                f"{n_groups} groups need {2 * n_groups} entries and two qualifiers; "
                f"{len(entries)} can play.",
                code="too_few_entries",
            )
        ordered = _seed_order(tournament, entries)
        shape = shape_for(tournament, len(ordered))
        tournament.entries_count = len(ordered)
        _draw(tournament, shape, ordered, now)
        for entry in Entry.objects.filter(tournament=tournament, status=Entry.Status.WAITLISTED):
            _refund(entry, f"Refund, not admitted to {tournament.name}")
            entry.save(update_fields=["fee_paid"])
        tournament.status = Tournament.Status.RUNNING
        tournament.started_at = now
        tournament.save(update_fields=["status", "started_at", "entries_count", "draw_commitment"])
        enqueue(jobs.START_TABLES, tournament.pk)
        access.no_show_bans_count_down(started=tournament)
        _notify_entrants(tournament)
    return tournament


def round_name(number: int, n_rounds: int) -> str:
    names = {0: "Final", 1: "Semi-finals", 2: "Quarter-finals"}
    return names.get(n_rounds - number, f"Round {number}")


# The columns the draw writes, in the order its rows list them.
DRAWN_TABLE = [
    "tournament_id",
    "round_id",
    "round_number",
    "position",
    "third_place",
    "capacity",
    "feeders_total",
    "feeders_done",
    "status",
    "walkover",
    "deadline",
    "games_played",
    "finished_at",
]
DRAWN_SEAT = [
    "table_id",
    "index",
    "entry_id",
    "seed",
    "present",
    "forfeited",
    "wins",
    "points",
    "placement_sum",
    "finish",
]


def _rounds(tournament: Tournament, shape: Shape) -> list[Round]:
    """The rounds' rows: numbered across the event, with their side in double elimination.
    The final's series length goes to the final (both grand finals in double elimination)."""
    final_best_of = tournament.final_best_of or tournament.best_of
    if isinstance(shape, DoubleLayout):
        finals = set(shape.final_rounds)
        return [
            Round(
                tournament=tournament,
                number=r,
                name=shape.round_name(r),
                best_of=final_best_of if r in finals else tournament.best_of,
                side=side,
                side_round=side_round,
            )
            for r, (side, side_round) in enumerate(shape.sides, start=1)
        ]
    n_rounds = shape.n_rounds
    swiss = isinstance(shape, SwissLayout)
    if isinstance(shape, TwoStageLayout):
        groups = shape.n_group_rounds
        finals = set(shape.final_rounds)
        rows = [
            Round(
                tournament=tournament, number=r, name=f"Group round {r}", best_of=tournament.best_of
            )
            for r in range(1, groups + 1)
        ]
        for r in range(groups + 1, n_rounds + 1):
            side, side_round, name = "", None, round_name(r - groups, n_rounds - groups)
            if shape.double:  # a double-elimination stage two: its rounds have sides
                side, side_round = shape.knockout.sides[r - groups - 1]
                name = shape.knockout.round_name(r - groups)
            rows.append(
                Round(
                    tournament=tournament,
                    number=r,
                    name=name,
                    best_of=final_best_of if r in finals else tournament.best_of,
                    side=side,
                    side_round=side_round,
                )
            )
        return rows
    return [
        Round(
            tournament=tournament,
            number=r,
            name=f"Round {r}" if swiss else round_name(r, n_rounds),
            best_of=final_best_of if r == n_rounds else tournament.best_of,
        )
        for r in range(1, n_rounds + 1)
    ]


def _draw(tournament: Tournament, shape: Shape, ordered: list[Candidate], now: datetime) -> None:
    """Store every round, table and first seat; byes walk through in memory first."""
    rounds = Round.objects.bulk_create(_rounds(tournament, shape))
    round_ids = {r.number: r.pk for r in rounds}
    by_seed = {i + 1: e for i, e in enumerate(ordered)}
    _store_tables(tournament, shape, shape.tables(), by_seed, round_ids, now)
    _store_numbers(
        [(e.pk, s) for s, e in by_seed.items()],
        "seed",
        extra={"status": Entry.Status.PLAYING, "out_round": 1},
    )


def _store_tables(
    tournament: Tournament,
    shape: Shape,
    drawn: list[bk.Table],
    by_seed: dict[int, Candidate],
    round_ids: dict[int, int],
    now: datetime,
) -> None:
    """Store these tables (each after its feeders; the first ones seated by seed) and
    their seats; byes walk through in memory first. A two-stage event's bracket is stored
    this way too, when its group stage is over, seeded by the qualifiers."""
    deadline = now + timedelta(seconds=tournament.show_up_seconds)
    first_round = drawn[0].ref.round
    seated: dict[bk.TableRef, dict[int, Candidate]] = defaultdict(dict)
    for table in (t for t in drawn if t.ref.round == first_round):
        for index, seed in enumerate(table.seats):
            if seed is not None:
                seated[table.ref][index] = by_seed[seed]
    fed: dict[bk.TableRef, int] = defaultdict(int)
    finish: dict[tuple[bk.TableRef, int], int] = {}
    tables = []
    for table in drawn:
        status, walkover = Table.Status.PENDING, False
        if fed[table.ref] == len(table.feeders):
            players = [e for _, e in sorted(seated[table.ref].items())]
            ranking = _walkover(shape, table.ref, [e.pk for e in players])
            if ranking is None:
                status = Table.Status.WAITING
            else:
                status, walkover = Table.Status.DONE, True
                finish.update(((table.ref, e), i) for i, e in enumerate(ranking, start=1))
                entries = {e.pk: e for e in players}
                at = seated[table.ref]
                by_seat = [at[i].pk if i in at else None for i in range(table.capacity)]
                for move in _moves(shape, table.ref, ranking, by_seat):
                    seated[move.slot.table][move.slot.seat] = entries[move.entry]
                for ref in {slot.table for slot in table.feeds_into}:
                    fed[ref] += 1
        waits = status == Table.Status.WAITING and tournament.show_up_seconds
        tables.append(
            (
                tournament.pk,
                round_ids[table.ref.round],
                table.ref.round,
                table.ref.position,
                table.third_place,
                table.capacity,
                len(table.feeders),
                fed[table.ref],
                status,
                walkover,
                deadline if waits else None,
                0,
                now if walkover else None,
            )
        )
    _insert(Table, DRAWN_TABLE, tables)
    table_ids = {
        (r, p): pk
        for r, p, pk in Table.objects.filter(
            tournament=tournament, round_number__gte=first_round
        ).values_list("round_number", "position", "pk")
    }
    seed_of = {e.pk: s for s, e in by_seed.items()}
    everyone_present = not tournament.show_up_seconds
    seats = [
        (
            table_ids[ref],
            index,
            entry.pk,
            seed_of[entry.pk],
            everyone_present or entry.is_bot,
            False,
            0,
            0,
            0,
            finish.get((ref, entry.pk)),
        )
        for ref, at_table in seated.items()
        for index, entry in at_table.items()
    ]
    _insert(TableSeat, DRAWN_SEAT, seats)


def _insert(model, names: list[str], rows: list[tuple]) -> None:
    """Insert rows (tuples in the order of `names`) with COPY on PostgreSQL.

    The draw writes up to 65,535 tables and as many seats; building that many model
    instances costs seconds, and COPY is PostgreSQL's fastest way in. Elsewhere (SQLite,
    for development) it falls back to bulk_create.
    """
    if connection.vendor != "postgresql":
        model.objects.bulk_create(model(**dict(zip(names, row, strict=True))) for row in rows)
        return
    columns = ", ".join(
        connection.ops.quote_name(model._meta.get_field(name).column) for name in names
    )
    sql = f"COPY {model._meta.db_table} ({columns}) FROM STDIN"
    with connection.cursor() as cursor, cursor.copy(sql) as copy:
        for row in rows:
            copy.write_row(row)
