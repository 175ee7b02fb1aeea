"""Rooms and matchmaking: playing in a room against bots, or queueing for humans of a
similar rating."""

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from config.errors import Conflict, DomainError, NotAllowed, NotFound
from engine import fair
from gameplay.models import Match, Player, QueueEntry, Room
from gameplay.services.accounts import bot_players
from gameplay.services.common import InsufficientCoins
from gameplay.services.matches import match_create
from gameplay.services.ratings import rating_ordinal


def room_check_access(*, player: Player, room: Room) -> None:
    if not room.active:
        raise NotFound(_("No such room."))
    if player.level < room.min_level:
        raise NotAllowed(
            _("This room unlocks at level %(level)s.") % {"level": room.min_level},
            code="room_locked",
        )
    if room.entry_fee and player.coins < room.entry_fee:
        raise InsufficientCoins(
            _("This room costs %(fee)s coins; the balance is %(balance)s.")
            % {"fee": room.entry_fee, "balance": player.coins},
            details={"balance": player.coins, "needed": room.entry_fee},
        )


def room_play(
    *, player: Player, room: Room, opponent: str, client_seed: str = ""
) -> Match | QueueEntry:
    """Start a match against bots now, or pair with waiting humans (or join the queue).

    A player already seated in an active room match who asks for humans gets that match.
    `client_seed` (the browser's, or one the API caller chose) goes into every deal of
    the match; empty: the player's own from their profile, else one drawn by the server.
    """
    room_check_access(player=player, room=room)
    if client_seed:
        try:
            fair.check_client_seed(client_seed)
        except ValueError as exc:
            raise DomainError(str(exc), code="invalid_client_seed") from exc
    if opponent not in ("bot", "human"):
        raise DomainError('opponent must be "bot" or "human".', code="invalid_opponent")
    with transaction.atomic():
        # One play request per player at a time: a second waits here for the first, so a
        # player never holds two places in the queue, nor a place and a seat, nor more bot
        # tables in a room than it allows.
        Player.objects.select_for_update().get(pk=player.pk)
        if opponent == "bot":
            if not room.bots_allowed:
                raise NotAllowed(_("Bots may not play in this room."), code="bots_not_allowed")
            full = room_table_full(player=player, room=room)
            if full is not None:
                raise Conflict(
                    _("You are already at a table in this room."),
                    code="already_at_table",
                    details={"match": full},
                )
            bots = bot_players(kind="greedy", count=room.seats - 1)
            return match_create(
                variant=room.variant,
                options=room.options,
                players=[player, *bots],
                room=room,
                client_seeds={player.pk: client_seed} if client_seed else None,
            )
        # Joins to one room take turns (player, then room: always this order), so each sees
        # the places committed before it and pairs with them now rather than at the next
        # sweep; without it, three players joining at once could all wait.
        Room.objects.select_for_update().get(pk=room.pk)
        # This waits for a pairer that has locked the player's place; once it commits, the
        # match it made is visible below.
        QueueEntry.objects.filter(player=player).delete()
        playing = (
            Match.objects.filter(
                status=Match.Status.ACTIVE, room__isnull=False, seats__player=player
            )
            .order_by("-pk")
            .first()
        )
        if playing is not None:
            return playing  # joining again while seated returns the match already made
        entry = QueueEntry.objects.create(
            player=player,
            room=room,
            ordinal=rating_ordinal(player=player, variant=room.variant),
            client_seed=client_seed,
        )
        match = queue_pair(room_id=room.pk, now=timezone.now(), only_with=player.pk)
    return match or entry


def room_table_full(*, player: Player, room: Room) -> int | None:
    """The newest of the player's tables in this room when they sit at as many as it
    allows (`Room.max_tables_per_player`; tables nobody plays still cost bot turns), else
    None. `room_play` asks it under the player's row lock, so requests at once agree."""
    tables = list(
        Match.objects.filter(status=Match.Status.ACTIVE, room=room, seats__player=player)
        .order_by("-pk")
        .values_list("pk", flat=True)[: room.max_tables_per_player]
    )
    return tables[0] if len(tables) >= room.max_tables_per_player else None


def queue_leave(*, player: Player) -> bool:
    return QueueEntry.objects.filter(player=player).delete()[0] > 0


def _queue_window(entry: QueueEntry, now) -> float:
    waited = (now - entry.created_at).total_seconds()
    config = settings.KNOCK_MATCHMAKING
    return config["base_window"] + config["widen_per_second"] * max(waited, 0.0)


def queue_pair(*, room_id: int, now=None, only_with: int | None = None) -> Match | None:
    """Seat waiting players of similar rating together; returns the match of `only_with`.

    Two players fit when their ordinals are within both their windows; windows widen as
    players wait, and rooms that allow bots fill the seats of long waiters with bots.
    """
    now = now or timezone.now()
    with transaction.atomic():
        room = Room.objects.get(pk=room_id)
        # Locking the waiting rows (skipping ones another pairer holds) makes pairing
        # safe to run from many web and worker processes at once.
        waiting = list(
            QueueEntry.objects.select_for_update(skip_locked=True)
            .filter(room_id=room_id)
            .select_related("player")
            .order_by("created_at", "pk")
        )
        made: Match | None = None
        used: set[int] = set()
        for anchor in waiting:
            if anchor.pk in used or (only_with is not None and anchor.player_id != only_with):
                continue
            group = [anchor]
            for other in waiting:
                if other.pk in used or other is anchor or len(group) == room.seats:
                    continue
                gap = abs(other.ordinal - anchor.ordinal)
                if all(gap <= _queue_window(member, now) for member in (anchor, other)):
                    group.append(other)
            waited = (now - anchor.created_at).total_seconds()
            fill_with_bots = (
                room.bots_allowed and waited >= settings.KNOCK_MATCHMAKING["bot_fill_after_seconds"]
            )
            if len(group) < room.seats and not fill_with_bots:
                continue
            humans = [entry.player for entry in group]
            bots = bot_players(kind="greedy", count=room.seats - len(humans))
            used.update(entry.pk for entry in group)
            QueueEntry.objects.filter(pk__in=[entry.pk for entry in group]).delete()
            match = match_create(
                variant=room.variant,
                options=room.options,
                players=humans + bots,
                room=room,
                client_seeds={e.player_id: e.client_seed for e in group if e.client_seed},
            )
            if only_with is not None:
                made = match
                break
        return made
