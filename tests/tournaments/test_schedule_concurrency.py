"""A scheduled step is taken once, however many runs of the schedule race for it: two beat
ticks' jobs at once on PostgreSQL, and a worker killed while it takes the start."""

import threading
import time
from datetime import timedelta

import pytest
from django.db import connections, transaction
from django.utils import timezone

from gameplay.models import CoinEntry, Player
from outbox.models import Job
from tests.concurrency import at_once
from tests.tournaments.helpers import bots, humans, open_tournament, register_all
from tests.workers import Workers, database_url, settled_once
from tournaments import jobs, services
from tournaments.models import Entry, Round, Table, Tournament

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def advance(tournament: Tournament):
    return lambda: services.tournament_advance(tournament_id=tournament.pk)


@pytest.mark.usefixtures("no_broker")
def test_two_ticks_at_once_start_a_due_tournament_once():
    tournament = open_tournament(show_up_seconds=0, starts_at=timezone.now())
    register_all(tournament, bots(5))
    steps = at_once(advance(tournament), advance(tournament))
    assert sorted(steps, key=len) == [[], ["started"]]
    assert Round.objects.filter(tournament=tournament).count() == 3  # drawn once: 8, 4, 2
    assert Table.objects.filter(tournament=tournament, round_number=1).count() == 4


@pytest.mark.usefixtures("no_broker")
def test_two_ticks_at_once_cancel_a_short_field_once_and_refund_once():
    tournament = open_tournament(starts_at=timezone.now(), entry_fee=10, min_entries=4)
    players = humans(3, coins=50)
    register_all(tournament, players)
    steps = at_once(advance(tournament), advance(tournament), advance(tournament))
    assert sorted(steps, key=len) == [[], [], ["cancelled"]]
    assert [Player.objects.get(pk=p.pk).coins for p in players] == [50, 50, 50]
    assert CoinEntry.objects.filter(key__contains="refund").count() == 3


def test_a_worker_killed_as_it_starts_the_tournament_is_replaced_and_it_starts_once(
    celery_test_queue,
):
    """The test holds the tournament's row lock, so the worker's start waits inside its
    transaction; the worker is killed there, a replacement takes the job from the outbox."""
    tournament = open_tournament(show_up_seconds=0, starts_at=timezone.now() + timedelta(seconds=1))
    register_all(tournament, bots(4))
    locked, release = threading.Event(), threading.Event()

    def hold_the_lock():
        with transaction.atomic():
            Tournament.objects.select_for_update().get(pk=tournament.pk)
            locked.set()
            release.wait(60)
        connections.close_all()

    holder = threading.Thread(target=hold_the_lock)
    holder.start()
    locked.wait(10)
    with Workers(count=1, queue=celery_test_queue, database=database_url()) as workers:
        time.sleep(1)  # the start time comes
        assert services.tournaments_due() == [tournament.pk]  # beat's tick
        deadline = time.monotonic() + 30
        while not workers.running():
            assert time.monotonic() < deadline, f"no worker took the job; {workers.logs}"
            time.sleep(0.02)
        assert Tournament.objects.get(pk=tournament.pk).status == "registration"
        (victim,) = workers.running()
        workers.kill(victim)
        workers.start_one()
        release.set()
        holder.join()
        deadline = time.monotonic() + 90
        while not Tournament.objects.filter(pk=tournament.pk, status="finished").exists():
            assert time.monotonic() < deadline, f"not finished; logs in {workers.logs}"
            time.sleep(0.1)
    assert not Job.objects.filter(task=jobs.ADVANCE_SCHEDULE).exists()
    assert Round.objects.filter(tournament=tournament).count() == 2
    assert Entry.objects.filter(tournament=tournament, status="champion").count() == 1
    assert settled_once(tournament)
