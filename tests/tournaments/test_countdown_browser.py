"""The tournament list says when each open tournament starts, live: "starts in 2 hours",
ticking to "in 30 seconds" and then "now", in the page's language, at 1280 and 390 px."""

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.tournaments.helpers import open_tournament, organiser

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("no_broker"),
]


def test_the_list_counts_down_to_each_start(page, shoot):
    by = organiser()
    now = timezone.now()
    open_tournament(by=by, name="Later Cup", starts_at=now + timedelta(hours=2, minutes=5))
    open_tournament(by=by, name="Soon Cup", starts_at=now + timedelta(seconds=4))
    page.goto("/tournaments/")
    later = page.locator(".tournament-row", has_text="Later Cup").locator("time[data-countdown]")
    soon = page.locator(".tournament-row", has_text="Soon Cup").locator("time[data-countdown]")
    assert later.inner_text() == "in 2 hours"
    assert soon.inner_text().startswith("in ") and "second" in soon.inner_text()
    shoot("tournament-list-countdown")
    page.wait_for_function(
        "el => el.textContent === 'now'", arg=soon.element_handle(), timeout=10_000
    )
    page.set_viewport_size({"width": 390, "height": 800})
    assert later.is_visible()


def test_the_tournament_page_shows_its_rules_and_counts_down(page, shoot):
    tournament = open_tournament(
        name="Rules Cup",
        options={"target": 50},
        min_entries=4,
        starts_at=timezone.now() + timedelta(minutes=90),
    )
    page.goto(f"/tournaments/{tournament.pk}/")
    assert "Target 50" in page.locator("#rules").inner_text()
    countdown = page.locator("#schedule time[data-countdown]")
    assert countdown.inner_text() in ("in 1 hour", "in 89 minutes", "in 90 minutes")
    shoot("tournament-rules-schedule")
