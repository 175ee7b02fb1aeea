"""Data migrations, run as functions over rows made the way the old code made them."""

import importlib

import pytest
from django.apps import apps

from gameplay import services
from gameplay.models import Match
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


def test_pool201_matches_stored_before_the_published_drops_keep_20_and_40():
    drops = importlib.import_module("gameplay.migrations.0010_indian_pool201_drops_as_played")

    def indian(fmt: str) -> Match:
        match = services.match_create(
            variant="indian", options={"format": fmt}, players=PlayerFactory.create_batch(2)
        )
        old = {k: v for k, v in match.options.items() if k not in drops.PLAYED}
        Match.objects.filter(pk=match.pk).update(options=old)  # as stored before the options
        return match

    before, pool101 = indian("pool201"), indian("pool101")
    drops.record_drops_as_played(apps, None)
    before.refresh_from_db()
    pool101.refresh_from_db()
    assert (before.options["first_drop"], before.options["middle_drop"]) == (20, 40)
    assert "first_drop" not in pool101.options  # its drops did not change
    assert services.games.load(before).view(None)["scores"] == [0, 0]
