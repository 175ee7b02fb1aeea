"""Coins, XP, levels, titles, achievements and ratings."""

import pytest
from django.db import IntegrityError, transaction

from gameplay import selectors, services
from gameplay.models import CoinEntry, Metric, Player, PlayerAchievement
from tests.concurrency import at_once
from tests.factories import (
    AchievementFactory,
    LevelFactory,
    PlayerFactory,
    RewardFactory,
    RoomFactory,
    TitleFactory,
)


@pytest.mark.django_db
def test_ledger_books_credits_debits_and_refunds_as_rows():
    player = PlayerFactory()
    services.coins_book(player_id=player.pk, amount=100, reason="Welcome", key="welcome")
    services.coins_book(player_id=player.pk, amount=-30, reason="Entry fee", key="fee:1")
    services.coins_book(player_id=player.pk, amount=30, reason="Refund", key="refund:1")
    player.refresh_from_db()
    assert player.coins == 100
    rows = list(
        CoinEntry.objects.filter(player=player)
        .order_by("id")
        .values_list("amount", "balance_after")
    )
    assert rows == [(100, 100), (-30, 70), (30, 100)]


@pytest.mark.django_db
def test_same_key_books_once():
    player = PlayerFactory()
    for _ in range(3):
        services.coins_book(player_id=player.pk, amount=10, reason="Prize", key="prize:7")
    player.refresh_from_db()
    assert player.coins == 10
    assert CoinEntry.objects.filter(player=player).count() == 1


@pytest.mark.django_db
def test_overdraft_is_refused_and_books_nothing():
    player = PlayerFactory()
    services.coins_book(player_id=player.pk, amount=5, reason="Gift", key="gift")
    with pytest.raises(services.InsufficientCoins):
        services.coins_book(player_id=player.pk, amount=-6, reason="Fee", key="fee")
    player.refresh_from_db()
    assert player.coins == 5
    assert CoinEntry.objects.filter(player=player).count() == 1


@pytest.mark.django_db
def test_the_database_itself_refuses_a_negative_balance():
    player = PlayerFactory()
    with pytest.raises(IntegrityError), transaction.atomic():
        Player.objects.filter(pk=player.pk).update(coins=-1)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_debits_never_overdraw():
    player = PlayerFactory()
    services.coins_book(player_id=player.pk, amount=10, reason="Gift", key="gift")

    def spend(n):
        services.coins_book(player_id=player.pk, amount=-4, reason="Fee", key=f"fee:{n}")
        return "ok"

    results = at_once(
        *(lambda n=n: spend(n) for n in range(4)), refusals=(services.InsufficientCoins,)
    )
    outcomes = [r if r == "ok" else "refused" for r in results]
    player.refresh_from_db()
    assert sorted(outcomes) == ["ok", "ok", "refused", "refused"]
    assert player.coins == 2


@pytest.mark.django_db
def test_room_entry_fee_is_a_ledger_row_and_needs_the_coins():
    player = PlayerFactory()
    room = RoomFactory(entry_fee=20)
    with pytest.raises(services.InsufficientCoins):
        services.room_play(player=player, room=room, opponent="bot")
    services.coins_book(player_id=player.pk, amount=25, reason="Gift", key="gift")
    player.refresh_from_db()
    match = services.room_play(player=player, room=room, opponent="bot")
    fee = CoinEntry.objects.get(player=player, key=f"match:{match.pk}:fee")
    assert fee.amount == -20 and fee.balance_after == 5


@pytest.mark.django_db
def test_xp_raises_levels_and_grants_level_titles():
    LevelFactory(number=1, xp_required=0)
    LevelFactory(number=2, xp_required=50)
    LevelFactory(
        number=3, xp_required=120, title=TitleFactory(code="card-shark", name="Card Shark")
    )
    player = PlayerFactory()
    assert services.xp_grant(player_id=player.pk, amount=130, reason="test", key="a") is True
    assert services.xp_grant(player_id=player.pk, amount=130, reason="test", key="a") is False
    player.refresh_from_db()
    assert (player.xp, player.level) == (130, 3)
    assert player.displayed_title.code == "card-shark"
    assert selectors.level_progress(player)["next_level_xp"] is None


@pytest.mark.django_db
def test_achievements_unlock_once_with_their_reward_and_show_progress():
    reward = RewardFactory(coins=40, title=TitleFactory(code="winner", name="Winner"))
    AchievementFactory(
        code="win-3", name="Three wins", metric=Metric.MATCHES_WON, threshold=3, reward=reward
    )
    AchievementFactory(code="secret", name="Secret", metric=Metric.GINS, threshold=5, hidden=True)
    player = PlayerFactory()
    services.metrics_add(player_id=player.pk, changes={Metric.MATCHES_WON: 2})
    assert services.progress_evaluate(player_id=player.pk) == []
    shown = {a["name"]: a for a in selectors.achievements_of(player)}
    assert shown["Three wins"]["progress"] == 2 and shown["Three wins"]["unlocked"] is False
    assert "Secret" not in shown and shown["Hidden achievement"]["threshold"] is None
    services.metrics_add(player_id=player.pk, changes={Metric.MATCHES_WON: 1})
    assert services.progress_evaluate(player_id=player.pk) == ["win-3"]
    assert services.progress_evaluate(player_id=player.pk) == []
    player.refresh_from_db()
    assert player.coins == 40
    assert player.titles.filter(code="winner").exists()
    assert PlayerAchievement.objects.filter(player=player).count() == 1


@pytest.mark.django_db
def test_rule_titles_unlock_from_metrics():
    TitleFactory(code="streaker", name="Streaker", metric=Metric.BEST_WIN_STREAK, threshold=4)
    player = PlayerFactory()
    services.metric_set(player_id=player.pk, metric=Metric.BEST_WIN_STREAK, value=4)
    services.progress_evaluate(player_id=player.pk)
    assert player.titles.filter(code="streaker").exists()


@pytest.mark.django_db
def test_displaying_a_title_needs_owning_it():
    player = PlayerFactory()
    title = TitleFactory()
    with pytest.raises(services.NotAllowed):
        services.title_display(player=player, title_id=title.pk)
    services.title_grant(player=player, title=title, reason="test")
    services.title_display(player=player, title_id=None)
    services.title_display(player=player, title_id=title.pk)
    player.refresh_from_db()
    assert player.displayed_title == title
