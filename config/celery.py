"""The Celery application: settings come from Django's (CELERY_* names), tasks from each app."""

import logging
import os
from contextlib import contextmanager

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("knock")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


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
