"""Live tables: how a committed move reaches the sockets of the people at the table.

Every push is versioned by the match's `(seq, status, stage)`: `stage` (`stage`) rises
within one move number: negative while the table rests between hands (one more for each
Next hand pressed), then 1 once no claim window is waiting (`Match.claim_deadline` is
None), so the end of a rest and a window that closes early (the bots at the table let the
discard pass) are versions too, with no move and no new seq.
After a move commits, every web process is told the new version (`announce`); each
consumer at that match then builds its own seat's view with
`gameplay.selectors.match_view` and sends it (`gameplay/consumers.py`). A consumer that
already sent that version builds nothing.

Two ways a web process learns of a move, both always on:

- **The move feed** (`announce`, `SeqWatcher.listen`): with Redis configured
  (`REDIS_URL`, or a Redis `CELERY_BROKER_URL`) the process that committed a move (a
  Celery worker, a web process) PUBLISHes `[[match, seq, status, window], ...]` on one Redis
  Pub/Sub channel, `KNOCK_LIVE["feed"]`, in a single round trip on a connection it keeps;
  every web process holds one subscription to it and hands each version straight to its
  own consumers at that match. The channel layer's group messages were the first design:
  four Redis round trips to send, and four more for the web process to receive each one,
  in one loop per process, which at 200 tables left a bot's reply seconds in that line.
  The channel layer (`channels_redis`) still carries presence, and a `match.moved` group
  message is still understood.
- **The watcher** (`SeqWatcher.run`): every web process polls the version of the
  matches its sockets watch, all of them in one indexed query per tick. It is what keeps
  the embedded default live: there is no Redis, a worker process cannot reach a web
  process, and `announce` does nothing; a tick of `KNOCK_LIVE["poll_seconds"]` (0.25 s)
  brings every move, whoever made it, to the table within a second. With Redis the
  watcher ticks every few seconds, only as a safety net for a notice lost with a Redis
  blip (Pub/Sub delivers at most once), and once at once whenever the feed's subscription
  starts again.
"""

import asyncio
import contextlib
import functools
import json
import logging
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from weakref import WeakKeyDictionary

import redis
import redis.asyncio
from django.conf import settings
from django.db import connections, transaction

from gameplay.models import Match

logger = logging.getLogger(__name__)


def match_group(match_id: int) -> str:
    return f"match.{match_id}"


def feed_configured() -> bool:
    """Redis is configured (`REDIS_URL`, or a Redis broker), so the feeds and the channel
    layer reach other processes. Without it (the embedded default) nothing here calls
    Redis: the watchers and the notice sockets' own reads carry everything."""
    return bool(settings.REDIS_URL)


# The stages of a move number while the table rests between hands: below every stage of
# play, one more for each person who pressed Next hand.
REST_STAGE = -10


def window_stage(claim_deadline) -> int:
    """The claim window's part of a stage: 0 while a window waits for its deadline, else 1.
    Within one move number it only ever goes from 0 to 1 (a window opens only with a move)."""
    return 0 if claim_deadline is not None else 1


def stage(claim_deadline, hand_break) -> int:
    """A version's last part, rising within one move number: while the table rests between
    hands (`hand_break`, the view's or the row's `{"ready": [...]}`), `REST_STAGE` plus how
    many pressed Next hand; once play resumes, `window_stage` (a rest ends with no move,
    and a claim window then counts down, so it may close with none either)."""
    if hand_break is not None:
        return REST_STAGE + len(hand_break["ready"])
    return window_stage(claim_deadline)


def _stage_of_row(claim_deadline, hand_break_until, hand_break_ready) -> int:
    rest = None if hand_break_until is None else {"ready": hand_break_ready}
    return stage(claim_deadline, rest)


def version(match: Match) -> tuple[int, str, int]:
    """What `announce` publishes and the watcher compares for a match."""
    return (
        match.seq,
        match.status,
        _stage_of_row(match.claim_deadline, match.hand_break_until, match.hand_break_ready),
    )


def announce(matches: list[Match]) -> None:
    """Once the caller's transaction commits, tell every web process the matches' new
    versions.

    Only with Redis (`feed_configured`); without, the watchers find the moves. A failed
    publish is logged and costs those tables at most one watcher tick.
    """
    if not feed_configured():
        return
    versions = [(match.pk, *version(match)) for match in matches]
    transaction.on_commit(lambda: _publish(versions), robust=True)


def notify_players(player_ids) -> None:
    """Once the caller's transaction commits, tell these players' notice sockets (on any
    web process) to read their notices again: a check-in opened, a table is ready.

    Only with Redis: one PUBLISH of the ids on `KNOCK_LIVE["notice_feed"]`, which every
    web process with notice sockets holds a subscription to (`NoticeHub`). Without Redis,
    each notice socket reads its notices every few seconds on its own
    (`KNOCK_LIVE["notice_seconds"]`), the way the watcher finds moves. A failed publish
    is logged and costs those players one such tick.
    """
    if not feed_configured():
        return
    ids = sorted(set(player_ids))
    if ids:
        transaction.on_commit(lambda: _publish_notices(ids), robust=True)


def _publish_notices(player_ids: list[int]) -> None:
    try:
        _feed_client().publish(settings.KNOCK_LIVE["notice_feed"], json.dumps(player_ids))
    except Exception:
        logger.exception("notices: telling players %s failed", player_ids)


def _publish(versions: list[tuple]) -> None:
    try:
        _send(versions)
    except Exception:
        # The moves are committed; their tables catch up at their watcher's next tick.
        logger.exception("live tables: announcing %s failed", versions)


def _send(versions: list[tuple]) -> None:
    """One PUBLISH for them all, from any thread (a worker, a request's or a consumer's
    database thread, a thread that runs an event loop: no event loop is involved)."""
    _feed_client().publish(settings.KNOCK_LIVE["feed"], json.dumps(versions))


@functools.cache
def _feed_client() -> redis.Redis:
    # redis-py's pool is thread-safe, and starts afresh in a forked worker process.
    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=5, socket_connect_timeout=5)


def _versions(match_ids: list[int]) -> dict[int, tuple[int, str, int]]:
    rows = Match.objects.filter(pk__in=match_ids).values_list(
        "pk", "seq", "status", "claim_deadline", "hand_break_until", "hand_break_ready"
    )
    return {
        pk: (seq, status, _stage_of_row(deadline, until, ready))
        for pk, seq, status, deadline, until, ready in rows
    }


class SeqWatcher:
    """Tells this event loop's consumers when their match moves: from the move feed as
    each move commits (with Redis), and by polling the versions of every watched match.

    One query per tick for all of them; a consumer is told only when its match's version
    changed since the last tick, and checks against what it has sent itself.
    """

    def __init__(self) -> None:
        self.consumers: dict[int, set] = defaultdict(set)
        self.known: dict[int, tuple[int, str, int]] = {}
        self.task: asyncio.Task | None = None
        self.listener: asyncio.Task | None = None
        self.wake = asyncio.Event()

    def watch(self, match_id: int, consumer) -> None:
        self.consumers[match_id].add(consumer)
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done():
            self.task = loop.create_task(self.run())
        if (self.listener is None or self.listener.done()) and feed_configured():
            self.listener = loop.create_task(self.listen())

    def unwatch(self, match_id: int, consumer) -> None:
        watchers = self.consumers.get(match_id)
        if watchers is None:
            return
        watchers.discard(consumer)
        if not watchers:
            del self.consumers[match_id]
            self.known.pop(match_id, None)

    async def run(self) -> None:
        while self.consumers:
            # A tick, or at once when the feed's subscription (re)starts: what was
            # published while it was down is found here.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), settings.KNOCK_LIVE["poll_seconds"])
            self.wake.clear()
            try:
                versions = await run_db(_versions, list(self.consumers))
            except Exception:
                # A database hiccup must not end live updates for every table here.
                logger.exception("live table watcher: reading match versions failed")
                continue
            for match_id, version in versions.items():
                if self.known.get(match_id) == version:
                    continue
                self.known[match_id] = version
                self.tell(match_id, *version)

    def tell(self, match_id: int, seq: int, status: str, window: int = 0) -> None:
        for consumer in list(self.consumers.get(match_id, ())):
            consumer.version_changed(seq, status, window)

    def tell_all(self, data: bytes) -> None:
        """A feed message: `[[match, seq, status, window], ...]` (a version without its
        window part, from a process started before it existed, counts as window 0)."""
        try:
            versions = [
                (int(m), int(seq), str(status), int(window[0]) if window else 0)
                for m, seq, status, *window in json.loads(data)
            ]
        except (ValueError, TypeError):
            logger.warning("live tables: a feed message that is not versions: %r", data[:200])
            return
        for match_id, seq, status, window in versions:
            self.tell(match_id, seq, status, window)

    async def listen(self) -> None:
        """Hold this loop's subscription to the move feed while it has consumers."""
        await follow_feed(
            settings.KNOCK_LIVE["feed"],
            wanted=lambda: bool(self.consumers),
            on_message=self.tell_all,
            on_subscribed=self.wake.set,
            name="the move feed",
        )


async def follow_feed(channel: str, *, wanted, on_message, on_subscribed, name: str) -> None:
    """Hold a Redis subscription to `channel` while `wanted()`, handing each message's data
    to `on_message`; after a failure, subscribe again a second later. `on_subscribed` runs
    each time the subscription (re)starts: Pub/Sub delivers at most once, so the caller reads
    afresh what may have been published while it was down."""
    client = redis.asyncio.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=5)
    try:
        while wanted():
            try:
                async with client.pubsub(ignore_subscribe_messages=True) as pubsub:
                    await pubsub.subscribe(channel)
                    on_subscribed()
                    while wanted():
                        message = await pubsub.get_message(timeout=1.0)
                        if message is not None:
                            on_message(message["data"])
            except (redis.RedisError, OSError) as exc:
                logger.warning("live: %s failed (%s); again in 1 s", name, exc)
                await asyncio.sleep(1)
    finally:
        await client.aclose()


# How long a new notice socket waits for the feed's subscription before its first read
# (Redis down: it reads anyway, and its tick carries on).
FEED_READY_SECONDS = 2.0


class NoticeHub:
    """This event loop's notice sockets by player, and its subscription to the notice
    feed while it has any: a published list of player ids nudges their sockets."""

    def __init__(self) -> None:
        self.consumers: dict[int, set] = defaultdict(set)
        self.listener: asyncio.Task | None = None
        self.subscribed = asyncio.Event()

    def join(self, player_id: int, consumer) -> None:
        self.consumers[player_id].add(consumer)
        if (self.listener is None or self.listener.done()) and feed_configured():
            self.subscribed.clear()
            self.listener = asyncio.get_running_loop().create_task(self.listen())

    def leave(self, player_id: int, consumer) -> None:
        sockets = self.consumers.get(player_id)
        if sockets is not None:
            sockets.discard(consumer)
            if not sockets:
                del self.consumers[player_id]

    def tell_all(self, data: bytes) -> None:
        try:
            player_ids = [int(p) for p in json.loads(data)]
        except (ValueError, TypeError):
            logger.warning("notices: a feed message that is not player ids: %r", data[:200])
            return
        for player_id in player_ids:
            for consumer in list(self.consumers.get(player_id, ())):
                consumer.nudge()

    async def listen(self) -> None:
        await follow_feed(
            settings.KNOCK_LIVE["notice_feed"],
            wanted=lambda: bool(self.consumers),
            on_message=self.tell_all,
            on_subscribed=self.subscribed_again,
            name="the notice feed",
        )

    def subscribed_again(self) -> None:
        """Every socket reads again: a notice published while the feed was down is found."""
        self.subscribed.set()
        for sockets in list(self.consumers.values()):
            for consumer in list(sockets):
                consumer.nudge()

    async def ready(self) -> None:
        """Wait (a little) for the feed's subscription, so that a socket's first read comes
        after it: a notice published between the two would otherwise wait for a tick."""
        if self.listener is None:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.subscribed.wait(), FEED_READY_SECONDS)


_hubs: "WeakKeyDictionary[asyncio.AbstractEventLoop, NoticeHub]" = WeakKeyDictionary()


def notice_hub() -> NoticeHub:
    """This event loop's notice hub."""
    loop = asyncio.get_running_loop()
    if loop not in _hubs:
        _hubs[loop] = NoticeHub()
    return _hubs[loop]


_watchers: "WeakKeyDictionary[asyncio.AbstractEventLoop, SeqWatcher]" = WeakKeyDictionary()


def watcher() -> SeqWatcher:
    """This event loop's watcher (a process serves its sockets from one loop)."""
    loop = asyncio.get_running_loop()
    if loop not in _watchers:
        _watchers[loop] = SeqWatcher()
    return _watchers[loop]


# --- the consumers' database calls ---------------------------------------------------
#
# Channels' `database_sync_to_async` runs every call of every socket of a process in one
# shared thread (thread_sensitive), one after another: at 200 tables a bot's reply waited
# seconds in that line behind other tables' moves and views. Here they run in a bounded
# pool instead (`KNOCK_LIVE["db_threads"]`), each thread with its own connection, kept
# across calls as Django keeps a request thread's (CONN_MAX_AGE) and closed after an error.

_db_pool: ThreadPoolExecutor | None = None
_db_pool_lock = threading.Lock()


def _db_executor() -> ThreadPoolExecutor:
    global _db_pool
    with _db_pool_lock:
        if _db_pool is None:
            _db_pool = ThreadPoolExecutor(
                settings.KNOCK_LIVE["db_threads"], thread_name_prefix="knock-live-db"
            )
        return _db_pool


async def run_db(fn, /, *args, **kwargs):
    """Run the synchronous database function `fn` in the consumers' pool, and await it."""
    call = functools.partial(_in_db_thread, fn, args, kwargs)
    return await asyncio.get_running_loop().run_in_executor(_db_executor(), call)


def _in_db_thread(fn, args, kwargs):
    try:
        return fn(*args, **kwargs)
    finally:
        for conn in connections.all(initialized_only=True):
            # What `close_old_connections` does after a request, but only when there is
            # something to do: run after every call, it made each next call begin with a
            # health-check query (conn_health_checks) for a connection known to be fine.
            if conn.connection is None:
                continue
            expired = conn.close_at is not None and time.monotonic() >= conn.close_at
            left_open = conn.autocommit != conn.settings_dict["AUTOCOMMIT"]
            if conn.errors_occurred or expired or left_open:
                conn.close_if_unusable_or_obsolete()


def close_db_threads() -> None:
    """Close the pool's database connections and its threads (a test run's end: the test
    database cannot be dropped while they are open)."""
    global _db_pool
    with _db_pool_lock:
        pool, _db_pool = _db_pool, None
    if pool is None:
        return
    threads = settings.KNOCK_LIVE["db_threads"]
    # One task per thread: each waits at the barrier, so no thread takes two.
    barrier = threading.Barrier(threads)

    def close_mine() -> None:
        connections.close_all()
        barrier.wait(timeout=10)

    for future in [pool.submit(close_mine) for _ in range(threads)]:
        future.result(timeout=15)
    pool.shutdown(wait=True)
