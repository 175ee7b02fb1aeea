"""Celery tasks: thin, take ids, call a service, safe to run twice."""

from datetime import timedelta

from celery import shared_task
from django.db.models import Exists, OuterRef
from django.utils import timezone

from gameplay import jobs, services
from gameplay.models import Match, Room, Seat
from outbox.worker import RETRY


@shared_task(name=jobs.PLAY_BOTS, **RETRY)
def play_bots(*match_ids: int) -> int:
    """Bot turns of one or many matches (a tournament round's), in one transaction."""
    return sum(services.match_play_bots_many(match_ids=match_ids).values())


@shared_task(name=jobs.TURN_TIMEOUT, **RETRY)
def turn_timeout(match_id: int, seq: int) -> str:
    return services.match_timeout(match_id=match_id, seq=seq)


@shared_task(name=jobs.HAND_BREAK_END, **RETRY)
def hand_break_end(match_id: int, seq: int) -> str:
    """The rest between hands is over: play resumes (unless everyone was ready first)."""
    return services.match_hand_break_end(match_id=match_id, seq=seq)


@shared_task(name=jobs.FINALIZE_MATCH, **RETRY)
def finalize_match(*match_ids: int) -> int:
    """Finalize one or many finished matches; returns how many this delivery finalized."""
    return len(services.match_finalize_many(match_ids=match_ids))


@shared_task(name=jobs.RECORD_FAIR_PLAY, **RETRY)
def record_fair_play(*match_ids: int) -> int:
    """Count finalized matches into the fair-play tallies and signals (once each)."""
    return len(services.fair_play_record_many(match_ids=match_ids))


@shared_task
def pair_queued_players() -> int:
    rooms = (
        Room.objects.filter(active=True, queue__isnull=False)
        .distinct()
        .values_list("pk", flat=True)
    )
    for room_id in rooms:
        services.queue_pair(room_id=room_id)
    return len(rooms)


@shared_task
def sweep_turn_deadlines() -> int:
    """Beat: time out late humans, and redo work a job did not get done (the outbox runs
    every job; this is the backstop). Overdue bot turns go out as one batch, as they were
    played: one task per match would split a tournament's batches from then on."""
    now = timezone.now()
    bot_to_move = Seat.objects.filter(
        match=OuterRef("pk"), index=OuterRef("to_move"), player__is_bot=True
    )
    overdue = list(
        Match.objects.filter(status=Match.Status.ACTIVE, turn_deadline__lt=now)
        .annotate(bot=Exists(bot_to_move))
        .values_list("pk", "seq", "bot", "hand_break_until")
    )
    bots = [match_id for match_id, _, bot, rest in overdue if bot and rest is None]
    if bots:
        play_bots.delay(*bots)
    for match_id, seq, bot, rest in overdue:
        if rest is not None:
            hand_break_end.delay(match_id, seq)
        elif not bot:
            turn_timeout.delay(match_id, seq)
    unfinalized = list(
        Match.objects.filter(
            status=Match.Status.FINISHED,
            finalized_at__isnull=True,
            finished_at__lt=now - timedelta(minutes=1),
        ).values_list("pk", flat=True)
    )
    if unfinalized:
        finalize_match.delay(*unfinalized)
    return len(overdue) + len(unfinalized)
