"""Notices pushed over the notice socket, in Chromium against uvicorn on config.asgi: a
player on any page sees "check-in is open" and "your table is ready" as they happen, well
before the page's 10 s poll would have asked; the poll stays as the fallback (proven by
tests/tournaments/test_web_browser.py, whose server serves no sockets)."""

import time

import pytest

from gameplay.models import Player
from tests.gameplay import test_table_page as table_page
from tests.tournaments.helpers import bots, humans, open_tournament, register_all
from tournaments import services

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("no_broker"),
]
asgi_server = table_page.asgi_server
open_page = table_page.open_page

POLL_SECONDS = 10


def pushed(page, text: str) -> bool:
    return any(text in str(frame) for frame in page.frames_seen)


def test_check_in_and_a_ready_table_are_pushed_to_any_page(open_page):
    tournament = open_tournament(name="Night Gin", show_up_seconds=600)
    [player] = humans(1)
    register_all(tournament, [player, *bots(1)])
    page = open_page(Player.objects.get(pk=player.pk))
    page.goto("/leaderboard/")
    page.frames_seen.clear()  # the home page's socket said "nothing yet" too
    # The socket is open and has said "nothing yet": the page's next poll is 10 s away.
    deadline = time.monotonic() + 10
    while not pushed(page, '"notices": []'):
        assert time.monotonic() < deadline, "the notice socket said nothing"
        page.wait_for_timeout(100)  # Playwright delivers the frames while it waits

    opened = time.monotonic()
    services.tournament_open_check_in(tournament_id=tournament.pk, by=tournament.organiser)
    notice = page.locator(".live-notice", has_text="Check-in is open for Night Gin")
    notice.wait_for(timeout=(POLL_SECONDS - 3) * 1000)
    assert time.monotonic() - opened < POLL_SECONDS - 3
    assert pushed(page, "Check-in is open for Night Gin")

    services.entry_check_in(tournament_id=tournament.pk, player=player)
    bot = tournament.entries.exclude(player=player).get().player
    services.entry_check_in(tournament_id=tournament.pk, player=bot)
    page.goto("/rooms/")
    page.wait_for_timeout(1000)
    services.tournament_start(tournament_id=tournament.pk, by=tournament.organiser)
    ready = page.locator(".live-notice", has_text="Your table in Night Gin is ready")
    ready.wait_for(timeout=(POLL_SECONDS - 3) * 1000)
    assert pushed(page, "Your table in Night Gin is ready")
    ready.locator("a").click()
    page.wait_for_url(f"**/tournaments/{tournament.pk}/")
    assert page.locator("#take-seat").is_visible()
