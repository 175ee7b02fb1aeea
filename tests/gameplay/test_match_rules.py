"""Every way a client can get an action wrong, two humans playing, and no leaks."""

import json

import pytest
from rest_framework.test import APIClient

from gameplay import games
from gameplay.models import Match
from tests.factories import PlayerFactory, RoomFactory
from tests.gameplay.helpers import auth, choose

pytestmark = pytest.mark.django_db(transaction=True)


def human_pair(room):
    """Two humans queued into `room`: the first waits (202), the second is paired (201)."""
    alice, bob = PlayerFactory(), PlayerFactory()
    a, b = auth(APIClient(), alice), auth(APIClient(), bob)
    first = a.post(f"/api/rooms/{room.pk}/play/", {"opponent": "human"}, format="json")
    assert first.status_code == 202
    assert first.json()["queued"] is True
    second = b.post(f"/api/rooms/{room.pk}/play/", {"opponent": "human"}, format="json")
    assert second.status_code == 201
    match_id = second.json()["match"]
    assert a.get("/api/me/matches/").json()["results"][0]["id"] == match_id
    return match_id, {alice.pk: a, bob.pk: b}


def hidden_from(match: Match, seat: int) -> set[str]:
    """Cards `seat` must not see now: the other hands (less public picks) and the stock."""
    game = games.load(match)
    spectator = game.view(None)
    public = set(spectator["discard"])
    for picks in spectator.get("known", []):
        public.update(picks)
    hidden = set()
    for other in range(match.players):
        if other != seat:
            hidden.update(set(game.view(other)["hand"]) - public)
    return hidden


def string_leaves(value):
    if isinstance(value, dict):
        for key, item in value.items():
            if key != "last_hand":  # the previous deal's showdown, revealed to both
                yield from string_leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from string_leaves(item)
    elif isinstance(value, str):
        yield value


def assert_no_leak(match_id: int, seat: int, body: dict):
    match = Match.objects.get(pk=match_id)
    if match.status != Match.Status.ACTIVE:
        return
    leaked = hidden_from(match, seat) & set(string_leaves(body))
    assert not leaked, f"seat {seat} was shown hidden cards {leaked}"
    assert match.seed not in json.dumps(body)
    assert "stock" not in body["table"] or isinstance(body["table"].get("stock"), int)


def test_two_humans_play_a_whole_match_and_nothing_leaks():
    room = RoomFactory(options={"target": 15})
    match_id, clients = human_pair(room)
    seats = {s.index: clients[s.player_id] for s in Match.objects.get(pk=match_id).seats.all()}
    for _ in range(3000):
        views = {
            seat: client.get(f"/api/matches/{match_id}/").json() for seat, client in seats.items()
        }
        for seat, view in views.items():
            assert_no_leak(match_id, seat, view)
        if views[0]["status"] != "active":
            break
        mover = views[0]["to_move"]
        assert views[mover]["your_turn"] and views[1 - mover]["legal_actions"] == []
        response = seats[mover].post(
            f"/api/matches/{match_id}/actions/",
            {"seq": views[mover]["seq"], "action": choose(views[mover])},
            format="json",
        )
        assert response.status_code == 200, response.json()
        assert_no_leak(match_id, mover, response.json())
    final = seats[0].get(f"/api/matches/{match_id}/").json()
    assert final["status"] == "finished"
    assert final["seed"] and final["moves"] and final["result"]["placements"]


def test_every_action_error_code_and_state_unchanged():
    room = RoomFactory()
    match_id, clients = human_pair(room)
    match = Match.objects.get(pk=match_id)
    mover_seat = match.to_move
    by_seat = {s.index: clients[s.player_id] for s in match.seats.all()}
    mover, waiter = by_seat[mover_seat], by_seat[1 - mover_seat]
    url = f"/api/matches/{match_id}/actions/"
    before = mover.get(f"/api/matches/{match_id}/").json()
    legal = before["legal_actions"][0]

    illegal = mover.post(
        url, {"seq": 0, "action": {"type": "discard", "card": "ZZ"}}, format="json"
    )
    assert illegal.status_code == 400
    assert illegal.json()["error"]["code"] not in ("invalid", "server_error")

    unknown = mover.post(url, {"seq": 0, "action": {"type": "fly"}}, format="json")
    assert unknown.status_code == 400
    assert unknown.json()["error"]["code"] == "unknown_action"

    not_json_object = mover.post(url, {"seq": 0, "action": ["draw"]}, format="json")
    assert not_json_object.status_code == 400

    stale = mover.post(url, {"seq": 5, "action": legal}, format="json")
    assert stale.status_code == 409
    assert stale.json()["error"]["code"] == "stale_seq"
    assert stale.json()["error"]["details"] == {"seq": 0}

    wrong_turn = waiter.post(url, {"seq": 0, "action": legal}, format="json")
    assert wrong_turn.status_code == 403
    assert wrong_turn.json()["error"]["code"] == "not_your_turn"

    stranger = auth(APIClient(), PlayerFactory())
    assert stranger.get(f"/api/matches/{match_id}/").status_code == 404
    hidden = stranger.post(url, {"seq": 0, "action": legal}, format="json")
    assert hidden.status_code == 404
    assert hidden.json()["error"]["code"] == "not_found"

    anonymous = APIClient().post(url, {"seq": 0, "action": legal}, format="json")
    assert anonymous.status_code == 401

    assert mover.get(f"/api/matches/{match_id}/").json() == before
    assert Match.objects.get(pk=match_id).log == []

    accepted = mover.post(url, {"seq": 0, "action": legal}, format="json")
    assert accepted.status_code == 200
    assert accepted.json()["seq"] == 1
    replayed = mover.post(url, {"seq": 0, "action": legal}, format="json")
    assert replayed.status_code == 409  # a retried request cannot apply twice


def test_finished_match_refuses_actions(eager_tasks):
    player = PlayerFactory()
    client = auth(APIClient(), player)
    room = RoomFactory(options={"target": 1})
    match_id = client.post(
        f"/api/rooms/{room.pk}/play/", {"opponent": "bot"}, format="json"
    ).json()["match"]
    for _ in range(500):
        view = client.get(f"/api/matches/{match_id}/").json()
        if view["status"] != "active":
            break
        client.post(
            f"/api/matches/{match_id}/actions/",
            {"seq": view["seq"], "action": choose(view)},
            format="json",
        )
    late = client.post(
        f"/api/matches/{match_id}/actions/",
        {"seq": view["seq"], "action": {"type": "pass"}},
        format="json",
    )
    assert late.status_code == 409
    assert late.json()["error"]["code"] == "match_over"
