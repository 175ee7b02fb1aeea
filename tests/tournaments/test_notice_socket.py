"""The notice socket (config/consumers.py) through channels.testing against the whole ASGI
application: who may connect, and that news reaches it with no Redis at all (the embedded
default, where only its own tick can find it). The pushed path with Redis is proven in
Chromium by tests/tournaments/test_live_notices.py."""

import pytest
from channels.testing import WebsocketCommunicator

from config.asgi import application
from gameplay import live
from tests.gameplay.test_consumers import ORIGIN, run_async, session_cookie
from tests.tournaments.helpers import bots, humans, open_tournament, register_all
from tournaments import services

pytestmark = pytest.mark.django_db(transaction=True)


def notice_socket(cookie=None) -> WebsocketCommunicator:
    headers = [ORIGIN] + ([cookie] if cookie else [])
    return WebsocketCommunicator(application, "/ws/notices/", headers=headers)


def test_only_a_signed_in_player_gets_a_notice_socket():
    async def run():
        connected, code = await notice_socket().connect()
        assert not connected and code == 4401

    run_async(run)


def test_without_redis_the_socket_finds_news_on_its_own(monkeypatch, settings):
    monkeypatch.setattr(live, "feed_configured", lambda: False)
    settings.KNOCK_LIVE = {**settings.KNOCK_LIVE, "notice_seconds": 0.2}
    tournament = open_tournament(name="Quiet Cup")
    [player] = humans(1)
    register_all(tournament, [player, *bots(1)])
    cookie = session_cookie(player)
    organiser = tournament.organiser

    async def run():
        comm = notice_socket(cookie)
        assert (await comm.connect())[0]
        assert await comm.receive_json_from(timeout=5) == {"type": "notices", "notices": []}
        await live.run_db(
            services.tournament_open_check_in,
            tournament_id=tournament.pk,
            by=organiser,
        )
        frame = await comm.receive_json_from(timeout=5)
        assert [n["text"] for n in frame["notices"]] == ["Check-in is open for Quiet Cup."]
        # Nothing changed since: nothing more is sent.
        assert await comm.receive_nothing(timeout=0.6)
        await comm.disconnect()

    run_async(run)
