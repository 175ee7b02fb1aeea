"""Knock in Hindi, as a player whose browser asks for it sees it: the sign-up, the lobby, a
Gin table and a tournament's registration rendered in Chromium, with no English left on
those pages but names, card ranks and the few tokens listed in ALLOWED (a test that fails
on an untranslated string, in the page's text or in a label a screen reader reads)."""

import re
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from gameplay.models import Player
from tests.factories import RoomFactory
from tests.gameplay import test_table_page as table_page
from tests.tournaments.helpers import open_tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
asgi_server = table_page.asgi_server
PASSWORD = "a-long-passphrase"
USERNAME = "राहुल"

# Latin words a Hindi page may keep: the brand, technical names and units that Indian
# sites write in Latin letters too, the language switcher's own names, time zones' short
# names, and the example names of the username help.
ALLOWED = {
    "Knock", "API", "XP", "SHA", "JSON", "OpenAPI", "Swagger", "UI", "POST", "api", "auth",
    "token", "docs", "schema", "healthz", "English", "India", "UTC", "IST", "Ada", "ada",
    "Alt", "Enter", "H", "OpenSkill", "SEED", "sha256sum", "printf", "CSV",
}  # fmt: skip
# A card's visible text: its rank (A 2-10 J Q K) and suit sign.
CARD_RANK = re.compile(r"^(?:[AJQKT]|10|[2-9])$")
HEX = re.compile(r"\b[0-9a-f]{12,}\b")
WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019]+|[A-Za-z]")

READ_PAGE = """() => {
  const attrs = [];
  for (const el of document.querySelectorAll("[aria-label], [title], [placeholder], [alt]")) {
    for (const name of ["aria-label", "title", "placeholder", "alt"]) {
      const value = el.getAttribute(name);
      if (value) attrs.push(value);
    }
  }
  return [document.title, document.body.innerText, ...attrs].join("\\n");
}"""


@pytest.fixture(scope="module", autouse=True)
def catalogues():
    """The .mo files from the .po files, as `make test` compiles them."""
    call_command("compilemessages", verbosity=0)


@pytest.fixture
def page(browser, asgi_server):
    context = browser.new_context(
        base_url=asgi_server,
        viewport={"width": 1280, "height": 900},
        locale="hi-IN",  # Accept-Language: hi-IN
    )
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(error))
    yield page
    context.close()
    assert not errors, f"the page's JavaScript failed: {errors}"


def english_left(page, names: set[str]) -> list[str]:
    text = page.evaluate(READ_PAGE)
    for name in names:
        text = text.replace(name, " ")
    text = HEX.sub(" ", text)  # seeds and commitments
    return sorted(
        {word for word in WORD.findall(text) if word not in ALLOWED and not CARD_RANK.match(word)}
    )


def assert_hindi(page, what: str, names: set[str] = frozenset()) -> None:
    assert page.get_attribute("html", "lang") == "hi", what
    left = english_left(page, {USERNAME, *names})
    assert not left, f"{what}: English left on the page: {left}"


def test_sign_up_lobby_a_gin_table_and_a_tournament_registration_are_all_in_hindi(page, shoot):
    room = RoomFactory(name="Quick Gin", options={"target": 10})
    cup = open_tournament(name="Diwali Cup", starts_at=timezone.now() + timedelta(days=2))

    page.goto("/")
    assert_hindi(page, "the home page", {"Diwali Cup"})
    page.locator("header.site").get_by_role("link", name="साइन अप").click()
    assert_hindi(page, "the sign-up page")
    page.fill("#id_username", USERNAME)
    page.fill("#id_password1", "short")
    page.fill("#id_password2", "short")
    page.click("form.card button[type=submit]")
    assert_hindi(page, "the sign-up page with its refusals")
    shoot("hindi-signup-refused")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("form.card button[type=submit]")
    player = Player.objects.get(user__username=USERNAME)
    page.wait_for_url(f"**/players/{player.pk}/")
    assert Player.objects.get(pk=player.pk).language == "hi"  # kept on the account
    assert_hindi(page, "the new player's profile")

    page.locator("header.site").get_by_role("link", name="खेलें").click()
    assert_hindi(page, "the lobby", {"Quick Gin"})
    shoot("hindi-lobby")
    page.locator(f"tr.room[data-room='{room.pk}']").get_by_role(
        "button", name="बॉट के साथ खेलें"
    ).click()
    page.wait_for_url("**/matches/*/")
    page.wait_for_selector("#conn[data-state='live']")
    bot = player.seats.get().match.seats.exclude(player=player).get().player.display_name
    assert_hindi(page, "the Gin table", {"Quick Gin", bot})
    shoot("hindi-table")

    page.goto(f"/tournaments/{cup.pk}/")
    assert_hindi(page, "the tournament before registering", {"Diwali Cup", "organiser"})
    page.get_by_role("button", name="रजिस्टर करें").click()
    page.wait_for_selector(".entry-status[data-status='registered']")
    assert_hindi(page, "the tournament after registering", {"Diwali Cup", "organiser"})
    shoot("hindi-tournament")
