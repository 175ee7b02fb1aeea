"""`/api/` is an index of the API, built from its routes, so it never lists a dead address."""

import pytest

from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


def test_the_api_root_lists_every_collection_and_each_answers(api_client):
    index = api_client.get("/api/")
    assert index.status_code == 200
    body = index.json()
    endpoints = body["endpoints"]
    assert {"rooms", "tournaments", "leagues", "register", "token", "schema"} <= set(endpoints)
    assert body["per_object"]["match-actions"] == "/api/matches/<int:pk>/actions/"

    player = PlayerFactory()
    api_client.force_authenticate(player.user)
    for name, url in endpoints.items():
        response = api_client.get(url)
        # token and register take POSTs only; everything else reads.
        assert response.status_code in (200, 405), (name, url, response.status_code)
