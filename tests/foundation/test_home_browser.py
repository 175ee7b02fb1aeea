"""The home page of a player with something on, in Chromium: their live table, a tournament
they are in, their league place and next fixture; photographed for people to look at."""

import re

import pytest

from gameplay import services as gameplay
from tests.factories import BotPlayerFactory, PlayerFactory, RoomFactory
from tests.leagues.conftest import make_league, start
from tests.tournaments.helpers import open_tournament
from tournaments import services as tournaments

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_home_shows_the_live_table_tournaments_and_league_place(page, login, shoot):
    mia = PlayerFactory(user__username="mia", display_name="Mia Jensen")
    rival = PlayerFactory(display_name="Ravi Kapoor")
    league = make_league(name="Thursday League", divisions=[("Premier", 4, 0, 0)])
    start(league, [mia, rival])
    cup = open_tournament(name="Sunday Cup")
    tournaments.entry_register(tournament_id=cup.pk, player=mia)
    table = gameplay.match_create(
        variant="gin", options={}, players=[mia, BotPlayerFactory()], room=RoomFactory()
    )

    login("mia")
    page.goto("/")
    back = page.get_by_role("link", name="Back to your table")
    assert back.get_attribute("href") == f"/matches/{table.pk}/"
    mine = page.locator("#your-tournaments")
    assert mine.get_by_role("link", name="Sunday Cup").get_attribute("href") == (
        f"/tournaments/{cup.pk}/"
    )
    # Entered already: not offered again under the tournaments taking entries.
    assert not page.locator("#open-tournaments").get_by_role("link", name="Sunday Cup").count()
    leagues = page.locator("#your-leagues")
    assert leagues.get_by_role("link", name="Thursday League").first.is_visible()
    assert re.search(r"\b(1st|2nd)\b", leagues.inner_text())  # the place, in words
    fixture = page.locator("#next-fixture")
    assert fixture.get_by_role("link", name="Ravi Kapoor").is_visible()
    assert "UTC" in fixture.inner_text()
    shoot("home-with-something-on")

    back.click()
    page.wait_for_url(f"**/matches/{table.pk}/")
    page.locator("#hand .card").first.wait_for()
