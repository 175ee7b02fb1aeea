"""Running whole bot tournaments for the demo, `simulate_tournament` and the benchmark.

Everything goes through the services and the production Celery tasks; what differs is only
where the tasks run: in this process (eager) or on workers through the configured broker.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from engine import variants
from gameplay import services as gameplay
from tournaments import services
from tournaments.models import Tournament


def organiser(username: str):
    """A user holding the organiser permission (created once)."""
    user, _ = get_user_model().objects.get_or_create(username=username)
    user.user_permissions.add(Permission.objects.get(codename="organise_tournament"))
    return get_user_model().objects.get(pk=user.pk)  # a fresh permission cache


def quick_options(variant: str, target: int | None) -> dict:
    """A short match target where the variant has one, to keep bot tournaments quick."""
    names = {option.name for option in variants.get(variant).options}
    return {"target": target} if target and "target" in names else {}


def bot_tournament(
    *, name: str, players: int, by, kind: str = "greedy", register: bool = True, **settings
) -> Tournament:
    """A tournament taking registrations, with `players` bots registered."""
    tournament = services.tournament_create(organiser=by, name=name, **settings)
    tournament = services.tournament_open_registration(tournament_id=tournament.pk, by=by)
    if register:
        for bot in gameplay.bot_players(kind=kind, count=players):
            services.entry_register(tournament_id=tournament.pk, player=bot)
    return tournament
