"""A match that is over is public, logged out too, on its page as in the API; a running one
keeps its rules: strangers log in first, and then see it only if seated or allowed to watch."""

import pytest

from gameplay import services
from gameplay.models import Match
from tests.factories import PlayerFactory, RoomFactory
from tests.gameplay.test_table_views import table_data

pytestmark = pytest.mark.django_db


def match_between(*players, **room) -> Match:
    return services.match_create(
        variant="gin", options={}, players=list(players), room=RoomFactory(**room)
    )


def over(match: Match, status: str = Match.Status.FINISHED) -> Match:
    Match.objects.filter(pk=match.pk).update(status=status)
    match.refresh_from_db()
    return match


@pytest.mark.parametrize("status", [Match.Status.FINISHED, Match.Status.DISPUTED])
def test_a_match_that_is_over_is_read_logged_out_with_no_hand_and_no_socket(client, status):
    match = over(match_between(PlayerFactory(), PlayerFactory()), status)
    response = client.get(f"/matches/{match.pk}/")
    assert response.status_code == 200
    data = table_data(response)
    assert data["view"]["status"] == status
    assert data["view"]["seat"] is None and data["view"]["hand"] == []
    assert data["view"]["seed"] == match.seed
    assert data["socket"] == ""  # the socket is for people signed in


def test_the_api_reads_a_match_that_is_over_logged_out_as_its_page_does(client, api_client):
    match = over(match_between(PlayerFactory(), PlayerFactory()))
    page_view = table_data(client.get(f"/matches/{match.pk}/"))["view"]
    response = api_client.get(f"/api/matches/{match.pk}/")
    assert response.status_code == 200
    assert response.json() == page_view
    refused = api_client.post(
        f"/api/matches/{match.pk}/actions/", {"seq": 0, "action": {"type": "pass"}}, format="json"
    )
    assert refused.status_code == 401


def test_a_running_match_keeps_its_rules_for_people_logged_out(client, api_client):
    ada, bob, eve = PlayerFactory(), PlayerFactory(), PlayerFactory()
    closed = match_between(ada, bob)
    watched = match_between(ada, bob, spectators_allowed=True)
    for match_id in (closed.pk, watched.pk, 999_999):
        page = client.get(f"/matches/{match_id}/")
        assert page.status_code == 302
        assert page.url == f"/accounts/login/?next=/matches/{match_id}/"
        # The API answers alike whether the match runs or does not exist.
        assert api_client.get(f"/api/matches/{match_id}/").status_code == 401
    client.force_login(eve.user)
    assert client.get(f"/matches/{closed.pk}/").status_code == 404
    assert table_data(client.get(f"/matches/{watched.pk}/"))["view"]["hand"] == []
