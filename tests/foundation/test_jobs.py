"""Services announce work by task name; the name must resolve in any process."""

import re
import subprocess
import sys
import time

import pytest
from django.conf import settings

from gameplay import services
from gameplay.models import Match
from tests.workers import Workers, database_url


def test_a_process_that_imported_no_tasks_module_still_finds_every_task():
    """Every job name (`<app>/jobs.py`) and every beat entry names a registered task.

    A web process imports views and services, never `<app>.tasks`; Celery discovers
    those lazily, so a lookup by name must import them first (a NotRegistered here once
    stopped every bot and timeout announced from a request)."""
    script = (
        "import django; django.setup()\n"
        "import sys\n"
        "assert 'gameplay.tasks' not in sys.modules\n"
        "from config.jobs import _registered_tasks\n"
        "names = set(_registered_tasks())\n"
        "from django.conf import settings\n"
        "from gameplay import jobs as g; from tournaments import jobs as t\n"
        "from leagues import jobs as lg\n"
        "wanted = [v for m in (g, t, lg) for k, v in vars(m).items() if k.isupper()]\n"
        "wanted += [entry['task'] for entry in settings.CELERY_BEAT_SCHEDULE.values()]\n"
        "assert len(wanted) > 10, wanted\n"
        "for name in wanted:\n"
        "    assert name in names, name\n"
    )
    subprocess.run(
        [sys.executable, "-c", script],
        check=True,
        cwd=settings.BASE_DIR,
        env={"DJANGO_SETTINGS_MODULE": "config.settings", "PATH": "/usr/bin:/bin"},
    )


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_worker_process_keeps_logging_after_it_announces_work(celery_test_queue, monkeypatch):
    """The first `enqueue` in a pool process imports every tasks module; done through
    Celery's Django fix-up that re-ran Django's logging setup over Celery's, and the pool
    process logged nothing more. Here one pool process plays a bots' match: its first
    task announces the next ones, and the later tasks' lines must still reach the log."""
    monkeypatch.setenv("KNOCK_WORKER_LOGLEVEL", "INFO")
    bots = services.bot_players(kind="greedy", count=2)
    with Workers(count=1, queue=celery_test_queue, database=database_url()) as workers:
        match = services.match_create(variant="gin", options={"target": 1}, players=bots)
        deadline = time.monotonic() + 60
        while match.status != Match.Status.FINISHED or match.finalized_at is None:
            assert time.monotonic() < deadline, f"match not finished; logs in {workers.logs}"
            time.sleep(0.1)
            match.refresh_from_db()
        (log,) = workers.logs.iterdir()
        deadline = time.monotonic() + 10
        while "gameplay.tasks.finalize_match" not in (text := log.read_text()):
            assert time.monotonic() < deadline, text[-2000:]
            time.sleep(0.1)
    # Run from its message, or handed off by the play that finished the match.
    done = r"Task gameplay\.tasks\.finalize_match(\[.*\]| \(job \d+, handed off\)) succeeded"
    assert re.search(done, text), text[-2000:]
