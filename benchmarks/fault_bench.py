"""Hand-offs under worker kills (issue 13), on PostgreSQL and Redis.

Run::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/knock \\
    CELERY_BROKER_URL=redis://127.0.0.1:6379/9 \\
        .venv/bin/python -m benchmarks.fault_bench [--players 256] [--big 2048] [--seed 7]

It works in a throw-away database (``test_<name>``, created, migrated and dropped) and a
queue of its own. Two workers (``celery worker --concurrency 1`` each, no beat) run a
best-of-1 Gin tournament of ``--players`` bots to its champion, first without faults, then
while a whole worker (its process group: main process and pool child, SIGKILL) is killed
every 5-10 s for the first minute and a replacement started at once, as a supervisor would.
A kill takes a worker that is running a job when one is (its session holds the job's lock).
Since the field's fault-free run is over within seconds, its first kill comes at a third of
the fault-free time; ``--big`` runs a field long enough for the 5-10 s rhythm (0: skip).

For each run it prints the wall time, the kills, the longest a finished match's table waited
for its result to be recorded (finalize, then the table's record, which also starts the next
match), the longest a match waited from creation to its last bot move, and how many
transactions recorded results (a recovery that split batches would raise it). Goals: with
kills, at most twice the fault-free time, and no table waits more than 10 s.
"""

from __future__ import annotations

import argparse
import os
import uuid

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402

from benchmarks.tournament_bench import bots, tournament  # noqa: E402
from config.celery import app as celery_app  # noqa: E402
from tests.workers import Workers, database_url, run_tournament, settled_once, waits  # noqa: E402
from tournaments import services  # noqa: E402

TIME_GOAL = 2.0
WAIT_GOAL = 10.0


def run(label: str, players: list[int], workers: Workers, **faults) -> float:
    t = tournament(players, variant="gin", options={}, best_of=1)
    result = run_tournament(
        t, lambda: services.tournament_start(tournament_id=t.pk), workers=workers, **faults
    )
    assert settled_once(t), f"{label}: a match was lost or counted twice"
    seen = waits(t)
    kills = f"{result.kills} kills ({result.kills_mid_task} mid-job)" if faults else "no kills"
    verdict = "met" if seen.recorded_after_finish <= WAIT_GOAL else "MISSED"
    print(
        f"{label}: {seen.matches:,} matches in {result.seconds:.1f} s, {kills}; longest waits: "
        f"result recorded {seen.recorded_after_finish:.1f} s after the match ended "
        f"(goal <= {WAIT_GOAL:.0f} s: {verdict}; finalize began within "
        f"{seen.finalized_after_finish:.1f} s), match played "
        f"{seen.played_after_create:.1f} s after creation; {seen.recording_batches} recording "
        "batches",
        flush=True,
    )
    return result.seconds


def compare(players: list[int], workers: Workers, *, first_kill_share: float | None) -> None:
    n = len(players)
    quiet = run(f"gin {n:,} entries, no faults", players, workers)
    first_kill = quiet * first_kill_share if first_kill_share else None
    faulty = run(
        f"gin {n:,} entries, workers killed",
        players,
        workers,
        kill_every=(5.0, 10.0),
        kill_for=60.0,
        first_kill=first_kill,
    )
    ratio = faulty / quiet
    print(
        f"gin {n:,} entries: with kills {ratio:.2f}x the fault-free time "
        f"(goal <= {TIME_GOAL:.0f}x: {'met' if ratio <= TIME_GOAL else 'MISSED'})",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=256)
    parser.add_argument("--big", type=int, default=2048)
    args = parser.parse_args()
    if connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL.startswith("redis"):
        raise SystemExit("set DATABASE_URL=postgres://... and CELERY_BROKER_URL=redis://...")
    name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    queue = f"knock-faults-{uuid.uuid4().hex[:8]}"
    celery_app.conf.task_default_queue = queue
    try:
        field = bots(max(args.players, args.big))
        with Workers(count=2, queue=queue, database=database_url()) as workers:
            compare(field[: args.players], workers, first_kill_share=1 / 3)
            if args.big:
                compare(field[: args.big], workers, first_kill_share=None)
    finally:
        connection.creation.destroy_test_db(name, verbosity=0)


if __name__ == "__main__":
    main()
