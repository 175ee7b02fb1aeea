"""Swiss events: the games so far read back from the tables, the next round paired once
the one before is over, and the standings with the organiser's tie-breaks.

Round one is drawn like a bracket (`SwissLayout` pairs it by seed). Each later round is
paired here, by `finish._maybe_finish_tournament` under the tournament lock, when the last
table of the round before is done: the lock and "is the newest round over" make it happen
once, however many deliveries finish tables at the same moment."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta

from django.db.models import Max

from config.jobs import enqueue
from gameplay.models import Rating
from tournaments import jobs
from tournaments.formats import swiss, swiss_tables, tiebreaks
from tournaments.formats.swiss_layout import SwissLayout, round_tables
from tournaments.models import Entry, Round, Table, TableSeat, Tournament


def _done_tables(tournament: Tournament) -> list[list[tuple[int, int, int | None]]]:
    """Each done table's seats in seat order, as (round, entry, finish)."""
    seats = defaultdict(list)
    for table_id, round_number, entry_id, finish in (
        TableSeat.objects.filter(table__tournament=tournament, table__status=Table.Status.DONE)
        .order_by("table_id", "index")
        .values_list("table_id", "table__round_number", "entry_id", "finish")
    ):
        seats[table_id].append((round_number, entry_id, finish))
    return list(seats.values())


def _table_games(tournament: Tournament) -> list[swiss_tables.TableGame]:
    """Every played table in seat order with its finishing order (who forfeited last, in
    seat order); a lone seat sat out; a table where nobody finished was not played."""
    games = []
    for at_table in _done_tables(tournament):
        round_number, entries = at_table[0][0], tuple(e for _, e, _ in at_table)
        if len(at_table) > 1 and all(finish is None for _, _, finish in at_table):
            continue
        order = sorted(at_table, key=lambda seat: (seat[2] is None, seat[2] or 0))
        games.append(swiss_tables.TableGame(round_number, entries, tuple(e for _, e, _ in order)))
    return games


def _games(tournament: Tournament) -> list[swiss.Game]:
    """Every decided game: a table's winner is the seat that finished first; a lone seat
    is a bye; a table nobody played (neither showed up) is no game at all."""
    games = []
    for at_table in _done_tables(tournament):
        round_number = at_table[0][0]
        if len(at_table) == 1:
            if at_table[0][2] == 1:
                games.append(swiss.Game(round_number, at_table[0][1], None))
            continue
        (_, first, first_finish), (_, second, second_finish) = at_table
        if first_finish == 1 or second_finish == 1:
            result = swiss.WIN if first_finish == 1 else swiss.LOSS
            games.append(swiss.Game(round_number, first, second, result))
    return games


def newest_round_over(tournament: Tournament) -> int | None:
    """The newest paired round if all its tables are done, else None."""
    newest = Table.objects.filter(tournament=tournament).aggregate(n=Max("round_number"))["n"]
    pending = Table.objects.filter(tournament=tournament, round_number=newest).exclude(
        status=Table.Status.DONE
    )
    return None if newest is None or pending.exists() else newest


def pair_next_round(tournament: Tournament, shape: SwissLayout, now: datetime) -> bool:
    """Pair and store the round after the newest one; False when the event is over (the
    last round is played, or fewer than two entries are still playing). The caller holds
    the tournament lock and has checked the newest round is over."""
    newest = newest_round_over(tournament)
    if newest is None or newest >= shape.n_rounds:
        return False
    playing = list(
        Entry.objects.filter(tournament=tournament, status=Entry.Status.PLAYING)
        .order_by("seed")
        .values_list("pk", "seed", "player__is_bot")
    )
    if len(playing) < 2:
        return False
    number = newest + 1
    players = [pk for pk, _, _ in playing]
    size = tournament.table_size
    if size == 2:
        pairing = swiss.pair_round(players, _games(tournament))
    elif len(players) < max(3, size - 1):
        return False  # too few left to fill a table: the event ends here
    else:
        pairing = swiss_tables.pair_tables(
            players, _table_games(tournament), table_size=size, points=place_points(tournament)
        )
    round_id = Round.objects.values_list("pk", flat=True).get(tournament=tournament, number=number)
    deadline = now + timedelta(seconds=tournament.show_up_seconds)
    specs = round_tables(number, pairing, size)
    tables = Table.objects.bulk_create(
        Table(
            tournament=tournament,
            round_id=round_id,
            round_number=number,
            position=spec.ref.position,
            capacity=spec.capacity,
            status=Table.Status.DONE if bye else Table.Status.WAITING,
            walkover=bye,
            finished_at=now if bye else None,
            deadline=deadline if tournament.show_up_seconds and not bye else None,
        )
        for spec in specs
        for bye in [_alone(spec)]
    )
    info = {pk: (seed, is_bot) for pk, seed, is_bot in playing}
    everyone_present = not tournament.show_up_seconds
    TableSeat.objects.bulk_create(
        TableSeat(
            table=table,
            index=index,
            entry_id=entry_id,
            seed=info[entry_id][0],
            present=everyone_present or info[entry_id][1],
            finish=1 if _alone(spec) else None,
        )
        for table, spec in zip(tables, specs, strict=True)
        for index, entry_id in enumerate(spec.seats)
        if entry_id is not None
    )
    Entry.objects.filter(pk__in=list(info)).update(out_round=number)
    enqueue(jobs.START_TABLES, tournament.pk)
    return True


def _alone(spec) -> bool:
    """A bye or sit-out: one entry at a table, theirs without play."""
    return spec.seats[1] is None


def place_points(tournament: Tournament) -> tuple[float, ...]:
    """Points by finishing place at a Swiss table (the organiser's, else 3-1-0-0)."""
    return tuple(tournament.place_points or swiss_tables.DEFAULT_POINTS)


def _ratings(tournament: Tournament, entry_ids: list[int]) -> dict[int, float]:
    """Each entry's rating in the tournament's variant (the `rating` tie-break)."""
    entry_of = dict(Entry.objects.filter(pk__in=entry_ids).values_list("player_id", "pk"))
    rows = Rating.objects.filter(variant=tournament.variant, player_id__in=list(entry_of))
    return {entry_of[player_id]: o for player_id, o in rows.values_list("player_id", "ordinal")}


# At tables the tie-breaks are fixed: first places, then opposition (the multi-player
# Buchholz: table-mates' points), as `swiss_tables.table_standings` ranks them.
TABLE_TIEBREAKS = ("firsts", "opposition")


def swiss_standings(tournament: Tournament) -> list[tiebreaks.Standing]:
    """Every drawn entry ranked by score, then the tie-breaks in order (the tournament's
    head-to-head, `TABLE_TIEBREAKS` at tables); the seed lists tied entries."""
    entry_ids = list(
        Entry.objects.filter(tournament=tournament, seed__isnull=False)
        .order_by("seed")
        .values_list("pk", flat=True)
    )
    if tournament.table_size > 2:
        rows = swiss_tables.table_standings(
            entry_ids, _table_games(tournament), place_points(tournament)
        )
        return [
            tiebreaks.Standing(
                row.rank,
                row.entry,
                row.points,
                (("firsts", row.firsts), ("opposition", row.opposition)),
            )
            for row in rows
        ]
    keys = tuple(tournament.tiebreaks or tiebreaks.DEFAULT_TIEBREAKS)
    ratings = _ratings(tournament, entry_ids) if "rating" in keys else None
    return tiebreaks.standings(entry_ids, _games(tournament), keys, ratings)
