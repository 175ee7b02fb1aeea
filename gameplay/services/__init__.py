"""Every write in gameplay: one function per use case, keyword-only.

Exactly-once rules: each award carries an idempotency key that a unique constraint
guards, and state that advances (a match, a balance) is locked with select_for_update
and checked again after the lock.
"""

import logging
from collections import defaultdict
from collections.abc import Iterable
from datetime import timedelta
from typing import NamedTuple

from django.conf import settings
from django.core.mail import mail_admins
from django.db import transaction
from django.db.models import Prefetch
from django.utils import timezone

from config.db import bulk_update
from config.errors import Conflict, DomainError, NotAllowed, NotFound
from config.jobs import enqueue
from engine import IllegalAction, variants
from gameplay import games
from gameplay.events import match_finished
from gameplay.models import (
    Match,
    Metric,
    Player,
    QueueEntry,
    Room,
    Seat,
)
from gameplay.services.accounts import bot_players, player_for_user, player_register
from gameplay.services.common import IllegalMove, InsufficientCoins
from gameplay.services.progression import (
    XpGrant,
    coins_book,
    metric_set,
    metrics_add,
    metrics_of,
    metrics_of_many,
    metrics_write,
    metrics_write_many,
    progress_evaluate,
    progress_evaluate_many,
    reward_grant,
    title_display,
    title_grant,
    xp_grant,
    xp_grant_many,
)
from gameplay.services.ratings import RATING_MODEL, rating_ordinal, ratings_update

logger = logging.getLogger(__name__)

# A bot's turn not played by then was lost with its task; the sweep plays it.
BOT_TURN_GRACE = timedelta(seconds=30)
# Variants whose totals are penalty points: the lowest total ranks first.
LOWER_SCORE_WINS = {"indian"}


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

# What storing a match after moves writes: the same columns whether it finished or not.
STORED_FIELDS = [
    "log",
    "seq",
    "to_move",
    "state",
    "turn_deadline",
    "status",
    "result",
    "finished_at",
]


class NewMatch(NamedTuple):
    variant: str
    options: dict
    players: list[Player]
    room: Room | None = None
    seed: str | None = None
    turn_seconds: int | None = None
    max_timeouts: int | None = None


def match_create(**spec) -> Match:
    """Create a match with a secret seed; only its commitment is public until the end.

    Keywords are those of `NewMatch`.
    """
    return match_create_many(specs=[NewMatch(**spec)])[0]


def match_create_many(*, specs: list[NewMatch]) -> list[Match]:
    """Create matches in a few queries (a tournament round starts many at once)."""
    dealt = []
    for spec in specs:
        try:
            options = variants.get(spec.variant).validate_options(spec.options or {})
        except ValueError as exc:
            raise DomainError(str(exc), code="invalid_options") from exc
        if len({p.pk for p in spec.players}) != len(spec.players):
            raise DomainError("A player can take only one seat.", code="duplicate_player")
        seed = spec.seed or games.new_seed()
        try:
            game = games.new_game(spec.variant, len(spec.players), seed, options)
        except ValueError as exc:
            raise DomainError(str(exc), code="invalid_players") from exc
        room = spec.room
        match = Match(
            room=room,
            variant=spec.variant,
            options=options,
            players=len(spec.players),
            seed=seed,
            commitment=games.commitment(seed),
            to_move=game.to_move,
            state=games.dump(game),
            entry_fee=room.entry_fee if room else 0,
            turn_seconds=spec.turn_seconds or (room.turn_seconds if room else 60),
            max_timeouts=spec.max_timeouts or (room.max_timeouts if room else 3),
        )
        to_move = spec.players[game.to_move] if game.to_move is not None else None
        dealt.append((match, spec.players, to_move))
    with transaction.atomic():
        matches = Match.objects.bulk_create(_with_deadline(m, to_move) for m, _, to_move in dealt)
        Seat.objects.bulk_create(
            Seat(match=match, index=index, player=player)
            for match, players, _ in dealt
            for index, player in enumerate(players)
        )
        for match, players, _ in dealt:
            for player in players if match.entry_fee else ():
                if not player.is_bot:
                    coins_book(
                        player_id=player.pk,
                        amount=-match.entry_fee,
                        reason=f"Entry fee, match {match.pk}",
                        key=f"match:{match.pk}:fee",
                    )
        _enqueue_turns([(match, to_move) for match, _, to_move in dealt])
    return matches


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
    _store_many([(match, game, moves)])


def _store_many(played: list[tuple[Match, object, list[dict]]]) -> None:
    """Append already-applied moves to each match's log and store the state they led to.

    The caller holds the match row locks (and has the seats loaded), so appending in
    Python cannot lose a move. Finished matches go to finalize in one task.
    """
    now = timezone.now()
    finished, placed, turns = [], [], []
    for match, game, moves in played:
        match.log = [*match.log, *moves]
        match.seq, match.to_move, match.state = game.seq, game.to_move, games.dump(game)
        if game.over:
            match.status = Match.Status.FINISHED
            match.result = game.result
            match.finished_at = now
            match.turn_deadline = None
            placed += _placed_seats(match, game.result)
            finished.append(match.pk)
        else:
            to_move = next(seat for seat in match.seats.all() if seat.index == game.to_move)
            turns.append((_with_deadline(match, to_move.player), to_move.player))
    bulk_update([match for match, _, _ in played], STORED_FIELDS)
    if placed:
        bulk_update(placed, ["score", "placement"])
    _enqueue_turns(turns)
    if finished:
        _finalize_later(finished)


def _placed_seats(match: Match, result: dict) -> list[Seat]:
    seats = list(match.seats.all())
    for seat in seats:
        seat.score = result["scores"][seat.index]
        seat.placement = result["placements"][seat.index]
    return seats


def _with_deadline(match: Match, player: Player | None) -> Match:
    """Every turn gets a deadline in its row, so the sweep task redoes the work of a task
    that was lost (a worker killed mid-task, a broker restart)."""
    if player is None:
        match.turn_deadline = None
    elif player.is_bot:
        match.turn_deadline = timezone.now() + BOT_TURN_GRACE
    else:
        match.turn_deadline = timezone.now() + timedelta(seconds=match.turn_seconds)
    return match


def _enqueue_turns(turns: list[tuple[Match, Player | None]]) -> None:
    """After commit: bot turns go to a worker in one task, each human turn gets a timeout."""
    bot_turns = [match.pk for match, player in turns if player is not None and player.is_bot]
    if bot_turns:
        enqueue("gameplay.tasks.play_bots", *bot_turns)
    for match, player in turns:
        if player is not None and not player.is_bot:
            enqueue(
                "gameplay.tasks.turn_timeout", match.pk, match.seq, countdown=match.turn_seconds
            )


def _finalize_later(match_ids: list[int]) -> None:
    enqueue("gameplay.tasks.finalize_match", *match_ids)


def match_play_bots(*, match_id: int, max_actions: int = 5000) -> int:
    """Play every consecutive bot turn in one transaction; returns how many were played."""
    return match_play_bots_many(match_ids=[match_id], max_actions=max_actions).get(match_id, 0)


def match_play_bots_many(*, match_ids: Iterable[int], max_actions: int = 5000) -> dict[int, int]:
    """Play every consecutive bot turn of each match in one transaction.

    Returns how many moves were played per match; a match that is over, or whose turn
    is a human's, plays none.
    """
    with transaction.atomic():
        matches = (
            Match.objects.select_for_update()
            .filter(pk__in=list(match_ids), status=Match.Status.ACTIVE)
            .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("player")))
            .order_by("pk")  # locks taken in one order: two batches never deadlock
        )
        played = []
        for match in matches:
            bots = {
                seat.index: seat.player.bot_kind for seat in match.seats.all() if seat.player.is_bot
            }
            if match.to_move not in bots:
                continue
            game = games.load(match)
            engine_variant = variants.get(match.variant)
            moves = []
            while not game.over and game.to_move in bots and len(moves) < max_actions:
                seat = game.to_move
                action = engine_variant.bot_action(game, seat, bot=bots[seat])
                # A bot choosing an illegal action is a bug: let IllegalAction surface.
                game.apply(action, seat=seat)
                moves.append({"seat": seat, "action": action})
            played.append((match, game, moves))
        if played:
            _store_many(played)
    return {match.pk: len(moves) for match, _, moves in played}


def match_timeout(*, match_id: int, seq: int) -> str:
    """A human missed the turn deadline: play a safe action for them, or forfeit them."""
    with transaction.atomic():
        match = (
            Match.objects.select_for_update(of=("self",))
            .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("player")))
            .filter(pk=match_id)
            .first()
        )
        if match is None or match.status != Match.Status.ACTIVE or match.seq != seq:
            return "moved_on"
        if match.turn_deadline is None or match.turn_deadline > timezone.now():
            return "not_due"
        seat = next(seat for seat in match.seats.all() if seat.index == match.to_move)
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
    seats = _placed_seats(match, result)
    for seat in seats:
        seat.forfeited = seat.forfeited or seat.index == seat_index
    bulk_update(seats, ["score", "placement", "forfeited"])
    match_id = match.pk
    _finalize_later([match_id])


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

    True only for the call that did the awarding (see `match_finalize_many`).
    """
    return match_id in match_finalize_many(match_ids=[match_id])


def match_finalize_many(*, match_ids: Iterable[int]) -> set[int]:
    """Verify finished matches by replay, then award everything, exactly once, together.

    Returns the ids this call finalized: a duplicate delivery or a concurrent call waits
    for the row locks, then no longer finds those matches unfinalized. A match whose log
    does not reproduce its result is disputed (and admins are mailed) instead.
    """
    with transaction.atomic(durable=True):
        matches = list(
            Match.objects.select_for_update()
            .filter(pk__in=list(match_ids), status=Match.Status.FINISHED, finalized_at=None)
            .defer("state")  # the replay starts from the seed
            .order_by("pk")
        )
        now = timezone.now()
        verified, disputed = [], []
        for match in matches:
            match.finalized_at = now
            match.dispute_reason = match_verify(match=match) or ""
            if match.dispute_reason:
                match.status = Match.Status.DISPUTED
                disputed.append(match)
            else:
                verified.append(match)
        if matches:
            bulk_update(matches, ["status", "dispute_reason", "finalized_at"])
        seats_of = defaultdict(list)
        for seat in (
            Seat.objects.filter(match__in=verified)
            .select_related("player")
            .order_by("match_id", "index")
        ):
            seats_of[seat.match_id].append(seat)
        ratings_update(matches=verified, seats_of=seats_of)
        _award(verified, seats_of)
    for match in disputed:
        logger.error("match %s disputed: %s", match.pk, match.dispute_reason)
        mail_admins(f"Knock: match {match.pk} disputed", match.dispute_reason, fail_silently=True)
    finalized = [match.pk for match in verified]
    if finalized:
        match_finished.send(sender=Match, match_ids=finalized)
    return set(finalized)


def _award(matches: list[Match], seats_of: dict[int, list[Seat]]) -> None:
    """Counters, XP, winnings and unlocks for every seat of these matches, in a few queries.

    Counters carry over from one match to the next for a player seated in both.
    """
    xp = settings.KNOCK_XP
    values = metrics_of_many(seat.player_id for match in matches for seat in seats_of[match.pk])
    changed: dict[int, dict[str, int]] = defaultdict(dict)
    grants = []
    for match in matches:
        seats = seats_of[match.pk]
        stats = (match.result or {}).get("stats") or [{} for _ in seats]
        winners = [seat for seat in seats if seat.placement == 1]
        for seat in seats:
            mine = stats[seat.index] if seat.index < len(stats) else {}
            won = seat.placement == 1 and len(winners) == 1
            before = values[seat.player_id]
            counts = {
                Metric.MATCHES_PLAYED: 1,
                Metric.MATCHES_WON: int(won),
                Metric.HANDS_WON: mine.get("hands_won", 0),
                Metric.GINS: mine.get("gins", 0),
                Metric.BIG_GINS: mine.get("big_gins", 0),
                Metric.UNDERCUTS: mine.get("undercuts", 0),
            }
            updated = {m: before.get(m, 0) + n for m, n in counts.items() if n}
            streak = before.get(Metric.WIN_STREAK, 0) + 1 if won else 0
            updated[Metric.WIN_STREAK] = streak
            updated[Metric.BEST_WIN_STREAK] = max(streak, before.get(Metric.BEST_WIN_STREAK, 0))
            before.update(updated)
            changed[seat.player_id].update(updated)
            amount = (
                xp["played"]
                + xp["won"] * int(won)
                + xp["hand_won"] * mine.get("hands_won", 0)
                + xp["gin"] * mine.get("gins", 0)
                + xp["big_gin"] * mine.get("big_gins", 0)
                + xp["undercut"] * mine.get("undercuts", 0)
            )
            grants.append(XpGrant(seat.player_id, amount, f"Match {match.pk}", f"match:{match.pk}"))
        _pay_winnings(match, seats, winners)
    metrics_write_many(values=changed)
    xp_grant_many(grants=grants)
    progress_evaluate_many(player_ids=sorted(changed))


def _pay_winnings(match: Match, seats: list[Seat], winners: list[Seat]) -> None:
    """The humans' entry fees go to the human winners, split evenly."""
    pot = match.entry_fee * sum(1 for seat in seats if not seat.player.is_bot)
    human_winners = [seat for seat in winners if not seat.player.is_bot]
    for seat in human_winners if pot else ():
        coins_book(
            player_id=seat.player_id,
            amount=pot // len(human_winners),
            reason=f"Winnings, match {match.pk}",
            key=f"match:{match.pk}:pot",
        )


# NotAllowed, games and variants are not services: callers (the tests) have reached them
# through this package since it was one module.
__all__ = [
    "LOWER_SCORE_WINS",
    "RATING_MODEL",
    "IllegalMove",
    "InsufficientCoins",
    "NewMatch",
    "NotAllowed",
    "XpGrant",
    "bot_players",
    "coins_book",
    "games",
    "match_act",
    "match_create",
    "match_create_many",
    "match_finalize",
    "match_finalize_many",
    "match_forfeit",
    "match_play_bots",
    "match_play_bots_many",
    "match_timeout",
    "match_verify",
    "metric_set",
    "metrics_add",
    "metrics_of",
    "metrics_of_many",
    "metrics_write",
    "metrics_write_many",
    "player_for_user",
    "player_register",
    "progress_evaluate",
    "progress_evaluate_many",
    "queue_leave",
    "queue_pair",
    "rating_ordinal",
    "ratings_update",
    "reward_grant",
    "room_check_access",
    "room_play",
    "title_display",
    "title_grant",
    "variants",
    "xp_grant",
    "xp_grant_many",
]
