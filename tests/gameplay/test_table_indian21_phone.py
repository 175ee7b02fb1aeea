"""A whole 21-card Indian match on a 390 px phone, by taps (Playwright on Debian's
chromium): the person plays the greedy bot's moves against the greedy bot until one of them
declares. 21 or 22 cards lie in rows of whole cards, so every card is a tap target of at
least 44 px and a tap on a card's centre selects that card (issue 32)."""

import copy
import time
from pathlib import Path

import pytest

from engine import variants
from gameplay import games, services
from gameplay.models import Match
from tests.factories import BotPlayerFactory, PlayerFactory, RoomFactory
from tests.gameplay import test_table_page as table_page
from tests.gameplay.test_table_page import seq_of, wait_seq

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
asgi_server = table_page.asgi_server
open_page = table_page.open_page
SHOTS = Path("/tmp/shots-table")
MINE = "#knock-table.my-turn:not(.busy), #knock-table:not([data-status='active'])"
V21 = variants.get("indian21")


def declares_by_greedy(match) -> bool:
    """Whether greedy against greedy ends this match's deal with a declaration (the deal
    seed mixes in the person's client seed, so the test asks the engine, not a fixed seed)."""
    g = copy.deepcopy(games.load(match))
    while not g.over:
        g.apply(V21.bot_action(g, g.to_move, "greedy"), g.to_move)
    return g.last_hand["kind"] == "declared"


def loose_card(page, text: str):
    """A copy of a card not yet selected (three decks: the last such copy)."""
    return page.locator(f"#hand .card[data-card='{text}'][aria-pressed='false']").last


def check_whole_cards(page) -> None:
    """Every card of the hand at least 44 px square, on the screen, overlapping no other."""
    faces = page.locator("#hand .card")
    boxes = [faces.nth(i).bounding_box() for i in range(faces.count())]
    assert len(boxes) >= 21
    for box in boxes:
        # Layout rounds to a 64th of a pixel: 43.99999 is a 44 px box.
        assert round(box["width"]) >= 44 and round(box["height"]) >= 44, box
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart = (
                a["x"] + a["width"] <= b["x"]
                or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"]
                or b["y"] + b["height"] <= a["y"]
            )
            assert apart, f"cards overlap: {a} {b}"


def check_every_card_is_its_own_tap_target(page) -> None:
    check_whole_cards(page)
    for i in range(page.locator("#hand .card").count()):
        face = page.locator(f"#hand .card[data-position='{i}']")
        face.click()  # Playwright taps the element's centre
        assert page.get_attribute(f"#hand .card[data-position='{i}']", "aria-pressed") == "true"
        selected = page.locator("#hand .card[aria-pressed='true']")
        assert selected.count() == 1
        face.click()
        assert page.get_attribute(f"#hand .card[data-position='{i}']", "aria-pressed") == "false"


def tap_action(page, action: dict) -> None:
    kind = action["type"]
    if kind == "draw" and action["source"] == "stock":
        page.click("#stock.playable:not([disabled])", timeout=30_000)
    elif kind == "draw":
        page.click("#discard .upcard")
    elif kind == "declare":
        loose_card(page, action["card"]).click()
        page.click("#actions >> text=/^Declare/")
    elif kind == "discard":
        loose_card(page, action["card"]).click()
        page.click("#actions >> text=Discard the")
    else:
        raise AssertionError(f"no tap for {action}")


def test_a_whole_21_card_match_by_taps_on_a_phone(open_page, celery_worker):
    room = RoomFactory(variant="indian21", seats=2, options={})
    for _ in range(10):
        ada = PlayerFactory()
        match = services.match_create(
            variant="indian21", options={}, players=[ada, BotPlayerFactory()], room=room
        )
        if declares_by_greedy(match):
            break
    page = open_page(ada, width=390, height=844, touch=True)
    page.goto(f"/matches/{match.pk}/")
    page.wait_for_selector("#conn[data-state='live']")
    page.wait_for_selector("#knock-table.rows-hand")
    assert "Value cards" in page.inner_text("#knock-table")
    SHOTS.mkdir(parents=True, exist_ok=True)
    checked = False
    deadline = time.monotonic() + 600
    while page.get_attribute("#knock-table", "data-status") == "active":
        assert time.monotonic() < deadline, "the match did not finish in time"
        page.wait_for_selector(MINE, timeout=60_000)
        match.refresh_from_db()
        if match.status != Match.Status.ACTIVE:
            break
        if match.to_move != 0 or seq_of(page) != match.seq:
            time.sleep(0.1)
            continue
        game = games.load(match)
        if not checked and game.phase == "discard":
            page.screenshot(path=str(SHOTS / "indian21-390-hand.png"), full_page=True)
            check_every_card_is_its_own_tap_target(page)
            # Grouped rows: two groups of the player's, each a box of whole cards.
            for group in ((0, 1, 2), (3, 4, 5, 6)):
                for i in group:
                    page.locator(f"#hand .card[data-position='{i}']").click()
                page.click("#group-selected")
            page.wait_for_selector("#hand.zoned .zone-cards")
            assert page.locator("#hand .zone:not(.loose):not(.new-group)").count() == 2
            check_whole_cards(page)
            page.screenshot(path=str(SHOTS / "indian21-390-groups.png"), full_page=True)
            page.click("#ungroup")
            checked = True
        action = V21.bot_action(game, 0, bot="greedy")
        before = seq_of(page)
        tap_action(page, action)
        wait_seq(page, before + 1, timeout=30)
    page.wait_for_selector("#result:not([hidden])")
    page.screenshot(path=str(SHOTS / "indian21-390-result.png"), full_page=True)
    match.refresh_from_db()
    assert checked, "the person never had a discard turn to check the taps on"
    assert match.status in (Match.Status.FINISHED, Match.Status.DISPUTED)
    assert games.load(match).last_hand["kind"] == "declared"
