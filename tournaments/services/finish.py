"""Finishing a tournament once its last round is played: placements, the champion, prizes."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Sum

from gameplay import services as gameplay
from gameplay.models import HouseAccount, Metric
from tournaments.formats.double_layout import DoubleLayout
from tournaments.formats.swiss_layout import SwissLayout
from tournaments.formats.two_stage_layout import TwoStageLayout
from tournaments.models import Entry, Prize, Table, TableSeat, Tournament, Webhook
from tournaments.services import groups, swiss, webhooks
from tournaments.services.common import (
    LEFT,
    Shape,
    _lock,
    _store_numbers,
    bracket_of,
    pool_account,
)
from tournaments.services.creation import rake_of


def _maybe_finish_tournament(tournament_id: int, now: datetime) -> None:
    # Final and third-place tables can end at once: the tournament lock lets the second
    # see the first's commit, so exactly one of them finishes the tournament.
    tournament = _lock(tournament_id)
    if tournament.status != Tournament.Status.RUNNING:
        return
    shape = bracket_of(tournament)
    if isinstance(shape, SwissLayout):
        if swiss.newest_round_over(tournament) is None:
            return
        if not swiss.pair_next_round(tournament, shape, now):
            _finish_swiss(tournament, now)
        return
    if isinstance(shape, TwoStageLayout):
        newest = swiss.newest_round_over(tournament)
        if newest is None:
            return  # the newest round is still being played
        if newest < shape.n_group_rounds:
            groups.next_group_round(tournament, shape, newest + 1, now)
            return
        if newest == shape.n_group_rounds:
            groups.draw_knockout(tournament, shape, now)
            return
    if (
        Table.objects.filter(tournament=tournament, round_number=shape.n_rounds)
        .exclude(status=Table.Status.DONE)
        .exists()
    ):
        return
    _finish_tournament(tournament, shape, now)


def _final_rounds(shape: Shape) -> tuple[int, ...]:
    """The rounds whose finishing order places the top entries: the final (with the
    third-place table), or both grand finals in double elimination."""
    if isinstance(shape, DoubleLayout | TwoStageLayout):
        return shape.final_rounds
    return (shape.n_rounds,)


def _finish_tournament(tournament: Tournament, shape: Shape, now: datetime) -> None:
    """Placements as the bracket defines them, then prizes, once (the status is the guard).

    Entries are ranked by how far they went (`Entry.out_round`), then by their finish in
    the final rounds; a grand final reset, when played, overrides the first grand final.
    """
    finals = _final_rounds(shape)
    within: dict[int, int] = {}
    for seat in TableSeat.objects.filter(
        table__tournament=tournament, table__round_number__in=finals, finish__isnull=False
    ).order_by("table__round_number"):
        within[seat.entry_id] = seat.finish
    forfeiters = set(
        TableSeat.objects.filter(table__tournament=tournament, forfeited=True).values_list(
            "entry_id", flat=True
        )
    )
    reached = list(
        Entry.objects.filter(tournament=tournament, seed__isnull=False).values_list(
            "pk", "out_round"
        )
    )
    unranked = tournament.table_size + 1

    def key(item):
        return (-(item[1] or 0), within.get(item[0], unranked))

    reached.sort(key=key)
    places: list[tuple[int, int]] = []
    for i, item in enumerate(reached):
        same = i and key(reached[i - 1]) == key(item)
        places.append((item[0], places[-1][1] if same else i + 1))
    _store_numbers(places, "placement")
    final_ranking = [
        s.entry_id
        for s in TableSeat.objects.filter(
            table__tournament=tournament,
            table__round_number__in=finals,
            table__third_place=False,
            finish__isnull=False,
        ).order_by("-table__round_number", "finish")
    ]
    champion = final_ranking[0] if final_ranking else None
    _close(tournament, champion, forfeiters, now)


def _finish_swiss(tournament: Tournament, now: datetime) -> None:
    """Placements are the standings' ranks (ties share one); the top of them is champion."""
    standings = swiss.swiss_standings(tournament)
    places = [(row.entry, row.rank) for row in standings]
    _store_numbers(places, "placement")
    forfeiters = set(
        TableSeat.objects.filter(table__tournament=tournament, forfeited=True).values_list(
            "entry_id", flat=True
        )
    )
    left = set(
        Entry.objects.filter(tournament=tournament, status__in=LEFT).values_list("pk", flat=True)
    )
    champion = next((row.entry for row in standings if row.entry not in left), None)
    _close(tournament, champion, forfeiters, now)


def _close(tournament, champion, forfeiters, now: datetime) -> None:
    """The entries' last statuses, the tournament finished, prizes and the champion's
    metrics: once, since the caller saw the tournament running under its lock."""
    Entry.objects.filter(tournament=tournament, status=Entry.Status.PLAYING).update(
        status=Entry.Status.ELIMINATED
    )
    if champion is not None:
        Entry.objects.filter(pk=champion).update(status=Entry.Status.CHAMPION)
    tournament.status = Tournament.Status.FINISHED
    tournament.finished_at = now
    tournament.save(update_fields=["status", "finished_at"])
    _grant_prizes(tournament, forfeiters)
    standings = Entry.objects.filter(tournament=tournament, placement__isnull=False)
    webhooks.announce(
        [
            webhooks.Event(
                tournament_id=tournament.pk,
                event=Webhook.Event.TOURNAMENT_FINISHED,
                key="finished",
                data={
                    "champion": champion,
                    "placements": [
                        {"entry": pk, "player": player, "placement": placement}
                        for pk, player, placement in standings.order_by(
                            "placement", "pk"
                        ).values_list("pk", "player_id", "placement")
                    ],
                },
            )
        ]
    )
    if champion is not None:
        player_id = Entry.objects.values_list("player_id", flat=True).get(pk=champion)
        gameplay.metrics_add(player_id=player_id, changes={Metric.TOURNAMENTS_WON: 1})
        gameplay.progress_evaluate(player_id=player_id)


def _grant_prizes(tournament: Tournament, forfeiters: set) -> None:
    """Pay each prize from the prize pool to every entry at its placement (whoever
    forfeited a seat wins nothing), then settle the pool.

    The pool is the entry fees held (in the tournament's house account, `pool_account`)
    less the rake, plus the sponsor budget. When the coin prizes won add up to more than
    the pool (fewer entries than planned, or a shared placement), every one is scaled down
    alike; the rake and whatever no prize took (or no balance could hold) go to the
    `house` account, so the tournament's pool ends at zero. Players' rows are booked
    first, the pool and `house` last: the lock order of every booking.
    """
    key = f"tournament:{tournament.pk}"
    fees = Entry.objects.filter(tournament=tournament).aggregate(held=Sum("fee_paid"))["held"] or 0
    held = fees + tournament.sponsor_coins
    pool = held - rake_of(fees)
    prizes = list(Prize.objects.filter(tournament=tournament).select_related("title", "reward"))
    entries = Entry.objects.filter(
        tournament=tournament, placement__in=[p.placement for p in prizes]
    ).select_related("player")
    won = [
        (prize, entry)
        for prize in prizes
        for entry in entries
        if entry.placement == prize.placement and entry.pk not in forfeiters
    ]
    wanted = sum(prize.coins for prize, _ in won)
    paid = 0
    for prize, entry in won:
        prize_key = f"{key}:prize:{prize.placement}"
        reason = f"{tournament.name}: place {prize.placement}"[:120]
        coins = prize.coins if wanted <= pool else prize.coins * pool // wanted
        if coins and gameplay.unless_full(
            gameplay.coins_book,
            player_id=entry.player_id,
            amount=coins,
            reason=reason,
            key=prize_key,
        ):
            paid += coins
        gameplay.unless_full(
            gameplay.xp_grant,
            player_id=entry.player_id,
            amount=prize.xp,
            reason=reason,
            key=prize_key,
        )
        if prize.title_id:
            gameplay.title_grant(player=entry.player, title=prize.title, reason=reason)
        if prize.reward_id:
            gameplay.unless_full(
                gameplay.reward_grant,
                player_id=entry.player_id,
                reward=prize.reward,
                reason=reason,
                key=prize_key,
            )
    _settle_pool(tournament, sponsor=tournament.sponsor_coins, paid=paid, kept=held - paid)


def _settle_pool(tournament: Tournament, *, sponsor: int, paid: int, kept: int) -> None:
    """The pool's rows for a finished tournament: the sponsor budget in (issued by
    `house`), the prizes paid out, and the rest (the rake, what no prize took) to `house`."""
    key, account = f"tournament:{tournament.pk}", pool_account(tournament.pk)
    name = tournament.name
    for amount, what, reason in (
        (sponsor, "sponsor", f"Sponsor budget, {name}"),
        (-paid, "prizes", f"Prizes paid, {name}"),
        (-kept, "kept", f"Rake and unpaid prizes, {name}"),
    ):
        if amount:
            gameplay.house_book(
                account=account, amount=amount, reason=reason[:120], key=f"{key}:{what}"
            )
    for amount, what, reason in (
        (-sponsor, "sponsor", f"Sponsor budget, {name}"),
        (kept, "kept", f"Rake and unpaid prizes, {name}"),
    ):
        if amount:
            gameplay.house_book(
                account=HouseAccount.HOUSE, amount=amount, reason=reason[:120], key=f"{key}:{what}"
            )
