"""API tokens (gameplay.models.ApiToken): several per person, listed and revoked through
the API and the account page, revoked by a password change or reset, expiring."""

import re
from datetime import timedelta

import pytest
from django.apps import apps
from django.core import mail
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from gameplay import services
from gameplay.models import ApiToken
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db
PASSWORD = "correct-horse-battery"


def token_for(username: str, name: str = "", password: str = PASSWORD) -> dict:
    answer = APIClient().post(
        "/api/auth/token/", {"username": username, "password": password, "name": name}
    )
    assert answer.status_code == 200, answer.content
    return answer.json()


def me(key: str) -> int:
    return APIClient(HTTP_AUTHORIZATION=f"Token {key}").get("/api/me/").status_code


def test_each_login_makes_a_named_token_that_the_player_lists_and_revokes():
    PlayerFactory(user__username="ada")
    phone, bot = token_for("ada", "phone"), token_for("ada", "bot")
    assert phone["token"] != bot["token"] and me(phone["token"]) == me(bot["token"]) == 200
    client = APIClient(HTTP_AUTHORIZATION=f"Token {phone['token']}")
    listed = client.get("/api/me/tokens/").json()
    assert [(t["name"], t["current"]) for t in listed] == [("bot", False), ("phone", True)]
    assert all(t["prefix"] in (phone["token"][:8], bot["token"][:8]) for t in listed)
    assert all("token" not in t and "digest" not in t for t in listed)  # keys are shown once

    assert client.delete(f"/api/me/tokens/{bot['id']}/").status_code == 204
    assert me(bot["token"]) == 401 and me(phone["token"]) == 200
    assert [t["name"] for t in client.get("/api/me/tokens/").json()] == ["phone"]


def test_nobody_revokes_another_players_token():
    PlayerFactory(user__username="ada"), PlayerFactory(user__username="bob")
    ada, bob = token_for("ada"), token_for("bob")
    client = APIClient(HTTP_AUTHORIZATION=f"Token {bob['token']}")
    refused = client.delete(f"/api/me/tokens/{ada['id']}/")
    assert refused.status_code == 404 and refused.json()["error"]["code"] == "not_found"
    assert client.delete("/api/me/tokens/999999/").status_code == 404
    assert me(ada["token"]) == 200
    assert APIClient().delete(f"/api/me/tokens/{ada['id']}/").status_code == 401


def test_only_the_digest_is_stored():
    PlayerFactory(user__username="ada")
    key = token_for("ada")["token"]
    stored = ApiToken.objects.get()
    assert key not in (stored.digest, stored.prefix) and stored.prefix == key[:8]


def test_a_password_change_on_the_site_revokes_the_old_tokens():
    player = PlayerFactory(user__username="lin")
    old = token_for("lin")["token"]
    site = Client()
    site.force_login(player.user)
    changed = site.post(
        "/accounts/password_change/",
        {
            "old_password": PASSWORD,
            "new_password1": "another-phrase",
            "new_password2": "another-phrase",
        },
    )
    assert changed.url == "/accounts/password_change/done/"
    assert me(old) == 401
    new = token_for("lin", password="another-phrase")["token"]
    assert me(new) == 200
    listed = APIClient(HTTP_AUTHORIZATION=f"Token {new}").get("/api/me/tokens/").json()
    assert len(listed) == 1  # the old one is neither listed nor kept


def test_a_password_reset_revokes_the_old_tokens():
    PlayerFactory(user__username="lin", user__email="lin@example.com")
    old = token_for("lin")["token"]
    site = Client()
    site.post("/accounts/password_reset/", {"email": "lin@example.com"})
    link = re.search(r"http://testserver(/accounts/reset/\S+)", mail.outbox[0].body).group(1)
    form = site.get(link, follow=True)
    done = site.post(
        form.redirect_chain[-1][0],
        {"new_password1": "third-long-phrase", "new_password2": "third-long-phrase"},
    )
    assert done.url == "/accounts/reset/done/"
    assert me(old) == 401


def test_tokens_expire(settings):
    settings.KNOCK_API_TOKEN_DAYS = 30
    PlayerFactory(user__username="ada")
    issued = token_for("ada")
    token = ApiToken.objects.get(pk=issued["id"])
    assert abs(token.expires_at - (timezone.now() + timedelta(days=30))) < timedelta(minutes=1)
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    refused = APIClient(HTTP_AUTHORIZATION=f"Token {issued['token']}").get("/api/me/")
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "authentication_failed"


def test_a_token_with_no_expiry_when_configured(settings):
    settings.KNOCK_API_TOKEN_DAYS = 0
    PlayerFactory(user__username="ada")
    assert token_for("ada")["expires_at"] is None


def test_a_person_keeps_at_most_the_newest_tokens():
    player = PlayerFactory(user__username="ada")
    keys = [
        services.api_token_create(user=player.user)[1] for _ in range(services.API_TOKENS_MAX + 2)
    ]
    assert ApiToken.objects.filter(user=player.user).count() == services.API_TOKENS_MAX
    assert me(keys[0]) == 401 and me(keys[-1]) == 200


def test_sign_up_answers_a_working_token():
    answer = APIClient().post("/api/auth/register/", {"username": "newt", "password": PASSWORD})
    assert answer.status_code == 201
    assert me(answer.json()["token"]) == 200


def test_the_migration_carries_drf_tokens_over_with_their_keys():
    """Clients from before keep their key: gameplay 0012 hashes each DRF token's key."""
    from importlib import import_module

    player = PlayerFactory(user__username="old")
    legacy = Token.objects.create(user=player.user)
    import_module("gameplay.migrations.0012_api_tokens").carry_over_drf_tokens(apps, None)
    assert me(legacy.key) == 200 and not Token.objects.exists()


def test_the_account_page_revokes_only_your_own_tokens():
    ada, bob = PlayerFactory(user__username="ada"), PlayerFactory(user__username="bob")
    adas = token_for("ada")
    site = Client()
    site.force_login(bob.user)
    refused = site.post(f"/accounts/tokens/{adas['id']}/revoke/", follow=True)
    assert refused.status_code == 200 and "No such token." in refused.content.decode()
    assert me(adas["token"]) == 200
    assert site.get(f"/accounts/tokens/{adas['id']}/revoke/").status_code == 405
    site.force_login(ada.user)
    page = site.get("/accounts/settings/").content.decode()
    assert adas["token"][:8] in page and adas["token"] not in page
    site.post(f"/accounts/tokens/{adas['id']}/revoke/")
    assert me(adas["token"]) == 401


def test_staff_revoke_a_token_by_deleting_it_in_the_admin(admin_client):
    PlayerFactory(user__username="ada")
    issued = token_for("ada")
    delete = f"/admin/gameplay/apitoken/{issued['id']}/delete/"
    assert admin_client.post(delete, {"post": "yes"}).status_code == 302
    assert me(issued["token"]) == 401
    assert admin_client.get("/admin/authtoken/tokenproxy/").status_code == 404
