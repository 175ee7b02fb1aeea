import pytest

from config.celery import app as celery_app


@pytest.fixture
def eager_tasks():
    """Run tasks in-process for fast API tests; real-worker tests live beside them."""
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    yield
    celery_app.conf.task_always_eager = False
    celery_app.conf.task_eager_propagates = False
