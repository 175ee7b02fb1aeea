"""The live sockets with a real client (the `websockets` package) against a real uvicorn
process: an API token opens them as a session does (an `Authorization` header, or the
`knock.token` subprotocol a browser can send), with the same rules; and every frame type
is rate-limited per connection, so a flood ends in an error frame and a close while
another table plays on undisturbed."""

import asyncio
import json
import time

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from config.sockets import CLOSE_RATE_LIMITED
from gameplay import services
from tests.factories import PlayerFactory, RoomFactory
from tests.gameplay.helpers import api_key, choose
from tests.gameplay.test_consumers import run_async, session_cookie
from tests.gameplay.test_table_restart import WebServer, os_free_port

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker, celery_test_queue):
    """One uvicorn for the module (it starts in seconds, not for free), on the test database."""
    with django_db_blocker.unblock():
        web = WebServer(os_free_port(), celery_test_queue)
    web.start()
    yield web
    web.kill()


def human_match():
    ada, bob = PlayerFactory(), PlayerFactory()
    match = services.match_create(variant="gin", options={}, players=[ada, bob], room=RoomFactory())
    return match, ada, bob


def url(server, match_id: int) -> str:
    return f"ws://127.0.0.1:{server.port}/ws/matches/{match_id}/"


async def next_of(ws, kind: str, timeout: float = 10.0) -> dict:
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if frame["type"] == kind:
            return frame


def test_a_token_opens_the_table_socket_by_header_or_subprotocol(server):
    match, ada, bob = human_match()
    stranger = PlayerFactory()
    keys = {"ada": api_key(ada), "bob": api_key(bob), "stranger": api_key(stranger)}
    revoked = services.api_token_create(user=ada.user)
    services.api_token_revoke(user=ada.user, token_id=revoked[0].pk)
    cookie = session_cookie(ada)

    async def body():
        header = {"Authorization": f"Token {keys['ada']}"}
        by_header = await connect(url(server, match.pk), additional_headers=header)
        by_subprotocol = await connect(
            url(server, match.pk), subprotocols=["knock.token", keys["bob"]]
        )
        assert by_header.subprotocol is None and by_subprotocol.subprotocol == "knock.token"
        sockets = [by_header, by_subprotocol]
        views = [(await next_of(ws, "view"))["view"] for ws in sockets]
        assert [view["seat"] for view in views] == [0, 1]
        assert all(len(view["hand"]) == 10 for view in views)
        # The same rules as a session: the seat to move acts; the other may not.
        mover = views[0]["to_move"]
        for seat, code in ((1 - mover, "not_your_turn"), (mover, None)):
            view = views[seat]
            action = {"type": "act", "seq": view["seq"], "action": choose(views[mover]), "ref": 1}
            await sockets[seat].send(json.dumps(action))
            if code:
                assert (await next_of(sockets[seat], "error"))["error"]["code"] == code
            else:
                answer = await next_of(sockets[seat], "view")
                assert answer["ref"] == 1 and answer["seq"] == view["seq"] + 1
        for ws in sockets:
            await ws.close()
        for refused in ("not-a-key", keys["stranger"], revoked[1]):
            with pytest.raises(InvalidStatus) as denied:
                async with connect(url(server, match.pk), subprotocols=["knock.token", refused]):
                    pass
            assert denied.value.response.status_code == 403
        # A cookie still needs an allowed Origin; a token needs none.
        with pytest.raises(InvalidStatus):
            async with connect(url(server, match.pk), additional_headers=[cookie_header(cookie)]):
                pass
        origin = {"Origin": server.url, "Cookie": cookie_header(cookie)[1]}
        async with connect(url(server, match.pk), additional_headers=origin) as ws:
            assert (await next_of(ws, "view"))["view"]["seat"] == 0

    run_async(body)


def cookie_header(cookie: tuple[bytes, bytes]) -> tuple[str, str]:
    return cookie[0].decode(), cookie[1].decode()


def test_a_resync_flood_gets_an_error_and_a_close_while_another_table_plays_on(server):
    flooded, ada, _ = human_match()
    other, cy, dee = human_match()
    keys = {"ada": api_key(ada), "cy": api_key(cy), "dee": api_key(dee)}
    answers: list[float] = []  # one move's answer to its sender, seconds
    pushes: list[float] = []  # the same move reaching the other seat

    async def flood() -> tuple[list[dict], int]:
        header = {"Authorization": f"Token {keys['ada']}"}
        async with connect(url(server, flooded.pk), additional_headers=header) as ws:
            await next_of(ws, "view")
            await asyncio.gather(*(ws.send('{"type": "resync"}') for _ in range(300)))
            frames = []
            try:
                while True:
                    frames.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
            except ConnectionClosed as closed:
                return frames, closed.rcvd.code

    async def play_on() -> None:
        sockets = [
            await connect(url(server, other.pk), subprotocols=["knock.token", keys[name]])
            for name in ("cy", "dee")
        ]
        views = [(await next_of(ws, "view"))["view"] for ws in sockets]
        for ref in range(1, 9):
            mover = views[0]["to_move"]
            view = views[mover]
            begun = time.monotonic()
            frame = {"type": "act", "seq": view["seq"], "action": choose(view), "ref": ref}
            await sockets[mover].send(json.dumps(frame))
            answer = await next_of(sockets[mover], "view")
            answers.append(time.monotonic() - begun)
            pushed = await next_of(sockets[1 - mover], "view")
            pushes.append(time.monotonic() - begun)
            assert answer["ref"] == ref and pushed["seq"] == answer["seq"]
            views[mover], views[1 - mover] = answer["view"], pushed["view"]
        for ws in sockets:
            await ws.close()

    async def body():
        (frames, code), _ = await asyncio.gather(flood(), play_on())
        kinds = [frame["type"] for frame in frames if frame["type"] != "presence"]
        assert kinds == ["view", "view", "view", "error"]  # the burst of 3, then the refusal
        error = frames[-1]["error"]
        assert error["code"] == "rate_limited" and error["details"]["frame"] == "resync"
        assert code == CLOSE_RATE_LIMITED

    run_async(body)
    # A move's answer and its push to the other seat, while the flood was handled: under
    # 0.1 s each on a quiet machine; the bound is for a loaded, shared one.
    print(f"other table: answer max {max(answers):.3f} s, push max {max(pushes):.3f} s")
    assert max(answers) < 2.0 and max(pushes) < 2.0


def test_every_frame_type_has_a_limit_and_bad_json_is_refused(server):
    match, ada, _ = human_match()
    key = api_key(ada)

    async def body():
        header = {"Authorization": f"Token {key}"}
        async with connect(url(server, match.pk), additional_headers=header) as ws:
            await next_of(ws, "view")
            await ws.send("{not json")
            refused = await next_of(ws, "error")
            assert refused["error"]["code"] == "parse_error"
            for _ in range(3):
                await ws.send('{"type": "shout"}')
            kinds = [(await next_of(ws, "error"))["error"]["code"] for _ in range(3)]
            assert kinds == ["invalid_request", "invalid_request", "rate_limited"]
            with pytest.raises(ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), 10)
            assert closed.value.rcvd.code == CLOSE_RATE_LIMITED
        async with connect(
            f"ws://127.0.0.1:{server.port}/ws/notices/", additional_headers=header
        ) as ws:
            assert (await next_of(ws, "notices"))["notices"] == []
            for _ in range(10):
                await ws.send("{}")
            assert (await next_of(ws, "error"))["error"]["code"] == "rate_limited"
            with pytest.raises(ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), 10)
            assert closed.value.rcvd.code == CLOSE_RATE_LIMITED

    run_async(body)
