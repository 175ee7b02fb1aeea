"""The live table's WebSocket: `/ws/matches/<id>/`. No business logic here.

Who may connect: a signed-in player seated at the match, or anyone signed in when the
match's room allows spectators; everyone else is refused at the handshake. Each
connection only ever receives the view of its own seat, built by the same selector as
`GET /api/matches/<id>/` (`gameplay.selectors.match_view`); a spectator's has no hand.

Frames to the client, each carrying the match `seq` (the version, as lichess versions
its round socket):

- `{"type": "view", "seq", "view", "ref"?}`: the seat's whole view, on connect, after
  every committed move (whoever made it: a person over HTTP or this socket, a bot or a
  timeout on a Celery worker), and as the answer to an action sent here (with its `ref`).
- `{"type": "error", "seq", "ref", "error": {"code", "message", "details"}}`: an action
  sent here was refused, with the same codes as the HTTP endpoint; nothing changed.
- `{"type": "presence", "seq", "online": [seat, ...]}`: which seats have a socket open.

A client keeps the `seq` of the last view it applied. A view with a lower `seq` is stale
and ignored; any frame with a higher `seq` than the client's that is not a view means it
missed one (a gap): it re-reads its view over HTTP. It does the same after reconnecting.

Frames from the client: `{"type": "act", "seq", "action", "ref"}` goes through
`gameplay.services.match_act` exactly as `POST /api/matches/<id>/actions/` does;
`{"type": "resync"}` asks for the view again; `{"type": "resign", "ref"}`,
`{"type": "abort", "ref"}` and `{"type": "next_hand", "ref"}` go through
`gameplay.services.match_resign`, `match_abort` and `match_next_hand` as their HTTP
endpoints do, answered with a view or an error frame. Each frame type is rate-limited per
connection (`config.sockets.LimitedSocket`, `KNOCK_SOCKET_LIMITS["match"]`): over the
limit, an error frame `rate_limited` and a close with code 4429.

A socket authenticates with the session cookie (from an allowed Origin) or with an API
token (`gameplay.backends.SocketTokenMiddleware`): the same rules apply to both.

How moves reach this consumer, in the embedded default (no Redis, web and worker in
separate processes) as in production: see `gameplay/live.py`. In short, a Redis channel
layer carries "match N is at seq S" from any process when Redis is configured, and a
per-process watcher polls the watched matches' seq in one query every 0.25 s when it is
not (every 5 s with Redis, as a safety net).
"""

import asyncio
import logging

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from config.errors import DomainError
from config.sockets import LimitedSocket
from gameplay import live, selectors, services
from gameplay.models import Match, Player

logger = logging.getLogger(__name__)

# A version orders by seq, then by status (a forfeit or a dispute changes no seq), then by
# the stage within the move (`live.stage`: the rest between hands, each Next hand pressed,
# its end, a claim window the bots let pass closing with no move).
STATUS_ORDER = {
    Match.Status.ACTIVE: 0,
    Match.Status.FINISHED: 1,
    Match.Status.DISPUTED: 2,
    Match.Status.ABORTED: 3,
}

# Frames that are no turn, each the service its HTTP endpoint calls.
CONTROLS = {
    "resign": services.match_resign,
    "abort": services.match_abort,
    "next_hand": services.match_next_hand,
}


def version_of(seq: int, status: str, window: int = 0) -> tuple[int, int, int]:
    return seq, STATUS_ORDER[status], window


class MatchConsumer(LimitedSocket, AsyncJsonWebsocketConsumer):
    frame_limits = "match"

    async def connect(self):
        self.match_id = int(self.scope["url_route"]["kwargs"]["match_id"])
        self.version: tuple[int, int, int] | None = None
        self.online: dict[str, int] = {}
        self.sending = asyncio.Lock()
        user = self.scope["user"]
        if not user.is_authenticated:
            await self.close(code=4401)
            return
        access = await live.run_db(self._access, user)
        if access is None:
            await self.close(code=4404)
            return
        self.player, self.seat = access
        self.group = live.match_group(self.match_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept_socket()
        live.watcher().watch(self.match_id, self)
        await self.send_view()
        if self.seat is not None:
            self.online[self.channel_name] = self.seat
            await self._presence("presence.join")
        else:
            await self._presence("presence.ask")  # a watcher learns who is here
        await self._send_presence()

    def _access(self, user) -> tuple[Player | None, int | None] | None:
        player = selectors.player_of_user(user)
        match = selectors.match_watchable(self.match_id, player)
        if match is None:
            return None
        seat = next(
            (s.index for s in match.seats.all() if player and s.player_id == player.pk), None
        )
        return player, seat

    async def disconnect(self, code):
        if not hasattr(self, "group"):
            return
        live.watcher().unwatch(self.match_id, self)
        if self.seat is not None:
            await self._presence("presence.leave")
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def dispatch(self, message):
        """Channels' dispatch, less its `close_old_connections` hop before every message
        but the connect: this consumer's database calls run in `live.run_db`'s threads,
        which look after their own connections, and the hop onto Channels' database thread
        for each frame, notice and presence message cost the web process more CPU than
        building the view. The connect's still runs: the session and user are read on
        that thread."""
        if message["type"] == "websocket.connect":
            await super().dispatch(message)
            return
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    # --- views -------------------------------------------------------------------

    def _view(self) -> dict | None:
        if self.seat is None:
            # A spectator's access is asked again each time: the room may stop allowing it.
            match = selectors.match_watchable(self.match_id, self.player)
            return None if match is None else selectors.match_view(match, self.player)
        # A seat stays the player's: one query for the match and its seats.
        match, seats = selectors.match_with_seats(self.match_id)
        return None if match is None else selectors.match_view(match, self.player, seats)

    async def send_view(self, ref=None, force: bool = False, seen=None) -> None:
        """Build this seat's view and send it unless this version was sent already.

        `seen` is the version a notice announced: when this socket has sent it (or a later
        one) by the time it is this call's turn, the view is not even built.
        """
        async with self.sending:
            if seen is not None and self.version is not None and seen <= self.version:
                return
            view = await live.run_db(self._view)
            if view is None:
                await self.close(code=4404)
                return
            await self._send_view(view, ref=ref, force=force)

    async def _send_view(self, view: dict, ref=None, force: bool = False) -> None:
        """Send a view built for this seat; the caller holds `self.sending`."""
        window = live.stage(view.get("claim_deadline"), view.get("hand_break"))
        version = version_of(view["seq"], view["status"], window)
        if not force and self.version is not None and version <= self.version:
            return
        self.version = max(version, self.version or version)
        frame = {"type": "view", "seq": view["seq"], "view": view}
        if ref is not None:
            frame["ref"] = ref
        await self.send_json(frame)

    def version_changed(self, seq: int, status: str, window: int = 0) -> None:
        """The watcher saw this match move (called from the watcher's task)."""
        version = version_of(seq, status, window)
        if self.version is None or version > self.version:
            asyncio.get_running_loop().create_task(self._catch_up(version))

    async def _catch_up(self, version: tuple[int, int, int]) -> None:
        try:
            await self.send_view(seen=version)
        except OSError as exc:
            # The socket closed while its view was built (uvicorn's ClientDisconnected):
            # nobody is left to tell; the reconnect reads the view afresh.
            logger.debug("match %s: socket closed before its view went out: %s", self.match_id, exc)

    async def match_moved(self, event):
        """The channel layer says the match reached `seq` (after that move committed)."""
        self.version_changed(event["seq"], event["status"], event.get("window", 0))

    # --- actions -----------------------------------------------------------------

    async def receive_json(self, content, **kwargs):
        kind = content.get("type") if isinstance(content, dict) else None
        if kind == "resync":
            await self.send_view(force=True)
        elif kind == "act":
            await self._act(content)
        elif kind in CONTROLS:
            await self._control(content.get("ref"), CONTROLS[kind])
        else:
            await self.refuse(
                content.get("ref") if isinstance(content, dict) else None,
                DomainError(
                    'A frame is {"type": "act", ...}, "resign", "abort", "next_hand" or "resync".'
                ),
            )

    async def _act(self, content: dict) -> None:
        ref, seq, action = content.get("ref"), content.get("seq"), content.get("action")
        if self.player is None or self.seat is None:
            await self.refuse(ref, DomainError("Spectators cannot act.", code="not_seated"))
            return
        if not isinstance(seq, int) or isinstance(seq, bool) or not isinstance(action, dict):
            await self.refuse(
                ref, DomainError("An action needs an integer seq and an action object.")
            )
            return
        # The lock is held from the move to its answer: the notice of this very move (which
        # can arrive first) then finds its version sent and builds nothing.
        async with self.sending:
            try:
                view = await live.run_db(self._act_and_view, seq, action)
            except DomainError as exc:
                await self.refuse(ref, exc)
                return
            await self._send_view(view, ref=ref, force=True)

    async def _control(self, ref, service) -> None:
        """Resign, call off or Next hand: the same services as their HTTP endpoints, the
        answer a view (with the frame's `ref`) or an error frame."""
        if self.player is None or self.seat is None:
            await self.refuse(ref, DomainError("Spectators cannot act.", code="not_seated"))
            return
        async with self.sending:
            try:
                view = await live.run_db(self._control_and_view, service)
            except DomainError as exc:
                await self.refuse(ref, exc)
                return
            await self._send_view(view, ref=ref, force=True)

    def _control_and_view(self, service) -> dict:
        match = service(match_id=self.match_id, player=self.player)
        return selectors.match_view(match, self.player)

    def _act_and_view(self, seq: int, action: dict) -> dict:
        """The move through the same service as HTTP, and the answer built from the match
        it returns (its seats are loaded): no second read."""
        match = services.match_act(
            match_id=self.match_id, player=self.player, seq=seq, action=action
        )
        return selectors.match_view(match, self.player)

    async def refuse(self, ref, exc: DomainError) -> None:
        await self.send_json(
            {
                "type": "error",
                "seq": self.version[0] if self.version else None,
                "ref": ref,
                "error": {"code": exc.code, "message": exc.message, "details": exc.details},
            }
        )

    # --- presence: which seats have a socket open --------------------------------

    async def _presence(self, kind: str) -> None:
        await self.channel_layer.group_send(
            self.group, {"type": kind, "seat": self.seat, "channel": self.channel_name}
        )

    async def presence_join(self, event):
        self.online[event["channel"]] = event["seat"]
        if event["channel"] != self.channel_name and self.seat is not None:
            await self._presence("presence.here")
        await self._send_presence()

    async def presence_ask(self, event):
        """A watcher joined: the seated sockets say they are here, as to a new player."""
        if self.seat is not None:
            await self._presence("presence.here")

    async def presence_here(self, event):
        if event["channel"] not in self.online:
            self.online[event["channel"]] = event["seat"]
            await self._send_presence()

    async def presence_leave(self, event):
        self.online.pop(event["channel"], None)
        await self._send_presence()

    async def _send_presence(self) -> None:
        await self.send_json(
            {
                "type": "presence",
                "seq": self.version[0] if self.version else None,
                "online": sorted(set(self.online.values())),
            }
        )
