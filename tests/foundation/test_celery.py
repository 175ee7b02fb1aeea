"""A task makes the whole trip: enqueue on the configured broker, a real worker runs it,
the result comes back through the configured backend."""

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
