"""Heartbeats: Celery workers and beat say every few seconds that they are alive.

/healthz reads them (config/health.py), so a dead worker or beat turns it 503 with the
process named, instead of the site looking healthy while bots, deadlines and brackets
have stopped.

- A worker beats from a thread of its main process, started and stopped by a bootstep
  (`WorkerHeartbeat`, added in config/celery.py): it runs whatever the pool is doing,
  and dies with the process.
- Beat beats from its own scheduler loop (`BeatScheduler`, settings'
  CELERY_BEAT_SCHEDULER), not through a task: a beat that stopped sending tasks stops
  beating even while workers are fine.

Both write one row per process name (the worker's node name, `beat@<host>`) to the
database that every web process already reads, and delete it when they stop cleanly.
The database, not the cache or broker: it is the one store every deployment shares,
SQLite on one machine included. Each beat opens, writes and closes its connection, and a
fork waits for a write in progress, so a prefork pool process never inherits an open
connection from the heartbeat thread.
"""

import logging
import os
import socket
import threading
from datetime import datetime, timedelta

from celery import bootsteps
from celery.beat import PersistentScheduler
from django.conf import settings
from django.db import DatabaseError, connection
from django.utils import timezone

logger = logging.getLogger(__name__)

WORKER, BEAT = "worker", "beat"

_write_lock = threading.Lock()


def _reset_lock_in_child() -> None:
    global _write_lock
    _write_lock = threading.Lock()


os.register_at_fork(
    before=lambda: _write_lock.acquire(),
    after_in_parent=lambda: _write_lock.release(),
    after_in_child=_reset_lock_in_child,
)


def record(*, role: str, name: str, started_at: datetime) -> None:
    """Store that process `name` is alive now."""
    from config.ops.models import Heartbeat

    Heartbeat.objects.update_or_create(
        name=name,
        defaults={
            "role": role,
            "pid": os.getpid(),
            "started_at": started_at,
            "beat_at": timezone.now(),
        },
    )


def forget(*, name: str) -> None:
    from config.ops.models import Heartbeat

    Heartbeat.objects.filter(name=name).delete()


def _beat_and_close(write, *, name: str) -> None:
    """Run one heartbeat write on a connection of its own; a failure is logged, never
    raised: a heartbeat must not take its worker or beat down."""
    with _write_lock:
        try:
            write()
        except DatabaseError as exc:
            logger.warning("heartbeat: %s not recorded: %s", name, exc)
        finally:
            connection.close()


def problems(role: str, *, now: datetime | None = None) -> str | None:
    """What is wrong with the processes of `role`, for /healthz; None when all are fresh."""
    from config.ops.models import Heartbeat

    now = now or timezone.now()
    limit = timedelta(seconds=settings.KNOCK_HEARTBEAT_STALE_SECONDS)
    rows = list(Heartbeat.objects.filter(role=role).only("name", "beat_at"))
    if not rows:
        return f"missing: no {role} has sent a heartbeat"
    stale = [
        f"{row.name} last seen {(now - row.beat_at).total_seconds():.0f} s ago"
        for row in rows
        if now - row.beat_at > limit
    ]
    return f"stale: {', '.join(stale)}" if stale else None


class Beater(threading.Thread):
    """Records a heartbeat now and every KNOCK_HEARTBEAT_SECONDS until stopped."""

    def __init__(self, *, role: str, name: str):
        super().__init__(name=f"heartbeat {name}", daemon=True)
        self.role, self.process_name = role, name
        self.started_at = timezone.now()
        self._stopped = threading.Event()

    def run(self) -> None:
        # All database work stays in this thread, on its own connection.
        name = self.process_name
        while True:
            _beat_and_close(
                lambda: record(role=self.role, name=name, started_at=self.started_at), name=name
            )
            if self._stopped.wait(settings.KNOCK_HEARTBEAT_SECONDS):
                break
        _beat_and_close(lambda: forget(name=name), name=name)

    def stop(self) -> None:
        self._stopped.set()
        self.join(timeout=10)


class WorkerHeartbeat(bootsteps.StartStopStep):
    """Worker bootstep: a `Beater` under the worker's node name while the worker runs."""

    label = "Heartbeat"

    def __init__(self, worker, **kwargs):
        super().__init__(worker, **kwargs)
        self.beater: Beater | None = None

    def start(self, worker) -> None:
        self.beater = Beater(role=WORKER, name=worker.hostname)
        self.beater.start()

    def stop(self, worker) -> None:
        if self.beater is not None:
            self.beater.stop()
            self.beater = None

    terminate = stop  # a cold shutdown is still a clean one: the worker says goodbye


class BeatScheduler(PersistentScheduler):
    """Celery's default scheduler, recording beat's heartbeat as part of its own loop."""

    def __init__(self, *args, **kwargs):
        self.heartbeat_name = f"beat@{socket.gethostname()}"
        self._heartbeat_started_at = timezone.now()
        self._next_heartbeat = 0.0
        super().__init__(*args, **kwargs)

    def tick(self, *args, **kwargs) -> float:
        now = timezone.now().timestamp()
        if now >= self._next_heartbeat:
            self._next_heartbeat = now + settings.KNOCK_HEARTBEAT_SECONDS
            _beat_and_close(
                lambda: record(
                    role=BEAT, name=self.heartbeat_name, started_at=self._heartbeat_started_at
                ),
                name=self.heartbeat_name,
            )
        # Sleep no longer than until the next heartbeat is due.
        until_heartbeat = max(self._next_heartbeat - timezone.now().timestamp(), 0.0)
        return min(super().tick(*args, **kwargs), until_heartbeat)

    def close(self) -> None:
        super().close()
        _beat_and_close(lambda: forget(name=self.heartbeat_name), name=self.heartbeat_name)
