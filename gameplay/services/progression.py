"""What a player earns: coins, XP and levels, titles, rewards, counters and achievements."""

import logging
from collections.abc import Iterable
from typing import NamedTuple

from django.db import transaction
from django.db.models import F, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _

from config.db import bulk_update
from config.errors import NotAllowed
from gameplay.models import (
    BALANCE_MAX,
    Achievement,
    CoinEntry,
    HouseAccount,
    HouseEntry,
    Level,
    Metric,
    Player,
    PlayerAchievement,
    PlayerMetric,
    PlayerTitle,
    Reward,
    RewardGrant,
    Title,
    XpEntry,
)
from gameplay.services.common import BalanceOverflow, InsufficientCoins

logger = logging.getLogger(__name__)


def _check_bound(balance: int, amount: int, what: str) -> None:
    if balance + amount > BALANCE_MAX:
        raise BalanceOverflow(
            _("This would take a balance past %(max)s %(what)s.")
            % {"max": BALANCE_MAX, "what": what},
            details={"balance": balance, "amount": amount, "max": BALANCE_MAX},
        )


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
        _check_bound(player.coins, amount, "coins")
        balance = player.coins + amount
        if balance < 0:
            raise InsufficientCoins(
                _("This needs %(n)s coins; the balance is %(balance)s.")
                % {"n": -amount, "balance": player.coins},
                details={"balance": player.coins, "needed": -amount},
            )
        Player.objects.filter(pk=player_id).update(coins=F("coins") + amount)
        return CoinEntry.objects.create(
            player_id=player_id, amount=amount, balance_after=balance, reason=reason, key=key
        )


def house_book(*, account: str, amount: int, reason: str, key: str) -> HouseEntry:
    """Append one row to a house account's ledger (`HouseAccount`); the same key books once."""
    if amount == 0:
        raise ValueError("a ledger row moves coins")
    with transaction.atomic():
        HouseAccount.objects.get_or_create(code=account)
        house = HouseAccount.objects.select_for_update().get(code=account)
        existing = HouseEntry.objects.filter(account=house, key=key).first()
        if existing is not None:
            return existing
        # The house may go below zero (sponsor budgets it issues), by the bound at most.
        _check_bound(abs(house.coins + amount), 0, "coins")
        house.coins += amount
        house.save(update_fields=["coins"])
        return HouseEntry.objects.create(
            account=house, amount=amount, balance_after=house.coins, reason=reason, key=key
        )


class XpGrant(NamedTuple):
    player_id: int
    amount: int
    reason: str
    key: str


def xp_grant(*, player_id: int, amount: int, reason: str, key: str) -> bool:
    """Add XP once per key and move the player up the admin-defined levels."""
    granted = xp_grant_many(grants=[XpGrant(player_id, amount, reason, key)])
    return (player_id, key) in granted


def xp_grant_many(*, grants: Iterable[XpGrant]) -> set[tuple[int, str]]:
    """Grant XP to many players (the seats of many matches) in a few queries.

    Returns the (player, key) pairs booked now; a key a player already has books nothing.
    """
    grants = [grant for grant in grants if grant.amount > 0]
    if not grants:
        return set()
    player_ids = {grant.player_id for grant in grants}
    with transaction.atomic():
        # Locked in primary-key order, so two batches sharing players never deadlock.
        players = Player.objects.select_for_update().filter(pk__in=player_ids).order_by("pk")
        players = {player.pk: player for player in players}
        booked = set(
            XpEntry.objects.filter(
                player_id__in=player_ids, key__in={grant.key for grant in grants}
            ).values_list("player_id", "key")
        )
        new = []
        for grant in grants:
            if (grant.player_id, grant.key) not in booked:
                booked.add((grant.player_id, grant.key))
                new.append(grant)
        if not new:
            return set()
        XpEntry.objects.bulk_create(
            XpEntry(player_id=g.player_id, amount=g.amount, reason=g.reason, key=g.key) for g in new
        )
        for grant in new:
            _check_bound(players[grant.player_id].xp, grant.amount, "XP")
            players[grant.player_id].xp += grant.amount
        changed = [players[player_id] for player_id in sorted({g.player_id for g in new})]
        levels = list(Level.objects.filter(xp_required__lte=max(p.xp for p in changed)))
        reached_by = {}
        for player in changed:
            reached = [
                level
                for level in levels
                if level.xp_required <= player.xp and level.number > player.level
            ]
            if reached:
                player.level = max(level.number for level in reached)
                reached_by[player] = reached
        bulk_update(changed, ["xp", "level"])
        for player, reached in reached_by.items():
            for level in reached:
                if level.title_id:
                    title_grant(
                        player=player, title=level.title, reason=f"Reached level {level.number}"
                    )
            metric_set(player_id=player.pk, metric=Metric.LEVEL, value=player.level)
    return {(grant.player_id, grant.key) for grant in new}


def levels_recompute() -> int:
    """Put every player at the highest level their XP reaches, after an admin changed or
    removed levels (one statement; level 1 where none is reached). Titles once granted are
    kept. Returns how many players moved."""
    reached = (
        Level.objects.filter(xp_required__lte=OuterRef("xp")).order_by("-number").values("number")
    )
    target = Coalesce(Subquery(reached[:1]), Value(1))
    return Player.objects.annotate(target=target).exclude(level=F("target")).update(level=target)


def title_grant(*, player: Player, title: Title, reason: str) -> bool:
    _, created = PlayerTitle.objects.get_or_create(
        player=player, title=title, defaults={"reason": reason}
    )
    if created:
        Player.objects.filter(pk=player.pk, displayed_title__isnull=True).update(
            displayed_title=title
        )
    return created


def title_display(*, player: Player, title_id: int | None) -> None:
    if (
        title_id is not None
        and not PlayerTitle.objects.filter(player=player, title_id=title_id).exists()
    ):
        raise NotAllowed(_("You do not hold that title."), code="title_not_owned")
    Player.objects.filter(pk=player.pk).update(displayed_title_id=title_id)


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


def unless_full(grant, **kwargs) -> bool:
    """Call a grant (`coins_book`, `xp_grant`, `reward_grant`) for work that must not fail:
    finalize, a tournament's finish, a season's close. One that would take a balance past
    its bound is logged and skipped (False); raising would roll the work back for the sweep
    to retry forever."""
    try:
        grant(**kwargs)
    except BalanceOverflow as exc:
        logger.warning("%s %s skipped: %s", grant.__name__, kwargs["key"], exc)
        return False
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
    if not todo:
        return unlocked
    achievements = list(Achievement.objects.select_related("reward"))
    titles = list(Title.objects.exclude(metric=""))
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
                    # Unlocks run inside finalize, so a reward that cannot fit is skipped.
                    unless_full(
                        reward_grant,
                        player_id=player_id,
                        reward=achievement.reward,
                        reason=f"Achievement: {achievement.name}",
                        key=f"achievement:{achievement.code}",
                    )
        todo = again
    return unlocked
