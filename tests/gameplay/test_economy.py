"""The economy of matches: bounded balances, no wedged payout, no XP for an abandoned
match, one table per room, and the ledger reconciliation."""

from datetime import timedelta
from io import StringIO
from unittest import mock

import pytest
from django.core.management import CommandError, call_command
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from gameplay import services, tasks
from gameplay.models import BALANCE_MAX, HouseAccount, Match, Player, XpEntry
from gameplay.selectors import ledger_differences
from tests.concurrency import at_once
from tests.factories import AchievementFactory, PlayerFactory, RewardFactory, RoomFactory
from tests.gameplay.helpers import auth


def grant(player, amount: int, key: str = "grant") -> None:
    services.coins_book(player_id=player.pk, amount=amount, reason="test grant", key=key)


@pytest.fixture(autouse=True)
def unthrottled(monkeypatch):
    """These test the tables' limit, not the play rate limit."""
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "play", "1000/min")


# --- balances cannot overflow ----------------------------------------------------------------


@pytest.mark.django_db
def test_a_booking_past_the_bound_is_refused_and_moves_nothing():
    player = PlayerFactory()
    grant(player, BALANCE_MAX - 5)
    with pytest.raises(services.BalanceOverflow) as refused:
        grant(player, 6, key="one-too-many")
    assert refused.value.status_code == 400 and refused.value.code == "balance_overflow"
    player.refresh_from_db()
    assert player.coins == BALANCE_MAX - 5
    assert not player.coin_entries.filter(key="one-too-many").exists()
    grant(player, 5, key="exactly-full")
    player.refresh_from_db()
    assert player.coins == BALANCE_MAX
    services.xp_grant(player_id=player.pk, amount=BALANCE_MAX, reason="test", key="xp-full")
    with pytest.raises(services.BalanceOverflow):
        services.xp_grant(player_id=player.pk, amount=1, reason="test", key="xp-over")
    player.refresh_from_db()
    assert player.xp == BALANCE_MAX
    # The house may issue coins (sponsor budgets) down to minus the bound, no further.
    house = HouseAccount.HOUSE
    services.house_book(account=house, amount=BALANCE_MAX, reason="test", key="full")
    services.house_book(account=house, amount=-1, reason="test", key="less")
    with pytest.raises(services.BalanceOverflow):
        services.house_book(account=house, amount=-(2 * BALANCE_MAX), reason="test", key="over")
    assert HouseAccount.objects.get(code=house).coins == BALANCE_MAX - 1
    assert ledger_differences() == []


@pytest.mark.django_db
def test_a_pot_the_winner_cannot_hold_is_kept_by_the_house_and_finalize_completes():
    """The wedge of issue 24: a payout past the column (DataError) or the bound rolled the
    whole finalize back, for the sweep to retry it forever."""
    rich, other = PlayerFactory(), PlayerFactory()
    grant(rich, BALANCE_MAX - 2)
    grant(other, 100)
    room = RoomFactory(entry_fee=10)
    with (
        mock.patch.object(tasks.play_bots, "delay"),
        mock.patch.object(tasks.finalize_match, "delay"),
        transaction.atomic(),
    ):
        match = services.match_create(
            variant="gin", options={"target": 25}, players=[rich, other], room=room
        )
        match = Match.objects.select_for_update().get(pk=match.pk)
        services.match_forfeit(match=match, seat_index=1, reason="test")
    assert services.match_finalize(match_id=match.pk) is True
    rich.refresh_from_db()
    assert rich.coins == BALANCE_MAX - 12  # paid the fee; the pot of 20 did not fit
    house = HouseAccount.objects.get(code=HouseAccount.HOUSE)
    assert house.coins == 20
    assert ledger_differences() == []


# --- XP pays for matches played ----------------------------------------------------------


@pytest.mark.django_db
def test_a_match_abandoned_by_timeouts_pays_no_xp_to_anyone(api_client, eager_tasks):
    player = PlayerFactory()
    room = RoomFactory(max_timeouts=1, turn_seconds=5)
    client = auth(api_client, player)
    match_id = client.post(
        f"/api/rooms/{room.pk}/play/", {"opponent": "bot"}, format="json"
    ).json()["match"]
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.ACTIVE
    Match.objects.filter(pk=match_id).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert services.match_timeout(match_id=match_id, seq=match.seq) == "forfeited"
    services.match_finalize(match_id=match_id)  # the job its commit would run
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.finalized_at is not None
    assert not XpEntry.objects.filter(key=f"match:{match_id}").exists()
    player.refresh_from_db()
    assert player.xp == 0


# --- one table per room ----------------------------------------------------------------------


def play(player, room):
    return auth(APIClient(), player).post(
        f"/api/rooms/{room.pk}/play/", {"opponent": "bot"}, format="json"
    )


def live_tables(player, room) -> int:
    return Match.objects.filter(status=Match.Status.ACTIVE, room=room, seats__player=player).count()


@pytest.mark.django_db
def test_a_second_bot_table_in_one_room_is_refused_with_the_first_named():
    player = PlayerFactory()
    room, other_room = RoomFactory(), RoomFactory()
    first = play(player, room)
    assert first.status_code == 201
    second = play(player, room)
    assert second.status_code == 409
    error = second.json()["error"]
    assert error["code"] == "already_at_table"
    assert error["details"]["match"] == first.json()["match"]
    assert live_tables(player, room) == 1
    # Asking for people while seated answers that table (README); another room is free.
    human = auth(APIClient(), player).post(
        f"/api/rooms/{room.pk}/play/", {"opponent": "human"}, format="json"
    )
    assert (human.status_code, human.json()["match"]) == (201, first.json()["match"])
    assert play(player, other_room).status_code == 201
    assert live_tables(player, room) == 1


@pytest.mark.django_db
def test_a_room_may_allow_more_tables_per_player():
    player = PlayerFactory()
    room = RoomFactory(max_tables_per_player=2)
    assert [play(player, room).status_code for _ in range(3)] == [201, 201, 409]
    assert live_tables(player, room) == 2


@pytest.mark.django_db
def test_the_lobby_tells_a_player_at_the_room_limit_to_leave_their_table_first(client):
    player = PlayerFactory()
    room = RoomFactory()
    client.force_login(player.user)
    first = client.post(f"/rooms/{room.pk}/play/", {"opponent": "bot"})
    match = Match.objects.get(seats__player=player)
    assert first.url == f"/matches/{match.pk}/"
    again = client.post(f"/rooms/{room.pk}/play/", {"opponent": "bot"}, follow=True)
    assert again.redirect_chain[-1][0] == "/rooms/"
    page = again.content.decode()
    assert "already at a table" in page and "Leave it first" in page
    assert f'href="/matches/{match.pk}/"' in page, "the lobby links to the table"
    assert live_tables(player, room) == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_seven_play_requests_at_once_leave_one_table():
    """Issue 24 saw 7 bot tables at once from one account."""
    player, room = PlayerFactory(), RoomFactory()
    responses = at_once(*(lambda: play(player, room) for _ in range(7)))
    codes = sorted(r.status_code for r in responses)
    assert codes == [201] + [409] * 6, [r.content for r in responses]
    assert live_tables(player, room) == 1


# --- reconciliation --------------------------------------------------------------------------


@pytest.mark.django_db
def test_reconcile_ledger_passes_on_booked_balances_and_names_a_tampered_one():
    player, other = PlayerFactory(), PlayerFactory()
    grant(player, 50)
    grant(other, 70)
    services.coins_book(player_id=player.pk, amount=-20, reason="spent", key="spent")
    services.xp_grant(player_id=other.pk, amount=15, reason="test", key="xp")
    services.house_book(account=HouseAccount.HOUSE, amount=20, reason="rake", key="rake")
    out = StringIO()
    call_command("reconcile_ledger", stdout=out)
    assert "Every balance equals its ledger" in out.getvalue()
    Player.objects.filter(pk=player.pk).update(coins=F("coins") + 7, xp=F("xp") + 3)
    HouseAccount.objects.update(coins=F("coins") - 1)
    out = StringIO()
    with pytest.raises(CommandError, match="balance"):
        call_command("reconcile_ledger", stdout=out)
    printed = out.getvalue()
    assert f"coins player {player.pk}: balance 37, ledger 30 (off by +7)" in printed
    assert f"xp player {player.pk}: balance 3, ledger 0 (off by +3)" in printed
    assert "coins house house: balance 19, ledger 20 (off by -1)" in printed
    assert "coins total: balance 126, ledger 120 (off by +6)" in printed


@pytest.mark.django_db
def test_an_achievement_reward_that_cannot_fit_does_not_wedge_finalize():
    player = PlayerFactory()
    grant(player, BALANCE_MAX - 1)
    AchievementFactory(metric="matches_played", threshold=1, reward=RewardFactory(coins=50))
    with (
        mock.patch.object(tasks.play_bots, "delay"),
        mock.patch.object(tasks.finalize_match, "delay"),
        transaction.atomic(),
    ):
        bot = services.bot_players(kind="greedy", count=1)
        match = services.match_create(variant="gin", options={"target": 25}, players=[player, *bot])
        match = Match.objects.select_for_update().get(pk=match.pk)
        services.match_forfeit(match=match, seat_index=1, reason="test")
    assert services.match_finalize(match_id=match.pk) is True
    player.refresh_from_db()
    assert player.coins == BALANCE_MAX - 1
    assert ledger_differences() == []


@pytest.mark.django_db
def test_a_new_person_starts_with_the_grant_the_house_issues(api_client, settings):
    settings.KNOCK_STARTING_COINS = 500
    response = api_client.post(
        "/api/auth/register/",
        {"username": "newcomer", "password": "a-long-passphrase"},
        format="json",
    )
    assert response.status_code == 201
    player = Player.objects.get(user__username="newcomer")
    assert player.coins == 500
    assert list(player.coin_entries.values_list("key", "amount")) == [("starting-grant", 500)]
    house = HouseAccount.objects.get(code=HouseAccount.HOUSE)
    assert house.coins == -500
    assert ledger_differences() == []
    call_command("reconcile_ledger", stdout=StringIO())


@pytest.mark.django_db
def test_no_grant_when_the_operator_sets_none(settings):
    settings.KNOCK_STARTING_COINS = 0
    player = services.player_register(username="frugal", password="a-long-passphrase")
    assert player.coins == 0 and not player.coin_entries.exists()


@pytest.mark.django_db
def test_the_lobby_says_a_room_costs_more_than_the_balance_instead_of_offering_play(client):
    player = PlayerFactory()
    grant(player, 20)
    dear = RoomFactory(name="High Stakes", entry_fee=50)
    cheap = RoomFactory(name="Penny Gin", entry_fee=20)
    client.force_login(player.user)
    page = client.get("/rooms/").content.decode()
    row = page[page.index(f'data-room="{dear.pk}"') :]
    row = row[: row.index("</tr>")]
    assert "needs 50 coins; you have 20" in row and "<button" not in row
    row = page[page.index(f'data-room="{cheap.pk}"') :]
    assert "Play vs a bot" in row[: row.index("</tr>")]
