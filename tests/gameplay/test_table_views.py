"""The table page and the lobby's Play forms, without a browser."""

import json

import pytest

from gameplay import services
from gameplay.models import Match, QueueEntry
from tests.factories import BotPlayerFactory, PlayerFactory, RoomFactory

pytestmark = pytest.mark.django_db


def table_data(response) -> dict:
    html = response.content.decode()
    start = html.index('<script id="table-data" type="application/json">')
    body = html[start:].split(">", 1)[1].split("</script>", 1)[0]
    return json.loads(body)


def test_the_table_page_shows_a_seat_its_own_view_only(client):
    ada, bob = PlayerFactory(), PlayerFactory()
    match = services.match_create(variant="gin", options={}, players=[ada, bob], room=RoomFactory())
    client.force_login(ada.user)
    data = table_data(client.get(f"/matches/{match.pk}/"))
    assert data["view"]["seat"] == 0 and len(data["view"]["hand"]) >= 10
    assert [p["name"] for p in data["players"]] == [ada.display_name, bob.display_name]
    assert "seed" not in data["view"]
    assert "<script>" not in client.get(f"/matches/{match.pk}/").content.decode()  # CSP


def test_strangers_get_404_and_spectators_get_no_hand(client):
    ada, bob, eve = PlayerFactory(), PlayerFactory(), PlayerFactory()
    closed = services.match_create(
        variant="gin", options={}, players=[ada, bob], room=RoomFactory()
    )
    open_room = RoomFactory(spectators_allowed=True)
    watched = services.match_create(variant="gin", options={}, players=[ada, bob], room=open_room)
    client.force_login(eve.user)
    assert client.get(f"/matches/{closed.pk}/").status_code == 404
    data = table_data(client.get(f"/matches/{watched.pk}/"))
    assert data["view"]["seat"] is None and data["view"]["hand"] == []
    client.logout()
    assert client.get(f"/matches/{watched.pk}/").status_code == 302  # log in first


def test_play_forms_go_through_room_play(client):
    ada = PlayerFactory()
    client.force_login(ada.user)
    room = RoomFactory()
    BotPlayerFactory()
    response = client.post(f"/rooms/{room.pk}/play/", {"opponent": "bot"})
    match = Match.objects.get(seats__player=ada)
    assert response.status_code == 302 and response.url == f"/matches/{match.pk}/"
    # Already at a table: told in the lobby (which links to it), no second match.
    again = client.post(f"/rooms/{room.pk}/play/", {"opponent": "human"})
    assert again.url == "/rooms/"
    assert Match.objects.filter(seats__player=ada).count() == 1


def test_queueing_status_and_cancel(client):
    ada = PlayerFactory()
    room = RoomFactory(bots_allowed=False)
    client.force_login(ada.user)
    assert client.post(f"/rooms/{room.pk}/play/", {"opponent": "human"}).url == "/rooms/"
    assert client.get("/rooms/queue/status/").json()["queued"] is True
    assert "Looking for an opponent" in client.get("/rooms/").content.decode()
    client.post("/rooms/queue/leave/")
    assert not QueueEntry.objects.exists()
    assert client.get("/rooms/queue/status/").json() == {
        "queued": False,
        "room": None,
        "since": None,
        "table": None,
    }


def test_a_refused_play_is_a_notice_in_the_lobby(client):
    ada = PlayerFactory()
    locked = RoomFactory(min_level=9)
    client.force_login(ada.user)
    response = client.post(f"/rooms/{locked.pk}/play/", {"opponent": "bot"}, follow=True)
    assert "This room unlocks at level 9." in response.content.decode()
    assert client.get(f"/rooms/{locked.pk}/play/").status_code == 405
