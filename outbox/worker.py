"""The worker side of the outbox: the task base that settles a job's row, and the relay step.

config/celery.py names both: `JobTask` as the app's task class, `Relay` as a consumer
bootstep. Celery loads the task class with the app, before Django's apps are ready, so the
services (and their models) are imported when first needed.
"""

import logging
import time
from datetime import datetime

from celery import Task, bootsteps
from celery.exceptions import Retry
from django.db import DatabaseError, OperationalError, close_old_connections
from django.utils import timezone

from config import metrics
from config.errors import DomainError

logger = logging.getLogger(__name__)

RELAY_SECONDS = 1.0
# The retry policy of the tasks that jobs run. Lock waits and dropped connections are
# worth a quick retry; domain errors are not. After the last retry the job's row still
# stands, due again after its backoff.
RETRY = {
    "acks_late": True,
    "autoretry_for": (OperationalError,),
    "retry_backoff": 1,
    "retry_backoff_max": 30,
    "max_retries": 8,
}


# How long a delivery may go on running the follow-ups handed to it (`handing_off`)
# before it publishes them like any other job: well inside the task time limits, and a
# worker's turn at the queue comes round again.
HAND_OFF_SECONDS = 3.0


class JobTask(Task):
    """Every task's base: a delivery of an outbox job runs only while its row is pending
    and no other delivery runs it, then deletes the row, or keeps it for a retry. Then it
    runs the follow-up its work handed to it, and that one's, for `HAND_OFF_SECONDS`."""

    def __call__(self, *args, **kwargs):
        from outbox import services

        job_id = self.request.get(services.JOB_HEADER)
        if job_id is None:  # called directly, eagerly, by beat or by a test
            return super().__call__(*args, **kwargs)
        if not services.job_start(job_id=job_id):
            logger.info("%s: job %s is done or running elsewhere", self.name, job_id)
            return None
        deadline = time.monotonic() + HAND_OFF_SECONDS
        with services.handing_off() as hand_off:
            try:
                result = super().__call__(*args, **kwargs)
            except Retry as exc:
                _settle(services.job_release, job_id, retry_in=_seconds(exc.when))
                _give_up(hand_off.job)
                raise
            except DomainError:
                _settle(services.job_done, job_id)
                _give_up(hand_off.job)
                raise
            except Exception:
                metrics.JOB_FAILURES.labels(self.name).inc()
                _settle(services.job_release, job_id, retry_in=None)
                _give_up(hand_off.job)
                raise
            _settle(services.job_done, job_id)
        _run_handed_off(hand_off.job, deadline)
        return result


def _run_handed_off(job, deadline: float) -> None:
    """Run the handed-off jobs one after another, each as a delivery of its own would (its
    row claimed, settled after). Past the deadline the next one is published instead."""
    from outbox import services

    while job is not None:
        if time.monotonic() >= deadline:
            _give_up(job)
            return
        with services.handing_off() as hand_off:
            ran = _run_here(job)
        job = hand_off.job
        if not ran:
            _give_up(job)
            return


def _run_here(job) -> bool:
    """One handed-off job; False when it failed (its row stays, due after a backoff)."""
    from celery import current_app

    from outbox import services

    task = current_app.tasks.get(job.task)
    if task is None or not services.job_start(job_id=job.pk):
        if task is None:
            _give_up(job)  # publishing it logs the unknown name
        return True
    started = time.monotonic()
    try:
        # The task's own function: Celery's automatic retry would retry the delivery
        # that is running, not this job. A failed run is published again from its row.
        result = getattr(task, "_orig_run", task.run)(*job.args)
    except DomainError as exc:
        _settle(services.job_done, job.pk)
        logger.warning("%s: job %s refused: %s", job.task, job.pk, exc)
        return True
    except Exception:
        metrics.JOB_FAILURES.labels(job.task).inc()
        logger.exception("%s: handed-off job %s failed; it runs again later", job.task, job.pk)
        _settle(services.job_release, job.pk, retry_in=None)
        return False
    _settle(services.job_done, job.pk)
    logger.info(
        "Task %s (job %s, handed off) succeeded in %.3fs: %r",
        job.task,
        job.pk,
        time.monotonic() - started,
        result,
    )
    return True


def _give_up(job) -> None:
    """A handed-off job this worker will not run: published for any worker."""
    from outbox import services

    if job is None:
        return
    try:
        services.publish_handed_off(job)
    except DatabaseError as exc:
        # Its row stands unpublished: the relay publishes it a lease after it was written.
        logger.warning("outbox job %s not published (%s); the relay will", job.pk, exc)


def _seconds(when: float | datetime | None) -> float:
    if isinstance(when, datetime):
        return max((when - timezone.now()).total_seconds(), 0.0)
    return when or 0.0


def _settle(step, job_id: int, **kwargs) -> None:
    """Book the run's outcome. The database can refuse (the run's own error may have
    broken the connection): then the session, and its lock, are gone, the row has been
    due since the run began, and the relay publishes it again, so the task's own outcome
    is what gets reported."""
    try:
        step(job_id=job_id, **kwargs)
    except DatabaseError as exc:
        logger.warning(
            "outbox job %s not settled (%s); the relay will publish it again", job_id, exc
        )


class Relay(bootsteps.StartStopStep):
    """Publish due outbox jobs about once a second from every worker; beat is not needed.

    It runs on the consumer's timer (the event loop, in the worker's main process), so it
    stops while the broker connection is down and starts again with it.
    """

    requires = {"celery.worker.consumer.tasks:Tasks"}

    def __init__(self, parent, **kwargs):
        super().__init__(parent, **kwargs)
        self.entry = None

    def start(self, parent):
        self.entry = parent.timer.call_repeatedly(RELAY_SECONDS, _relay)

    def stop(self, parent):
        if self.entry is not None:
            self.entry.cancel()
            self.entry = None

    shutdown = stop


def _relay() -> None:
    """One tick. Whatever it meets is logged with its traceback, and the next tick tries
    again. An error let out would reach the worker's event loop, which takes a broker
    connection error for the loss of its own connection and restarts the consumer (every
    bootstep with it), and logs anything else as a bare "Error in timer"."""
    from outbox import services

    try:
        close_old_connections()
        services.relay()
    except DatabaseError as exc:
        logger.warning("outbox relay: the database refused (%r); trying again", exc, exc_info=True)
    except services.broker_errors() as exc:
        logger.warning("outbox relay: the broker refused (%r); trying again", exc, exc_info=True)
    except Exception:
        logger.exception("outbox relay: the tick failed; trying again")
