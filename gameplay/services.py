"""Every write in gameplay: one function per use case, keyword-only.

Exactly-once rules: each award carries an idempotency key that a unique constraint
guards, and state that advances (a match, a balance) is locked with select_for_update
and checked again after the lock.
"""

import logging
from collections.abc import Iterable
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.mail import mail_admins
from django.db import IntegrityError, transaction
from django.db.models import F, Prefetch
from django.utils import timezone
from openskill.models import PlackettLuce
from rest_framework.authtoken.models import Token

from config.errors import Conflict, DomainError, NotAllowed, NotFound
from engine import IllegalAction, variants
from gameplay import games
from gameplay.events import match_finished
from gameplay.models import (
    Achievement,
    CoinEntry,
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
    RewardGrant,
    Room,
    Seat,
    Title,
    XpEntry,
)

logger = logging.getLogger(__name__)

RATING_MODEL = PlackettLuce()
# A bot's turn not played by then was lost with its task; the sweep plays it.
BOT_TURN_GRACE = timedelta(seconds=30)
# Variants whose totals are penalty points: the lowest total ranks first.
LOWER_SCORE_WINS = {"indian"}


class InsufficientCoins(DomainError):
    status_code = 402
    code = "insufficient_coins"


class IllegalMove(DomainError):
    """The engine refused an action; `code` is the engine's stable reason."""

    code = "illegal_action"


# --- players -------------------------------------------------------------------------


def player_register(*, username: str, password: str) -> Player:
    user_model = get_user_model()
    username = (username or "").strip()
    if not username:
        raise DomainError("A username is required.", code="invalid_username")
    user = user_model(username=username)
    try:
        validate_password(password or "", user=user)
    except ValidationError as exc:
        raise DomainError(
            "The password is too weak.", code="invalid_password", details=exc.messages
        ) from exc
    try:
        with transaction.atomic():
            user.set_password(password)
            user.save()
            player = Player.objects.create(user=user, display_name=username[:40])
            Token.objects.create(user=user)
    except IntegrityError:
        raise Conflict("That username is taken.", code="username_taken") from None
    return player


def player_for_user(user) -> Player:
    """The user's profile, created on first use (admins and staff get one too)."""
    player, _ = Player.objects.get_or_create(
        user=user, defaults={"display_name": user.get_username()[:40]}
    )
    return player


def bot_players(*, kind: str, count: int) -> list[Player]:
    """`count` distinct bot players of one kind, created once and reused."""
    user_model = get_user_model()
    bots = []
    for number in range(1, count + 1):
        username = f"bot-{kind}-{number}"
        user, _ = user_model.objects.get_or_create(username=username)
        bot, _ = Player.objects.get_or_create(
            user=user,
            defaults={
                "display_name": f"{kind.title()} Bot {number}",
                "is_bot": True,
                "bot_kind": kind,
            },
        )
        bots.append(bot)
    return bots


def title_display(*, player: Player, title_id: int | None) -> None:
    if (
        title_id is not None
        and not PlayerTitle.objects.filter(player=player, title_id=title_id).exists()
    ):
        raise NotAllowed("You do not hold that title.", code="title_not_owned")
    Player.objects.filter(pk=player.pk).update(displayed_title_id=title_id)


# --- coins -----------------------------------------------------------------------------


def coins_book(*, player_id: int, amount: int, reason: str, key: str) -> CoinEntry:
    """Append one ledger row and move the balance; the same key books once."""
    if amount == 0:
        raise ValueError("a ledger row moves coins")
    with transaction.atomic():
        # The player row is the lock that orders every booking on one balance.
        player = Player.objects.select_for_update().get(pk=player_id)
        existing = CoinEntry.objects.filter(player_id=player_id, key=key).first()
        if existing is not None:
            return existing
        balance = player.coins + amount
        if balance < 0:
            raise InsufficientCoins(
                f"This needs {-amount} coins; the balance is {player.coins}.",
                details={"balance": player.coins, "needed": -amount},
            )
        Player.objects.filter(pk=player_id).update(coins=F("coins") + amount)
        return CoinEntry.objects.create(
            player_id=player_id, amount=amount, balance_after=balance, reason=reason, key=key
        )


# --- XP, levels, titles, rewards, achievements ----------------------------------------


def xp_grant(*, player_id: int, amount: int, reason: str, key: str) -> bool:
    """Add XP once per key and move the player up the admin-defined levels."""
    return player_id in xp_grant_many(amounts={player_id: amount}, reason=reason, key=key)


def xp_grant_many(*, amounts: dict[int, int], reason: str, key: str) -> set[int]:
    """Add XP to several players under one key (a match's seats) in a few queries.

    Returns the players granted now; whoever already has an entry with this key gets
    nothing again.
    """
    amounts = {player_id: amount for player_id, amount in amounts.items() if amount > 0}
    if not amounts:
        return set()
    with transaction.atomic():
        # Locked in primary-key order, so two matches sharing players never deadlock.
        locked = Player.objects.select_for_update().filter(pk__in=amounts).order_by("pk")
        booked = set(
            XpEntry.objects.filter(player_id__in=amounts, key=key).values_list(
                "player_id", flat=True
            )
        )
        players = [player for player in locked if player.pk not in booked]
        if not players:
            return set()
        XpEntry.objects.bulk_create(
            XpEntry(player_id=player.pk, amount=amounts[player.pk], reason=reason, key=key)
            for player in players
        )
        for player in players:
            player.xp += amounts[player.pk]
        levels = list(Level.objects.filter(xp_required__lte=max(player.xp for player in players)))
        reached_by = {}
        for player in players:
            reached = [
                level
                for level in levels
                if level.xp_required <= player.xp and level.number > player.level
            ]
            if reached:
                player.level = max(level.number for level in reached)
                reached_by[player] = reached
        Player.objects.bulk_update(players, ["xp", "level"])
        for player, reached in reached_by.items():
            for level in reached:
                if level.title_id:
                    title_grant(
                        player=player, title=level.title, reason=f"Reached level {level.number}"
                    )
            metric_set(player_id=player.pk, metric=Metric.LEVEL, value=player.level)
    return {player.pk for player in players}


def title_grant(*, player: Player, title: Title, reason: str) -> bool:
    _, created = PlayerTitle.objects.get_or_create(
        player=player, title=title, defaults={"reason": reason}
    )
    if created:
        Player.objects.filter(pk=player.pk, displayed_title__isnull=True).update(
            displayed_title=title
        )
    return created


def reward_grant(*, player_id: int, reward: Reward, reason: str, key: str) -> bool:
    """Grant a reward's XP, coins and title together, once per key."""
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player_id)
        if RewardGrant.objects.filter(player_id=player_id, key=key).exists():
            return False
        RewardGrant.objects.create(player=player, reward=reward, reason=reason, key=key)
        if reward.coins:
            coins_book(player_id=player_id, amount=reward.coins, reason=reason, key=f"reward:{key}")
        if reward.title_id:
            title_grant(player=player, title=reward.title, reason=reason)
        if reward.xp:
            xp_grant(player_id=player_id, amount=reward.xp, reason=reason, key=f"reward:{key}")
    progress_evaluate(player_id=player_id)
    return True


def metrics_write(*, player_id: int, values: dict[str, int]) -> None:
    """Store several counters of one player in one upsert."""
    metrics_write_many(values={player_id: values})


def metrics_write_many(*, values: dict[int, dict[str, int]]) -> None:
    """Store counters of several players in one upsert."""
    rows = [
        PlayerMetric(player_id=player_id, metric=metric, value=value)
        for player_id, counters in values.items()
        for metric, value in counters.items()
    ]
    if rows:
        PlayerMetric.objects.bulk_create(
            rows,
            update_conflicts=True,
            unique_fields=["player", "metric"],
            update_fields=["value"],
        )


def metric_set(*, player_id: int, metric: str, value: int) -> None:
    metrics_write(player_id=player_id, values={metric: value})


def metrics_of(player_id: int) -> dict[str, int]:
    return metrics_of_many([player_id])[player_id]


def metrics_of_many(player_ids: Iterable[int]) -> dict[int, dict[str, int]]:
    values: dict[int, dict[str, int]] = {player_id: {} for player_id in player_ids}
    for player_id, metric, value in PlayerMetric.objects.filter(player_id__in=values).values_list(
        "player_id", "metric", "value"
    ):
        values[player_id][metric] = value
    return values


def metrics_add(*, player_id: int, changes: dict[str, int]) -> dict[str, int]:
    """Add to a player's counters (tournaments and leagues call this too); returns them all."""
    values = metrics_of(player_id)
    changed = {m: values.get(m, 0) + delta for m, delta in changes.items() if delta}
    metrics_write(player_id=player_id, values=changed)
    return values | changed


def progress_evaluate(*, player_id: int) -> list[str]:
    """Unlock every achievement and rule-based title the player now qualifies for."""
    return progress_evaluate_many(player_ids=[player_id])[player_id]


def progress_evaluate_many(*, player_ids: Iterable[int]) -> dict[int, list[str]]:
    """Unlock what each of these players now qualifies for; returns achievement codes.

    One pass reads everybody's counters and holdings at once (a match's whole table in
    six queries). Rewards can add XP, which can raise the level, which can unlock more;
    whoever unlocked something is looked at again until nothing new unlocks (each
    unlock happens once, so it ends).
    """
    unlocked: dict[int, list[str]] = {player_id: [] for player_id in player_ids}
    todo = list(unlocked)
    while todo:
        values = metrics_of_many(todo)
        players = Player.objects.in_bulk(todo)
        for player_id, player in players.items():
            values[player_id][Metric.LEVEL] = player.level
        has_achievement = set(
            PlayerAchievement.objects.filter(player_id__in=todo).values_list(
                "player_id", "achievement_id"
            )
        )
        has_title = set(
            PlayerTitle.objects.filter(player_id__in=todo).values_list("player_id", "title_id")
        )
        achievements = list(Achievement.objects.select_related("reward"))
        titles = list(Title.objects.exclude(metric=""))
        again = []
        for player_id in todo:
            mine = values[player_id]
            for title in titles:
                if (player_id, title.pk) not in has_title and mine.get(
                    title.metric, 0
                ) >= title.threshold:
                    title_grant(
                        player=players[player_id],
                        title=title,
                        reason=f"{title.metric} {title.threshold}",
                    )
            pending = [
                achievement
                for achievement in achievements
                if (player_id, achievement.pk) not in has_achievement
                and mine.get(achievement.metric, 0) >= achievement.threshold
            ]
            if pending:
                again.append(player_id)
            for achievement in pending:
                _, created = PlayerAchievement.objects.get_or_create(
                    player_id=player_id, achievement=achievement
                )
                if not created:
                    continue
                unlocked[player_id].append(achievement.code)
                if achievement.reward is not None:
                    reward_grant(
                        player_id=player_id,
                        reward=achievement.reward,
                        reason=f"Achievement: {achievement.name}",
                        key=f"achievement:{achievement.code}",
                    )
        todo = again
    return unlocked


# --- ratings ---------------------------------------------------------------------------


def ratings_update(*, match: Match, seats: list[Seat]) -> None:
    """One Plackett-Luce update for the whole table, ties allowed."""
    player_ids = [seat.player_id for seat in seats]
    Rating.objects.bulk_create(
        [
            Rating(
                player_id=player_id,
                variant=match.variant,
                mu=RATING_MODEL.mu,
                sigma=RATING_MODEL.sigma,
                ordinal=RATING_MODEL.mu - 3 * RATING_MODEL.sigma,
            )
            for player_id in player_ids
        ],
        ignore_conflicts=True,  # first rated match in this variant; others already exist
    )
    # Locked in player order, so two tables sharing players never deadlock.
    locked = {
        rating.player_id: rating
        for rating in Rating.objects.select_for_update()
        .filter(player_id__in=player_ids, variant=match.variant)
        .order_by("player_id")
    }
    ratings = [locked[seat.player_id] for seat in seats]
    teams = [[RATING_MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
    updated = RATING_MODEL.rate(teams, ranks=[seat.placement for seat in seats])
    now = timezone.now()
    changes = []
    for rating, [new] in zip(ratings, updated, strict=True):
        rating.mu, rating.sigma = new.mu, new.sigma
        rating.ordinal = new.ordinal()
        rating.rated_matches += 1
        rating.last_rated_at = now
        changes.append(
            RatingChange(
                rating=rating, match=match, mu=new.mu, sigma=new.sigma, ordinal=rating.ordinal
            )
        )
    Rating.objects.bulk_update(
        ratings, ["mu", "sigma", "ordinal", "rated_matches", "last_rated_at"]
    )
    RatingChange.objects.bulk_create(changes)


def rating_ordinal(*, player: Player, variant: str) -> float:
    rating = Rating.objects.filter(player=player, variant=variant).first()
    return rating.ordinal if rating else RATING_MODEL.mu - 3 * RATING_MODEL.sigma


# --- rooms and matchmaking -------------------------------------------------------------


def room_check_access(*, player: Player, room: Room) -> None:
    if not room.active:
        raise NotFound("No such room.")
    if player.level < room.min_level:
        raise NotAllowed(f"This room unlocks at level {room.min_level}.", code="room_locked")
    if room.entry_fee and player.coins < room.entry_fee:
        raise InsufficientCoins(
            f"This room costs {room.entry_fee} coins; the balance is {player.coins}.",
            details={"balance": player.coins, "needed": room.entry_fee},
        )


def room_play(*, player: Player, room: Room, opponent: str) -> Match | QueueEntry:
    """Start a match against bots now, or pair with waiting humans (or join the queue)."""
    room_check_access(player=player, room=room)
    if opponent == "bot":
        if not room.bots_allowed:
            raise NotAllowed("Bots may not play in this room.", code="bots_not_allowed")
        bots = bot_players(kind="greedy", count=room.seats - 1)
        return match_create(
            variant=room.variant,
            options=room.options,
            players=[player, *bots],
            room=room,
        )
    if opponent != "human":
        raise DomainError('opponent must be "bot" or "human".', code="invalid_opponent")
    with transaction.atomic():
        QueueEntry.objects.filter(player=player).delete()
        entry = QueueEntry.objects.create(
            player=player, room=room, ordinal=rating_ordinal(player=player, variant=room.variant)
        )
        match = queue_pair(room_id=room.pk, now=timezone.now(), only_with=player.pk)
    return match or entry


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
                variant=room.variant, options=room.options, players=humans + bots, room=room
            )
            if only_with is not None:
                made = match
                break
        return made


# --- matches ---------------------------------------------------------------------------


def match_create(
    *,
    variant: str,
    options: dict,
    players: list[Player],
    room: Room | None = None,
    seed: str | None = None,
    turn_seconds: int | None = None,
    max_timeouts: int | None = None,
) -> Match:
    """Create a match with a secret seed; only its commitment is public until the end."""
    try:
        engine_variant = variants.get(variant)
        options = engine_variant.validate_options(options or {})
    except ValueError as exc:
        raise DomainError(str(exc), code="invalid_options") from exc
    if len({p.pk for p in players}) != len(players):
        raise DomainError("A player can take only one seat.", code="duplicate_player")
    seed = seed or games.new_seed()
    try:
        game = games.new_game(variant, len(players), seed, options)
    except ValueError as exc:
        raise DomainError(str(exc), code="invalid_players") from exc
    fee = room.entry_fee if room else 0
    with transaction.atomic():
        match = Match.objects.create(
            room=room,
            variant=variant,
            options=options,
            players=len(players),
            seed=seed,
            commitment=games.commitment(seed),
            to_move=game.to_move,
            state=games.dump(game),
            entry_fee=fee,
            turn_seconds=turn_seconds or (room.turn_seconds if room else 60),
            max_timeouts=max_timeouts or (room.max_timeouts if room else 3),
        )
        Seat.objects.bulk_create(
            Seat(match=match, index=index, player=player) for index, player in enumerate(players)
        )
        if fee:
            for player in players:
                if not player.is_bot:
                    coins_book(
                        player_id=player.pk,
                        amount=-fee,
                        reason=f"Entry fee, match {match.pk}",
                        key=f"match:{match.pk}:fee",
                    )
        _schedule_turn(match, players[game.to_move] if game.to_move is not None else None)
        match.save(update_fields=["turn_deadline"])
    return match


def match_act(*, match_id: int, player: Player, seq: int, action: dict) -> Match:
    """Apply one player action, validated by the engine against the current state.

    Returns the match with its seats (and their players) loaded, ready for a view.
    """
    with transaction.atomic():
        # The match row serialises every write to one match across processes.
        match = (
            Match.objects.select_for_update(of=("self",))
            .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("player")))
            .filter(pk=match_id)
            .first()
        )
        seat = (
            next((s for s in match.seats.all() if s.player_id == player.pk), None)
            if match
            else None
        )
        if match is None or seat is None:
            raise NotFound("No such match.")
        if match.status != Match.Status.ACTIVE:
            raise Conflict("The match is over.", code="match_over")
        if seq != match.seq:
            raise Conflict(
                f"The match is at move {match.seq}, not {seq}.",
                code="stale_seq",
                details={"seq": match.seq},
            )
        if match.to_move != seat.index:
            raise NotAllowed("It is not your turn.", code="not_your_turn")
        if not isinstance(action, dict):
            raise IllegalMove("An action is a JSON object.", code="bad_action")
        game = games.load(match)
        _apply(match, game, [(seat.index, action, False)])
    return match


def _apply(match: Match, game, actions: Iterable[tuple[int, dict, bool]]) -> None:
    """Apply actions in order, append them to the log and store the new state."""
    moves = []
    for seat_index, action, automatic in actions:
        try:
            game.apply(action, seat=seat_index)
        except IllegalAction as exc:
            raise IllegalMove(exc.message, code=exc.code) from None
        move = {"seat": seat_index, "action": action}
        moves.append({**move, "auto": True} if automatic else move)
    _log_and_store(match, game, moves)


def _log_and_store(match: Match, game, moves: list[dict]) -> None:
    """Append already-applied moves to the log and store the state they led to.

    The caller holds the match row lock, so appending in Python cannot lose a move.
    """
    match.log = [*match.log, *moves]
    match.seq = game.seq
    match.to_move = game.to_move
    match.state = games.dump(game)
    fields = ["log", "seq", "to_move", "state", "turn_deadline"]
    if game.over:
        match.status = Match.Status.FINISHED
        match.result = game.result
        match.finished_at = timezone.now()
        match.turn_deadline = None
        fields += ["status", "result", "finished_at"]
        _record_placements(match, game.result)
        match_id = match.pk
        transaction.on_commit(lambda: _finalize_later(match_id))
    else:
        to_move = next(seat for seat in match.seats.all() if seat.index == game.to_move)
        _schedule_turn(match, to_move.player)
    match.save(update_fields=fields)


def _record_placements(match: Match, result: dict) -> None:
    seats = list(match.seats.all())
    for seat in seats:
        seat.score = result["scores"][seat.index]
        seat.placement = result["placements"][seat.index]
    Seat.objects.bulk_update(seats, ["score", "placement"])


def _schedule_turn(match: Match, player: Player | None) -> None:
    """After commit: a bot's turn goes to a worker, a human's turn gets a timeout task.

    Every turn gets a deadline in the row too, so the sweep task redoes the work of a
    task that was lost (a worker killed mid-task, a broker restart).
    """
    from gameplay import tasks  # tasks import services; the cycle is broken here

    match_id, seq = match.pk, match.seq
    if player is None:
        match.turn_deadline = None
    elif player.is_bot:
        match.turn_deadline = timezone.now() + BOT_TURN_GRACE
        transaction.on_commit(lambda: tasks.play_bots.delay(match_id))
    else:
        match.turn_deadline = timezone.now() + timedelta(seconds=match.turn_seconds)
        transaction.on_commit(
            lambda: tasks.turn_timeout.apply_async((match_id, seq), countdown=match.turn_seconds)
        )


def _finalize_later(match_id: int) -> None:
    from gameplay import tasks

    tasks.finalize_match.delay(match_id)


def match_play_bots(*, match_id: int, max_actions: int = 5000) -> int:
    """Play every consecutive bot turn in one transaction; returns how many were played."""
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None or match.status != Match.Status.ACTIVE:
            return 0
        bots = dict(
            Seat.objects.filter(match=match, player__is_bot=True).values_list(
                "index", "player__bot_kind"
            )
        )
        if match.to_move not in bots:
            return 0
        game = games.load(match)
        engine_variant = variants.get(match.variant)
        moves = []
        while not game.over and game.to_move in bots and len(moves) < max_actions:
            seat = game.to_move
            action = engine_variant.bot_action(game, seat, bot=bots[seat])
            # A bot choosing an illegal action is a bug: let IllegalAction surface.
            game.apply(action, seat=seat)
            moves.append({"seat": seat, "action": action})
        _log_and_store(match, game, moves)
        return len(moves)


def match_timeout(*, match_id: int, seq: int) -> str:
    """A human missed the turn deadline: play a safe action for them, or forfeit them."""
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None or match.status != Match.Status.ACTIVE or match.seq != seq:
            return "moved_on"
        if match.turn_deadline is None or match.turn_deadline > timezone.now():
            return "not_due"
        seat = (
            Seat.objects.select_for_update()
            .select_related("player")
            .get(match=match, index=match.to_move)
        )
        if seat.player.is_bot:
            match_play_bots(match_id=match_id)
            return "bots_played"
        seat.timeouts += 1
        seat.save(update_fields=["timeouts"])
        if seat.timeouts >= match.max_timeouts:
            match_forfeit(match=match, seat_index=seat.index, reason="timeouts")
            return "forfeited"
        game = games.load(match)
        action = variants.get(match.variant).bot_action(game, seat.index, bot="greedy")
        _apply(match, game, [(seat.index, action, True)])
        return "auto_played"


def match_forfeit(*, match: Match, seat_index: int, reason: str) -> None:
    """End an active match with one seat forfeiting (timeouts, walkover, disqualification).

    Must run inside the caller's transaction holding the match lock. The forfeiter
    places last; the others keep their order by the match score so far.
    """
    if match.status != Match.Status.ACTIVE:
        raise Conflict("The match is over.", code="match_over")
    game = games.load(match)
    scores = game.view(None)["scores"]
    others = [i for i in range(match.players) if i != seat_index]
    lower_wins = match.variant in LOWER_SCORE_WINS
    others.sort(key=lambda i: scores[i] if lower_wins else -scores[i])
    placements = [0] * match.players
    rank = 0
    for position, index in enumerate(others):
        if position == 0 or scores[index] != scores[others[position - 1]]:
            rank = position + 1
        placements[index] = rank
    placements[seat_index] = match.players
    result = {
        "winner": others[0] if placements[others[0]] == 1 and placements.count(1) == 1 else None,
        "scores": scores,
        "placements": placements,
        "forfeit": {"seat": seat_index, "reason": reason, "seq": match.seq},
    }
    match.status = Match.Status.FINISHED
    match.result = result
    match.finished_at = timezone.now()
    match.turn_deadline = None
    match.to_move = None
    match.save(update_fields=["status", "result", "finished_at", "turn_deadline", "to_move"])
    Seat.objects.filter(match=match, index=seat_index).update(forfeited=True)
    _record_placements(match, result)
    match_id = match.pk
    transaction.on_commit(lambda: _finalize_later(match_id))


def match_verify(*, match: Match) -> str | None:
    """Replay the move log from the seed; None when it reproduces the stored result."""
    try:
        replayed = games.replay(match)
    except IllegalAction as exc:
        return f"move log does not replay: {exc.code}: {exc.message}"
    if replayed.seq != match.seq:
        return f"replay reached move {replayed.seq}, stored {match.seq}"
    forfeit = (match.result or {}).get("forfeit")
    if forfeit:
        if replayed.over or forfeit["seq"] != match.seq:
            return "forfeit recorded for a match the log shows as over or elsewhere"
        return None
    if not replayed.over:
        return "replay does not end the match"
    if replayed.result != match.result:
        return "replayed result differs from the stored result"
    return None


def match_finalize(*, match_id: int) -> bool:
    """Verify a finished match by replay, then award everything, exactly once.

    Returns True only for the call that did the awarding; a duplicate delivery or a
    concurrent call finds `finalized_at` set under the lock and returns False.
    """
    with transaction.atomic(durable=True):
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None or match.finalized_at or match.status != Match.Status.FINISHED:
            return False
        match.finalized_at = timezone.now()
        problem = match_verify(match=match)
        if problem:
            match.status = Match.Status.DISPUTED
            match.dispute_reason = problem
            match.save(update_fields=["status", "dispute_reason", "finalized_at"])
            logger.error("match %s disputed: %s", match.pk, problem)
            transaction.on_commit(
                lambda: mail_admins(
                    f"Knock: match {match_id} disputed", problem, fail_silently=True
                )
            )
            return False
        match.save(update_fields=["finalized_at"])
        seats = list(match.seats.select_related("player"))
        ratings_update(match=match, seats=seats)
        _award(match, seats)
    transaction.on_commit(lambda: match_finished.send(sender=Match, match_id=match_id))
    return True


def _award(match: Match, seats: list[Seat]) -> None:
    """Counters, XP, winnings and unlocks for every seat, batched across the table."""
    xp = settings.KNOCK_XP
    stats = (match.result or {}).get("stats") or [{} for _ in seats]
    winners = [seat for seat in seats if seat.placement == 1]
    pot = match.entry_fee * sum(1 for seat in seats if not seat.player.is_bot)
    human_winners = [seat for seat in winners if not seat.player.is_bot]
    before = metrics_of_many(seat.player_id for seat in seats)
    after: dict[int, dict[str, int]] = {}
    amounts: dict[int, int] = {}
    for seat in seats:
        mine = stats[seat.index] if seat.index < len(stats) else {}
        won = seat.placement == 1 and len(winners) == 1
        values = before[seat.player_id]
        counts = {
            Metric.MATCHES_PLAYED: 1,
            Metric.MATCHES_WON: int(won),
            Metric.HANDS_WON: mine.get("hands_won", 0),
            Metric.GINS: mine.get("gins", 0),
            Metric.BIG_GINS: mine.get("big_gins", 0),
            Metric.UNDERCUTS: mine.get("undercuts", 0),
        }
        updated = {m: values.get(m, 0) + n for m, n in counts.items() if n}
        streak = values.get(Metric.WIN_STREAK, 0) + 1 if won else 0
        updated[Metric.WIN_STREAK] = streak
        updated[Metric.BEST_WIN_STREAK] = max(streak, values.get(Metric.BEST_WIN_STREAK, 0))
        after[seat.player_id] = updated
        amounts[seat.player_id] = (
            xp["played"]
            + xp["won"] * int(won)
            + xp["hand_won"] * mine.get("hands_won", 0)
            + xp["gin"] * mine.get("gins", 0)
            + xp["big_gin"] * mine.get("big_gins", 0)
            + xp["undercut"] * mine.get("undercuts", 0)
        )
    metrics_write_many(values=after)
    xp_grant_many(amounts=amounts, reason=f"Match {match.pk}", key=f"match:{match.pk}")
    if pot:
        for seat in human_winners:
            coins_book(
                player_id=seat.player_id,
                amount=pot // len(human_winners),
                reason=f"Winnings, match {match.pk}",
                key=f"match:{match.pk}:pot",
            )
    progress_evaluate_many(player_ids=[seat.player_id for seat in seats])
