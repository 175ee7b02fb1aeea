"""The live games people can watch (issue 27, "Spectating"): the lobby's list and
GET /api/matches/live/, both from `gameplay.selectors.live_matches`: only what
`match_watchable` opens to a stranger, never a private table, never a hidden card."""

import pytest

from engine import variants
from gameplay import games, selectors, services
from gameplay.models import Match
from tests.factories import PlayerFactory, RoomFactory

pytestmark = pytest.mark.django_db


def tables():
    """An open room's match, a match open by itself in a closed room, a private match,
    and a finished match of the open room."""
    ada, bob, cid, dan = (PlayerFactory(display_name=n) for n in ("Ada", "Bob", "Cid", "Dan"))
    open_room = RoomFactory(name="Open Gin", spectators_allowed=True)
    closed_room = RoomFactory(name="Closed Gin", spectators_allowed=False)
    in_room = services.match_create(variant="gin", options={}, players=[ada, bob], room=open_room)
    opened = services.match_create(
        variant="gin", options={}, players=[cid, dan], room=closed_room, spectators_allowed=True
    )
    private = services.match_create(variant="gin", options={}, players=[ada, cid])
    closed = services.match_create(variant="gin", options={}, players=[bob, dan], room=closed_room)
    over = services.match_create(variant="gin", options={}, players=[bob, cid], room=open_room)
    Match.objects.filter(pk=over.pk).update(status=Match.Status.FINISHED)
    return {"in_room": in_room, "opened": opened, "private": private, "closed": closed}


def test_only_running_matches_a_stranger_may_watch_newest_first():
    made = tables()
    live = selectors.live_games()
    assert [m.pk for m in live] == [made["opened"].pk, made["in_room"].pk]
    eve = PlayerFactory()
    assert all(selectors.match_watchable(m.pk, eve) is not None for m in live)
    assert selectors.match_watchable(made["private"].pk, eve) is None
    assert selectors.match_watchable(made["closed"].pk, eve) is None
    assert [m.where for m in live] == ["Closed Gin", "Open Gin"]


def test_the_list_stops_at_its_limit():
    room = RoomFactory(spectators_allowed=True)
    for _ in range(3):
        services.match_create(
            variant="gin", options={}, players=[PlayerFactory(), PlayerFactory()], room=room
        )
    assert len(selectors.live_games(limit=2)) == 2


def test_the_lobby_lists_them_in_a_fixed_number_of_queries(client, django_assert_max_num_queries):
    made = tables()
    eve = PlayerFactory()
    client.force_login(eve.user)
    page = client.get("/rooms/").content.decode()  # warm: sessions, the site's caches
    with django_assert_max_num_queries(14) as few:
        page = client.get("/rooms/").content.decode()
    room = RoomFactory(spectators_allowed=True)
    for _ in range(6):
        services.match_create(
            variant="gin", options={}, players=[PlayerFactory(), PlayerFactory()], room=room
        )
    with django_assert_max_num_queries(len(few.captured_queries)):
        client.get("/rooms/")
    assert f'href="/matches/{made["in_room"].pk}/"' in page
    assert f'href="/matches/{made["opened"].pk}/"' in page
    assert f'href="/matches/{made["private"].pk}/"' not in page
    assert f'href="/matches/{made["closed"].pk}/"' not in page
    assert "Live games" in page and "Ada, Bob" in page and "Cid, Dan" in page


def test_the_lobby_says_when_there_is_nothing_to_watch(client):
    page = client.get("/rooms/").content.decode()
    assert 'id="no-live-games"' in page


def test_the_api_lists_the_same_with_public_fields_only(api_client, django_assert_max_num_queries):
    made = tables()
    api_client.force_authenticate(user=PlayerFactory().user)
    with django_assert_max_num_queries(6):
        response = api_client.get("/api/matches/live/")
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 2
    assert [m["id"] for m in body["results"]] == [made["opened"].pk, made["in_room"].pk]
    first = body["results"][0]
    assert set(first) == {
        "id",
        "variant",
        "room",
        "where",
        "players",
        "seats",
        "seq",
        "created_at",
        "table",
    }
    assert first["table"] == f"/matches/{made['opened'].pk}/"
    assert [s["player"] for s in first["seats"]] == ["Cid", "Dan"]
    text = response.content.decode()
    for match in Match.objects.filter(pk__in=[made["opened"].pk, made["in_room"].pk]):
        game = variants.get(match.variant).replay([], match.players, games.deal_seed(match), {})
        for seat in range(match.players):
            hand = game.view(seat)["hand"]
            assert hand and not any(f'"{card}"' in text for card in hand)
        assert match.seed not in text and match.commitment not in text


def test_the_api_asks_who_calls_it_to_sign_in(api_client):
    assert api_client.get("/api/matches/live/").status_code in (401, 403)


def test_the_schema_documents_it(api_client):
    schema = api_client.get("/api/schema/").content.decode()
    assert "/api/matches/live/" in schema and "LiveMatch" in schema
