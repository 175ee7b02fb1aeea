"""The league table, its tabs and season selector, and the leaderboard, in Chromium."""

import pytest

from gameplay import services as gameplay
from leagues import services
from leagues.models import Standing
from tests.leagues.conftest import make_league, start

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_league_table_tabs_and_season_selector(page, eager_tasks):
    league = make_league(name="Browser League", divisions=[("Gold", 2, 0, 1), ("Silver", 2, 1, 0)])
    season = start(league, gameplay.bot_players(kind="greedy", count=4))
    rows = Standing.objects.filter(season=season)
    for won, row in enumerate(rows.order_by("player_id")):
        Standing.objects.filter(pk=row.pk).update(played=1, won=1, points=3 + won, form="W")
    services.standings_rank(season=season)
    page.goto("/leagues/")
    page.click("text=Browser League")
    page.wait_for_selector("table.league-table")
    assert page.locator("nav.tabs a.active").inner_text() == "Gold"
    assert page.locator("tr.zone-relegation").count() == 1
    # Level at the start (shared first place), then one dropped to second.
    assert page.locator("td.move .same").count() == 1
    assert page.locator("td.move .down").count() == 1
    page.click("nav.tabs >> text=Silver")
    page.wait_for_selector("nav.tabs a.active:has-text('Silver')")
    assert page.locator("tr.zone-promotion").count() == 1
    assert page.locator("#season-select option").count() == 1
    page.select_option("#season-select", "1")
    page.wait_for_load_state()
    assert "season=1" in page.url and "division=2" in page.url


def test_leaderboard_page(page):
    page.goto("/leaderboard/")
    assert page.title() == "Leaderboard · Knock"
    # An empty board says so and how to get on it, without a table of empty headings.
    assert not page.locator("table.leaderboard").count()
    assert "play 3 rated matches" in page.locator(".card.empty").inner_text()
