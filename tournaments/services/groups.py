"""Two-stage events: each group round stored when the one before is over, then, once the
group stage is over, the groups ranked and the bracket of their qualifiers drawn.

Called by `finish._maybe_finish_tournament` under the tournament lock when the newest group
round's last table is done: the lock and "is the newest round over" make each step happen
once, however many results arrive together."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from datetime import datetime, timedelta

from config.jobs import enqueue
from leagues.standings import Result
from tournaments.formats import two_stage
from tournaments.formats.two_stage_layout import TwoStageLayout
from tournaments.models import Entry, Round, Table, TableSeat, Tournament
from tournaments.services.common import LEFT
from tournaments.services.draw import Candidate, _store_tables


def _entries_by_seed(tournament: Tournament) -> dict[int, tuple[int, bool, str]]:
    return {
        seed: (pk, is_bot, status)
        for pk, seed, is_bot, status in Entry.objects.filter(
            tournament=tournament, seed__isnull=False
        ).values_list("pk", "seed", "player__is_bot", "status")
    }


def _round_ids(tournament: Tournament) -> dict[int, int]:
    return dict(Round.objects.filter(tournament=tournament).values_list("number", "pk"))


def next_group_round(tournament: Tournament, shape: TwoStageLayout, number: int, now) -> None:
    """Store group round `number` from the schedule; an entry that left the event is
    left out, and its opponent takes the table alone, a win without play."""
    entries = _entries_by_seed(tournament)
    everyone_present = not tournament.show_up_seconds
    deadline = now + timedelta(seconds=tournament.show_up_seconds)
    round_id = _round_ids(tournament)[number]
    specs = []
    for spec in shape.group_tables(number):
        seats = [(i, entries[s]) for i, s in enumerate(spec.seats) if entries[s][2] not in LEFT]
        if seats:
            specs.append((spec, seats))
    tables = Table.objects.bulk_create(
        Table(
            tournament=tournament,
            round_id=round_id,
            round_number=number,
            position=spec.ref.position,
            capacity=2,
            status=Table.Status.WAITING if len(seats) == 2 else Table.Status.DONE,
            walkover=len(seats) < 2,
            finished_at=None if len(seats) == 2 else now,
            deadline=deadline if tournament.show_up_seconds and len(seats) == 2 else None,
        )
        for spec, seats in specs
    )
    TableSeat.objects.bulk_create(
        TableSeat(
            table=table,
            index=index,
            entry_id=pk,
            seed=seed,
            present=everyone_present or is_bot,
            finish=None if len(seats) == 2 else 1,
        )
        for table, (spec, seats) in zip(tables, specs, strict=True)
        for index, (pk, is_bot, _) in seats
        for seed in [spec.seats[index]]
    )
    enqueue("tournaments.tasks.start_tables", tournament.pk)


def group_orders(tournament: Tournament, shape: TwoStageLayout) -> list[tuple[int, ...]]:
    """Each group's finishing order (entry ids) by the league's standings: a table's
    winner finished first; a walkover counts as a win for whoever was there."""
    entries = _entries_by_seed(tournament)
    results: dict[int, list[Result]] = defaultdict(list)
    at_table: dict[int, list[tuple[int, int, int | None, int]]] = defaultdict(list)
    for table_id, number, position, entry_id, finish, points in TableSeat.objects.filter(
        table__tournament=tournament,
        table__round_number__lte=shape.n_group_rounds,
        table__status=Table.Status.DONE,
    ).values_list(
        "table_id", "table__round_number", "table__position", "entry_id", "finish", "points"
    ):
        at_table[table_id].append((number, position, entry_id, finish, points))
    for seats in at_table.values():
        number, position = seats[0][0], seats[0][1]
        if len(seats) < 2 or not any(finish for *_, finish, _ in seats):
            continue  # alone at the table, or nobody played: no fixture
        group = shape.group_rounds[number - 1][position][0]
        places = {e: (f or 2) for _, _, e, f, _ in seats}
        results[group].append(Result(number, places, {e: p for _, _, e, _, p in seats}))
    return [
        two_stage.group_order([entries[s][0] for s in group], results[g])
        for g, group in enumerate(shape.groups)
    ]


def draw_knockout(tournament: Tournament, shape: TwoStageLayout, now: datetime) -> None:
    """Rank the groups and store the bracket of their qualifiers (entries that left the
    event do not qualify: the next in their group does); the others are out."""
    left = set(
        Entry.objects.filter(tournament=tournament, status__in=LEFT).values_list("pk", flat=True)
    )
    finishing = [
        tuple(e for e in order if e not in left) for order in group_orders(tournament, shape)
    ]
    advance = tournament.group_advance or 2
    qualifiers = two_stage.seed_qualifiers(finishing, advance)
    bots = dict(Entry.objects.filter(pk__in=qualifiers).values_list("pk", "player__is_bot"))
    by_seed = {
        seed: Candidate(pk, bots[pk], None, None) for seed, pk in enumerate(qualifiers, start=1)
    }
    # A qualifier short (a group emptied by withdrawals) leaves its seat empty: a bye.
    bracket = [
        replace(t, seats=tuple(s if s in by_seed else None for s in t.seats))
        for t in shape.knockout_tables()
    ]
    _store_tables(tournament, shape, bracket, by_seed, _round_ids(tournament), now)
    out = [pk for order in finishing for pk in order[advance:]]
    Entry.objects.filter(tournament=tournament, seed__isnull=False).update(
        out_round=shape.n_group_rounds
    )
    Entry.objects.filter(pk__in=out, status=Entry.Status.PLAYING).update(
        status=Entry.Status.ELIMINATED
    )
    enqueue("tournaments.tasks.start_tables", tournament.pk)
