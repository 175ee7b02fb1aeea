"""A relay tick that meets a broker, or a database, that is away logs it and leaves the
job to the next tick; it never lets the error out into the worker's event loop."""

import logging

import pytest
from django.db import OperationalError
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from config.jobs import enqueue
from outbox import services, worker
from outbox.models import Job
from tests.outbox.test_outbox import remember

pytestmark = pytest.mark.django_db(transaction=True)


def redis_connection_error():
    redis = pytest.importorskip("redis")
    if redis.exceptions.ConnectionError not in services.broker_errors():
        pytest.skip("the broker is not Redis")
    return redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379.")


BROKER_ERRORS = {
    "kombu": lambda: BrokerError("Error 111 connecting to 127.0.0.1:6379. Connection refused."),
    "socket": lambda: ConnectionRefusedError(111, "Connection refused"),
    "redis": redis_connection_error,
}


@pytest.fixture
def job(monkeypatch):
    """A job whose message was lost before it started: the next relay tick publishes it."""
    monkeypatch.setattr(remember, "delay", lambda *args: None)
    enqueue("tests.outbox.remember", 21)
    job = Job.objects.get()
    Job.objects.filter(pk=job.pk).update(published_at=None, available_at=timezone.now())
    return job


@pytest.fixture(autouse=True)
def caplog(caplog):
    """Warnings of the outbox's loggers, whatever level a test worker's logging setup has
    left the root logger at."""
    caplog.set_level(logging.WARNING, logger="outbox")
    return caplog


def logged_with_traceback(caplog, text: str) -> bool:
    return any(
        record.levelno >= logging.WARNING and text in record.getMessage() and record.exc_info
        for record in caplog.records
    )


@pytest.mark.parametrize("error", list(BROKER_ERRORS))
def test_a_tick_whose_publish_meets_the_broker_away_logs_it_and_the_next_tick_publishes(
    job, monkeypatch, caplog, error
):
    raised = BROKER_ERRORS[error]()

    def broker_away(*args):
        raise raised

    monkeypatch.setattr(remember, "delay", broker_away)
    worker._relay()  # a tick: nothing gets out
    assert logged_with_traceback(caplog, "not published")
    job.refresh_from_db()
    assert job.published_at is None  # no message to wait for: published again when due
    published = []
    monkeypatch.setattr(remember, "delay", lambda *args: published.append(args))
    assert services.relay(now=timezone.now() + services.LEASE) == 1
    assert published == [(21,)]


@pytest.mark.parametrize("error", list(BROKER_ERRORS))
def test_a_tick_that_cannot_ask_the_broker_about_its_queue_logs_it_and_tries_again(
    job, monkeypatch, caplog, error
):
    raised = BROKER_ERRORS[error]()
    Job.objects.filter(pk=job.pk).update(published_at=timezone.now() - services.LEASE)

    def broker_away():
        raise raised

    monkeypatch.setattr(services, "_queue_empty", broker_away)
    worker._relay()
    assert logged_with_traceback(caplog, "the broker refused")
    job.refresh_from_db()
    assert job.attempts == 0  # the tick's claim rolled back: the row is as it was
    published = []
    monkeypatch.setattr(remember, "delay", lambda *args: published.append(args))
    monkeypatch.setattr(services, "_queue_empty", lambda: True)
    worker._relay()
    assert published == [(21,)]


def test_a_tick_that_meets_the_database_away_or_a_bug_logs_it_and_tries_again(
    job, monkeypatch, caplog
):
    errors = [OperationalError("server closed the connection"), RuntimeError("a bug")]

    def failing(**kwargs):
        raise errors.pop(0)

    real_relay = services.relay
    monkeypatch.setattr(services, "relay", failing)
    worker._relay()
    worker._relay()
    assert logged_with_traceback(caplog, "the database refused")
    assert logged_with_traceback(caplog, "the tick failed")
    published = []
    monkeypatch.setattr(remember, "delay", lambda *args: published.append(args))
    monkeypatch.setattr(services, "relay", real_relay)
    worker._relay()
    assert published == [(21,)]
