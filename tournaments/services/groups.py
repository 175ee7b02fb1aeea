"""Two-stage events: each group round stored when the one before is over, then, once the
group stage is over, the groups ranked and the bracket of their qualifiers drawn.

Called by `finish._maybe_finish_tournament` under the tournament lock when the newest group
round's last table is done: the lock and "is the newest round over" make each step happen
once, however many results arrive together."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from datetime import datetime, timedelta

from competition.standings import Result
from config.jobs import enqueue
from tournaments import jobs
from tournaments.formats import swiss, tiebreaks, two_stage
from tournaments.formats.two_stage_layout import TwoStageLayout
from tournaments.models import Entry, Round, Table, TableSeat, Tournament
from tournaments.services import swiss as swiss_service
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
    """Store group round `number`: from the round-robin schedule, or (a Swiss group stage)
    paired within each group from its games so far. An entry that left the event is left
    out: a round-robin opponent takes the table alone, a win without play (no fixture);
    a Swiss group pairs only those still playing, a bye alone at its table."""
    entries = _entries_by_seed(tournament)
    if shape.swiss_groups:
        rows = _swiss_group_tables(tournament, shape, entries)
    else:
        rows = [
            [(i, entries[s], s) for i, s in enumerate(spec.seats) if entries[s][2] not in LEFT]
            for spec in shape.group_tables(number)
        ]
    _store_group_round(tournament, number, [seats for seats in rows if seats], now)


def _swiss_group_tables(tournament: Tournament, shape: TwoStageLayout, entries) -> list:
    """Each group's next Swiss round by seed (`swiss.pair_round` on the group's games;
    entries that left are paired no more), groups in order, each bye after its pairs."""
    games = _group_games(tournament, shape)
    seed_of = {pk: seed for seed, (pk, _, _) in entries.items()}
    rows = []
    for g, group in enumerate(shape.groups):
        players = [entries[s][0] for s in group if entries[s][2] not in LEFT]
        if len(players) < 2:
            rows.extend([[(0, entries[seed_of[pk]], seed_of[pk])] for pk in players])
            continue
        pairing = swiss.pair_round(players, games[g])
        for pair in (*pairing.pairs, *([(pairing.bye,)] if pairing.bye is not None else [])):
            rows.append([(i, entries[seed_of[pk]], seed_of[pk]) for i, pk in enumerate(pair)])
    return rows


def _store_group_round(tournament: Tournament, number: int, rows: list, now) -> None:
    """Store a group round's tables in this order, each given as its seats (index,
    (entry, is_bot, status), seed); a table of one is its player's at once."""
    everyone_present = not tournament.show_up_seconds
    deadline = now + timedelta(seconds=tournament.show_up_seconds)
    round_id = _round_ids(tournament)[number]
    tables = Table.objects.bulk_create(
        Table(
            tournament=tournament,
            round_id=round_id,
            round_number=number,
            position=position,
            capacity=2,
            status=Table.Status.WAITING if len(seats) == 2 else Table.Status.DONE,
            walkover=len(seats) < 2,
            finished_at=None if len(seats) == 2 else now,
            deadline=deadline if tournament.show_up_seconds and len(seats) == 2 else None,
        )
        for position, seats in enumerate(rows)
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
        for table, seats in zip(tables, rows, strict=True)
        for index, (pk, is_bot, _), seed in seats
    )
    enqueue(jobs.START_TABLES, tournament.pk)


def _group_seats(tournament: Tournament, shape: TwoStageLayout) -> dict[int, list[tuple]]:
    """Each done group table's seats in seat order: (round, entry, finish, points, seed)."""
    at_table: dict[int, list[tuple]] = defaultdict(list)
    for table_id, number, entry_id, finish, points, seed in (
        TableSeat.objects.filter(
            table__tournament=tournament,
            table__round_number__lte=shape.n_group_rounds,
            table__status=Table.Status.DONE,
        )
        .order_by("table_id", "index")
        .values_list("table_id", "table__round_number", "entry_id", "finish", "points", "seed")
    ):
        at_table[table_id].append((number, entry_id, finish, points, seed))
    return at_table


def _group_games(tournament: Tournament, shape: TwoStageLayout) -> list[list[swiss.Game]]:
    """A Swiss group stage's games, by group: a lone seat that finished is a bye (worth a
    win), a table's winner is the seat that finished first, a table nobody played is none."""
    group_of = shape.group_of_seed()
    games: list[list[swiss.Game]] = [[] for _ in shape.groups]
    for seats in _group_seats(tournament, shape).values():
        number, group = seats[0][0], group_of[seats[0][4]]
        if len(seats) == 1:
            if seats[0][2] == 1:
                games[group].append(swiss.Game(number, seats[0][1], None))
            continue
        (_, first, first_finish, _, _), (_, second, second_finish, _, _) = seats
        if first_finish == 1 or second_finish == 1:
            result = swiss.WIN if first_finish == 1 else swiss.LOSS
            games[group].append(swiss.Game(number, first, second, result))
    return games


def group_orders(tournament: Tournament, shape: TwoStageLayout) -> list[tuple[int, ...]]:
    """Each group's finishing order (entry ids): by the league's standings for round
    robins (a table's winner finished first; a walkover counts as a win for whoever was
    there), by the Swiss standings and the organiser's tie-breaks for Swiss groups."""
    entries = _entries_by_seed(tournament)
    if shape.swiss_groups:
        keys = tuple(tournament.tiebreaks or tiebreaks.DEFAULT_TIEBREAKS)
        ids = [pk for pk, _, _ in entries.values()]
        ratings = swiss_service._ratings(tournament, ids) if "rating" in keys else None
        return [
            two_stage.swiss_group_order(
                [entries[s][0] for s in group], games, keys=keys, ratings=ratings
            )
            for group, games in zip(shape.groups, _group_games(tournament, shape), strict=True)
        ]
    group_of = shape.group_of_seed()
    results: dict[int, list[Result]] = defaultdict(list)
    for seats in _group_seats(tournament, shape).values():
        if len(seats) < 2 or not any(finish for _, _, finish, _, _ in seats):
            continue  # alone at the table, or nobody played: no fixture
        number, group = seats[0][0], group_of[seats[0][4]]
        places = {e: (f or 2) for _, e, f, _, _ in seats}
        results[group].append(Result(number, places, {e: p for _, e, _, p, _ in seats}))
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
    enqueue(jobs.START_TABLES, tournament.pk)
