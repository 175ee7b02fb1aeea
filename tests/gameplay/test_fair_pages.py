"""Fair play in the browser (issue 16): the lobby's browser draws the client seed as the
player sits down, and the public /verify/ page checks a finished match."""

import re

import pytest

from engine import variants
from gameplay import games, services
from gameplay.models import Match, Seat
from tests.factories import PlayerFactory, RoomFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_sitting_down_in_the_lobby_sends_a_seed_drawn_by_the_browser(page, login):
    RoomFactory(name="Gin Quick Play")
    PlayerFactory(user__username="ada")
    login("ada")
    page.goto("/rooms/")
    with page.expect_request(lambda r: r.method == "POST" and "/play/" in r.url) as sent:
        page.click("tr.room button[value=bot]")
    page.wait_for_url(re.compile(r"/matches/\d+/$"))
    posted = dict(pair.split("=", 1) for pair in sent.value.post_data.split("&"))
    assert re.fullmatch(r"[0-9a-f]{32}", posted["client_seed"])
    assert Match.objects.get().client_seeds == [posted["client_seed"], None]


def test_the_verify_page_checks_a_finished_match_for_anyone(page, shoot):
    match = play_between_people(PlayerFactory(), PlayerFactory())
    page.goto("/verify/")
    assert page.title() == "Verify a match · Knock"
    page.fill("#match-id", str(match.pk))
    page.click("#verify-id button[type=submit]")
    assert "Verified" in page.locator("#verdict").inner_text()
    assert page.locator("ol.check li.move").count() == match.seq
    assert page.locator("ol.check li.deal").first.inner_text().startswith("seat 0: ")
    shoot("verify")


def play_between_people(*people) -> Match:
    """A whole match between people, each moving as the greedy bot would."""
    match = services.match_create(variant="gin", options={"target": 10}, players=list(people))
    while match.status == Match.Status.ACTIVE:
        seat = Seat.objects.select_related("player").get(match=match, index=match.to_move)
        action = variants.get("gin").bot_action(games.load(match), seat.index, bot="greedy")
        services.match_act(match_id=match.pk, player=seat.player, seq=match.seq, action=action)
        match.refresh_from_db()
    return match
