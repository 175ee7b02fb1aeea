"""Sign up, play, see the profile change: a new person does all of it in Chromium, the
match too (card by card at the table page, against a bot on a real worker)."""

import re
import time

import pytest

from gameplay.models import Match, Player
from tests.factories import RoomFactory
from tests.gameplay import test_table_page as table_page
from tests.gameplay.test_table_page import play_to_the_end

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
# The table needs its socket: uvicorn serves config.asgi in a thread (test_table_page.py).
asgi_server = table_page.asgi_server
PASSWORD = "a-long-passphrase"


@pytest.fixture
def page(browser, asgi_server):
    """A fresh browser page on the ASGI server (in place of the suite's, on the WSGI live
    server, so `shoot` photographs this one), nobody signed in; fails on a script error."""
    context = browser.new_context(base_url=asgi_server, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(error))
    yield page
    context.close()
    assert not errors, f"the page's JavaScript failed: {errors}"


def test_a_new_person_signs_up_plays_a_match_and_sees_their_profile_change(
    page, shoot, celery_worker
):
    room = RoomFactory(name="Quick Gin", options={"target": 10})
    page.goto("/")
    page.locator("header.site").get_by_role("link", name="Sign up").click()
    page.fill("#id_username", "ada")
    page.fill("#id_email", "ada@example.com")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("form.card button[type=submit]")
    player = Player.objects.get(user__username="ada")
    page.wait_for_url(f"**/players/{player.pk}/")
    assert not page.locator("ul.matches li.match").count()
    assert not page.locator(".rating[data-variant=gin]").count()

    page.locator("header.site").get_by_role("link", name="Play").click()
    page.locator(f"tr.room[data-room='{room.pk}']").get_by_role(
        "button", name="Play vs a bot"
    ).click()
    page.wait_for_url("**/matches/*/")
    page.wait_for_selector("#conn[data-state='live']")
    play_to_the_end(page, seconds=120)
    shoot("signup-play-result")
    match = Match.objects.get(seats__player=player)
    assert match.status == Match.Status.FINISHED

    # Finalize runs on the worker: the profile shows the match once it has.
    opponent = match.seats.exclude(player=player).get().player
    page.goto(f"/players/{player.pk}/")
    deadline = time.monotonic() + 20
    while not page.locator("ul.matches li.match").count():
        assert time.monotonic() < deadline, "the profile never showed the match"
        time.sleep(0.5)
        page.reload()
    first = page.locator("ul.matches li.match").first.inner_text()
    assert re.match(rf"(Won|Lost) \d+-\d+ against {re.escape(opponent.display_name)}", first)
    assert page.locator(".rating[data-variant=gin] .rating-figure").count() == 1
    shoot("signup-play-profile")
