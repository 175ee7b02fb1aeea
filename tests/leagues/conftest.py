"""League fixtures: short gin matches between bots keep whole seasons fast."""

from datetime import timedelta

import pytest
from django.utils import timezone

from leagues import services
from tests.factories import BotPlayerFactory

FAST_GIN = {"target": 10}


def make_league(*, divisions=(("Gold", 4, 1, 1), ("Silver", 4, 1, 1)), **kwargs):
    """A gin league with the given ladder (name, size, promote, relegate), top first."""
    kwargs.setdefault("name", "Test League")
    kwargs.setdefault("variant", "gin")
    kwargs.setdefault("options", FAST_GIN)
    return services.league_create(
        divisions=[
            {"name": name, "size": size, "promote": up, "relegate": down}
            for name, size, up, down in divisions
        ],
        **kwargs,
    )


def start(league, players):
    """Join every player and start a season now; returns the running season."""
    for player in players:
        services.league_join(league=league, player=player)
    season = services.season_create(league=league, starts_at=timezone.now())
    return services.season_start(season_id=season.pk)


@pytest.fixture
def bots():
    def make(count):
        return BotPlayerFactory.create_batch(count)

    return make


@pytest.fixture
def past():
    return timezone.now() - timedelta(days=30)
