"""Reads shared by the API, the pages and the management command."""

from datetime import timedelta

from django.db.models import Count, Prefetch, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from engine import variants
from gameplay.models import Match, Seat
from gameplay.option_fields import option_label
from tournaments import services
from tournaments.formats.tiebreaks import DEFAULT_TIEBREAKS
from tournaments.models import (
    TIEBREAK_CHOICES,
    Entry,
    Round,
    Table,
    TableMatch,
    TableSeat,
    Tournament,
)

IN_FIELD = (*services.ADMITTED, Entry.Status.PLAYING, Entry.Status.ELIMINATED, "champion")


def tournaments():
    """Tournaments with their entry counts, newest first (one query for any page)."""
    return (
        Tournament.objects.select_related("organiser")
        .annotate(
            entered=Count("entries", filter=Q(entries__status__in=IN_FIELD), distinct=True),
            waitlisted=Count(
                "entries", filter=Q(entries__status=Entry.Status.WAITLISTED), distinct=True
            ),
        )
        .prefetch_related("prizes")
        .order_by("-created_at", "-pk")
    )


def entries(tournament: Tournament):
    return (
        Entry.objects.filter(tournament=tournament)
        .select_related("player")
        .order_by("placement", "seed", "registered_at", "pk")
    )


def _seat(seat: TableSeat, advanced: set[int], bye: bool = False) -> dict:
    player = seat.entry.player
    return {
        "seat": seat.index,
        "entry": seat.entry_id,
        "player": player.display_name,
        "player_id": player.pk,
        "bot": player.is_bot,
        "seed": seat.seed,
        "present": seat.present,
        "forfeited": seat.forfeited,
        "wins": seat.wins,
        "points": seat.points,
        "finish": seat.finish,
        "advanced": seat.entry_id in advanced,
        "bye": bye,
        "crowned": seat.entry.status == Entry.Status.CHAMPION,
    }


def _result(table: Table, bye: bool) -> str | None:
    """How a done table was decided, in one word: `played`, `walkover` or `bye`."""
    if table.status != Table.Status.DONE:
        return None
    if bye:
        return "bye"
    return "walkover" if table.walkover else "played"


def match_labels(match_ids: list[int]) -> dict[int, str]:
    """The tournament name of each of these matches played at a table, in one query:
    registered with `gameplay.selectors.register_match_labels` (the lobby's live games)."""
    return dict(
        TableMatch.objects.filter(match_id__in=match_ids).values_list(
            "match_id", "table__tournament__name"
        )
    )


def tables_in_play(tournament: Tournament) -> list[dict]:
    """The tournament's matches being played now, for its "Tables in play" list: none
    unless it lets spectators in (then its tables' matches are open to them). Two queries
    for any number of tables: the links with their tables and matches, then the seats."""
    if not tournament.spectators_allowed:
        return []
    links = (
        TableMatch.objects.filter(table__tournament=tournament, match__status=Match.Status.ACTIVE)
        .select_related("table", "match")
        .defer(*(f"match__{name}" for name in Match.SECRET_FIELDS))
        .prefetch_related(Prefetch("match__seats", queryset=Seat.objects.select_related("player")))
        .order_by("table__round_number", "table__position", "number")
    )
    return [
        {
            "match": link.match_id,
            "round": link.table.round_number,
            "position": link.table.position + 1,
            "number": link.number,
            "players": [seat.player.display_name for seat in link.match.seats.all()],
            "moves": link.match.seq,
            "url": reverse("match-table", args=[link.match_id]),
        }
        for link in links
    ]


def bracket(tournament: Tournament) -> dict:
    """The whole drawn bracket in four queries: rounds, tables, seats, matches."""
    shape = services.bracket_of(tournament) if tournament.entries_count else None
    rounds = list(Round.objects.filter(tournament=tournament).order_by("number"))
    seats: dict[int, list[TableSeat]] = {}
    for seat in (
        TableSeat.objects.filter(table__tournament=tournament)
        .select_related("entry__player")
        .order_by("table_id", "index")
    ):
        seats.setdefault(seat.table_id, []).append(seat)
    matches: dict[int, list[dict]] = {}
    for link in (
        TableMatch.objects.filter(table__tournament=tournament)
        .select_related("match")
        .defer("match__log", "match__state")  # a whole bracket's worth of move logs
        .order_by("table_id", "number")
    ):
        matches.setdefault(link.table_id, []).append(
            {
                "id": link.match_id,
                "number": link.number,
                "status": link.match.status,
                "url": f"/api/matches/{link.match_id}/",
                # The table page: live for anyone when the tournament lets spectators in,
                # and for anyone once the match is over (its moves are public then).
                "table": reverse("match-table", args=[link.match_id]),
                "watchable": link.match.spectators_allowed
                or link.match.status != Match.Status.ACTIVE,
                "scores": (link.match.result or {}).get("scores"),
                # A disputed match the organiser had replayed stays disputed, but counts
                # for nobody: the table plays on with its replacement.
                "set_aside": link.recorded and link.match.status == Match.Status.DISPUTED,
            }
        )
    tables: dict[int, list[dict]] = {}
    for table in Table.objects.filter(tournament=tournament).order_by("round_number", "position"):
        at_table = seats.get(table.pk, [])
        advanced = set()
        if table.status == Table.Status.DONE and shape is not None:
            feeds = shape.table((table.round_number, table.position)).feeds_into
            going = tournament.advance if feeds else 0
            advanced = {s.entry_id for s in at_table if s.finish and s.finish <= going}
        feeders = shape.table((table.round_number, table.position)).feeders if shape else ()
        # A table of one decided at once is a bye (Swiss: worth a win), not a walkover:
        # a walkover is a table a seated opponent lost by not playing.
        bye = table.walkover and len(at_table) == 1 and not at_table[0].forfeited
        played = matches.get(table.pk, [])
        tables.setdefault(table.round_number, []).append(
            {
                "id": table.pk,
                "round": table.round_number,
                "position": table.position,
                "third_place": table.third_place,
                "status": table.status,
                "walkover": table.walkover and not bye,
                "bye": bye,
                "result": _result(table, bye),
                "capacity": table.capacity,
                "deadline": table.deadline.isoformat() if table.deadline else None,
                "games_played": table.games_played,
                "feeders": [list(ref) for ref in feeders],
                "seats": [_seat(s, advanced, bye) for s in at_table],
                "matches": played,
                # Waiting on the organiser: a game of it failed its replay and is not set aside.
                "disputed": table.status == Table.Status.PLAYING
                and any(
                    m["status"] == Match.Status.DISPUTED and not m["set_aside"] for m in played
                ),
            }
        )
    drawn = [
        {
            "number": r.number,
            "name": r.name,
            "best_of": r.best_of,
            "side": r.side,
            "side_round": r.side_round,
            "tables": tables.get(r.number, []),
        }
        for r in rounds
    ]
    structure = {
        "tournament": tournament.pk,
        "status": tournament.status,
        "format": tournament.format,
        "table_size": tournament.table_size,
        "advance": tournament.advance,
        "entries": tournament.entries_count,
        "rounds": drawn,
    }
    if tournament.format == Tournament.Format.DOUBLE:
        structure["grand_final"] = tournament.grand_final
        structure["sides"] = _sides(tournament, drawn)
    if tournament.format == Tournament.Format.TWO_STAGE and shape is not None:
        structure.update(_two_stage(tournament, shape, drawn))
    if tournament.format == Tournament.Format.SWISS:
        structure["swiss_rounds"] = shape.n_rounds if shape else tournament.swiss_rounds
        keys = list(tournament.tiebreaks or DEFAULT_TIEBREAKS)
        if tournament.table_size > 2:
            keys = list(services.TABLE_TIEBREAKS)
            structure["place_points"] = list(services.place_points(tournament))
        labels = {
            **dict(TIEBREAK_CHOICES),
            "firsts": _("First places"),
            "opposition": _("Opposition"),
        }
        structure["tiebreaks"] = [{"key": key, "name": str(labels[key])} for key in keys]
        structure["standings"] = standings(tournament) if shape else []
    return structure


def tables_of_one(tournament: Tournament, last_round: int) -> list[int]:
    """The entries given a bye up to `last_round` (one per bye): each alone at a table
    decided at once, without forfeiting."""
    return list(
        TableSeat.objects.filter(
            table__tournament=tournament,
            table__round_number__lte=last_round,
            table__walkover=True,
            forfeited=False,
            finish=1,
        )
        .annotate(seated=Count("table__seats"))
        .filter(seated=1)
        .values_list("entry_id", flat=True)
    )


def _two_stage(tournament: Tournament, shape, rounds: list[dict]) -> dict:
    """The groups, each with its entries in their current order (played, won, game
    points), and the two stages' rounds: Challonge's group stage, then its final stage."""
    order = services.group_orders(tournament, shape)
    record: dict[int, list[int]] = {}
    for entry_id, finish, points in TableSeat.objects.filter(
        table__tournament=tournament,
        table__round_number__lte=shape.n_group_rounds,
        table__status=Table.Status.DONE,
        table__walkover=False,
    ).values_list("entry_id", "finish", "points"):
        row = record.setdefault(entry_id, [0, 0, 0])
        row[0] += 1
        row[1] += int(finish == 1)
        row[2] += points
    if shape.swiss_groups:  # a Swiss group's bye is a round played and worth a win
        for entry_id in tables_of_one(tournament, shape.n_group_rounds):
            row = record.setdefault(entry_id, [0, 0, 0])
            row[0] += 1
            row[1] += 1
    players = {
        e.pk: e
        for e in Entry.objects.filter(tournament=tournament, seed__isnull=False).select_related(
            "player"
        )
    }
    advance = tournament.group_advance or 2
    knockout = {
        "name": _("Knock-out"),
        "status": tournament.status,
        "rounds": [r for r in rounds if r["number"] > shape.n_group_rounds],
    }
    if shape.double:  # a double-elimination stage two: its brackets, as double elimination's
        knockout["name"] = _("Double elimination")
        knockout["grand_final"] = tournament.grand_final
        knockout["sides"] = _sides(tournament, knockout["rounds"])
    return {
        "group_stage": tournament.group_stage,
        "second_stage": tournament.second_stage,
        "groups": [
            {
                "name": _("Group %(name)s") % {"name": chr(ord("A") + g) if g < 26 else g + 1},
                "entries": [
                    {
                        "place": place,
                        "entry": pk,
                        "player": players[pk].player.display_name,
                        "seed": players[pk].seed,
                        "played": record.get(pk, [0, 0, 0])[0],
                        "won": record.get(pk, [0, 0, 0])[1],
                        "points": record.get(pk, [0, 0, 0])[2],
                        "qualifying": place <= advance,
                    }
                    for place, pk in enumerate(entries, start=1)
                ],
            }
            for g, entries in enumerate(order)
        ],
        "stages": [
            {
                "name": _("Group stage"),
                "status": tournament.status,
                "rounds": [r for r in rounds if r["number"] <= shape.n_group_rounds],
            },
            knockout,
        ],
    }


def standings(tournament: Tournament) -> list[dict]:
    """A Swiss event's standings: rank, score and each tie-break, best first."""
    rows = services.swiss_standings(tournament)
    entries = Entry.objects.filter(pk__in=[row.entry for row in rows]).select_related("player")
    by_pk = {entry.pk: entry for entry in entries}
    return [
        {
            "rank": row.rank,
            "entry": row.entry,
            "player": by_pk[row.entry].player.display_name,
            "player_id": by_pk[row.entry].player_id,
            "seed": by_pk[row.entry].seed,
            "status": by_pk[row.entry].status,
            "score": row.score,
            "tiebreaks": dict(row.tiebreaks),
        }
        for row in rows
    ]


def _sides(tournament: Tournament, rounds: list[dict]) -> list[dict]:
    """Double elimination's brackets, each with its rounds (Challonge's winners' bracket,
    losers' bracket and grand final); a side carries the bracket's status, so a page draws
    each one as it draws a knock-out."""
    return [
        {
            "side": side,
            "name": label,
            "status": tournament.status,
            "rounds": [r for r in rounds if r["side"] == side],
        }
        for side, label in Round.Side.choices
        if side and any(r["side"] == side for r in rounds)
    ]


def placements(tournament: Tournament, limit: int | None = None) -> list[Entry]:
    rows = (
        Entry.objects.filter(tournament=tournament, placement__isnull=False)
        .select_related("player")
        .order_by("placement", "seed")
    )
    return list(rows[:limit] if limit else rows)


def visible_to(user, queryset=None):
    """Tournaments `user` may see: drafts only by their organiser and by staff."""
    queryset = tournaments() if queryset is None else queryset
    if user is not None and user.is_authenticated and (user.is_staff or user.is_superuser):
        return queryset
    if user is not None and user.is_authenticated:
        return queryset.filter(~Q(status=Tournament.Status.DRAFT) | Q(organiser=user))
    return queryset.exclude(status=Tournament.Status.DRAFT)


def entry_of(tournament: Tournament, player) -> Entry | None:
    if player is None:
        return None
    return Entry.objects.filter(tournament=tournament, player=player).first()


def seat_of(entry: Entry | None) -> dict | None:
    """The entry's table still in play, if any: the table, whether it waits for this
    player, and the match being played there (for the "take your seat" button)."""
    if entry is None or entry.status != Entry.Status.PLAYING:
        return None
    seat = (
        TableSeat.objects.filter(entry=entry)
        .exclude(table__status=Table.Status.DONE)
        .select_related("table")
        .order_by("table__round_number")
        .first()
    )
    if seat is None:
        return None
    match = (
        TableMatch.objects.filter(table=seat.table, recorded=False)
        .order_by("-number")
        .values_list("match_id", flat=True)
        .first()
    )
    return {"seat": seat, "table": seat.table, "match": match}


def entries_of_player(player, limit: int = 8) -> list[Entry]:
    """The player's tournaments not over yet, soonest first (the home page)."""
    return list(
        Entry.objects.filter(
            player=player,
            status__in=(*services.ACTIVE_ENTRY, Entry.Status.PLAYING),
            tournament__status__in=(*services.STARTABLE, Tournament.Status.RUNNING),
        )
        .select_related("tournament")
        .order_by("tournament__starts_at", "tournament_id")[:limit]
    )


def rules_of(tournament: Tournament) -> list[tuple[str, str]]:
    """The game's rules this tournament plays by, as (label, value): every option of its
    variant, the tournament's own value or the engine's default."""
    rows = []
    for option in variants.get(tournament.variant).options:
        value = (tournament.options or {}).get(option.name, option.default)
        if isinstance(value, bool):
            value = _("yes") if value else _("no")
        rows.append((str(option_label(option)), str(value)))
    return rows


# How long a cancelled tournament stays in its entrants' notices.
CANCELLED_NEWS = timedelta(days=1)


def cancelled_of_player(player, *, now=None) -> list[Tournament]:
    """Tournaments the player had entered that were cancelled in the last day."""
    since = (now or timezone.now()) - CANCELLED_NEWS
    entered = Entry.objects.filter(player=player).exclude(status=Entry.Status.WITHDRAWN)
    return list(
        Tournament.objects.filter(
            pk__in=entered.values("tournament_id"),
            status=Tournament.Status.CANCELLED,
            finished_at__gte=since,
        ).order_by("-finished_at")[:5]
    )


def open_for_entries(limit: int = 5) -> list[Tournament]:
    return list(
        tournaments()
        .filter(status__in=services.OPEN_FOR_ENTRIES)
        .order_by("starts_at", "pk")[:limit]
    )


def held_fees(tournament: Tournament) -> dict:
    """Entry fees the tournament holds: what cancelling it refunds."""
    from django.db.models import Sum

    row = Entry.objects.filter(tournament=tournament, fee_paid__gt=0).aggregate(
        entries=Count("pk"), coins=Sum("fee_paid")
    )
    return {"entries": row["entries"], "coins": row["coins"] or 0}


def webhooks_with_deliveries(tournament: Tournament, last: int = 5) -> list:
    """The organiser's webhooks, each with its `last` deliveries (newest first) as
    `recent`: the delivery log on the tournament's page."""
    hooks = list(tournament.webhooks.all())
    for hook in hooks:
        hook.recent = list(hook.deliveries.order_by("-pk")[:last])
    return hooks


def tournaments_of_player(player, limit: int = 20) -> list[Entry]:
    """The tournaments a player entered and did not leave, newest first (their profile)."""
    return list(
        Entry.objects.filter(player=player)
        .exclude(status__in=(Entry.Status.WITHDRAWN, Entry.Status.DROPPED))
        .exclude(tournament__status=Tournament.Status.DRAFT)
        .select_related("tournament")
        .order_by("-tournament__created_at", "-tournament_id")[:limit]
    )
