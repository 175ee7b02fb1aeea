"""Tournaments' part of the demo data (`load_demo`, after gameplay's): a finished 64-player
Gin tournament, a finished Dummy Rummy one at tables of four, and a Basic Rummy one taking
registrations.

Idempotent: each tournament is looked up by name and built only when missing. The finished
one is played for real, its Celery tasks run in this process (no worker is up yet).
"""

from datetime import timedelta

from django.utils import timezone

from config.celery import tasks_in_process
from gameplay.models import Title
from tournaments import runner, services
from tournaments.models import Tournament

FINISHED = "Knock Open 64 (Gin)"
OPEN = "Weekly Basic Rummy Cup"
DUMMY = "Dummy Rummy Club Cup"
ORGANISER = "organiser"


def sponsored(tournament: Tournament, by, prizes: list[dict]) -> None:
    """Bots pay no entry fee: the admin grants a sponsor budget (as in the admin), then the
    organiser sets prizes that fit the pool."""
    coins = sum(prize.get("coins", 0) for prize in prizes)
    Tournament.objects.filter(pk=tournament.pk).update(sponsor_coins=coins)
    services.tournament_update(tournament_id=tournament.pk, by=by, prizes=prizes)


def build(log) -> None:
    by = runner.organiser(ORGANISER)
    if not Tournament.objects.filter(name=FINISHED).exists():
        title = Title.objects.filter(code="founder").first()
        tournament = runner.bot_tournament(
            name=FINISHED,
            players=64,
            by=by,
            variant="gin",
            options=runner.quick_options("gin", 5),
            seeding=Tournament.Seeding.RATING,
            third_place=True,
            show_up_seconds=0,
        )
        sponsored(
            tournament,
            by,
            [
                {"placement": 1, "coins": 500, "xp": 200, "title": title},
                {"placement": 2, "coins": 200, "xp": 100},
                {"placement": 3, "coins": 100},
            ],
        )
        with tasks_in_process():
            services.tournament_start(tournament_id=tournament.pk)
        tournament.refresh_from_db()
        log(f"Tournaments: {FINISHED} played out ({tournament.status}).")
    if not Tournament.objects.filter(name=DUMMY).exists():
        # Twelve hands at most (the least `max_hands`): lowest penalty points win.
        tournament = runner.bot_tournament(
            name=DUMMY,
            players=8,
            by=by,
            variant="dummy",
            options={"max_hands": 12},
            table_size=4,
            advance=2,
            show_up_seconds=0,
        )
        sponsored(tournament, by, [{"placement": 1, "coins": 200, "xp": 100}])
        with tasks_in_process():
            services.tournament_start(tournament_id=tournament.pk)
        tournament.refresh_from_db()
        log(f"Tournaments: {DUMMY} played out ({tournament.status}).")
    if not Tournament.objects.filter(name=OPEN).exists():
        now = timezone.now()
        runner.bot_tournament(
            name=OPEN,
            players=10,
            by=by,
            variant="basic",
            options=runner.quick_options("basic", 50),
            table_size=4,
            advance=2,
            best_of=1,
            final_best_of=3,
            max_entries=32,
            entry_fee=20,
            registration_closes_at=now + timedelta(days=2),
            check_in_opens_at=now + timedelta(days=2),
            check_in_closes_at=now + timedelta(days=2, hours=1),
            starts_at=now + timedelta(days=2, hours=1),
            prizes=[{"placement": 1, "coins": 400}, {"placement": 2, "coins": 150}],
        )
        log(f"Tournaments: {OPEN} is taking registrations.")
