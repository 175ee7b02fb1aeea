"""Accounts in the site: signing up with the API's rules, changing and resetting a password."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import call_command
from django.test import Client

from config.security import RateLimit
from gameplay.models import Player
from tests.factories import PlayerFactory, UserFactory

PASSWORD = "a-long-passphrase"


def sign_up(client, username, password=PASSWORD, again=None, email=""):
    return client.post(
        "/accounts/signup/",
        {
            "username": username,
            "email": email,
            "password1": password,
            "password2": again or password,
        },
    )


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_sign_up_play_and_see_the_profile_change(page, shoot, eager_tasks):
    from gameplay import services
    from tests.gameplay.test_pages import play_match

    page.goto("/")
    shoot("home-anonymous")
    page.locator("header.site").get_by_role("link", name="Sign up").click()
    page.fill("#id_username", "ada")
    page.fill("#id_email", "ada@example.com")
    page.fill("#id_password1", "short")
    page.fill("#id_password2", "short")
    page.click("form.card button[type=submit]")
    assert "This password is too short" in page.locator("[data-field=password1]").inner_text()
    shoot("signup-errors")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("form.card button[type=submit]")
    page.wait_for_selector("text=Welcome to Knock, ada!")
    player = Player.objects.get(user__username="ada")
    assert page.url.endswith(f"/players/{player.pk}/")
    assert page.locator("header.site").inner_text().count("ada") == 1
    assert "No matches yet." in page.content()
    assert "everyone starts at 1500" in page.content()

    bot = services.bot_players(kind="greedy", count=1)[0]
    play_match(player, bot, seed="signup-1")
    page.reload()
    first = page.locator("ul.matches li.match").first.inner_text()
    assert re.match(rf"(Won|Lost|Drew) \d+-\d+ against {bot.display_name}", first), first
    assert page.locator(".rating[data-variant=gin] .rating-figure").count() == 1
    shoot("profile")
    page.goto("/")
    assert "Welcome back, ada" in page.locator(".hero").inner_text()
    shoot("home-player")


@pytest.mark.django_db
def test_sign_up_uses_the_apis_rules_and_limit(client, monkeypatch):
    UserFactory(username="Grace")
    taken = sign_up(client, "grace")
    assert taken.context["form"].errors["username"] == ["That username is taken."]
    reserved = sign_up(client, "bot-greedy-7").context["form"].errors["username"][0]
    assert "belong to the house's bots" in reserved
    hidden = sign_up(client, "ad\u200ba").context["form"].errors["username"][0]
    assert "invisible" in hidden and "U+200B" in hidden
    assert sign_up(client, "ada", again="different").context["form"].errors["password2"]
    weak = sign_up(client, "ada", password="12345678").context["form"].errors["password1"]
    assert "This password is entirely numeric." in weak
    bad_mail = sign_up(client, "ada", email="not-mail").context["form"].errors["email"]
    assert bad_mail == ["That is not an email address."]
    assert not get_user_model().objects.filter(username="ada").exists()
    made = sign_up(client, "\uff21da")  # a fullwidth A: stored as the name it looks like
    player = Player.objects.get(user__username="Ada")
    assert made.url == f"/players/{player.pk}/"
    assert client.get("/accounts/signup/").url == "/me/"  # signed in already
    # The API's limit (10 an hour per address) holds on the page too: here 1, from an
    # address of its own.
    monkeypatch.setitem(RateLimit.THROTTLE_RATES, "register", "1/hour")
    elsewhere = Client(REMOTE_ADDR="10.9.8.7")
    assert sign_up(elsewhere, "first-one").status_code == 302
    elsewhere.logout()
    refused = sign_up(elsewhere, "second-one")
    assert refused.status_code == 429
    assert not get_user_model().objects.filter(username="second-one").exists()


@pytest.mark.django_db
def test_password_change_and_reset_by_mail(client):
    player = PlayerFactory(user__username="lin", user__email="lin@example.com")
    client.force_login(player.user)
    changed = client.post(
        "/accounts/password_change/",
        {
            "old_password": "correct-horse-battery",
            "new_password1": "another-long-phrase",
            "new_password2": "another-long-phrase",
        },
    )
    assert changed.url == "/accounts/password_change/done/"
    client.logout()
    client.post("/accounts/password_reset/", {"email": "lin@example.com"})
    assert len(mail.outbox) == 1 and mail.outbox[0].subject == "Reset your Knock password"
    link = re.search(r"http://testserver(/accounts/reset/\S+)", mail.outbox[0].body).group(1)
    form = client.get(link, follow=True)
    assert form.context["validlink"]
    done = client.post(
        form.redirect_chain[-1][0],
        {"new_password1": "third-long-phrase", "new_password2": "third-long-phrase"},
    )
    assert done.url == "/accounts/reset/done/"
    assert get_user_model().objects.get(username="lin").check_password("third-long-phrase")


@pytest.mark.django_db
def test_the_account_page_sets_the_email_a_reset_goes_to(client):
    assert client.get("/accounts/settings/").status_code == 302  # to the login page
    player = PlayerFactory(user__username="noor")
    client.force_login(player.user)
    bad = client.post("/accounts/settings/", {"email": "nope"})
    assert bad.context["form"].errors["email"] == ["That is not an email address."]
    saved = client.post("/accounts/settings/", {"email": "noor@example.com"}, follow=True)
    assert [str(m) for m in saved.context["messages"]] == ["Reset links go to noor@example.com."]
    player.user.refresh_from_db()
    assert player.user.email == "noor@example.com"
    client.logout()
    client.post("/accounts/password_reset/", {"email": "noor@example.com"})
    assert len(mail.outbox) == 1 and "noor" in mail.outbox[0].body


@pytest.mark.django_db
def test_reset_mails_are_limited_per_address_and_per_client_silently():
    """Issue 24: 16 mails in seconds to one address. Now 3 an hour to an address and 10 an
    hour from a client; past either the page is the same, and no mail goes."""
    from django.test import Client

    PlayerFactory(user__username="lin", user__email="lin@example.com")
    PlayerFactory(user__username="max", user__email="max@example.com")
    pages = []
    for number in range(5):  # one address, from five clients
        asked = Client(REMOTE_ADDR=f"10.1.0.{number}").post(
            "/accounts/password_reset/", {"email": "LIN@example.com"}
        )
        pages.append((asked.status_code, asked.url))
    assert len(mail.outbox) == 3
    flood = Client(REMOTE_ADDR="10.2.0.1")  # one client, many addresses
    for number in range(12):
        email = "max@example.com" if number == 11 else f"nobody{number}@example.com"
        asked = flood.post("/accounts/password_reset/", {"email": email})
        pages.append((asked.status_code, asked.url))
    assert len(mail.outbox) == 3  # max's mail was the client's 12th ask: withheld
    assert set(pages) == {(302, "/accounts/password_reset/done/")}
    Client(REMOTE_ADDR="10.3.0.1").post("/accounts/password_reset/", {"email": "max@example.com"})
    assert len(mail.outbox) == 4 and mail.outbox[-1].to == ["max@example.com"]


@pytest.mark.django_db
def test_the_reset_mail_is_in_the_accounts_language_whatever_the_browser(client):
    call_command("compilemessages", verbosity=0)
    PlayerFactory(user__username="meera", user__email="meera@example.com", language="hi")
    client.post(
        "/accounts/password_reset/", {"email": "meera@example.com"}, HTTP_ACCEPT_LANGUAGE="en"
    )
    (sent,) = mail.outbox
    assert sent.subject == "अपना Knock पासवर्ड रीसेट करें"
    assert sent.body.startswith("नमस्ते meera,")
