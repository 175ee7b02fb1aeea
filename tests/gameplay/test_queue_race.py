"""Joining the human queue at the same instant: never a 500, never two matches at once."""

import pytest
from django.db.models import Count, Q
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from gameplay.models import Match, Player, QueueEntry
from tests.concurrency import at_once
from tests.factories import PlayerFactory, RoomFactory
from tests.gameplay.helpers import auth

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def unthrottled(monkeypatch):
    """These test races, not the play rate limit."""
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "play", "1000/min")


def join(player, room):
    def call():
        client = auth(APIClient(), player)
        return client.post(f"/api/rooms/{room.pk}/play/", {"opponent": "human"}, format="json")

    return call


def active_matches(player) -> int:
    return Match.objects.filter(status=Match.Status.ACTIVE, seats__player=player).count()


def test_one_player_joining_twenty_times_at_once_is_queued_once():
    player, room = PlayerFactory(), RoomFactory(bots_allowed=False)
    responses = at_once(*(join(player, room) for _ in range(20)))
    assert [r.status_code for r in responses] == [202] * 20, [r.content for r in responses]
    assert QueueEntry.objects.filter(player=player).count() == 1
    assert active_matches(player) == 0


@pytest.mark.parametrize("requests_each", [1, 4])
def test_three_players_joining_at_once_are_each_seated_in_one_match_at_most(requests_each):
    room = RoomFactory(bots_allowed=False)
    players = PlayerFactory.create_batch(3)
    calls = [join(player, room) for player in players for _ in range(requests_each)]
    responses = at_once(*calls)
    assert {r.status_code for r in responses} <= {201, 202}, [r.content for r in responses]
    seated = Player.objects.filter(pk__in=[p.pk for p in players]).annotate(
        active=Count("seats", filter=Q(seats__match__status=Match.Status.ACTIVE))
    )
    assert max(p.active for p in seated) == 1  # two of them play, nobody plays twice
    assert sorted(p.active for p in seated) == [0, 1, 1]
    # Whoever plays has left the queue; whoever does not is waiting in it.
    for player in seated:
        assert QueueEntry.objects.filter(player=player).exists() == (player.active == 0)
    # A match id answered to a player is the match that player sits in.
    for player, response in zip(
        [p for p in players for _ in range(requests_each)], responses, strict=True
    ):
        if response.status_code == 201:
            assert Match.objects.filter(
                pk=response.json()["match"], seats__player=player, status=Match.Status.ACTIVE
            ).exists()
