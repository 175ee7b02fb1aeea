"""Reads shared by the API, pages and tasks."""

from django.db.models import Case, F, Prefetch, When, Window
from django.db.models import Value as V
from django.db.models.functions import RowNumber

from gameplay import games
from gameplay.models import (
    Achievement,
    Level,
    Match,
    Metric,
    Player,
    PlayerMetric,
    PlayerTitle,
    QueueEntry,
    Rating,
    RatingChange,
    Room,
    Seat,
)


def rooms_for(player: Player | None):
    """Active rooms, each annotated `locked` for this player."""
    level = player.level if player else 1
    return Room.objects.filter(active=True).annotate(
        locked=Case(When(min_level__gt=level, then=V(True)), default=V(False))
    )


def matches_of(player: Player):
    """The player's matches for lists: without the move log and engine state they hold."""
    return (
        Match.objects.filter(seats__player=player)
        .defer("log", "state")
        .select_related("room")
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("player")))
        .order_by("-created_at", "-pk")
    )


def match_for(match_id: int, player: Player) -> Match | None:
    """The match if `player` sits at it, with its seats; None hides it from others."""
    return (
        Match.objects.filter(pk=match_id, seats__player=player)
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("player")))
        .first()
    )


def active_match_of(player: Player) -> Match | None:
    """The table the player is sitting at now (the newest, should there be several)."""
    return (
        Match.objects.filter(seats__player=player, status=Match.Status.ACTIVE)
        .only("pk", "variant")
        .order_by("-pk")
        .first()
    )


def queue_entry_of(player: Player) -> QueueEntry | None:
    return QueueEntry.objects.filter(player=player).select_related("room").first()


def match_watchable(match_id: int, player: Player | None) -> Match | None:
    """The match if `player` sits at it, or if its room lets anyone watch; else None."""
    match = (
        Match.objects.filter(pk=match_id)
        .select_related("room")
        .prefetch_related(
            Prefetch(
                "seats",
                queryset=Seat.objects.select_related("player", "player__displayed_title"),
            )
        )
        .first()
    )
    if match is None:
        return None
    seated = player is not None and any(s.player_id == player.pk for s in match.seats.all())
    if seated or (match.room is not None and match.room.spectators_allowed):
        return match
    return None


def match_with_seats(match_id: int) -> tuple[Match | None, list[Seat]]:
    """The match and its seats with their players in one query (the live table reads this
    after every move); no access check: for callers that made theirs already."""
    seats = list(
        Seat.objects.filter(match_id=match_id).select_related("match", "player").order_by("index")
    )
    return (seats[0].match if seats else None), seats


def match_view(match: Match, player: Player | None, seats: list[Seat] | None = None) -> dict:
    """The caller's view of a match: only what their seat may see until it ends.

    A spectator (`player` None, or not seated) gets the public view: no hand at all.
    `seats`, with their players, when read already; else the match's (prefetched) ones.
    """
    seats = sorted(match.seats.all() if seats is None else seats, key=lambda s: s.index)
    mine = next((s.index for s in seats if player is not None and s.player_id == player.pk), None)
    game = games.load(match)
    table = game.view(mine)
    hand = table.pop("hand")
    finished = match.status != Match.Status.ACTIVE
    your_turn = not finished and mine is not None and match.to_move == mine
    view = {
        "id": match.pk,
        "variant": match.variant,
        "options": match.options,
        "status": match.status,
        "seq": match.seq,
        "seat": mine,
        "to_move": match.to_move,
        "your_turn": your_turn,
        "turn_deadline": match.turn_deadline.isoformat() if match.turn_deadline else None,
        "legal_actions": game.legal_actions(mine) if your_turn else [],
        "hand": hand,
        "table": table,
        "seats": [
            {
                "seat": seat.index,
                "player": seat.player.display_name,
                "player_id": seat.player_id,
                "bot": seat.player.is_bot,
                "card_count": table["hand_counts"][seat.index],
                "timeouts": seat.timeouts,
            }
            for seat in seats
        ],
        "scores": table["scores"],
        "commitment": match.commitment,
    }
    if finished:
        view["seed"] = match.seed
        view["moves"] = [
            {"number": number, "seat": move["seat"], "action": move["action"]}
            for number, move in enumerate(match.log, start=1)
        ]
        view["result"] = match.result
        view["placements"] = [seat.placement for seat in seats]
        if match.status == Match.Status.DISPUTED:
            view["dispute_reason"] = match.dispute_reason
    return view


def level_progress(player: Player) -> dict:
    levels = list(Level.objects.filter(number__in=[player.level, player.level + 1]))
    current = next((lv for lv in levels if lv.number == player.level), None)
    following = next((lv for lv in levels if lv.number == player.level + 1), None)
    floor = current.xp_required if current else 0
    if following is None:
        return {"level": player.level, "xp": player.xp, "next_level_xp": None, "fraction": 1.0}
    span = max(following.xp_required - floor, 1)
    return {
        "level": player.level,
        "xp": player.xp,
        "next_level_xp": following.xp_required,
        "fraction": min(max((player.xp - floor) / span, 0.0), 1.0),
    }


def achievements_of(player: Player) -> list[dict]:
    """Every achievement with the player's progress; hidden locked ones keep their secret."""
    values = dict(PlayerMetric.objects.filter(player=player).values_list("metric", "value"))
    values[Metric.LEVEL] = player.level
    unlocked = dict(player.playerachievement_set.values_list("achievement_id", "unlocked_at"))
    out = []
    tier_order = Case(
        *(When(tier=tier, then=V(rank)) for rank, tier in enumerate(Achievement.Tier.values))
    )
    for achievement in Achievement.objects.order_by(tier_order, "name"):
        done = achievement.pk in unlocked
        secret = achievement.hidden and not done
        out.append(
            {
                "code": None if secret else achievement.code,
                "name": "Hidden achievement" if secret else achievement.name,
                "description": "" if secret else achievement.description,
                "tier": achievement.tier,
                "unlocked": done,
                "unlocked_at": unlocked.get(achievement.pk),
                "progress": None
                if secret
                else min(values.get(achievement.metric, 0), achievement.threshold),
                "threshold": None if secret else achievement.threshold,
            }
        )
    return out


def ratings_of(player: Player) -> list[Rating]:
    return list(Rating.objects.filter(player=player).order_by("variant"))


def rating_history(player: Player, variant: str, limit: int = 50) -> list[float]:
    rows = RatingChange.objects.filter(rating__player=player, rating__variant=variant).order_by(
        "-id"
    )[:limit]
    return [row.ordinal for row in reversed(rows)]


# --- pages: the lobby and the player profile (appended for the server-rendered pages) ---


def player_of_user(user) -> Player | None:
    """The signed-in user's player, or None; a read, so it never creates one."""
    if not user.is_authenticated:
        return None
    return Player.objects.filter(user=user).select_related("displayed_title").first()


def player_profile(player_id: int) -> Player | None:
    return Player.objects.select_related("user", "displayed_title").filter(pk=player_id).first()


def titles_of(player: Player) -> list[PlayerTitle]:
    return list(
        PlayerTitle.objects.filter(player=player).select_related("title").order_by("granted_at")
    )


def rating_histories(player: Player, limit: int = 50) -> dict[str, list[float]]:
    """The last `limit` ordinals of every variant in one query (a window per rating)."""
    rows = (
        RatingChange.objects.filter(rating__player=player)
        .annotate(newest=Window(RowNumber(), partition_by=F("rating_id"), order_by=F("id").desc()))
        .filter(newest__lte=limit)
        .order_by("rating__variant", "id")
        .values_list("rating__variant", "ordinal")
    )
    histories: dict[str, list[float]] = {}
    for variant, ordinal in rows:
        histories.setdefault(variant, []).append(ordinal)
    return histories
