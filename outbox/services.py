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
needed) publishes the rows that are due and whose lock no worker holds, claimed with
`SELECT ... FOR UPDATE SKIP LOCKED` so workers share them, and moves each one's
`available_at` on by a lease that doubles with every publication, up to a cap. So:

* the broker down at commit: the row waits one lease (5 s), then the relay publishes it;
* a worker killed mid-task: PostgreSQL ends its session and the advisory lock with it; the
  row has been due since the run began, so the next relay tick republishes it. A message
  lost before it started (with a killed worker, or by the broker) is republished when its
  lease runs out;
* a database error after the work committed loses nothing: the follow-up rows committed
  with the work.

Delivery is at least once, and tasks are idempotent (a worker can die between its commit
and its row's delete). The copies that leases cost are cheap: a copy published while the
first still waited in the queue finds the row gone, or its lock held, and returns. Batches
stay batches: a job is published again with the same arguments, every id of its batch.

A job with a countdown is a row due later, published by the relay when due, never a broker
ETA message (Redis hands those back after its visibility timeout while a worker still holds
them, unstarted). Eager mode (`config.celery.tasks_in_process`, the tests' `eager_tasks`)
writes no rows (`config.jobs`): the task runs in process when the transaction commits.
SQLite has no advisory locks: there a running job's row comes due again only after the hard
time limit (one machine, the embedded default).
"""

import logging
from collections.abc import Sequence
from contextvars import ContextVar
from datetime import datetime, timedelta

from celery.signals import before_task_publish
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from config.celery import app
from config.db import bulk_update
from outbox.models import Job

logger = logging.getLogger(__name__)

JOB_HEADER = "knock_job"
# How long a published job may wait unstarted before the relay publishes it again; each
# publication doubles it, up to MAX_BACKOFF (which also caps the backoff after failures).
LEASE = timedelta(seconds=5)
MAX_BACKOFF = timedelta(minutes=5)
RELAY_BATCH = 100
# The outbox's advisory locks are (LOCK_SPACE, id mod LOCK_KEYS): PostgreSQL's two-int
# key space, apart from any single bigint key another part may use.
LOCK_SPACE = 0x4B4E4F43
LOCK_KEYS = 2**31 - 1

_publishing: ContextVar[int | None] = ContextVar("outbox_publishing", default=None)


def write_jobs(task, arg_lists: Sequence[Sequence], *, countdown: float | None = None) -> None:
    """Write one job of `task` per argument list in the current transaction (one INSERT),
    published when it commits, or by the relay once `countdown` seconds have passed."""
    if not arg_lists:
        return
    now = timezone.now()
    due = now + (timedelta(seconds=countdown) if countdown is not None else LEASE)
    jobs = Job.objects.bulk_create(
        Job(task=task.name, args=list(args), available_at=due, created_at=now) for args in arg_lists
    )
    if countdown is None:
        transaction.on_commit(lambda: _publish(jobs))


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
        except BrokerError as exc:
            logger.warning(
                "outbox: %d job(s) from %s (%s) not published (%s); the relay will publish them",
                len(jobs) - position,
                job.pk,
                job.task,
                exc,
            )
            return
        finally:
            _publishing.reset(token)


@before_task_publish.connect
def _tag_message(headers=None, **kwargs) -> None:
    job_id = _publishing.get()
    if job_id is not None:
        headers[JOB_HEADER] = job_id


def _backoff(attempts: int) -> timedelta:
    return min(LEASE * 2 ** max(attempts - 1, 0), MAX_BACKOFF)


def relay(*, now: datetime | None = None) -> int:
    """Publish the due jobs no worker is running; returns how many were published."""
    now = now or timezone.now()
    if not Job.objects.filter(available_at__lte=now).exists():
        return 0  # the usual tick: one indexed read, no transaction, no lock
    with transaction.atomic():
        # SKIP LOCKED: the relays of several workers take different rows.
        due = list(
            Job.objects.select_for_update(skip_locked=True)
            .filter(available_at__lte=now)
            .order_by("available_at")[:RELAY_BATCH]
        )
        running = _running([job.pk for job in due])
        due = [job for job in due if job.pk not in running]
        for job in due:
            job.attempts += 1
            job.available_at = now + _backoff(job.attempts)
        bulk_update(due, ["attempts", "available_at"])
    if due:
        logger.info(
            "outbox: publishing again %s",
            ", ".join(f"job {job.pk} ({job.task}, attempt {job.attempts})" for job in due),
        )
        _publish(due)
    return len(due)


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

    The row is marked due now: while this run holds the lock the relay leaves it alone,
    and if the run dies with its worker, the next relay tick publishes it again.
    """
    now = timezone.now()
    if connection.vendor != "postgresql":
        # No advisory locks: the row is this run's until the hard time limit has passed.
        limit = timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT)
        return Job.objects.filter(pk=job_id).update(available_at=now + limit) == 1
    table = connection.ops.quote_name(Job._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET available_at = %s WHERE id = %s"
            " RETURNING pg_try_advisory_lock(%s, mod(id, %s)::int)",
            [now, job_id, LOCK_SPACE, LOCK_KEYS],
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
            " SELECT pg_advisory_unlock(%s, mod(%s, %s)::int)",
            [job_id, LOCK_SPACE, job_id, LOCK_KEYS],
        )


def job_release(*, job_id: int, retry_in: float | None) -> None:
    """The run failed: the row stays, due after `retry_in` seconds (a retry Celery has
    scheduled) and a lease, or after the backoff its attempts have earned."""
    attempts = Job.objects.filter(pk=job_id).values_list("attempts", flat=True).first()
    if attempts is not None:
        wait = LEASE + timedelta(seconds=retry_in) if retry_in is not None else None
        Job.objects.filter(pk=job_id).update(
            attempts=attempts + 1,
            available_at=timezone.now() + (wait or _backoff(attempts + 1)),
        )
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_unlock(%s, mod(%s, %s)::int)", [LOCK_SPACE, job_id, LOCK_KEYS]
            )
