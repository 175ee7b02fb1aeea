"""Matches played move by move over the API: the contract clients rely on."""

import hashlib
import json

import pytest

from gameplay.models import Match
from tests.factories import LevelFactory, PlayerFactory, RoomFactory
from tests.gameplay.helpers import auth, choose

pytestmark = pytest.mark.django_db(transaction=True)


def play_to_the_end(client, match_id: int, limit: int = 2000) -> list[dict]:
    """Play the caller's turns until the match ends; returns every view received."""
    views = []
    for _ in range(limit):
        view = client.get(f"/api/matches/{match_id}/").json()
        views.append(view)
        if view["status"] != "active":
            return views
        assert view["your_turn"], "bots move on the worker before the response returns"
        response = client.post(
            f"/api/matches/{match_id}/actions/",
            {"seq": view["seq"], "action": choose(view)},
            format="json",
        )
        assert response.status_code == 200, response.json()
        views.append(response.json())
    raise AssertionError("match did not finish")


def test_register_token_and_rooms(api_client):
    LevelFactory(number=1, xp_required=0)
    RoomFactory(name="Open", min_level=1)
    RoomFactory(name="High", min_level=5)
    created = api_client.post(
        "/api/auth/register/", {"username": "ada", "password": "a-long-passphrase"}, format="json"
    )
    assert created.status_code == 201
    token = api_client.post(
        "/api/auth/token/", {"username": "ada", "password": "a-long-passphrase"}, format="json"
    )
    assert token.status_code == 200
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token.json()['token']}")
    rooms = {room["name"]: room for room in api_client.get("/api/rooms/").json()}
    assert rooms["Open"]["locked"] is False
    assert rooms["High"]["locked"] is True
    assert {"id", "name", "variant", "seats", "min_level", "locked"} <= set(rooms["Open"])


def test_register_refuses_taken_names_and_weak_passwords(api_client):
    ok = {"username": "bob", "password": "a-long-passphrase"}
    assert api_client.post("/api/auth/register/", ok, format="json").status_code == 201
    again = api_client.post("/api/auth/register/", ok, format="json")
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "username_taken"
    weak = api_client.post(
        "/api/auth/register/", {"username": "cy", "password": "123"}, format="json"
    )
    assert weak.status_code == 400
    assert weak.json()["error"]["code"] == "invalid_password"


def test_locked_room_is_refused_with_its_level(api_client):
    player = PlayerFactory(level=2)
    room = RoomFactory(min_level=7)
    response = auth(api_client, player).post(
        f"/api/rooms/{room.pk}/play/", {"opponent": "bot"}, format="json"
    )
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "room_locked"
    assert "room unlocks at level 7" in response.json()["error"]["message"].lower()
    assert not Match.objects.exists()


def test_whole_match_against_a_bot(api_client, eager_tasks):
    player = PlayerFactory()
    room = RoomFactory()
    client = auth(api_client, player)
    started = client.post(f"/api/rooms/{room.pk}/play/", {"opponent": "bot"}, format="json")
    assert started.status_code == 201
    match_id = started.json()["match"]
    views = play_to_the_end(client, match_id)
    final = views[-1]
    assert final["status"] == "finished"
    seed = final["seed"]
    assert hashlib.sha256(seed.encode("utf-8")).hexdigest() == views[0]["commitment"]
    assert len(final["moves"]) == final["seq"] == len(Match.objects.get(pk=match_id).log)
    assert final["result"]["placements"] == final["placements"]
    match = Match.objects.get(pk=match_id)
    assert match.finalized_at is not None  # finalize ran (eagerly) and verified the replay
    listed = client.get("/api/me/matches/").json()["results"]
    assert listed[0]["id"] == match_id
    # Nothing before the end carried the seed.
    for view in views[:-1]:
        if view["status"] == "active":
            assert seed not in json.dumps(view)


def test_others_see_a_match_only_once_it_is_over_and_then_without_a_hand(api_client):
    """While it runs a match is its seats' (and its room's spectators'); once over, its seed
    and moves are public, so anyone signed in may read it to check it."""
    seated, stranger = PlayerFactory(), PlayerFactory()
    room = RoomFactory(options={"target": 1})
    match_id = (
        auth(api_client, seated)
        .post(f"/api/rooms/{room.pk}/play/", {"opponent": "bot"}, format="json")
        .json()["match"]
    )
    outsider = auth(api_client, stranger)
    hidden = outsider.get(f"/api/matches/{match_id}/")
    assert hidden.status_code == 404 and hidden.json()["error"]["code"] == "not_found"
    Match.objects.filter(pk=match_id).update(status=Match.Status.FINISHED)
    shown = outsider.get(f"/api/matches/{match_id}/")
    assert shown.status_code == 200
    assert shown.json()["seat"] is None and shown.json()["hand"] == []
    assert shown.json()["seed"] == Match.objects.get(pk=match_id).seed
    refused = outsider.post(
        f"/api/matches/{match_id}/actions/",
        {"seq": shown.json()["seq"], "action": {"type": "pass"}},
        format="json",
    )
    assert refused.status_code in (404, 409)


def test_bot_turns_and_finalize_run_on_a_real_worker(api_client, celery_worker):
    """The production path: bot moves and finalize travel through the broker to a worker."""
    import time

    player = PlayerFactory()
    room = RoomFactory(options={"target": 10})
    client = auth(api_client, player)
    match_id = client.post(
        f"/api/rooms/{room.pk}/play/", {"opponent": "bot"}, format="json"
    ).json()["match"]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        view = client.get(f"/api/matches/{match_id}/").json()
        if view["status"] != "active":
            break
        if not view["your_turn"]:
            time.sleep(0.05)  # the worker is playing the bot's turn
            continue
        response = client.post(
            f"/api/matches/{match_id}/actions/",
            {"seq": view["seq"], "action": choose(view)},
            format="json",
        )
        assert response.status_code == 200, response.json()
    match = Match.objects.get(pk=match_id)
    while match.finalized_at is None and time.monotonic() < deadline:
        time.sleep(0.1)
        match.refresh_from_db()
    assert match.status == "finished"
    assert match.finalized_at is not None
    assert any(move["seat"] == 1 for move in match.log)  # the bot seat moved
