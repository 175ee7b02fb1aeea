"""The live table in a real browser (Playwright on Debian's chromium), through the UI only.

The site is served by uvicorn on config.asgi (HTTP and WebSocket) in a thread of this
process, with a real Celery worker for the bots: the production shape, in one process.
"""

import json
import socket as sockets
import threading
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

from engine import variants
from gameplay import games, services
from gameplay.models import Match
from tests.factories import BotPlayerFactory, PlayerFactory, RoomFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = Path(settings.BASE_DIR) / "var" / "screenshots"
TURN = "#knock-table.my-turn:not(.busy), #knock-table[data-status='finished']"


def free_port() -> int:
    for port in range(8240, 8250):
        with sockets.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                return port
    raise RuntimeError("no free port in 8240-8249")


@pytest.fixture
def asgi_server(transactional_db):
    """uvicorn serving config.asgi (and static files from the finders) in a thread."""
    import uvicorn
    from channels.layers import channel_layers

    from config.asgi import application

    # A channel layer serves one event loop at a time, and each server thread runs its own:
    # a layer an earlier test's server left receiving would refuse this one ("Two event
    # loops are trying to receive() on one channel layer at once!"). A fresh layer each.
    channel_layers.backends.clear()
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            ASGIStaticFilesHandler(application),
            host="127.0.0.1",
            port=port,
            lifespan="off",
            ws="websockets-sansio",
            log_level="warning",
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


@pytest.fixture
def open_page(browser, asgi_server):
    """Pages in fresh browser contexts, logged in as the given player."""
    contexts = []
    errors = []

    def open_as(player, width: int = 1280, height: int = 900, touch: bool = False):
        context = browser.new_context(
            base_url=asgi_server,
            viewport={"width": width, "height": height},
            has_touch=touch,
            is_mobile=touch,
        )
        contexts.append(context)
        page = context.new_page()
        page.frames_seen = []
        page.on("pageerror", lambda error: errors.append(error))
        page.on(
            "websocket",
            lambda ws: ws.on("framereceived", lambda payload: page.frames_seen.append(payload)),
        )
        page.goto("/accounts/login/?next=/")
        page.fill("#id_username", player.user.username)
        page.fill("#id_password", "correct-horse-battery")
        page.click("form.card button[type=submit]")
        page.wait_for_load_state()
        return page

    yield open_as
    for context in contexts:
        context.close()
    assert not errors, f"the page's JavaScript failed: {errors}"


def seq_of(page) -> int:
    """The seq the page shows; -1 before its script has drawn the first view."""
    seq = page.get_attribute("#knock-table", "data-seq")
    return -1 if seq is None else int(seq)


def wait_seq(page, at_least: int, timeout: float = 15) -> None:
    """Until the page shows the match at `at_least` or later. (The site's CSP refuses the
    string predicates of wait_for_function, so the test polls the page's data-seq.)"""
    deadline = time.monotonic() + timeout
    while seq_of(page) < at_least:
        assert time.monotonic() < deadline, f"the page stayed at seq {seq_of(page)} < {at_least}"
        time.sleep(0.05)


def play_turn(page) -> None:
    """One action as a person would: pass the first upcard, draw from the stock, knock
    (or big gin) when the page offers it, else discard the rightmost lit card."""
    before = seq_of(page)
    actions = page.locator("#actions button.act")
    labels = actions.all_inner_texts()
    if "Big gin!" in labels:
        page.click("#actions >> text=Big gin!")
    elif "Pass" in labels:
        page.click("#actions >> text=Pass")
    elif "Draw from the stock" in labels:
        page.click("#stock")
    elif "Knock…" in labels:
        page.click("#actions >> text=Knock…")
        page.locator("#hand .card.playable").last.click()
    else:
        page.locator("#hand .card.playable").last.click()
    page.wait_for_selector(
        f"#knock-table:not([data-seq='{before}']), #knock-table:not([data-status='active'])"
    )


def play_to_the_end(page, seconds: float) -> None:
    """Play the page's seat turn by turn (`play_turn`) until the match is over."""
    deadline = time.monotonic() + seconds
    while page.get_attribute("#knock-table", "data-status") == "active":
        assert time.monotonic() < deadline, "the match did not finish in time"
        page.wait_for_selector(TURN, timeout=15_000)
        if page.get_attribute("#knock-table", "data-status") != "active":
            break
        play_turn(page)
    page.wait_for_selector("#result:not([hidden])")


def hidden_cards(match: Match, seat: int, seq: int) -> set[str]:
    """What `seat` held unseen by others after `seq` moves (replayed from the log)."""
    game = variants.get(match.variant).replay(
        match.log[:seq], match.players, games.deal_seed(match), match.options
    )
    view = game.view(seat)
    return set(view["hand"]) - {c for known in view.get("known", []) for c in known}


def cards_in(value) -> set[str]:
    if isinstance(value, dict):
        return set().union(*map(cards_in, value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*map(cards_in, value)) if value else set()
    return {value} if isinstance(value, str) and len(value) == 2 else set()


def assert_no_leak(page, match: Match, others: list[int]) -> None:
    """No frame the page received holds a card another seat held hidden at that version."""
    match.refresh_from_db()
    assert page.frames_seen
    for payload in page.frames_seen:
        frame = json.loads(payload)
        if frame["type"] != "view":
            continue
        # A finished match reveals the hands in its log (the seed makes them public).
        if frame["view"]["status"] != "active":
            continue
        body = {k: v for k, v in frame["view"].items() if k != "hand"}
        for seat in others:
            leaked = cards_in(body) & hidden_cards(match, seat, frame["seq"])
            assert not leaked, (seat, frame["seq"], leaked)


def test_a_person_plays_a_whole_gin_match_against_a_bot(open_page, celery_worker):
    room = RoomFactory(options={"target": 10})
    ada = PlayerFactory()
    match = services.match_create(
        variant="gin", options=room.options, players=[ada, BotPlayerFactory()], room=room
    )
    page = open_page(ada)
    page.goto(f"/matches/{match.pk}/")
    page.wait_for_selector("#conn[data-state='live']")
    hand = page.locator("#hand .card")
    assert hand.count() in (10, 11)
    assert "of" in hand.first.get_attribute("aria-label")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "table-1280.png"), full_page=True)
    play_to_the_end(page, seconds=100)
    assert match.seed in page.inner_text("#result")
    assert "Commitment" in page.inner_text("#result")
    page.screenshot(path=str(SHOTS / "table-result-1280.png"), full_page=True)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert_no_leak(page, match, others=[1])


def test_two_people_play_each_other_live_and_see_no_hidden_card(open_page, browser):
    room = RoomFactory(options={"target": 1}, spectators_allowed=True)
    ada, bob, eve = PlayerFactory(), PlayerFactory(), PlayerFactory()
    match = services.match_create(
        variant="gin", options=room.options, players=[ada, bob], room=room
    )
    pages = {0: open_page(ada), 1: open_page(bob, width=375, height=812)}
    spectator = open_page(eve)
    for page in [*pages.values(), spectator]:
        page.goto(f"/matches/{match.pk}/")
        page.wait_for_selector("#conn[data-state='live']")
    pages[1].wait_for_selector(".seat[data-seat='0'] .presence[data-state='on']")
    pages[1].screenshot(path=str(SHOTS / "table-375.png"), full_page=True)
    turns = 0
    deadline = time.monotonic() + 50
    while time.monotonic() < deadline:
        match.refresh_from_db()
        if match.status != Match.Status.ACTIVE:
            break
        page = pages[match.to_move]
        page.wait_for_selector(TURN)
        play_turn(page)
        turns += 1
        # The other seat sees the move live, without reloading.
        other = pages[1 - match.to_move] if match.to_move is not None else pages[0]
        wait_seq(other, seq_of(page))
    assert turns >= 8
    match.refresh_from_db()
    wait_seq(spectator, match.seq)
    if match.status == Match.Status.ACTIVE:
        dom_cards = set(
            spectator.eval_on_selector_all("[data-card]", "els => els.map(e => e.dataset.card)")
        )
        assert not dom_cards & (
            hidden_cards(match, 0, match.seq) | hidden_cards(match, 1, match.seq)
        )
        assert spectator.locator("#hand .card").count() == 0
        for seat, page in pages.items():
            dom_cards = set(
                page.eval_on_selector_all("[data-card]", "els => els.map(e => e.dataset.card)")
            )
            assert not dom_cards & hidden_cards(match, 1 - seat, match.seq)
    assert_no_leak(spectator, match, others=[0, 1])
    assert_no_leak(pages[0], match, others=[1])
    assert_no_leak(pages[1], match, others=[0])


def test_a_reload_mid_match_resumes_where_it_was_and_keeps_the_hand_order(open_page, celery_worker):
    room = RoomFactory()
    ada = PlayerFactory()
    match = services.match_create(
        variant="gin", options=room.options, players=[ada, BotPlayerFactory()], room=room
    )
    page = open_page(ada)
    page.goto(f"/matches/{match.pk}/")
    page.wait_for_selector("#conn[data-state='live']")
    for _ in range(3):
        page.wait_for_selector(TURN)
        play_turn(page)
    page.wait_for_selector(TURN)
    page.click("#sort-rank")
    order = page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)")
    # Move the first card to the end, by keyboard.
    page.focus("#hand .card >> nth=0")
    for _ in range(len(order)):
        page.keyboard.press("Alt+ArrowRight")
    moved = order[1:] + order[:1]
    before = seq_of(page)
    page.reload()
    page.wait_for_selector("#conn[data-state='live']")
    match.refresh_from_db()
    assert seq_of(page) == match.seq == before
    shown = page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)")
    assert shown == moved
    page.wait_for_selector(TURN)
    play_turn(page)
    assert seq_of(page) > before


def touch_drag(page, source: str, target: str) -> None:
    """A finger's long press on `source`, carried onto `target` and lifted: real touch
    events through the browser's input pipeline (Chrome DevTools Protocol), as on a phone."""
    cdp = page.context.new_cdp_session(page)

    def centre(selector: str) -> dict:
        box = page.locator(selector).bounding_box()
        return {"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] / 2}

    page.locator(source).scroll_into_view_if_needed()  # touches land in the viewport
    start, end = centre(source), centre(target)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [start]})
    time.sleep(0.5)  # past the long press that tells a carry from a scroll
    for step in range(1, 11):
        point = {k: start[k] + (end[k] - start[k]) * step / 10 for k in ("x", "y")}
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def test_a_phone_reorders_the_hand_by_carrying_a_card(open_page):
    """Phones have no mouse drag: a long press carries a card along the hand, and the order
    it makes is kept across a reload, as with the mouse or the keyboard."""
    room = RoomFactory()
    ada = PlayerFactory()
    match = services.match_create(
        variant="gin", options=room.options, players=[ada, BotPlayerFactory()], room=room
    )
    page = open_page(ada, width=375, height=740, touch=True)
    page.goto(f"/matches/{match.pk}/")
    page.wait_for_selector("#conn[data-state='live']")
    page.click("#sort-rank")
    order = page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)")
    touch_drag(page, "#hand .slot >> nth=0", "#hand .slot >> nth=5")
    moved = order[1:6] + order[:1] + order[6:]
    shown = page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)")
    assert shown == moved
    assert seq_of(page) == 0  # carrying a card plays nothing
    page.reload()
    page.wait_for_selector("#conn[data-state='live']")
    assert page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)") == moved


def test_a_stale_move_shows_a_clear_message_and_changes_nothing(open_page):
    room = RoomFactory()
    ada, bob = PlayerFactory(), PlayerFactory()
    match = services.match_create(variant="gin", options={}, players=[ada, bob], room=room)
    mover = [ada, bob][match.to_move]
    fresh, stale = open_page(mover), open_page(mover)
    frozen = []

    def hold_frames(ws):
        server = ws.connect_to_server()
        ws.on_message(lambda message: server.send(message))
        # While frozen, the stale tab hears no new views (its answers still arrive).
        server.on_message(
            lambda message: None if frozen and '"type": "view"' in message else ws.send(message)
        )

    stale.route_web_socket("**/ws/matches/**", hold_frames)
    for page in (fresh, stale):
        page.goto(f"/matches/{match.pk}/")
        page.wait_for_selector(TURN)
    frozen.append(True)  # the stale tab stops hearing about moves
    play_turn(fresh)
    match.refresh_from_db()
    played = match.seq
    assert seq_of(stale) == 0
    stale.click("#actions >> text=Pass")
    message = stale.wait_for_selector("#message:not([hidden])")
    assert "not played" in message.inner_text()
    stale.wait_for_selector(f"#knock-table[data-seq='{played}']")
    match.refresh_from_db()
    assert match.seq == played


def test_the_lobby_seats_a_player_and_says_to_leave_it_before_another(open_page, celery_worker):
    room = RoomFactory(name="Quick Gin")
    ada = PlayerFactory()
    page = open_page(ada)
    page.goto("/rooms/")
    row = page.locator(f"tr.room[data-room='{room.pk}']")
    row.locator("text=Play vs a bot").click()
    page.wait_for_url("**/matches/*/")
    page.wait_for_selector("#conn[data-state='live']")
    table_url = page.url
    page.goto("/rooms/")
    assert page.locator(".table-banner").is_visible()
    page.locator(f"tr.room[data-room='{room.pk}']").locator("text=Play vs a person").click()
    page.wait_for_load_state()
    assert page.url.endswith("/rooms/")
    assert "already at a table" in page.inner_text(".notices")
    assert "leave it first" in page.inner_text(".table-banner")
    page.click(".table-banner >> text=Back to your table")
    page.wait_for_url(table_url)


def test_two_people_queue_in_the_lobby_and_the_table_opens_by_itself(open_page, settings):
    settings.KNOCK_MATCHMAKING = {**settings.KNOCK_MATCHMAKING, "base_window": 1e9}
    room = RoomFactory(name="People only", bots_allowed=False)
    ada, bob = PlayerFactory(), PlayerFactory()
    first, second = open_page(ada), open_page(bob, width=375, height=812)
    first.goto("/rooms/")
    first.locator(f"tr.room[data-room='{room.pk}']").locator("text=Play vs a person").click()
    first.wait_for_selector("#queue")
    assert "Looking for an opponent in People only" in first.inner_text("#queue")
    first.wait_for_selector("#queue-timer:not(:text-is('0:00'))")
    second.goto("/rooms/")
    second.locator(f"tr.room[data-room='{room.pk}']").locator("text=Play vs a person").click()
    second.wait_for_url("**/matches/*/")
    first.wait_for_url(second.url, timeout=10000)
    first.wait_for_selector("#conn[data-state='live']")
    assert Match.objects.filter(seats__player=ada).filter(seats__player=bob).count() == 1


def test_basic_with_three_bots_melding_and_laying_off_by_selecting_cards(open_page, celery_worker):
    """A 4-seat Basic match: the person's moves are those a greedy bot would choose (the
    seed gives a lay-off and a meld within four turns), each made by clicking."""

    room = RoomFactory(variant="basic", seats=4, options={})
    ada = PlayerFactory()
    bots = [BotPlayerFactory() for _ in range(3)]
    match = services.match_create(
        variant="basic", options={}, players=[ada, *bots], room=room, seed="basic-0"
    )
    page = open_page(ada)
    page.goto(f"/matches/{match.pk}/")
    page.wait_for_selector("#conn[data-state='live']")
    done = set()
    while not {"meld", "layoff"} <= done:
        page.wait_for_selector(TURN)
        match.refresh_from_db()
        action = variants.get("basic").bot_action(games.load(match), 0, bot="greedy")
        before = seq_of(page)
        kind = action["type"]
        if kind == "draw":
            page.click("#stock" if action["source"] == "stock" else "#discard .upcard")
        elif kind == "meld":
            for card in action["cards"]:
                page.click(f"#hand .card[data-card='{card}']")
            page.click("#actions >> text=Meld the selected cards")
        elif kind == "layoff":
            page.click(f"#hand .card[data-card='{action['card']}']")
            page.locator("#melds .meld").nth(action["meld"]).locator("button.layoff").click()
        else:
            page.click(f"#hand .card[data-card='{action['card']}']")
            page.click("#actions >> text=Discard the")
        wait_seq(page, before + 1)
        done.add(kind)
        assert seq_of(page) < 200, "no meld and lay-off in the seed's first turns"
    assert page.locator("#melds .meld").count() >= 1
    page.screenshot(path=str(SHOTS / "table-basic-1280.png"), full_page=True)


@pytest.mark.parametrize("seed", ["indian-1167", "indian-40"])
def test_an_indian_declaration_built_by_grouping_cards(open_page, celery_worker, seed):
    """The seed lets the person declare on their first turn: they group the cards into
    the sets and runs themselves, then declare with their groups, and the page names each
    group as the engine judges it. "indian-40" has sixes wild and a group of one queen and
    three sixes, which the engine takes as a run (the page once called it a set)."""
    from engine import cards as engine_cards
    from engine.melds import classify

    room = RoomFactory(variant="indian", seats=2, options={})
    ada = PlayerFactory()
    match = services.match_create(
        variant="indian", options={}, players=[ada, BotPlayerFactory()], room=room, seed=seed
    )
    page = open_page(ada)
    page.goto(f"/matches/{match.pk}/")
    page.wait_for_selector(TURN)
    page.click("#stock")
    page.wait_for_selector("#knock-table[data-seq='1']")
    page.wait_for_selector(TURN)
    match.refresh_from_db()
    game = games.load(match)
    declaration = variants.get("indian").bot_action(game, 0, bot="greedy")
    assert declaration["type"] == "declare"
    for group in declaration["groups"]:
        for card in group:
            # Two decks: the last unpressed copy is the loose one (the loose cards come last).
            page.click(f"#hand .card[data-card='{card}'][aria-pressed='false'] >> nth=-1")
        page.click("#group-selected")
    expected = []
    for group in declaration["groups"]:
        meld = classify(engine_cards.parse(group, decks=2), wild_rank=game.wild_rank, ace_high=True)
        expected.append("pure run" if meld.pure else meld.kind)
    labels = page.locator("#groups-note li").all_inner_texts()
    assert labels == [f"Group {n}: {kind}" for n, kind in enumerate(expected, 1)]
    page.click(f"#hand .card[data-card='{declaration['card']}'][aria-pressed='false'] >> nth=-1")
    page.screenshot(path=str(SHOTS / "table-indian-1280.png"), full_page=True)
    page.click("#actions >> text=Declare my groups")
    page.wait_for_selector("#result:not([hidden])")
    match.refresh_from_db()
    assert match.log[1]["action"]["type"] == "declare"
    mine = [sorted(group) for group in match.log[1]["action"]["groups"]]
    assert mine == [sorted(group) for group in declaration["groups"]]


def test_dummy_with_two_bots_buying_a_discard_and_laying_a_contract_down(open_page, celery_worker):
    """A 3-seat Dummy match: the person buys the first upcard in the claim window (a Buy
    button and a countdown while the bot to move waits), then plays greedy's moves by
    clicking until their contract is down: draws, the lay-down, lay-offs and discards."""

    # Long enough for the page to open on the first window; shortened once bought.
    room = RoomFactory(variant="dummy", seats=3, options={}, claim_seconds=20)
    ada = PlayerFactory()
    page = open_page(ada)
    match = services.match_create(
        variant="dummy",
        options={},
        players=[BotPlayerFactory(), ada, BotPlayerFactory()],
        room=room,
        seed="claims-bot-waits",
    )
    page.goto(f"/matches/{match.pk}/")
    page.wait_for_selector("#conn[data-state='live']")
    page.wait_for_selector("#claim-window:not([hidden]) button.buy")
    assert "s to buy" in page.text_content("#claim-window .claim-clock")
    assert "Contract 1/12: two sets of 3" in page.text_content(".seat.me .seat-contract")
    page.screenshot(path=str(SHOTS / "table-dummy-claim-1280.png"), full_page=True)
    page.click("#claim-window button.buy")
    # Nobody else may buy the card now (the other bot was asked and passed), so the window
    # closes at once and the bot to move draws from the stock, giving the card to Ada: the
    # page may show "Asked for it: You" only for a moment. The answer to the click shows it.
    page.wait_for_selector(".seat.me .seat-contract >> text=1 cut-in", timeout=15_000)
    answers = [json.loads(frame) for frame in page.frames_seen if '"ref"' in str(frame)]
    assert [a["view"]["table"]["claim_window"]["claims"] for a in answers] == [[1]]
    assert page.locator("#hand .card").count() == 16  # the card and two penalty cards
    match.refresh_from_db()
    assert any(move["seat"] == 1 and move["action"] == {"type": "claim"} for move in match.log)

    done = set()
    while "meld" not in done or "discard" not in done:
        page.wait_for_selector(TURN, timeout=30_000)
        match.refresh_from_db()
        assert match.status == "active" and match.seq < 400, "no contract down in time"
        action = variants.get("dummy").bot_action(games.load(match), 1, bot="greedy")
        before = seq_of(page)
        kind = action["type"]
        if kind == "draw" and action["source"] == "stock":
            page.click("#stock.playable:not([disabled])", timeout=10_000)
        elif kind == "draw":
            page.click("#discard .upcard")
        elif kind == "meld":
            page.click("#actions >> text=Lay down the contract")
        elif kind == "layoff":
            page.click(f"#hand .card[data-card='{action['card']}'] >> nth=0")
            page.locator("#melds .meld").nth(action["meld"]).locator("button.layoff").click()
        else:
            page.click(f"#hand .card[data-card='{action['card']}'] >> nth=0")
            page.click("#actions >> text=Discard the")
        wait_seq(page, before + 1)
        if kind == "meld" or "meld" in done:
            done.add(kind)
    assert page.locator("#melds .meld").count() >= 2
    assert page.locator(".seat.me .seat-contract .tag >> text=down").count() == 1
    page.screenshot(path=str(SHOTS / "table-dummy-1280.png"), full_page=True)


def test_a_match_that_is_over_reads_finished_not_live(open_page):
    """Connected to a match that ended (here by a forfeit), the badge says so."""
    from django.db import transaction

    person = PlayerFactory()
    match = services.match_create(
        variant="gin", options={}, players=[person, BotPlayerFactory()], room=RoomFactory()
    )
    with transaction.atomic():
        locked = Match.objects.select_for_update().get(pk=match.pk)
        services.match_forfeit(match=locked, seat_index=1, reason="timeouts")
    page = open_page(person)
    page.goto(f"/matches/{match.pk}/")
    page.wait_for_selector("#conn[data-state='done']")
    assert page.inner_text("#conn") == "Finished"
