"""Fair-play signals for admins: counted once per finalized match, never by scanning every
match. Each finished match adds to its players' and pairs' running tallies; a tally past a
threshold (settings.KNOCK_FAIR_PLAY) raises or updates a signal with its evidence. Nothing
is banned: an admin looks, and may mark the player."""

from collections.abc import Iterable
from itertools import combinations

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from engine import variants
from gameplay import games
from gameplay.models import (
    FairPlayPair,
    FairPlaySignal,
    FairPlayTally,
    LoginTrace,
    Match,
    Player,
    Seat,
)

RECENT = 20  # matches kept as evidence per tally


def login_trace_record(*, player, address: str | None, fingerprint: str) -> None:
    """Remember that `player` signed in from this address and client (one row per pair)."""
    LoginTrace.objects.update_or_create(
        player=player,
        address=address or None,
        fingerprint=fingerprint,
        defaults={"last_seen": timezone.now()},
    )


def fair_play_record_many(*, match_ids: Iterable[int]) -> set[int]:
    """Add these finalized matches to the tallies and refresh their signals, exactly once:
    the match rows are locked and stamped in the same transaction as the counts."""
    with transaction.atomic():
        matches = list(
            Match.objects.select_for_update()
            .filter(pk__in=list(match_ids), fair_play_at=None, finalized_at__isnull=False)
            .exclude(status=Match.Status.DISPUTED)
            .order_by("pk")
        )
        for match in matches:
            seats = list(
                Seat.objects.filter(match=match).select_related("player").order_by("index")
            )
            people = [seat for seat in seats if not seat.player.is_bot]
            _count_expert_agreement(match, people)
            _count_pairs(match, people)
            match.fair_play_at = timezone.now()
        Match.objects.bulk_update(matches, ["fair_play_at"])
    return {match.pk for match in matches}


def _count_expert_agreement(match: Match, people: list[Seat]) -> None:
    """Replay the match and ask the expert bot at every real choice a person made."""
    variant = variants.get(match.variant)
    if "expert" not in variant.bots or not people:
        return
    mine = {seat.index: seat for seat in people}
    decisions = dict.fromkeys(mine, 0)
    agreements = dict.fromkeys(mine, 0)
    game = variant.new(match.players, games.deal_seed(match), match.options)
    for move in match.log:
        seat = move["seat"]
        if seat in mine and not move.get("auto") and len(game.legal_actions(seat)) > 1:
            decisions[seat] += 1
            agreements[seat] += variant.bot_action(game, seat, "expert") == move["action"]
        game.apply(move["action"], seat)
    limits = settings.KNOCK_FAIR_PLAY
    for index, seat in mine.items():
        FairPlayTally.objects.bulk_create(
            [FairPlayTally(player=seat.player)], ignore_conflicts=True
        )
        tally = FairPlayTally.objects.select_for_update().get(player=seat.player)
        tally.decisions = F("decisions") + decisions[index]
        tally.expert_agreements = F("expert_agreements") + agreements[index]
        tally.recent_matches = [*tally.recent_matches, match.pk][-RECENT:]
        tally.save()
        tally.refresh_from_db()
        share = tally.expert_agreements / tally.decisions if tally.decisions else 0.0
        if (
            tally.decisions >= limits["expert_min_decisions"]
            and share >= limits["expert_agreement"]
        ):
            _raise(
                FairPlaySignal.Kind.EXPERT_AGREEMENT,
                seat.player,
                None,
                {
                    "decisions": tally.decisions,
                    "agreements": tally.expert_agreements,
                    "share": round(share, 3),
                    "threshold": limits["expert_agreement"],
                    "level": seat.player.level,
                },
                tally.recent_matches,
            )


def _count_pairs(match: Match, people: list[Seat]) -> None:
    """Meetings, wins and coins between every two people at the table, and whether they
    share an address or a client fingerprint."""
    limits = settings.KNOCK_FAIR_PLAY
    traces = {}
    for trace in LoginTrace.objects.filter(player__in=[seat.player for seat in people]):
        traces.setdefault(trace.player_id, set()).update(
            {("address", trace.address)} if trace.address else set()
        )
        if trace.fingerprint:
            traces[trace.player_id].add(("fingerprint", trace.fingerprint))
    for first, second in combinations(people, 2):
        low, high = sorted((first, second), key=lambda seat: seat.player_id)
        shared = traces.get(low.player_id, set()) & traces.get(high.player_id, set())
        low_won, high_won = low.placement == 1, high.placement == 1
        fee = match.entry_fee
        FairPlayPair.objects.bulk_create(
            [FairPlayPair(low=low.player, high=high.player)], ignore_conflicts=True
        )
        pair = FairPlayPair.objects.select_for_update().get(low=low.player, high=high.player)
        pair.meetings = F("meetings") + 1
        pair.low_wins = F("low_wins") + int(low_won and not high_won)
        pair.high_wins = F("high_wins") + int(high_won and not low_won)
        pair.coins_to_low = F("coins_to_low") + (fee if low_won and not high_won else 0)
        pair.coins_to_high = F("coins_to_high") + (fee if high_won and not low_won else 0)
        pair.shared_tables = F("shared_tables") + int(bool(shared))
        pair.recent_matches = [*pair.recent_matches, match.pk][-RECENT:]
        pair.save()
        pair.refresh_from_db()
        if shared and pair.shared_tables >= limits["shared_client_min_tables"]:
            _raise(
                FairPlaySignal.Kind.SHARED_CLIENT,
                low.player,
                high.player,
                {
                    "shared_tables": pair.shared_tables,
                    "shared": sorted(f"{kind} {value}" for kind, value in shared),
                },
                pair.recent_matches,
            )
        for winner, loser, wins, coins in (
            (low, high, pair.low_wins, pair.coins_to_low),
            (high, low, pair.high_wins, pair.coins_to_high),
        ):
            if (
                pair.meetings >= limits["pair_min_meetings"]
                and wins / pair.meetings >= limits["pair_win_share"]
            ):
                _raise(
                    FairPlaySignal.Kind.CHIP_DUMPING,
                    winner.player,
                    loser.player,
                    {
                        "meetings": pair.meetings,
                        "wins": wins,
                        "share": round(wins / pair.meetings, 3),
                        "threshold": limits["pair_win_share"],
                        "coins_to_winner": coins,
                    },
                    pair.recent_matches,
                )


def _raise(kind: str, player, other, evidence: dict, matches: list[int]) -> None:
    FairPlaySignal.objects.update_or_create(
        kind=kind,
        player=player,
        other=other,
        defaults={"evidence": evidence, "matches": matches, "updated_at": timezone.now()},
    )


def player_mark(*, player_ids: Iterable[int], note: str) -> int:
    """An admin's mark on players (empty note clears it); shown in the admin only."""
    return Player.objects.filter(pk__in=list(player_ids)).update(fair_play_mark=note[:200])
