"""Every write in tournaments: one function per use case, keyword-only.

The bracket's shape comes from tournaments.bracket (pure); these functions load rows, ask
it what happens next and store the outcome. Concurrency rules:

* The tournament row orders registration, check-in, the draw, cancelling and finishing.
* A table row orders everything that happens at that table (players showing up, a match
  result, a disqualification). Advancing locks the finished tables, then the tables they
  feed (later rounds), each group in primary-key order, then the tournament for the last
  round: locks are always taken forward through the bracket, so two workers never
  deadlock.
* Work comes in batches (a round's tables starting, the results of a batch of matches):
  a `Batch` loads each table it locks once, keeps the changes in memory and writes them
  together, and the matches it opens are created together, so their bots play in one task.
* Doing it twice returns quietly: a match is recorded once (`TableMatch.recorded`, read
  again under the table lock), a table finishes once (its status under the lock), prizes
  and refunds carry ledger keys.
"""

from __future__ import annotations

import hashlib
import logging
import random
import secrets
from collections import defaultdict
from datetime import datetime, timedelta
from functools import lru_cache
from typing import NamedTuple

from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Q, Subquery
from django.utils import timezone

from config.db import bulk_update
from config.errors import Conflict, DomainError, NotAllowed, NotFound
from config.jobs import enqueue
from engine import variants
from gameplay import services as gameplay
from gameplay.models import Match, Metric, Player, Rating, Seat
from tournaments import bracket as bk
from tournaments.models import Entry, Prize, Round, Table, TableMatch, TableSeat, Tournament

logger = logging.getLogger(__name__)

OPEN_FOR_ENTRIES = (Tournament.Status.REGISTRATION, Tournament.Status.CHECK_IN)
STARTABLE = (*OPEN_FOR_ENTRIES, Tournament.Status.READY)
BEFORE_START = (Tournament.Status.DRAFT, *STARTABLE)
ADMITTED = (Entry.Status.REGISTERED, Entry.Status.CHECKED_IN)
ACTIVE_ENTRY = (*ADMITTED, Entry.Status.WAITLISTED)
EDITABLE = (
    "name",
    "options",
    "best_of",
    "final_best_of",
    "seeding",
    "third_place",
    "registration_opens_at",
    "registration_closes_at",
    "check_in_opens_at",
    "check_in_closes_at",
    "starts_at",
    "max_entries",
    "min_level",
    "show_up_seconds",
    "turn_seconds",
)


@lru_cache(maxsize=64)
def _shape(n_entries: int, table_size: int, advance: int, third_place: bool) -> bk.Bracket:
    """The drawn bracket's shape; pure and deterministic, so every worker can cache it."""
    return bk.build_bracket(n_entries, table_size, advance, third_place=third_place)


def bracket_of(tournament: Tournament) -> bk.Bracket:
    if not tournament.entries_count:
        raise Conflict("The bracket is drawn when the tournament starts.", code="not_started")
    return _shape(
        tournament.entries_count, tournament.table_size, tournament.advance, tournament.third_place
    )


def round_name(number: int, n_rounds: int) -> str:
    names = {0: "Final", 1: "Semi-finals", 2: "Quarter-finals"}
    return names.get(n_rounds - number, f"Round {number}")


# --- organisers -------------------------------------------------------------------------


def can_organise(user) -> bool:
    return bool(user and user.is_authenticated and user.has_perm("tournaments.organise_tournament"))


def _check_organiser(user, tournament: Tournament) -> None:
    """Only the tournament's own organiser (or a superuser) runs it; `None` is the system."""
    if user is None or user.is_superuser:
        return
    if not can_organise(user) or tournament.organiser_id != user.pk:
        raise NotAllowed("Only this tournament's organiser may do that.", code="not_organiser")


def validate_settings(values: dict) -> None:
    """Refuse settings no tournament can run with, in words an organiser can act on."""
    try:
        variant = variants.get(values["variant"])
        values["options"] = variant.validate_options(values.get("options") or {})
        bk.validate(2, values["table_size"], values["advance"])
    except ValueError as exc:
        raise DomainError(str(exc), code="invalid_settings") from exc
    # A table may play short-handed, down to one more player than go through.
    if (
        not variant.min_players
        <= values["advance"] + 1
        <= values["table_size"]
        <= (variant.max_players)
    ):
        raise DomainError(
            f"{variant.name} seats {variant.min_players} to {variant.max_players} players; "
            f"tables of {values['table_size']} with {values['advance']} going through "
            "need another variant.",
            code="invalid_settings",
        )
    for field in ("best_of", "final_best_of"):
        n = values.get(field)
        if n is not None and not (1 <= n <= 9 and n % 2 == 1):
            raise DomainError(f"{field} must be odd, from 1 to 9.", code="invalid_settings")
    if values.get("third_place") and values["table_size"] != 2:
        raise DomainError(
            "A third-place match exists only for head-to-head tables.", code="invalid_settings"
        )
    if values.get("max_entries") is not None and values["max_entries"] < 2:
        raise DomainError("A tournament needs room for two entries.", code="invalid_settings")
    if values.get("turn_seconds", 60) < 5:
        raise DomainError("Turns last at least 5 seconds.", code="invalid_settings")
    order = [
        ("registration_opens_at", "registration_closes_at"),
        ("registration_closes_at", "starts_at"),
        ("check_in_opens_at", "check_in_closes_at"),
        ("check_in_closes_at", "starts_at"),
    ]
    for early, late in order:
        a, b = values.get(early), values.get(late)
        if a is not None and b is not None and a > b:
            raise DomainError(f"{early} must not be after {late}.", code="invalid_settings")


def tournament_create(*, organiser, name: str, variant: str, prizes=(), **settings) -> Tournament:
    """A draft tournament with its prizes; the organiser opens registration when ready."""
    if not can_organise(organiser):
        raise NotAllowed(
            "Creating tournaments needs the organiser permission.", code="not_organiser"
        )
    values = {
        "name": name,
        "variant": variant,
        "table_size": 2,
        "advance": 1,
        "best_of": 1,
        **settings,
    }
    validate_settings(values)
    values["seed"] = values.get("seed") or secrets.token_hex(16)
    with transaction.atomic():
        tournament = Tournament.objects.create(organiser=organiser, **values)
        _store_prizes(tournament, prizes)
    return tournament


def _store_prizes(tournament: Tournament, prizes) -> None:
    places = [p["placement"] for p in prizes]
    if len(set(places)) != len(places) or any(p < 1 for p in places):
        raise DomainError("Each placement has at most one prize.", code="invalid_prizes")
    Prize.objects.filter(tournament=tournament).delete()
    Prize.objects.bulk_create(Prize(tournament=tournament, **p) for p in prizes)


def tournament_update(*, tournament_id: int, by, prizes=None, **changes) -> Tournament:
    """Change settings before the draw; the shape (variant, table size) is fixed at creation."""
    unknown = set(changes) - set(EDITABLE)
    if unknown:
        raise DomainError(
            f"These cannot change after creation: {', '.join(sorted(unknown))}.",
            code="not_editable",
        )
    with transaction.atomic():
        tournament = _lock(tournament_id)
        _check_organiser(by, tournament)
        if tournament.status not in BEFORE_START:
            raise Conflict("The tournament has started.", code="already_started")
        values = {f.name: getattr(tournament, f.name) for f in Tournament._meta.concrete_fields}
        values.update(changes)
        validate_settings(values)
        for field, value in changes.items():
            setattr(tournament, field, values[field] if field == "options" else value)
        tournament.save()
        if prizes is not None:
            _store_prizes(tournament, prizes)
    return tournament


def _lock(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise NotFound("No such tournament.")
    return tournament


def tournament_open_registration(*, tournament_id: int, by=None) -> Tournament:
    with transaction.atomic():
        tournament = _lock(tournament_id)
        _check_organiser(by, tournament)
        if tournament.status != Tournament.Status.DRAFT:
            raise Conflict("Registration opens once, from a draft.", code="not_a_draft")
        tournament.status = Tournament.Status.REGISTRATION
        tournament.save(update_fields=["status"])
    return tournament


def tournament_open_check_in(*, tournament_id: int, by=None) -> Tournament:
    with transaction.atomic():
        tournament = _lock(tournament_id)
        _check_organiser(by, tournament)
        if tournament.status != Tournament.Status.REGISTRATION:
            raise Conflict("Check-in opens while registration is open.", code="not_registration")
        tournament.status = Tournament.Status.CHECK_IN
        tournament.check_in_opens_at = tournament.check_in_opens_at or timezone.now()
        tournament.save(update_fields=["status", "check_in_opens_at"])
    return tournament


# --- entries ------------------------------------------------------------------------------


def _fee_key(entry: Entry, what: str) -> str:
    return f"tournament:{entry.tournament_id}:entry:{entry.pk}:{what}:{entry.registrations}"


def _refund(entry: Entry, reason: str) -> None:
    if entry.fee_paid:
        gameplay.coins_book(
            player_id=entry.player_id,
            amount=entry.fee_paid,
            reason=reason,
            key=_fee_key(entry, "refund"),
        )
        entry.fee_paid = 0


def _admitted_count(tournament: Tournament) -> int:
    return Entry.objects.filter(tournament=tournament, status__in=ADMITTED).count()


def entry_register(*, tournament_id: int, player: Player, now: datetime | None = None) -> Entry:
    """Register (or re-register after withdrawing); past `max_entries` goes to the waiting list."""
    now = now or timezone.now()
    with transaction.atomic():
        # The tournament lock makes counting free places and taking one a single step.
        tournament = _lock(tournament_id)
        if tournament.status not in OPEN_FOR_ENTRIES:
            raise Conflict("Registration is not open.", code="registration_closed")
        if tournament.registration_opens_at and now < tournament.registration_opens_at:
            raise Conflict("Registration has not opened yet.", code="registration_closed")
        if tournament.registration_closes_at and now >= tournament.registration_closes_at:
            raise Conflict("Registration has closed.", code="registration_closed")
        if player.level < tournament.min_level:
            raise NotAllowed(
                f"This tournament is for level {tournament.min_level} and up.", code="level_too_low"
            )
        entry = (
            Entry.objects.select_for_update().filter(tournament=tournament, player=player).first()
        )
        if entry is not None and entry.status != Entry.Status.WITHDRAWN:
            raise Conflict(
                f"Already in this tournament ({entry.get_status_display().lower()}).",
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
            gameplay.coins_book(
                player_id=player.pk,
                amount=-tournament.entry_fee,
                reason=f"Entry fee, {tournament.name}",
                key=_fee_key(entry, "fee"),
            )
            entry.fee_paid = tournament.entry_fee
        entry.save()
    return entry


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
        raise NotFound("You are not in this tournament.", code="not_registered")
    return entry


def entry_withdraw(*, tournament_id: int, player: Player) -> Entry:
    """Before the draw: leave with the fee refunded. Once playing: forfeit, no refund."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        entry = _entry_of(tournament, player)
        if tournament.status == Tournament.Status.RUNNING:
            if entry.status != Entry.Status.PLAYING:
                raise Conflict("You are no longer playing in it.", code="not_playing")
        elif tournament.status not in STARTABLE or entry.status not in ACTIVE_ENTRY:
            raise Conflict("There is nothing to withdraw from.", code="not_registered")
        else:
            _refund(entry, f"Refund, withdrew from {tournament.name}")
            entry.status = Entry.Status.WITHDRAWN
            entry.save(update_fields=["status", "fee_paid"])
            _promote(tournament)
            return entry
    _entry_forfeit(entry_id=entry.pk, status=Entry.Status.WITHDRAWN, reason="withdrew")
    entry.refresh_from_db()
    return entry


def entry_check_in(*, tournament_id: int, player: Player, now: datetime | None = None) -> Entry:
    """Confirm presence; a waiting-list entry checks in too, to be promoted at close."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        if tournament.status != Tournament.Status.CHECK_IN:
            raise Conflict("Check-in is not open.", code="check_in_closed")
        entry = _entry_of(tournament, player)
        if entry.status not in ACTIVE_ENTRY:
            raise Conflict("You are not registered.", code="not_registered")
        if entry.checked_in_at is None:
            entry.checked_in_at = now or timezone.now()
            if entry.status == Entry.Status.REGISTERED:
                entry.status = Entry.Status.CHECKED_IN
            entry.save(update_fields=["checked_in_at", "status"])
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


def entry_set_seed(*, entry_id: int, seed: int | None, by) -> Entry:
    """The organiser's seed for manual seeding (1 is the best)."""
    with transaction.atomic():
        entry = Entry.objects.select_related("tournament").filter(pk=entry_id).first()
        if entry is None:
            raise NotFound("No such entry.")
        tournament = _lock(entry.tournament_id)
        _check_organiser(by, tournament)
        if tournament.status not in BEFORE_START:
            raise Conflict("Seeds are fixed once the bracket is drawn.", code="already_started")
        entry.manual_seed = seed
        entry.save(update_fields=["manual_seed"])
    return entry


# --- the draw -----------------------------------------------------------------------------


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
        shuffled = list(first_come)
        random.Random(f"{tournament.seed}:seeding").shuffle(shuffled)
        return shuffled
    if tournament.seeding == Tournament.Seeding.MANUAL:
        big = len(first_come) + 1
        return sorted(first_come, key=lambda e: e.manual_seed or big)
    return sorted(first_come, key=lambda e: -(e.ordinal if e.ordinal is not None else -1e9))


def _match_seed(tournament: Tournament, table: Table, number: int) -> str:
    """A secret per match derived from the tournament's secret and the bracket ref, so a
    simulation with the same seed deals the same cards at every table."""
    ref = f"{table.round_number}.{table.position}.{number}"
    return hashlib.sha256(f"{tournament.seed}:{ref}".encode()).hexdigest()


def tournament_close_check_in(*, tournament_id: int, by=None) -> dict:
    with transaction.atomic():
        tournament = _lock(tournament_id)
        _check_organiser(by, tournament)
        if tournament.status != Tournament.Status.CHECK_IN:
            raise Conflict("Check-in is not open.", code="check_in_closed")
        outcome = _close_check_in(tournament)
        tournament.status = Tournament.Status.READY
        tournament.save(update_fields=["status"])
    return outcome


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
                f"A tournament that is {tournament.get_status_display().lower()} cannot start.",
                code=codes.get(tournament.status, "tournament_over"),
            )
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
                f"A bracket needs two entries; {len(entries)} can play.", code="too_few_entries"
            )
        ordered = _seed_order(tournament, entries)
        shape = _shape(
            len(ordered), tournament.table_size, tournament.advance, tournament.third_place
        )
        tournament.entries_count = len(ordered)
        _draw(tournament, shape, ordered, now)
        for entry in Entry.objects.filter(tournament=tournament, status=Entry.Status.WAITLISTED):
            _refund(entry, f"Refund, not admitted to {tournament.name}")
            entry.save(update_fields=["fee_paid"])
        tournament.status = Tournament.Status.RUNNING
        tournament.started_at = now
        tournament.save(update_fields=["status", "started_at", "entries_count"])
        enqueue("tournaments.tasks.start_tables", tournament.pk)
    return tournament


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


def _draw(
    tournament: Tournament, shape: bk.Bracket, ordered: list[Candidate], now: datetime
) -> None:
    """Store every round, table and first seat; byes walk through in memory first."""
    n_rounds = shape.n_rounds
    final_best_of = tournament.final_best_of or tournament.best_of
    rounds = Round.objects.bulk_create(
        Round(
            tournament=tournament,
            number=r,
            name=round_name(r, n_rounds),
            best_of=final_best_of if r == n_rounds else tournament.best_of,
        )
        for r in range(1, n_rounds + 1)
    )
    round_ids = {r.number: r.pk for r in rounds}
    by_seed = {i + 1: e for i, e in enumerate(ordered)}
    deadline = now + timedelta(seconds=tournament.show_up_seconds)

    seated: dict[bk.TableRef, dict[int, Candidate]] = defaultdict(dict)
    for table in shape.rounds[0]:
        for index, seed in enumerate(table.seats):
            if seed is not None:
                seated[table.ref][index] = by_seed[seed]
    fed: dict[bk.TableRef, int] = defaultdict(int)
    finish: dict[tuple[bk.TableRef, int], int] = {}
    tables = []
    for table in shape.tables():
        status, walkover = Table.Status.PENDING, False
        if fed[table.ref] == len(table.feeders):
            players = [e for _, e in sorted(seated[table.ref].items())]
            ranking = bk.walkover(shape, table.ref, [e.pk for e in players])
            if ranking is None:
                status = Table.Status.WAITING
            else:
                status, walkover = Table.Status.DONE, True
                finish.update(((table.ref, e), i) for i, e in enumerate(ranking, start=1))
                entries = {e.pk: e for e in players}
                for move in bk.advance(shape, table.ref, ranking):
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
        for r, p, pk in Table.objects.filter(tournament=tournament).values_list(
            "round_number", "position", "pk"
        )
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
    _store_numbers(
        [(e.pk, s) for s, e in by_seed.items()],
        "seed",
        extra={"status": Entry.Status.PLAYING, "out_round": 1},
    )


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


def _int_array(values: list[int]) -> str:
    """A PostgreSQL array literal of integers, joined in C: adapting 65,536 items one by
    one costs seconds."""
    return "{" + ",".join(map(str, values)) + "}"


def _store_numbers(numbers: list[tuple[int, int]], field: str, extra: dict | None = None) -> None:
    """Write one number per entry (and constant `extra` columns) in a single statement.

    PostgreSQL joins an unnested array, so the query count stays flat at any size;
    elsewhere (SQLite, for development) it falls back to batched bulk_update.
    """
    extra = extra or {}
    if connection.vendor != "postgresql":
        Entry.objects.bulk_update(
            [Entry(pk=pk, **{field: n}, **extra) for pk, n in numbers],
            [field, *extra],
            batch_size=500,
        )
        return
    sets = ", ".join([f"{field} = v.n", *(f"{column} = %s" for column in extra)])
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Entry._meta.db_table} AS e SET {sets} "
            "FROM unnest(%s::bigint[], %s::int[]) AS v(id, n) WHERE e.id = v.id",
            [
                *extra.values(),
                _int_array([pk for pk, _ in numbers]),
                _int_array([n for _, n in numbers]),
            ],
        )


# --- tables -------------------------------------------------------------------------------

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
SEAT_STATE = ["points", "placement_sum", "wins", "forfeited", "finish", "present"]


class Start(NamedTuple):
    """A match a table is about to play; the batch creates all of them at once."""

    table: Table
    live: list[TableSeat]
    number: int


class Batch:
    """What one transaction changes in the bracket, written together when it is done.

    Each table is locked and loaded once, with its seats, and kept here: a table fed by
    two tables of the batch sees both feeds, and every row is written once, at the end.
    Locks are taken as tables are first needed, forward through the bracket.
    """

    def __init__(self, now: datetime):
        self.now = now
        self.tables: dict[int, Table] = {}
        self.at: dict[tuple[int, bk.TableRef], Table] = {}  # by tournament and position
        self.seats: dict[int, list[TableSeat]] = {}
        self.new_seats: list[TableSeat] = []
        self.out_round: dict[int, int] = {}
        self.knocked_out: set[int] = set()
        self.starts: list[Start] = []
        self.finals: set[int] = set()

    def lock(self, tables) -> list[Table]:
        """Lock and load these tables (a queryset) and their seats, in primary-key order."""
        rows = list(
            tables.select_for_update(of=("self",))
            .select_related("tournament", "round")
            .exclude(pk__in=list(self.tables))
            .order_by("pk")
        )
        for row in rows:
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
        _start_matches(self.starts)
        for tournament_id in sorted(self.finals):
            _maybe_finish_tournament(tournament_id, self.now)


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


def table_show_up(*, table_id: int, player: Player, now: datetime | None = None) -> Table:
    """A player takes their seat; the table starts once everybody has."""
    with transaction.atomic():
        batch = Batch(now or timezone.now())
        [table] = batch.lock(Table.objects.filter(pk=table_id)) or [None]
        if table is None:
            raise NotFound("No such table.")
        seat = next((s for s in batch.seats[table.pk] if s.entry.player_id == player.pk), None)
        if seat is None:
            raise NotFound("You have no seat at this table.", code="no_seat")
        if table.status == Table.Status.PENDING:
            raise Conflict("This table waits for earlier tables.", code="table_not_ready")
        if table.status != Table.Status.WAITING:
            raise Conflict("This table has started or finished.", code="table_started")
        if seat.forfeited:
            raise Conflict("Your seat was forfeited.", code="forfeited")
        seat.present = True
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
        live = [s for s in live if s.present]
    shape = bracket_of(table.tournament)
    ranking = bk.walkover(shape, _ref(table), [s.entry_id for s in live])
    if ranking is not None:
        _finish_table(table, ranking, walkover=True, batch=batch)
        return "walkover"
    if all(s.present for s in live):
        table.status = Table.Status.PLAYING
        table.deadline = None
        batch.starts.append(Start(table, live, _next_number(table)))
        return "started"
    return "waiting"


def _ref(table: Table) -> bk.TableRef:
    return bk.TableRef(table.round_number, table.position)


def _next_number(table: Table) -> int:
    """The number of the table's next match: every match so far, replayed ones too."""
    return table.games_played + table.replays + 1


def table_replay(*, table_id: int, by) -> Table:
    """The organiser sets a table's disputed match aside and the table plays it again.

    A disputed match (its move log did not reproduce its result) counts for nobody; the
    replacement is dealt from a new seed, like any next match of a series.
    """
    with transaction.atomic():
        batch = Batch(timezone.now())
        [table] = batch.lock(Table.objects.filter(pk=table_id)) or [None]
        if table is None:
            raise NotFound("No such table.")
        _check_organiser(by, table.tournament)
        record = table.matches.filter(recorded=False).select_related("match").first()
        if (
            table.status != Table.Status.PLAYING
            or record is None
            or record.match.status != Match.Status.DISPUTED
        ):
            raise Conflict("This table has no disputed match to replay.", code="not_disputed")
        TableMatch.objects.filter(pk=record.pk).update(recorded=True)
        table.replays += 1
        live = [seat for seat in batch.seats[table.pk] if not seat.forfeited]
        batch.starts.append(Start(table, live, _next_number(table)))
        batch.write()
    return table


def _start_matches(starts: list[Start]) -> None:
    """Create the matches of the tables that start, and link them; one batch for all of
    them, so their bot turns go to a worker as one task."""
    if not starts:
        return
    matches = gameplay.match_create_many(
        specs=[
            gameplay.NewMatch(
                variant=start.table.tournament.variant,
                options=start.table.tournament.options,
                players=[seat.entry.player for seat in start.live],
                seed=_match_seed(start.table.tournament, start.table, start.number),
                turn_seconds=start.table.tournament.turn_seconds,
            )
            for start in starts
        ]
    )
    TableMatch.objects.bulk_create(
        TableMatch(table=start.table, match=match, number=start.number)
        for start, match in zip(starts, matches, strict=True)
    )


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
        batch.write()
    return {record.match_id for record in counted}


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
    ranking = bk.walkover(shape, _ref(table), [s.entry_id for s in live])
    if ranking is None and _series_over(table, live):
        lower_wins = table.tournament.variant in gameplay.LOWER_SCORE_WINS
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
    moves = bk.advance(shape, spec.ref, ranking)
    going_on = {m.entry for m in moves}
    for seat in seats:
        if not table.third_place:
            batch.out_round[seat.entry_id] = table.round_number
        if spec.feeds_into and seat.entry_id not in going_on:
            batch.knocked_out.add(seat.entry_id)
    targets = {slot.table for slot in spec.feeds_into}
    if targets:
        _feed(tournament, targets, moves, {s.entry_id: s for s in seats}, batch)
    if table.round_number == shape.n_rounds:
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


def _maybe_finish_tournament(tournament_id: int, now: datetime) -> None:
    # Final and third-place tables can end at once: the tournament lock lets the second
    # see the first's commit, so exactly one of them finishes the tournament.
    tournament = _lock(tournament_id)
    if tournament.status != Tournament.Status.RUNNING:
        return
    shape = bracket_of(tournament)
    if (
        Table.objects.filter(tournament=tournament, round_number=shape.n_rounds)
        .exclude(status=Table.Status.DONE)
        .exists()
    ):
        return
    _finish_tournament(tournament, shape, now)


def _finish_tournament(tournament: Tournament, shape: bk.Bracket, now: datetime) -> None:
    """Placements as the bracket defines them, then prizes, once (the status is the guard)."""
    last = shape.n_rounds
    within: dict[int, int] = {}
    for seat in TableSeat.objects.filter(
        table__tournament=tournament, table__round_number=last, finish__isnull=False
    ):
        within[seat.entry_id] = seat.finish
    forfeiters = set(
        TableSeat.objects.filter(table__tournament=tournament, forfeited=True).values_list(
            "entry_id", flat=True
        )
    )
    reached = list(
        Entry.objects.filter(tournament=tournament, seed__isnull=False).values_list(
            "pk", "out_round"
        )
    )
    unranked = tournament.table_size + 1

    def key(item):
        return (-(item[1] or 0), within.get(item[0], unranked))

    reached.sort(key=key)
    places: list[tuple[int, int]] = []
    for i, item in enumerate(reached):
        same = i and key(reached[i - 1]) == key(item)
        places.append((item[0], places[-1][1] if same else i + 1))
    _store_numbers(places, "placement")
    final_ranking = [
        s.entry_id
        for s in TableSeat.objects.filter(
            table__tournament=tournament, table__round_number=last, table__third_place=False
        ).order_by("finish")
        if s.finish is not None
    ]
    champion = final_ranking[0] if final_ranking else None
    Entry.objects.filter(tournament=tournament, status=Entry.Status.PLAYING).update(
        status=Entry.Status.ELIMINATED
    )
    if champion is not None:
        Entry.objects.filter(pk=champion).update(status=Entry.Status.CHAMPION)
    tournament.status = Tournament.Status.FINISHED
    tournament.finished_at = now
    tournament.save(update_fields=["status", "finished_at"])
    place_of = dict(places)
    _grant_prizes(tournament, place_of, forfeiters)
    if champion is not None:
        player_id = Entry.objects.values_list("player_id", flat=True).get(pk=champion)
        gameplay.metrics_add(player_id=player_id, changes={Metric.TOURNAMENTS_WON: 1})
        gameplay.progress_evaluate(player_id=player_id)


def _grant_prizes(tournament: Tournament, place_of: dict[int, int], forfeiters: set) -> None:
    """Each prize to every entry at its placement; whoever forfeited a seat wins nothing."""
    prizes = list(Prize.objects.filter(tournament=tournament).select_related("title", "reward"))
    if not prizes:
        return
    entries = {
        e.pk: e
        for e in Entry.objects.filter(
            tournament=tournament, placement__in=[p.placement for p in prizes]
        ).select_related("player")
    }
    for prize in prizes:
        for entry in entries.values():
            if entry.placement != prize.placement or entry.pk in forfeiters:
                continue
            key = f"tournament:{tournament.pk}:prize:{prize.placement}"
            reason = f"{tournament.name}: place {prize.placement}"
            if prize.coins:
                gameplay.coins_book(
                    player_id=entry.player_id, amount=prize.coins, reason=reason, key=key
                )
            if prize.xp:
                gameplay.xp_grant(
                    player_id=entry.player_id, amount=prize.xp, reason=reason, key=key
                )
            if prize.title_id:
                gameplay.title_grant(player=entry.player, title=prize.title, reason=reason)
            if prize.reward_id:
                gameplay.reward_grant(
                    player_id=entry.player_id, reward=prize.reward, reason=reason, key=key
                )


# --- disqualification and cancelling --------------------------------------------------------


def entry_disqualify(*, entry_id: int, by, reason: str = "") -> Entry:
    """The organiser removes an entry: before the draw it loses its place (no refund),
    once playing it forfeits its current match and goes nowhere."""
    entry = Entry.objects.select_related("tournament").filter(pk=entry_id).first()
    if entry is None:
        raise NotFound("No such entry.")
    _check_organiser(by, entry.tournament)
    if entry.tournament.status == Tournament.Status.RUNNING:
        _entry_forfeit(entry_id=entry.pk, status=Entry.Status.DISQUALIFIED, reason="disqualified")
        entry.refresh_from_db()
        return entry
    with transaction.atomic():
        tournament = _lock(entry.tournament_id)
        entry = Entry.objects.select_for_update().get(pk=entry_id)
        if tournament.status not in STARTABLE or entry.status not in ACTIVE_ENTRY:
            raise Conflict("That entry cannot be disqualified now.", code="not_disqualifiable")
        entry.status = Entry.Status.DISQUALIFIED
        entry.save(update_fields=["status"])
        _promote(tournament)
    return entry


def _entry_forfeit(*, entry_id: int, status: str, reason: str) -> None:
    """Forfeit a playing entry's current seat: its match, its wait, or its seat to come."""
    for _ in range(3):
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
            if table.status == Table.Status.WAITING:
                _proceed(table, batch)
            elif table.status == Table.Status.PLAYING:
                _forfeit_match(table, mine.entry.player_id, reason)
            batch.write()
            return
    raise Conflict("The bracket is moving; try again.", code="busy")


def _set_out(entry_id: int, status: str) -> None:
    changed = Entry.objects.filter(pk=entry_id, status=Entry.Status.PLAYING).update(status=status)
    if not changed:
        raise Conflict("That entry is no longer playing.", code="not_playing")


def _forfeit_match(table: Table, player_id: int, reason: str) -> None:
    record = table.matches.filter(recorded=False).order_by("-number").first()
    if record is None:
        return
    match = Match.objects.select_for_update().get(pk=record.match_id)
    if match.status != Match.Status.ACTIVE:
        return  # over already: the result is counted with this seat forfeited
    index = Seat.objects.values_list("index", flat=True).get(match=match, player_id=player_id)
    gameplay.match_forfeit(match=match, seat_index=index, reason=reason)


def tournament_cancel(*, tournament_id: int, by=None) -> Tournament:
    """Stop a tournament for good and refund every fee still held."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        _check_organiser(by, tournament)
        if tournament.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
            raise Conflict("The tournament is over.", code="tournament_over")
        tournament.status = Tournament.Status.CANCELLED
        tournament.finished_at = timezone.now()
        tournament.save(update_fields=["status", "finished_at"])
        paid = list(Entry.objects.select_for_update().filter(tournament=tournament, fee_paid__gt=0))
        for entry in paid:
            _refund(entry, f"Refund, {tournament.name} was cancelled")
        bulk_update(paid, ["fee_paid"])
    return tournament


# --- scheduled work -------------------------------------------------------------------------


def _ready_tables():
    absent = TableSeat.objects.filter(table=OuterRef("pk"), present=False, forfeited=False)
    return Table.objects.filter(
        status=Table.Status.WAITING, tournament__status=Tournament.Status.RUNNING
    ).exclude(Exists(absent))


def waiting_tables(*, tournament_id: int, limit: int) -> list[int]:
    """Waiting tables whose players are all seated, oldest rounds first."""
    return list(
        _ready_tables()
        .filter(tournament_id=tournament_id)
        .order_by("round_number", "position")
        .values_list("pk", flat=True)[:limit]
    )


def tournaments_with_ready_tables() -> list[int]:
    return list(_ready_tables().values_list("tournament_id", flat=True).distinct())


def tournaments_due(*, now: datetime | None = None) -> dict:
    """Move scheduled tournaments along: open and close check-in, start at the start time.

    A tournament that cannot start (too few entries) is cancelled and refunded.
    """
    now = now or timezone.now()
    done = {"check_in_opened": 0, "check_in_closed": 0, "started": 0, "cancelled": 0}
    for pk in Tournament.objects.filter(
        status=Tournament.Status.REGISTRATION, check_in_opens_at__lte=now, starts_at__gt=now
    ).values_list("pk", flat=True):
        if Tournament.objects.filter(pk=pk, check_in_closes_at__lte=now).exists():
            continue
        tournament_open_check_in(tournament_id=pk)
        done["check_in_opened"] += 1
    for pk in Tournament.objects.filter(
        status=Tournament.Status.CHECK_IN, check_in_closes_at__lte=now, starts_at__gt=now
    ).values_list("pk", flat=True):
        tournament_close_check_in(tournament_id=pk)
        done["check_in_closed"] += 1
    for pk in Tournament.objects.filter(status__in=STARTABLE, starts_at__lte=now).values_list(
        "pk", flat=True
    ):
        try:
            tournament_start(tournament_id=pk, now=now)
            done["started"] += 1
        except Conflict as exc:
            if exc.code != "too_few_entries":
                raise
            tournament_cancel(tournament_id=pk)
            done["cancelled"] += 1
    return done
