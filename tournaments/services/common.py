"""What the tournaments services share: the status groups, the drawn bracket's shape, the
tournament lock, the organiser check, fee refunds and the one-statement number write."""

from __future__ import annotations

from functools import lru_cache

from django.db import connection
from django.utils.translation import gettext as _

from config.errors import Conflict, NotAllowed, NotFound
from engine import fair
from gameplay import live
from gameplay import services as gameplay
from tournaments import bracket as bk
from tournaments.formats.double_layout import DoubleLayout, build_layout
from tournaments.formats.swiss_layout import SwissLayout, build_swiss_layout
from tournaments.formats.two_stage_layout import TwoStageLayout, build_two_stage
from tournaments.models import Entry, Table, Tournament

OPEN_FOR_ENTRIES = (Tournament.Status.REGISTRATION, Tournament.Status.CHECK_IN)
STARTABLE = (*OPEN_FOR_ENTRIES, Tournament.Status.READY)
BEFORE_START = (Tournament.Status.DRAFT, *STARTABLE)
ADMITTED = (Entry.Status.REGISTERED, Entry.Status.CHECKED_IN)
ACTIVE_ENTRY = (*ADMITTED, Entry.Status.WAITLISTED)


Shape = bk.Bracket | DoubleLayout | SwissLayout | TwoStageLayout

# Entries whose seat was forfeited because they left the event: in double elimination
# they do not drop into the losers' bracket.
LEFT = (Entry.Status.DISQUALIFIED, Entry.Status.WITHDRAWN)


@lru_cache(maxsize=64)
def _shape(
    n_entries: int,
    table_size: int,
    advance: int,
    third_place: bool,
    format: str = Tournament.Format.SINGLE,
    grand_final: str = Tournament.GrandFinal.RESET,
    swiss_rounds: int | None = None,
    place_points: tuple[float, ...] = (),
    groups: int | None = None,
    group_advance: int | None = None,
    second_stage: str = "single",
    group_stage: str = "round_robin",
) -> Shape:
    """The drawn bracket's shape; pure and deterministic, so every worker can cache it."""
    if format == Tournament.Format.DOUBLE:
        return build_layout(n_entries, grand_final=grand_final)
    if format == Tournament.Format.SWISS:
        return build_swiss_layout(n_entries, swiss_rounds, table_size, place_points)
    if format == Tournament.Format.TWO_STAGE:
        return build_two_stage(
            n_entries,
            groups or 1,
            group_advance or 2,
            second_stage=second_stage,
            grand_final=grand_final,
            group_stage=group_stage,
            swiss_rounds=swiss_rounds,
        )
    return bk.build_bracket(n_entries, table_size, advance, third_place=third_place)


def shape_for(tournament: Tournament, n_entries: int) -> Shape:
    return _shape(
        n_entries,
        tournament.table_size,
        tournament.advance,
        tournament.third_place,
        tournament.format,
        tournament.grand_final,
        tournament.swiss_rounds,
        tuple(tournament.place_points or ()),
        tournament.groups,
        tournament.group_advance,
        tournament.second_stage,
        tournament.group_stage,
    )


def bracket_of(tournament: Tournament) -> Shape:
    if not tournament.entries_count:
        raise Conflict(_("The bracket is drawn when the tournament starts."), code="not_started")
    return shape_for(tournament, tournament.entries_count)


def _walkover(shape: Shape, ref: bk.TableRef, present: list) -> tuple | None:
    """The table decided without play (see `bracket.walkover`), or None."""
    if isinstance(shape, bk.Bracket):
        return bk.walkover(shape, ref, present)
    return shape.walkover(ref, present)


def _moves(shape: Shape, ref: bk.TableRef, ranking, seated=(), gone=()) -> tuple[bk.Move, ...]:
    """Where a decided table's players sit next. Double elimination also needs who sat
    there (the loser drops) and who left the event (they do not)."""
    if isinstance(shape, bk.Bracket):
        return bk.advance(shape, ref, ranking)
    return shape.moves(ref, ranking, seated, gone)


def _stage(shape: Shape, ref: bk.TableRef) -> int:
    """What `Entry.out_round` records for an entry whose last table is this one."""
    if isinstance(shape, bk.Bracket):
        return ref[0]
    return shape.stage(ref)


def _may_end_round(shape: Shape, ref: bk.TableRef) -> bool:
    """Whether finishing this table may end the tournament, or (Swiss, a group stage) its
    round."""
    if isinstance(shape, SwissLayout):
        return True
    if isinstance(shape, TwoStageLayout) and shape.in_groups(ref):
        return True
    return ref[0] == shape.n_rounds


def _ref(table: Table) -> bk.TableRef:
    return bk.TableRef(table.round_number, table.position)


def _lock(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise NotFound(_("No such tournament."))
    return tournament


def _notify_entrants(tournament: Tournament) -> None:
    """After commit, push the people in this tournament their notices (check-in opened,
    the draw seated them): bots have no pages to show them on."""
    live.notify_players(
        Entry.objects.filter(tournament=tournament, player__is_bot=False)
        .exclude(status=Entry.Status.WITHDRAWN)
        .values_list("player_id", flat=True)
    )


def can_organise(user) -> bool:
    return bool(user and user.is_authenticated and user.has_perm("tournaments.organise_tournament"))


def can_run(user, tournament: Tournament) -> bool:
    """Whether `user` may run this tournament: its own organiser, one of its
    co-organisers, or a superuser."""
    if user is None or not user.is_authenticated:
        return False
    if user.is_superuser or (can_organise(user) and tournament.organiser_id == user.pk):
        return True
    return tournament.co_organisers.filter(pk=user.pk).exists()


def _check_organiser(user, tournament: Tournament) -> None:
    """Only the tournament's own organiser (or a superuser) runs it; `None` is the system."""
    if user is None:
        return
    if not can_run(user, tournament):
        raise NotAllowed(_("Only this tournament's organiser may do that."), code="not_organiser")


def _fee_key(entry: Entry, what: str) -> str:
    return f"tournament:{entry.tournament_id}:entry:{entry.pk}:{what}:{entry.registrations}"


def pool_account(tournament_id: int) -> str:
    """The house account holding a tournament's entry fees (and sponsor budget) until its
    prizes are paid: one per tournament, so fee bookings of different events never wait
    for one another."""
    return f"tournament-{tournament_id}-pool"


def _pay_fee(entry: Entry, fee: int, reason: str) -> None:
    """The player pays the fee into the tournament's pool (the player's row first, then
    the pool's: the lock order of every booking)."""
    key = _fee_key(entry, "fee")
    gameplay.coins_book(player_id=entry.player_id, amount=-fee, reason=reason, key=key)
    gameplay.house_book(
        account=pool_account(entry.tournament_id), amount=fee, reason=reason, key=key
    )
    entry.fee_paid = fee


def _refund(entry: Entry, reason: str) -> None:
    if entry.fee_paid:
        key = _fee_key(entry, "refund")
        gameplay.coins_book(
            player_id=entry.player_id, amount=entry.fee_paid, reason=reason, key=key
        )
        gameplay.house_book(
            account=pool_account(entry.tournament_id),
            amount=-entry.fee_paid,
            reason=reason,
            key=key,
        )
        entry.fee_paid = 0


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


def commit_draw_seed(tournament: Tournament) -> None:
    """When registration closes: publish the SHA-256 commitment of the secret draw seed
    (drawn from `secrets` at creation, shown to nobody), so the draw that the start
    reveals cannot be chosen after the entries are known. Committed once; the caller
    saves `draw_commitment`."""
    if not tournament.draw_commitment:
        tournament.draw_commitment = fair.commitment(tournament.seed)
