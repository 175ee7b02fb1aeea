"""Finalizing finished matches: verify by replay, then ratings, counters, XP, winnings and
unlocks, exactly once, and announce `match_finished` for tournaments and leagues in the
same transaction."""

import logging
from collections import defaultdict
from collections.abc import Iterable

from django.conf import settings
from django.core.mail import mail_admins
from django.db import transaction
from django.utils import timezone

from config import metrics
from config.db import bulk_update
from config.jobs import enqueue
from engine import IllegalAction
from gameplay import games, jobs
from gameplay.events import match_finished
from gameplay.models import HouseAccount, Match, Metric, Seat
from gameplay.services.common import BalanceOverflow
from gameplay.services.progression import (
    XpGrant,
    coins_book,
    house_book,
    metrics_of_many,
    metrics_write_many,
    progress_evaluate_many,
    xp_grant_many,
)
from gameplay.services.ratings import ratings_update

logger = logging.getLogger(__name__)


def match_verify(*, match: Match) -> str | None:
    """Replay the move log from the seed; None when it reproduces the stored result."""
    try:
        replayed = games.replay(match)
    except IllegalAction as exc:
        return f"move log does not replay: {exc.code}: {exc.message}"
    except ValueError as exc:  # a stored move of the wrong shape, which no writer makes
        return f"move log does not replay: {exc}"
    if replayed.seq != match.seq:
        return f"replay reached move {replayed.seq}, stored {match.seq}"
    forfeit = (match.result or {}).get("forfeit")
    # A resign is an engine move: its replay ends the match with the stored result. The
    # server's forfeits (timeouts, walkovers, disqualifications) stop a match the log
    # leaves unfinished, at the seq where they were recorded.
    if forfeit and not replayed.over:
        if forfeit["seq"] != match.seq:
            return "forfeit recorded elsewhere than where the log stops"
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
        finalized = [match.pk for match in verified]
        if finalized:
            # Inside the transaction: the receivers' jobs commit with the results, so a
            # failure after the commit cannot leave finalized matches unannounced.
            match_finished.send(sender=Match, match_ids=finalized)
            # The fair-play tallies count each finalized match with people once, off the
            # hot path; a table of bots only has nothing to count.
            with_people = [
                match.pk
                for match in verified
                if any(not seat.player.is_bot for seat in seats_of[match.pk])
            ]
            if with_people:
                enqueue(jobs.RECORD_FAIR_PLAY, *with_people)
    for match in matches:
        outcome = (
            "disputed"
            if match.dispute_reason
            else "forfeit"
            if "forfeit" in (match.result or {})
            else "played"
        )
        metrics.MATCHES_FINISHED.labels(match.variant, outcome).inc()
    for match in disputed:
        logger.error("match %s disputed: %s", match.pk, match.dispute_reason)
        mail_admins(f"Knock: match {match.pk} disputed", match.dispute_reason, fail_silently=True)
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
        # XP pays for matches played: one ended by a forfeit (timeouts, a walkover, a
        # disqualification) pays nobody, and the forfeiter has not played it.
        forfeited = bool((match.result or {}).get("forfeit"))
        for seat in seats:
            mine = stats[seat.index] if seat.index < len(stats) else {}
            won = seat.placement == 1 and len(winners) == 1
            before = values[seat.player_id]
            counts = {
                Metric.MATCHES_PLAYED: int(not seat.forfeited),
                Metric.MATCHES_WON: int(won),
                Metric.HANDS_WON: mine.get("hands_won", 0),
                Metric.HANDS_LOST: mine.get("hands_lost", 0),
                Metric.GINS: mine.get("gins", 0),
                Metric.BIG_GINS: mine.get("big_gins", 0),
                Metric.UNDERCUTS: mine.get("undercuts", 0),
            }
            updated = {m: before.get(m, 0) + n for m, n in counts.items() if n}
            streak = before.get(Metric.WIN_STREAK, 0) + 1 if won else 0
            best = max(streak, before.get(Metric.BEST_WIN_STREAK, 0))
            # A streak that stays at 0, or a best it does not pass, is no row to write.
            for metric, value in ((Metric.WIN_STREAK, streak), (Metric.BEST_WIN_STREAK, best)):
                if value != before.get(metric, 0):
                    updated[metric] = value
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
            if not forfeited:
                grants.append(
                    XpGrant(seat.player_id, amount, f"Match {match.pk}", f"match:{match.pk}")
                )
        _pay_winnings(match, seats, winners)
    metrics_write_many(values=changed)
    xp_grant_many(grants=grants)
    progress_evaluate_many(player_ids=sorted(changed))


def _pay_winnings(match: Match, seats: list[Seat], winners: list[Seat]) -> None:
    """The humans' entry fees go to the human winners, split evenly."""
    pot = match.entry_fee * sum(1 for seat in seats if not seat.player.is_bot)
    human_winners = [seat for seat in winners if not seat.player.is_bot]
    for seat in human_winners if pot else ():
        pay_or_keep(
            player_id=seat.player_id,
            amount=pot // len(human_winners),
            reason=f"Winnings, match {match.pk}",
            key=f"match:{match.pk}:pot",
        )


def pay_or_keep(*, player_id: int, amount: int, reason: str, key: str) -> bool:
    """Pay coins a player won; what their balance cannot take goes to the house account.

    A payout runs in a transaction that finishes a match or a tournament: raising would
    roll it back for the sweep to retry forever, so a refused booking is logged and the
    coins are kept by the house instead (the ledger still accounts for every coin).
    """
    try:
        coins_book(player_id=player_id, amount=amount, reason=reason, key=key)
    except BalanceOverflow as exc:
        logger.warning("payout %s to player %s kept by the house: %s", key, player_id, exc)
        house_book(
            account=HouseAccount.HOUSE,
            amount=amount,
            reason=f"Unpaid (balance full): {reason}"[:120],
            key=f"{key}:player:{player_id}",
        )
        return False
    return True
