"""The notice socket: `/ws/notices/`, open on every page of a signed-in player, so a
notice (check-in open, your table is ready, your match is on) appears when it happens
instead of at the page's next poll. No business logic: it sends what `config.notices`
reads, as `{"type": "notices", "notices": [...]}`, on connect and whenever that changes.

It reads again when a service says so (`gameplay.live.notify_players`: a Redis PUBLISH
from any process, received by this process's `gameplay.live.NoticeHub`) and on its own
every `KNOCK_LIVE["notice_seconds"]`: every 2 s in the embedded default, where a worker
process cannot reach this one (the way the live table's watcher keeps it live there),
every 30 s with Redis as a safety net for a lost push. The page polls `/me/notices/`
while this socket is down.
"""

import asyncio
import logging

from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.utils import translation

from config.notices import notices_for
from config.sockets import LimitedSocket
from gameplay import live, selectors
from gameplay.models import Player

logger = logging.getLogger(__name__)


class NoticeConsumer(LimitedSocket, AsyncJsonWebsocketConsumer):
    frame_limits = "notices"
    # No channel layer: the hub nudges this socket directly. With one, every page would hold
    # a Redis receive of its own, and an event loop's socket would refuse to share a layer
    # another loop is receiving on (as a test process's servers each run their own loop).
    channel_layer_alias = None

    async def connect(self):
        self.sent: list[dict] | None = None
        self.sending = asyncio.Lock()
        user = self.scope["user"]
        if not user.is_authenticated:
            await self.close(code=4401)
            return
        player = await live.run_db(selectors.player_of_user, user)
        if player is None:
            await self.close(code=4404)
            return
        self.player_id = player.pk
        # The page's language, as LocaleMiddleware chose it for the page (its cookie, else
        # the browser's Accept-Language): the notices are written in it.
        self.language = _socket_language(self.scope)
        await self.accept_socket()
        hub = live.notice_hub()
        hub.join(self.player_id, self)
        await hub.ready()
        await self.send_notices()
        self.ticker = asyncio.get_running_loop().create_task(self._tick())

    async def disconnect(self, code):
        if not hasattr(self, "ticker"):
            return
        self.ticker.cancel()
        live.notice_hub().leave(self.player_id, self)

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(settings.KNOCK_LIVE["notice_seconds"])
            await self._refresh()

    def nudge(self) -> None:
        """A service says this player's notices may have changed (after its commit)."""
        asyncio.get_running_loop().create_task(self._refresh())

    async def _refresh(self) -> None:
        try:
            await self.send_notices()
        except OSError as exc:
            # The page left while its notices were read (uvicorn's ClientDisconnected):
            # nobody is left to tell; the next page's socket reads them afresh.
            logger.debug("notices: player %s's socket closed first: %s", self.player_id, exc)
        except Exception:
            # A database hiccup must not end this page's notices.
            logger.exception("notices: sending player %s's notices failed", self.player_id)

    async def send_notices(self) -> None:
        """Send the player's notices unless they are what this socket sent last."""
        async with self.sending:
            notices = await live.run_db(_notices_of, self.player_id, self.language)
            if notices != self.sent:
                self.sent = notices
                await self.send_json({"type": "notices", "notices": notices})

    async def receive_json(self, content, **kwargs):
        """Nothing to say to this socket: it only listens."""


def _socket_language(scope) -> str:
    cookies = scope.get("cookies") or {}
    chosen = cookies.get(settings.LANGUAGE_COOKIE_NAME, "")
    if chosen and translation.check_for_language(chosen):
        try:
            return translation.get_supported_language_variant(chosen)
        except LookupError:
            pass  # a cookie naming a language Knock does not offer: the browser's, then
    headers = dict(scope.get("headers") or [])
    accept = headers.get(b"accept-language", b"").decode("latin-1")
    for code, _quality in translation.trans_real.parse_accept_lang_header(accept):
        if code == "*":
            break
        try:
            return translation.get_supported_language_variant(code)
        except LookupError:
            continue
    return settings.LANGUAGE_CODE


def _notices_of(player_id: int, language: str) -> list[dict]:
    with translation.override(language):
        return notices_for(Player.objects.filter(pk=player_id).first())
