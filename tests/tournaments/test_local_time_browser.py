"""Times read in the reader's zone: a player whose browser says Asia/Kolkata sees a
tournament's start in India Standard Time, labelled, and their account keeps the zone."""

from datetime import UTC, datetime

import pytest

from gameplay.models import Player
from tests.factories import PlayerFactory
from tests.tournaments.helpers import open_tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def page(browser, live_server):
    context = browser.new_context(
        base_url=live_server.url, timezone_id="Asia/Kolkata", locale="en-IN"
    )
    page = context.new_page()
    yield page
    context.close()


def test_a_tournament_start_reads_in_asia_kolkata_for_a_browser_there(page):
    starts = datetime(2026, 12, 20, 6, 30, tzinfo=UTC)  # 12:00 in India (UTC+05:30)
    cup = open_tournament(name="Kolkata Cup", starts_at=starts)
    player = PlayerFactory()

    page.goto("/accounts/login/")
    page.fill("#id_username", player.user.username)
    page.fill("#id_password", "correct-horse-battery")
    page.click("form.card button[type=submit]")
    page.wait_for_load_state()
    # The browser's zone went in once, and the account keeps it (Chromium's ICU names
    # India's zone by its older alias; both are the same IANA zone).
    assert Player.objects.get(pk=player.pk).time_zone in ("Asia/Kolkata", "Asia/Calcutta")

    page.goto(f"/tournaments/{cup.pk}/")
    shown = page.locator("#starts time")
    assert shown.inner_text() == "Sun 20 Dec, 12:00 IST"
    assert shown.get_attribute("datetime") == "2026-12-20T06:30:00+00:00"

    page.goto("/tournaments/")
    assert "Sun 20 Dec, 12:00 IST" in page.locator("tr.tournament-row").first.inner_text()
