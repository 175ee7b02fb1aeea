"""The demo league and the simulate_league command."""

import json

import pytest
from django.core.management import call_command

from leagues import demo
from leagues.models import League, Round, Season

pytestmark = pytest.mark.django_db(transaction=True)


def test_demo_builds_a_season_in_progress_once():
    lines = []
    demo.build(lines.append)
    demo.build(lines.append)
    league = League.objects.get(slug=demo.SLUG)
    season = Season.objects.get(league=league)
    assert season.status == Season.Status.RUNNING
    ranked = Round.objects.filter(season=season, ranked_at__isnull=False)
    assert ranked.count() == demo.ROUNDS_PLAYED * len(demo.DIVISIONS)
    assert Round.objects.filter(season=season, opened_at__isnull=True).exists()
    assert lines[-1] == "Leagues: demo league already there."


def test_simulate_league_plays_seasons_with_promotion_and_relegation(capsys):
    call_command(
        "simulate_league",
        "--players=8",
        "--divisions=2",
        "--seasons=2",
        "--variant=gin",
        "--seed=3",
        "--eager",
        "--json",
    )
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["seasons"] == 2
    assert summary["fixtures"] == summary["validated_matches"] == 2 * 2 * 6
    assert summary["promoted"] == summary["relegated"] == 2
    assert summary["seconds"] > 0
