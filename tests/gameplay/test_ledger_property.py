"""Every coin and XP point has its ledger row: after random mixes of room matches,
tournaments (entry fees, rake, sponsor budgets, withdrawals, cancellations, fewer
entries than planned) and league seasons, every balance equals its ledger, and every
finished or cancelled tournament's share of the prize pools is back to zero."""

import itertools
import os

import pytest
from django.db import transaction
from django.test import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameplay import services as gameplay
from gameplay.models import HouseAccount, Match
from gameplay.selectors import ledger_differences
from leagues import tasks as league_tasks
from leagues.models import Round
from tests.factories import PlayerFactory, RoomFactory
from tests.leagues.conftest import make_league, start
from tests.tournaments.helpers import (
    admin_organiser,
    bots,
    drive,
    humans,
    open_tournament,
    organiser,
    register_all,
)
from tournaments import services
from tournaments.models import Entry, Tournament

pytestmark = pytest.mark.django_db(transaction=True)

# Examples of 25 events each: hypothesis's first is the simplest (25 bot tables), the
# other four mix 100 random tournaments, leagues and matches (about 45 s on SQLite);
# KNOCK_LEDGER_EXAMPLES runs more, e.g. on PostgreSQL.
EXAMPLES = int(os.environ.get("KNOCK_LEDGER_EXAMPLES", "5"))
names = itertools.count()


def forfeit(match_id: int, seat_index: int) -> None:
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status == Match.Status.ACTIVE:
            gameplay.match_forfeit(match=match, seat_index=seat_index, reason="resigned")
    gameplay.match_finalize(match_id=match_id)


room_match = st.fixed_dictionaries(
    {
        "kind": st.just("room"),
        "fee": st.integers(0, 30),
        "people": st.integers(0, 2),
        "loser": st.integers(0, 1),
    }
)
tournament = st.fixed_dictionaries(
    {
        "kind": st.just("tournament"),
        "people": st.booleans(),
        "entries": st.integers(2, 6),
        "cap": st.integers(0, 4),
        "fee": st.integers(0, 40),
        "rake": st.sampled_from([0, 5, 10, 50]),
        "sponsor": st.sampled_from([0, 0, 25, 100]),
        "prizes": st.lists(st.integers(0, 60), max_size=3),
        "withdraw": st.integers(0, 2),
        "cancel": st.booleans(),
    }
)
league = st.fixed_dictionaries({"kind": st.just("league"), "size": st.sampled_from([2, 3, 4])})
events = st.lists(
    st.one_of(room_match, room_match, tournament, tournament, league), min_size=25, max_size=25
)


def play_room_match(event) -> None:
    room = RoomFactory(entry_fee=event["fee"], options={"target": 10})
    people = humans(event["people"], coins=event["fee"])
    players = [*people, *gameplay.bot_players(kind="greedy", count=2 - len(people))]
    match = gameplay.match_create(variant="gin", options=room.options, players=players, room=room)
    forfeit(match.pk, event["loser"])  # bots-only tables have already played it out


def play_tournament(event) -> None:
    fee = event["fee"] if event["people"] else 0
    cap = event["entries"] + event["cap"]
    with override_settings(KNOCK_TOURNAMENT_RAKE_PERCENT=event["rake"]):
        fees = fee * cap
        pool = fees - services.rake_of(fees) + event["sponsor"]
        prizes, left = [], pool
        for place, coins in enumerate(event["prizes"], start=1):
            coins = min(coins, left)
            prizes.append({"placement": place, "coins": coins, "xp": coins})
            left -= coins
        by = (
            admin_organiser(f"admin-{next(names)}")
            if event["sponsor"]
            else organiser(f"organiser-{next(names)}")
        )
        cup = open_tournament(
            by=by,
            name=f"Cup {next(names)}",
            entry_fee=fee,
            max_entries=cap,
            show_up_seconds=0,
            sponsor_coins=event["sponsor"],
            prizes=prizes,
        )
        entrants = (
            humans(event["entries"], coins=fee) if event["people"] else bots(event["entries"])
        )
        register_all(cup, entrants)
        for player in entrants[: event["withdraw"]]:
            services.entry_withdraw(tournament_id=cup.pk, player=player)
        if event["cancel"]:
            services.tournament_cancel(tournament_id=cup.pk, by=by)
            return
        if Entry.objects.filter(tournament=cup, status="registered").count() < 2:
            services.tournament_cancel(tournament_id=cup.pk, by=by)
            return
        services.tournament_start(tournament_id=cup.pk)
        for _ in range(40):
            drive(cup)  # the bots' matches; people resign at the second seat
            active = Match.objects.filter(
                status=Match.Status.ACTIVE, tournament_table__table__tournament=cup
            ).values_list("pk", flat=True)
            if not active:
                break
            for match_id in active:
                forfeit(match_id, 1)
                services.table_match_finished(match_id=match_id)
        cup.refresh_from_db()
        assert cup.status == Tournament.Status.FINISHED


def play_league(event) -> None:
    size = event["size"]
    members = [PlayerFactory(is_bot=True, bot_kind="greedy") for _ in range(size)]
    season = start(
        make_league(name=f"League {next(names)}", divisions=[("Only", size, 0, 0)]), members
    )
    for number in range(1, season.rounds + 1):
        opens_at = Round.objects.filter(season=season, number=number).first().opens_at
        league_tasks.open_due_rounds.delay(opens_at.isoformat())


PLAY = {"room": play_room_match, "tournament": play_tournament, "league": play_league}


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(events=events)
def test_every_balance_equals_its_ledger_after_random_play(events, eager_tasks):
    for event in events:
        PLAY[event["kind"]](event)
    assert ledger_differences() == []
    # Every tournament that is over has paid out or refunded everything it held.
    over = Tournament.objects.filter(status__in=["finished", "cancelled"])
    pools = HouseAccount.objects.filter(code__in=[services.pool_account(t.pk) for t in over])
    assert list(pools.exclude(coins=0).values_list("code", "coins")) == []
