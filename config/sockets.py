"""What a client may send over a socket: every frame type has a token bucket per connection
(`KNOCK_SOCKET_LIMITS` in config/settings.py, per second and burst), so one socket cannot
make its web process do unbounded work (a resync builds a whole view). A frame over its
limit is answered with an error frame (`rate_limited`) and the socket is closed with
`CLOSE_RATE_LIMITED`; frames already on their way after it are dropped unread.

`LimitedSocket` is mixed into the consumers (config/consumers.py, gameplay/consumers.py)
ahead of Channels' `AsyncJsonWebsocketConsumer`; it also answers a frame that is not JSON
with an error frame instead of ending the connection with a server error.
"""

import json
import time

from django.conf import settings
from django.utils.translation import gettext as _

from config import metrics
from config.errors import DomainError

CLOSE_RATE_LIMITED = 4429  # 4000-4999 are the application's; 429 as in HTTP


class Bucket:
    """`rate` tokens a second, holding at most `burst`; a frame takes one."""

    __slots__ = ("at", "burst", "rate", "tokens")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst, self.tokens, self.at = rate, burst, float(burst), time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class LimitedSocket:
    """Rate limits and the token subprotocol for a JSON consumer. `frame_limits` names its
    entry of `KNOCK_SOCKET_LIMITS`; frame types not listed there share its "other" bucket."""

    frame_limits: str

    async def accept_socket(self) -> None:
        """Accept, echoing the token subprotocol when the client authenticated with it (a
        browser drops a socket whose server picks none of the subprotocols it offered)."""
        await self.accept(self.scope.get("knock_subprotocol"))
        self.counted = True
        metrics.SOCKETS.labels(self.frame_limits).inc()

    async def websocket_disconnect(self, message):
        if getattr(self, "counted", False):
            self.counted = False
            metrics.SOCKETS.labels(self.frame_limits).dec()
        await super().websocket_disconnect(message)

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        if getattr(self, "limited", False):
            return
        try:
            content = json.loads(text_data if text_data is not None else bytes_data)
        except (TypeError, ValueError):
            content = None
        kind = content.get("type") if isinstance(content, dict) else None
        limits = settings.KNOCK_SOCKET_LIMITS[self.frame_limits]
        name = kind if isinstance(kind, str) and kind in limits else "other"
        buckets = self.__dict__.setdefault("buckets", {})
        bucket = buckets.get(name) or buckets.setdefault(name, Bucket(*limits[name]))
        ref = content.get("ref") if isinstance(content, dict) else None
        if not bucket.take():
            self.limited = True
            rate, burst = limits[name]
            await self.refuse(
                ref,
                DomainError(
                    _("Too many frames: the socket is closed."),
                    code="rate_limited",
                    details={"frame": name, "per_second": rate, "burst": burst},
                ),
            )
            await self.close(code=CLOSE_RATE_LIMITED)
            return
        if not isinstance(content, dict):
            await self.refuse(None, DomainError(_("A frame is a JSON object."), code="parse_error"))
            return
        await self.receive_json(content)

    async def refuse(self, ref, exc: DomainError) -> None:
        await self.send_json(
            {
                "type": "error",
                "ref": ref,
                "error": {"code": exc.code, "message": exc.message, "details": exc.details},
            }
        )
