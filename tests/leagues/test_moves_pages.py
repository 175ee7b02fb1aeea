"""Promotions and relegations as they happen, in Chromium: the moved player gets a notice
on any page, the league page says where they went and marks the season's movers, and a
member sees their next fixture with its deadline on the league page."""

import pytest

from leagues.models import Standing
from tests.leagues.conftest import make_league, start
from tests.leagues.test_season_flow import play_season

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_promotion_is_a_notice_and_shows_on_the_league_page(
    page, login, bots, eager_tasks, shoot
):
    league = make_league(name="Evening League")
    season = start(league, bots(8))
    play_season(season)
    promoted = Standing.objects.get(season=season, outcome=Standing.Outcome.PROMOTED).player
    relegated = Standing.objects.get(season=season, outcome=Standing.Outcome.RELEGATED).player

    login(promoted.user.username)
    page.goto("/leaderboard/")
    notice = page.locator(".live-notice", has_text="Promoted in Evening League")
    notice.wait_for(timeout=15_000)
    assert "you play in Gold from season 2" in notice.inner_text()
    notice.locator("a").click()
    page.wait_for_url(f"**/leagues/{league.slug}/")
    assert "Promoted at the end of season 1: from Silver to Gold" in page.inner_text("#last-move")
    # The member's next fixture of the new season, with its deadline.
    assert "Your next fixture" in page.inner_text("#next-fixture")
    assert "UTC" in page.inner_text("#next-fixture")
    shoot("league-after-a-promotion")
    page.set_viewport_size({"width": 375, "height": 800})
    # The standings scroll in their own box; the page itself stays a phone's width.
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.set_viewport_size({"width": 1280, "height": 800})

    page.goto(f"/leagues/{league.slug}/?season=1&division=2")
    row = page.locator(f'tr[data-player="{promoted.pk}"]')
    assert "↑ promoted" in row.inner_text()
    page.goto(f"/leagues/{league.slug}/?season=1&division=1")
    assert "↓ relegated" in page.locator(f'tr[data-player="{relegated.pk}"]').inner_text()
