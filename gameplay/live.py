"""Live tables: how a committed move reaches the sockets of the people at the table.

Every push is versioned by the match's `(seq, status)`. After a move commits, the
match's channel-layer group is told the new version (`announce`); each consumer then
builds its own seat's view with `gameplay.selectors.match_view` and sends it
(`gameplay/consumers.py`). A consumer that already sent that version sends nothing.

Two ways a web process learns of a move, both always on:

- **The channel layer** (`announce`): with Redis configured (`REDIS_URL`, or a Redis
  `CELERY_BROKER_URL`) the layer is `channels_redis`, shared by every web and worker
  process, so a move made on a Celery worker reaches the sockets at once.
- **The watcher** (`SeqWatcher`): every web process polls the `(seq, status)` of the
  matches its sockets watch, all of them in one indexed query per tick. It is what keeps
  the embedded default live: there the layer is in-memory, so a worker process cannot
  reach a web process through it, and `announce` skips it; a tick of
  `KNOCK_LIVE["poll_seconds"]` (0.25 s) brings every move, whoever made it, to the
  table within a second. With Redis the watcher ticks every few seconds, only as a safety
  net for a push lost with a Redis blip.
"""

import asyncio
import logging
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from weakref import WeakKeyDictionary

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.db import transaction

from gameplay.models import Match

logger = logging.getLogger(__name__)


def match_group(match_id: int) -> str:
    return f"match.{match_id}"


def layer_crosses_processes() -> bool:
    layer = get_channel_layer()
    return layer is not None and not isinstance(layer, InMemoryChannelLayer)


def announce(matches: list[Match]) -> None:
    """Once the caller's transaction commits, tell each match's group its new version.

    Only a layer shared across processes is told; an in-process one is left to the
    watchers. A failed push is logged and costs that table at most one watcher tick.
    """
    if not layer_crosses_processes():
        return
    versions = [(match.pk, match.seq, match.status) for match in matches]
    transaction.on_commit(lambda: _publish(versions), robust=True)


def _publish(versions: list[tuple[int, int, str]]) -> None:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        async_to_sync(_send)(versions)  # the usual case: a worker, a request's thread
        return
    # A synchronous caller inside a thread that runs an event loop (AsyncToSync refuses
    # to run there): publish from a thread of its own.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(async_to_sync(_send), versions).result()


async def _send(versions: list[tuple[int, int, str]]) -> None:
    layer = get_channel_layer()
    for match_id, seq, status in versions:
        await layer.group_send(
            match_group(match_id), {"type": "match.moved", "seq": seq, "status": status}
        )


def _versions(match_ids: list[int]) -> dict[int, tuple[int, str]]:
    rows = Match.objects.filter(pk__in=match_ids).values_list("pk", "seq", "status")
    return {pk: (seq, status) for pk, seq, status in rows}


class SeqWatcher:
    """Polls the version of every match watched by this event loop's consumers.

    One query per tick for all of them; a consumer is told only when its match's version
    changed since the last tick, and checks against what it has sent itself.
    """

    def __init__(self) -> None:
        self.consumers: dict[int, set] = defaultdict(set)
        self.known: dict[int, tuple[int, str]] = {}
        self.task: asyncio.Task | None = None

    def watch(self, match_id: int, consumer) -> None:
        self.consumers[match_id].add(consumer)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self.run())

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
            await asyncio.sleep(settings.KNOCK_LIVE["poll_seconds"])
            try:
                versions = await database_sync_to_async(_versions)(list(self.consumers))
            except Exception:
                # A database hiccup must not end live updates for every table here.
                logger.exception("live table watcher: reading match versions failed")
                continue
            for match_id, version in versions.items():
                if self.known.get(match_id) == version:
                    continue
                self.known[match_id] = version
                for consumer in list(self.consumers.get(match_id, ())):
                    consumer.version_changed(*version)


_watchers: "WeakKeyDictionary[asyncio.AbstractEventLoop, SeqWatcher]" = WeakKeyDictionary()


def watcher() -> SeqWatcher:
    """This event loop's watcher (a process serves its sockets from one loop)."""
    loop = asyncio.get_running_loop()
    if loop not in _watchers:
        _watchers[loop] = SeqWatcher()
    return _watchers[loop]
