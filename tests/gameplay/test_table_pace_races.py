"""Resign, call off and Next hand raced on PostgreSQL: the match row lock makes each end
the match (or the rest) once, whatever arrives at the same instant."""

import copy

import pytest

from config.errors import Conflict
from gameplay import games, services
from gameplay.models import Match, Seat
from outbox.models import Job
from tests.concurrency import at_once
from tests.factories import PlayerFactory, RoomFactory
from tests.gameplay.test_table_showdown_page import SEED, sensible

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def two_people(target: int) -> tuple[Match, list]:
    people = [PlayerFactory(), PlayerFactory()]
    room = RoomFactory(options={"target": target})
    match = services.match_create(
        variant="gin", options=room.options, players=people, room=room, seed=SEED
    )
    return match, people


def play_until(match: Match, people: list, stop) -> None:
    """Sensible moves for both until `stop(match, game, action)` says the next is the one."""
    while True:
        match.refresh_from_db()
        game = games.load(match)
        action = sensible(game, match.to_move)
        if stop(match, game, action):
            return
        services.match_act(
            match_id=match.pk, player=people[match.to_move], seq=match.seq, action=action
        )


def ends_the_match(match, game, action) -> bool:
    trial = copy.deepcopy(game)
    trial.apply(action, match.to_move)
    return trial.over


def test_two_resigns_at_once_end_the_match_once():
    match, people = two_people(target=100)
    results = at_once(
        lambda: services.match_resign(match_id=match.pk, player=people[0]),
        lambda: services.match_resign(match_id=match.pk, player=people[1]),
        refusals=(Conflict,),
    )
    refused = [r for r in results if isinstance(r, Conflict)]
    assert len(refused) == 1 and refused[0].code == "match_over"
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert [m["action"] for m in match.log] == [{"type": "resign"}]
    assert Seat.objects.filter(match=match, forfeited=True).count() == 1
    assert services.match_finalize(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED


def test_a_resign_raced_with_the_last_move_ends_the_match_once():
    match, people = two_people(target=1)  # the first hand won decides the match
    play_until(match, people, ends_the_match)
    match.refresh_from_db()
    mover = match.to_move
    last = sensible(games.load(match), mover)
    results = at_once(
        lambda: services.match_act(
            match_id=match.pk, player=people[mover], seq=match.seq, action=last
        ),
        lambda: services.match_resign(match_id=match.pk, player=people[1 - mover]),
        refusals=(Conflict,),
    )
    refused = [r for r in results if isinstance(r, Conflict)]
    assert len(refused) == 1 and refused[0].code == "match_over"
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.log[-1]["action"] in (last, {"type": "resign"})
    assert [m["action"] for m in match.log].count({"type": "resign"}) <= 1
    assert services.match_finalize(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED, match.dispute_reason


def test_a_call_off_raced_with_the_first_move_leaves_one_outcome():
    match, people = two_people(target=100)
    first = sensible(games.load(match), match.to_move)
    results = at_once(
        lambda: services.match_act(
            match_id=match.pk, player=people[match.to_move], seq=0, action=first
        ),
        lambda: services.match_abort(match_id=match.pk, player=people[1 - match.to_move]),
        refusals=(Conflict,),
    )
    refused = [r for r in results if isinstance(r, Conflict)]
    assert len(refused) == 1
    match.refresh_from_db()
    if refused[0].code == "match_started":
        assert match.status == Match.Status.ACTIVE and match.seq == 1
    else:
        assert refused[0].code == "match_over"
        assert match.status == Match.Status.ABORTED and match.log == []


def test_the_last_two_next_hand_presses_at_once_end_the_rest_once(settings):
    settings.KNOCK_NEXT_HAND_SECONDS = 30
    match, people = two_people(target=100)
    play_until(match, people, lambda m, g, a: m.hand_break_until is not None)
    Job.objects.all().delete()
    at_once(
        lambda: services.match_next_hand(match_id=match.pk, player=people[0]),
        lambda: services.match_next_hand(match_id=match.pk, player=people[1]),
    )
    match.refresh_from_db()
    assert match.hand_break_until is None and match.hand_break_ready == []
    assert Job.objects.filter(task="gameplay.tasks.turn_timeout").count() == 1
