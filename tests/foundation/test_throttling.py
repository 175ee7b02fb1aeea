"""Rate limits and login lock-outs: 429 with Retry-After, in the API's one error shape."""

import pytest
from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle

from tests.factories import PlayerFactory, RoomFactory, UserFactory
from tests.foundation.test_api_errors import assert_error_shape
from tests.gameplay.helpers import auth

pytestmark = pytest.mark.django_db

RATES = SimpleRateThrottle.THROTTLE_RATES  # read by every throttle
PASSWORD = "correct-horse-battery"  # the factories' password


def allowed(scope: str) -> int:
    return int(RATES[scope].split("/")[0])


def assert_throttled(response, code: str = "throttled"):
    error = assert_error_shape(response, 429, code)
    assert int(response["Retry-After"]) > 0
    return error


def token(client, username: str, password: str, **extra):
    return client.post(
        "/api/auth/token/", {"username": username, "password": password}, format="json", **extra
    )


def test_wrong_passwords_on_the_token_endpoint_lock_the_account_out(api_client):
    UserFactory(username="ada")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert_error_shape(token(api_client, "ada", "guess"), 400, "invalid")
    locked = token(api_client, "ada", "guess")
    assert_throttled(locked, "locked_out")
    assert int(locked["Retry-After"]) == settings.AXES_COOLOFF_TIME.total_seconds()
    # Locked means locked: the right password does not get in either, in any case.
    assert_throttled(token(api_client, "ada", PASSWORD), "locked_out")
    assert_throttled(token(api_client, "ADA", PASSWORD), "locked_out")


def test_the_api_lock_out_counts_every_spelling_of_the_name_as_one(api_client):
    """Issue 24: after five failures on "lockapi", the fullwidth "\uff4cockapi" with the
    right password got in and cleared the lock; the site's form normalised first."""
    UserFactory(username="lockapi")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        token(api_client, "lockapi", "guess")
    for spelling in ("\uff4cockapi", "LOCKAPI", " lockapi "):
        assert_throttled(token(api_client, spelling, PASSWORD), "locked_out")
    assert_throttled(token(api_client, "lockapi", PASSWORD), "locked_out")  # still locked


@pytest.mark.parametrize("path", ["/accounts/login/", "/admin/login/", "/api/auth/token/"])
def test_a_username_past_any_column_is_refused_before_the_lock_out_stores_it(client, path):
    """django-axes keeps a failed login's name in a column of 255 characters: a longer one
    was a 500 on PostgreSQL. It is cut to the longest username first, on every login."""
    from axes.models import AccessAttempt

    for name in ("a" * 300, "\uff41" * 300, "b" * 100_000):
        answer = client.post(path, {"username": name, "password": "guess"})
        assert answer.status_code in (200, 400), answer.status_code
    stored = list(AccessAttempt.objects.values_list("username", flat=True))
    assert stored and all(len(name) <= 150 for name in stored)
    assert set(stored) == {"a" * 150, "b" * 150}  # the fullwidth one is the same name


def test_the_token_endpoint_is_rate_limited_per_address(api_client):
    for number in range(allowed("login")):
        assert token(api_client, f"nobody{number}", "guess").status_code == 400
    assert_throttled(token(api_client, "somebody", "guess"))


def test_a_forged_forwarded_for_header_does_not_escape_the_limit(api_client):
    for number in range(allowed("login")):
        forged = {"HTTP_X_FORWARDED_FOR": f"10.0.0.{number}"}
        assert token(api_client, f"nobody{number}", "guess", **forged).status_code == 400
    assert_throttled(token(api_client, "x", "guess", HTTP_X_FORWARDED_FOR="10.9.9.9"))


@pytest.mark.parametrize("path", ["/accounts/login/", "/admin/login/"])
def test_failed_html_logins_lock_out(client, path):
    UserFactory(username="grace", is_staff=True)
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        response = client.post(path, {"username": "grace", "password": "guess"})
        assert response.status_code == 200  # the form again, with its error
    locked = client.post(path, {"username": "grace", "password": "guess"})
    assert locked.status_code == 429
    assert int(locked["Retry-After"]) == settings.AXES_COOLOFF_TIME.total_seconds()
    assert b"Too many failed logins" in locked.content
    again = client.post(path, {"username": "grace", "password": PASSWORD})
    assert again.status_code == 429
    assert "_auth_user_id" not in client.session


def test_a_successful_login_forgets_earlier_failures(api_client):
    UserFactory(username="ada")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        token(api_client, "ada", "guess")
    assert token(api_client, "ada", PASSWORD).status_code == 200
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert token(api_client, "ada", "guess").status_code == 400


def test_sign_ups_are_rate_limited_per_address(api_client):
    for number in range(allowed("register")):
        body = {"username": f"new{number}", "password": "a-long-passphrase"}
        assert api_client.post("/api/auth/register/", body, format="json").status_code == 201
    body = {"username": "one-more", "password": "a-long-passphrase"}
    assert_throttled(api_client.post("/api/auth/register/", body, format="json"))


def test_bot_matches_are_rate_limited_per_player(api_client):
    # A room that seats a player at any number of tables: the rate is what stops them here.
    room = RoomFactory(max_tables_per_player=1000)
    player, other = PlayerFactory(), PlayerFactory()
    play = f"/api/rooms/{room.pk}/play/"
    for _ in range(allowed("play")):
        assert auth(api_client, player).post(play, {"opponent": "bot"}).status_code == 201
    assert_throttled(auth(api_client, player).post(play, {"opponent": "bot"}))
    assert auth(api_client, other).post(play, {"opponent": "bot"}).status_code == 201


def test_every_endpoint_has_a_limit_per_player(api_client, monkeypatch):
    monkeypatch.setitem(RATES, "user", "3/min")
    client = auth(api_client, PlayerFactory())
    for _ in range(3):
        assert client.get("/api/leagues/").status_code == 200
    assert_throttled(client.get("/api/me/"))


def test_every_endpoint_has_a_limit_per_anonymous_address(api_client, monkeypatch):
    monkeypatch.setitem(RATES, "anon", "3/min")
    for _ in range(3):
        assert api_client.get("/api/leagues/").status_code == 200
    assert_throttled(api_client.get("/api/fixtures/"))


def test_behind_a_proxy_clients_are_told_apart_by_the_address_it_adds(api_client, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    for number in range(allowed("login") + 1):
        # What a client forges comes first; the proxy appends the address it saw.
        seen = {"HTTP_X_FORWARDED_FOR": f"6.6.6.6, 10.0.0.{number}"}
        assert token(api_client, "nobody", "guess", **seen).status_code == 400
    again = {"HTTP_X_FORWARDED_FOR": "10.0.0.1"}
    for number in range(allowed("login") - 1):  # 10.0.0.1 has had one already
        token(api_client, f"x{number}", "guess", **again)
    assert_throttled(token(api_client, "x", "guess", **again))
