"""The Celery application: settings come from Django's (CELERY_* names), tasks from each app."""

import gc
import logging
import os
from contextlib import contextmanager

from celery import Celery
from celery.signals import (
    setup_logging,
    task_postrun,
    task_prerun,
    worker_init,
    worker_process_init,
)
from django.db import close_old_connections

from config import logs

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# Every task settles its outbox row (outbox.worker.JobTask); every worker relays due jobs.
app = Celery("knock", task_cls="outbox.worker:JobTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# Every worker records a heartbeat that /healthz reads (config/ops/heartbeats.py).
app.steps["worker"].add("config.ops.heartbeats:WorkerHeartbeat")
app.steps["consumer"].add("outbox.worker:Relay")


@task_prerun.connect
@task_postrun.connect
def _recycle_connections(sender=None, **kwargs) -> None:
    """Keep database connections across tasks, as Django does across requests.

    Celery's Django fix-up closes them around every task (unless CELERY_DB_REUSE_MAX is
    set, which settings does); a new PostgreSQL backend per task cost more than the tasks
    of a bot tournament. Closed here only when broken or older than CONN_MAX_AGE. An eager
    task runs inside its caller's transaction, so its connection is left alone.
    """
    if not getattr(sender.request, "is_eager", False):
        close_old_connections()


@setup_logging.connect
def _log_as_django_does(**kwargs) -> None:
    """Workers and beat log in settings.LOGGING's format (config/logs.py), not Celery's."""
    from django.conf import settings

    logs.configure(settings.LOGGING)


@task_prerun.connect
def _log_task_context(task=None, args=None, kwargs=None, **extra) -> None:
    """Each line a task logs names it, its id and the ids it was given."""
    task.request.log_context = logs.context.set(
        logs.context.get() | logs.task_context(task, args, kwargs)
    )


@task_postrun.connect
def _drop_task_context(task=None, **extra) -> None:
    token = getattr(task.request, "log_context", None)
    if token is not None:
        logs.context.reset(token)


@worker_init.connect
def _serve_metrics(**kwargs) -> None:
    """A worker with `METRICS_PORT` serves its machine's counters there (config/metrics.py),
    for a machine that has no web process to scrape."""
    from django.conf import settings

    if settings.METRICS_PORT:
        from config import metrics

        metrics.serve(settings.METRICS_PORT)


@worker_process_init.connect
def _freeze_startup_objects(**kwargs) -> None:
    """Take what a worker process loaded at start (Django, the apps, the engine) out of the
    garbage collector's full collections, which walked it again and again: in a 1,024-entry
    gin tournament, full collections took 1.15 s of each worker's 13 s; frozen, 0.45 s.

    A task allocates by the hundred thousand (engine states, move logs, rows), so the young
    generation is collected every 20,000 allocations instead of 700: in a 4,096-entry gin
    tournament the collector's time fell from 1.44 s to 0.78 s of each worker's 21 s
    (8,100 young collections and 66 full ones down to 200 and none)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 50, 100)


@contextmanager
def tasks_in_process():
    """Run tasks eagerly in this process, quietly: demo data and simulations enqueue
    thousands of tasks, and the production code paths stay the same."""
    conf = app.conf
    trace_logger = logging.getLogger("celery.app.trace")
    previous = conf.task_always_eager, conf.task_eager_propagates, trace_logger.level
    conf.task_always_eager = conf.task_eager_propagates = True
    trace_logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        conf.task_always_eager, conf.task_eager_propagates, level = previous
        trace_logger.setLevel(level)
