"""A task makes the whole trip: enqueue on the configured broker, a real worker runs it,
the result comes back through the configured backend."""

import gc

import pytest
from django.db import connection

from config.celery import app as celery_app


@celery_app.task(name="tests.add", ignore_result=False)
def add(a: int, b: int) -> int:
    return a + b


def test_round_trip_through_a_real_worker(celery_worker):
    result = add.delay(20, 22)
    assert result.get(timeout=30) == 42


def test_celery_configuration_is_safe_for_redelivery():
    conf = celery_app.conf
    assert conf.task_acks_late is True
    assert conf.task_reject_on_worker_lost is True
    assert conf.worker_prefetch_multiplier == 1
    assert conf.accept_content == ["json"]
    assert conf.task_serializer == "json"
    assert conf.task_soft_time_limit < conf.task_time_limit
    assert conf.task_ignore_result is True  # nothing reads results; the rows say it


@celery_app.task(name="tests.backend_pid", ignore_result=False)
def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


@pytest.mark.postgres
def test_workers_keep_their_database_connections_and_replace_broken_ones(celery_worker):
    """A new PostgreSQL backend per task cost more than a bot match's tasks; a connection
    that dies between tasks is replaced, not handed to the next task."""
    pids = {backend_pid.delay().get(timeout=30) for _ in range(8)}
    assert len(pids) <= 2  # one connection per worker thread, reused task after task
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) AS pid", [list(pids)]
        )
    after = {backend_pid.delay().get(timeout=30) for _ in range(4)}
    assert after and not after & pids


def test_a_worker_process_freezes_what_it_loaded_at_start():
    from config.celery import _freeze_startup_objects

    gc.unfreeze()
    try:
        _freeze_startup_objects()
        assert gc.get_freeze_count() > 10_000
    finally:
        gc.unfreeze()
