"""The league admin's game options: a field each from the engine's Option metadata, with
its range and help, and refused values explained at the field, as for rooms and tournaments;
and the season actions' reports in the admin's language."""

import re

import pytest
from django.contrib.messages import get_messages
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from leagues import services
from leagues.models import League
from tests.leagues.conftest import make_league

pytestmark = pytest.mark.django_db

ADD = reverse("admin:leagues_league_add")


def league_data(**overrides) -> dict:
    """What the add form posts for a two-seat Gin league with one division."""
    return {
        "name": "Admin League",
        "slug": "admin-league",
        "variant": "gin",
        "table_size": 2,
        "rotation_rounds": 6,
        "round_interval": "1 00:00:00",
        "points_win": 3,
        "points_draw": 1,
        "points_loss": 0,
        "tiebreakers": '["wins"]',
        "divisions-TOTAL_FORMS": 1,
        "divisions-INITIAL_FORMS": 0,
        "divisions-0-tier": 1,
        "divisions-0-name": "Premier",
        "divisions-0-size": 8,
        "divisions-0-promote": 0,
        "divisions-0-relegate": 0,
        **overrides,
    }


def field_row(html: str, name: str) -> str:
    """The admin's row for one field: its input, its errors and its help."""
    return re.search(
        rf'<div class="form-row[^"]*field-{name}\b.*?(?=<div class="form-row|</fieldset)',
        html,
        re.S,
    ).group(0)


def test_the_variants_options_are_fields_with_their_range_and_help(admin_client):
    response = admin_client.get(ADD)
    form = response.context["adminform"].form
    assert "options" not in form.fields
    target = form.fields["opt_gin_target"]
    assert (target.min_value, target.max_value) == (1, 10000)
    row = field_row(response.content.decode(), "opt_gin_target")
    assert 'type="number"' in row and "1 to 10000" in row
    assert form.fields["opt_basic_scoring"].choices == [
        ("winner", "winner"),
        ("penalty", "penalty"),
    ]
    fieldsets = [name for name, _ in response.context["adminform"].form.option_fieldsets()]
    assert "Gin Rummy options" in fieldsets


def test_bad_option_values_are_refused_at_their_field_with_the_help_text(admin_client):
    refused = admin_client.post(ADD, league_data(opt_gin_target=0))
    assert refused.status_code == 200
    errors = refused.context["adminform"].form.errors
    assert "opt_gin_target" in errors
    row = field_row(refused.content.decode(), "opt_gin_target")
    assert "greater than or equal to 1" in row and "1 to 10000" in row
    assert not League.objects.exists()

    # Only the chosen game's options count: a Basic value is not stored on a Gin league.
    created = admin_client.post(ADD, league_data(opt_gin_target=50, opt_basic_jokers=2))
    assert created.status_code == 302
    league = League.objects.get()
    assert league.options["target"] == 50 and "jokers" not in league.options
    change = reverse("admin:leagues_league_change", args=[league.pk])
    assert admin_client.get(change).context["adminform"].form.initial["opt_gin_target"] == 50


def test_the_season_actions_report_each_season_in_a_whole_sentence(admin_client, bots):
    call_command("compilemessages", verbosity=0)  # the Hindi below reads the catalogue
    league, empty = make_league(name="Busy League"), make_league(name="Empty League")
    for player in bots(2):
        services.league_join(league=league, player=player)
    seasons = [services.season_create(league=x, starts_at=timezone.now()) for x in (league, empty)]
    answer = admin_client.post(
        reverse("admin:leagues_season_changelist"),
        {"action": "start_season", "_selected_action": [s.pk for s in seasons]},
        HTTP_ACCEPT_LANGUAGE="hi",
        follow=True,
    )
    assert sorted(str(m) for m in get_messages(answer.wsgi_request)) == [
        f"{seasons[0]}: शुरू हुआ।",
        f"{seasons[1]}: सीज़न के लिए कम से कम दो सदस्य चाहिए।",
    ]
    # Its fixtures unplayed, the season is not closed: the refusal, in English this time.
    refused = admin_client.post(
        reverse("admin:leagues_season_changelist"),
        {"action": "close_season", "_selected_action": [seasons[0].pk]},
        follow=True,
    )
    [refusal] = [str(m) for m in get_messages(refused.wsgi_request)]
    assert refusal.startswith(f"{seasons[0]}: ") and "played" in refusal, refusal
    assert not re.search("[\u0900-\u097f]", refusal)
