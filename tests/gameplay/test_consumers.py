"""The live table's socket (gameplay/consumers.py) through channels.testing, against the
whole ASGI application: session authentication, origin check, who may connect, the
versions on every frame, and that no frame ever holds another seat's cards."""

import asyncio
from concurrent.futures import ThreadPoolExecutor
from unittest import mock

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.db import transaction
from django.test import Client

from config.asgi import application
from gameplay import live, selectors, services
from gameplay.models import Match
from tests.factories import BotPlayerFactory, PlayerFactory, RoomFactory

pytestmark = pytest.mark.django_db(transaction=True)
ORIGIN = (b"origin", b"http://testserver")


def run_async(body) -> None:
    """Run a test's async body on an event loop in a thread of its own: once a browser test
    ran, Playwright's sync API keeps a loop in the main thread for the whole session."""
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, body()).result(timeout=60)


def sessions(*players) -> dict[int, tuple[bytes, bytes]]:
    """Each player's session cookie header by player id (made outside the event loop)."""
    return {player.pk: session_cookie(player) for player in players}


def session_cookie(player) -> tuple[bytes, bytes]:
    client = Client()
    client.force_login(player.user)
    return b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode()


def socket(match_id: int, cookie=None, origin=ORIGIN) -> WebsocketCommunicator:
    """A socket to the match; `cookie` is a `session_cookie`, made outside the event loop."""
    headers = [origin] + ([cookie] if cookie else [])
    return WebsocketCommunicator(application, f"/ws/matches/{match_id}/", headers=headers)


def human_match(room=None):
    room = room or RoomFactory()
    ada, bob = PlayerFactory(), PlayerFactory()
    match = services.match_create(variant="gin", options={}, players=[ada, bob], room=room)
    return match, ada, bob


async def frames_until(comm, kind: str, timeout: float = 2.0) -> tuple[dict, list[dict]]:
    """Read frames until one of `kind`; returns it and every frame read."""
    seen = []
    while True:
        frame = await comm.receive_json_from(timeout=timeout)
        seen.append(frame)
        if frame["type"] == kind:
            return frame, seen


def hidden_of(match: Match, seat: int) -> set[str]:
    """Cards in `seat`'s hand that nobody else may see (those picked from the pile are known)."""
    view = services_view(Match.objects.get(pk=match.pk), seat)
    return set(view["hand"]) - {c for known in view["table"].get("known", []) for c in known}


def services_view(match: Match, seat: int) -> dict:
    player = match.seats.get(index=seat).player
    return selectors.match_view(selectors.match_watchable(match.pk, player), player)


def test_anonymous_and_strangers_get_no_socket():
    match, ada, _ = human_match()
    stranger = PlayerFactory()

    cookies = sessions(ada, stranger)

    async def run():
        for comm in (
            socket(match.pk),
            socket(match.pk, cookies[stranger.pk]),
            socket(987654, cookies[ada.pk]),
        ):
            connected, _ = await comm.connect()
            assert not connected
        # The right session from another site's page is refused too.
        comm = socket(match.pk, cookies[ada.pk], origin=(b"origin", b"http://evil.example"))
        connected, _ = await comm.connect()
        assert not connected

    run_async(run)


def test_a_seat_gets_its_own_view_and_acts_over_the_socket():
    match, ada, bob = human_match()
    first = match.to_move
    mover, other = (ada, bob) if first == 0 else (bob, ada)
    bob_hidden = hidden_of(match, 1 - first)

    cookies = sessions(mover, other)

    async def run():
        mine, theirs = socket(match.pk, cookies[mover.pk]), socket(match.pk, cookies[other.pk])
        assert (await mine.connect())[0] and (await theirs.connect())[0]
        hello, _ = await frames_until(mine, "view")
        assert hello["seq"] == 0 and hello["view"]["your_turn"]
        assert hello["view"]["hand"] and not set(hello["view"]["hand"]) & bob_hidden
        await frames_until(theirs, "view")

        # A stale seq is refused with the HTTP endpoint's code, and changes nothing.
        await mine.send_json_to({"type": "act", "seq": 5, "action": {"type": "pass"}, "ref": 1})
        error, _ = await frames_until(mine, "error")
        assert error["ref"] == 1 and error["error"]["code"] == "stale_seq"
        # An illegal action: the engine's code.
        bad = {"type": "discard", "card": "XX"}
        await mine.send_json_to({"type": "act", "seq": 0, "action": bad, "ref": 2})
        error, _ = await frames_until(mine, "error")
        assert error["ref"] == 2 and error["error"]["code"] not in {"stale_seq", "invalid_request"}
        # The other seat may not act out of turn.
        await theirs.send_json_to({"type": "act", "seq": 0, "action": {"type": "pass"}, "ref": 3})
        error, _ = await frames_until(theirs, "error")
        assert error["error"]["code"] == "not_your_turn"
        assert (await database_sync_to_async(Match.objects.get)(pk=match.pk)).seq == 0

        legal = hello["view"]["legal_actions"][0]
        await mine.send_json_to({"type": "act", "seq": 0, "action": legal, "ref": 4})
        answer, _ = await frames_until(mine, "view")
        assert answer["ref"] == 4 and answer["seq"] == 1
        # The other seat hears of it: its own view, at the new version.
        pushed, _ = await frames_until(theirs, "view")
        assert pushed["seq"] == 1 and pushed["view"]["seat"] == 1 - first
        assert "ref" not in pushed
        await mine.disconnect()
        await theirs.disconnect()

    run_async(run)


def test_moves_made_elsewhere_are_pushed_once_each_version():
    """A move committed by another process (HTTP, a worker) reaches the socket within a
    second; a notice for a version already sent sends nothing (no duplicate, no rewind)."""
    match, ada, bob = human_match()
    mover = ada if match.to_move == 0 else bob
    watcher_seat = bob if mover is ada else ada

    cookies = sessions(watcher_seat)

    async def run():
        comm = socket(match.pk, cookies[watcher_seat.pk])
        assert (await comm.connect())[0]
        await frames_until(comm, "view")
        await frames_until(comm, "presence")
        view = await database_sync_to_async(services_view)(match, match.to_move)
        loop = asyncio.get_running_loop()
        started = loop.time()
        await database_sync_to_async(services.match_act)(
            match_id=match.pk, player=mover, seq=0, action=view["legal_actions"][0]
        )
        pushed, _ = await frames_until(comm, "view", timeout=3)
        assert pushed["seq"] == 1
        assert loop.time() - started < 1.0
        # Late or repeated notices of versions already sent are dropped.
        layer = get_channel_layer()
        for seq in (0, 1):
            notice = {"type": "match.moved", "seq": seq, "status": "active"}
            await layer.group_send(live.match_group(match.pk), notice)
        assert await comm.receive_nothing(timeout=max(live_poll() * 2, 0.5))
        await comm.disconnect()

    run_async(run)


def live_poll() -> float:
    return min(settings.KNOCK_LIVE["poll_seconds"], 0.5)


def test_a_reconnecting_client_gets_the_current_version_at_once():
    """A client that missed moves while away (a gap) is sent the current view on connect."""
    room = RoomFactory()
    ada = PlayerFactory()
    bot = BotPlayerFactory()
    match = services.match_create(variant="gin", options={}, players=[ada, bot], room=room)
    # The bot (seat 1) plays whatever it can; ada is at a later seq than 0 after that.
    services.match_play_bots(match_id=match.pk)
    match.refresh_from_db()

    cookies = sessions(ada)

    async def run():
        comm = socket(match.pk, cookies[ada.pk])
        assert (await comm.connect())[0]
        frame, _ = await frames_until(comm, "view")
        assert frame["seq"] == match.seq and frame["view"]["seq"] == match.seq
        await comm.send_json_to({"type": "resync"})
        again, _ = await frames_until(comm, "view")
        assert again["seq"] == match.seq
        await comm.disconnect()

    run_async(run)


def test_spectators_only_where_the_room_allows_and_never_see_a_hand():
    match, _, _ = human_match(RoomFactory(spectators_allowed=True))
    closed, _, _ = human_match()
    watcher = PlayerFactory()
    hands = hidden_of(match, 0) | hidden_of(match, 1)

    cookies = sessions(watcher)

    async def run():
        refused = socket(closed.pk, cookies[watcher.pk])
        assert not (await refused.connect())[0]
        comm = socket(match.pk, cookies[watcher.pk])
        assert (await comm.connect())[0]
        frame, frames = await frames_until(comm, "view")
        assert frame["view"]["hand"] == [] and frame["view"]["seat"] is None
        await comm.send_json_to({"type": "act", "seq": 0, "action": {"type": "pass"}, "ref": 9})
        error, more = await frames_until(comm, "error")
        assert error["error"]["code"] == "not_seated"
        for sent in frames + more:
            assert not cards_in(sent) & hands
        await comm.disconnect()

    run_async(run)


def test_a_spectator_who_joins_late_sees_who_is_seated_and_online():
    """Issue 27: a watcher saw every player AWAY all match, as only seated sockets
    announce themselves; now a watcher asks, and the seated answer."""
    match, ada, bob = human_match(RoomFactory(spectators_allowed=True))
    watcher = PlayerFactory()
    cookies = sessions(ada, bob, watcher)

    async def run():
        seated = [socket(match.pk, cookies[p.pk]) for p in (ada, bob)]
        for comm in seated:
            assert (await comm.connect())[0]
            await frames_until(comm, "view")
        comm = socket(match.pk, cookies[watcher.pk])
        assert (await comm.connect())[0]
        online = []
        while online != [0, 1]:
            frame, _ = await frames_until(comm, "presence")
            online = frame["online"]
        await seated[1].disconnect()
        while online != [0]:
            frame, _ = await frames_until(comm, "presence")
            online = frame["online"]
        for other in (comm, seated[0]):
            await other.disconnect()

    run_async(run)


def cards_in(frame: dict) -> set[str]:
    """Every two-character card text anywhere in a frame."""
    found = set()

    def walk(value):
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str) and len(value) == 2:
            found.add(value)

    walk(frame)
    return found


def test_no_frame_ever_holds_the_other_seats_hand():
    """A whole hand's worth of moves, both seats connected: every frame either seat gets
    holds only its own cards and the public ones."""
    match, ada, bob = human_match()
    players = {0: ada, 1: bob}

    cookies = sessions(ada, bob)

    async def run():
        comms = {seat: socket(match.pk, cookies[player.pk]) for seat, player in players.items()}
        for comm in comms.values():
            assert (await comm.connect())[0]
        received = {0: [], 1: []}
        for _ in range(12):
            current = await database_sync_to_async(Match.objects.get)(pk=match.pk)
            if current.status != Match.Status.ACTIVE:
                break
            seat = current.to_move
            view = await database_sync_to_async(services_view)(current, seat)
            await comms[seat].send_json_to(
                {"type": "act", "seq": current.seq, "action": view["legal_actions"][0], "ref": 1}
            )
            for s, comm in comms.items():
                frame, frames = await frames_until(comm, "view")
                while frame["seq"] < current.seq + 1:
                    frame, more = await frames_until(comm, "view")
                    frames += more
                received[s] += frames
                hidden = await database_sync_to_async(hidden_of)(current, 1 - s)
                for sent in frames:
                    assert not cards_in(sent) & hidden, (s, sent)
        assert all(received.values())
        for comm in comms.values():
            await comm.disconnect()

    run_async(run)


def test_announce_reaches_only_a_shared_layer(monkeypatch):
    """In the embedded default the layer is in-process: announcing is left to watchers."""
    sent = []
    monkeypatch.setattr(live, "feed_configured", lambda: False)
    monkeypatch.setattr(live, "_send", lambda versions: sent.append(versions))
    match, _, _ = human_match()
    live.announce([match])
    assert sent == []


def test_without_redis_nothing_calls_redis(monkeypatch, settings):
    """The embedded default (no `REDIS_URL`): a move's announce and a notice publish
    nothing, and a socket's watcher subscribes to no feed, whatever the channel layer."""
    settings.REDIS_URL = ""
    calls = []
    monkeypatch.setattr(live, "_feed_client", lambda: calls.append("client"))
    match, ada, _ = human_match()
    with transaction.atomic():
        live.announce([match])
        live.notify_players([ada.pk])

    async def run():
        watcher = live.watcher()
        watcher.watch(match.pk, mock.Mock())
        assert watcher.listener is None
        watcher.unwatch(match.pk, next(iter(watcher.consumers[match.pk])))

    run_async(run)
    assert calls == []


def test_a_move_over_the_socket_is_answered_once():
    """The answer to a socket's own move is its one view of that version: the notice of the
    same move, which may arrive first, sends (and builds) nothing more."""
    match, ada, bob = human_match()
    mover = ada if match.to_move == 0 else bob
    cookies = sessions(mover)

    async def run():
        comm = socket(match.pk, cookies[mover.pk])
        assert (await comm.connect())[0]
        hello, _ = await frames_until(comm, "view")
        action = hello["view"]["legal_actions"][0]
        await comm.send_json_to({"type": "act", "seq": 0, "action": action, "ref": 7})
        answer, _ = await frames_until(comm, "view")
        assert answer["ref"] == 7 and answer["seq"] == 1
        # The notice of this move (what the feed hands the watcher with Redis, and its own
        # poll finds without), and a repeat of it, change nothing.
        live.watcher().tell_all(b'[[%d, 1, "active", 1]]' % match.pk)
        while not await comm.receive_nothing(timeout=max(live_poll() * 2, 1.0)):
            frame = await comm.receive_json_from()
            assert frame["type"] == "presence", frame  # its own join, echoed by the group
        await comm.disconnect()

    run_async(run)


@pytest.mark.redis
def test_the_feed_reaches_every_socket_of_the_match_at_once():
    """A version published on the feed (what a worker's commit does) makes each socket at
    that match send its own view, within the feed's time, not the 5 s poll's."""
    match, ada, bob = human_match()
    mover = ada if match.to_move == 0 else bob
    other = bob if mover is ada else ada
    cookies = sessions(ada, bob)

    async def run():
        comms = {p.pk: socket(match.pk, cookies[p.pk]) for p in (ada, bob)}
        for comm in comms.values():
            assert (await comm.connect())[0]
            await frames_until(comm, "view")
        view = await database_sync_to_async(services_view)(match, match.to_move)
        # Committed without a notice: only the feed message below can tell the sockets.
        with mock.patch.object(live, "announce"):
            await database_sync_to_async(services.match_act)(
                match_id=match.pk, player=mover, seq=0, action=view["legal_actions"][0]
            )
        started = asyncio.get_running_loop().time()
        await database_sync_to_async(live._send)([(match.pk, 1, "active")])
        for player in (mover, other):
            pushed, _ = await frames_until(comms[player.pk], "view", timeout=3)
            assert pushed["seq"] == 1 and "ref" not in pushed
            assert pushed["view"]["seat"] == (
                match.to_move if player is mover else 1 - match.to_move
            )
        assert asyncio.get_running_loop().time() - started < 1.0
        for comm in comms.values():
            await comm.disconnect()

    run_async(run)


def test_a_feed_message_is_told_to_the_sockets_of_its_matches_only():
    told = []

    class Socket:
        def version_changed(self, seq, status, window):
            told.append((seq, status, window))

    watcher = live.SeqWatcher()
    watcher.consumers[5].add(Socket())
    watcher.tell_all(b'[[5, 3, "active", 1], [6, 1, "active", 1]]')
    watcher.tell_all(b'[[5, 4, "active"]]')  # no window part: an older publisher's
    watcher.tell_all(b"not versions")  # logged and dropped: the listener carries on
    assert told == [(3, "active", 1), (4, "active", 0)]
