"""How services announce work for a worker, without importing the tasks that do it.

Tasks import services; services only name the task they want run, so the dependency runs
one way. The announcement is published when the caller's transaction commits, so a worker
never looks for rows that are not there yet, and a rolled-back change announces nothing.
"""

from functools import cache

from django.db import transaction

from config.celery import app


def enqueue(task_name: str, *args, countdown: float | None = None) -> None:
    """Run the registered task `task_name` with `args` once the current transaction commits.

    The task is looked up by name at publish time (eager runs, as in the demo loader and
    the simulations, behave like a real worker).
    """
    transaction.on_commit(lambda: _publish(task_name, args, countdown))


def _publish(task_name: str, args: tuple, countdown: float | None) -> None:
    task = _registered_tasks()[task_name]
    if countdown is None:
        task.delay(*args)
    else:
        task.apply_async(args, countdown=countdown)


@cache
def _registered_tasks():
    """The task registry with every app's tasks module imported.

    Celery discovers `<app>.tasks` lazily, when a worker starts; a web process that
    announces work has imported none of them, so the first lookup imports them all.
    """
    app.loader.import_default_modules()
    return app.tasks
