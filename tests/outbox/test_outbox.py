"""The outbox: a job is a row of the transaction that calls for it, published on commit,
settled by the run that completes it, and published again by the relay when it is lost."""

import time
import uuid
from datetime import timedelta

import psycopg
import pytest
from celery import shared_task
from django.db import OperationalError, connection, transaction
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError
from prometheus_client.registry import REGISTRY

from config.celery import app as celery_app
from config.errors import Conflict
from config.jobs import enqueue, enqueue_many
from outbox import services
from outbox.models import Job
from outbox.worker import RETRY
from tests.tournaments.helpers import bots, open_tournament, register_all
from tournaments import services as tournaments
from tournaments import tasks as tournament_tasks
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db(transaction=True)

RUNS: list[tuple[str, int]] = []


@shared_task(name="tests.outbox.remember", **RETRY)
def remember(value: int) -> int:
    RUNS.append(("remember", value))
    return value


@shared_task(name="tests.outbox.fail", **RETRY)
def fail(value: int) -> None:
    RUNS.append(("fail", value))
    if value == 0:
        raise ValueError("a bug")
    raise Conflict("refused by the rules")


@shared_task(name="tests.outbox.flaky", **RETRY)
def flaky(value: int) -> int:
    RUNS.append(("flaky", value))
    if len(RUNS) == 1:
        raise OperationalError("canceling statement due to lock timeout")
    return value


@shared_task(name="tests.outbox.chain", **RETRY)
def chain(value: int) -> int:
    """Each run writes the next step (and, from the second on, a side job), as a batch's
    bot play writes its finalize, and finalize its tournament results."""
    RUNS.append(("chain", value))
    with transaction.atomic():
        if value > 0:
            enqueue("tests.outbox.chain", value - 1)
        if value < 3:
            enqueue("tests.outbox.remember", value)
    return value


@pytest.fixture(autouse=True)
def fresh_runs():
    RUNS.clear()


def wait_until(condition, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_job_is_written_with_the_change_and_published_when_it_commits(monkeypatch):
    published = []
    monkeypatch.setattr(remember, "delay", lambda *args: published.append(args))
    with pytest.raises(RuntimeError), transaction.atomic():
        enqueue("tests.outbox.remember", 1)
        assert Job.objects.count() == 1
        raise RuntimeError("rolled back")
    assert Job.objects.count() == 0 and published == []
    with transaction.atomic():
        enqueue_many("tests.outbox.remember", [(2,), (3,)])  # one INSERT for both
        assert published == []
    assert published == [(2,), (3,)]
    assert sorted(Job.objects.values_list("args", flat=True)) == [[2], [3]]


def test_an_unknown_task_name_fails_the_caller():
    with pytest.raises(KeyError):
        enqueue("tests.outbox.no_such_task", 1)


def test_a_job_with_a_countdown_waits_in_its_row_for_the_relay(monkeypatch):
    published = []
    monkeypatch.setattr(remember, "delay", lambda *args: published.append(args))
    enqueue("tests.outbox.remember", 4, countdown=30)
    job = Job.objects.get()
    assert 29 <= (job.available_at - timezone.now()).total_seconds() <= 30
    assert services.relay() == 0 and published == []
    assert services.relay(now=timezone.now() + timedelta(seconds=31)) == 1
    assert published == [(4,)]


def test_a_broker_down_at_commit_fails_nothing_and_the_relay_publishes_later(monkeypatch):
    """tournament_start used to raise after its commit, leaving a tournament no task ran."""

    def broker_down(*args):
        raise BrokerError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    tournament = open_tournament(show_up_seconds=0)
    register_all(tournament, bots(4))
    monkeypatch.setattr(tournament_tasks.start_tables, "delay", broker_down)
    started = tournaments.tournament_start(tournament_id=tournament.pk)
    assert started.status == Tournament.Status.RUNNING
    job = Job.objects.get()
    assert (job.task, job.args, job.attempts) == ("tournaments.tasks.start_tables", [started.pk], 0)
    assert job.published_at is None  # no message to wait for
    published = []
    monkeypatch.setattr(tournament_tasks.start_tables, "delay", lambda *a: published.append(a))
    assert services.relay() == 0  # not due before its lease has run out
    later = timezone.now() + services.LEASE
    assert services.relay(now=later) == 1
    assert published == [(started.pk,)]
    job.refresh_from_db()
    assert (job.attempts, job.published_at, job.available_at) == (1, later, later + services.LEASE)


def test_a_job_in_a_busy_queue_is_not_copied_until_it_is_stale(monkeypatch):
    """Copies of a job still waiting in a slow queue would only make the queue longer."""
    published = []
    monkeypatch.setattr(remember, "delay", lambda *args: published.append(args))
    enqueue("tests.outbox.remember", 13)
    assert published == [(13,)]
    busy = [True]
    monkeypatch.setattr(services, "_queue_empty", lambda: not busy[0])
    assert services.relay(now=timezone.now() + services.LEASE) == 0
    busy[0] = False  # drained, and the job never started: its message was lost
    assert services.relay(now=timezone.now() + services.LEASE) == 1
    busy[0] = True
    assert services.relay(now=timezone.now() + services.STALE) == 0  # published again since
    assert services.relay(now=timezone.now() + 2 * services.STALE) == 1  # however busy
    assert published == [(13,), (13,), (13,)]


def test_the_relay_asks_the_broker_whether_the_queue_is_empty(monkeypatch):
    queue = f"knock-outbox-{uuid.uuid4().hex[:8]}"
    monkeypatch.setitem(celery_app.conf, "task_default_queue", queue)
    assert services._queue_empty()  # Redis has no such list yet
    remember.apply_async((14,), queue=queue)
    try:
        assert not services._queue_empty()
    finally:
        with celery_app.connection_for_write() as conn:
            conn.default_channel.queue_purge(queue)


def test_the_relay_passes_over_a_job_this_worker_cannot_run(monkeypatch, caplog):
    published = []
    monkeypatch.setattr(remember, "delay", lambda *args: published.append(args))
    now = timezone.now()
    Job.objects.create(task="newer.release.task", args=[1], available_at=now, created_at=now)
    enqueue("tests.outbox.remember", 12)
    published.clear()
    monkeypatch.setattr(services, "_queue_empty", lambda: True)
    assert services.relay(now=timezone.now() + services.LEASE) == 2
    assert published == [(12,)]
    assert "newer.release.task, which this process does not know" in caplog.text
    assert Job.objects.get(task="newer.release.task").attempts == 1  # due again later


@pytest.mark.postgres
def test_the_relay_leaves_alone_a_job_a_worker_is_running(monkeypatch):
    published = []
    monkeypatch.setattr(remember, "delay", lambda *args: published.append(args))
    enqueue_many("tests.outbox.remember", [(5,), (6,)])
    running = Job.objects.order_by("pk").first()
    published.clear()
    monkeypatch.setattr(services, "_queue_empty", lambda: True)
    params = connection.get_connection_params()
    with psycopg.connect(**params, autocommit=True) as worker:  # another worker's session
        key = running.pk % services.LOCK_KEYS
        worker.execute("SELECT pg_advisory_lock(%s, %s)", [services.LOCK_SPACE, key])
        assert services.job_start(job_id=running.pk) is False  # a copy gives way
        assert services.relay(now=timezone.now() + services.LEASE) == 1
        assert published == [(6,)]
    wait_until(lambda: not services._running([running.pk]))
    # The worker died: its lock went with its session, and the row was due since it began.
    assert services.relay(now=timezone.now() + timedelta(seconds=1)) == 1
    assert published == [(6,), (5,)]


def test_a_worker_runs_a_job_once_and_deletes_its_row(celery_worker):
    enqueue("tests.outbox.remember", 7)
    wait_until(lambda: not Job.objects.exists())
    assert RUNS == [("remember", 7)]
    job = Job.objects.create(
        task="tests.outbox.remember",
        args=[8],
        available_at=timezone.now(),
        created_at=timezone.now(),
    )
    done = job.pk
    job.delete()  # done already: a late copy of its message does nothing
    remember.apply_async((8,), headers={services.JOB_HEADER: done})
    remember.apply_async((9,))  # a plain message, no job: runs as ever
    wait_until(lambda: ("remember", 9) in RUNS)
    time.sleep(0.3)
    assert RUNS == [("remember", 7), ("remember", 9)]


def failures(task: str) -> float:
    """`knock_job_failures_total` of this process (the worker's threads run here)."""
    return REGISTRY.get_sample_value("knock_job_failures_total", {"task": task}) or 0


def test_a_failed_run_keeps_its_row_for_a_retry_and_a_refusal_does_not(celery_worker):
    before, failed = timezone.now(), failures("tests.outbox.fail")
    enqueue_many("tests.outbox.fail", [(0,), (1,)])
    wait_until(lambda: len(RUNS) == 2 and Job.objects.count() == 1)
    job = Job.objects.get()
    assert job.args == [0] and job.attempts == 1  # the bug is retried after a backoff
    assert job.available_at >= before + services.LEASE
    assert failures("tests.outbox.fail") == failed + 1  # the bug counts, the refusal not


def test_a_celery_retry_keeps_the_row_until_the_retried_run_completes(celery_worker):
    enqueue("tests.outbox.flaky", 10)
    wait_until(lambda: len(RUNS) == 2 and not Job.objects.exists())
    assert RUNS == [("flaky", 10), ("flaky", 10)]


def test_the_workers_relay_publishes_a_job_the_broker_refused_without_beat(
    celery_worker, monkeypatch
):
    monkeypatch.setattr(services, "LEASE", timedelta(milliseconds=300))
    refusals = []
    real_delay = remember.delay

    def broker_down_once(*args):
        if not refusals:
            refusals.append(args)
            raise BrokerError("Connection refused.")
        return real_delay(*args)

    monkeypatch.setattr(remember, "delay", broker_down_once)
    enqueue("tests.outbox.remember", 11)
    assert refusals == [(11,)] and Job.objects.count() == 1
    wait_until(lambda: not Job.objects.exists(), seconds=10)
    assert RUNS == [("remember", 11)]


def test_a_worker_runs_the_step_its_work_wrote_itself_and_publishes_the_rest(celery_worker):
    """The first job a run writes is handed to the same worker: no message, no queue."""
    from celery.signals import before_task_publish

    published = []

    def count(sender=None, **kwargs):
        published.append(sender)

    before_task_publish.connect(count)
    try:
        enqueue("tests.outbox.chain", 3)
        wait_until(lambda: len(RUNS) == 7 and not Job.objects.exists())
    finally:
        before_task_publish.disconnect(count)
    assert [run for run in RUNS if run[0] == "chain"] == [("chain", n) for n in (3, 2, 1, 0)]
    assert sorted(run for run in RUNS if run[0] == "remember") == [
        ("remember", n) for n in (0, 1, 2)
    ]
    # One message for the first step; the side jobs went through the broker as ever, but
    # the last step's, the first (and only) job that run wrote.
    assert published.count("tests.outbox.chain") == 1
    assert published.count("tests.outbox.remember") == 2


def test_a_handed_off_job_whose_worker_died_is_published_by_the_relay_a_lease_later(monkeypatch):
    published = []
    monkeypatch.setattr(chain, "delay", lambda *args: published.append(("chain", args)))
    monkeypatch.setattr(remember, "delay", lambda *args: published.append(("remember", args)))
    with services.handing_off() as hand_off:
        chain.run(1)  # the run of a delivery: its next step is kept, its side job published
    assert hand_off.job is not None and hand_off.job.args == [0]
    assert published == [("remember", (1,))]
    # The worker dies before running it: the row waits unpublished, then the relay sends it
    # (the side job waits in a busy queue: not copied yet).
    monkeypatch.setattr(services, "_queue_empty", lambda: False)
    assert services.relay() == 0
    assert services.relay(now=timezone.now() + services.LEASE) == 1
    assert published[-1] == ("chain", (0,))


def test_a_rolled_back_change_hands_nothing_off(monkeypatch):
    monkeypatch.setattr(remember, "delay", lambda *args: None)
    with services.handing_off() as hand_off, pytest.raises(RuntimeError), transaction.atomic():
        enqueue("tests.outbox.remember", 1)
        raise RuntimeError("rolled back")
    assert hand_off.job is None and not Job.objects.exists()
