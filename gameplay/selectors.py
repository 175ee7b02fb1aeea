"""Reads shared by the API, pages and tasks."""

from collections.abc import Callable, Iterable
from datetime import timedelta
from typing import NamedTuple

from django.db import connection
from django.db.models import Case, F, Prefetch, Q, Sum, When, Window
from django.db.models import Value as V
from django.db.models.functions import RowNumber
from django.utils import timezone

from config.db import JoinedRead
from engine import cards as engine_cards
from engine import gin as engine_gin
from gameplay import games
from gameplay.models import (
    Achievement,
    ApiToken,
    CoinEntry,
    HouseAccount,
    HouseEntry,
    Level,
    Match,
    Metric,
    Player,
    PlayerAchievement,
    PlayerMetric,
    PlayerTitle,
    QueueEntry,
    Rating,
    RatingChange,
    Reward,
    Room,
    Seat,
    Title,
    XpEntry,
)

# How long after a match's finalize began its rows (rewards, unlocks) may be dated: one
# transaction writes them all, so a minute is generous.
FINALIZE_WINDOW = timedelta(minutes=1)


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


# Live games (issue 27): the lobby's list, GET /api/matches/live/ and a tournament's.
LIVE_GAMES_MAX = 20
# Apps above gameplay name the matches they created (a tournament: its name) without
# gameplay importing them: each registers fn(match_ids) -> {match_id: name} in its
# AppConfig.ready(), one query for any number of matches.
MatchLabels = Callable[[list[int]], dict[int, str]]
_match_labels: list[MatchLabels] = []


def register_match_labels(fn: MatchLabels) -> MatchLabels:
    """Add a namer; registering the same function again is a no-op (ready() may rerun)."""
    if fn not in _match_labels:
        _match_labels.append(fn)
    return fn


def live_matches():
    """The running matches anyone signed in may watch, newest first: those open to
    spectators themselves (a tournament's that allows them) or through their room, as
    `match_watchable` opens them to who does not sit there. A private table (neither)
    never. Two queries (matches, seats with players), without the secret fields."""
    return (
        Match.objects.filter(status=Match.Status.ACTIVE)
        .filter(Q(spectators_allowed=True) | Q(room__spectators_allowed=True))
        .defer(*Match.SECRET_FIELDS)
        .select_related("room")
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("player")))
        .order_by("-created_at", "-pk")
    )


def label_matches(matches: Iterable[Match]) -> list[Match]:
    """Set `where` on each match: its room's name, else what a registered app calls it
    (its tournament's name), else "". One query per registered namer, whatever the count."""
    matches = list(matches)
    names: dict[int, str] = {}
    if matches:
        for fn in _match_labels:
            names.update(fn([m.pk for m in matches]))
    for match in matches:
        match.where = match.room.name if match.room is not None else names.get(match.pk, "")
    return matches


def live_games(limit: int = LIVE_GAMES_MAX) -> list[Match]:
    """The lobby's "Live games": `live_matches`, the newest `limit`, labelled."""
    return label_matches(live_matches()[:limit])


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
    """The match if `player` sits at it, if it or its room lets anyone watch, or once it
    is over (its seed and moves are public then: anyone may check it); else None.

    `Match.spectators_allowed` is how apps above gameplay (a tournament) open their tables
    to spectators without gameplay knowing about them.
    """
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
    if seated or match.spectators_allowed or match.status != Match.Status.ACTIVE:
        return match
    if match.room is not None and match.room.spectators_allowed:
        return match
    return None


def match_finished(match_id: int) -> Match | None:
    """The match with its seats and players if it is over (public then), else None."""
    return (
        Match.objects.exclude(status=Match.Status.ACTIVE)
        .filter(pk=match_id)
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("player")))
        .first()
    )


def match_with_seats(match_id: int) -> tuple[Match | None, list[Seat]]:
    """The match and its seats with their players in one query (the live table reads this
    after every move); no access check: for callers that made theirs already."""
    matches = matches_with_seats([match_id])
    return (matches[0], list(matches[0].seats.all())) if matches else (None, [])


# A match's seats, each with its match and player: what a move and a view of it read.
# The move log is not read: the engine state cached beside it stands for it, and it only
# grows (a long match's log cost more to decode than everything else in the row).
_SEATED = {
    active_only: JoinedRead(
        Seat,
        ["match", "player"],
        where="{self}.match_id = ANY(%s)" + (" AND {match}.status = %s" if active_only else ""),
        order_by="{self}.match_id, {self}.index",
        defer={"match": ["log"]},
        lock_of=["match"],
    )
    for active_only in (False, True)
}


def matches_with_seats(
    match_ids: list[int], *, for_update: bool = False, active_only: bool = False
) -> list[Match]:
    """The matches in id order, each with its seats and their players loaded
    (`match.seats.all()` queries no more), in one statement compiled once per process.

    `match.log` is read on first use. `for_update` locks the match rows, in id order
    (two batches never deadlock); `active_only` leaves out the matches that are over.
    """
    if connection.vendor == "postgresql":
        params = [list(match_ids)] + ([Match.Status.ACTIVE] if active_only else [])
        seats = _SEATED[active_only](params, for_update=for_update)
    else:
        # The compiled statement is PostgreSQL's SQL (ANY, FOR UPDATE OF); the embedded
        # SQLite default reads the same joined rows through the ORM, in one statement too
        # (SQLite takes the whole database for a write, so there is no row to lock).
        seats = (
            Seat.objects.filter(match_id__in=list(match_ids))
            .select_related("match", "player")
            .defer("match__log")
            .order_by("match_id", "index")
        )
        if active_only:
            seats = seats.filter(match__status=Match.Status.ACTIVE)
    matches: dict[int, Match] = {}
    grouped: dict[int, list[Seat]] = {}
    for seat in seats:  # a match's seats share its instance
        match = matches.setdefault(seat.match_id, seat.match)
        if seat.match is not match:  # the ORM's join gives each row an instance of its own
            seat.match = match
        grouped.setdefault(seat.match_id, []).append(seat)
    for match in matches.values():
        _cache_seats(match, grouped[match.pk])
    return list(matches.values())


def _cache_seats(match: Match, seats: list[Seat]) -> None:
    """Make `match.seats.all()` answer `seats`, as `prefetch_related("seats")` does."""
    queryset = match.seats.all()
    queryset._result_cache = seats
    queryset._prefetch_done = True
    match._prefetched_objects_cache = {"seats": queryset}


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
    your_turn = (
        not finished
        and mine is not None
        and match.to_move == mine
        and match.hand_break_until is None
    )
    resting = match.hand_break_until is not None and not finished
    # Another seat may have actions too while a claim window is open (Dummy's cut-ins).
    # Nobody has any while the table rests between hands.
    playing = not finished and not resting and mine is not None
    legal = game.legal_actions(mine) if playing else []
    view = {
        "id": match.pk,
        "variant": match.variant,
        "options": match.options,
        "status": match.status,
        "seq": match.seq,
        "seat": mine,
        "to_move": match.to_move,
        "your_turn": your_turn,
        # No turn clock runs while the table rests (the rest's end is `hand_break.until`).
        "turn_deadline": (
            match.turn_deadline.isoformat() if match.turn_deadline and not resting else None
        ),
        "claim_deadline": match.claim_deadline.isoformat() if match.claim_deadline else None,
        "legal_actions": legal,
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
        # Between hands: until when the table rests and who pressed Next hand already.
        "hand_break": (
            {"until": match.hand_break_until.isoformat(), "ready": match.hand_break_ready}
            if resting
            else None
        ),
        # Before the first move a person may call a room's match off (services.match_abort).
        "can_abort": not finished and mine is not None and match.seq == 0 and bool(match.room_id),
        "max_timeouts": match.max_timeouts,
        # The latest move, for the table's last-move line (public: the table shows it).
        "last_move": game.last_move(),
        "commitment": match.commitment,
        # Public from the start: without the server seed they tell nobody anything.
        "client_seeds": match.client_seeds,
    }
    if mine is not None and seats[mine].last_timeout:
        # The move the table played for this seat when its time last ran out (its own
        # seat only: the others see the count).
        view["last_timeout"] = seats[mine].last_timeout
    if any(action["type"] in ("knock", "big_gin") for action in legal):
        view["knock_options"] = knock_options(hand, legal)
    if finished:
        view["seed"] = match.seed
        view["seat_seeds"] = match.seat_seeds
        view["moves"] = published_moves(match)
        view["result"] = match.result
        view["placements"] = [seat.placement for seat in seats]
        if match.status == Match.Status.DISPUTED:
            view["dispute_reason"] = match.dispute_reason
        if mine is not None:
            view["rewards"] = match_rewards(match, player)
    return view


def published_moves(match: Match) -> list[dict]:
    """The move log as published once a match is over: numbered, with each move's time."""
    return [{"number": number, **move} for number, move in enumerate(match.log, start=1)]


def match_document(match: Match) -> dict | None:
    """Everything a third party needs to check a finished match, as one JSON document:
    what `python -m engine.verify` reads. None while the match is being played, and for a
    match called off before its first move (nothing was played to check)."""
    if match.status in (Match.Status.ACTIVE, Match.Status.ABORTED):
        return None
    seats = sorted(match.seats.all(), key=lambda s: s.index)
    return {
        "format": "knock-match/1",
        "id": match.pk,
        "variant": match.variant,
        "options": match.options,
        "status": match.status,
        "seats": [
            {
                "seat": seat.index,
                "player": seat.player.display_name,
                "player_id": seat.player_id,
                "bot": seat.player.is_bot,
                "placement": seat.placement,
                "score": seat.score,
            }
            for seat in seats
        ],
        "commitment": match.commitment,
        "seed": match.seed,
        "seat_seeds": match.seat_seeds,
        "client_seeds": match.client_seeds,
        "deal_seed": games.deal_seed(match),
        "created_at": match.created_at.isoformat(),
        "finished_at": match.finished_at.isoformat() if match.finished_at else None,
        "moves": published_moves(match),
        "result": match.result,
    }


def knock_options(hand: list[str], legal: list[dict]) -> list[dict]:
    """What each offered knock (or big gin) would lay out from the seat's own hand: the
    engine's least-deadwood arrangement of the cards kept. Only ever the caller's hand."""
    options = []
    for action in legal:
        if action["type"] == "knock":
            kept = list(hand)
            kept.remove(action["card"])
        elif action["type"] == "big_gin":
            kept = list(hand)
        else:
            continue
        arrangement = engine_gin.best_arrangement(engine_cards.parse(" ".join(kept)))
        options.append(
            {"type": action["type"], "card": action.get("card"), **arrangement.to_json()}
        )
    return sorted(options, key=lambda option: (option["deadwood_points"], option["card"] or ""))


def match_rewards(match: Match, player: Player) -> dict | None:
    """What finalizing `match` gave `player`, read back from the rows finalize wrote: XP and
    coins (with any achievement rewards), levels reached, achievements and titles unlocked.

    None until the match is finalized. Finalize writes everything for a match in one
    transaction that starts at `finalized_at`; a later match's rows come after its own XP
    row, so the window ends there (or after FINALIZE_WINDOW).
    """
    if match.finalized_at is None:
        return None
    start = match.finalized_at
    key = f"match:{match.pk}"
    later = (
        XpEntry.objects.filter(player=player, key__startswith="match:", created_at__gt=start)
        .exclude(key=key)
        .order_by("created_at")
        .values_list("created_at", flat=True)
        .first()
    )
    end = min(start + FINALIZE_WINDOW, later) if later else start + FINALIZE_WINDOW
    window = {"created_at__gte": start, "created_at__lt": end}
    xp_rows = list(
        XpEntry.objects.filter(player=player)
        .filter(Q(key=key) | Q(key__startswith="reward:", **window))
        .order_by("id")
    )
    coin_rows = list(
        CoinEntry.objects.filter(player=player)
        .filter(Q(key__in=[f"{key}:fee", f"{key}:pot"]) | Q(key__startswith="reward:", **window))
        .order_by("id")
    )
    gained = sum(row.amount for row in xp_rows)
    levels = []
    if xp_rows:
        after = (
            XpEntry.objects.filter(player=player, id__lte=xp_rows[-1].id).aggregate(
                total=Sum("amount")
            )["total"]
            or 0
        )
        levels = [
            {"level": level.number, "title": level.title.name if level.title else ""}
            for level in Level.objects.filter(
                xp_required__gt=after - gained, xp_required__lte=after, number__gt=1
            )
            .select_related("title")
            .order_by("number")
        ]
    achievements = (
        PlayerAchievement.objects.filter(player=player, unlocked_at__gte=start, unlocked_at__lt=end)
        .select_related("achievement")
        .order_by("unlocked_at", "id")
    )
    titles = (
        PlayerTitle.objects.filter(player=player, granted_at__gte=start, granted_at__lt=end)
        .select_related("title")
        .order_by("granted_at", "id")
    )
    return {
        "xp": gained,
        "xp_lines": [{"reason": row.reason, "amount": row.amount} for row in xp_rows],
        "coins": sum(row.amount for row in coin_rows),
        "coin_lines": [{"reason": row.reason, "amount": row.amount} for row in coin_rows],
        "levels": levels,
        "achievements": [
            {
                "name": row.achievement.name,
                "description": row.achievement.description,
                "tier": row.achievement.tier,
            }
            for row in achievements
        ],
        "titles": [{"name": row.title.name, "reason": row.reason} for row in titles],
    }


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


# --- pages: the lobby and the player profile (appended for the server-rendered pages) ---


def api_tokens_of(user):
    """The user's tokens that still work: not expired, made under the current password."""
    return ApiToken.objects.filter(user=user, password_stamp=ApiToken.stamp_of(user)).exclude(
        expires_at__lte=timezone.now()
    )


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


def awardable_titles():
    """Titles an organiser may offer as prizes: marked so by an admin, and no level's."""
    return Title.objects.filter(awardable_by_organisers=True, level__isnull=True)


def awardable_rewards():
    """Rewards an organiser may offer as prizes: marked so, and carrying no other title."""
    return Reward.objects.filter(awardable_by_organisers=True).filter(
        Q(title__isnull=True) | Q(title__in=awardable_titles())
    )


class LedgerDifference(NamedTuple):
    currency: str  # "coins" or "xp"
    account: str  # "player <id>", "house <code>" or "total"
    balance: int
    ledger: int


def ledger_differences() -> list[LedgerDifference]:
    """Every account whose balance is not the sum of its ledger, per currency, and the
    totals (players and house accounts together) when they differ; empty when all agree."""
    differences = []
    accounts = [
        (
            "coins",
            "player",
            Player.objects.values_list("pk", "coins"),
            CoinEntry.objects.values("player").annotate(total=Sum("amount")),
            "player",
        ),
        (
            "xp",
            "player",
            Player.objects.values_list("pk", "xp"),
            XpEntry.objects.values("player").annotate(total=Sum("amount")),
            "player",
        ),
        (
            "coins",
            "house",
            HouseAccount.objects.values_list("code", "coins"),
            HouseEntry.objects.values("account__code").annotate(total=Sum("amount")),
            "account__code",
        ),
    ]
    totals: dict[str, list[int]] = {"coins": [0, 0], "xp": [0, 0]}
    for currency, kind, balances, sums, key in accounts:
        ledger = {row[key]: row["total"] for row in sums}
        for account, balance in balances:
            booked = ledger.get(account, 0)
            totals[currency][0] += balance
            totals[currency][1] += booked
            if balance != booked:
                differences.append(LedgerDifference(currency, f"{kind} {account}", balance, booked))
    for currency, (balance, booked) in totals.items():
        if balance != booked:
            differences.append(LedgerDifference(currency, "total", balance, booked))
    return differences
