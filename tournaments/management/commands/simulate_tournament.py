"""Run a real bot tournament end to end, every match through the production Celery tasks.

    python manage.py simulate_tournament --players 64 --variant gin --seed 7 --json
    python manage.py simulate_tournament --players 16 --format double --grand-final reset

By default an in-process Celery worker (threads) serves the configured broker, the same
tasks a deployment runs; `--eager` runs the tasks in this process instead, for quick checks.
The last line of output is one JSON object: champion, rounds, matches, validated_matches
(matches whose move log finalize replayed from the seed and found to agree), byes,
walkovers, seconds.
"""

import json
import sys
import time
import uuid
from contextlib import contextmanager

from celery.contrib.testing.worker import start_worker
from django.core.management.base import BaseCommand, CommandError
from django.db.models import Count, Q

from config.celery import app as celery_app
from config.celery import tasks_in_process
from config.errors import DomainError
from gameplay.models import Match
from tournaments import runner, selectors, services
from tournaments.models import Entry, Table, TableMatch, Tournament

POLL_SECONDS = 0.1
BAR_WIDTH = 40


class Command(BaseCommand):
    help = "Simulate a whole bot tournament through Celery; prints a JSON summary last."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, required=True)
        parser.add_argument("--variant", default="gin")
        parser.add_argument("--seed", default="1", help="Seeding and every match shuffle.")
        parser.add_argument(
            "--format",
            default="single",
            choices=["single", "double", "swiss", "two-stage"],
            help="Tournament format.",
        )
        parser.add_argument("--groups", type=int, help="Two-stage: groups.")
        parser.add_argument(
            "--group-stage",
            default="round-robin",
            choices=["round-robin", "swiss"],
            help="Two-stage: round-robin groups, or Swiss rounds in each (--swiss-rounds).",
        )
        parser.add_argument(
            "--second-stage",
            default="single",
            choices=["single", "double"],
            help="Two-stage: the qualifiers' bracket (double: with --grand-final).",
        )
        parser.add_argument("--group-advance", type=int, help="Two-stage: qualifiers a group.")
        parser.add_argument(
            "--swiss-rounds", type=int, help="Swiss (or Swiss groups): rounds to play."
        )
        parser.add_argument("--grand-final", default="reset", choices=["reset", "simple"])
        parser.add_argument("--table-size", type=int, default=2)
        parser.add_argument("--advance", type=int, default=1)
        parser.add_argument("--best-of", type=int, default=1)
        parser.add_argument("--target", type=int, default=10, help="Match target score.")
        parser.add_argument("--bot", default="greedy", help="Bot kind for every entry.")
        parser.add_argument("--workers", type=int, default=2, help="Worker threads.")
        parser.add_argument("--eager", action="store_true", help="Run tasks in this process.")
        parser.add_argument("--timeout", type=float, default=3600)
        parser.add_argument("--json", action="store_true", help="Only the JSON summary.")

    def handle(self, *args, **opts):
        self.quiet = opts["json"]
        self.tty = sys.stdout.isatty() and not self.quiet
        try:
            tournament = runner.bot_tournament(
                name=f"Simulation {opts['seed']} · {opts['players']} players",
                players=opts["players"],
                by=runner.organiser("simulator"),
                kind=opts["bot"],
                variant=opts["variant"],
                options=runner.quick_options(opts["variant"], opts["target"]),
                format=opts["format"].replace("-", "_"),
                grand_final=opts["grand_final"],
                groups=opts["groups"],
                group_advance=opts["group_advance"],
                swiss_rounds=opts["swiss_rounds"],
                group_stage=opts["group_stage"].replace("-", "_"),
                second_stage=opts["second_stage"],
                table_size=opts["table_size"],
                advance=opts["advance"],
                best_of=opts["best_of"],
                seeding=Tournament.Seeding.RANDOM,
                seed=str(opts["seed"]),
                show_up_seconds=0,
            )
        except DomainError as exc:
            raise CommandError(exc.message) from exc
        started = time.perf_counter()
        if opts["eager"]:
            with tasks_in_process():
                services.tournament_start(tournament_id=tournament.pk)
        else:
            with self._worker(opts["workers"]):
                services.tournament_start(tournament_id=tournament.pk)
                self._wait(tournament, opts["timeout"])
        seconds = time.perf_counter() - started
        tournament.refresh_from_db()
        if not self.quiet:
            self._print_bracket(tournament)
        self.stdout.write(json.dumps(summary(tournament, seconds)))

    @contextmanager
    def _worker(self, concurrency: int):
        """A worker in this process on the configured broker, on a queue of its own so a
        `make run` worker does not take these tasks (it would run the same code)."""
        conf = celery_app.conf
        previous = conf.task_default_queue, conf.broker_transport_options
        queue = f"knock-simulate-{uuid.uuid4().hex[:8]}"
        conf.task_default_queue = queue
        if conf.broker_url.startswith("filesystem://"):
            # The filesystem transport polls; a tight interval keeps hops short.
            conf.broker_transport_options = {**(previous[1] or {}), "polling_interval": 0.05}
        try:
            with start_worker(
                celery_app,
                pool="threads",
                concurrency=concurrency,
                queues=[queue],
                perform_ping_check=False,
                loglevel="WARNING",
                shutdown_timeout=30,
            ):
                yield
        finally:
            conf.task_default_queue, conf.broker_transport_options = previous

    def _wait(self, tournament: Tournament, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        total = Table.objects.filter(tournament=tournament).count()
        while time.monotonic() < deadline:
            tournament.refresh_from_db(fields=["status"])
            done = Table.objects.filter(tournament=tournament, status=Table.Status.DONE).count()
            if self.tty:
                filled = BAR_WIDTH * done // max(total, 1)
                bar = "#" * filled + "." * (BAR_WIDTH - filled)
                self.stdout.write(f"\r[{bar}] {done}/{total} tables", ending="")
                self.stdout.flush()
            if tournament.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
                if self.tty:
                    self.stdout.write("")
                return
            time.sleep(POLL_SECONDS)
        raise CommandError(f"the tournament did not finish within {timeout:.0f}s")

    def _print_bracket(self, tournament: Tournament) -> None:
        for round_ in selectors.bracket(tournament)["rounds"]:
            self.stdout.write(self.style.MIGRATE_HEADING(round_["name"]))
            for table in round_["tables"]:
                seats = sorted(table["seats"], key=lambda s: s["finish"] or 99)
                cells = [
                    f"({s['seed']}) {s['player']}"
                    + (f" {s['points']}" if table["matches"] else "")
                    + ("*" if s["advanced"] else "")
                    for s in seats
                ]
                label = "third place" if table["third_place"] else f"table {table['position'] + 1}"
                note = " bye" if table["bye"] else " walkover" if table["walkover"] else ""
                self.stdout.write(f"  {label}{note}: " + "  ·  ".join(cells or ["nobody"]))


def summary(tournament: Tournament, seconds: float) -> dict:
    matches = Match.objects.filter(tournament_table__table__tournament=tournament)
    decided = Table.objects.filter(tournament=tournament, walkover=True).annotate(
        seated=Count("seats"), forfeits=Count("seats", filter=Q(seats__forfeited=True))
    )
    byes = decided.filter(seated=1, forfeits=0).count()
    # An empty table (a grand final reset not needed, nobody sent on) is neither.
    walkovers = decided.filter(seated__gte=1).count() - byes
    champion = (
        Entry.objects.filter(tournament=tournament, status=Entry.Status.CHAMPION)
        .select_related("player")
        .first()
    )
    return {
        "tournament": tournament.pk,
        "status": tournament.status,
        "players": tournament.entries_count,
        "format": tournament.format,
        "variant": tournament.variant,
        "champion": champion.player.display_name if champion else None,
        "champion_seed": champion.seed if champion else None,
        "rounds": tournament.rounds.count(),
        "matches": TableMatch.objects.filter(table__tournament=tournament).count(),
        "validated_matches": matches.filter(
            status=Match.Status.FINISHED, finalized_at__isnull=False
        ).count(),
        "disputed_matches": matches.filter(status=Match.Status.DISPUTED).count(),
        # A table of one decided at once is a bye; a walkover had a seated loser.
        "byes": byes,
        "walkovers": walkovers,
        "seconds": round(seconds, 3),
    }
