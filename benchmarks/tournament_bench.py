"""Tournament scale goals (issue 6), on PostgreSQL and Redis.

Run::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/knock \
    CELERY_BROKER_URL=redis://127.0.0.1:6379/9 \
        .venv/bin/python -m benchmarks.tournament_bench [--draw 65536] [--gin 4096] \
        [--basic 1024] [--double 4096] [--swiss 4096] [--workers 2] \
        [--only draw,double,swiss,gin,basic]

It works in a throw-away database (``test_<name>``, created, migrated and dropped). Its
worker processes share the default queue with the tasks they send, so give it a broker no
other Knock worker consumes (above: Redis database 9). It prints:

* the draw: a bracket of ``--draw`` entries drawn and stored by ``tournament_start``, its
  seconds against the 5 s bound and its query count next to a 1,024-entry draw's (flat);
* issue 18: a ``--double``-entry double-elimination bracket built and stored the same way
  (bound 2 s, queries flat), beside the single-elimination draw of the same field; and one
  Swiss round paired for ``--swiss`` players head-to-head and at four-seat tables (2 s);
* a Gin tournament of ``--gin`` bots run to its champion by ``--workers`` Celery worker
  processes (``celery worker --concurrency``) through the broker: wall time, matches per
  second, and the share of the workers' time spent outside the engine (goal: under 50%).
  Engine time is measured afterwards by replaying each match's work in this process: the
  bots' play from the seed (``variant.play``) plus finalize's replay check. The workers
  run with ``DEBUG=0``, as in production;
* the same for a Basic Rummy tournament of ``--basic`` bots at 4-seat tables, top 2 on.

Bot players and entries are bulk-inserted as setup; everything measured goes through the
services and the production tasks.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import uuid

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from config.celery import app as celery_app  # noqa: E402
from engine import variants  # noqa: E402
from gameplay.models import Match, Player  # noqa: E402
from tournaments import runner, services  # noqa: E402
from tournaments.models import Entry, Tournament  # noqa: E402

DRAW_SECONDS_BOUND = 5.0
FORMAT_SECONDS_BOUND = 2.0  # issue 18: Swiss pairing and the double-elimination draw
OVERHEAD_GOAL = 0.5


def bots(count: int) -> list[int]:
    """The ids of `count` bot players, bulk-inserted (setup, not measured).

    Ids, not instances: a draw runs in a process that holds no 131,072 setup objects,
    which the garbage collector would walk again and again during the timed draw.
    """
    tag = uuid.uuid4().hex[:6]
    users = get_user_model().objects.bulk_create(
        get_user_model()(username=f"bench-{tag}-{i}") for i in range(count)
    )
    return [
        player.pk
        for player in Player.objects.bulk_create(
            Player(user=u, display_name=f"Bot {i}", is_bot=True, bot_kind="greedy")
            for i, u in enumerate(users)
        )
    ]


def tournament(players: list[int], **settings_) -> Tournament:
    by = runner.organiser("bench-organiser")
    t = runner.bot_tournament(
        name=f"Bench {len(players)}",
        players=0,
        by=by,
        register=False,
        show_up_seconds=0,
        seeding=Tournament.Seeding.RANDOM,
        seed="bench",
        **settings_,
    )
    Entry.objects.bulk_create(
        Entry(tournament=t, player_id=p, status=Entry.Status.REGISTERED) for p in players
    )
    return t


def draw(n: int, players: list[int], bound: float = DRAW_SECONDS_BOUND, **settings_) -> None:
    """Draw and store a bracket of `n` entries (and of 1,024, to show the query count flat)."""
    label = settings_.get("format", "single")
    timings = {}
    for size in (1024, n):
        t = tournament(players[:size], variant="gin", options={"target": 10}, **settings_)
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            services.tournament_start(tournament_id=t.pk)
            timings[size] = (time.perf_counter() - started, len(queries))
        services.tournament_cancel(tournament_id=t.pk)
    seconds, queries = timings[n]
    small = timings[1024][1]
    verdict = "met" if seconds <= bound else "MISSED"
    print(
        f"draw {n:,} entries ({label} elimination): {seconds:.2f} s stored on "
        f"{connection.vendor}, load {os.getloadavg()[0]:.1f} (bound {bound:.0f} s: {verdict}); "
        f"{queries} queries, "
        f"1,024 entries take {small} ({'flat' if queries == small else 'GROWS'})"
    )


def swiss_pairing(n: int) -> None:
    """One Swiss round paired for `n` players, head-to-head and at four-seat tables: the
    slowest round of a whole event with random results (benchmarks.formats_bench)."""
    from benchmarks.formats_bench import swiss_event, tables_event

    for label, event, rounds in (
        ("head-to-head", swiss_event, 12),
        ("at four-seat tables", tables_event, 8),
    ):
        seconds, slowest, _ = event(n, rounds, 1)
        verdict = "met" if seconds <= FORMAT_SECONDS_BOUND else "MISSED"
        print(
            f"Swiss round, {n:,} players {label}: {seconds:.2f} s, the slowest of {rounds} "
            f"rounds (round {slowest}; bound {FORMAT_SECONDS_BOUND:.0f} s: {verdict})"
        )


def run_through_workers(label: str, players: list[int], workers: int, **settings_) -> None:
    t = tournament(players, **settings_)
    started = time.perf_counter()
    services.tournament_start(tournament_id=t.pk)
    while True:
        t.refresh_from_db(fields=["status"])
        if t.status == Tournament.Status.FINISHED:
            break
        time.sleep(0.02)  # the poll's own delay is counted as the workers' time
    wall = time.perf_counter() - started
    matches = list(Match.objects.filter(tournament_table__table__tournament=t))
    work = [engine_work(m) for m in matches]
    # The smaller of two passes: the first runs cold (about 4% slower), as only the first
    # few of each worker's matches did.
    engine = min(sum(engine_seconds(*w) for w in work) for _ in range(2))
    share = engine / (wall * workers)
    champion = Entry.objects.get(tournament=t, status=Entry.Status.CHAMPION)
    print(
        f"{label}: {len(matches):,} matches in {wall:.1f} s with {workers} workers, "
        f"{len(matches) / wall:.1f} matches/s; engine {engine:.1f} s = {share:.0%} of worker "
        f"time, outside the engine {1 - share:.0%} (goal < {OVERHEAD_GOAL:.0%}: "
        f"{'met' if 1 - share < OVERHEAD_GOAL else 'MISSED'}); champion seed {champion.seed}"
    )


def engine_work(match: Match) -> tuple:
    """What the engine did for one match: the bots playing it, then finalize's replay."""
    kinds = [s.player.bot_kind for s in match.seats.select_related("player").order_by("index")]
    moves = [{"seat": move["seat"], "action": move["action"]} for move in match.log]
    return variants.get(match.variant), kinds, moves, match.players, match.seed, match.options


def engine_seconds(variant, kinds, moves, players, seed, options) -> float:
    started = time.perf_counter()
    variant.play(players=players, seed=seed, bots=kinds, options=options)
    variant.replay(moves, players=players, seed=seed, options=options)
    return time.perf_counter() - started


def start_workers(name: str, workers: int, database: str) -> subprocess.Popen:
    # The workers run as production runs them: DEBUG off (with it on, Django wraps every
    # cursor to keep each query's SQL and timing, a few percent of a worker's time).
    env = {
        **os.environ,
        "DATABASE_URL": database,
        "DEBUG": "0",
        "SECRET_KEY": os.environ.get("SECRET_KEY") or f"bench-{uuid.uuid4().hex}",
    }
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "--concurrency",
        str(workers),
        "--loglevel",
        "WARNING",
        "-n",
        f"{name}@%h",
    ]
    process = subprocess.Popen(command, env=env)
    for _ in range(120):
        if celery_app.control.ping(destination=[f"{name}@{os.uname().nodename}"], timeout=0.5):
            return process
    process.terminate()
    raise SystemExit("the bench workers did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--draw", type=int, default=65536)
    parser.add_argument("--gin", type=int, default=4096)
    parser.add_argument("--basic", type=int, default=1024)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--double", type=int, default=4096)
    parser.add_argument("--swiss", type=int, default=4096)
    parser.add_argument("--only", default="draw,double,swiss,gin,basic")
    args = parser.parse_args()
    only = set(args.only.split(","))
    if connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL.startswith("redis"):
        raise SystemExit("set DATABASE_URL=postgres://... and CELERY_BROKER_URL=redis://...")
    name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    database = os.environ["DATABASE_URL"].rsplit("/", 1)[0] + f"/{name}"
    workers = None
    try:
        sizes = [args.gin, args.basic]
        sizes += [args.draw] if "draw" in only else []
        sizes += [args.double] if "double" in only else []
        players = bots(max(sizes))
        if "draw" in only:
            draw(args.draw, players)
        if "double" in only:
            draw(args.double, players, bound=FORMAT_SECONDS_BOUND, format="double")
            draw(args.double, players, bound=FORMAT_SECONDS_BOUND)  # beside it: single
        if "swiss" in only:
            swiss_pairing(args.swiss)
        if only & {"gin", "basic"}:
            workers = start_workers(f"knock-bench-{uuid.uuid4().hex[:8]}", args.workers, database)
        if "gin" in only:
            run_through_workers(
                f"gin {args.gin:,} entries",
                players[: args.gin],
                args.workers,
                variant="gin",
                options={},
            )
        if "basic" in only:
            run_through_workers(
                f"basic {args.basic:,} entries, 4 seats, top 2",
                players[: args.basic],
                args.workers,
                variant="basic",
                options={},
                table_size=4,
                advance=2,
            )
    finally:
        if workers is not None:
            workers.terminate()
            workers.wait(timeout=60)
        connection.creation.destroy_test_db(name, verbosity=0)


if __name__ == "__main__":
    main()
