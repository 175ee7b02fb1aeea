"""Passwords in Chromium, as a person changes and resets one: through the account page,
and through the mailed link (Django's test outbox stands in for the console or SMTP)."""

import re

import pytest
from django.core import mail
from rest_framework.test import APIClient

from gameplay import services
from tests.factories import PlayerFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def signed_in(page) -> bool:
    """The account page opens only for someone signed in (else it sends them to log in)."""
    page.goto("/accounts/settings/")
    return "/accounts/login/" not in page.url


def log_out(page) -> None:
    page.get_by_role("button", name="Log out").click()
    page.wait_for_load_state()


def test_a_player_changes_their_password_then_logs_in_with_it(page, login, shoot):
    PlayerFactory(user__username="lin")
    login("lin")
    page.goto("/")
    page.get_by_role("link", name="Account", exact=True).click()
    page.get_by_role("link", name="Change your password").click()
    page.fill("#id_old_password", "correct-horse-battery")
    page.fill("#id_new_password1", "another-long-phrase")
    page.fill("#id_new_password2", "another-long-phrase")
    shoot("password-change")
    page.get_by_role("button", name="Change password").click()
    page.wait_for_url("**/accounts/password_change/done/")
    shoot("password-change-done")
    log_out(page)
    assert not signed_in(page)
    login("lin", "correct-horse-battery")
    assert not signed_in(page), "the old password still works"
    login("lin", "another-long-phrase")
    assert signed_in(page)


def test_a_player_resets_a_forgotten_password_through_the_mailed_link(page, login, shoot):
    PlayerFactory(user__username="noor", user__email="noor@example.com")
    page.goto("/accounts/login/")
    page.get_by_role("link", name="Forgot your password?").click()
    page.fill("#id_email", "noor@example.com")
    shoot("password-reset")
    page.get_by_role("button", name="Send the link").click()
    page.wait_for_url("**/accounts/password_reset/done/")
    [message] = mail.outbox
    assert "noor" in message.body and message.to == ["noor@example.com"]
    link = re.search(r"https?://[^/\s]+(/accounts/reset/\S+)", message.body).group(1)
    page.goto(link)
    page.fill("#id_new_password1", "third-long-phrase")
    page.fill("#id_new_password2", "third-long-phrase")
    shoot("password-reset-new")
    page.get_by_role("button", name="Set password").click()
    page.wait_for_url("**/accounts/reset/done/")
    login("noor", "third-long-phrase")
    assert signed_in(page)


def test_a_player_revokes_an_api_token_on_the_account_page(page, login, shoot):
    player = PlayerFactory(user__username="kit")
    phone = services.api_token_create(user=player.user, name="phone")[1]
    bot = services.api_token_create(user=player.user, name="my bot")[1]
    login("kit")
    page.goto("/accounts/settings/")
    rows = page.locator("#api-tokens tbody tr")
    assert rows.count() == 2 and "my bot" in rows.nth(0).inner_text()
    shoot("api-tokens")
    page.get_by_role("button", name=f"Revoke token {bot[:8]}").click()
    page.wait_for_load_state()
    assert "The token is revoked" in page.locator("body").inner_text()
    assert rows.count() == 1 and "phone" in rows.nth(0).inner_text()
    me = APIClient(HTTP_AUTHORIZATION=f"Token {bot}").get("/api/me/")
    assert me.status_code == 401
    assert APIClient(HTTP_AUTHORIZATION=f"Token {phone}").get("/api/me/").status_code == 200
