"""Turn deadlines, automatic moves, forfeits, matchmaking and ratings."""

from datetime import datetime, timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from gameplay import selectors, services, tasks
from gameplay.models import Match, QueueEntry, Rating, Seat
from tests.factories import PlayerFactory, RoomFactory
from tests.gameplay.helpers import auth

pytestmark = pytest.mark.django_db


def human_match(room=None) -> Match:
    room = room or RoomFactory(max_timeouts=2, turn_seconds=30)
    return services.match_create(
        variant="gin",
        options=room.options,
        players=[PlayerFactory(), PlayerFactory()],
        room=room,
    )


def expire(match: Match) -> None:
    Match.objects.filter(pk=match.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))


def test_a_human_turn_gets_a_deadline():
    match = human_match()
    assert match.turn_deadline is not None
    assert 25 <= (match.turn_deadline - timezone.now()).total_seconds() <= 30


def test_timeout_before_the_deadline_does_nothing():
    match = human_match()
    assert services.match_timeout(match_id=match.pk, seq=0) == "not_due"
    match.refresh_from_db()
    assert match.log == []


def test_timeout_plays_a_safe_move_then_forfeits():
    match = human_match()
    first_mover = match.to_move
    expire(match)
    assert services.match_timeout(match_id=match.pk, seq=0) == "auto_played"
    match.refresh_from_db()
    (move,) = match.log
    assert move == {"seat": first_mover, "action": move["action"], "auto": True, "at": move["at"]}
    assert datetime.fromisoformat(move["at"]) <= timezone.now()  # when it was stored
    assert services.match_timeout(match_id=match.pk, seq=0) == "moved_on"  # a stale task
    # Keep timing out the same player until the room's limit forfeits them.
    for _ in range(10):
        match.refresh_from_db()
        if match.status != Match.Status.ACTIVE:
            break
        if match.to_move != first_mover:
            services.match_act(
                match_id=match.pk,
                player=Seat.objects.get(match=match, index=match.to_move).player,
                seq=match.seq,
                action=services.variants.get("gin").bot_action(
                    services.games.load(match), match.to_move
                ),
            )
            continue
        expire(match)
        services.match_timeout(match_id=match.pk, seq=match.seq)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.result["forfeit"]["seat"] == first_mover
    forfeiter = Seat.objects.get(match=match, index=first_mover)
    assert forfeiter.forfeited and forfeiter.placement == 2 and forfeiter.timeouts == 2


def test_sweep_finds_overdue_turns(eager_tasks):
    match = human_match()
    expire(match)
    assert tasks.sweep_turn_deadlines() == 1
    match.refresh_from_db()
    assert [move.get("auto") for move in match.log] == [True]


def test_sweep_plays_overdue_bot_turns_as_one_batch(monkeypatch):
    """One turn_timeout per match split a tournament's batch into single matches."""
    matches = [
        services.match_create(
            variant="gin", options={}, players=services.bot_players(kind="greedy", count=2)
        )
        for _ in range(3)
    ]
    human = human_match()
    for match in [*matches, human]:
        expire(match)
    played, timed_out = [], []
    monkeypatch.setattr(tasks.play_bots, "delay", lambda *ids: played.append(ids))
    monkeypatch.setattr(tasks.turn_timeout, "delay", lambda *args: timed_out.append(args))
    assert tasks.sweep_turn_deadlines() == 4
    assert [sorted(ids) for ids in played] == [sorted(m.pk for m in matches)]
    assert timed_out == [(human.pk, 0)]


def test_forfeit_by_timeouts_is_verified_and_rated(eager_tasks, django_capture_on_commit_callbacks):
    match = human_match(RoomFactory(max_timeouts=1))
    expire(match)
    with django_capture_on_commit_callbacks(execute=True):
        services.match_timeout(match_id=match.pk, seq=0)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.finalized_at is not None
    loser = Seat.objects.get(match=match, forfeited=True)
    winner = Seat.objects.get(match=match, forfeited=False)
    assert Rating.objects.get(player=winner.player).mu > Rating.objects.get(player=loser.player).mu


def test_queue_pairs_similar_ratings_and_widens_with_time():
    room = RoomFactory(bots_allowed=False)
    strong, weak = PlayerFactory(), PlayerFactory()
    Rating.objects.create(player=strong, variant="gin", mu=40, sigma=2, ordinal=34)
    Rating.objects.create(player=weak, variant="gin", mu=25, sigma=8.3, ordinal=0)
    assert isinstance(services.room_play(player=strong, room=room, opponent="human"), QueueEntry)
    assert isinstance(services.room_play(player=weak, room=room, opponent="human"), QueueEntry)
    assert tasks.pair_queued_players() == 1
    assert QueueEntry.objects.count() == 2  # 34 points apart: too far for now
    QueueEntry.objects.update(created_at=timezone.now() - timedelta(minutes=5))
    tasks.pair_queued_players()
    assert QueueEntry.objects.count() == 0
    assert Match.objects.filter(seats__player=strong).filter(seats__player=weak).exists()


def test_queue_fills_with_bots_after_waiting_when_allowed():
    room = RoomFactory(bots_allowed=True, seats=2)
    player = PlayerFactory()
    services.room_play(player=player, room=room, opponent="human")
    QueueEntry.objects.update(created_at=timezone.now() - timedelta(minutes=5))
    tasks.pair_queued_players()
    match = Match.objects.get(seats__player=player)
    assert match.seats.filter(player__is_bot=True).count() == 1


def test_leaving_the_queue(api_client):
    room = RoomFactory()
    player = PlayerFactory()
    client = auth(api_client, player)
    assert (
        client.post(f"/api/rooms/{room.pk}/play/", {"opponent": "human"}, format="json").status_code
        == 202
    )
    assert client.delete("/api/me/queue/").status_code == 204
    assert not QueueEntry.objects.exists()


def test_ratings_show_ordinal_and_provisional(api_client):
    player = PlayerFactory()
    Rating.objects.create(player=player, variant="gin", mu=30, sigma=8, ordinal=6)
    Rating.objects.create(player=player, variant="basic", mu=30, sigma=2, ordinal=24)
    body = auth(api_client, player).get("/api/me/").json()
    ratings = {r["variant"]: r for r in body["ratings"]}
    assert ratings["gin"]["provisional"] is True and ratings["gin"]["ordinal"] == 6
    assert ratings["basic"]["provisional"] is False


def test_action_requests_use_a_small_fixed_number_of_queries(
    api_client, django_assert_max_num_queries
):
    match = human_match()
    seat = Seat.objects.select_related("player").get(match=match, index=match.to_move)
    client = auth(api_client, seat.player)
    view = client.get(f"/api/matches/{match.pk}/").json()
    # 9: the ninth drops the turn's timeout job the move made moot.
    with django_assert_max_num_queries(9):
        response = client.post(
            f"/api/matches/{match.pk}/actions/",
            {"seq": view["seq"], "action": view["legal_actions"][0]},
            format="json",
        )
    assert response.status_code == 200
    with django_assert_max_num_queries(4):
        client.get(f"/api/matches/{match.pk}/")
    assert selectors.match_watchable(match.pk, seat.player) is not None


def test_a_move_drops_the_timeout_of_the_turn_it_ended():
    """Each turn's timeout is a job row; once the match moves it is moot, and goes in the
    move's transaction (it used to run a minute later as a worker task that did nothing)."""
    from outbox.models import Job

    def timeouts():
        return list(
            Job.objects.filter(task="gameplay.tasks.turn_timeout").values_list("args", flat=True)
        )

    ada, bob = PlayerFactory(), PlayerFactory()
    match = services.match_create(variant="gin", options={}, players=[ada, bob], room=RoomFactory())
    others = [PlayerFactory(), PlayerFactory()]
    other = services.match_create(variant="gin", options={}, players=others)
    assert sorted(timeouts()) == [[match.pk, 0], [other.pk, 0]]
    mover = [ada, bob][match.to_move]
    view = selectors.match_view(selectors.match_watchable(match.pk, mover), mover)
    services.match_act(match_id=match.pk, player=mover, seq=0, action=view["legal_actions"][0])
    assert sorted(timeouts()) == [[match.pk, 1], [other.pk, 0]]


def test_a_forfeit_in_penalty_basic_crowns_the_lowest_total():
    """Penalty-scored Basic is won by the lowest total: the forfeit's ranking must agree."""
    match = services.match_create(
        variant="basic",
        options={"scoring": "penalty"},
        players=[PlayerFactory() for _ in range(3)],
    )
    variant = services.variants.get("basic")
    for _ in range(2000):
        match.refresh_from_db()
        scores = services.games.load(match).view(None)["scores"]
        if scores[1] != scores[2]:
            break
        services.match_act(
            match_id=match.pk,
            player=Seat.objects.get(match=match, index=match.to_move).player,
            seq=match.seq,
            action=variant.bot_action(services.games.load(match), match.to_move),
        )
    assert match.status == Match.Status.ACTIVE and scores[1] != scores[2]
    with transaction.atomic():
        (locked,) = selectors.matches_with_seats([match.pk], for_update=True)
        services.match_forfeit(match=locked, seat_index=0, reason="timeouts")
    match.refresh_from_db()
    lowest = 1 if scores[1] < scores[2] else 2
    assert match.result["placements"][0] == 3
    assert match.result["placements"][lowest] == 1
    assert match.result["winner"] == lowest


def test_a_rating_is_settled_after_a_dozen_rated_matches():
    """Provisional while the estimate is unsettled: after 12 matches against newcomers it
    no longer is, after 5 it still is (sigma 6.2 and 7.2 from the starting 8.3)."""
    model = services.RATING_MODEL
    player = PlayerFactory()
    me = model.rating()
    for played in range(1, 13):
        [[me], _] = model.rate([[me], [model.rating()]], ranks=[1 + played % 2, 2 - played % 2])
        if played == 5:
            assert Rating(player=player, variant="gin", mu=me.mu, sigma=me.sigma).provisional
    assert not Rating(player=player, variant="gin", mu=me.mu, sigma=me.sigma).provisional
