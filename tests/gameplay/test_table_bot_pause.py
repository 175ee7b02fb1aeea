"""A room's bot pause: bots wait before each turn when a person is at the table."""

import pytest

from gameplay import services
from gameplay.models import Match
from gameplay.services import matches
from tests.factories import BotPlayerFactory, PlayerFactory, RoomFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued(monkeypatch):
    calls = []
    monkeypatch.setattr(
        matches,
        "enqueue",
        lambda name, *args, countdown=None: calls.append((name, args, countdown)),
    )
    return calls


def test_bots_wait_the_rooms_pause_and_play_one_turn_a_task(
    queued, django_capture_on_commit_callbacks
):
    room = RoomFactory(variant="basic", seats=3, options={}, bot_pause_ms=800)
    human = PlayerFactory()
    bots = [BotPlayerFactory(), BotPlayerFactory()]
    with django_capture_on_commit_callbacks(execute=True):
        match = services.match_create(
            variant="basic",
            options={},
            players=[bots[0], human, bots[1]],
            room=room,
            seed="pause",  # seat 0, a bot, moves first
        )
    assert match.bot_pause_ms == 800
    assert match.to_move == 0
    assert ("gameplay.tasks.play_bots", (match.pk,), 0.8) in queued
    before = match.to_move
    services.match_play_bots(match_id=match.pk)
    match.refresh_from_db()
    # Only the one bot's turn was played; the next seat's turn is its own task.
    assert match.to_move != before and match.seq > 0


def test_a_table_of_bots_plays_at_once(queued):
    room = RoomFactory(bot_pause_ms=800)
    match = services.match_create(
        variant="gin", options={}, players=[BotPlayerFactory(), BotPlayerFactory()], room=room
    )
    assert match.bot_pause_ms == 0
    services.match_play_bots(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
