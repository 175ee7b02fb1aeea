"""Services announce work by task name; the name must resolve in any process."""

import subprocess
import sys

from django.conf import settings


def test_a_process_that_imported_no_tasks_module_still_finds_every_task():
    """A web process imports views and services, never `<app>.tasks`; Celery discovers
    those lazily, so a lookup by name must import them first (a NotRegistered here once
    stopped every bot and timeout announced from a request)."""
    script = (
        "import django; django.setup()\n"
        "import sys\n"
        "assert 'gameplay.tasks' not in sys.modules\n"
        "from config.jobs import _registered_tasks\n"
        "names = set(_registered_tasks())\n"
        "for name in ('gameplay.tasks.play_bots', 'gameplay.tasks.turn_timeout',\n"
        "             'gameplay.tasks.finalize_match', 'tournaments.tasks.start_tables',\n"
        "             'leagues.tasks.rank_round', 'leagues.tasks.close_season'):\n"
        "    assert name in names, name\n"
    )
    subprocess.run(
        [sys.executable, "-c", script],
        check=True,
        cwd=settings.BASE_DIR,
        env={"DJANGO_SETTINGS_MODULE": "config.settings", "PATH": "/usr/bin:/bin"},
    )
