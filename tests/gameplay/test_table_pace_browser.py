"""The table's pace and control in a real browser, at 1280x800 and at a 390x844 phone
(issue 27): a hand ends in an overlay that holds the next deal while no clock runs until
Next hand; resign and call off, each confirmed; the timeout notice."""

import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from gameplay import games, services
from gameplay.models import Match, Seat
from outbox.models import Job
from tests.factories import BotPlayerFactory, PlayerFactory, RoomFactory
from tests.gameplay import test_table_page as table_page
from tests.gameplay.test_table_page import seq_of, wait_seq
from tests.gameplay.test_table_showdown_page import SEED, sensible

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = Path("/tmp/shots-pace")
asgi_server = table_page.asgi_server
open_page = table_page.open_page
SIZES = [(1280, 800), (390, 844)]


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}-{page.viewport_size['width']}.png"))


def in_view(page, selector: str) -> bool:
    """The element is wholly inside the window, without scrolling the page."""
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    return (
        box is not None
        and box["y"] >= 0
        and box["x"] >= 0
        and box["y"] + box["height"] <= size["height"] + 1
        and box["x"] + box["width"] <= size["width"] + 1
    )


def card_words(text: str) -> str:
    ranks = dict(
        zip(
            "A23456789TJQK",
            [
                "ace",
                "two",
                "three",
                "four",
                "five",
                "six",
                "seven",
                "eight",
                "nine",
                "ten",
                "jack",
                "queen",
                "king",
            ],
            strict=True,
        )
    )
    suits = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
    return f"{ranks[text[0]]} of {suits[text[1]]}"


def click(page, game, seat: int, action: dict) -> None:
    """The page's button for `action`, pressed as a person would."""
    before = seq_of(page)
    if action["type"] == "pass":
        page.click("#actions >> text=Pass")
    elif action["type"] == "draw":
        page.click("#stock")
    elif action["type"] == "discard":
        page.click(f"#hand .card[data-card='{action['card']}']")
    else:
        page.click("#actions >> text=Knock…")
        page.locator("#knock-options button.knock-option").filter(
            has=page.locator(f".knock-head .card[data-card='{action['card']}']")
        ).click()
    wait_seq(page, before + 1)


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_hand_ends_in_an_overlay_that_holds_the_next_deal_until_next_hand(
    open_page, settings, width, height
):
    settings.KNOCK_NEXT_HAND_SECONDS = 60
    ada, bob = PlayerFactory(display_name="Ada"), PlayerFactory(display_name="Bob")
    room = RoomFactory(options={"target": 100}, turn_seconds=45)
    match = services.match_create(
        variant="gin", options=room.options, players=[ada, bob], room=room, seed=SEED
    )
    page = open_page(ada, width=width, height=height)
    page.goto(f"/matches/{match.pk}/")
    # Ada plays in the browser, Bob through the API's service, both sensibly: with this
    # seed the first hand ends in a knock at move 10.
    while True:
        match.refresh_from_db()
        if match.hand_break_until is not None:
            break
        game = games.load(match)
        seat = match.to_move
        action = sensible(game, seat)
        if seat == 0:
            wait_seq(page, match.seq)
            click(page, game, seat, action)
        else:
            services.match_act(match_id=match.pk, player=bob, seq=match.seq, action=action)
            # Ada's page sees each of Bob's moves, as behind a bot's pause: then a discard
            # after his draw reads as one line.
            wait_seq(page, match.seq + 1)
            if action["type"] == "discard":
                assert page.inner_text("#last-move") == (
                    f"Bob drew from the stock and discarded the {card_words(action['card'])}."
                )
    overlay = page.wait_for_selector("#hand-overlay.modal:not([hidden])")
    wait_seq(page, match.seq)
    text = overlay.inner_text()
    assert "Hand 1:" in text and "How the hand scored" in text
    assert "The next hand starts in" in text and "Bob is reading" in text
    assert in_view(page, "#next-hand"), "Next hand is on the screen, no scrolling"
    assert in_view(page, "#showdown-title")
    assert page.get_attribute("#hand-overlay-box", "role") == "dialog"
    assert page.evaluate("document.activeElement.id") == "next-hand"
    shot(page, "overlay")
    # The next deal waits and nobody's clock runs: no clock on the page, none on the row.
    assert page.locator("#seats .clock").count() == 0
    time.sleep(1.5)
    match.refresh_from_db()
    seq = match.seq
    assert match.turn_deadline == match.hand_break_until
    assert not Job.objects.filter(task="gameplay.tasks.turn_timeout").exists()
    # A reload shows the overlay again.
    page.reload()
    page.wait_for_selector("#hand-overlay.modal:not([hidden])")
    page.click("#next-hand")
    page.wait_for_selector("#next-hand:has-text('Waiting for the others')")
    assert "You are ready" in page.inner_text("#overlay-bar")
    match.refresh_from_db()
    assert match.hand_break_ready == [0] and match.hand_break_until is not None
    services.match_next_hand(match_id=match.pk, player=bob)
    page.wait_for_selector("#hand-overlay", state="hidden")
    match.refresh_from_db()
    assert match.seq == seq and match.hand_break_until is None
    assert match.turn_deadline > timezone.now() + timedelta(seconds=40)
    page.wait_for_selector("#seats .seat.to-move .clock")
    assert "Hand 2" in page.inner_text("#table-meta")
    shot(page, "after-next-hand")


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_call_off_before_the_first_move_then_resign_a_match(open_page, width, height):
    room = RoomFactory(options={"target": 100}, entry_fee=10)
    ada = PlayerFactory(display_name="Ada", coins=50)
    match = services.match_create(
        variant="gin", options=room.options, players=[ada, BotPlayerFactory()], room=room
    )
    page = open_page(ada, width=width, height=height)
    page.goto(f"/matches/{match.pk}/")
    if match.to_move == 0:
        page.click("#control-abort")
        assert "nobody is rated" in page.inner_text("#confirm")
        shot(page, "abort-confirm")
        page.click("#confirm-no")
        assert page.locator("#confirm").is_hidden()
        match.refresh_from_db()
        assert match.status == Match.Status.ACTIVE
        page.click("#control-abort")
        page.click("#confirm-yes")
        page.wait_for_selector("#result:not([hidden]) >> text=Match called off")
        match.refresh_from_db()
        ada.refresh_from_db()
        assert match.status == Match.Status.ABORTED and ada.coins == 50
        assert page.locator("#control-resign").count() == 0
        shot(page, "aborted")

    second = services.match_create(
        variant="gin", options=room.options, players=[ada, BotPlayerFactory()], room=room
    )
    page.goto(f"/matches/{second.pk}/")
    page.wait_for_selector("#control-resign")
    page.click("#control-resign")
    assert "You place last" in page.inner_text("#confirm")
    assert page.evaluate("document.activeElement.id") == "confirm-yes"
    page.click("#confirm-yes")
    page.wait_for_selector("#result:not([hidden]) >> text=resigned")
    second.refresh_from_db()
    assert second.status in (Match.Status.FINISHED,)
    assert second.log[-1]["action"] == {"type": "resign"} and second.log[-1]["seat"] == 0
    assert Seat.objects.get(match=second, index=0).forfeited
    shot(page, "resigned")


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_timed_out_turn_is_announced_with_the_count(open_page, width, height):
    room = RoomFactory(options={"target": 100}, max_timeouts=3, turn_seconds=30)
    ada, bob = PlayerFactory(display_name="Ada"), PlayerFactory(display_name="Bob")
    match = services.match_create(
        variant="gin", options=room.options, players=[ada, bob], room=room, seed=SEED
    )
    page = open_page(ada, width=width, height=height)
    page.goto(f"/matches/{match.pk}/")
    page.wait_for_selector("#knock-table.my-turn")
    Match.objects.filter(pk=match.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert services.match_timeout(match_id=match.pk, seq=0) == "auto_played"
    notice = page.wait_for_selector("#timeout-notice:not([hidden])")
    match.refresh_from_db()
    did = "passed" if match.log[0]["action"] == {"type": "pass"} else "took the discard"
    assert notice.inner_text().startswith(
        f"Time ran out: the table {did} for you; 2 more and the match is forfeited."
    )
    # The last-move line says it too, in a polite live region.
    assert page.get_attribute("#last-move", "aria-live") == "polite"
    line = page.inner_text("#last-move")
    if did == "passed":
        assert line == "You passed on the upcard."
    else:
        taken = games.load(match).view(None)["taken_from_discard"]
        assert line == f"You took the {card_words(taken)} from the discard pile."
    assert in_view(page, "#timeout-notice") or width < 600
    shot(page, "timeout-notice")
    page.click("#timeout-notice button")
    assert page.locator("#timeout-notice").is_hidden()
    page.reload()
    page.wait_for_selector("#knock-table[data-seq='1']")
    assert page.locator("#timeout-notice").is_hidden(), "put away: not told twice"
