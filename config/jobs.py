"""How services announce work for a worker, without importing the tasks that do it.

Tasks import services; services only name the task they want run, so the dependency runs
one way. A job is a row of the transactional outbox (`outbox.services`), written in the
caller's transaction and published when it commits: a worker never looks for rows that
are not there yet, a rolled-back change announces nothing, and a committed one runs even
if the broker, or the worker given its message, fails on the way.
"""

from collections.abc import Iterable, Sequence
from functools import cache

from django.db import transaction

from config.celery import app
from outbox.services import discard_jobs, write_jobs


def enqueue(task_name: str, *args, countdown: float | None = None) -> None:
    """Run the registered task `task_name` with `args` once the current transaction commits
    (after `countdown` seconds, if given), and until a run of it completes."""
    enqueue_many(task_name, [args], countdown=countdown)


def enqueue_many(
    task_name: str, arg_lists: Iterable[Sequence], *, countdown: float | None = None
) -> None:
    """One job of `task_name` per argument list, written together.

    In eager mode (the demo loader, the simulations, the `eager_tasks` tests) no row is
    written: the task runs in process when the transaction commits, as a worker would.
    """
    task = _registered_tasks()[task_name]  # an unknown name fails the caller, not a worker
    arg_lists = [tuple(args) for args in arg_lists]
    if not app.conf.task_always_eager:
        write_jobs(task, arg_lists, countdown=countdown)
        return
    for args in arg_lists:
        if countdown is None:
            transaction.on_commit(lambda args=args: task.delay(*args))
        else:
            transaction.on_commit(lambda args=args: task.apply_async(args, countdown=countdown))


def discard(task_name: str, *, first_args: Iterable) -> None:
    """Drop the pending jobs of `task_name` whose first argument is one of `first_args`, in
    the current transaction: work made moot by this change (a turn's timeout once the match
    has moved). A message of one already published finds its row gone and returns at once
    (`outbox.worker.JobTask`); eager mode wrote no rows."""
    ids = list(first_args)
    if ids:
        discard_jobs(task_name, ids)


@cache
def _registered_tasks():
    """The task registry with every app's tasks module imported.

    Celery discovers `<app>.tasks` lazily, when a worker starts; a web process that
    announces work has imported none of them, so the first lookup imports them all.
    Forced discovery imports the modules and nothing else: `import_default_modules` would
    also make Celery's Django fix-up run `django.setup()` and the system checks again, and
    in a worker's pool process that re-applies Django's logging over Celery's (pool
    processes that had enqueued work were seen to stop logging).
    """
    app.autodiscover_tasks(force=True)
    return app.tasks
