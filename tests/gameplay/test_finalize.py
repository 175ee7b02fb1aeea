"""Finalizing a match awards everything exactly once: twice in a row, twice at once,
and through a real worker delivering the task twice."""

from unittest import mock

import pytest

from gameplay import services, tasks
from gameplay.models import (
    CoinEntry,
    Match,
    PlayerAchievement,
    PlayerMetric,
    Rating,
    RatingChange,
    XpEntry,
)
from tests.concurrency import at_once
from tests.factories import AchievementFactory, LevelFactory, RewardFactory, TitleFactory

pytestmark = pytest.mark.django_db(transaction=True)


def finished_unfinalized_match(target: int = 10) -> Match:
    """A real bot match played to the end, with finalizing left to the test."""
    bots = services.bot_players(kind="greedy", count=2)
    with (
        mock.patch.object(tasks.play_bots, "delay"),
        mock.patch.object(tasks.finalize_match, "delay"),
    ):
        match = services.match_create(variant="gin", options={"target": target}, players=bots)
        services.match_play_bots(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.finalized_at is None
    return match


def award_counts(match: Match) -> dict:
    players = [seat.player_id for seat in match.seats.all()]
    return {
        "xp": XpEntry.objects.filter(player_id__in=players).count(),
        "rating_changes": RatingChange.objects.filter(match=match).count(),
        "rated": sorted(
            Rating.objects.filter(player_id__in=players).values_list("rated_matches", flat=True)
        ),
        "played": sorted(
            PlayerMetric.objects.filter(player_id__in=players, metric="matches_played").values_list(
                "value", flat=True
            )
        ),
        "achievements": PlayerAchievement.objects.filter(player_id__in=players).count(),
        "coins": CoinEntry.objects.filter(player_id__in=players).count(),
    }


def progression():
    LevelFactory(number=1, xp_required=0)
    LevelFactory(number=2, xp_required=15, title=TitleFactory(code="novice", name="Novice"))
    reward = RewardFactory(code="first", xp=5, coins=50)
    AchievementFactory(code="first-match", metric="matches_played", threshold=1, reward=reward)


def test_finalize_twice_awards_once():
    progression()
    match = finished_unfinalized_match()
    assert services.match_finalize(match_id=match.pk) is True
    once = award_counts(match)
    assert once["rating_changes"] == 2
    assert once["played"] == [1, 1]
    assert once["achievements"] == 2
    assert once["coins"] == 2  # the achievement's 50 coins, once per bot
    assert services.match_finalize(match_id=match.pk) is False
    assert award_counts(match) == once
    for seat in match.seats.select_related("player"):
        seat.player.refresh_from_db()
        assert seat.player.level >= 2  # 10 XP for playing + 5 from the reward reach level 2 at 15
        assert seat.player.titles.filter(code="novice").exists()


@pytest.mark.postgres
def test_two_concurrent_finalizes_award_once():
    progression()
    match = finished_unfinalized_match()
    outcomes = at_once(*[lambda: services.match_finalize(match_id=match.pk)] * 2)
    assert sorted(outcomes) == [False, True]
    counts = award_counts(match)
    assert counts["rating_changes"] == 2
    assert counts["rated"] == [1, 1]
    assert counts["played"] == [1, 1]
    assert counts["achievements"] == 2


def test_duplicate_delivery_through_a_real_worker(celery_worker):
    progression()
    match = finished_unfinalized_match()
    first = tasks.finalize_match.apply_async((match.pk,), ignore_result=False)
    second = tasks.finalize_match.apply_async((match.pk,), ignore_result=False)
    assert sorted([first.get(timeout=60), second.get(timeout=60)]) == [False, True]
    counts = award_counts(match)
    assert counts["rating_changes"] == 2
    assert counts["played"] == [1, 1]


def first_card_move(log: list[dict]) -> int:
    """The first move that names a card: a discard, or a knock when a bot knocks at once
    (a random seed's match to 10 can end in one hand with no discard at all)."""
    return next(i for i, move in enumerate(log) if "card" in move["action"])


def test_tampered_move_log_is_disputed_and_awards_nothing():
    match = finished_unfinalized_match()
    log = match.log
    first = first_card_move(log)
    log[first]["action"] = {**log[first]["action"], "card": "XX" + log[first]["action"]["card"]}
    Match.objects.filter(pk=match.pk).update(log=log)
    assert services.match_finalize(match_id=match.pk) is False
    match.refresh_from_db()
    assert match.status == Match.Status.DISPUTED
    assert "does not replay" in match.dispute_reason
    assert award_counts(match)["rating_changes"] == 0
    assert XpEntry.objects.count() == 0


@pytest.mark.parametrize("mangle", [lambda m: m.pop("seat"), lambda m: m.update(note="x")])
def test_a_move_log_of_the_wrong_shape_is_disputed(mangle):
    # A stored move without its seat, or with a key no writer puts there, is a log the
    # engine refuses to read: a dispute, not a finalize that fails on every retry.
    match = finished_unfinalized_match()
    log = match.log
    mangle(log[3])
    Match.objects.filter(pk=match.pk).update(log=log)
    assert services.match_finalize(match_id=match.pk) is False
    match.refresh_from_db()
    assert match.status == Match.Status.DISPUTED
    assert match.dispute_reason.startswith("move log does not replay: move 3 must be")


def test_a_batch_awards_its_good_matches_around_a_disputed_one():
    """The same two bots sat all three: each counted match adds to their counters in turn."""
    first, tampered, third = (finished_unfinalized_match() for _ in range(3))
    log = tampered.log
    named = first_card_move(log)
    log[named]["action"] = {**log[named]["action"], "card": "XX"}
    Match.objects.filter(pk=tampered.pk).update(log=log)
    finalized = services.match_finalize_many(match_ids=[third.pk, tampered.pk, first.pk])
    assert finalized == {first.pk, third.pk}
    tampered.refresh_from_db()
    assert tampered.status == Match.Status.DISPUTED and tampered.finalized_at is not None
    assert award_counts(tampered)["rating_changes"] == 0
    counts = award_counts(first)
    assert counts["rated"] == [2, 2]
    assert counts["played"] == [2, 2]
    assert counts["xp"] == 4  # one entry per player per counted match
    assert services.match_finalize_many(match_ids=[first.pk, tampered.pk, third.pk]) == set()


def test_result_that_differs_from_the_replay_is_disputed():
    match = finished_unfinalized_match()
    forged = dict(match.result, scores=[999, 0])
    Match.objects.filter(pk=match.pk).update(result=forged)
    assert services.match_finalize(match_id=match.pk) is False
    match.refresh_from_db()
    assert match.status == Match.Status.DISPUTED
    assert match.dispute_reason == "replayed result differs from the stored result"
