"""Real Celery worker processes to kill, and what a tournament's rows say about its waits.

Used by the worker-kill test (tests/tournaments/test_faults.py) and its larger run
(benchmarks/fault_bench.py). Each worker is a `celery worker` process group of its own (the
main process and its pool child), so a kill takes the whole worker, as a crashed machine or
an OOM-killed container would; a supervisor (here `Workers`) starts a replacement at once.
"""

from __future__ import annotations

import ctypes
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from django.db import connection
from django.db.models import Q

from config.celery import app
from outbox import services as outbox
from tournaments.models import Table, TableMatch, Tournament

ROOT = Path(__file__).resolve().parent.parent
PR_SET_PDEATHSIG = 1


def _die_with_the_test() -> None:
    """In a worker before it starts: the kernel kills it if the process that started it
    dies (a test run stopped with SIGTERM runs no cleanup)."""
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def database_url() -> str:
    """The URL of the database this process uses now (a test database, in tests): on the
    embedded default, the test database's SQLite file, which another process can open."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return (
        f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
        f"/{db['NAME']}"
    )


@dataclass
class Workers:
    """`count` workers of `concurrency` processes on `queue`, against `database`."""

    count: int
    queue: str
    database: str
    concurrency: int = 1
    procs: dict[str, subprocess.Popen] = field(default_factory=dict)
    started: int = 0
    logs: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="knock-workers-")))

    def __enter__(self) -> Workers:
        for _ in range(self.count):
            self.start_one()
        self.wait_ready(list(self.procs))
        return self

    def __exit__(self, *exc) -> None:
        for name in list(self.procs):
            self.kill(name)
        # Copies the relay published while the originals waited are left; later tests
        # on this queue need not skip them.
        with app.connection_for_write() as conn:
            conn.default_channel.queue_purge(self.queue)

    def start_one(self) -> str:
        self.started += 1
        name = f"{self.queue}-{self.started}"
        env = {
            **os.environ,
            "DATABASE_URL": self.database,
            "CELERY_TASK_DEFAULT_QUEUE": self.queue,
            "PGAPPNAME": name,  # libpq names the worker's sessions: see `running`
        }
        command = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--concurrency",
            str(self.concurrency),
            "--loglevel",
            os.environ.get("KNOCK_WORKER_LOGLEVEL", "WARNING"),
            "--without-mingle",  # a replacement starts without waiting for replies
            "-Q",
            self.queue,
            "-n",
            f"{name}@%h",
        ]
        with open(self.logs / f"{name}.log", "wb") as log:
            self.procs[name] = subprocess.Popen(
                command,
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=log,
                start_new_session=True,
                preexec_fn=_die_with_the_test,
            )
        return name

    def wait_ready(self, names: list[str], seconds: float = 90) -> None:
        host = os.uname().nodename
        deadline = time.monotonic() + seconds
        waiting = {f"{name}@{host}" for name in names}
        while waiting:
            assert time.monotonic() < deadline, f"workers not up: {waiting}; logs in {self.logs}"
            for reply in app.control.ping(destination=list(waiting), timeout=0.5):
                waiting -= set(reply)

    def running(self) -> list[str]:
        """The workers running an outbox job now: their sessions hold the job's lock."""
        return self._sessions(
            "SELECT DISTINCT a.application_name FROM pg_locks l"
            " JOIN pg_stat_activity a ON a.pid = l.pid"
            " WHERE l.locktype = 'advisory' AND l.granted AND l.classid = %s",
            [outbox.LOCK_SPACE],
        )

    def up(self) -> bool:
        """Whether every worker is up: each has a session (its relay's, once it runs)."""
        connected = self._sessions("SELECT DISTINCT application_name FROM pg_stat_activity", [])
        return set(connected) == set(self.procs)

    def _sessions(self, sql: str, params: list) -> list[str]:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return [name for (name,) in cursor.fetchall() if name in self.procs]

    def kill(self, name: str) -> None:
        """SIGKILL the worker's whole process group: no warm shutdown, no acknowledgement."""
        proc = self.procs.pop(name)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()

    def kill_and_replace(self, rng: random.Random, *, wait_for_work: float = 2.0) -> bool:
        """Kill a worker running a job (waiting up to `wait_for_work` seconds for one to be
        running), else any; start its replacement at once. Returns whether it ran a job."""
        deadline = time.monotonic() + wait_for_work
        while not (busy := self.running()) and time.monotonic() < deadline:
            time.sleep(0.01)
        self.kill(rng.choice(busy or sorted(self.procs)))
        self.start_one()
        return bool(busy)


@dataclass
class Run:
    seconds: float
    kills: int = 0
    kills_mid_task: int = 0


def run_tournament(
    tournament: Tournament,
    start,
    *,
    workers: Workers,
    kill_every: tuple[float, float] | None = None,
    first_kill: float | None = None,
    kill_for: float = 60.0,
    seed: int = 7,
    timeout: float = 600.0,
) -> Run:
    """Call `start()` (which starts the tournament) and wait for the tournament to finish,
    killing a worker every `kill_every` (low, high) seconds for the first `kill_for`, the
    first kill after `first_kill` seconds if given. A kill waits until the last victim's
    replacement is up: one worker down at a time, as independent crashes under a
    supervisor would leave them (kills faster than jobs and restarts would stop all work)."""
    rng = random.Random(seed)
    begun = time.monotonic()
    start()
    run = Run(seconds=0.0)
    next_kill = None
    if kill_every:
        next_kill = begun + (first_kill if first_kill is not None else rng.uniform(*kill_every))
    while True:
        now = time.monotonic()
        assert now - begun < timeout, f"not finished after {timeout:.0f} s; logs in {workers.logs}"
        if Tournament.objects.filter(pk=tournament.pk, status=Tournament.Status.FINISHED).exists():
            run.seconds = now - begun
            return run
        due = next_kill is not None and now >= next_kill and now - begun < kill_for
        if due and workers.up():
            run.kills += 1
            run.kills_mid_task += workers.kill_and_replace(rng)
            next_kill = time.monotonic() + rng.uniform(*kill_every)
        time.sleep(0.05)


@dataclass
class Waits:
    """How long the tournament's tables waited, from its rows (seconds)."""

    matches: int
    recorded_after_finish: float  # a match finished -> its table recorded it (and went on)
    finalized_after_finish: float  # a match finished -> finalize began
    played_after_create: float  # a match created -> its bots had played it to the end
    recording_batches: int  # transactions that recorded results (one per match_finished run)


def waits(tournament: Tournament) -> Waits:
    played = TableMatch.objects.filter(table__tournament=tournament).select_related("match")
    records = [
        (tm.match.created_at, tm.match.finished_at, tm.match.finalized_at, tm.table_id)
        for tm in played
    ]
    finished_at = dict(
        Table.objects.filter(tournament=tournament, walkover=False).values_list("pk", "finished_at")
    )

    def longest(pairs) -> float:
        return max((after - before).total_seconds() for before, after in pairs)

    batches = (
        Table.objects.filter(tournament=tournament, walkover=False)
        .values("finished_at")
        .distinct()
        .count()
    )
    return Waits(
        matches=len(records),
        recorded_after_finish=longest((end, finished_at[table]) for _, end, _, table in records),
        finalized_after_finish=longest((end, final) for _, end, final, _ in records),
        played_after_create=longest((begin, end) for begin, end, _, _ in records),
        recording_batches=batches,
    )


def settled_once(tournament: Tournament) -> bool:
    """Every table done, every match finalized and counted at its table exactly once."""
    tables = Table.objects.filter(tournament=tournament)
    played = TableMatch.objects.filter(table__tournament=tournament)
    return (
        not tables.exclude(status=Table.Status.DONE).exists()
        and not played.filter(Q(recorded=False) | Q(match__finalized_at__isnull=True)).exists()
        and sum(tables.values_list("games_played", flat=True)) == played.count()
    )
