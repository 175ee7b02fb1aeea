"""Play whole league seasons between bots through the production Celery tasks.

    python manage.py simulate_league --players 40 --divisions 4 --seasons 2 --variant gin \
        --seed 7 --json

Rounds open through the beat task `open_due_rounds`, given the calendar time of each round
(the simulation's clock runs ahead of the wall clock); everything after that — bots
playing, finalize replaying each match, results, ranking, closing the season and starting
the next — happens in the same tasks as production, on an in-process worker consuming the
configured broker (a queue of its own), or in this process with ``--eager``. The last
line of output is one JSON object.
"""

import json
import random
import sys
import time
import uuid
from contextlib import contextmanager

from celery.contrib.testing.worker import start_worker
from django.core.management.base import BaseCommand, CommandError
from django.db.models import Q
from django.utils import timezone

from config.celery import app as celery_app
from config.errors import DomainError
from engine import variants
from gameplay import services as gameplay
from gameplay.models import Match
from leagues import selectors, services, tasks
from leagues.models import Fixture, League, Round, Season, Standing

POLL_SECONDS = 0.1


class Command(BaseCommand):
    help = "Simulate league seasons between bots through the real Celery tasks."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=40)
        parser.add_argument("--divisions", type=int, default=4)
        parser.add_argument("--seasons", type=int, default=2)
        parser.add_argument("--variant", default="gin")
        parser.add_argument("--seed", default="0", help="Names the league; orders the bots.")
        parser.add_argument("--table-size", type=int, default=2)
        parser.add_argument("--target", type=int, default=10, help="Short matches: game target.")
        parser.add_argument("--workers", type=int, default=4, help="Worker threads.")
        parser.add_argument("--eager", action="store_true", help="Run tasks in this process.")
        parser.add_argument("--timeout", type=float, default=600.0, help="Seconds per round.")
        parser.add_argument("--json", action="store_true", help="Only the JSON summary line.")

    def handle(self, *args, **opts):
        began = time.monotonic()
        if opts["players"] < 2 * opts["divisions"] or opts["divisions"] < 1:
            raise CommandError("every division needs at least two players")
        self.quiet = opts["json"]
        self.tty = sys.stdout.isatty() and not self.quiet
        league = self._league(opts)
        runner = _eager() if opts["eager"] else _worker(opts["workers"])
        with runner:
            season = services.season_start(
                season_id=services.season_create(league=league, starts_at=timezone.now()).pk
            )
            for _ in range(opts["seasons"]):
                self._play(season, opts["timeout"])
                season = Season.objects.get(league=league, number=season.number + 1)
        closed = Season.objects.filter(league=league, status=Season.Status.CLOSED)
        if not self.quiet:
            self._tables(closed.order_by("-number").first())
        fixtures = Fixture.objects.filter(round__season__in=closed)
        outcomes = Standing.objects.filter(season__in=closed)
        summary = {
            "league": league.slug,
            "seasons": closed.count(),
            "fixtures": fixtures.filter(status=Fixture.Status.DONE).count(),
            "void_fixtures": fixtures.filter(status=Fixture.Status.VOID).count(),
            "validated_matches": Match.objects.filter(
                league_fixture__in=fixtures,
                status=Match.Status.FINISHED,
                finalized_at__isnull=False,
            ).count(),
            "promoted": outcomes.filter(outcome=Standing.Outcome.PROMOTED).count(),
            "relegated": outcomes.filter(outcome=Standing.Outcome.RELEGATED).count(),
            "seconds": round(time.monotonic() - began, 2),
        }
        self.stdout.write(json.dumps(summary))

    def _league(self, opts) -> League:
        try:
            options = {"target": opts["target"]} if "target" in _option_names(opts) else {}
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        count, divisions = opts["players"], opts["divisions"]
        size = count // divisions
        moves = max(1, size // 4)
        ladder = [
            {
                "name": f"Division {tier}",
                "size": size + (count % divisions if tier == divisions else 0),
                "promote": moves,
                "relegate": moves,
            }
            for tier in range(1, divisions + 1)
        ]
        stamp = f"{opts['seed']}-{uuid.uuid4().hex[:6]}"
        try:
            league = services.league_create(
                name=f"Simulation {stamp}",
                variant=opts["variant"],
                options=options,
                table_size=opts["table_size"],
                divisions=ladder,
            )
        except DomainError as exc:
            raise CommandError(exc.message) from exc
        bots = gameplay.bot_players(kind="greedy", count=count)
        random.Random(opts["seed"]).shuffle(bots)
        for bot in bots:
            services.league_join(league=league, player=bot)
        return league

    def _play(self, season: Season, timeout: float) -> None:
        """Advance the calendar a round at a time once every result of the last is in."""
        interval = season.league.round_interval
        total = Fixture.objects.filter(round__season=season).count()
        for number in range(1, season.rounds + 1):
            opens_at = season.starts_at + (number - 1) * interval
            tasks.open_due_rounds.delay(opens_at.isoformat())
            self._wait(
                lambda n=number: (
                    not Round.objects.filter(
                        season=season, number__lte=n, ranked_at__isnull=True
                    ).exists()
                ),
                season,
                total,
                timeout,
            )
        self._wait(
            lambda: Season.objects.filter(pk=season.pk, status=Season.Status.CLOSED).exists(),
            season,
            total,
            timeout,
        )
        if self.tty:
            self.stdout.write("")

    def _wait(self, done, season: Season, total: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not done():
            if time.monotonic() > deadline:
                raise CommandError(f"{season} made no progress for {timeout:.0f}s")
            if self.tty:
                recorded = Fixture.objects.filter(
                    Q(round__season=season), ~Q(status__in=["scheduled", "playing"])
                ).count()
                filled = int(30 * recorded / max(total, 1))
                self.stdout.write(
                    f"\rSeason {season.number} [{'#' * filled}{'.' * (30 - filled)}] "
                    f"{recorded}/{total} fixtures",
                    ending="",
                )
                self.stdout.flush()
            time.sleep(POLL_SECONDS)

    def _tables(self, season: Season | None) -> None:
        if season is None:
            return
        ladder = selectors.divisions_of(season.league)
        self.stdout.write(f"{season.league.name}, season {season.number} final tables")
        for division in ladder:
            self.stdout.write(f"\n{division.name}")
            self.stdout.write(
                f"{'Pos':>3}  {'Player':<20} {'P':>2} {'W':>2} {'D':>2} {'L':>2} "
                f"{'Diff':>5} {'Pts':>4}  Form   Outcome"
            )
            for line in selectors.division_table(season, division, ladder):
                row = line.row
                self.stdout.write(
                    f"{row.rank:>3}  {row.player.display_name:<20} {row.played:>2} {row.won:>2} "
                    f"{row.drawn:>2} {row.lost:>2} {row.game_diff:>+5} {row.points:>4}  "
                    f"{row.form:<6} {row.outcome}"
                )


def _option_names(opts) -> set[str]:
    return {option.name for option in variants.get(opts["variant"]).options}


@contextmanager
def _eager():
    conf = celery_app.conf
    previous = conf.task_always_eager, conf.task_eager_propagates
    conf.task_always_eager = conf.task_eager_propagates = True
    try:
        yield
    finally:
        conf.task_always_eager, conf.task_eager_propagates = previous


@contextmanager
def _worker(concurrency: int):
    """A real worker in this process on the configured broker, on a queue of its own so a
    `make run` worker never takes the simulation's tasks (nor it theirs)."""
    queue = f"knock-simulate-{uuid.uuid4().hex[:12]}"
    previous = celery_app.conf.task_default_queue
    celery_app.conf.task_default_queue = queue
    try:
        with start_worker(
            celery_app,
            pool="threads",
            concurrency=concurrency,
            queues=[queue],
            perform_ping_check=False,
            shutdown_timeout=30,
        ):
            yield
    finally:
        celery_app.conf.task_default_queue = previous
