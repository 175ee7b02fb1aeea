"""Whole workers killed mid-tournament: every hand-off still happens within seconds, and
exactly once. (The 256-player run with its fault-free baseline: benchmarks/fault_bench.py.)"""

import pytest

from tests.tournaments.helpers import bots, open_tournament, register_all
from tests.workers import Workers, database_url, run_tournament, settled_once, waits
from tournaments import services
from tournaments.models import Entry

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

MAX_WAIT_SECONDS = 10


def test_killed_workers_delay_a_tournament_by_seconds_and_lose_nothing(celery_test_queue):
    tournament = open_tournament(show_up_seconds=0, best_of=3, options={})
    register_all(tournament, bots(128))
    with Workers(count=2, queue=celery_test_queue, database=database_url()) as workers:
        run = run_tournament(
            tournament,
            lambda: services.tournament_start(tournament_id=tournament.pk),
            workers=workers,
            kill_every=(2.0, 3.0),
            first_kill=1.0,
            timeout=150,
        )
    assert run.kills_mid_task >= 1, run
    assert Entry.objects.filter(tournament=tournament, status="champion").count() == 1
    assert settled_once(tournament)
    seen = waits(tournament)
    assert seen.matches >= 2 * 127
    assert seen.recorded_after_finish <= MAX_WAIT_SECONDS, seen
