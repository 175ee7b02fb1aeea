"""`load_demo` fills gameplay with real, finalized history and adds nothing the second time."""

import io
import itertools

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management import call_command

from engine import variants
from gameplay import demo
from gameplay.models import Achievement, Level, Match, Player, Rating, Room

# The matches finalize through their on-commit task hooks, so commits must really happen.
pytestmark = pytest.mark.django_db(transaction=True)


def row_counts() -> dict[str, int]:
    models = [*apps.get_app_config("gameplay").get_models(), get_user_model()]
    return {model.__name__: model.objects.count() for model in models}


def test_load_demo_twice_builds_gameplay_once(settings):
    settings.DEBUG = True  # load_demo refuses to run otherwise
    out = io.StringIO()
    call_command("load_demo", "--site-url", "http://127.0.0.1:8101", stdout=out)
    first = row_counts()
    call_command("load_demo", stdout=io.StringIO())
    assert row_counts() == first
    assert f"username {demo.DEMO_USERNAME!r}  password {demo.DEMO_PASSWORD!r}" in out.getvalue()
    assert "http://127.0.0.1:8101/admin/" in out.getvalue()
    assert ":8000" not in out.getvalue()  # every link uses the address the site is served at

    assert list(Level.objects.values_list("number", flat=True)) == list(range(1, 21))
    required = list(Level.objects.values_list("xp_required", flat=True))
    steps = [high - low for low, high in itertools.pairwise(required)]
    assert steps == sorted(steps) and steps[0] > 0  # a rising curve
    assert Level.objects.filter(title__isnull=False).count() >= 3
    assert Achievement.objects.count() >= 12
    assert Achievement.objects.filter(hidden=True).exists()
    assert set(Achievement.objects.values_list("tier", flat=True)) == set(Achievement.Tier)

    for name in variants.names():
        rooms = Room.objects.filter(variant=name, active=True)
        assert rooms.filter(min_level=1).exists(), name
        assert rooms.filter(min_level__gt=1).exists(), name

    assert Match.objects.exists()
    assert not Match.objects.exclude(status=Match.Status.FINISHED).exists()
    assert not Match.objects.filter(finalized_at__isnull=True).exists()
    for bot in Player.objects.filter(is_bot=True, seats__isnull=False).distinct():
        assert Rating.objects.filter(player=bot).exists(), bot
        assert bot.xp > 0 and bot.playerachievement_set.exists(), bot

    player = Player.objects.get(user__username=demo.DEMO_USERNAME)
    assert player.user.check_password(demo.DEMO_PASSWORD)
    assert player.seats.count() == demo.DEMO_PLAYER_MATCHES
    assert player.coins > 0 and player.titles.exists() and player.ratings.exists()
