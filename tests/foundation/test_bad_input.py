"""Bad and abusive input gets a 4xx in the API's one error shape, never a 500."""

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from tests.factories import PlayerFactory, RoomFactory
from tests.foundation.test_api_errors import assert_error_shape
from tests.gameplay.helpers import auth
from tests.tournaments.helpers import FAST_GIN, open_tournament, organiser
from tournaments import services

pytestmark = pytest.mark.django_db

DEEP = "[" * 10_000 + "]" * 10_000


@pytest.fixture
def player_client(api_client):
    return auth(api_client, PlayerFactory())


def test_deeply_nested_json_is_a_400_for_anyone(api_client):
    response = api_client.post("/api/auth/register/", DEEP, content_type="application/json")
    assert_error_shape(response, 400, "parse_error")


def test_deeply_nested_json_is_a_400_on_every_json_endpoint(player_client):
    room = RoomFactory()
    for path in (f"/api/rooms/{room.pk}/play/", "/api/matches/1/actions/", "/api/me/title/"):
        response = player_client.post(path, DEEP, content_type="application/json")
        assert_error_shape(response, 400, "parse_error")


def test_json_nested_past_the_depth_limit_is_refused(api_client):
    nested = '{"a":' * 40 + "1" + "}" * 40
    body = f'{{"username": "ada", "password": "a-long-passphrase", "extra": {nested}}}'
    response = api_client.post("/api/auth/register/", body, content_type="application/json")
    error = assert_error_shape(response, 400, "parse_error")
    assert "nested" in error["message"]


def test_json_body_over_the_upload_limit_is_a_413(api_client):
    padding = "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)
    body = f'{{"username": "ada", "password": "{padding}"}}'
    response = api_client.post("/api/auth/register/", body, content_type="application/json")
    assert_error_shape(response, 413, "payload_too_large")


def test_form_body_over_the_upload_limit_is_a_413(api_client):
    padding = "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)
    response = api_client.post(
        "/api/auth/token/",
        f"username=ada&password={padding}",
        content_type="application/x-www-form-urlencoded",
    )
    assert_error_shape(response, 413, "payload_too_large")


def test_more_than_a_thousand_form_fields_is_a_400(api_client):
    body = "&".join(f"f{n}=1" for n in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1))
    response = api_client.post(
        "/api/auth/token/", body, content_type="application/x-www-form-urlencoded"
    )
    assert_error_shape(response, 400, "too_many_fields")


def test_an_unsupported_media_type_is_a_415(api_client):
    response = api_client.post("/api/auth/register/", "<x/>", content_type="application/xml")
    assert_error_shape(response, 415, "unsupported_media_type")


def test_a_post_to_an_unknown_api_path_is_the_json_404_not_a_csrf_page():
    client = APIClient(enforce_csrf_checks=True)
    response = client.post("/api/no-such-thing/", {"a": 1}, format="json")
    assert_error_shape(response, 404, "not_found")


@pytest.mark.parametrize("offset", ["+16:00", "-23:59", "+14:00"])
def test_a_time_filter_with_any_utc_offset_is_answered(player_client, offset):
    open_tournament(starts_at="2026-01-02T00:00:00Z")
    response = player_client.get(
        "/api/tournaments/", {"starts_after": f"2026-01-01T00:00:00{offset}"}
    )
    assert response.status_code == 200, response.content
    # 2026-01-01T00:00 at -23:59 is 23:59 UTC, still before the start.
    assert response.json()["count"] == 1


def test_a_time_filter_outside_the_calendar_in_utc_is_a_400(player_client):
    response = player_client.get(
        "/api/tournaments/", {"starts_before": "0001-01-01T00:00:00+14:00"}
    )
    error = assert_error_shape(response, 400, "invalid")
    assert "starts_before" in error["details"]


BIG = 2**31


@pytest.mark.parametrize(
    "field", ["max_entries", "entry_fee", "min_level", "show_up_seconds", "turn_seconds"]
)
@pytest.mark.parametrize("value", [BIG, 2**63, 10**30])
def test_organiser_integers_past_their_range_are_a_400(api_client, field, value):
    by = organiser()
    api_client.force_authenticate(user=by)
    body = {"name": "Big", "variant": "gin", "options": FAST_GIN, field: value}
    created = api_client.post("/api/tournaments/", body, format="json")
    error = assert_error_shape(created, 400, "invalid")
    assert field in error["details"]
    tournament = open_tournament(by=by)
    patched = api_client.patch(f"/api/tournaments/{tournament.pk}/", {field: value}, format="json")
    assert field in assert_error_shape(patched, 400, "invalid")["details"]


@pytest.mark.parametrize("value", [BIG, 2**63])
def test_an_entry_seed_past_its_range_is_a_400(api_client, value):
    by = organiser()
    tournament = open_tournament(by=by)
    entry = services.entry_register(tournament_id=tournament.pk, player=PlayerFactory())
    api_client.force_authenticate(user=by)
    response = api_client.post(
        f"/api/tournaments/{tournament.pk}/entries/{entry.pk}/seed/", {"seed": value}, format="json"
    )
    assert "seed" in assert_error_shape(response, 400, "invalid")["details"]


def test_an_id_past_any_row_in_a_path_is_a_404(api_client):
    api_client.force_authenticate(user=organiser())
    huge = 10**25  # SQLite cannot even compare it with a column
    response = api_client.post(f"/api/tournaments/{huge}/entries/1/disqualify/")
    assert_error_shape(response, 404, "not_found")


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/api/standings/", "league"),
        ("/api/standings/", "season"),
        ("/api/standings/", "player"),
        ("/api/fixtures/", "season"),
        ("/api/fixtures/", "division"),
        ("/api/fixtures/", "player"),
    ],
)
@pytest.mark.parametrize("value", [10**25, "0.5", "-1"])
def test_an_id_filter_that_cannot_be_an_id_is_a_400(api_client, path, name, value):
    response = api_client.get(path, {name: value})
    assert name in assert_error_shape(response, 400, "invalid")["details"]
