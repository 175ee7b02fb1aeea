"""A watcher finds a live game in the lobby and watches it (issue 27), in a real browser."""

import pytest

from gameplay import services
from tests.factories import PlayerFactory, RoomFactory
from tests.gameplay import test_table_page as table_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
asgi_server = table_page.asgi_server
open_page = table_page.open_page


def test_a_watcher_opens_a_live_game_from_the_lobby_and_sees_no_hand(open_page):
    room = RoomFactory(name="Open Gin", options={"target": 10}, spectators_allowed=True)
    ada = PlayerFactory(display_name="Ada")
    bob = PlayerFactory(display_name="Bob")
    eve = PlayerFactory(display_name="Eve")
    match = services.match_create(
        variant="gin", options=room.options, players=[ada, bob], room=room
    )
    private = services.match_create(variant="gin", options={}, players=[bob, eve])
    for player in (ada, bob):
        seat = open_page(player)
        seat.goto(f"/matches/{match.pk}/")
        seat.wait_for_selector("#conn[data-state='live']")
    watcher = open_page(eve)
    watcher.goto("/rooms/")
    row = watcher.locator(f"#live-games tr[data-match='{match.pk}']")
    assert "Open Gin" in row.inner_text() and "Ada, Bob" in row.inner_text()
    assert watcher.locator(f"#live-games tr[data-match='{private.pk}']").count() == 0
    row.get_by_role("link", name="Watch").click()
    watcher.wait_for_url(f"**/matches/{match.pk}/")
    watcher.wait_for_selector("#conn[data-state='live']")
    for seat in (0, 1):
        watcher.wait_for_selector(f".seat[data-seat='{seat}'] .presence[data-state='on']")
    assert watcher.locator("#hand .card").count() == 0
    table_page.assert_no_leak(watcher, match, others=[0, 1])
