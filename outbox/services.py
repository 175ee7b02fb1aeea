"""The transactional outbox: a follow-up job is a row, written with the change that causes it.

Design
------
`config.jobs.enqueue`, which services call, has `write_jobs` insert the jobs' `Job` rows in
the caller's transaction: one multi-row INSERT per call, however many ids a batch carries.
When that transaction commits, the jobs are published to Celery at once (the fast path);
when it rolls back, neither the change nor its jobs exist. A broker error while publishing
is logged, never raised into the committed work: the row is still there.

The row, not the message, is the job. Every message of a job carries its row's id (the
`knock_job` header) and `outbox.worker.JobTask`, the base of every task, settles the row:

* before running, a delivery claims the row: it marks the row due now and, on PostgreSQL,
  takes a session advisory lock on its id. A copy whose row is gone (the job is done) or
  whose lock is held (another worker runs it) returns at once;
* after running to the end it deletes the row and releases the lock; after a failure it
  keeps the row, due again after a backoff (after Celery's own countdown when the task
  retries itself). A `DomainError` is the rules refusing: running it again would too, so
  that row is deleted.

The relay (`relay`, run about once a second by a bootstep in every worker, so no beat is
needed) looks at the rows that are due and whose lock no worker holds, claimed with
`SELECT ... FOR UPDATE SKIP LOCKED` so workers share them. A job has no message to wait for
(`published_at` empty: its countdown has run, or publishing failed) or its run began and
its worker is gone (`started_at` set, the lock free): the relay publishes it. A job that
was published and never started is in the queue, or its message was lost: the relay
publishes it again once the queue is empty (a passive declare; Redis answers from LLEN),
or after `STALE` however busy the queue, and not sooner, since copies would only lengthen
a slow queue (the embedded filesystem broker delivers about one message a second). So:

* the broker down at commit: the relay publishes the job one lease (5 s) later;
* a worker killed mid-task: PostgreSQL ends its session and the advisory lock with it; the
  row has been due since the run began, so the next relay tick publishes it again. A
  message lost before it started (with a killed worker, or by the broker) is published
  again once the queue has drained, within `STALE` at most;
* a database error after the work committed loses nothing: the follow-up rows committed
  with the work.

Delivery is at least once, and tasks are idempotent (a worker can die between its commit
and its row's delete). A copy is cheap: it finds the row gone, or its lock held, and
returns. Batches stay batches: a job is published again with the same arguments, every id
of its batch.

A job with a countdown is a row due later, published by the relay when due, never a broker
ETA message (Redis hands those back after its visibility timeout while a worker still holds
them, unstarted). Eager mode (`config.celery.tasks_in_process`, the tests' `eager_tasks`)
writes no rows (`config.jobs`): the task runs in process when the transaction commits.
SQLite has no advisory locks: there a running job's row comes due again only after the hard
time limit (one machine, the embedded default).
"""

import json
import logging
from collections.abc import Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime, timedelta
from functools import cache

from celery.signals import before_task_publish
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from config.celery import app
from config.db import bulk_insert, bulk_update
from outbox.models import Job

logger = logging.getLogger(__name__)

JOB_HEADER = "knock_job"
# How long a published job may wait unstarted, the queue empty, before the relay publishes
# it again (a worker may have just taken it); also the first backoff after a failure, which
# doubles with every attempt up to MAX_BACKOFF.
LEASE = timedelta(seconds=5)
# How long a published job may wait unstarted however busy the queue is.
STALE = timedelta(seconds=30)
MAX_BACKOFF = timedelta(minutes=5)
RELAY_BATCH = 100
# The outbox's advisory locks are (LOCK_SPACE, id mod LOCK_KEYS): PostgreSQL's two-int
# key space, apart from any single bigint key another part may use.
LOCK_SPACE = 0x4B4E4F43
LOCK_KEYS = 2**31 - 1

# A one-row relation that sets `synchronous_commit = off` for the statement's own
# transaction (`set_config(..., true)` is SET LOCAL), so its commit does not wait for the
# WAL to reach the disk (a flush cost 4-15 ms on a busy machine, twice per task). Only the
# bookkeeping of a run, `job_start` and `job_done`, uses it: a PostgreSQL crash can lose
# the last fraction of a second of such commits, never a job. A lost claim leaves the row
# as it was, published and due, so the relay publishes it again (the crash ended every
# session and its advisory lock). A lost delete brings the row back, due since its run
# began, so the relay publishes it again and the idempotent task finds its work done. The
# work itself, and the rows of the jobs it causes, commit durably in the task's own
# transaction: their messages carry row ids, and a message must never name a row, or a
# reused id, that a crash took back.
NO_FLUSH = "(SELECT set_config('synchronous_commit', 'off', true)) AS no_flush"
FLUSH = "(SELECT 1) AS no_flush"


def _no_flush() -> str:
    """NO_FLUSH for a statement that is its own transaction (a worker's claim and delete);
    inside a caller's transaction its commit, and whatever else it writes, stay durable."""
    return FLUSH if connection.in_atomic_block else NO_FLUSH


_publishing: ContextVar[int | None] = ContextVar("outbox_publishing", default=None)


class HandOff:
    """The one follow-up job a worker's run keeps for itself (`handing_off`)."""

    __slots__ = ("chosen", "job")

    def __init__(self) -> None:
        self.chosen = False  # a job was written for this hand-off (it may roll back)
        self.job: Job | None = None  # ... and committed: the worker runs it next


_hand_off: ContextVar[HandOff | None] = ContextVar("outbox_hand_off", default=None)


@contextmanager
def handing_off():
    """While a worker runs a job: the first job its work writes (with no countdown) is not
    published but handed to the same worker, which runs it as soon as this run ends
    (`outbox.worker`). A chain of follow-ups (a batch's bot play, its finalize, its
    tournament results, the next round's play) then runs in one process with no broker
    trip, while every other job is published as usual and shared among the workers.

    The handed-off job is a row like any other, unpublished and due a lease after it was
    written: if the worker dies before running it, the relay publishes it then.
    """
    state = HandOff()
    token = _hand_off.set(state)
    try:
        yield state
    finally:
        _hand_off.reset(token)


def write_jobs(task, arg_lists: Sequence[Sequence], *, countdown: float | None = None) -> None:
    """Write one job of `task` per argument list in the current transaction (one INSERT),
    published when it commits (one may be handed off instead, see `handing_off`), or by
    the relay once `countdown` seconds have passed."""
    if not arg_lists:
        return
    now = timezone.now()
    due = now + (timedelta(seconds=countdown) if countdown is not None else LEASE)
    published = now if countdown is None else None
    jobs = [
        Job(
            task=task.name,
            args=list(args),
            available_at=due,
            published_at=published,
            created_at=now,
        )
        for args in arg_lists
    ]
    hand_off = _hand_off.get()
    if countdown is None and hand_off is not None and not hand_off.chosen:
        hand_off.chosen = True
        kept, jobs = jobs[0], jobs[1:]
        kept.published_at = None
        bulk_insert([kept, *jobs])
        transaction.on_commit(lambda: setattr(hand_off, "job", kept))
    else:
        bulk_insert(jobs)
    if countdown is None and jobs:
        transaction.on_commit(lambda: _publish(jobs))


def publish_handed_off(job: Job) -> None:
    """Publish a job that was handed off but will not be run where it was handed."""
    Job.objects.filter(pk=job.pk, started_at=None).update(published_at=timezone.now())
    _publish([job])


def discard_jobs(task_name: str, first_args: list) -> None:
    """Delete the pending jobs of `task_name` whose first argument is in `first_args`, in
    the current transaction (see `config.jobs.discard`); one statement written here on
    PostgreSQL, for the same reason as `config.db.bulk_insert`."""
    if connection.vendor != "postgresql":
        Job.objects.filter(task=task_name, args__0__in=first_args).delete()
        return
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {connection.ops.quote_name(Job._meta.db_table)}"
            " WHERE task = %s AND args -> 0 = ANY(%s::jsonb[])",
            [task_name, [json.dumps(arg) for arg in first_args]],
        )


def _publish(jobs: Sequence[Job]) -> None:
    """Publish each job through its task's `delay`, its id in the message headers.

    After a broker error the rest are left to the relay too: the broker is likely down,
    and each attempt would wait for kombu's own retries.
    """
    for position, job in enumerate(jobs):
        task = app.tasks.get(job.task)
        if task is None:  # written by a newer release than this worker's, say
            logger.error(
                "outbox job %s names %s, which this process does not know", job.pk, job.task
            )
            continue
        token = _publishing.set(job.pk)
        try:
            task.delay(*job.args)
        except broker_errors() as exc:
            unpublished = [later.pk for later in jobs[position:]]
            logger.warning(
                "outbox: jobs %s not published (%r); the relay will publish them",
                unpublished,
                exc,
                exc_info=True,
            )
            Job.objects.filter(pk__in=unpublished).update(published_at=None)
            return
        finally:
            _publishing.reset(token)


@cache
def broker_errors() -> tuple[type[BaseException], ...]:
    """What publishing to, or asking, a broker that is away raises: kombu's own error, and
    the transport's own errors, which kombu does not always wrap (redis-py's
    ConnectionError is no OSError), and the socket's."""
    with app.connection_for_write() as conn:
        transport = (*conn.connection_errors, *conn.channel_errors)
    # Kombu counts KeyError among Redis's connection errors (its poller's); here it would
    # be a bug, not the broker.
    return (BrokerError, OSError, *(error for error in transport if error is not KeyError))


@before_task_publish.connect
def _tag_message(headers=None, **kwargs) -> None:
    job_id = _publishing.get()
    if job_id is not None:
        headers[JOB_HEADER] = job_id


def _backoff(attempts: int) -> timedelta:
    return min(LEASE * 2 ** max(attempts - 1, 0), MAX_BACKOFF)


def relay(*, now: datetime | None = None) -> int:
    """Publish the due jobs that no worker runs and no message waits for (see the module
    docstring); returns how many were published."""
    now = now or timezone.now()
    if not Job.objects.filter(available_at__lte=now).exists():
        return 0  # the usual tick: one indexed read, no transaction, no lock
    with transaction.atomic():
        # SKIP LOCKED: the relays of several workers take different rows.
        rows = list(
            Job.objects.select_for_update(skip_locked=True)
            .filter(available_at__lte=now)
            .order_by("available_at")[:RELAY_BATCH]
        )
        running = _running([job.pk for job in rows])
        due, queued = [], []
        for job in rows:
            if job.pk in running:
                continue
            # Published and never started: in the queue, or its message was lost.
            in_queue = job.published_at is not None and job.started_at is None
            if not in_queue or job.published_at <= now - STALE:
                due.append(job)
            elif job.published_at <= now - LEASE:
                queued.append(job)
        if queued and _queue_empty():
            due += queued
        for job in due:
            job.attempts += 1
            job.available_at = now + LEASE
            job.published_at, job.started_at = now, None
        bulk_update(due, ["attempts", "available_at", "published_at", "started_at"])
    if due:
        logger.info(
            "outbox: publishing again %s",
            ", ".join(f"job {job.pk} ({job.task}, attempt {job.attempts})" for job in due),
        )
        _publish(due)
    return len(due)


def _queue_empty() -> bool:
    """Whether the queue jobs go to holds no message now."""
    return queue_depth() == 0


def queue_name() -> str:
    return app.conf.task_default_queue


def queue_depth() -> int:
    """How many messages wait in the queue jobs go to (the metrics read it too)."""
    with app.pool.acquire(block=True) as conn:
        try:
            declared = conn.default_channel.queue_declare(queue=queue_name(), passive=True)
        except conn.channel_errors:  # Redis keeps no empty list: no such queue, no message
            return 0
    return declared.message_count


def _running(job_ids: list[int]) -> set[int]:
    """The jobs whose advisory lock a worker holds (none known without PostgreSQL)."""
    if connection.vendor != "postgresql" or not job_ids:
        return set()
    with connection.cursor() as cursor:
        # Taken and let go at once where free; CASE fixes the order of the two calls.
        cursor.execute(
            "SELECT k FROM unnest(%s::bigint[]) AS k WHERE NOT CASE"
            " WHEN pg_try_advisory_lock(%s, mod(k, %s)::int)"
            " THEN pg_advisory_unlock(%s, mod(k, %s)::int) ELSE false END",
            [job_ids, LOCK_SPACE, LOCK_KEYS, LOCK_SPACE, LOCK_KEYS],
        )
        return {row[0] for row in cursor.fetchall()}


def job_start(*, job_id: int) -> bool:
    """Claim a job for this delivery; False when it is done or another worker runs it.

    The row is marked started and due now: while this run holds the lock the relay leaves
    it alone, and if the run dies with its worker, the next relay tick publishes it again.
    """
    now = timezone.now()
    if connection.vendor != "postgresql":
        # No advisory locks: the row is this run's until the hard time limit has passed.
        limit = timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT)
        claimed = Job.objects.filter(pk=job_id).update(available_at=now + limit, started_at=now)
        return claimed == 1
    table = connection.ops.quote_name(Job._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET available_at = %s, started_at = %s FROM {_no_flush()}"
            " WHERE id = %s RETURNING pg_try_advisory_lock(%s, mod(id, %s)::int)",
            [now, now, job_id, LOCK_SPACE, LOCK_KEYS],
        )
        row = cursor.fetchone()
    return row is not None and row[0]


def job_done(*, job_id: int) -> None:
    """The job ran to the end (or was refused for good): its row goes, its lock too."""
    if connection.vendor != "postgresql":
        Job.objects.filter(pk=job_id).delete()
        return
    table = connection.ops.quote_name(Job._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH done AS (DELETE FROM {table} WHERE id = %s)"
            f" SELECT pg_advisory_unlock(%s, mod(%s, %s)::int) FROM {_no_flush()}",
            [job_id, LOCK_SPACE, job_id, LOCK_KEYS],
        )


def job_release(*, job_id: int, retry_in: float | None) -> None:
    """The run failed: the row stays. Celery has scheduled a retry in `retry_in` seconds:
    its message is the one to wait for, a lease past then. Otherwise none is: the relay
    publishes the job after the backoff its attempts have earned."""
    attempts = Job.objects.filter(pk=job_id).values_list("attempts", flat=True).first()
    if attempts is not None:
        now = timezone.now()
        if retry_in is not None:
            due, published = now + timedelta(seconds=retry_in) + LEASE, now
        else:
            due, published = now + _backoff(attempts + 1), None
        Job.objects.filter(pk=job_id).update(
            attempts=attempts + 1, available_at=due, published_at=published, started_at=None
        )
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_unlock(%s, mod(%s, %s)::int)", [LOCK_SPACE, job_id, LOCK_KEYS]
            )
