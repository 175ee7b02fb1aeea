"""The table's pace and control (issue 27): the rest between hands with Next hand, the
timeout notice's data, resign (an engine move, in every variant) and calling a match off
before its first move."""

from datetime import timedelta

import pytest
from django.utils import timezone

from config.errors import Conflict, NotFound
from gameplay import games, selectors, services, tasks
from gameplay.models import CoinEntry, Match, Player, Seat
from outbox.models import Job
from tests.factories import BotPlayerFactory, PlayerFactory, RoomFactory
from tests.gameplay.helpers import auth, choose

pytestmark = pytest.mark.django_db

REST = 15


@pytest.fixture
def resting(settings):
    settings.KNOCK_NEXT_HAND_SECONDS = REST


def gin_match(*players, room=None, target=100) -> Match:
    room = room or RoomFactory(options={"target": target}, turn_seconds=40)
    return services.match_create(
        variant="gin", options=room.options, players=list(players), room=room
    )


def seat_player(match: Match, index: int) -> Player:
    return Seat.objects.get(match=match, index=index).player


def play_to_hand_end(match: Match) -> Match:
    """Play the people's moves (a sensible one each) and the bots' until a hand ends; the
    jobs left are those of the last step (this helper plays what they would)."""
    for _ in range(500):
        match.refresh_from_db()
        if match.status != Match.Status.ACTIVE or match.hand_break_until is not None:
            return match
        Job.objects.all().delete()
        mover = seat_player(match, match.to_move)
        if mover.is_bot:
            assert services.match_play_bots(match_id=match.pk) > 0
            continue
        view = selectors.match_view(match, mover)
        services.match_act(match_id=match.pk, player=mover, seq=match.seq, action=choose(view))
    raise AssertionError("no hand ended in 500 moves")


def pending(task: str, match: Match) -> list[Job]:
    return [job for job in Job.objects.filter(task=task) if job.args[0] == match.pk]


# --- the rest between hands ---------------------------------------------------------


def test_a_hand_that_ends_puts_the_table_at_rest_with_no_clock_and_no_move(resting):
    person, bot = PlayerFactory(), BotPlayerFactory()
    match = play_to_hand_end(gin_match(person, bot))
    assert match.status == Match.Status.ACTIVE, "target 100: the first hand does not end it"
    left = (match.hand_break_until - timezone.now()).total_seconds()
    assert REST - 3 < left <= REST
    # No turn clock: the only deadline is the rest's own, and no timeout or bot job waits.
    assert match.turn_deadline == match.hand_break_until
    assert pending("gameplay.tasks.turn_timeout", match) == []
    assert pending("gameplay.tasks.play_bots", match) == []
    (rest_job,) = pending("gameplay.tasks.hand_break_end", match)
    assert rest_job.args == [match.pk, match.seq]
    view = selectors.match_view(match, person)
    assert view["hand_break"] == {"until": match.hand_break_until.isoformat(), "ready": []}
    assert view["legal_actions"] == [] and view["your_turn"] is False
    assert view["table"]["last_hand"]["hand_number"] == 1
    assert view["table"]["hand_number"] == 2
    # Nobody moves: a person is refused, bots wait, a late timeout counts nothing.
    game = games.load(match)
    mover = match.to_move
    with pytest.raises(Conflict) as refused:
        services.match_act(
            match_id=match.pk,
            player=seat_player(match, mover),
            seq=match.seq,
            action=game.legal_actions(mover)[0],
        )
    assert refused.value.code == "between_hands"
    assert services.match_play_bots(match_id=match.pk) == 0
    assert services.match_timeout(match_id=match.pk, seq=match.seq) == "not_due"
    match.refresh_from_db()
    assert match.seq == game.seq and Seat.objects.filter(match=match, timeouts__gt=0).count() == 0


def test_next_hand_from_every_person_resumes_play_with_a_fresh_clock(resting):
    a, b = PlayerFactory(), PlayerFactory()
    match = play_to_hand_end(gin_match(a, b))
    seq = match.seq
    services.match_next_hand(match_id=match.pk, player=a)
    match.refresh_from_db()
    assert match.hand_break_until is not None and match.hand_break_ready == [0]
    services.match_next_hand(match_id=match.pk, player=a)  # twice: no change, no error
    match.refresh_from_db()
    assert match.hand_break_ready == [0]
    assert selectors.match_view(match, b)["hand_break"]["ready"] == [0]
    services.match_next_hand(match_id=match.pk, player=b)
    match.refresh_from_db()
    assert match.hand_break_until is None and match.hand_break_ready == []
    assert match.seq == seq
    left = (match.turn_deadline - timezone.now()).total_seconds()
    assert 37 < left <= 40, "the turn's clock starts now, with the room's whole turn time"
    assert pending("gameplay.tasks.hand_break_end", match) == []
    (timeout,) = pending("gameplay.tasks.turn_timeout", match)
    assert timeout.args == [match.pk, seq]
    view = selectors.match_view(match, seat_player(match, match.to_move))
    assert view["hand_break"] is None and view["legal_actions"] and view["your_turn"]
    # Pressed after the rest ended: nothing changes, no error.
    services.match_next_hand(match_id=match.pk, player=a)
    assert Match.objects.get(pk=match.pk).turn_deadline == match.turn_deadline


def test_the_countdown_ends_the_rest_and_the_bots_play_after_it(resting):
    person, bot = PlayerFactory(), BotPlayerFactory()
    match = play_to_hand_end(gin_match(bot, person))
    assert services.match_hand_break_end(match_id=match.pk, seq=match.seq) == "not_due"
    assert services.match_hand_break_end(match_id=match.pk, seq=match.seq - 1) == "moved_on"
    Match.objects.filter(pk=match.pk).update(hand_break_until=timezone.now())
    assert services.match_hand_break_end(match_id=match.pk, seq=match.seq) == "ended"
    assert services.match_hand_break_end(match_id=match.pk, seq=match.seq) == "resumed"
    match.refresh_from_db()
    assert match.hand_break_until is None
    if seat_player(match, match.to_move).is_bot:
        assert pending("gameplay.tasks.play_bots", match)
    else:
        assert pending("gameplay.tasks.turn_timeout", match)


def test_the_sweep_ends_a_rest_whose_job_was_lost(resting, eager_tasks):
    person, bot = PlayerFactory(), BotPlayerFactory()
    match = play_to_hand_end(gin_match(person, bot))
    Job.objects.all().delete()
    past = timezone.now() - timedelta(seconds=1)
    Match.objects.filter(pk=match.pk).update(hand_break_until=past, turn_deadline=past)
    tasks.sweep_turn_deadlines()
    match.refresh_from_db()
    assert match.hand_break_until is None
    assert Seat.objects.filter(match=match, timeouts__gt=0).count() == 0


def test_a_table_of_bots_never_rests(resting):
    match = gin_match(BotPlayerFactory(), BotPlayerFactory(), target=100)
    services.match_play_bots(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.hand_break_until is None


def test_with_the_setting_at_0_the_next_hand_goes_on_at_once(settings):
    settings.KNOCK_NEXT_HAND_SECONDS = 0
    person = PlayerFactory()
    match = gin_match(person, BotPlayerFactory())
    while games.load(match).hand_number == 1:
        mover = seat_player(match, match.to_move)
        if mover.is_bot:
            services.match_play_bots(match_id=match.pk)
        else:
            view = selectors.match_view(match, mover)
            services.match_act(match_id=match.pk, player=mover, seq=match.seq, action=choose(view))
        match.refresh_from_db()
    assert match.hand_break_until is None and match.status == Match.Status.ACTIVE
    assert selectors.match_view(match, person)["hand_break"] is None


def test_the_rest_survives_a_reload_over_the_api(resting, api_client):
    person = PlayerFactory()
    match = play_to_hand_end(gin_match(person, BotPlayerFactory()))
    auth(api_client, person)
    view = api_client.get(f"/api/matches/{match.pk}/").json()
    assert view["hand_break"]["until"] == match.hand_break_until.isoformat()
    response = api_client.post(f"/api/matches/{match.pk}/next-hand/")
    assert response.status_code == 200, response.content
    assert response.json()["hand_break"] is None
    assert response.json()["turn_deadline"] != view["turn_deadline"]


# --- the timeout notice -------------------------------------------------------------


def test_a_timed_out_move_is_in_its_seats_view_with_the_count():
    room = RoomFactory(max_timeouts=3, turn_seconds=30)
    person, other = PlayerFactory(), PlayerFactory()
    match = gin_match(person, other, room=room)
    Match.objects.filter(pk=match.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert services.match_timeout(match_id=match.pk, seq=0) == "auto_played"
    match.refresh_from_db()
    mine = selectors.match_view(match, person)
    assert mine["last_timeout"] == {"seq": 1, "action": match.log[0]["action"]}
    assert mine["seats"][0]["timeouts"] == 1 and mine["max_timeouts"] == 3
    assert "last_timeout" not in selectors.match_view(match, other)


# --- resign -------------------------------------------------------------------------

VARIANTS = [("gin", 2, {}), ("basic", 3, {}), ("indian", 3, {}), ("dummy", 3, {})]


def table(variant: str, seats: int, options: dict, fee: int = 0) -> tuple[Match, Player]:
    room = RoomFactory(variant=variant, options=options, seats=seats, entry_fee=fee)
    person = PlayerFactory(coins=100)
    players = [person] + [BotPlayerFactory() for _ in range(seats - 1)]
    match = services.match_create(variant=variant, options=options, players=players, room=room)
    return match, person


@pytest.mark.parametrize(("variant", "seats", "options"), VARIANTS)
def test_a_resign_is_an_engine_move_that_replays_and_finalizes(variant, seats, options):
    match, person = table(variant, seats, options)
    services.match_play_bots(match_id=match.pk)
    match.refresh_from_db()
    before = match.seq
    services.match_resign(match_id=match.pk, player=person)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.log[-1]["seat"] == 0 and match.log[-1]["action"] == {"type": "resign"}
    assert match.seq == before + 1
    assert match.result["forfeit"] == {"seat": 0, "reason": "resigned", "seq": before + 1}
    seat = Seat.objects.get(match=match, index=0)
    assert seat.forfeited and seat.placement == seats
    assert services.match_verify(match=match) is None
    assert services.match_finalize(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED, match.dispute_reason
    person.refresh_from_db()
    assert person.xp == 0, "a forfeit pays no XP"
    with pytest.raises(Conflict) as again:
        services.match_resign(match_id=match.pk, player=person)
    assert again.value.code == "match_over"


def test_a_resign_out_of_turn_and_a_tampered_one_are_checked():
    a, b = PlayerFactory(), PlayerFactory()
    match = gin_match(a, b)
    waiting = 1 - match.to_move
    services.match_resign(match_id=match.pk, player=seat_player(match, waiting))
    match.refresh_from_db()
    assert match.result["placements"][waiting] == 2
    assert match.result["winner"] == 1 - waiting
    # The log is the proof: a result that says otherwise is disputed.
    match.result = {**match.result, "placements": [1, 1]}
    assert services.match_verify(match=match) == "replayed result differs from the stored result"


def test_a_resign_sent_as_a_turn_is_refused_and_changes_nothing():
    person = PlayerFactory()
    match = gin_match(person, BotPlayerFactory())
    with pytest.raises(services.IllegalMove) as refused:
        services.match_act(
            match_id=match.pk, player=person, seq=match.seq, action={"type": "resign"}
        )
    assert refused.value.code == "resign_separately"
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and match.log == []


def test_resign_over_the_api(api_client):
    person, stranger = PlayerFactory(), PlayerFactory()
    match = gin_match(person, BotPlayerFactory())
    auth(api_client, stranger)
    assert api_client.post(f"/api/matches/{match.pk}/resign/").status_code == 404
    auth(api_client, person)
    response = api_client.post(f"/api/matches/{match.pk}/resign/")
    assert response.status_code == 200, response.content
    assert response.json()["result"]["forfeit"]["reason"] == "resigned"
    again = api_client.post(f"/api/matches/{match.pk}/resign/")
    assert again.status_code == 409 and again.json()["error"]["code"] == "match_over"


# --- calling a match off ------------------------------------------------------------


@pytest.mark.parametrize(("variant", "seats", "options"), VARIANTS)
def test_abort_before_the_first_move_refunds_and_rates_nobody(variant, seats, options):
    match, person = table(variant, seats, options, fee=40)
    person.refresh_from_db()
    assert person.coins == 60
    services.match_abort(match_id=match.pk, player=person)
    match.refresh_from_db()
    person.refresh_from_db()
    assert match.status == Match.Status.ABORTED and match.result == {"aborted": {"seat": 0}}
    assert person.coins == 100 and person.xp == 0
    assert CoinEntry.objects.filter(key=f"match:{match.pk}:refund").count() == 1
    assert not person.ratings.exists()
    assert services.match_finalize(match_id=match.pk) is False
    assert selectors.active_match_of(person) is None
    assert selectors.match_document(match) is None
    assert selectors.match_view(match, person)["status"] == "aborted"
    assert services.match_play_bots(match_id=match.pk) == 0
    with pytest.raises(Conflict) as again:
        services.match_abort(match_id=match.pk, player=person)
    assert again.value.code == "match_over"


def test_abort_after_the_first_move_is_refused_and_changes_nothing(api_client):
    a, b = PlayerFactory(), PlayerFactory()
    match = gin_match(a, b)
    mover = seat_player(match, match.to_move)
    view = selectors.match_view(match, mover)
    assert view["can_abort"] is True
    services.match_act(match_id=match.pk, player=mover, seq=0, action=choose(view))
    auth(api_client, a)
    response = api_client.post(f"/api/matches/{match.pk}/abort/")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "match_started"
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and match.seq == 1
    assert selectors.match_view(match, a)["can_abort"] is False


def test_a_match_of_an_event_cannot_be_called_off():
    person = PlayerFactory()
    match = services.match_create(variant="gin", options={}, players=[person, BotPlayerFactory()])
    with pytest.raises(Conflict) as refused:
        services.match_abort(match_id=match.pk, player=person)
    assert refused.value.code == "abort_not_allowed"
    assert selectors.match_view(match, person)["can_abort"] is False
    with pytest.raises(NotFound):
        services.match_abort(match_id=match.pk, player=PlayerFactory())
