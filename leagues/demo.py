"""Leagues' part of the demo data (`python manage.py load_demo`, after gameplay's).

One league with a season in progress: two divisions of bots, the first rounds played and
ranked, the next one opening a minute after `make run`, so the table shows movement, form
and zones. The demo player (when gameplay's demo made one) has joined for next season.
Idempotent: a league already there (looked up by slug) is left alone. Tasks run in this
process while it builds, because `make run` loads the demo before any worker is up.
"""

from datetime import timedelta

from django.utils import timezone

from config.celery import tasks_in_process
from gameplay import services as gameplay
from gameplay.models import Player, Reward, Title
from leagues import services, tasks
from leagues.models import League, Round

SLUG = "knock-gin-league"
ROUNDS_PLAYED = 3
DIVISIONS = [("Gold", 6, 0, 2), ("Silver", 6, 2, 0)]


def build(log) -> None:
    if League.objects.filter(slug=SLUG).exists():
        log("Leagues: demo league already there.")
        return
    league = services.league_create(
        name="Knock Gin League",
        slug=SLUG,
        variant="gin",
        options={"target": 15},
        divisions=[
            {"name": name, "size": size, "promote": up, "relegate": down}
            for name, size, up, down in DIVISIONS
        ],
    )
    league.divisions.filter(tier=1).update(
        champion_reward=Reward.objects.filter(code="coins-100").first(),
        champion_title=Title.objects.filter(code="founder").first(),
    )
    for player in gameplay.bot_players(kind="greedy", count=sum(d[1] for d in DIVISIONS)):
        services.league_join(league=league, player=player)
    # Started ROUNDS_PLAYED days ago: those rounds are due now, the rest open day by day.
    starts_at = timezone.now() - timedelta(days=ROUNDS_PLAYED) + timedelta(minutes=1)
    season = services.season_start(
        season_id=services.season_create(league=league, starts_at=starts_at).pk
    )
    with tasks_in_process():
        for rnd in Round.objects.filter(season=season, opens_at__lte=timezone.now()):
            tasks.open_round.delay(rnd.pk)
    demo = Player.objects.filter(user__username="demo").first()
    if demo is not None:
        services.league_join(league=league, player=demo)
    played = Round.objects.filter(season=season, ranked_at__isnull=False).count()
    log(f"Leagues: {league.name}, season {season.number} with {played} rounds ranked.")
