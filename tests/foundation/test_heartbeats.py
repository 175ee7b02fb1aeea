"""Workers and beat record heartbeats from their own processes and forget them on a clean stop."""

import time

import pytest
from celery.contrib.testing.worker import start_worker

from config.celery import app as celery_app
from config.ops import heartbeats
from config.ops.models import Heartbeat


def wait_for(predicate, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out")


@pytest.mark.django_db(transaction=True)
def test_a_worker_beats_while_it_runs_and_forgets_itself_when_it_stops(celery_test_queue):
    with start_worker(
        celery_app,
        pool="threads",
        concurrency=1,
        queues=[celery_test_queue],
        perform_ping_check=False,
    ) as worker:
        row = wait_for(lambda: Heartbeat.objects.filter(name=worker.hostname).first())
        assert row.role == heartbeats.WORKER
        assert heartbeats.problems(heartbeats.WORKER) is None
    assert not Heartbeat.objects.filter(name=worker.hostname).exists()


@pytest.mark.django_db(transaction=True)
def test_beat_beats_from_its_scheduler_loop(tmp_path, settings):
    settings.KNOCK_HEARTBEAT_SECONDS = 0.2
    scheduler = heartbeats.BeatScheduler(
        app=celery_app, schedule_filename=str(tmp_path / "schedule"), lazy=False
    )
    sleep_for = scheduler.tick()
    assert 0 <= sleep_for <= 0.2  # it wakes up for its next heartbeat, not only for tasks
    first = Heartbeat.objects.get(name=scheduler.heartbeat_name)
    assert first.role == heartbeats.BEAT
    time.sleep(sleep_for + 0.01)
    scheduler.tick()
    assert Heartbeat.objects.get(name=scheduler.heartbeat_name).beat_at > first.beat_at
    scheduler.close()
    assert not Heartbeat.objects.exists()
