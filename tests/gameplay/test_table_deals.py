"""Each new deal arrives sorted by the player's last chosen sort (issue 27), in a real
browser (Playwright on Debian's chromium), through the UI only."""

import time

import pytest

from gameplay import services
from tests.factories import BotPlayerFactory, PlayerFactory, RoomFactory
from tests.gameplay import test_table_page as table_page
from tests.gameplay.test_table_page import TURN, play_turn

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
asgi_server = table_page.asgi_server
open_page = table_page.open_page

RANKS, SUITS = "A23456789TJQK", "SHCD"  # the table's own orders (static/table/hand.js)
SORTS = {
    "rank": lambda card: RANKS.index(card[0]) * 5 + SUITS.index(card[1]),
    "suit": lambda card: SUITS.index(card[1]) * 20 + RANKS.index(card[0]),
}


def hand_of(page) -> list[str]:
    return page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)")


@pytest.mark.parametrize(("sort", "width", "height"), [("rank", 1280, 800), ("suit", 390, 844)])
def test_the_second_deal_arrives_sorted_by_the_players_last_sort(
    open_page, celery_worker, sort, width, height
):
    room = RoomFactory(options={"target": 500})
    ada = PlayerFactory()
    match = services.match_create(
        variant="gin", options=room.options, players=[ada, BotPlayerFactory()], room=room
    )
    page = open_page(ada, width=width, height=height)
    page.goto(f"/matches/{match.pk}/")
    page.wait_for_selector("#conn[data-state='live']")
    page.click(f"#sort-{sort}")
    assert hand_of(page) == sorted(hand_of(page), key=SORTS[sort])
    deadline = time.monotonic() + 120
    while "Hand 1" in page.inner_text("#table-meta"):
        assert time.monotonic() < deadline, "the first hand did not end in time"
        page.wait_for_selector(f"{TURN}, #table-meta:not(:text('Hand 1'))", timeout=15_000)
        if "Hand 1" not in page.inner_text("#table-meta"):
            break
        play_turn(page)
    # The new deal, before the player touches it: sorted as the player last sorted.
    dealt = hand_of(page)
    assert len(dealt) >= 10
    assert dealt == sorted(dealt, key=SORTS[sort])
