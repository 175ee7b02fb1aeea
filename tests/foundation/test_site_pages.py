"""The site's main pages in Chromium at a desktop and a phone width: each renders under the
CSP, fits a 375 px screen without sideways scrolling, and is photographed for people to look
at (var/screenshots/site/, or $KNOCK_SHOTS)."""

import pytest

from gameplay import services as gameplay
from gameplay import tasks as gameplay_tasks
from tests.factories import PlayerFactory, RoomFactory
from tests.tournaments.helpers import bots, drive, open_tournament, register_all
from tournaments import services
from tournaments import tasks as tournament_tasks

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ANONYMOUS = {
    "login": "/accounts/login/",
    "signup": "/accounts/signup/",
    "password-reset": "/accounts/password_reset/",
}
SIGNED_IN = {
    "tournaments": "/tournaments/",
    "lobby": "/rooms/",
    "leagues": "/leagues/",
    "leaderboard": "/leaderboard/",
}


def fits_a_phone(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth") <= 375


def nav_is_whole_on_a_phone(page) -> bool:
    """Every header link and button is drawn in full inside the screen: none is cut at its
    edge, scrolled out of sight or hidden (Account included)."""
    return page.evaluate(
        """() => [...document.querySelectorAll('header.site a, header.site button')].every(e => {
            const box = e.getBoundingClientRect();
            return box.width > 0 && box.left >= 0 && box.right <= innerWidth
                && e.scrollWidth <= e.clientWidth + 1;
        })"""
    )


def test_main_pages_fit_a_phone_and_are_photographed(page, login, shoot, monkeypatch):
    # The test plays the bracket itself (tests.tournaments.helpers.drive): no broker.
    for task in (
        gameplay_tasks.play_bots,
        gameplay_tasks.finalize_match,
        tournament_tasks.match_finished,
        tournament_tasks.start_tables,
    ):
        monkeypatch.setattr(task, "delay", lambda *args, **kwargs: None)
    RoomFactory(name="Gin Quick Play")
    RoomFactory(name="High Rollers", min_level=5, entry_fee=50)
    finished = open_tournament(name="Autumn Classic", show_up_seconds=0)
    register_all(finished, bots(8))
    services.tournament_start(tournament_id=finished.pk)
    drive(finished)
    taking = open_tournament(
        name="Winter Open", entry_fee=20, max_entries=16, by=finished.organiser
    )
    register_all(taking, bots(3))
    mia = PlayerFactory(user__username="mia")
    gameplay.coins_book(player_id=mia.pk, amount=100, reason="test", key="mia-coins")

    def visit(pages: dict) -> None:
        for name, path in pages.items():
            page.set_viewport_size({"width": 375, "height": 800})
            page.goto(path)
            assert fits_a_phone(page), f"{path} scrolls sideways on a phone"
            assert nav_is_whole_on_a_phone(page), f"{path}: the header is cut on a phone"
            shoot(name)

    visit(ANONYMOUS)
    login("mia")
    visit(
        {
            **SIGNED_IN,
            "tournament-finished": f"/tournaments/{finished.pk}/",
            "tournament-open": f"/tournaments/{taking.pk}/",
            "home-with-entries": "/",
        }
    )
    # On a phone too, the header keeps the account's own link.
    page.set_viewport_size({"width": 375, "height": 800})
    assert page.locator("header.site a", has_text="Account").is_visible()
