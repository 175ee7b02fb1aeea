"""The table's knock, showdown, result, spectator and grouping features in a real browser
(Playwright on Debian's chromium), through the UI only (issue 14).

The pages are driven by their buttons; the engine only picks which button a sensible
player would press, as the Basic test in test_table_page.py does.
"""

import re
import time
from pathlib import Path

import pytest

from engine import gin, variants
from engine.cards import parse
from gameplay import games, services
from gameplay import tasks as gameplay_tasks
from gameplay.models import Match
from tests.factories import (
    AchievementFactory,
    BotPlayerFactory,
    LevelFactory,
    PlayerFactory,
    RewardFactory,
    RoomFactory,
    TitleFactory,
)
from tests.gameplay import test_table_page as table_page
from tests.gameplay.test_table_page import TURN, assert_no_leak, hidden_cards, seq_of, wait_seq

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = Path("/tmp/shots-table")
# The browser fixtures of the table's first tests: uvicorn in a thread, logged-in pages.
asgi_server = table_page.asgi_server
open_page = table_page.open_page
# A seed whose first hand, played sensibly by both, ends in a knock with two lay-offs: with
# target 1 that hand decides the match (engine: 10 moves, seat 1 knocks on 3 deadwood).
SEED = "table-11"


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def knock_deadwood(hand: list[str], card: str) -> int:
    return gin.best_arrangement(parse(" ".join(c for c in hand if c != card))).deadwood_points


def sensible(game, seat: int) -> dict:
    """Pass the first upcard, draw from the stock, knock on the least deadwood as soon as
    the engine allows it, else throw the discard that leaves the least deadwood."""
    legal = game.legal_actions(seat)
    kinds = {a["type"] for a in legal}
    hand = game.view(seat)["hand"]
    if "pass" in kinds:
        return {"type": "pass"}
    if "draw" in kinds:
        return {"type": "draw", "source": "stock"}
    if "knock" in kinds:
        return min(
            (a for a in legal if a["type"] == "knock"),
            key=lambda a: knock_deadwood(hand, a["card"]),
        )
    card, _ = gin.best_discard(parse(" ".join(hand)))
    wanted = {"type": "discard", "card": str(card)}
    return wanted if wanted in legal else next(a for a in legal if a["type"] == "discard")


def test_two_people_play_a_whole_gin_match_knock_showdown_and_result(open_page, celery_worker):
    LevelFactory(number=1, xp_required=0)
    LevelFactory(number=2, xp_required=15, title=TitleFactory(code="novice", name="Novice"))
    AchievementFactory(
        code="first-match",
        name="First match",
        description="Play a match to the end.",
        metric="matches_played",
        threshold=1,
        reward=RewardFactory(code="first", xp=5, coins=50),
    )
    room = RoomFactory(options={"target": 1})
    ada, bob = PlayerFactory(display_name="Ada"), PlayerFactory(display_name="Bob")
    match = services.match_create(
        variant="gin", options=room.options, players=[ada, bob], room=room, seed=SEED
    )
    pages = {0: open_page(ada), 1: open_page(bob, width=375, height=812)}
    for page in pages.values():
        page.goto(f"/matches/{match.pk}/")
        page.wait_for_selector("#conn[data-state='live']")
    knocked = False
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline, "the match did not finish in time"
        match.refresh_from_db()
        if match.status != Match.Status.ACTIVE:
            break
        seat = match.to_move
        page = pages[seat]
        wait_seq(page, match.seq)
        page.wait_for_selector(TURN)
        game = games.load(match)
        action = sensible(game, seat)
        before = seq_of(page)
        if action["type"] == "pass":
            page.click("#actions >> text=Pass")
        elif action["type"] == "draw":
            page.click("#stock")
        elif action["type"] == "discard":
            page.click(f"#hand .card[data-card='{action['card']}']")
        else:
            # The knock: the page shows, for every card it may knock with, the deadwood
            # the engine's arrangement of the other ten leaves, before anything is sent.
            hand = game.view(seat)["hand"]
            best = knock_deadwood(hand, action["card"])
            assert f"best knock leaves {best} deadwood" in page.inner_text("#prompt")
            page.click("#actions >> text=Knock…")
            page.wait_for_selector("#knock-options:not([hidden])")
            options = page.locator("#knock-options button.knock-option")
            offered = [a["card"] for a in game.legal_actions(seat) if a["type"] == "knock"]
            assert options.count() == len(offered)
            for card in offered:
                points = knock_deadwood(hand, card)
                face = page.locator(f"#hand .card[data-card='{card}']")
                assert face.locator(".dw").inner_text() == ("gin" if points == 0 else str(points))
                label = face.get_attribute("aria-label")
                assert f"{points} deadwood left" in label or points == 0
            size = page.viewport_size
            shot(page, f"knock-options-{size['width']}")
            page.set_viewport_size({"width": 1655 - size["width"], "height": 900})
            shot(page, f"knock-options-{1655 - size['width']}")
            page.set_viewport_size(size)
            name = page.locator(f"#hand .card[data-card='{action['card']}']").get_attribute(
                "aria-label"
            )
            chosen = page.locator("#knock-options button.knock-option").filter(
                has=page.locator(f".knock-head .card[data-card='{action['card']}']")
            )
            assert chosen.get_attribute("aria-label").startswith(name)
            chosen.click()
            knocked = True
        wait_seq(page, before + 1)
    assert knocked
    match.refresh_from_db()
    last = games.load(match).view(None)["last_hand"]
    assert last["kind"] == "knock" and len(last["layoffs"]) == 2
    for page in pages.values():
        wait_seq(page, match.seq)
        box = page.wait_for_selector("#showdown:not([hidden])")
        text = box.inner_text()
        assert "How the hand scored" in text
        # The engine's lines, as they are, with the players' names.
        defender, knocker = last["breakdown"]
        assert re.search(
            rf"Defender's deadwood after lay-offs \((You|Ada)\)\s+\+{defender['points']}", text
        )
        assert re.search(rf"Knocker's deadwood \((You|Bob)\)\s+\u2212{-knocker['points']}", text)
        assert re.search(rf"scores?\s+{last['points']}\b", text)
        # Both hands laid out, the lay-offs on the knocker's melds and in the defender's row.
        laid = page.eval_on_selector_all(
            "#showdown .laid-row .card", "els => els.map(e => e.dataset.card)"
        )
        assert sorted(laid) == sorted(last["layoffs"])
        assert page.locator("#showdown .card.laid").count() == 2
        shown = set(
            page.eval_on_selector_all(
                "#showdown [data-card]", "els => els.map(e => e.dataset.card)"
            )
        )
        assert set(last["hands"][0]) | set(last["hands"][1]) <= shown
    shot(pages[0], "showdown-1280")
    shot(pages[1], "showdown-375")

    # The result: placements, this seat's rewards once finalize has written them, the seed.
    for seat, page in pages.items():
        page.wait_for_selector("#result .rewards[data-state='ready']", timeout=30000)
        result = page.inner_text("#result")
        assert ("You won the match!" in result) == (seat == 1)
        assert "Level 2 reached · Novice" in result
        assert "First match" in result and "Achievement" in result.title()
        assert "+50 coins" in result
        assert match.seed in result and match.commitment in result
        page.wait_for_selector("#hash-check.ok")
    shot(pages[1], "result-375")
    pages[0].locator("#result").scroll_into_view_if_needed()
    shot(pages[0], "result-1280")
    # The finished match stays viewable: a reload shows the same result.
    pages[0].reload()
    pages[0].wait_for_selector("#result .rewards[data-state='ready']")
    assert "Level 2 reached" in pages[0].inner_text("#result")
    assert_no_leak(pages[0], match, others=[1])
    assert_no_leak(pages[1], match, others=[0])


def test_a_tournament_spectator_watches_a_bracket_table_without_hidden_cards(
    open_page, monkeypatch
):
    """Issue 14: "Spectators (anyone, when the room or tournament allows it): the same page
    with no hand; they see only what is public. Bracket tables in a running tournament link
    to their live table." The workers' tasks are left out: both seats are people."""
    from tests.tournaments.helpers import open_tournament, register_all
    from tournaments import services as tournaments
    from tournaments import tasks as tournament_tasks

    for task in (
        gameplay_tasks.play_bots,
        gameplay_tasks.finalize_match,
        tournament_tasks.match_finished,
        tournament_tasks.start_tables,
    ):
        monkeypatch.setattr(task, "delay", lambda *args, **kwargs: None)
    ada, bob, eve = (PlayerFactory(display_name=n) for n in ("Ada", "Bob", "Eve"))
    cup = open_tournament(name="Open Cup", show_up_seconds=0, spectators_allowed=True)
    register_all(cup, [ada, bob])
    tournaments.tournament_start(tournament_id=cup.pk)
    for table_id in tournaments.waiting_tables(tournament_id=cup.pk, limit=10):
        tournaments.table_start(table_id=table_id)
    match = Match.objects.get(tournament_table__table__tournament=cup)
    assert match.spectators_allowed
    mover = [s.player for s in match.seats.order_by("index")][match.to_move]

    spectator = open_page(eve)
    spectator.goto(f"/tournaments/{cup.pk}/")
    spectator.locator(".bracket a.watch.live").click()
    spectator.wait_for_url(f"**/matches/{match.pk}/")
    spectator.wait_for_selector("#conn[data-state='live']")
    player = open_page(mover, width=375, height=812)
    player.goto(f"/matches/{match.pk}/")
    player.wait_for_selector(TURN)
    for label in ("Pass",):
        before = seq_of(player)
        player.click(f"#actions >> text={label}")
        wait_seq(player, before + 1)
    match.refresh_from_db()
    other = [s.player for s in match.seats.order_by("index")][match.to_move]
    second = open_page(other)
    second.goto(f"/matches/{match.pk}/")
    second.wait_for_selector(TURN)
    second.click("#actions >> text=Pass")
    wait_seq(second, 2)
    match.refresh_from_db()
    wait_seq(spectator, match.seq)
    assert spectator.locator("#hand-area").is_hidden()
    assert spectator.locator("#hand .card").count() == 0
    dom = set(spectator.eval_on_selector_all("[data-card]", "els => els.map(e => e.dataset.card)"))
    assert not dom & (hidden_cards(match, 0, match.seq) | hidden_cards(match, 1, match.seq))
    assert "knock_options" not in str(spectator.frames_seen)
    assert_no_leak(spectator, match, others=[0, 1])
    shot(spectator, "spectator-1280")
    spectator.set_viewport_size({"width": 375, "height": 812})
    shot(spectator, "spectator-375")
    spectator.goto(f"/tournaments/{cup.pk}/")
    shot(spectator, "bracket-watch-375")


def test_indian_groups_are_built_by_dragging_and_by_keyboard_and_checked_as_built(open_page):
    """The seed lets the person declare on their first turn (test_table_page.py's Indian
    test groups by selecting); here the cards move between groups by drag and drop and by
    Alt+arrows, and every group says what it is as it changes."""
    two_jokers = {"jokers": 2}  # the deal this seed gives with two printed jokers
    room = RoomFactory(variant="indian", seats=2, options=two_jokers)
    ada, bob = PlayerFactory(), PlayerFactory()
    match = services.match_create(
        variant="indian", options=two_jokers, players=[ada, bob], room=room, seed="indian-47"
    )
    page = open_page(ada)
    page.goto(f"/matches/{match.pk}/")
    page.wait_for_selector(TURN)
    page.click("#stock")
    wait_seq(page, 1)
    page.wait_for_selector(TURN)

    def card(text: str):
        return page.locator(f"#hand .card[data-card='{text}']").first

    def zone(index: int):
        return page.locator(f"#hand .zone[data-zone='{index}']")

    def group_cards(index: int) -> list[str]:
        return zone(index).locator(".card").evaluate_all("els => els.map(e => e.dataset.card)")

    for group in (["AD", "QD", "KD"], ["3D", "4D", "5D", "6D"]):
        for text in group:
            card(text).click()
        page.click("#group-selected")
    assert "pure run" in zone(0).locator(".zone-label").text_content()
    # Drag the 6D out of the second group into the first: the first is no longer a meld.
    card("6D").drag_to(zone(0).locator(".zone-label"))
    assert group_cards(0) == ["AD", "QD", "KD", "6D"]
    assert "bad" in zone(0).get_attribute("class")
    assert "not a set or run" in page.inner_text("#hand-live")
    # Alt+↓ takes it on to the next group, where it fits the run again.
    card("6D").focus()
    page.keyboard.press("Alt+ArrowDown")
    assert group_cards(0) == ["AD", "QD", "KD"] and "6D" in group_cards(1)
    assert page.locator("#hand .zone.bad").count() == 0
    assert page.evaluate("document.activeElement.dataset.card") == "6D"
    # A new group by dropping on "+ new group", filled by dragging onto it.
    card("TH").drag_to(page.locator("#hand .new-group"))
    assert group_cards(2) == ["TH"] and "too short" in zone(2).text_content()
    for text in ("QH", "8D"):
        card(text).drag_to(zone(2).locator(".zone-label"))
    assert "run" in zone(2).locator(".zone-label").text_content()
    # The last group by keyboard only: Alt+↓ from the loose cards starts one, Alt+↑ joins it.
    card("4S").focus()
    page.keyboard.press("Alt+ArrowDown")
    for text in ("6S", "8H"):
        card(text).focus()
        page.keyboard.press("Alt+ArrowUp")
    assert sorted(group_cards(3)) == ["4S", "6S", "8H"]
    assert page.locator("#hand .zone.bad").count() == 0
    assert "13 of 14 cards grouped · 4 runs (2 pure)" in page.inner_text("#groups-summary")
    card("9C").click()
    shot(page, "indian-groups-1280")
    page.set_viewport_size({"width": 375, "height": 812})
    shot(page, "indian-groups-375")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.click("#actions >> text=Declare my groups")
    page.wait_for_selector("#showdown:not([hidden])")
    match.refresh_from_db()
    declared = match.log[1]["action"]
    assert declared["card"] == "9C"
    assert sorted(map(sorted, declared["groups"])) == sorted(
        map(
            sorted,
            [["AD", "QD", "KD"], ["3D", "4D", "5D", "6D"], ["TH", "QH", "8D"], ["4S", "6S", "8H"]],
        )
    )
    # The deal's points, line by line from the engine: the declarer's 0, the other's cards.
    last = games.replay(match).last_hand
    text = page.inner_text("#showdown")
    assert "How the hand scored" in text and "You: declared" in text
    for line in last["breakdown"]:
        assert line["label"] in text
    shot(page, "indian-showdown-1280")


def test_a_basic_hand_ends_with_each_losers_cards_counted_line_by_line(open_page, celery_worker):
    """Basic's showdown: the melds on the table, what each loser still held, and the
    engine's lines for the points (seed: the person goes out on the 22nd move)."""
    room = RoomFactory(variant="basic", seats=2, options={"target": 1})
    ada, bot = PlayerFactory(display_name="Ada"), BotPlayerFactory(display_name="Robo")
    match = services.match_create(
        variant="basic", options=room.options, players=[ada, bot], room=room, seed="basic-25"
    )
    page = open_page(ada)
    page.goto(f"/matches/{match.pk}/")
    page.wait_for_selector("#conn[data-state='live']")
    deadline = time.monotonic() + 60
    while page.get_attribute("#knock-table", "data-status") == "active":
        assert time.monotonic() < deadline, "the hand did not end in time"
        page.wait_for_selector(TURN)
        if page.get_attribute("#knock-table", "data-status") != "active":
            break
        match.refresh_from_db()
        action = variants.get("basic").bot_action(games.load(match), 0, bot="greedy")
        before = seq_of(page)
        if action["type"] == "draw":
            page.click("#stock" if action["source"] == "stock" else "#discard .upcard")
        elif action["type"] == "meld":
            for text in action["cards"]:
                page.click(f"#hand .card[data-card='{text}']")
            page.click("#actions >> text=Meld the selected cards")
        elif action["type"] == "layoff":
            page.click(f"#hand .card[data-card='{action['card']}']")
            page.locator("#melds .meld").nth(action["meld"]).locator("button.layoff").click()
        else:
            page.click(f"#hand .card[data-card='{action['card']}']")
            page.click("#actions >> text=Discard the")
        wait_seq(page, before + 1)
    match.refresh_from_db()
    last = games.replay(match).last_hand
    assert last["winner"] == 0 and last["kind"] == "out"
    text = page.wait_for_selector("#showdown:not([hidden])").inner_text()
    [line] = last["breakdown"]
    assert f"Robo: cards left in hand\t+{line['points']}" in text
    assert f"You score\t{last['points']}" in text
    assert "On the table" in text
    held = set(
        page.eval_on_selector_all("#showdown [data-card]", "els => els.map(e => e.dataset.card)")
    )
    assert set(last["hands"][1]) <= held
    shot(page, "basic-showdown-1280")
    page.set_viewport_size({"width": 375, "height": 812})
    page.wait_for_timeout(400)  # the smooth scroll to the showdown settles first
    shot(page, "basic-showdown-375")


@pytest.mark.parametrize(
    ("options", "all_jokers"), [({}, "not a set or run"), ({"joker_groups": True}, "set")]
)
def test_the_group_hint_reads_wild_cards_as_the_engine_does(open_page, options, all_jokers):
    """A wild-rank card beside jokers is a run (issue 32); jokers alone only where the room
    reads them as a group. The hint and the engine's classify agree on both."""
    room = RoomFactory(variant="indian", seats=2, options=options)
    ada, bob = PlayerFactory(), PlayerFactory()
    match = services.match_create(
        variant="indian", options=options, players=[ada, bob], room=room, seed="indian-47"
    )
    page = open_page(ada)
    page.goto(f"/matches/{match.pk}/")
    page.wait_for_selector("#hand .card")
    kinds = page.evaluate(
        """async () => {
          const { state } = await import("/static/table/store.js");
          const { groupKindName } = await import("/static/table/hand.js");
          const wild = state.view.table.wild_rank;
          return [groupKindName([wild + "H", "JK", "JK"]), groupKindName(["JK", "JK", "JK"])];
        }"""
    )
    assert kinds == ["run", all_jokers]
