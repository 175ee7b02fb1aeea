"""Joining a league from its page: the rules shown, the API's service, signed-in only."""

from datetime import timedelta

import pytest
from django.utils import timezone

from leagues import selectors, services
from leagues.models import Membership, Round
from tests.factories import PlayerFactory
from tests.leagues.conftest import make_league, start


@pytest.mark.django_db
def test_joining_a_league_from_its_page(client):
    league = make_league(name="Page League")
    services.season_create(league=league, starts_at=timezone.now() + timedelta(days=3))
    url = f"/leagues/{league.slug}/"
    page = client.get(url).content.decode()
    assert "Join this league" in page and "You start in the bottom division (Silver)" in page
    assert "Each round you have 1 day to play" in page and "Log in to join" in page
    assert client.post(f"{url}join/").status_code == 302  # to the login page
    assert not Membership.objects.exists()
    player = PlayerFactory()
    client.force_login(player.user)
    joined = client.post(f"{url}join/", follow=True)
    message = [str(m) for m in joined.context["messages"]]
    assert message[0].startswith("You are in Page League: you play in Silver from season 1")
    assert Membership.objects.get(player=player).division.name == "Silver"
    assert "Your division: <strong>Silver</strong>" in joined.content.decode()
    client.post(f"{url}join/")  # twice is once, as in the API
    assert Membership.objects.filter(player=player).count() == 1


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_player_joins_a_league_in_the_browser(page, login, shoot):
    league = make_league(name="Browser Join League")
    PlayerFactory(user__username="lena")
    login("lena")
    page.goto("/leagues/")
    page.click("text=Browser Join League")
    assert "Open to every player" in page.locator("#join-league").inner_text()
    shoot("league-join")
    page.click("#join")
    page.wait_for_selector("text=You are in Browser Join League")
    assert Membership.objects.filter(league=league, player__user__username="lena").exists()


@pytest.mark.django_db
def test_home_shows_the_next_fixture_and_its_deadline(client):
    league = make_league(name="Home League", divisions=[("Only", 4, 0, 0)])
    me, other = PlayerFactory(display_name="Me"), PlayerFactory(display_name="Rival")
    start(league, [me, other])
    client.force_login(me.user)
    home = client.get("/").content.decode()
    assert "Next fixture:</strong> Home League, round 1, against" in home
    assert ">Rival</a>." in home and "play it by" in home
    assert "1st" in home or "2nd" in home  # the league place, in words


@pytest.mark.django_db
def test_the_next_fixture_says_whether_its_round_is_to_come_due_or_open(client):
    league = make_league(name="Timing League", divisions=[("Only", 4, 0, 0)])
    me = PlayerFactory()
    start(league, [me, PlayerFactory()])
    client.force_login(me.user)
    first = selectors.next_fixture(me).round

    def when() -> str:
        home = client.get("/").content.decode()
        return home.split('class="muted small fixture-when">')[1].split("</p>")[0]

    later = timezone.now() + timedelta(hours=2)
    Round.objects.filter(pk=first.pk).update(opens_at=later, deadline=later + timedelta(days=1))
    assert when().startswith("Opens ")
    # Its time has come, but beat has not dealt it yet: not "Opens" at a time gone by.
    Round.objects.filter(pk=first.pk).update(opens_at=timezone.now() - timedelta(minutes=1))
    assert when().startswith("Opening now: your table is being dealt; play it by ")
    services.round_open(round_id=first.pk)
    assert when().startswith("Open now: play it by ")
